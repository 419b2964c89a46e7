"""Finding in the open document, and the panes the keyboard moves between: the find bar's
part of the window (Ctrl+F, F3, a search result that lands on its match) and F6's round of
the panes, with the ring around the one the keyboard is in."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication, QWidget

from anthology.ui.common.theme import colours, qcolor
from anthology.ui.reading.entry_pane import EntryPane
from anthology.vault.query import words_to_find
from anthology.vault.render.safe_text import plain_text

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget, QStatusBar

    from anthology.ui.graph.graph_view import GraphView
    from anthology.ui.panels.backlinks_panel import BacklinksPanel
    from anthology.ui.panels.file_explorer import FileExplorer
    from anthology.ui.panels.search_panel import SearchPanel
    from anthology.ui.reading.entry_tabs import EntryTabs
    from anthology.ui.reading.find_bar import FindBar
    from anthology.ui.reading.outline_panel import OutlinePanel
    from anthology.ui.window.docks import Docks
    from anthology.ui.window.focus_ring import FocusRing


class FindingHost(Protocol):
    """What :class:`Finding` asks of the window: its find bar, tabs and panes."""

    tabs: EntryTabs
    find_bar: FindBar
    search_panel: SearchPanel
    backlinks: BacklinksPanel
    docks: Docks
    focus_ring: FocusRing
    explorer_dock: QDockWidget

    @property
    def entry_pane(self) -> EntryPane: ...

    @property
    def graph(self) -> GraphView | None: ...

    @property
    def outline(self) -> OutlinePanel | None: ...

    @property
    def explorer(self) -> FileExplorer | None: ...

    @property
    def theme(self) -> str: ...

    def show_entry(self, entry_id: str) -> bool: ...

    def statusBar(self) -> QStatusBar: ...


class Finding(QObject):
    """The find bar's and F6's part of ``win``."""

    def __init__(self, win: FindingHost, parent: QObject) -> None:
        super().__init__(parent)
        self.win = win
        self._after_render: tuple[str, list[str]] | None = None  # (entry id, words)

    # -- find in the note ------------------------------------------------------------------
    def find_in_note(self) -> None:
        """Ctrl+F: the find bar, on the text selected in the page if there is some."""
        win = self.win
        pane = win.tabs.document()
        selected = pane.textCursor().selectedText() if isinstance(pane, EntryPane) else ""
        win.find_bar.attach(pane)
        win.find_bar.open_bar(selected if selected and "\u2029" not in selected else None)

    def find_again(self, backward: bool = False) -> None:
        """F3 / Shift+F3: the next (previous) match; the bar opens if it is closed."""
        if not self.win.find_bar.isVisible():
            self.find_in_note()
        self.win.find_bar.step(backward=backward)

    def open_search_result(self, entry_id: str) -> None:
        """A full-text search result opened: the note, scrolled to the first match of the
        words sought, every match highlighted, the find bar on them (as Obsidian does)."""
        win = self.win
        words = words_to_find(win.search_panel.box.text())
        if not win.show_entry(entry_id) or not words:
            return
        if win.entry_pane.rendering:  # a long note renders off the GUI thread: then
            self._after_render = (entry_id, words)
        else:
            win.find_bar.attach(win.tabs.document())
            win.find_bar.open_on(words)

    def page_rendered(self, pane: EntryPane, entry_id: str) -> None:
        """A page is shown anew (opened, edited on disk, restyled): the find bar's
        matches are found again on it; a search result waiting for it lands on its match."""
        win = self.win
        if pane is not win.tabs.document():
            return
        pending, self._after_render = self._after_render, None
        if pending is not None and pending[0] == entry_id:
            win.find_bar.attach(pane)
            win.find_bar.open_on(pending[1])
        elif win.find_bar.isVisible():
            win.find_bar.attach(pane)
            win.find_bar.refind()

    # -- the panes, by keys -----------------------------------------------------------------
    def panes(self) -> list[tuple[str, QWidget]]:
        """The panes the keyboard can be in, in F6's order, those shown only: the document,
        the graph, the backlinks, the outline, the explorer, search, bookmarks, tags."""
        win = self.win
        found: list[tuple[str, QWidget | None]] = [
            ("Document", win.tabs.document().widget()),
            ("Graph", win.graph.view if win.graph is not None else None),
            ("Backlinks", win.backlinks.tree),
            ("Outline", win.outline.tree if win.outline is not None else None),
            ("Files", win.explorer.tree if win.explorer is not None else None),
            ("Search", win.search_panel.box),
            ("Bookmarks", win.docks.bookmarks_panel.list),
            ("Tags", win.docks.tag_panel),
        ]
        return [(name, w) for name, w in found if w is not None and w.isVisible()]

    def cycle_panes(self, step: int = 1) -> None:
        """F6 / Shift+F6: the keyboard to the next (previous) pane, with a ring around it
        (ui/window/focus_ring.py); the status bar names it."""
        win = self.win
        panes = self.panes()
        if not panes:
            return
        focus = QApplication.focusWidget()
        at = next((i for i, (_n, w) in enumerate(panes)
                   if focus is not None and (w is focus or w.isAncestorOf(focus))), -1)  # fmt: skip
        name, widget = panes[(at + step) % len(panes)] if at >= 0 else panes[0]
        widget.setFocus(Qt.FocusReason.TabFocusReason if step > 0 else
                        Qt.FocusReason.BacktabFocusReason)  # fmt: skip
        win.focus_ring.colour = qcolor(colours(win.theme)["highlight"])
        win.focus_ring.around(widget)
        win.statusBar().showMessage(f"Keyboard in: {name} (F6: next pane)", 3000)

    def reveal_folder(self, path: str) -> None:
        """A breadcrumb's folder clicked: the explorer shows it, open and selected."""
        win = self.win
        win.docks.place_side_panels()
        win.explorer_dock.show()
        win.explorer_dock.raise_()
        if win.explorer is None or not win.explorer.reveal_folder(path):
            win.statusBar().showMessage(f"No folder “{plain_text(path, 120)}” listed", 4000)
