"""The window's actions, menus, toolbar and shortcuts, and the lists the menus show
(recent vaults, bookmarks) and the command palette offers.

Made once by :func:`build_actions` on a :class:`MainWindow`; each action calls one of the
window's public methods (or a tab's, a dock's).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QLabel, QMenu, QMessageBox, QProgressBar, QPushButton

from anthology import __version__
from anthology.demo import DEMOS
from anthology.graph.paths import LinkPath
from anthology.paths import entries_dir
from anthology.ui.graph.tab_kind import AUTO, GLOBAL, GRAPH, LOCAL, TIMELINE
from anthology.ui.panels.path_finder import PathFinderDialog
from anthology.ui.reading.reading_settings import PreferencesDialog, ReadingSettings
from anthology.ui.window.command_palette import PALETTE_PLACE, action_name
from anthology.vault import display_labels
from anthology.vault.render.safe_text import plain_text

if TYPE_CHECKING:
    from anthology.ui.window.main_window import MainWindow


class WindowParts:
    """What :func:`build_actions` and :func:`build_status_bar` give the window (declared
    here for the type checker: :class:`MainWindow` is made of it)."""

    act_about: QAction
    act_actual: QAction
    act_back: QAction
    act_bigger: QAction
    act_bookmark: QAction
    act_bookmarks: QAction
    act_close_tab: QAction
    act_dark: QAction
    act_explorer: QAction
    act_export_html: QAction
    act_export_pdf: QAction
    act_find: QAction
    act_find_next: QAction
    act_find_path: QAction
    act_find_previous: QAction
    act_graph_tab: QAction
    act_local_graph_tab: QAction
    act_timeline_tab: QAction
    act_next_pane: QAction
    act_previous_pane: QAction
    act_forward: QAction
    act_home: QAction
    act_light: QAction
    act_new_tab: QAction
    act_next_tab: QAction
    act_open: QAction
    act_open_bundled: QAction
    act_outline: QAction
    act_palette: QAction
    act_preferences: QAction
    act_previous_tab: QAction
    act_print: QAction
    act_problems: QAction
    act_quit: QAction
    act_readable: QAction
    act_reload: QAction
    act_search: QAction
    act_selection_neighbourhood: QAction
    act_serif: QAction
    act_smaller: QAction
    act_switcher: QAction
    act_tags: QAction
    act_toggle_theme: QAction
    demo_actions: list[QAction]
    bookmarks_menu: QMenu
    recent_menu: QMenu
    count_label: QLabel
    progress: QProgressBar
    problems_button: QPushButton


def action(
    win: MainWindow,
    text: str,
    slot: Callable[..., Any],
    shortcut: QKeySequence | list[QKeySequence] | QKeySequence.StandardKey | None = None,
    tip: str = "",
) -> QAction:
    """An action of the window (its shortcut works wherever the focus is in it)."""
    act = QAction(text, win)
    if shortcut is not None:
        if isinstance(shortcut, list):
            # Platform bindings may repeat ours (Back is Alt+Left on Linux): keep one of each.
            unique = {k.toString(): k for k in shortcut if not k.isEmpty()}
            act.setShortcuts(list(unique.values()))
        else:
            act.setShortcut(shortcut)
    act.setStatusTip(tip or text.replace("&", "").rstrip("…"))
    act.triggered.connect(slot)
    win.addAction(act)
    return act


def build_actions(win: MainWindow) -> None:
    """Every action of the window (``win.act_*``), its menus and its toolbar."""
    K = QKeySequence
    win.act_open = action(
        win,
        "&Open Folder…",
        win.choose_vault,
        K("Ctrl+Shift+O"),
        "Open a folder of Markdown files as a vault",
    )
    win.act_open_bundled = action(
        win,
        "Open the &Bundled Anthology",
        lambda: win.open_vault(entries_dir()),
        None,
        "The anthology of transformer training that ships with Anthology",
    )
    win.act_reload = action(
        win, "&Reload", win.reindex, K.StandardKey.Refresh, "Re-read what changed on disk"
    )
    win.act_quit = action(win, "&Quit", win.close, K.StandardKey.Quit)
    win.act_print = action(
        win, "&Print…", win.print_entry, K("Ctrl+Alt+P"), "Print the entry as shown"
    )
    win.act_export_pdf = action(
        win, "Export as P&DF…", lambda: win.export_pdf(), tip="Save the entry as shown as a PDF"
    )
    win.act_export_html = action(
        win,
        "Export as &HTML…",
        lambda: win.export_html(),
        tip="Save the entry as one self-contained HTML file",
    )
    back = [K("Alt+Left"), *K.keyBindings(K.StandardKey.Back)]
    forward = [K("Alt+Right"), *K.keyBindings(K.StandardKey.Forward)]
    win.act_back = action(win, "&Back", win.go_back, back)
    win.act_forward = action(win, "&Forward", win.go_forward, forward)
    win.act_home = action(win, "&Home", win.go_home, K("Alt+Home"))
    win.act_switcher = action(
        win,
        "&Quick Switcher…",
        win.open_switcher,
        K("Ctrl+O"),
        "Jump to an entry by id, title or alias",
    )
    win.act_search = action(
        win, "&Search…", lambda: focus_search(win), K("Ctrl+Shift+F"), "Full-text search"
    )
    win.act_find = action(win, "&Find in Note…", win.finding.find_in_note, K("Ctrl+F"),
                          "Find words in the open note")  # fmt: skip
    win.act_find_next = action(win, "Find &Next", win.finding.find_again, K("F3"))
    win.act_find_previous = action(
        win, "Find Pre&vious", lambda: win.finding.find_again(backward=True), K("Shift+F3")
    )
    win.act_next_pane = action(win, "Next &Pane", lambda: win.finding.cycle_panes(1), K("F6"),
                               "Move the keyboard to the next pane")  # fmt: skip
    win.act_previous_pane = action(win, "Previous Pa&ne", lambda: win.finding.cycle_panes(-1),
                                   K("Shift+F6"))  # fmt: skip
    win.act_graph_tab = action(
        win, "Open &Graph in a Tab", lambda: open_graph_tab(win), K("Ctrl+Shift+G"),
        "The vault's graph in a tab of its own",
    )  # fmt: skip
    win.act_local_graph_tab = action(
        win, "Open &Local Graph in a Tab", lambda: open_graph_tab(win, local=True),
        tip="The open entry's local graph in a tab of its own",
    )  # fmt: skip
    win.act_timeline_tab = action(
        win, "Open &Timeline in a Tab", lambda: open_timeline_tab(win),
        tip="The entries by a date property (year, date, created…), relations as arcs",
    )  # fmt: skip
    win.act_problems = action(win, "&Problems…", win.show_problems)
    win.act_palette = action(
        win, "&Command Palette…", win.open_command_palette, K("Ctrl+P"), "Run any command by name"
    )
    win.act_find_path = action(
        win,
        "Find &Path Between Entries…",
        lambda: win.open_find_path(),
        K("Ctrl+Shift+P"),
        "How are two entries related? The shortest paths through the links",
    )
    win.act_selection_neighbourhood = action(
        win,
        "&Neighbourhood of Graph Selection",
        lambda: show_selection_neighbourhood(win),
        None,
        "The local graph of every Shift+clicked node at once",
    )
    win.demo_actions = [  # one a registered demo (anthology.demo.DEMOS)
        action(win, f"&{demo.title}", lambda _c=False, n=name: win.open_demo(n))
        for name, demo in DEMOS.items()
    ]
    win.act_about = action(win, "&About Anthology", lambda: about(win))
    win.act_new_tab = action(
        win, "&New Tab", win.new_tab, K("Ctrl+T"), "Open the current entry in a new tab"
    )
    win.act_close_tab = action(win, "&Close Tab", win.close_tab, K("Ctrl+W"))
    win.act_next_tab = action(
        win, "Ne&xt Tab", lambda: win.tabs.cycle(1), [K("Ctrl+Tab"), K("Ctrl+PgDown")]
    )
    win.act_previous_tab = action(
        win,
        "Pre&vious Tab",
        lambda: win.tabs.cycle(-1),
        [K("Ctrl+Shift+Tab"), K("Ctrl+Shift+Backtab"), K("Ctrl+PgUp")],
    )
    win.act_explorer = win.explorer_dock.toggleViewAction()
    win.act_explorer.setText("&Files")
    win.act_explorer.setShortcut(K("Ctrl+Shift+E"))
    win.act_explorer.setStatusTip("Show or hide the file explorer")
    win.addAction(win.act_explorer)
    win.act_outline = win.outline_dock.toggleViewAction()
    win.act_outline.setText("&Outline")
    win.act_outline.setStatusTip("Show or hide the outline of the entry")
    win.act_bigger = action(
        win, "&Bigger Text", lambda: zoom(win, 1), [K("Ctrl+="), K("Ctrl++"), K("Ctrl+Shift+=")]
    )
    win.act_smaller = action(win, "&Smaller Text", lambda: zoom(win, -1), K("Ctrl+-"))
    win.act_actual = action(win, "&Actual Size", lambda: zoom(win, 0), K("Ctrl+0"))
    win.act_readable = action(
        win,
        "Readable &Line Width",
        lambda on: win.set_reading(replace(win.reading, readable=bool(on))),
    )
    win.act_readable.setCheckable(True)
    win.act_readable.setChecked(win.reading.readable)
    win.act_serif = action(
        win, "Se&rif Body Font", lambda on: win.set_reading(replace(win.reading, serif=bool(on)))
    )
    win.act_serif.setCheckable(True)
    win.act_serif.setChecked(win.reading.serif)
    win.act_preferences = action(
        win,
        "&Preferences…",
        lambda: open_preferences(win),
        K("Ctrl+,"),
        "Font size, body font and line width",
    )
    win.act_bookmark = action(
        win,
        "&Bookmark This Entry",
        win.toggle_bookmark,
        K("Ctrl+D"),
        "Bookmark the entry, or remove its bookmark",
    )
    win.act_bookmark.setCheckable(True)
    win.act_tags = win.tags_dock.toggleViewAction()
    win.act_tags.setText("&Tags")
    win.act_tags.setStatusTip("Show or hide the vault's tags")
    win.act_bookmarks = win.bookmarks_dock.toggleViewAction()
    win.act_bookmarks.setText("&Bookmarks")
    win.act_bookmarks.setStatusTip("Show or hide the bookmarks")
    side = ((win.act_tags, win.tags_dock), (win.act_bookmarks, win.bookmarks_dock))
    for act, dock in side:
        # shown from the menu, a dock tabbed with the other comes to the front
        act.triggered.connect(lambda on, d=dock: on and QTimer.singleShot(0, d.raise_))
    win.act_back.setText("← Back")
    win.act_forward.setText("Forward →")

    themes = QActionGroup(win)
    win.act_light = QAction("&Light", win, checkable=True)
    win.act_dark = QAction("&Dark", win, checkable=True)
    for act, name in ((win.act_light, "light"), (win.act_dark, "dark")):
        themes.addAction(act)
        act.triggered.connect(lambda _c=False, n=name: win.set_theme(n))
    win.act_toggle_theme = action(
        win,
        "Toggle &Theme",
        lambda: win.set_theme("dark" if win.theme == "light" else "light"),
        K("Ctrl+Shift+L"),
    )

    bar = win.menuBar()
    m = bar.addMenu("&File")
    m.addAction(win.act_open)
    win.recent_menu = m.addMenu("Open &Recent")
    m.addAction(win.act_open_bundled)
    m.addSeparator()
    m.addAction(win.act_new_tab)
    m.addAction(win.act_close_tab)
    m.addSeparator()
    m.addAction(win.act_reload)
    m.addSeparator()
    m.addAction(win.act_print)
    m.addAction(win.act_export_pdf)
    m.addAction(win.act_export_html)
    m.addSeparator()
    m.addAction(win.act_quit)
    m = bar.addMenu("&Go")
    for a in (
        win.act_back,
        win.act_forward,
        win.act_home,
        None,
        win.act_switcher,
        win.act_search,
        win.act_find,
        win.act_find_next,
        win.act_find_previous,
        win.act_palette,
        None,
        win.act_find_path,
        win.act_selection_neighbourhood,
        None,
        win.act_next_tab,
        win.act_previous_tab,
        win.act_next_pane,
        win.act_previous_pane,
    ):
        m.addSeparator() if a is None else m.addAction(a)
    m = bar.addMenu("&View")
    tm = m.addMenu("&Theme")
    tm.addAction(win.act_light)
    tm.addAction(win.act_dark)
    m.addAction(win.act_toggle_theme)
    m.addSeparator()
    m.addAction(win.act_graph_tab)
    m.addAction(win.act_local_graph_tab)
    m.addAction(win.act_timeline_tab)
    m.addSeparator()
    for a in (
        win.act_bigger,
        win.act_smaller,
        win.act_actual,
        win.act_serif,
        win.act_readable,
        win.act_preferences,
    ):
        m.addAction(a)
    m.addSeparator()
    m.addAction(win.act_explorer)
    m.addAction(win.act_outline)
    m.addAction(win.act_tags)
    m.addAction(win.act_bookmarks)
    m.addAction(win.neighbours.act_related)
    m.addAction(win.neighbours.act_ladder)
    m.addAction(win.search_dock.toggleViewAction())
    m.addAction(win.act_problems)
    for act in win.demo_actions:
        m.addAction(act)
    win.bookmarks_menu = bar.addMenu("&Bookmarks")
    win.bookmarks_menu.aboutToShow.connect(lambda: fill_bookmarks_menu(win))
    fill_bookmarks_menu(win)
    m = bar.addMenu("&Help")
    m.addAction(win.act_about)

    tb = win.addToolBar("Navigation")
    tb.setObjectName("navigationToolbar")
    tb.setMovable(False)
    for a in (
        win.act_back,
        win.act_forward,
        win.act_home,
        None,
        win.act_switcher,
        win.act_search,
        None,
        win.act_open,
        win.act_reload,
        None,
        win.act_toggle_theme,
    ):
        tb.addSeparator() if a is None else tb.addAction(a)
    win.act_switcher.setIconText("Go to…")
    win.act_search.setIconText("Search")
    win.act_open.setIconText("Open…")
    win.act_toggle_theme.setIconText("Theme")
    win.navigation.update_actions()


def fill_bookmarks_menu(win: MainWindow) -> None:
    """The Bookmarks menu: its two actions, then the bookmarked entries the index has."""
    m = win.bookmarks_menu
    # Only the listed entries are made anew (QMenu.clear would delete the dock's own
    # toggle action with them).
    for old in win.bookmark_actions:
        m.removeAction(old)
        old.deleteLater()
    if not m.actions():
        m.addAction(win.act_bookmark)
        m.addAction(win.act_bookmarks)
    win.bookmark_actions = []
    refs = win.bookmark_refs()
    if refs:
        win.bookmark_actions.append(m.addSeparator())
    for ref, label in zip(refs, display_labels(refs), strict=True):
        act = m.addAction(plain_text(label, 120))
        win.bookmark_actions.append(act)
        act.setStatusTip(plain_text(ref.path, 300))
        act.triggered.connect(lambda _c=False, i=ref.id: win.show_entry(i))


def update_recent_menu(win: MainWindow, vaults: list[str]) -> None:
    """File › Open Recent: the vaults opened last."""
    win.recent_menu.clear()
    for path in vaults:
        act = win.recent_menu.addAction(path)
        act.triggered.connect(lambda _c=False, p=path: win.open_vault(Path(p)))
    win.recent_menu.setEnabled(bool(vaults))


def palette_actions(win: MainWindow) -> list[QAction]:
    """Every command the palette offers: the menus', the window's and the graph's."""
    found: list[QAction] = []

    def walk(actions: list[QAction], place: str) -> None:
        for a in actions:
            if isinstance(menu := a.menu(), QMenu):
                name = action_name(a)
                walk(menu.actions(), f"{place} › {name}" if place else name)
            else:
                if place and not a.property(PALETTE_PLACE):
                    a.setProperty(PALETTE_PLACE, place)  # where it is in the menus
                found.append(a)

    walk(win.menuBar().actions(), "")
    found += win.actions()
    if win.graph is not None:
        for a in win.graph.palette_actions():
            if not a.property(PALETTE_PLACE):
                a.setProperty(PALETTE_PLACE, "Graph")
            found.append(a)
    return [a for a in found if a is not win.act_palette]


def apply_reading(win: MainWindow, settings: ReadingSettings) -> None:
    """Reading settings on every tab's views at once, kept (app-wide), and the View menu's
    check marks and the preferences dialog showing them."""
    settings = settings.clamped()
    win.reading = settings
    settings.save(win.settings)
    for view in win.tabs.views():
        view.set_reading(settings.style, readable=settings.readable, width=settings.width)
    for act, on in ((win.act_readable, settings.readable), (win.act_serif, settings.serif)):
        act.blockSignals(True)
        act.setChecked(on)
        act.blockSignals(False)
    if win.preferences is not None:
        win.preferences.set_settings(settings)


def zoom(win: MainWindow, steps: int) -> None:
    """Ctrl+= / Ctrl+- (one point bigger or smaller), Ctrl+0 (``steps`` 0: the default)."""
    if steps == 0:
        win.set_reading(replace(win.reading, font_size=ReadingSettings().font_size))
    else:
        win.set_reading(win.reading.bigger(steps))
    win.statusBar().showMessage(f"Text size {win.reading.font_size:g} pt", 2000)


def open_preferences(win: MainWindow) -> None:
    if win.preferences is None:
        win.preferences = PreferencesDialog(win.reading, win)
        win.preferences.changed.connect(win.set_reading)
    win.preferences.set_settings(win.reading)
    win.preferences.show()
    win.preferences.raise_()


def about(win: MainWindow) -> None:
    QMessageBox.about(
        win,
        "About Anthology",
        f"<h3>Anthology {__version__}</h3><p>An offline reader for a linked knowledge base "
        "of Markdown entries. Nothing is fetched from the network.</p>"
        f"<p>Vault: {html.escape(str(win.root or ''))}</p>",
    )


def open_find_path(win: MainWindow, a: str | None = None, b: str | None = None) -> PathFinderDialog:
    """The path finder, with ``a`` (a node's "Path to…") or the current entry as From."""
    if win.path_finder is None:
        dialog = PathFinderDialog(
            lambda: win.graph.path_finder() if win.graph is not None else None, win
        )
        dialog.pathChosen.connect(lambda path: _show_path(win, path))
        dialog.entryActivated.connect(win.show_entry)
        dialog.finished.connect(lambda _r: _show_path(win, None))
        dialog.set_entries(win.surroundings.switcher_items)
        win.path_finder = dialog
    win.path_finder.open_between(a if a is not None else win.current_id(), b)
    return win.path_finder


def _show_path(win: MainWindow, path: LinkPath | None) -> None:
    if win.graph is not None:
        win.graph.show_path(path)


def show_selection_neighbourhood(win: MainWindow) -> None:
    if win.graph is None or len(win.graph.selection()) == 0:
        win.statusBar().showMessage("Shift+click nodes of the graph to select them", 5000)
        return
    win.graph.show_selection_neighbourhood()


def open_graph_tab(win: MainWindow, local: bool = False) -> None:
    """The global graph (or the open entry's local graph) in a new tab."""
    current = win.current_id()
    if local and current is None:
        win.statusBar().showMessage("Open an entry to see its local graph", 4000)
        return
    ref = f"{LOCAL}{current}" if local else GLOBAL
    win.open_document(GRAPH, ref, new_tab=True)


def open_timeline_tab(win: MainWindow) -> None:
    """The timeline, by the vault's own date property, in a new tab."""
    win.open_document(TIMELINE, AUTO, new_tab=True)


def focus_search(win: MainWindow) -> None:
    win.search_dock.show()
    win.search_dock.raise_()
    win.search_panel.box.setFocus()
    win.search_panel.box.selectAll()


def open_path(win: MainWindow, path: str) -> None:
    if win.index is None:
        return
    for ref in win.index.entries():
        if ref.path == path:
            win.show_entry(ref.id)
            return
    win.statusBar().showMessage(f"{path} is not an entry (it could not be indexed)", 5000)


def build_status_bar(win: MainWindow) -> None:
    sb = win.statusBar()
    win.count_label = QLabel("")
    win.count_label.setObjectName("entryCount")
    win.progress = QProgressBar()
    win.progress.setObjectName("indexProgress")
    win.progress.setMaximumWidth(220)
    win.progress.setTextVisible(True)
    win.progress.hide()
    win.problems_button = QPushButton("")
    win.problems_button.setObjectName("problemsButton")
    win.problems_button.setFlat(True)
    win.problems_button.clicked.connect(win.show_problems)
    sb.addPermanentWidget(win.progress)
    sb.addPermanentWidget(win.problems_button)
    sb.addPermanentWidget(win.count_label)
