"""The window's docks and their sizes: the files and the outline on the left (search tabbed
with the files), tags and bookmarks on the right, a demo beside the entry; the saved layout
put back, and no dock allowed to crush the entry.

The side panels are made once the first entry is painted (:meth:`Docks.place_side_panels`):
made, laid out and styled with the window, they cost the first paint ~0.1–0.2 s. The tags,
the bookmarks and the search results are told what a refresh changed
(:meth:`Docks.changed`) and redo what they show; the explorer is given the listing the
views loader brought (:meth:`Docks.update_explorer`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QObject, QSettings, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QWidget

from anthology.session import Changes
from anthology.ui.panels.bookmarks_panel import BookmarksPanel
from anthology.ui.panels.file_explorer import FileExplorer
from anthology.ui.panels.search_panel import SearchPanel
from anthology.ui.panels.tag_panel import TagPanel
from anthology.ui.reading.outline_panel import OutlinePanel
from anthology.user_state import EXPLORER_VIEW, clean_explorer_view
from anthology.vault import EntryRef
from anthology.vault.tags import vault_tags

if TYPE_CHECKING:
    from anthology.ui.demo.demo_widget import DemoWidget
    from anthology.ui.window.main_window import MainWindow

LEFT_DOCK_WIDTH = 250  # the explorer's and outline's first width (px)
SIDE_DOCK_WIDTH = 240  # the Tags and Bookmarks docks' readable width (px)
ENTRY_MIN_WIDTH = 280  # no dock may squeeze the entry tabs narrower than this
ENTRY_READABLE_WIDTH = 520  # what the entry is given back when a panel opens, room allowing
SIDE_COLUMN_MIN = 240  # the graph and backlinks column gives way down to this first
DEMO_DOCK_WIDTH = 520  # the demo dock's first width (px); it never grows by itself
DEMO_MIN_WIDTH = 300
LEFT = Qt.DockWidgetArea.LeftDockWidgetArea
RIGHT = Qt.DockWidgetArea.RightDockWidgetArea


def _dock(win: MainWindow, title: str, name: str, widget: QWidget) -> QDockWidget:
    dock = QDockWidget(title, win)
    dock.setObjectName(name)
    dock.setWidget(widget)
    return dock


class Docks(QObject):
    """The docks of ``win`` and the panels in them."""

    def __init__(self, win: MainWindow) -> None:
        super().__init__(win)
        self.win = win
        self.search_panel = SearchPanel()
        self.search_panel.entryActivated.connect(lambda i: win.finding.open_search_result(i))
        self.search_panel.entryActivatedNewTab.connect(win.open_in_new_tab)
        win.themes.follow(self.search_panel.set_theme)
        self.search_dock = _dock(win, "Search", "searchDock", self.search_panel)
        # The left side, as in Obsidian: the files above, the open entry's outline below;
        # search shares the files' place, as a tab.
        self.explorer: FileExplorer | None = None
        self.outline: OutlinePanel | None = None
        self.explorer_dock = _dock(win, "Files", "explorerDock", QWidget())
        self.explorer_dock.widget().setMinimumWidth(120)
        self.explorer_dock.visibilityChanged.connect(lambda shown: self.build_explorer(shown))
        self.outline_dock = _dock(win, "Outline", "outlineDock", QWidget())
        win.addDockWidget(LEFT, self.explorer_dock)
        win.splitDockWidget(self.explorer_dock, self.outline_dock, Qt.Orientation.Vertical)
        win.tabifyDockWidget(self.explorer_dock, self.search_dock)
        self.search_dock.hide()
        self.explorer_dock.raise_()
        self.default_docks_pending = True  # their first sizes, once the window is laid out
        self.check_restored = False  # a saved layout was restored: checked once shown
        self._explorer_dirty = True  # rebuilt when next shown (it is hidden, or not built)
        self._explorer_listing: tuple[list[EntryRef], list[str]] | None = None

        # Tags and bookmarks: docks on the right, hidden until asked for (View menu).
        self.tag_panel = TagPanel()
        self.tag_panel.tagActivated.connect(lambda tag: win.search(f"tag:{tag}"))
        self.tags_dock = _dock(win, "Tags", "tagsDock", self.tag_panel)
        self.tags_dock.visibilityChanged.connect(self.build_tags)
        self.bookmarks_panel = BookmarksPanel()
        self.bookmarks_panel.entryActivated.connect(win.show_entry)
        self.bookmarks_panel.entryActivatedNewTab.connect(win.open_in_new_tab)
        self.bookmarks_panel.removeRequested.connect(win.remove_bookmark)
        self.bookmarks_dock = _dock(win, "Bookmarks", "bookmarksDock", self.bookmarks_panel)
        win.addDockWidget(RIGHT, self.tags_dock)
        win.tabifyDockWidget(self.tags_dock, self.bookmarks_dock)
        self.tags_dock.hide()
        self.bookmarks_dock.hide()
        for dock in (self.tags_dock, self.bookmarks_dock):
            dock.visibilityChanged.connect(
                lambda shown, d=dock: shown and QTimer.singleShot(0, lambda: self.room_for(d))
            )
        self.tags_dirty = True
        self.demo_dock: QDockWidget | None = None
        self.demo: DemoWidget | None = None  # what the demo dock shows

    # -- what a refresh changed ----------------------------------------------------------------
    def changed(self, changes: Changes) -> None:
        """Tags may have come or gone with any edit: made again (now if shown); the
        bookmarks' titles may have changed; the search is asked again."""
        self.tags_dirty = True
        if self.tags_dock.isVisible():
            self.build_tags()
        self.refresh_bookmarks()
        if self.search_panel.box.text():
            self.search_panel.run_search()

    # -- the panels ------------------------------------------------------------------------
    def place_side_panels(self) -> None:
        """Make the explorer and the outline and put them in their docks (once the first
        entry is painted)."""
        if self.explorer is not None or self.outline is not None:
            return
        win = self.win
        explorer = FileExplorer()
        explorer.entryActivated.connect(win.show_entry)
        explorer.entryActivatedNewTab.connect(win.open_in_new_tab)
        explorer.attachmentActivated.connect(lambda path: win.entry_pane.open_attachment(path))
        explorer.setMinimumWidth(120)
        explorer.viewChanged.connect(self._save_explorer_view)
        outline = OutlinePanel()
        outline.headingActivated.connect(lambda a: win.entry_pane.scroll_to_heading(a))
        self.explorer, self.outline = explorer, outline
        self.restore_explorer_view()
        self.explorer_dock.setWidget(explorer)
        self.outline_dock.setWidget(outline)
        outline.follow(win.entry_pane)
        if (current := win.current_id()) is not None:
            explorer.follow(current)

    def restore_explorer_view(self) -> None:
        if self.explorer is not None and self.win.state is not None:
            view = self.win.state.get(EXPLORER_VIEW, clean=clean_explorer_view)
            self.explorer.restore_view_state(view)

    def _save_explorer_view(self, view: dict[str, Any]) -> None:
        if self.win.state is not None:
            self.win.state.put(EXPLORER_VIEW, view)

    def update_explorer(self, refs: list[EntryRef], attachments: list[str]) -> None:
        """Give the explorer the vault's entries and attachments (built now if it is in
        view, else when it is next shown)."""
        listing = (refs, attachments)
        if listing == self._explorer_listing:
            return  # an edit that renamed nothing
        self._explorer_listing = listing
        self._explorer_dirty = True
        if self.explorer_dock.isVisible():
            self.build_explorer()

    def build_explorer(self, shown: bool = True) -> None:
        if self.explorer is None or not shown:
            return
        if self._explorer_listing is not None and self._explorer_dirty:
            self._explorer_dirty = False
            self.explorer.set_entries(*self._explorer_listing)
            if (current := self.win.current_id()) is not None:
                self.explorer.follow(current)

    def build_tags(self, shown: bool = True) -> None:
        """Fill the tag pane from the index (when it is shown, once per refresh)."""
        if self.win.index is None or not self.tags_dirty or not shown:
            return
        self.tags_dirty = False
        try:
            self.tag_panel.set_tags(vault_tags(self.win.index))
        except Exception as exc:  # a closed or replaced index: said, not raised
            self.win.statusBar().showMessage(f"Could not list the tags: {exc}", 6000)

    def refresh_bookmarks(self) -> None:
        self.bookmarks_panel.set_bookmarks(self.win.bookmark_refs())

    def clear(self) -> None:
        """The vault closes."""
        self.tags_dirty = True
        if self.explorer is not None:
            self.explorer.clear()
        self._explorer_listing = None
        self._explorer_dirty = True
        if self.outline is not None:
            self.outline.follow(self.win.entry_pane)

    # -- a demo beside the entry ---------------------------------------------------------------
    def open_demo(self, name: str) -> None:
        """Open an embedded demo in a dock beside the entry."""
        from anthology.ui.demo.demo_widget import create_demo_widget

        win = self.win
        fresh = self.demo_dock is None
        if self.demo_dock is None:
            self.demo_dock = QDockWidget("Demo", win)
            self.demo_dock.setObjectName("demoDock")
            win.addDockWidget(RIGHT, self.demo_dock)
        dock = self.demo_dock
        old = self.demo
        if old is not None and old.demo_name == name:
            dock.show()
            return
        if old is not None:
            old.shutdown()
            old.deleteLater()
        self.demo = widget = create_demo_widget(name, dock)  # the registry's contract:
        widget.entryLinkActivated.connect(win.show_entry)  # see anthology.demo
        win.themes.follow(widget.set_theme)
        # An explicit minimum: the demo's own (its labels and plots, growing as they change)
        # would widen the dock after a few clicks until the entry was crushed.
        widget.setMinimumWidth(DEMO_MIN_WIDTH)
        dock.setWindowTitle(f"Demo — {name}")
        dock.setWidget(widget)
        dock.show()
        if fresh:
            win.resizeDocks([dock], [DEMO_DOCK_WIDTH], Qt.Orientation.Horizontal)
        QTimer.singleShot(0, self.give_entry_room)

    # -- sizes and the saved layout --------------------------------------------------------
    def restore_layout(self, settings: QSettings) -> None:
        win = self.win
        geometry = settings.value("geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            win.restoreGeometry(geometry)
        else:
            win.resize(1400, 900)
        self._default_state = win.saveState()  # put back if a saved one crushes the entry
        state = settings.value("windowState")
        if isinstance(state, QByteArray) and not state.isEmpty():
            win.restoreState(state)
            self.check_restored = True
            self.default_docks_pending = False  # the user's own sizes
        for splitter in (win.splitter, win.right):
            sizes = settings.value(f"splitters/{splitter.objectName()}")
            if isinstance(sizes, QByteArray) and not sizes.isEmpty():
                splitter.restoreState(sizes)

    def save_layout(self, settings: QSettings) -> None:
        win = self.win
        settings.setValue("geometry", win.saveGeometry())
        settings.setValue("windowState", win.saveState())
        for splitter in (win.splitter, win.right):
            settings.setValue(f"splitters/{splitter.objectName()}", splitter.saveState())

    def guard_entry_width(self) -> None:
        """No dock may crush the entry: a restored layout that leaves the entry tabs
        narrower than ENTRY_MIN_WIDTH is refused (the default one is used), and a dock
        grown past its share is given back to the entry."""
        win = self.win
        if not win.isVisible():
            return
        if self.check_restored:
            self.check_restored = False
            if win.tabs.width() < ENTRY_MIN_WIDTH:
                win.restoreState(self._default_state)
                self.default_docks_pending = True
                win.statusBar().showMessage(
                    "The saved window layout left the entry too narrow: the default is used",
                    8000,
                )
        if self.default_docks_pending:
            self.default_docks_pending = False
            self.size_default_docks()
        self.give_entry_room()

    def size_default_docks(self) -> None:
        """The left docks' first sizes. Set before the window is laid out, resizeDocks is
        lost and the explorer opened at its 120 px minimum, every title cut to "LIT-11…"."""
        win = self.win
        win.resizeDocks([self.explorer_dock], [LEFT_DOCK_WIDTH], Qt.Orientation.Horizontal)
        if self.outline_dock.isVisible() and self.explorer_dock.isVisible():
            h = max(self.explorer_dock.height() + self.outline_dock.height(), 1)
            win.resizeDocks([self.explorer_dock, self.outline_dock], [h * 2 // 3, h // 3],
                            Qt.Orientation.Vertical)  # fmt: skip

    def room_for(self, dock: QDockWidget) -> None:
        """A side dock shown narrower than its readable width (its first showing: Qt gives
        a hidden dock its minimum, and the Tags pane opened 120 px wide, every tag cut to
        "#attentio…") is widened to it, within what the entry can spare."""
        if dock.isFloating() or not dock.isVisible() or dock.width() >= SIDE_DOCK_WIDTH - 10:
            return
        self.win.resizeDocks([dock], [SIDE_DOCK_WIDTH], Qt.Orientation.Horizontal)
        self.give_entry_room()

    def give_entry_room(self) -> None:
        """A panel opened (the demo, the tags…) or the window shrank: the entry keeps a
        readable width (:data:`ENTRY_READABLE_WIDTH`, at least :data:`ENTRY_MIN_WIDTH`) —
        the graph and backlinks column gives way first, down to :data:`SIDE_COLUMN_MIN`,
        then the widest docks beside it (a demo opened at 1400 px left the entry 280 px)."""
        win = self.win
        deficit = ENTRY_READABLE_WIDTH - win.tabs.width()
        if deficit <= 0:
            return
        sizes = win.splitter.sizes()
        spare = sizes[1] - SIDE_COLUMN_MIN if len(sizes) == 2 and win.right.isVisible() else 0
        docks = [d for d in win.findChildren(QDockWidget)
                 if d.isVisible() and not d.isFloating()
                 and win.dockWidgetArea(d) in (LEFT, RIGHT)]  # fmt: skip
        # The docks give what the graph column cannot (a dock resized after the splitter
        # would make the splitter share its new room out again by its stretch factors).
        dock_deficit = deficit - max(0, spare)
        for dock in sorted(docks, key=lambda d: -d.width()):
            if dock_deficit <= 0:
                break
            room = dock.width() - max(dock.minimumSizeHint().width(), 160)
            take = min(room, dock_deficit)
            if take > 0:
                win.resizeDocks([dock], [dock.width() - take], Qt.Orientation.Horizontal)
                dock_deficit -= take
        QTimer.singleShot(0, self._entry_from_side_column)

    def _entry_from_side_column(self) -> None:
        """Once the docks are laid out: the graph and backlinks column gives the entry
        what it still lacks of a readable width."""
        win = self.win
        sizes = win.splitter.sizes()
        deficit = ENTRY_READABLE_WIDTH - win.tabs.width()
        if deficit <= 0 or len(sizes) != 2 or not win.right.isVisible():
            return
        take = min(deficit, sizes[1] - SIDE_COLUMN_MIN)
        if take > 0:
            win.splitter.setSizes([sizes[0] + take, sizes[1] - take])
