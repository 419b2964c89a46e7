"""The main window a reader lives in: entry pane, graph, backlinks, search, navigation.

It asks the core (:class:`VaultIndex`) questions and draws the answers; it never writes SQL.
Indexing runs on a :class:`TaskRunner` off the GUI thread; the window stays usable meanwhile
and shows progress in the status bar. Edits made in another editor reach the window through
a file watcher: the changed files are re-indexed and the reader keeps their place.

Two places hold what it knows of a vault: the index (a cache, rebuilt at will) and the
vault's user state (:class:`UserState`: the graph's layout, pins and settings), which
outlives the index. Window-wide things (geometry, theme, recent vaults) are in QSettings.
"""

from __future__ import annotations

import contextlib
import gc
import html
import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QFileSystemWatcher,
    QObject,
    QSettings,
    Qt,
    QThread,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QWidget,
)

from anthology import __version__, paths
from anthology.demo import DEMOS
from anthology.paths import entries_dir
from anthology.session.history import TabHistory, Visit
from anthology.ui.common.task_runner import TaskRunner, describe_error
from anthology.ui.common.theme import ThemeController
from anthology.ui.panels.backlinks_panel import COUNT_SHOWN, SOURCES_SHOWN, BacklinksPanel
from anthology.ui.panels.bookmarks_panel import BookmarksPanel
from anthology.ui.panels.file_explorer import FileExplorer
from anthology.ui.panels.path_finder import PathFinderDialog
from anthology.ui.panels.problems_dialog import ProblemsDialog
from anthology.ui.panels.quick_switcher import QuickSwitcher
from anthology.ui.panels.search_panel import SearchPanel
from anthology.ui.panels.tag_panel import TagPanel
from anthology.ui.reading.entry_pane import BACKGROUND_RENDER_CHARS, EntryPane
from anthology.ui.reading.entry_tabs import EntryTabs
from anthology.ui.reading.outline_panel import OutlinePanel
from anthology.ui.reading.page_preview import PreviewController
from anthology.ui.reading.reading_settings import PreferencesDialog, ReadingSettings
from anthology.ui.window.command_palette import CommandPalette
from anthology.ui.window.index_worker import refresh_index
from anthology.ui.window.views_loader import ViewsData, load_views
from anthology.user_state import (
    BOOKMARKS,
    EXPLORER_VIEW,
    GRAPH_VIEW,
    READER_TABS,
    RECENT,
    UserState,
    clean_explorer_view,
    clean_id_list,
    clean_tabs,
)
from anthology.vault import (
    DiskResolver,
    Entry,
    EntryRef,
    RefreshReport,
    VaultError,
    VaultIndex,
    check_place,
    default_db_path,
    display_labels,
    first_entry_path,
    read_first_entry,
    vault_root,
)
from anthology.vault.render import clear_render_cache
from anthology.vault.render.previews import clear_preview_cache
from anthology.vault.render.safe_text import plain_text
from anthology.vault.shared_reader import SharedReader
from anthology.vault.tags import vault_tags

if TYPE_CHECKING:  # pyqtgraph costs ~0.7 s to import: loaded once the first entry is shown
    from anthology.ui.graph.graph_view import GraphView

MAX_RECENT = 8
MAX_RECENT_ENTRIES = 30  # the quick switcher's recent entries, per vault
# Citing entries listed per relation in an entry's Properties box; a hub's others are in the
# backlinks panel, grouped by the same relations.
CITED_BY_SHOWN = 10
# inotify watches are a shared, limited resource: past this many files, poll instead.
MAX_WATCHED_FILES = 4000
POLL_MS = 2000
POLL_DUTY = 0.1  # the share of time a polling refresh may take (see _on_refreshed)
DEBOUNCE_MS = 150
TABS_SAVE_MS = 1500  # the open tabs are saved this long after the reader last moved
STATE_POLL_MS = 1000  # how often a window looks whether another one changed the user state
LEFT_DOCK_WIDTH = 250  # the explorer's and outline's first width (px)
SIDE_DOCK_WIDTH = 240  # the Tags and Bookmarks docks' readable width (px)
ENTRY_MIN_WIDTH = 280  # no dock may squeeze the entry tabs narrower than this
DEMO_DOCK_WIDTH = 520  # the demo dock's first width (px); it never grows by itself
DEMO_MIN_WIDTH = 300
QUIT_WAIT = 0.1  # s: the longest quitting waits for a background task to reach its check


class MainWindow(QMainWindow):
    # a problem with the user state, reported from whichever thread met it
    stateProblem = Signal(str)

    def __init__(
        self,
        vault: Path | None = None,
        *,
        db: Path | None = None,
        entry: str | None = None,
        settings: QSettings | None = None,
        state_dir: Path | None = None,
    ) -> None:
        """``state_dir``: where the vaults' user state files go (default:
        :func:`anthology.user_state.state_dir`)."""
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or QSettings("Anthology", "Anthology")
        self.state_dir = state_dir
        self.state: UserState | None = None  # the open vault's
        self.stateProblem.connect(self._on_state_problem)
        self.index: VaultIndex | None = None
        # What renders off the GUI thread ask (the panes' long entries, the pages of links
        # pointed at, page previews): a reader of the index, closed by the last of them to
        # finish once the vault is closed (see vault/shared_reader.py).
        self.render_reader: SharedReader | None = None
        self._mentions_index: tuple[VaultIndex, VaultIndex] | None = None  # (index, reader)
        self.root: Path | None = None
        self.db: Path | None = db
        # Indexing and the views around the entry run on runners (see ui/common/task_runner.py):
        # one refresh at a time; a newer views question cancels the older one.
        self._indexing = TaskRunner(self)
        self._views = TaskRunner(self, priority=QThread.Priority.LowPriority)
        self._indexing.progress.connect(self._on_progress)
        self._indexing.done.connect(self._on_refreshed)
        self._indexing.error.connect(self._on_index_failed)
        self._indexing.finished.connect(self._on_indexing_finished)
        self._views.done.connect(self._apply_views)
        self._views.error.connect(self._on_views_failed)
        self._rerun = False
        self.ready = False  # an entry is on screen (for screenshots and tests)
        self.last_report: RefreshReport | None = None
        self._pending_entry: str | None = entry
        self.demo_dock: QDockWidget | None = None
        self.graph: GraphView | None = None  # made with the first graph to draw
        self._views_pending = False  # a views question is out: the window is not settled
        self._first_look: str | None = None  # the path shown before the index was built
        self._watching = False  # the watches follow this vault's files (see _sync_watches)
        self._explicit_entry: str | None = entry  # asked for by name: opens over the tabs
        self._tabs_restored = False  # the saved tabs were put back (so they may be saved)
        self._stale_panes: set[int] = set()  # id() of background tabs whose entry changed
        self._explorer_dirty = True  # rebuilt when next shown (it is hidden, or not built)
        self._explorer_listing: tuple[list, list[str]] | None = None  # what it was built of
        self._tabs_timer = QTimer(self, singleShot=True, interval=TABS_SAVE_MS)
        self._tabs_timer.timeout.connect(self._save_tabs)
        # another window on the vault may change its bookmarks and recent entries
        self._state_poll = QTimer(self, interval=STATE_POLL_MS)
        self._state_poll.timeout.connect(self._sync_state)
        self._state_poll.start()
        self._check_restored = False  # a saved layout was restored: checked once shown
        # the widgets follow its themeChanged (the entry pane here, the graph and a demo
        # when they are made)
        self.themes = ThemeController(self, str(self.settings.value("theme", "light")))
        self.themes.themeChanged.connect(self._on_theme_changed)
        self.reading = ReadingSettings.load(self.settings)  # app-wide (reading_settings.py)
        self.preferences: PreferencesDialog | None = None

        self._build_widgets()
        self._build_actions()
        self._build_status_bar()
        self._restore_layout()
        self.set_theme(self.theme)

        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(self._on_disk_change)
        self.watcher.fileChanged.connect(self._on_disk_change)
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self.reindex)
        self._poll = QTimer(self, interval=POLL_MS)
        self._poll.timeout.connect(self.reindex)
        QApplication.instance().installEventFilter(self)

        if vault is None:
            last = self.settings.value("lastVault")
            vault = Path(str(last)) if last and Path(str(last)).is_dir() else entries_dir()
        self.open_vault(vault, entry=entry)

    # -- construction ------------------------------------------------------------------
    def _new_pane(self) -> EntryPane:
        """A pane for a new tab, wired to the window (every tab's pane is wired so)."""
        pane = EntryPane()
        pane.background_render_chars = BACKGROUND_RENDER_CHARS  # long: off-thread
        pane.entryLinkActivated.connect(self._follow_link)
        pane.entryLinkActivatedNewTab.connect(self.open_in_new_tab)
        pane.tagActivated.connect(lambda tag: self.search(f"tag:{tag}"))
        pane.demoRequested.connect(self.open_demo)
        pane.unresolvedLinkActivated.connect(
            lambda text: self.statusBar().showMessage(f"“{text}” is not an entry yet", 4000)
        )
        # the page preview of a hovered link (ui/reading/page_preview.py), not a tooltip
        pane.linkHovered.connect(
            lambda target, frag, ctrl: self.previews.hover(target, frag, immediate=ctrl)
        )
        pane.linkLeft.connect(self.previews.leave)
        # the page of a link pointed at is made before the click (as show_entry reads it)
        pane.fetch_entry = self._entry_for_pane
        pane.set_theme(self.theme)
        pane.set_reading(self.reading.style, readable=self.reading.readable,
                         width=self.reading.width)  # fmt: skip
        self.themes.themeChanged.connect(pane.set_theme)
        if self.index is not None:
            pane.set_vault(self.index, self.index.root, reader=self.render_reader)
        return pane

    def _entry_for_pane(self, entry_id: str) -> Entry | None:
        """The entry as :meth:`show_entry` reads it (what a pane's page is made from)."""
        return self.index.entry(entry_id, cited_by_limit=CITED_BY_SHOWN) if self.index else None

    @property
    def entry_pane(self) -> EntryPane:
        """The active tab's pane (what the reader sees)."""
        return self.tabs.pane()

    @property
    def pane(self) -> EntryPane:
        """The active tab's pane (another name for :attr:`entry_pane`)."""
        return self.tabs.pane()

    @property
    def history(self) -> list[str]:
        """The active tab's back/forward history, as entry ids."""
        return self.tabs.history().ids()

    @property
    def history_pos(self) -> int:
        """Where the active tab is in :attr:`history`."""
        return self.tabs.history().pos

    def _build_widgets(self) -> None:
        self.previews = PreviewController(
            self,
            lambda i: self.index.entry(i, cited_by_limit=CITED_BY_SHOWN) if self.index else None,
            lambda: self.index,
            lambda: self.theme,
            lambda: self.index.root if self.index else None,
            lambda: self.render_reader,
        )
        self.previews.linkActivated.connect(self._follow_link)
        self.tabs = EntryTabs(self._new_pane)
        self.tabs.setMinimumWidth(ENTRY_MIN_WIDTH)
        self.tabs.paneChanged.connect(self._on_pane_changed)
        self.tabs.tabBar().tabMoved.connect(lambda _a, _b: self._tabs_timer.start())

        # The graph view and pyqtgraph come after the first entry is on screen (see
        # _ensure_graph); until then its place says what is coming.
        self._graph_slot = QLabel("Drawing the graph…")
        self._graph_slot.setObjectName("graphPlaceholder")
        self._graph_slot.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._graph_slot.setEnabled(False)  # drawn in the muted text colour

        self.backlinks = BacklinksPanel()
        self.backlinks.entryActivated.connect(self.show_entry)
        self.backlinks.entryActivatedNewTab.connect(self.open_in_new_tab)
        self.backlinks.entryHovered.connect(self._hover_entry)
        self.themes.follow(self.backlinks.set_theme)

        self.right = QSplitter(Qt.Orientation.Vertical)
        self.right.setObjectName("rightSplitter")
        self.right.addWidget(self._graph_slot)
        self.right.addWidget(self.backlinks)
        self.right.setStretchFactor(0, 3)
        self.right.setStretchFactor(1, 2)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.tabs)
        self.splitter.setCollapsible(0, False)
        self.splitter.addWidget(self.right)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([820, 540])
        self.right.setSizes([480, 320])
        self.setCentralWidget(self.splitter)

        self.search_panel = SearchPanel()
        self.search_panel.entryActivated.connect(self.show_entry)
        self.search_panel.entryActivatedNewTab.connect(self.open_in_new_tab)
        self.themes.follow(self.search_panel.set_theme)
        self.search_dock = QDockWidget("Search", self)
        self.search_dock.setObjectName("searchDock")
        self.search_dock.setWidget(self.search_panel)

        # The left side, as in Obsidian: the files above, the open entry's outline below;
        # search shares the files' place, as a tab.
        # The panels are made once the first entry is painted (_place_side_panels): made,
        # laid out and styled with the window, they cost the first paint ~0.1–0.2 s.
        self.explorer: FileExplorer | None = None
        self.outline: OutlinePanel | None = None
        self.explorer_dock = QDockWidget("Files", self)
        self.explorer_dock.setObjectName("explorerDock")
        self.explorer_dock.setWidget(QWidget())
        self.explorer_dock.widget().setMinimumWidth(120)
        self.explorer_dock.visibilityChanged.connect(self._on_explorer_visibility)
        self.outline_dock = QDockWidget("Outline", self)
        self.outline_dock.setObjectName("outlineDock")
        self.outline_dock.setWidget(QWidget())
        left = Qt.DockWidgetArea.LeftDockWidgetArea
        self.addDockWidget(left, self.explorer_dock)
        self.splitDockWidget(self.explorer_dock, self.outline_dock, Qt.Orientation.Vertical)
        self.tabifyDockWidget(self.explorer_dock, self.search_dock)
        self.search_dock.hide()
        self.explorer_dock.raise_()
        self._default_docks_pending = True  # their first sizes, once the window is laid out

        # Tags and bookmarks: docks on the right, hidden until asked for (View menu).
        self.tag_panel = TagPanel()
        self.tag_panel.tagActivated.connect(lambda tag: self.search(f"tag:{tag}"))
        self.tags_dock = QDockWidget("Tags", self)
        self.tags_dock.setObjectName("tagsDock")
        self.tags_dock.setWidget(self.tag_panel)
        self.tags_dock.visibilityChanged.connect(lambda shown: shown and self._build_tags())
        self.bookmarks_panel = BookmarksPanel()
        self.bookmarks_panel.entryActivated.connect(self.show_entry)
        self.bookmarks_panel.entryActivatedNewTab.connect(self.open_in_new_tab)
        self.bookmarks_panel.removeRequested.connect(self.remove_bookmark)
        self.bookmarks_dock = QDockWidget("Bookmarks", self)
        self.bookmarks_dock.setObjectName("bookmarksDock")
        self.bookmarks_dock.setWidget(self.bookmarks_panel)
        right = Qt.DockWidgetArea.RightDockWidgetArea
        self.addDockWidget(right, self.tags_dock)
        self.tabifyDockWidget(self.tags_dock, self.bookmarks_dock)
        self.tags_dock.hide()
        self.bookmarks_dock.hide()
        for dock in (self.tags_dock, self.bookmarks_dock):
            dock.visibilityChanged.connect(
                lambda shown, d=dock: shown and QTimer.singleShot(0, lambda: self._room_for(d))
            )
        self._tags_dirty = True
        self.bookmarks: list[str] = []  # the open vault's, in the order they were added
        self.recent: list[str] = []  # the open vault's entries opened last, latest first
        self._recent_new: list[str] = []  # of them, opened since they were last saved

        self.switcher = QuickSwitcher(self)
        self.switcher.entryChosen.connect(self.show_entry)
        self.command_palette = CommandPalette(self)
        self.path_finder: PathFinderDialog | None = None  # made when first asked for
        self._switcher_items: list = []  # the entries, for the path finder's fields
        self.problems_dialog = ProblemsDialog(self)
        self.problems_dialog.pathActivated.connect(self._open_path)

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            if isinstance(shortcut, list):
                # Platform bindings may repeat ours (Back is Alt+Left on Linux): keep one of each.
                unique = {k.toString(): k for k in shortcut if not k.isEmpty()}
                action.setShortcuts(list(unique.values()))
            else:
                action.setShortcut(shortcut)
        action.setStatusTip(tip or text.replace("&", "").rstrip("…"))
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        K = QKeySequence
        self.act_open = self._action("&Open Folder…", self.choose_vault, K("Ctrl+Shift+O"),
                                     "Open a folder of Markdown files as a vault")  # fmt: skip
        self.act_open_bundled = self._action(
            "Open the &Bundled Anthology", lambda: self.open_vault(entries_dir()), None,
            "The anthology of transformer training that ships with Anthology")  # fmt: skip
        self.act_reload = self._action("&Reload", self.reindex, K.StandardKey.Refresh,
                                       "Re-read what changed on disk")  # fmt: skip
        self.act_quit = self._action("&Quit", self.close, K.StandardKey.Quit)
        self.act_print = self._action("&Print…", self.print_entry, K("Ctrl+Alt+P"),
                                      "Print the entry as shown")  # fmt: skip
        self.act_export_pdf = self._action("Export as P&DF…", lambda: self.export_pdf(),
                                           tip="Save the entry as shown as a PDF")  # fmt: skip
        self.act_export_html = self._action(
            "Export as &HTML…", lambda: self.export_html(),
            tip="Save the entry as one self-contained HTML file")  # fmt: skip
        back = [K("Alt+Left"), *K.keyBindings(K.StandardKey.Back)]
        forward = [K("Alt+Right"), *K.keyBindings(K.StandardKey.Forward)]
        self.act_back = self._action("&Back", self.go_back, back)
        self.act_forward = self._action("&Forward", self.go_forward, forward)
        self.act_home = self._action("&Home", self.go_home, K("Alt+Home"))
        self.act_switcher = self._action("&Quick Switcher…", self.open_switcher, K("Ctrl+O"),
                                         "Jump to an entry by id, title or alias")  # fmt: skip
        self.act_search = self._action("&Search…", self.focus_search, K("Ctrl+Shift+F"),
                                       "Full-text search")  # fmt: skip
        self.act_problems = self._action("&Problems…", self.show_problems)
        self.act_palette = self._action("&Command Palette…", self.open_command_palette,
                                        K("Ctrl+P"), "Run any command by name")  # fmt: skip
        self.act_find_path = self._action(
            "Find &Path Between Entries…", lambda: self.open_find_path(), K("Ctrl+Shift+P"),
            "How are two entries related? The shortest paths through the links")  # fmt: skip
        self.act_selection_neighbourhood = self._action(
            "&Neighbourhood of Graph Selection", self.show_selection_neighbourhood, None,
            "The local graph of every Shift+clicked node at once")  # fmt: skip
        self.demo_actions = [  # one a registered demo (anthology.demo.DEMOS)
            self._action(f"&{demo.title}", lambda _c=False, n=name: self.open_demo(n))
            for name, demo in DEMOS.items()
        ]
        self.act_about = self._action("&About Anthology", self.about)
        self.act_new_tab = self._action("&New Tab", self.new_tab, K("Ctrl+T"),
                                        "Open the current entry in a new tab")  # fmt: skip
        self.act_close_tab = self._action("&Close Tab", self.close_tab, K("Ctrl+W"))
        self.act_next_tab = self._action("Ne&xt Tab", lambda: self.tabs.cycle(1),
                                         [K("Ctrl+Tab"), K("Ctrl+PgDown")])  # fmt: skip
        self.act_previous_tab = self._action(
            "Pre&vious Tab", lambda: self.tabs.cycle(-1),
            [K("Ctrl+Shift+Tab"), K("Ctrl+Shift+Backtab"), K("Ctrl+PgUp")])  # fmt: skip
        self.act_explorer = self.explorer_dock.toggleViewAction()
        self.act_explorer.setText("&Files")
        self.act_explorer.setShortcut(K("Ctrl+Shift+E"))
        self.act_explorer.setStatusTip("Show or hide the file explorer")
        self.addAction(self.act_explorer)
        self.act_outline = self.outline_dock.toggleViewAction()
        self.act_outline.setText("&Outline")
        self.act_outline.setStatusTip("Show or hide the outline of the entry")
        self.act_bigger = self._action("&Bigger Text", lambda: self.zoom(1),
                                       [K("Ctrl+="), K("Ctrl++"), K("Ctrl+Shift+=")])  # fmt: skip
        self.act_smaller = self._action("&Smaller Text", lambda: self.zoom(-1), K("Ctrl+-"))
        self.act_actual = self._action("&Actual Size", lambda: self.zoom(0), K("Ctrl+0"))
        self.act_readable = self._action("Readable &Line Width",
                                         lambda on: self.set_reading(replace(
                                             self.reading, readable=bool(on))))  # fmt: skip
        self.act_readable.setCheckable(True)
        self.act_readable.setChecked(self.reading.readable)
        self.act_serif = self._action("Se&rif Body Font", lambda on: self.set_reading(
            replace(self.reading, serif=bool(on))))  # fmt: skip
        self.act_serif.setCheckable(True)
        self.act_serif.setChecked(self.reading.serif)
        self.act_preferences = self._action("&Preferences…", self.open_preferences, K("Ctrl+,"),
                                            "Font size, body font and line width")  # fmt: skip
        self.act_bookmark = self._action("&Bookmark This Entry", self.toggle_bookmark,
                                         K("Ctrl+D"), "Bookmark the entry, or remove its "
                                         "bookmark")  # fmt: skip
        self.act_bookmark.setCheckable(True)
        self.act_tags = self.tags_dock.toggleViewAction()
        self.act_tags.setText("&Tags")
        self.act_tags.setStatusTip("Show or hide the vault's tags")
        self.act_bookmarks = self.bookmarks_dock.toggleViewAction()
        self.act_bookmarks.setText("&Bookmarks")
        self.act_bookmarks.setStatusTip("Show or hide the bookmarks")
        side = ((self.act_tags, self.tags_dock), (self.act_bookmarks, self.bookmarks_dock))
        for act, dock in side:
            # shown from the menu, a dock tabbed with the other comes to the front
            act.triggered.connect(lambda on, d=dock: on and QTimer.singleShot(0, d.raise_))
        self.act_back.setText("← Back")
        self.act_forward.setText("Forward →")

        themes = QActionGroup(self)
        self.act_light = QAction("&Light", self, checkable=True)
        self.act_dark = QAction("&Dark", self, checkable=True)
        for action, name in ((self.act_light, "light"), (self.act_dark, "dark")):
            themes.addAction(action)
            action.triggered.connect(lambda _c=False, n=name: self.set_theme(n))
        self.act_toggle_theme = self._action("Toggle &Theme", lambda: self.set_theme(
            "dark" if self.theme == "light" else "light"), K("Ctrl+Shift+L"))  # fmt: skip

        bar = self.menuBar()
        m = bar.addMenu("&File")
        m.addAction(self.act_open)
        self.recent_menu = m.addMenu("Open &Recent")
        m.addAction(self.act_open_bundled)
        m.addSeparator()
        m.addAction(self.act_new_tab)
        m.addAction(self.act_close_tab)
        m.addSeparator()
        m.addAction(self.act_reload)
        m.addSeparator()
        m.addAction(self.act_print)
        m.addAction(self.act_export_pdf)
        m.addAction(self.act_export_html)
        m.addSeparator()
        m.addAction(self.act_quit)
        m = bar.addMenu("&Go")
        for a in (self.act_back, self.act_forward, self.act_home, None, self.act_switcher,
                  self.act_search, self.act_palette, None, self.act_find_path,
                  self.act_selection_neighbourhood, None, self.act_next_tab,
                  self.act_previous_tab):  # fmt: skip
            m.addSeparator() if a is None else m.addAction(a)
        m = bar.addMenu("&View")
        tm = m.addMenu("&Theme")
        tm.addAction(self.act_light)
        tm.addAction(self.act_dark)
        m.addAction(self.act_toggle_theme)
        m.addSeparator()
        for a in (self.act_bigger, self.act_smaller, self.act_actual, self.act_serif,
                  self.act_readable, self.act_preferences):  # fmt: skip
            m.addAction(a)
        m.addSeparator()
        m.addAction(self.act_explorer)
        m.addAction(self.act_outline)
        m.addAction(self.act_tags)
        m.addAction(self.act_bookmarks)
        m.addAction(self.search_dock.toggleViewAction())
        m.addAction(self.act_problems)
        for action in self.demo_actions:
            m.addAction(action)
        self.bookmarks_menu = bar.addMenu("&Bookmarks")
        self.bookmarks_menu.aboutToShow.connect(self._fill_bookmarks_menu)
        self._fill_bookmarks_menu()
        m = bar.addMenu("&Help")
        m.addAction(self.act_about)

        tb = self.addToolBar("Navigation")
        tb.setObjectName("navigationToolbar")
        tb.setMovable(False)
        for a in (self.act_back, self.act_forward, self.act_home, None, self.act_switcher,
                  self.act_search, None, self.act_open, self.act_reload, None,
                  self.act_toggle_theme):  # fmt: skip
            tb.addSeparator() if a is None else tb.addAction(a)
        self.act_switcher.setIconText("Go to…")
        self.act_search.setIconText("Search")
        self.act_open.setIconText("Open…")
        self.act_toggle_theme.setIconText("Theme")
        self._update_nav_actions()

    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.count_label = QLabel("")
        self.count_label.setObjectName("entryCount")
        self.progress = QProgressBar()
        self.progress.setObjectName("indexProgress")
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.problems_button = QPushButton("")
        self.problems_button.setObjectName("problemsButton")
        self.problems_button.setFlat(True)
        self.problems_button.clicked.connect(self.show_problems)
        sb.addPermanentWidget(self.progress)
        sb.addPermanentWidget(self.problems_button)
        sb.addPermanentWidget(self.count_label)

    def _restore_layout(self) -> None:
        s = self.settings
        geometry = s.value("geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 900)
        self._default_state = self.saveState()  # put back if a saved one crushes the entry
        state = s.value("windowState")
        if isinstance(state, QByteArray) and not state.isEmpty():
            self.restoreState(state)
            self._check_restored = True
            self._default_docks_pending = False  # the user's own sizes
        for splitter in (self.splitter, self.right):
            sizes = s.value(f"splitters/{splitter.objectName()}")
            if isinstance(sizes, QByteArray) and not sizes.isEmpty():
                splitter.restoreState(sizes)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self._guard_entry_width)

    def _guard_entry_width(self) -> None:
        """No dock may crush the entry: a restored layout that leaves the entry tabs
        narrower than ENTRY_MIN_WIDTH is refused (the default one is used), and a dock
        grown past its share is given back to the entry."""
        if not self.isVisible():
            return
        if self._check_restored:
            self._check_restored = False
            if self.tabs.width() < ENTRY_MIN_WIDTH:
                self.restoreState(self._default_state)
                self._default_docks_pending = True
                self.statusBar().showMessage(
                    "The saved window layout left the entry too narrow: the default is used",
                    8000,
                )
        if self._default_docks_pending:
            self._default_docks_pending = False
            self._size_default_docks()
        self._give_entry_room()

    def _size_default_docks(self) -> None:
        """The left docks' first sizes. Set before the window is laid out, resizeDocks is
        lost and the explorer opened at its 120 px minimum, every title cut to "LIT-11…"."""
        self.resizeDocks([self.explorer_dock], [LEFT_DOCK_WIDTH], Qt.Orientation.Horizontal)
        if self.outline_dock.isVisible() and self.explorer_dock.isVisible():
            h = max(self.explorer_dock.height() + self.outline_dock.height(), 1)
            self.resizeDocks([self.explorer_dock, self.outline_dock], [h * 2 // 3, h // 3],
                             Qt.Orientation.Vertical)  # fmt: skip

    def _room_for(self, dock: QDockWidget) -> None:
        """A side dock shown narrower than its readable width (its first showing: Qt gives
        a hidden dock its minimum, and the Tags pane opened 120 px wide, every tag cut to
        "#attentio…") is widened to it, within what the entry can spare."""
        if dock.isFloating() or not dock.isVisible() or dock.width() >= SIDE_DOCK_WIDTH - 10:
            return
        self.resizeDocks([dock], [SIDE_DOCK_WIDTH], Qt.Orientation.Horizontal)
        self._give_entry_room()

    def _give_entry_room(self) -> None:
        """Shrink the widest docks beside the entry until it has ENTRY_MIN_WIDTH."""
        deficit = ENTRY_MIN_WIDTH - self.tabs.width()
        if deficit <= 0:
            return
        docks = [d for d in self.findChildren(QDockWidget)
                 if d.isVisible() and not d.isFloating()
                 and self.dockWidgetArea(d) in (Qt.DockWidgetArea.LeftDockWidgetArea,
                                                Qt.DockWidgetArea.RightDockWidgetArea)]  # fmt: skip
        for dock in sorted(docks, key=lambda d: -d.width()):
            room = dock.width() - max(dock.minimumSizeHint().width(), 160)
            take = min(room, deficit)
            if take > 0:
                self.resizeDocks([dock], [dock.width() - take], Qt.Orientation.Horizontal)
                deficit -= take
            if deficit <= 0:
                break

    def _save_layout(self) -> None:
        s = self.settings
        s.setValue("geometry", self.saveGeometry())
        s.setValue("windowState", self.saveState())
        for splitter in (self.splitter, self.right):
            s.setValue(f"splitters/{splitter.objectName()}", splitter.saveState())
        s.setValue("theme", self.theme)
        s.sync()

    # -- vaults ------------------------------------------------------------------------
    def choose_vault(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a vault folder",
                                                  str(self.root or Path.home()))  # fmt: skip
        if folder:
            self.open_vault(Path(folder))

    def open_vault(self, vault: Path, *, entry: str | None = None) -> None:
        """Open a vault: show what the index already knows at once, refresh in the background."""
        try:
            root = vault_root(vault)
        except VaultError as exc:
            QMessageBox.warning(self, "Cannot open vault", str(exc))
            return
        self._close_vault()
        self.root = root
        self.state = UserState.for_vault(root, folder=self.state_dir, report=self.stateProblem.emit)
        self._adopt_old_graph_settings()
        self.bookmarks = self._id_list(BOOKMARKS)
        self.recent = self._id_list(RECENT)
        self._recent_new = []
        self.switcher.set_recent(self.recent)
        self._tags_dirty = True
        if self.explorer is not None:
            self.explorer.restore_view_state(
                self.state.get(EXPLORER_VIEW, clean=clean_explorer_view)
            )
        self.setWindowTitle(f"{root.name} — Anthology")
        self._remember_vault(root)
        self._explicit_entry = entry
        self._pending_entry = entry or self._last_entry()
        try:  # the index's place is checked before anything is written there
            db = check_place(self.db or default_db_path(root), root)
            self.db_path = db
            if db.exists():
                index = VaultIndex.open(root, db, refresh=False)
                if index.notice:  # it was another vault's index: it is being rebuilt
                    self.statusBar().showMessage(f"Anthology: {index.notice}", 15000)
                if index.created:  # made anew (another vault's, an old schema): as unseen
                    index.close()
                else:
                    self._attach_index(index)
        except VaultError as exc:  # not a place Anthology may write: say so, keep going
            self.entry_pane.setHtml(f"<h2>Cannot open the index</h2><p>{html.escape(str(exc))}</p>")
            self.statusBar().showMessage(f"Cannot open the index: {exc}", 15000)
            return
        if self.index is None and not self._show_first_look(root):
            self.entry_pane.setHtml(
                f"<h2>Indexing {html.escape(root.name)}…</h2><p>The entries appear as soon as "
                "the index is built.</p>"
            )
        if not self.db and (problem := paths.cache_problem()):  # the index is temporary
            self.statusBar().showMessage(f"Anthology: {problem}", 30000)
        self.reindex()

    def _show_first_look(self, root: Path) -> bool:
        """A never-seen vault: show its first entry read from disk while the index is built
        (a cold build of 100,000 entries takes most of a minute). Links are drawn as links;
        one clicked meanwhile is opened when the index is ready."""
        named = self._pending_entry or ""  # a note named by its path (`anthology NOTE.md`)
        try:
            if named.lower().endswith(".md") and (root / named).is_file():
                path: str | None = named
            else:
                path = first_entry_path(root)
            entry = read_first_entry(root, path) if path else None
        except Exception:  # a hostile first file: the index will report it; wait for it
            return False
        if entry is None:
            return False
        self._first_look = path
        self.entry_pane.set_vault(DiskResolver(root), root)
        self.entry_pane.show_entry(entry)
        if self.graph is None:
            self._graph_slot.setText("The graph is drawn once the vault is indexed…")
        self.backlinks.title.setText("Backlinks · once the vault is indexed")
        self.statusBar().showMessage(
            f"Indexing {root.name}: links, backlinks and the graph follow when it is done"
        )
        self.ready = True
        return True

    def _close_vault(self, *, quitting: bool = False) -> None:
        # Cancelled, then waited for only until they reach their next check (a batch);
        # quitting waits at most QUIT_WAIT (the process ends, and the tasks with it).
        wait = QUIT_WAIT if quitting else None
        stopped = self._indexing.stop(wait)
        self._rerun = False
        stopped = self._views.stop(wait) and stopped
        self._views_pending = False
        self._save_positions()
        self._save_tabs()
        self._tabs_timer.stop()
        if self.graph is not None:
            self.graph.detach_store()
        if self.state is not None:
            self.state.close()
            self.state = None
        self.backlinks.clear()  # its "Show more" rows ask the index being closed
        self._close_mentions_index()
        # The renders still running go on with the reader they borrowed (the last one
        # closes it); their pages are not shown: the panes and previews drop them.
        self.previews.hide()
        if self.render_reader is not None:
            self.render_reader.close()
            self.render_reader = None
        if self.index is not None:
            if stopped:  # a task still reading it when quitting: the process closes it
                self.index.close()
            self.index = None
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        if self.watcher.directories():
            self.watcher.removePaths(self.watcher.directories())
        self._watching = False
        self.tabs.reset()  # the tabs were saved (above); the next vault's come back
        self._tabs_restored = False
        self._stale_panes.clear()
        if self.explorer is not None:
            self.explorer.clear()
        self._explorer_listing = None
        self._explorer_dirty = True
        if self.outline is not None:
            self.outline.follow(self.entry_pane)
        self.ready = False

    def _attach_index(self, index: VaultIndex) -> None:
        if self._first_look is not None:
            self.statusBar().clearMessage()  # "Indexing …" (see _show_first_look)
        self.index = index
        self.render_reader = SharedReader(index)
        for pane in self.tabs.panes():
            pane.set_vault(index, index.root, reader=self.render_reader)
        self.search_panel.set_search_function(index.search)
        self._refresh_views(first=True)

    def _remember_vault(self, root: Path) -> None:
        self.settings.setValue("lastVault", str(root))
        recent = [str(root)] + [p for p in self._recent() if p != str(root)]
        self.settings.setValue("recentVaults", recent[:MAX_RECENT])
        self._update_recent_menu()

    def _recent(self) -> list[str]:
        value = self.settings.value("recentVaults") or []
        return [str(v) for v in (value if isinstance(value, list) else [value])]

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        for path in self._recent():
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _c=False, p=path: self.open_vault(Path(p)))
        self.recent_menu.setEnabled(bool(self._recent()))

    def _vault_key(self) -> str:
        return str(self.root) if self.root else ""

    def _last_entry(self) -> str | None:
        value = self.settings.value(f"lastEntry/{self._vault_key()}")
        return str(value) if value else None

    # -- indexing and live reload ------------------------------------------------------
    def reindex(self) -> None:
        """Refresh the index in the background (only changed files are read)."""
        if self.root is None:
            return
        if self._indexing.busy:
            self._rerun = True
            return
        self._rerun = False
        self._indexing.start(refresh_index, self.root, self.db_path)

    @property
    def indexing(self) -> bool:
        """A refresh of the index is running."""
        return self._indexing.busy

    def _on_progress(self, done: int, total: int, stage: str) -> None:
        if total >= 200:  # short runs would only flicker
            self.progress.show()
            self.progress.setMaximum(max(total, 1))
            self.progress.setValue(done)
            self.progress.setFormat(f"{stage} %v/%m")

    def _on_refreshed(self, report: RefreshReport) -> None:
        self.progress.hide()
        self.last_report = report
        # Polling a big vault costs a refresh (a stat of every file) each time: at 100,000
        # entries ~2 s of CPU, every 2 s, starved the window. Poll at most POLL_DUTY of the time.
        self._poll.setInterval(max(POLL_MS, int(report.seconds * 1000 / POLL_DUTY)))
        if self.index is None:
            self._attach_index(VaultIndex.open(self.root, self.db_path, refresh=False))
        elif report.added or report.changed or report.removed:
            clear_render_cache()  # an embedded or linked entry may have changed
            clear_preview_cache()
            self._refresh_views(report=report)
        if not self._watching or report.added or report.removed:  # what to watch changed
            self._sync_watches()

    def _on_index_failed(self, exc: BaseException) -> None:
        self.progress.hide()
        message = describe_error(exc, expected=(VaultError,))
        self.statusBar().showMessage(f"Indexing failed: {message}", 10000)

    def _on_indexing_finished(self) -> None:
        if self._rerun:
            QTimer.singleShot(0, self.reindex)

    def _on_disk_change(self, _path: str) -> None:
        self._debounce.start()

    def _sync_watches(self) -> None:
        """Watch every folder, and every entry file while there are few enough of them."""
        if self.root is None or self.index is None:
            return
        self._watching = True
        folders = {str(self.root)}
        files = []
        for ref in self.index.entries():
            path = self.root / ref.path
            folders.add(str(path.parent))
            files.append(str(path))
        wanted = folders | (set(files) if len(files) <= MAX_WATCHED_FILES else set())
        current = set(self.watcher.files()) | set(self.watcher.directories())
        stale = current - wanted
        if stale:
            self.watcher.removePaths(list(stale))
        new = wanted - current
        if new:
            self.watcher.addPaths(sorted(new))
        if len(files) > MAX_WATCHED_FILES:
            self._poll.start()
        else:
            self._poll.stop()

    def _refresh_views(self, *, first: bool = False, report: RefreshReport | None = None) -> None:
        """Show the entry (the first, or the current one again if it changed), then ask for
        the graph, the switcher's list and the counts off the GUI thread (_load_views)."""
        index = self.index
        if index is None:
            return
        with_positions = first or self.graph is None
        try:
            if first and not self._tabs_restored:
                self._tabs_restored = True
                if self._restore_tabs() and not self._explicit_entry:
                    self._pending_entry = self._first_look = None
                    return
            current = self.current_id()
            if first or current is None:
                target = self._pending_entry
                self._pending_entry = None
                if self._first_look and (not target or index.entry_ref(target) is None):
                    # a link followed in the first look, named as it was written there;
                    # else the entry the first look showed, now through the index
                    found = index.resolve(target or self._first_look, self._first_look)
                    target = found.id if found else None
                self._first_look = None
                if target and index.entry_ref(target) is None:
                    named = index.entry_ref_at_path(target)  # `anthology NOTE.md`
                    target = named.id if named else None
                if not target:
                    target = index.home_id()
                if target:
                    self.show_entry(target)
                else:
                    self.entry_pane.setHtml("<h2>This vault has no entries yet.</h2>")
                    self.ready = True
                return
            if (
                report is not None
                and current in report.removed_ids
                and index.entry_ref(current) is None
            ):
                self.statusBar().showMessage(f"{current} was deleted on disk", 6000)
                self.go_home()
                return
            if report is not None:  # other tabs show what changed when next shown
                gone = set(report.changed_ids) | set(report.removed_ids)
                for p in self.tabs.panes():
                    if p is not self.entry_pane and p.current_entry_id in gone:
                        self._stale_panes.add(id(p))
            if report is not None and current in report.changed_ids:
                self.show_entry(current, push=False, keep_scroll=True)
            else:
                self._show_backlinks(current)
            if self.search_panel.box.text():
                self.search_panel.run_search()
        finally:  # asked once the entry is on screen: the loader shares the interpreter
            self._load_views(with_positions=with_positions)

    def _load_views(self, *, with_positions: bool) -> None:
        """Ask for what surrounds the entry off the GUI thread (:func:`load_views`); an
        older question still running is interrupted and its answer dropped. The entry is
        painted first: the question's Python work shares the interpreter lock."""
        assert self.index is not None
        self._views_pending = True
        self._views.start(load_views, self.index, self.state if with_positions else None)

    def _apply_views(self, data: ViewsData) -> None:
        self._views_pending = False
        if self.index is None:
            return  # the vault was closed
        stats = data.stats
        self.count_label.setText(f"{stats['entries']} entries")
        problems = stats["errors"] + stats["warnings"]
        self.problems_button.setText(f"⚠ {problems} problem{'s' if problems != 1 else ''}"
                                     if problems else "No problems")  # fmt: skip
        self.switcher.set_entries(data.switcher_items)
        self._switcher_items = data.switcher_items
        if self.path_finder is not None:
            self.path_finder.set_entries(data.switcher_items)
        self._tags_dirty = True
        if self.tags_dock.isVisible():
            self._build_tags()
        self._refresh_bookmarks()
        self._place_side_panels()
        self._update_explorer([ref for ref, _aliases in data.switcher_items])
        graph = self._ensure_graph()
        pinned = [k for k, p in data.positions.items() if p.pinned]
        graph.set_graph(data.graph, data.positions or None, vault_key=self._vault_key(),
                        pinned=pinned, store=self.state)  # fmt: skip
        if (current := self.current_id()) is not None:
            graph.set_current(current)
        QTimer.singleShot(0, self._freeze_heap)

    @staticmethod
    def _freeze_heap() -> None:
        """What the vault loaded (its graph, the switcher's list, the index's caches) lives
        as long as the window: out of Python's cyclic collector's sight. Its full
        collections walked all of it, 106–126 ms each, three times in forty clicks at
        10,000 entries, in the middle of a click; frozen, they take 10–19 ms. The young
        garbage is collected first (a few ms); after a refresh, which replaced what was
        frozen, everything is (once, ~0.1 s at 10,000 entries), so that cycles among what
        it replaced do not stay frozen for the session. ``closeEvent`` unfreezes."""
        if gc.get_freeze_count():
            gc.unfreeze()
            gc.collect()
        else:
            gc.collect(1)
        gc.freeze()

    def _on_views_failed(self, exc: BaseException) -> None:
        self._views_pending = False  # nothing more is coming for this state
        message = describe_error(exc)
        self.statusBar().showMessage(f"Could not load the graph: {message}", 10000)

    def _ensure_graph(self) -> GraphView:
        """The graph view, made the first time there is a graph to draw."""
        if self.graph is None:
            from anthology.ui.graph.graph_view import GraphView

            graph = GraphView()
            graph.entryActivated.connect(self.show_entry)
            graph.entryActivatedNewTab.connect(self.open_in_new_tab)
            graph.layoutSettled.connect(self._save_positions)
            graph.pathRequested.connect(lambda entry_id: self.open_find_path(entry_id))
            # a node hovered previews its entry (graph_view's own hover signal, untouched)
            nodes = getattr(graph, "nodes", None)
            if nodes is not None and hasattr(nodes, "nodeHovered"):
                nodes.nodeHovered.connect(
                    lambda j, g=graph: self._hover_entry(g.hovered_id() or "")
                )
            self.themes.follow(graph.set_theme)
            self.right.replaceWidget(0, graph)
            self._graph_slot.deleteLater()
            self.graph = graph
        return self.graph

    @property
    def settled(self) -> bool:
        """The entry is shown (its page, not "Rendering…") and the graph, switcher and
        counts answer the index as it is now (for screenshots, benchmarks and tests)."""
        return (
            self.ready
            and self.index is not None
            and not self._views_pending
            and not self.entry_pane.rendering
        )

    # -- reading -----------------------------------------------------------------------
    def current_id(self) -> str | None:
        return self.entry_pane.current_entry_id

    def show_entry(self, entry_id: str, *, push: bool = True, keep_scroll: bool = False,
                   heading: str = "", scroll: int | None = None) -> bool:  # fmt: skip
        """Open an entry in the pane, with its backlinks, and follow it in the graph;
        ``scroll``: the reading position to open it at (back and forward)."""
        if self.index is None:
            self._pending_entry = entry_id
            self.statusBar().showMessage(f"“{plain_text(entry_id, 120)}” opens when the index "
                                         "is ready", 0)  # fmt: skip
            return False
        if self.graph is not None:
            self.graph.hold_layout()  # the GIL is the panes' until they are painted
        entry = self.index.entry(entry_id, cited_by_limit=CITED_BY_SHOWN)
        if entry is None:
            self.statusBar().showMessage(f"No entry “{entry_id}”", 5000)
            return False
        pane = self.entry_pane
        history = self.tabs.history(pane)
        same = entry.id == self.current_id()
        # the reading position in the entry being left, for back/forward to return to
        leaving = pane.verticalScrollBar().value() if pane.current_entry_id else None
        pane.show_entry(entry, keep_scroll=keep_scroll or (same and not push))
        if heading:
            pane.scroll_to_heading(heading)
        if scroll is not None:  # before the paint: the page is seen once, where it was left
            pane.restore_scroll(scroll)
        if pane.isVisible() and not pane.rendering:
            # The entry is painted now, before the backlinks, graph and outline follow it
            # (a hub's take ~0.1 s more): the reader sees what they clicked at once.
            pane.viewport().repaint()
        if push and not same:
            history.push(entry.id, leaving_scroll=leaving)
        elif history.current is None:  # a tab's first entry, shown without a push
            history.push(entry.id)
        self._panels_follow(pane, EntryRef(entry.id, entry.title, entry.path))
        self.ready = True
        return True

    def _panels_follow(self, pane: EntryPane, ref: EntryRef) -> None:
        """The backlinks, graph, outline, explorer, tab title and window title follow the
        entry ``pane`` (the active tab's) shows."""
        self.previews.hide()  # a preview over the page left is stale
        self.recent = [ref.id, *(i for i in self.recent if i != ref.id)][:MAX_RECENT_ENTRIES]
        self._recent_new = [ref.id, *(i for i in self._recent_new if i != ref.id)]
        self.switcher.set_recent(self.recent)
        self.act_bookmark.setChecked(ref.id in self.bookmarks)
        self._show_backlinks(ref.id)
        if self.graph is not None:
            self.graph.set_current(ref.id)
        if self.outline is not None and self.explorer is not None:
            self.outline.follow(pane)
            self.explorer.follow(ref.id)
        self.tabs.set_title(pane, ref.short_label, f"{ref.label}\n{ref.path}")
        self._update_nav_actions()
        self._tabs_timer.start()
        self.settings.setValue(f"lastEntry/{self._vault_key()}", ref.id)
        # Window titles are plain text, but an RTL override would reverse the rest of it and
        # a 100,000-character title helps no one: cut, controls removed.
        self.setWindowTitle(
            f"{plain_text(ref.id, 120)} — {plain_text(ref.title, 160)} — "
            f"{plain_text(self.root.name, 80) if self.root else ''} — Anthology"
        )

    # -- tabs --------------------------------------------------------------------------
    def open_in_new_tab(self, entry_id: str, heading: str = "") -> bool:
        """Open ``entry_id`` (at ``heading``) in a new tab after the active one, and show
        that tab; the tab left keeps its entry, place and history."""
        if self.index is None:
            return self.show_entry(entry_id, heading=heading)
        if self.index.entry_ref(entry_id) is None:
            self.statusBar().showMessage(f"No entry “{plain_text(entry_id, 120)}”", 5000)
            return False
        self.tabs.add_tab()
        return self.show_entry(entry_id, heading=heading)

    def new_tab(self) -> None:
        """Ctrl+T: a new tab on the current entry (the home entry when there is none)."""
        target = self.current_id() or (self.index.home_id() if self.index else None)
        if target:
            self.open_in_new_tab(target)
        else:
            self.tabs.add_tab()

    def close_tab(self) -> None:
        """Ctrl+W: close the active tab (the last one stays: there is always an entry)."""
        if self.tabs.count() > 1:
            self.tabs.close_tab(self.tabs.currentIndex())
            self._tabs_timer.start()
        else:
            self.statusBar().showMessage("The last tab stays open", 3000)

    def _on_pane_changed(self, pane: EntryPane) -> None:
        """Another tab is active: show its entry if it was not shown yet (a restored tab)
        or changed on disk meanwhile, and make the panels follow it."""
        if self.index is None:
            return
        history = self.tabs.history(pane)
        visit = history.current
        stale = id(pane) in self._stale_panes
        self._stale_panes.discard(id(pane))
        if visit is not None and (pane.current_entry_id is None or stale):
            if self.index.entry_ref(visit.entry_id) is None:  # deleted meanwhile
                self.go_home()
                return
            scroll = pane.verticalScrollBar().value() if stale else visit.scroll
            self.show_entry(visit.entry_id, push=False, keep_scroll=stale, scroll=scroll)
            return
        ref = self.index.entry_ref(pane.current_entry_id) if pane.current_entry_id else None
        if ref is not None:
            self._panels_follow(pane, ref)
        else:
            if self.outline is not None:
                self.outline.follow(pane)
            self._update_nav_actions()

    def _restore_tabs(self) -> bool:
        """Put back the tabs saved in the vault's user state; False if there were none.
        The active one is shown; the others when first clicked."""
        assert self.index is not None and self.state is not None
        index = self.index
        data = self.state.get(READER_TABS, clean=clean_tabs)
        if data is None:
            return False
        histories = [TabHistory.from_json(t, lambda i: index.entry_ref(i) is not None)
                     for t in data["tabs"]]  # fmt: skip
        current = data.get("current")
        current = current if isinstance(current, int) else 0
        kept = [(i, h) for i, h in enumerate(histories) if h.current is not None]
        if not kept:
            return False
        active = min(range(len(kept)), key=lambda k: abs(kept[k][0] - current))
        self.tabs.blockSignals(True)  # the active one is shown once, below
        try:
            first = self.tabs.reset()
            self.tabs.set_history(first, kept[0][1])
            for n, (_i, h) in enumerate(kept[1:], start=1):
                self.tabs.add_tab(at=n, activate=False, history=h)
            for pane in self.tabs.panes():
                visit = self.tabs.history(pane).current
                ref = index.entry_ref(visit.entry_id) if visit else None
                if ref is not None:
                    self.tabs.set_title(pane, ref.short_label, f"{ref.label}\n{ref.path}")
            self.tabs.setCurrentIndex(active)
        finally:
            self.tabs.blockSignals(False)
        self._on_pane_changed(self.tabs.pane())
        return self.current_id() is not None

    def _save_tabs(self) -> None:
        """Keep the open tabs (each one's history and reading positions) in the user state."""
        if self.state is None or self.index is None or not self._tabs_restored:
            return  # before the saved ones were put back, saving would lose them
        tabs = []
        current = 0
        for pane in self.tabs.panes():
            history = self.tabs.history(pane)
            visit = history.current
            if visit is None:
                continue
            if pane.current_entry_id == visit.entry_id:
                history.leave(pane.verticalScrollBar().value())
            if pane is self.entry_pane:
                current = len(tabs)
            tabs.append(history.to_json())
        self.state.put(READER_TABS, {"tabs": tabs, "current": current})
        recent = self.state.update(RECENT, self._merged_recent, [], clean_id_list)
        if recent is not None:
            self._recent_new = []
            self.recent = recent
            self.switcher.set_recent(self.recent)

    # -- the file explorer -------------------------------------------------------------
    def _update_explorer(self, refs: list[EntryRef]) -> None:
        """Give the explorer the vault's entries and attachments (built now if it is in
        view, else when it is next shown)."""
        assert self.index is not None
        listing = (refs, self.index.attachment_paths())
        if listing == self._explorer_listing:
            return  # an edit that renamed nothing
        self._explorer_listing = listing
        self._explorer_dirty = True
        if self.explorer_dock.isVisible():
            self._build_explorer()

    def _place_side_panels(self) -> None:
        """Make the explorer and the outline and put them in their docks (once the first
        entry is painted)."""
        if self.explorer is not None or self.outline is not None:
            return
        explorer = FileExplorer()
        explorer.entryActivated.connect(self.show_entry)
        explorer.entryActivatedNewTab.connect(self.open_in_new_tab)
        explorer.attachmentActivated.connect(self._open_attachment)
        explorer.setMinimumWidth(120)
        if self.state is not None:
            explorer.restore_view_state(self.state.get(EXPLORER_VIEW, clean=clean_explorer_view))
        explorer.viewChanged.connect(self._save_explorer_view)
        outline = OutlinePanel()
        outline.headingActivated.connect(lambda a: self.entry_pane.scroll_to_heading(a))
        self.explorer, self.outline = explorer, outline
        self.explorer_dock.setWidget(explorer)
        self.outline_dock.setWidget(outline)
        outline.follow(self.entry_pane)
        if (current := self.current_id()) is not None:
            explorer.follow(current)

    def _build_explorer(self) -> None:
        if self.explorer is None:
            return
        if self._explorer_listing is not None and self._explorer_dirty:
            self._explorer_dirty = False
            self.explorer.set_entries(*self._explorer_listing)
            if (current := self.current_id()) is not None:
                self.explorer.follow(current)

    def _on_explorer_visibility(self, visible: bool) -> None:
        if visible:
            self._build_explorer()

    def _save_explorer_view(self, view: dict) -> None:
        if self.state is not None:
            self.state.put(EXPLORER_VIEW, view)

    def _open_attachment(self, path: str) -> None:
        """An attachment clicked in the explorer opens as one clicked in an entry does."""
        self.entry_pane._open_attachment(path)

    def _show_backlinks(self, entry_id: str) -> None:
        assert self.index is not None
        index = self.index
        # Rows come without their context lines, cut when a row is first shown: a hub's
        # first pages are 700 links, of which twenty are on screen.
        self.backlinks.show_backlinks(
            index.backlinks_view(entry_id, sources_cap=SOURCES_SHOWN, count_cap=COUNT_SHOWN)
        )
        # Unlinked mentions of a title that is a common word took minutes on the GUI
        # thread: they are asked on a worker, through a read-only connection of their own
        # (it does not hold the index's lock), interrupted when another entry is opened.
        if self._mentions_index is None or self._mentions_index[0] is not index:
            self._close_mentions_index()
            self._mentions_index = (index, index.reader())
        reader = self._mentions_index[1]
        self.backlinks.find_unlinked(entry_id, reader.unlinked_mentions, reader.interrupt)

    def _close_mentions_index(self) -> None:
        self.backlinks.wait_unlinked()
        if self._mentions_index is not None:
            self._mentions_index[1].close()
            self._mentions_index = None

    def _follow_link(self, entry_id: str, heading: str) -> None:
        if entry_id == self.current_id():
            if heading:
                self.entry_pane.scroll_to_heading(heading)
            return
        self.show_entry(entry_id, heading=heading)

    # -- tags and bookmarks --------------------------------------------------------------
    def _build_tags(self) -> None:
        """Fill the tag pane from the index (when it is shown, once per refresh)."""
        if self.index is None or not self._tags_dirty:
            return
        self._tags_dirty = False
        try:
            self.tag_panel.set_tags(vault_tags(self.index))
        except Exception as exc:  # a closed or replaced index: said, not raised
            self.statusBar().showMessage(f"Could not list the tags: {exc}", 6000)

    def _id_list(self, key: str) -> list[str]:
        """A list of entry ids kept in the user state (anything else there is ignored)."""
        return self.state.get(key, [], clean=clean_id_list) if self.state is not None else []

    def toggle_bookmark(self) -> None:
        """Ctrl+D: bookmark the entry being read, or take its bookmark off."""
        current = self.current_id()
        if current is None or self.state is None:
            self.act_bookmark.setChecked(False)
            return
        if current in self.bookmarks:
            self._change_bookmarks(remove=current)
            self.statusBar().showMessage("Bookmark removed", 3000)
        else:
            self._change_bookmarks(add=current)
            self.statusBar().showMessage("Bookmarked", 3000)

    def remove_bookmark(self, entry_id: str) -> None:
        if entry_id in self.bookmarks:
            self._change_bookmarks(remove=entry_id)

    def _change_bookmarks(self, *, add: str | None = None, remove: str | None = None) -> None:
        """Add or remove one bookmark: a change applied to the list as it is in the user
        state now (another window on the vault may have changed it), not this window's copy
        written over it."""

        def change(ids: list[str]) -> list[str]:
            ids = [i for i in ids if i != remove]
            return ids if add is None or add in ids else [*ids, add]

        saved = self.state.update(BOOKMARKS, change, [], clean_id_list) if self.state else None
        self.bookmarks = saved if saved is not None else change(self.bookmarks)
        self._show_bookmarks()

    def _show_bookmarks(self) -> None:
        self.act_bookmark.setChecked(self.current_id() in self.bookmarks)
        self._refresh_bookmarks()

    def _sync_state(self) -> None:
        """Take in what another window on this vault saved (bookmarks, recent entries) since
        this one last looked: asked when the window is activated and every STATE_POLL_MS."""
        if self.state is None or not self.state.changed_elsewhere():
            return
        bookmarks = self._id_list(BOOKMARKS)
        if bookmarks != self.bookmarks:
            self.bookmarks = bookmarks
            self._show_bookmarks()
        recent = self._merged_recent(self._id_list(RECENT))
        if recent != self.recent:
            self.recent = recent
            self.switcher.set_recent(self.recent)

    def _merged_recent(self, saved: list[str]) -> list[str]:
        """The entries this window opened since it last saved, latest first, then the saved
        ones (other windows' too)."""
        new = self._recent_new
        return [*new, *(i for i in saved if i not in new)][:MAX_RECENT_ENTRIES]

    def _bookmark_refs(self) -> list[EntryRef]:
        """The bookmarked entries the index has (one deleted on disk is left out, kept)."""
        if self.index is None:
            return []
        return [ref for i in self.bookmarks if (ref := self.index.entry_ref(i)) is not None]

    def _refresh_bookmarks(self) -> None:
        self.bookmarks_panel.set_bookmarks(self._bookmark_refs())

    def _fill_bookmarks_menu(self) -> None:
        m = self.bookmarks_menu
        # Only the listed entries are made anew (QMenu.clear would delete the dock's own
        # toggle action with them).
        for action in getattr(self, "_bookmark_actions", []):
            m.removeAction(action)
            action.deleteLater()
        if not m.actions():
            m.addAction(self.act_bookmark)
            m.addAction(self.act_bookmarks)
        self._bookmark_actions = []
        refs = self._bookmark_refs()
        if refs:
            self._bookmark_actions.append(m.addSeparator())
        for ref, label in zip(refs, display_labels(refs), strict=True):
            action = m.addAction(plain_text(label, 120))
            self._bookmark_actions.append(action)
            action.setStatusTip(plain_text(ref.path, 300))
            action.triggered.connect(lambda _c=False, i=ref.id: self.show_entry(i))

    def _hover_entry(self, entry_id: str) -> None:
        """The pointer is on a graph node or a backlinks row of ``entry_id`` ("": left)."""
        self.entry_pane.point_at(entry_id)  # its page is made while the reader points
        if entry_id:
            ctrl = QApplication.keyboardModifiers() & Qt.KeyboardModifier.ControlModifier
            self.previews.hover(entry_id, immediate=bool(ctrl))
        else:
            self.previews.leave()

    def _open_path(self, path: str) -> None:
        if self.index is None:
            return
        for ref in self.index.entries():
            if ref.path == path:
                self.show_entry(ref.id)
                return
        self.statusBar().showMessage(f"{path} is not an entry (it could not be indexed)", 5000)

    # -- navigation --------------------------------------------------------------------
    def go_back(self) -> None:
        """Back in the active tab's history, to where the reader was in that entry."""
        pane = self.entry_pane
        self._show_visit(
            self.tabs.history(pane).back(leaving_scroll=pane.verticalScrollBar().value())
        )

    def go_forward(self) -> None:
        pane = self.entry_pane
        self._show_visit(
            self.tabs.history(pane).forward(leaving_scroll=pane.verticalScrollBar().value())
        )

    def _show_visit(self, visit: Visit | None) -> None:
        if visit is not None:
            self.show_entry(visit.entry_id, push=False, scroll=visit.scroll)
        self._update_nav_actions()

    def go_home(self) -> None:
        home = self.index.home_id() if self.index else None
        if home:
            self.show_entry(home)

    def _update_nav_actions(self) -> None:
        history = self.tabs.history()
        self.act_back.setEnabled(history.can_go_back)
        self.act_forward.setEnabled(history.can_go_forward)
        self.act_close_tab.setEnabled(self.tabs.count() > 1)

    def open_switcher(self) -> None:
        self.switcher.open_switcher()

    def palette_actions(self) -> list[QAction]:
        """Every command the palette offers: the menus', the window's and the graph's."""
        found: list[QAction] = []

        def walk(actions) -> None:
            for a in actions:
                if a.menu() is not None:
                    walk(a.menu().actions())
                else:
                    found.append(a)

        walk(self.menuBar().actions())
        found += self.actions()
        if self.graph is not None:
            found += self.graph.palette_actions()
        return [a for a in found if a is not self.act_palette]

    def open_command_palette(self) -> None:
        self.command_palette.open_palette(self.palette_actions())

    def open_find_path(self, a: str | None = None, b: str | None = None) -> PathFinderDialog:
        """The path finder, with ``a`` (a node's "Path to…") or the current entry as From."""
        if self.path_finder is None:
            dialog = PathFinderDialog(
                lambda: self.graph.path_finder() if self.graph is not None else None, self
            )
            dialog.pathChosen.connect(self._show_path)
            dialog.entryActivated.connect(self.show_entry)
            dialog.finished.connect(lambda _r: self._show_path(None))
            dialog.set_entries(self._switcher_items)
            self.path_finder = dialog
        self.path_finder.open_between(a if a is not None else self.current_id(), b)
        return self.path_finder

    def _show_path(self, path) -> None:
        if self.graph is not None:
            self.graph.show_path(path)

    def show_selection_neighbourhood(self) -> None:
        if self.graph is None or len(self.graph.selection()) == 0:
            self.statusBar().showMessage("Shift+click nodes of the graph to select them", 5000)
            return
        self.graph.show_selection_neighbourhood()

    def focus_search(self) -> None:
        self.search_dock.show()
        self.search_dock.raise_()
        self.search_panel.box.setFocus()
        self.search_panel.box.selectAll()

    def search(self, query: str) -> None:
        self.search_dock.show()
        self.search_panel.search(query)

    def show_problems(self) -> None:
        if self.index is not None:
            self.problems_dialog.set_problems(self.index.problems())
        self.problems_dialog.show()
        self.problems_dialog.raise_()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        # The mouse's back and forward buttons, anywhere in the window.
        if (
            event.type() == QEvent.Type.MouseButtonPress
            and isinstance(obj, QWidget)
            and (obj.window() is self)
        ):
            button = event.button()
            if button == Qt.MouseButton.BackButton:
                self.go_back()
                return True
            if button == Qt.MouseButton.ForwardButton:
                self.go_forward()
                return True
        return super().eventFilter(obj, event)

    # -- demo, theme, about ------------------------------------------------------------
    def open_demo(self, name: str) -> None:
        """Open an embedded demo in a dock beside the entry."""
        from anthology.ui.demo.demo_widget import create_demo_widget

        fresh = self.demo_dock is None
        if self.demo_dock is None:
            self.demo_dock = QDockWidget("Demo", self)
            self.demo_dock.setObjectName("demoDock")
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.demo_dock)
        old = self.demo_dock.widget()
        if old is not None and old.demo_name == name:
            self.demo_dock.show()
            return
        if old is not None:
            old.shutdown()
            old.deleteLater()
        widget = create_demo_widget(name, self.demo_dock)  # the registry's contract:
        widget.entryLinkActivated.connect(self.show_entry)  # see anthology.demo
        self.themes.follow(widget.set_theme)
        # An explicit minimum: the demo's own (its labels and plots, growing as they change)
        # would widen the dock after a few clicks until the entry was crushed.
        widget.setMinimumWidth(DEMO_MIN_WIDTH)
        self.demo_dock.setWindowTitle(f"Demo — {name}")
        self.demo_dock.setWidget(widget)
        self.demo_dock.show()
        if fresh:
            self.resizeDocks([self.demo_dock], [DEMO_DOCK_WIDTH], Qt.Orientation.Horizontal)
        QTimer.singleShot(0, self._give_entry_room)

    @property
    def theme(self) -> str:
        return self.themes.theme

    # -- print and export ----------------------------------------------------------------
    def _export_name(self, suffix: str) -> str:
        entry_id = self.current_id() or "entry"
        stem = re.sub(r"[^\w .-]+", "_", entry_id.rsplit("/", 1)[-1]).strip() or "entry"
        return str(Path.home() / f"{stem}{suffix}")

    def print_entry(self) -> None:
        """File › Print…: the entry as shown, on a printer the reader picks."""
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        from anthology.ui.window.print_export import print_entry

        if self.entry_pane.rendered is None:
            return
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        dialog = QPrintDialog(printer, self)
        dialog.setWindowTitle("Print entry")
        if dialog.exec() == QPrintDialog.DialogCode.Accepted:
            print_entry(self.entry_pane, printer)

    def export_pdf(self, path: Path | None = None) -> Path | None:
        """Export as PDF… (asks where when ``path`` is None); the file written."""
        from anthology.ui.window.print_export import export_pdf

        if self.entry_pane.rendered is None:
            return None
        if path is None:
            name, _ = QFileDialog.getSaveFileName(self, "Export as PDF", self._export_name(
                ".pdf"), "PDF (*.pdf)")  # fmt: skip
            if not name:
                return None
            path = Path(name)
        try:
            export_pdf(self.entry_pane, path)
        except OSError as exc:
            QMessageBox.warning(self, "Export failed", f"Could not write {path}: {exc}")
            return None
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return path

    def export_html(self, path: Path | None = None) -> Path | None:
        """Export as HTML… (asks where when ``path`` is None); the file written."""
        from anthology.ui.window.print_export import export_html

        if self.entry_pane.rendered is None:
            return None
        if path is None:
            name, _ = QFileDialog.getSaveFileName(self, "Export as HTML", self._export_name(
                ".html"), "HTML (*.html *.htm)")  # fmt: skip
            if not name:
                return None
            path = Path(name)
        try:
            export_html(self.entry_pane, path)
        except OSError as exc:
            QMessageBox.warning(self, "Export failed", f"Could not write {path}: {exc}")
            return None
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return path

    # -- reading settings --------------------------------------------------------------
    def set_reading(self, settings: ReadingSettings) -> None:
        """Apply reading settings to every tab's pane at once, and keep them (app-wide)."""
        settings = settings.clamped()
        self.reading = settings
        settings.save(self.settings)
        for pane in self.tabs.panes():
            pane.set_reading(settings.style, readable=settings.readable, width=settings.width)
        for action, on in ((self.act_readable, settings.readable),
                           (self.act_serif, settings.serif)):  # fmt: skip
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)
        if self.preferences is not None:
            self.preferences.set_settings(settings)

    def zoom(self, steps: int) -> None:
        """Ctrl+= / Ctrl+- (one point bigger or smaller), Ctrl+0 (``steps`` 0: the default)."""
        if steps == 0:
            self.set_reading(replace(self.reading, font_size=ReadingSettings().font_size))
        else:
            self.set_reading(self.reading.bigger(steps))
        self.statusBar().showMessage(f"Text size {self.reading.font_size:g} pt", 2000)

    def open_preferences(self) -> None:
        if self.preferences is None:
            self.preferences = PreferencesDialog(self.reading, self)
            self.preferences.changed.connect(self.set_reading)
        self.preferences.set_settings(self.reading)
        self.preferences.show()
        self.preferences.raise_()

    def set_theme(self, theme: str) -> None:
        """Restyle the window; every widget that follows ``themeChanged`` restyles itself."""
        self.themes.set_theme(theme)

    def _on_theme_changed(self, theme: str) -> None:
        (self.act_dark if theme == "dark" else self.act_light).setChecked(True)
        self.settings.setValue("theme", theme)

    def about(self) -> None:
        QMessageBox.about(
            self,
            "About Anthology",
            f"<h3>Anthology {__version__}</h3><p>An offline reader for a linked knowledge base "
            "of Markdown entries. Nothing is fetched from the network.</p>"
            f"<p>Vault: {html.escape(str(self.root or ''))}</p>",
        )

    # -- shutting down -----------------------------------------------------------------
    def _save_positions(self) -> None:
        if self.state is not None and self.graph is not None and (pos := self.graph.positions()):
            self.state.save_positions(pos, self.graph.pinned_ids())

    def _on_state_problem(self, message: str) -> None:
        print(f"anthology: {message}", file=sys.stderr)
        self.statusBar().showMessage(f"User state: {message}", 15000)

    def _adopt_old_graph_settings(self) -> None:
        """The graph's settings were kept in QSettings before the user state: taken over
        once, then removed there."""
        assert self.state is not None
        key = re.sub(r"[^A-Za-z0-9_.-]+", "_", self._vault_key()).strip("_") or "default"
        group = f"graphView/{key[-80:]}"
        raw = self.settings.value(f"{group}/settings")
        if raw is None:
            return
        if self.state.get(GRAPH_VIEW) is None:
            with contextlib.suppress(ValueError, TypeError):
                self.state.put(GRAPH_VIEW, json.loads(str(raw)))
        self.settings.remove(group)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self._sync_state()  # back from another window, perhaps on this vault

    def closeEvent(self, event: QCloseEvent) -> None:
        """Quit without waiting on background work: every task is cancelled first, all at
        once, then what the reader did is saved; a task still busy after QUIT_WAIT is left
        to end with the process (an index refresh is one SQLite transaction: a cut one is
        rolled back on the next start)."""
        QApplication.instance().removeEventFilter(self)
        self.previews.hide()
        self._debounce.stop()
        self._poll.stop()
        self._tabs_timer.stop()
        self._indexing.cancel()
        self._views.cancel()
        if self._mentions_index is not None:
            self._mentions_index[1].interrupt()
        if self.demo_dock is not None and self.demo_dock.widget() is not None:
            self.demo_dock.widget().shutdown(timeout=0)
        self._save_layout()
        self._close_vault(quitting=True)
        if self.graph is not None:
            self.graph.shutdown()
        gc.unfreeze()  # what the window held can be collected again (see _freeze_heap)
        super().closeEvent(event)
