"""The main window a reader lives in: entry tabs, graph, backlinks, docks. It builds and
wires; what it shows of a vault is the session's (:mod:`anthology.session`), what it asks is
the core's (:class:`VaultIndex`: it never writes SQL).

Its parts: the actions, menus and shortcuts (``actions.py``), the docks and their sizes
(``docks.py``), the tabs and moving between documents (``navigation.py``: a tab holds a
document, see ui/common/document.py), what surrounds the entry (``surroundings.py``: the
graph, the backlinks), live reload (``live_reload.py``: the watcher, the poll, the refresh
on a task runner), print and export (``print_export.py``: of the document shown). A
refresh yields one :class:`~anthology.session.Changes`, given to every panel's ``changed``
in one loop; each decides what to redo.

Two places hold what it knows of a vault: the index (a cache, rebuilt at will) and the
vault's user state (:class:`UserState`: the graph's layout, pins and settings, tabs,
bookmarks), which outlives the index. Window-wide things (geometry, theme, recent vaults)
are in QSettings.
"""

from __future__ import annotations

import gc
import html
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from anthology import paths
from anthology.paths import entries_dir
from anthology.session import Changes, ReaderSession
from anthology.ui.common.document import ENTRY, kind_for_file
from anthology.ui.common.theme import ThemeController
from anthology.ui.panels.backlinks_panel import BacklinksPanel
from anthology.ui.panels.file_explorer import FileExplorer
from anthology.ui.panels.path_finder import PathFinderDialog
from anthology.ui.panels.problems_dialog import ProblemsDialog
from anthology.ui.panels.quick_switcher import QuickSwitcher
from anthology.ui.reading.entry_pane import BACKGROUND_RENDER_CHARS, EntryPane
from anthology.ui.reading.find_bar import FindBar
from anthology.ui.reading.outline_panel import OutlinePanel
from anthology.ui.reading.page_preview import PreviewController
from anthology.ui.reading.reading_settings import PreferencesDialog, ReadingSettings
from anthology.ui.window import actions, print_export
from anthology.ui.window.command_palette import CommandPalette
from anthology.ui.window.docks import ENTRY_MIN_WIDTH, Docks
from anthology.ui.window.finding import Finding
from anthology.ui.window.focus_ring import FocusRing
from anthology.ui.window.live_reload import LiveReload
from anthology.ui.window.navigation import Navigation
from anthology.ui.window.neighbours import Neighbours
from anthology.ui.window.partial_index import PartialIndex
from anthology.ui.window.surroundings import Surroundings, adopt_old_graph_settings
from anthology.user_state import UserState
from anthology.vault import (
    DiskResolver,
    Entry,
    EntryRef,
    RefreshReport,
    VaultError,
    VaultIndex,
    check_place,
    default_db_path,
    first_entry_path,
    read_first_entry,
    vault_root,
)
from anthology.vault.render.entry import CITED_BY_SHOWN
from anthology.vault.render.freshness import carry_renders
from anthology.vault.render.safe_text import plain_text
from anthology.vault.shared_reader import SharedReader

if TYPE_CHECKING:  # pyqtgraph costs ~0.7 s to import: loaded once the first entry is shown
    from anthology.ui.graph.graph_view import GraphView

__all__ = ["BACKGROUND_RENDER_CHARS", "CITED_BY_SHOWN", "MainWindow"]
MAX_RECENT = 8  # vaults in File › Open Recent
TABS_SAVE_MS = 1500  # the open tabs are saved this long after the reader last moved
STATE_POLL_MS = 1000  # how often a window looks whether another one changed the user state
QUIT_WAIT = 0.1  # s: the longest quitting waits for a background task to reach its check


class MainWindow(QMainWindow, actions.WindowParts):
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
        self.session = ReaderSession(entry=entry)  # the open vault's reader state
        self.stateProblem.connect(self._on_state_problem)
        self.index: VaultIndex | None = None
        # What renders off the GUI thread ask (the panes' long entries, the pages of links
        # pointed at, page previews): a reader of the index, closed by the last of them to
        # finish once the vault is closed (see vault/shared_reader.py).
        self.render_reader: SharedReader | None = None
        self.root: Path | None = None
        self.db: Path | None = db
        self.ready = False  # an entry is on screen (for screenshots and tests)
        self.last_report: RefreshReport | None = None
        # another window on the vault may change its bookmarks and recent entries
        self._state_poll = QTimer(self, interval=STATE_POLL_MS)
        self._state_poll.timeout.connect(self._sync_state)
        self._state_poll.start()
        # the widgets follow its themeChanged (the entry pane here, the graph and a demo
        # when they are made)
        self.themes = ThemeController(self, str(self.settings.value("theme", "light")))
        self.themes.themeChanged.connect(self._on_theme_changed)
        self.reading = ReadingSettings.load(self.settings)  # app-wide (reading_settings.py)
        self.preferences: PreferencesDialog | None = None
        self.bookmark_actions: list[QAction] = []  # the Bookmarks menu's entries

        self._build_widgets()
        actions.build_actions(self)
        actions.build_status_bar(self)
        self.live = LiveReload(self, self.progress, self.statusBar().showMessage)
        self.live.refreshed.connect(self._on_refreshed)
        # a never-seen vault: search and the graph on what is indexed so far
        self.partial = PartialIndex(self)
        self.live.indexing.progress.connect(self.partial.on_progress)
        self.docks.restore_layout(self.settings)
        self.set_theme(self.theme)
        # What a refresh changed, told to each part of the window that shows the vault.
        self._listeners: list[Callable[[Changes], None]] = [
            self.navigation.reading_changed, self.navigation.changed, self.docks.changed,
            self.neighbours.changed,
        ]  # fmt: skip

        if vault is None:
            last = self.settings.value("lastVault")
            vault = Path(str(last)) if last and Path(str(last)).is_dir() else entries_dir()
        self.open_vault(vault, entry=entry)

    # -- construction ------------------------------------------------------------------
    def entry_for_pane(self, entry_id: str) -> Entry | None:
        """The entry as :meth:`show_entry` reads it (what a pane's page is made from)."""
        return self.index.entry(entry_id, cited_by_limit=CITED_BY_SHOWN) if self.index else None

    @property
    def entry_pane(self) -> EntryPane:
        """The active tab's pane (what the reader sees)."""
        return self.tabs.pane()

    pane = entry_pane  # another name for it

    @property
    def history(self) -> list[str]:
        """The active tab's back/forward history, as entry ids."""
        return self.tabs.history().ids()

    @property
    def explorer(self) -> FileExplorer | None:
        return self.docks.explorer

    @property
    def outline(self) -> OutlinePanel | None:
        return self.docks.outline

    @property
    def demo_dock(self) -> QDockWidget | None:
        return self.docks.demo_dock

    @property
    def graph(self) -> GraphView | None:
        """The graph view (made with the first graph to draw)."""
        return self.surroundings.graph

    @property
    def bookmarks(self) -> list[str]:
        """The open vault's bookmarks, in the order they were added."""
        return self.session.bookmarks

    @property
    def recent(self) -> list[str]:
        """The open vault's entries opened last, latest first."""
        return self.session.recent

    def _build_widgets(self) -> None:
        self.previews = PreviewController(
            self,
            lambda i: self.index.entry(i, cited_by_limit=CITED_BY_SHOWN) if self.index else None,
            lambda: self.index,
            lambda: self.theme,
            lambda: self.index.root if self.index else None,
            lambda: self.render_reader,
            lambda: self.neighbours.preview_asker(),
        )
        self.previews.linkActivated.connect(self.follow_link)
        self.previews.shown.connect(lambda: self.graph.drop_tooltip() if self.graph else None)
        self.navigation = Navigation(self)
        self.tabs = self.navigation.tabs
        self.tabs.setMinimumWidth(ENTRY_MIN_WIDTH)
        self.surroundings = Surroundings(self)

        # The graph view and pyqtgraph come after the first entry is on screen (see
        # _ensure_graph); until then its place says what is coming.
        self.graph_slot = QLabel("Drawing the graph…")
        self.graph_slot.setObjectName("graphPlaceholder")
        self.graph_slot.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.graph_slot.setEnabled(False)  # drawn in the muted text colour

        self.backlinks = BacklinksPanel()
        self.backlinks.entryActivated.connect(self.show_entry)
        self.backlinks.entryActivatedNewTab.connect(self.open_in_new_tab)
        self.backlinks.entryHovered.connect(self.hover_entry)
        self.themes.follow(self.backlinks.set_theme)

        self.right = QSplitter(Qt.Orientation.Vertical)
        self.right.setObjectName("rightSplitter")
        self.right.addWidget(self.graph_slot)
        self.right.addWidget(self.backlinks)
        self.right.setStretchFactor(0, 3)
        self.right.setStretchFactor(1, 2)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.focus_ring = FocusRing(self)  # around the pane F6 moved the keyboard to
        self.finding: Finding = Finding(self, self)  # the find bar's part, and F6's
        # the find bar (Ctrl+F) over the tabs: it finds in the active tab's document
        self.find_bar = FindBar()
        self.find_bar.closed.connect(lambda: self.tabs.document().widget().setFocus())
        reading_area = QWidget()
        reading_area.setObjectName("readingArea")
        column = QVBoxLayout(reading_area)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.find_bar)
        column.addWidget(self.tabs, 1)
        self.splitter.addWidget(reading_area)
        self.splitter.setCollapsible(0, False)
        self.splitter.addWidget(self.right)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([820, 540])
        self.right.setSizes([480, 320])
        self.setCentralWidget(self.splitter)

        self.docks: Docks = Docks(self)
        d = self.docks
        self.neighbours: Neighbours = Neighbours(self, self)  # the Related and Relations docks
        self.search_panel, self.search_dock = d.search_panel, d.search_dock
        self.explorer_dock, self.outline_dock = d.explorer_dock, d.outline_dock
        self.tag_panel, self.tags_dock = d.tag_panel, d.tags_dock
        self.bookmarks_panel, self.bookmarks_dock = d.bookmarks_panel, d.bookmarks_dock

        self.switcher = QuickSwitcher(self)
        self.switcher.entryChosen.connect(self.show_entry)
        self.command_palette = CommandPalette(self)
        self.path_finder: PathFinderDialog | None = None  # made when first asked for
        self.problems_dialog = ProblemsDialog(self)
        self.problems_dialog.pathActivated.connect(lambda path: actions.open_path(self, path))

    def showEvent(self, event) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self.docks.guard_entry_width)

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
        adopt_old_graph_settings(self.settings, self.state, self.vault_key())
        last = self.settings.value(f"lastEntry/{root}")
        self.session = ReaderSession(self.state, entry=entry, last=str(last) if last else None)
        self.switcher.set_recent(self.session.recent)
        self.docks.restore_explorer_view()
        self.setWindowTitle(f"{root.name} — Anthology")
        self.settings.setValue("lastVault", str(root))
        vaults = [str(root)] + [p for p in self._recent_vaults() if p != str(root)]
        self.settings.setValue("recentVaults", vaults[:MAX_RECENT])
        actions.update_recent_menu(self, self._recent_vaults())
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
        self.live.root, self.live.db = root, db
        if self.index is not None and self.surroundings.pending:
            # The index is there: its views first, then the refresh, whose scan of every
            # file (1.6 s at 100,000) shared the interpreter with their question
            self.surroundings.after_load(self.live.reindex)
        else:
            self.live.reindex()

    def _show_first_look(self, root: Path) -> bool:
        """A never-seen vault: show its first entry read from disk while the index is built
        (a cold build of 100,000 entries takes most of a minute). Links are drawn as links;
        one clicked meanwhile is opened when the index is ready."""
        named = self.session.pending_entry or ""  # a note named by its path (`anthology A.md`)
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
        self.session.first_look = path
        self.entry_pane.set_vault(DiskResolver(root), root)
        self.entry_pane.show_entry(entry)
        if self.graph is None:
            self.graph_slot.setText("The graph is drawn once the vault is indexed…")
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
        stopped = self.live.stop(wait) if hasattr(self, "live") else True
        stopped = self.surroundings.stop(wait) and stopped
        self.save_positions()
        self.navigation.save_tabs()
        self.surroundings.detach()
        self.neighbours.clear()
        if self.state is not None:
            self.state.close()
            self.state = None
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
        self.partial.reset()
        self.navigation.reset()  # the tabs were saved (above); the next vault's come back
        self.docks.clear()
        self.ready = False

    def _attach_index(self, index: VaultIndex) -> None:
        if self.session.first_look is not None:
            self.statusBar().clearMessage()  # "Indexing …" (see _show_first_look)
        self._read_from(index)
        self.show_first_entry()
        self.surroundings.load(with_positions=True)

    def attach_partial(self, index: VaultIndex) -> None:
        """A never-seen vault's index while it is built (:mod:`.partial_index`): search,
        the switcher and the graph read it; the entry shown stays."""
        self._read_from(index)
        self.surroundings.load(with_positions=True)

    def _read_from(self, index: VaultIndex) -> None:
        """The renders, the tabs' documents and search read ``index`` from now on."""
        self.index = index
        self.render_reader = SharedReader(index)
        vault = self.navigation.open_vault()
        assert vault is not None
        for view in self.tabs.views():
            view.attach_vault(vault)
        self.search_panel.set_search_function(index.search, index.search_total)

    def _drop_partial(self) -> None:
        """The build ended: the partial view is let go (the index is attached anew)."""
        self.partial.reset()
        self.surroundings.runner.cancel()
        self.surroundings.close_mentions()
        if self.render_reader is not None:
            self.render_reader.close()
            self.render_reader = None
        if self.index is not None:
            self.index.close()
            self.index = None

    def _recent_vaults(self) -> list[str]:
        value = self.settings.value("recentVaults") or []
        return [str(v) for v in (value if isinstance(value, list) else [value])]

    def vault_key(self) -> str:
        return str(self.root) if self.root else ""

    # -- indexing and what it changed -----------------------------------------------------
    def reindex(self) -> None:
        """Refresh the index in the background (only changed files are read)."""
        self.live.reindex()

    @property
    def indexing(self) -> bool:
        """A refresh of the index is running."""
        return self.live.busy

    def _on_refreshed(self, report: RefreshReport) -> None:
        """A refresh finished: the first one attaches the index; after it, what it changed
        is told to every part of the window (each decides what to redo), then the graph,
        the switcher and the counts are asked for again off the GUI thread."""
        self.last_report = report
        if self.partial.active:
            self._drop_partial()
        if self.index is None:
            assert self.root is not None  # a refresh is the open vault's
            self._attach_index(VaultIndex.open(self.root, self.db_path, refresh=False))
        elif report.added or report.changed or report.removed:
            changes = Changes.from_report(report)
            changes = self.navigation.follow_moves(changes)  # notes renamed on disk
            # the pages and previews an edit leaves true are kept (a revisit stays instant)
            carry_renders(self.index, changes.changed | changes.removed
                          | {old for old, _new in changes.renamed})  # fmt: skip
            try:
                for listener in self._listeners:
                    listener(changes)
            finally:  # asked once the entry is on screen: the loader shares the interpreter
                # (with the files to watch: a file added or removed may need its folder's)
                self.surroundings.load(with_positions=self.graph is None)

    def show_first_entry(self) -> None:
        """No entry is shown yet (the index is new): the saved tabs, else the entry the
        session picks (asked for, followed from the first look, last read, home)."""
        assert self.index is not None
        restored = not self.session.tabs_restored and self.navigation.restore_tabs()
        if restored and not self.session.explicit_entry:
            self.session.pending_entry = self.session.first_look = None
            return
        if target := self.session.entry_to_open(self.index):
            self.show_entry(target)
        else:
            self.entry_pane.setHtml("<h2>This vault has no entries yet.</h2>")
            self.ready = True

    @property
    def settled(self) -> bool:
        """The entry is shown (its page, not "Rendering…") and the graph, switcher and
        counts answer the index as it is now (for screenshots, benchmarks and tests)."""
        return (
            self.ready
            and self.index is not None
            and not self.partial.active
            and not self.surroundings.pending
            and not self.entry_pane.rendering
        )

    # -- reading -----------------------------------------------------------------------
    def current_id(self) -> str | None:
        """The entry the active tab shows (None while it shows another kind of document)."""
        shown = self.tabs.document()
        return shown.document_id() if shown.kind == ENTRY else None

    def show_entry(self, entry_id: str, *, push: bool = True, keep_scroll: bool = False,
                   heading: str = "", scroll: int | None = None) -> bool:  # fmt: skip
        """Open an entry in the pane, with its backlinks, and follow it in the graph;
        ``scroll``: the reading position to open it at (back and forward)."""
        if self.index is None:
            self.session.pending_entry = entry_id
            self.statusBar().showMessage(f"“{plain_text(entry_id, 120)}” opens when the index "
                                         "is ready", 0)  # fmt: skip
            return False
        if self.graph is not None:
            self.graph.hold_layout()  # the GIL is the panes' until they are painted
        entry = self.index.entry(entry_id, cited_by_limit=CITED_BY_SHOWN)
        if entry is None:
            self.statusBar().showMessage(f"No entry “{entry_id}”", 5000)
            return False
        kind = kind_for_file(entry.path)
        if kind is not None and kind.shows_entries:  # a canvas: an entry shown as a board
            return self.navigation.open_document(kind.name, entry.path, push=push)
        tab = self.tabs.tab()
        pane, history, left = tab.pane, tab.history, tab.current
        same = entry.id == self.current_id()
        # the reading position in the document being left, for back/forward to return to
        leaving = left.scroll_position() if left.document_id() else None
        tab.show_kind(ENTRY)
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
        self.navigation.panels_follow(pane, EntryRef(entry.id, entry.title, entry.path))
        self.ready = True
        return True

    # -- tabs and navigation -------------------------------------------------------------
    def open_in_new_tab(self, entry_id: str, heading: str = "") -> bool:
        """Open ``entry_id`` (at ``heading``) in a new tab after the active one."""
        return self.navigation.open_in_new_tab(entry_id, heading)

    def open_document(self, kind: str, ref: str, *, new_tab: bool = False, push: bool = True,
                      scroll: int | None = None) -> bool:  # fmt: skip
        """Open document ``ref`` of ``kind`` (see ui/common/document.py) in the active tab
        (a new one with ``new_tab``), in its history beside the entries."""
        return self.navigation.open_document(kind, ref, new_tab=new_tab, push=push, scroll=scroll)

    def new_tab(self) -> None:
        self.navigation.new_tab()

    def close_tab(self) -> None:
        self.navigation.close_tab()

    def go_back(self) -> None:
        self.navigation.go_back()

    def go_forward(self) -> None:
        self.navigation.go_forward()

    def go_home(self) -> None:
        home = self.index.home_id() if self.index else None
        if home:
            self.show_entry(home)

    # -- backlinks and links ---------------------------------------------------------------
    def follow_link(self, entry_id: str, heading: str) -> None:
        if entry_id == self.current_id():
            if heading:
                self.entry_pane.scroll_to_heading(heading)
            return
        self.show_entry(entry_id, heading=heading)

    def hover_entry(self, entry_id: str) -> None:
        """The pointer is on a graph node or a backlinks row of ``entry_id`` ("": left)."""
        self.entry_pane.point_at(entry_id)  # its page is made while the reader points
        if entry_id:
            ctrl = QApplication.keyboardModifiers() & Qt.KeyboardModifier.ControlModifier
            self.previews.hover(entry_id, immediate=bool(ctrl))
        else:
            self.previews.leave()

    # -- bookmarks -------------------------------------------------------------------------
    def toggle_bookmark(self) -> None:
        """Ctrl+D: bookmark the entry being read, or take its bookmark off."""
        current = self.current_id()
        if current is None or self.state is None:
            self.act_bookmark.setChecked(False)
            return
        marked = self.session.toggle_bookmark(current)
        self.statusBar().showMessage("Bookmarked" if marked else "Bookmark removed", 3000)
        self._show_bookmarks()

    def remove_bookmark(self, entry_id: str) -> None:
        if entry_id in self.session.bookmarks:
            self.session.change_bookmarks(remove=entry_id)
            self._show_bookmarks()

    def _show_bookmarks(self) -> None:
        self.act_bookmark.setChecked(self.session.is_bookmarked(self.current_id()))
        self.docks.refresh_bookmarks()
        for i in range(self.tabs.count()):  # each tab's title marks a bookmarked entry
            tab = self.tabs.tab(i)
            if tab.current is tab.pane and (entry := tab.pane.shown_entry) is not None:
                ref = EntryRef(entry.id, entry.title, entry.path)
                self.navigation.show_tab_title(tab.pane, ref)

    def bookmark_refs(self) -> list[EntryRef]:
        """The bookmarked entries the index has (one deleted on disk is left out, kept)."""
        if self.index is None:
            return []
        return [r for i in self.session.bookmarks if (r := self.index.entry_ref(i)) is not None]

    def _sync_state(self) -> None:
        """Take in what another window on this vault saved (bookmarks, recent entries) since
        this one last looked: asked when the window is activated and every STATE_POLL_MS."""
        marks, recent = self.session.sync()
        if marks:
            self._show_bookmarks()
        if recent:
            self.switcher.set_recent(self.session.recent)

    # -- dialogs, search -------------------------------------------------------------------
    def open_switcher(self) -> None:
        self.switcher.open_switcher()

    def palette_actions(self) -> list[QAction]:
        """Every command the palette offers: the menus', the window's and the graph's."""
        return actions.palette_actions(self)

    def open_command_palette(self) -> None:
        self.command_palette.open_palette(self.palette_actions())

    def open_find_path(self, a: str | None = None, b: str | None = None) -> PathFinderDialog:
        """The path finder, with ``a`` (a node's "Path to…") or the current entry as From."""
        return actions.open_find_path(self, a, b)

    def search(self, query: str) -> None:
        self.search_dock.show()
        self.search_panel.search(query)

    def show_problems(self) -> None:
        if self.index is not None:
            self.problems_dialog.set_problems(self.index.problems())
        self.problems_dialog.show()
        self.problems_dialog.raise_()

    def open_demo(self, name: str) -> None:
        """Open an embedded demo in a dock beside the entry."""
        self.docks.open_demo(name)

    # -- print and export ----------------------------------------------------------------
    def print_entry(self) -> None:
        """File › Print…: the entry as shown, on a printer the reader picks."""
        print_export.ask_and_print(self, self.tabs.document())

    def export_pdf(self, path: Path | None = None) -> Path | None:
        """Export as PDF… (asks where when ``path`` is None); the file written."""
        return print_export.ask_and_export(
            self, self.tabs.document(), "pdf", path, self.current_id()
        )

    def export_html(self, path: Path | None = None) -> Path | None:
        """Export as HTML… (asks where when ``path`` is None); the file written."""
        return print_export.ask_and_export(
            self, self.tabs.document(), "html", path, self.current_id()
        )

    # -- reading settings, theme -------------------------------------------------------
    def set_reading(self, settings: ReadingSettings) -> None:
        """Apply reading settings to every tab's pane at once, and keep them (app-wide)."""
        actions.apply_reading(self, settings)

    def open_preferences(self) -> None:
        actions.open_preferences(self)

    @property
    def theme(self) -> str:
        return self.themes.theme

    def set_theme(self, theme: str) -> None:
        """Restyle the window; every widget that follows ``themeChanged`` restyles itself."""
        self.themes.set_theme(theme)

    def _on_theme_changed(self, theme: str) -> None:
        (self.act_dark if theme == "dark" else self.act_light).setChecked(True)
        self.settings.setValue("theme", theme)

    # -- user state, shutting down -------------------------------------------------------
    def save_positions(self) -> None:
        if self.state is not None and self.graph is not None and (pos := self.graph.positions()):
            self.state.save_positions(pos, self.graph.pinned_ids())

    def _on_state_problem(self, message: str) -> None:
        print(f"anthology: {message}", file=sys.stderr)
        self.statusBar().showMessage(f"User state: {message}", 15000)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self._sync_state()  # back from another window, perhaps on this vault

    def closeEvent(self, event: QCloseEvent) -> None:
        """Quit without waiting on background work: every task is cancelled first, all at
        once, then what the reader did is saved; a task still busy after QUIT_WAIT is left
        to end with the process (an index refresh is one SQLite transaction: a cut one is
        rolled back on the next start)."""
        self.previews.hide()
        self.navigation.shutdown()
        self.live.shutdown()
        self.surroundings.shutdown()
        self.neighbours.shutdown()
        if self.docks.demo is not None:
            self.docks.demo.shutdown(timeout=0)
        self.docks.save_layout(self.settings)
        self.settings.setValue("theme", self.theme)
        self.settings.sync()
        self._close_vault(quitting=True)
        if self.graph is not None:
            self.graph.shutdown()
        gc.unfreeze()  # what the window held can be collected again (see _freeze_heap)
        super().closeEvent(event)
