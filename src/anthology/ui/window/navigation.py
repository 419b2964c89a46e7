"""The tabs and moving between documents: a new tab, closing one, back and forward in a
tab's history (the mouse's side buttons too), a document of another kind than an entry
opened (:meth:`Navigation.open_document`, see ui/common/document.py), a tab shown again,
the tabs saved and put back (through the session, :class:`~anthology.session.ReaderSession`).

A tab shows its entry once it is first shown (ten restored tabs do not cost ten renders);
one whose entry changed on disk while it was in the background is rendered again when next
shown, where the reader was in it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QWidget

from anthology.session import Changes, Visit
from anthology.session.moves import moved_entries
from anthology.ui.common.document import (
    ENTRY,
    DocumentView,
    GraphFed,
    OpenVault,
    document_kind,
)
from anthology.ui.graph import tab_kind  # noqa: F401  (registers the graph tab's kind)
from anthology.ui.reading.entry_pane import BACKGROUND_RENDER_CHARS, EntryPane
from anthology.ui.reading.entry_tabs import EntryTabs
from anthology.vault import EntryRef
from anthology.vault.render.safe_text import plain_text

if TYPE_CHECKING:
    from anthology.ui.window.main_window import MainWindow

TABS_SAVE_MS = 1500  # the open tabs are saved this long after the reader last moved


class Navigation(QObject):
    """The tabs of ``win`` (:attr:`tabs`) and the moves between entries."""

    def __init__(self, win: MainWindow) -> None:
        super().__init__(win)
        self.win = win
        self.stale: set[int] = set()  # id() of background tabs whose entry changed
        # the entry the reader was last on, in any tab: what a timeline opened in a new tab
        # (the active tab then, showing no entry) rings
        self.last_entry: str | None = None
        self.save_timer = QTimer(self, singleShot=True, interval=TABS_SAVE_MS)
        self.save_timer.timeout.connect(self.save_tabs)
        self.tabs = EntryTabs(self._new_view)
        self.tabs.paneChanged.connect(self.on_pane_changed)
        self.tabs.tabBar().tabMoved.connect(lambda _a, _b: self.save_timer.start())
        if (app := QApplication.instance()) is not None:  # (always: a window needs one)
            app.installEventFilter(self)  # the mouse's back and forward

    def _new_view(self, kind: str) -> DocumentView:
        """A view of a kind of document for a tab (see ui/common/document.py): an entry
        pane wired to the window, or a registered kind's view in the window's looks."""
        if kind == ENTRY:
            return self._new_pane()
        found = document_kind(kind)
        if found is None:
            raise KeyError(f"no kind of document “{kind}”")
        win, view = self.win, found.make()
        view.set_theme(win.theme)
        view.set_reading(win.reading.style, readable=win.reading.readable,
                         width=win.reading.width)  # fmt: skip
        win.themes.themeChanged.connect(view.set_theme)
        # a kind whose documents link to entries (a base's cells) says so with this signal
        if (links := getattr(view, "entryLinkActivated", None)) is not None:
            links.connect(win.follow_link)
        if (vault := self.open_vault()) is not None:
            view.attach_vault(vault)
        if isinstance(view, GraphFed):
            win.surroundings.feed(view)  # the graph tab: the graph the window has loaded
        # a view that marks the entry the reader is on (the timeline) follows it
        if (follow := getattr(view, "follow_entry", None)) is not None:
            follow(win.current_id() or self.last_entry)
        # A view that links to entries and documents (a canvas's cards) says so by signals.
        if (asked := getattr(view, "entryRequested", None)) is not None:
            asked.connect(lambda entry_id, heading, new_tab: self.open_in_new_tab(entry_id, heading)
                          if new_tab else win.show_entry(entry_id, heading=heading))  # fmt: skip
        if (asked := getattr(view, "documentRequested", None)) is not None:
            asked.connect(lambda kind, rel, new_tab: self.open_document(kind, rel, new_tab=new_tab))
        if (hovered := getattr(view, "linkHovered", None)) is not None:  # a page preview
            hovered.connect(
                lambda target, frag, ctrl: win.previews.hover(target, frag, immediate=ctrl)
            )
            view.linkLeft.connect(win.previews.leave)  # type: ignore[attr-defined]
        return view

    def open_vault(self) -> OpenVault | None:
        """The vault the views read (None: no index yet)."""
        win = self.win
        if win.index is None:
            return None
        return OpenVault(win.index.root, win.index, win.render_reader)

    def _new_pane(self) -> EntryPane:
        """A pane for a new tab, wired to the window (every tab's pane is wired so)."""
        win = self.win
        pane = EntryPane()
        pane.background_render_chars = BACKGROUND_RENDER_CHARS  # long: off-thread
        pane.entryLinkActivated.connect(win.follow_link)
        pane.entryLinkActivatedNewTab.connect(self.open_in_new_tab)
        pane.tagActivated.connect(lambda tag: win.search(f"tag:{tag}"))
        pane.demoRequested.connect(win.open_demo)
        pane.documentRequested.connect(  # a link to a PDF, a canvas, a drawing…
            lambda kind, rel, new_tab: self.open_document(kind, rel, new_tab=new_tab)
        )
        pane.unresolvedLinkActivated.connect(
            lambda text: win.statusBar().showMessage(f"“{text}” is not an entry yet", 4000)
        )
        # the page preview of a hovered link (ui/reading/page_preview.py), not a tooltip
        pane.linkHovered.connect(
            lambda target, frag, ctrl: win.previews.hover(target, frag, immediate=ctrl)
        )
        pane.linkLeft.connect(win.previews.leave)
        pane.renderFinished.connect(lambda entry_id: win.finding.page_rendered(pane, entry_id))
        pane.folderActivated.connect(lambda path: win.finding.reveal_folder(path))
        pane.statusMessage.connect(
            lambda text, ms: (
                win.statusBar().showMessage(text, ms) if text else win.statusBar().clearMessage()
            )
        )
        # the page of a link pointed at is made before the click (as show_entry reads it)
        pane.fetch_entry = win.entry_for_pane
        pane.set_theme(win.theme)
        pane.set_reading(win.reading.style, readable=win.reading.readable,
                         width=win.reading.width)  # fmt: skip
        win.themes.themeChanged.connect(pane.set_theme)
        if win.index is not None:
            pane.set_vault(win.index, win.index.root, reader=win.render_reader)
        return pane

    # -- tabs ------------------------------------------------------------------------------
    def open_in_new_tab(self, entry_id: str, heading: str = "") -> bool:
        """Open ``entry_id`` (at ``heading``) in a new tab after the active one, and show
        that tab; the tab left keeps its entry, place and history."""
        win = self.win
        if win.index is None:
            return win.show_entry(entry_id, heading=heading)
        if win.index.entry_ref(entry_id) is None:
            win.statusBar().showMessage(f"No entry “{plain_text(entry_id, 120)}”", 5000)
            return False
        self.tabs.add_tab()
        return win.show_entry(entry_id, heading=heading)

    def new_tab(self) -> None:
        """Ctrl+T: a new tab on the current entry (the home entry when there is none)."""
        win = self.win
        target = win.current_id() or (win.index.home_id() if win.index else None)
        if target:
            self.open_in_new_tab(target)
        else:
            self.tabs.add_tab()

    def close_tab(self) -> None:
        """Ctrl+W: close the active tab (the last one stays: there is always an entry)."""
        if self.tabs.count() > 1:
            self.tabs.close_tab(self.tabs.currentIndex())
            self.save_timer.start()
        else:
            self.win.statusBar().showMessage("The last tab stays open", 3000)

    # -- documents of other kinds than an entry ---------------------------------------------
    def open_document(self, kind: str, ref: str, *, new_tab: bool = False, push: bool = True,
                      scroll: int | None = None) -> bool:  # fmt: skip
        """Open document ``ref`` of ``kind`` (see ui/common/document.py) in the active tab
        (a new one with ``new_tab``), in its history beside the entries."""
        win = self.win
        if kind == ENTRY:
            if new_tab:
                return self.open_in_new_tab(ref)
            return win.show_entry(ref, push=push, scroll=scroll)
        if document_kind(kind) is None:
            win.statusBar().showMessage(f"Anthology cannot show a “{plain_text(kind, 40)}”", 5000)
            return False
        if new_tab:
            self.tabs.add_tab()
        view = self.tabs.tab().open(kind, ref, push=push, scroll=scroll)
        if view is None:
            if new_tab:  # the tab made for it goes again
                self.tabs.close_tab(self.tabs.currentIndex())
            win.statusBar().showMessage(f"Cannot open “{plain_text(ref, 120)}”", 5000)
            return False
        self.document_follows(view)
        win.ready = True
        return True

    def panels_follow(self, pane: EntryPane, ref: EntryRef) -> None:
        """The backlinks, graph, outline, explorer, tab title and window title follow the
        entry ``pane`` (the active tab's) shows."""
        win = self.win
        win.previews.hide()  # a preview over the page left is stale
        win.find_bar.attach(pane)
        win.session.visited(ref.id)
        win.switcher.set_recent(win.session.recent)
        win.act_bookmark.setChecked(win.session.is_bookmarked(ref.id))
        win.surroundings.show_backlinks(ref.id)
        self.last_entry = ref.id
        win.neighbours.follow(ref.id)
        if win.graph is not None:
            win.graph.set_current(ref.id)
        for view in self.tabs.views():  # the timeline tabs ring it
            if (follow := getattr(view, "follow_entry", None)) is not None:
                follow(ref.id)
        if win.outline is not None and win.explorer is not None:
            win.outline.follow(pane)
            win.explorer.follow(ref.id)
        self.show_titles(pane, ref)
        self.update_actions()
        self.save_timer.start()
        win.settings.setValue(f"lastEntry/{win.vault_key()}", ref.id)

    def show_tab_title(self, pane: EntryPane, ref: EntryRef) -> None:
        """The tab's title says the entry ``pane`` shows, with a ★ when it is bookmarked."""
        mark = "★ " if self.win.session.is_bookmarked(ref.id) else ""
        bookmarked = "\nBookmarked" if mark else ""
        self.tabs.set_title(pane, mark + ref.short_label, f"{ref.label}\n{ref.path}{bookmarked}")

    def show_titles(self, pane: EntryPane, ref: EntryRef) -> None:
        """The tab's and the window's titles say the entry ``pane`` shows."""
        win = self.win
        self.show_tab_title(pane, ref)
        # Window titles are plain text, but an RTL override would reverse the rest of it and
        # a 100,000-character title helps no one: cut, controls removed.
        win.setWindowTitle(
            f"{plain_text(ref.id, 120)} — {plain_text(ref.title, 160)} — "
            f"{plain_text(win.root.name, 80) if win.root else ''} — Anthology"
        )

    def document_follows(self, view: DocumentView) -> None:
        """The tab title, window title and navigation follow a document that is not an
        entry (the entry panels keep the last entry shown)."""
        win = self.win
        win.previews.hide()
        win.find_bar.attach(view)
        self.tabs.set_title(view, view.title(), view.tooltip(), view.icon())
        self.update_actions()
        self.save_timer.start()
        vault = plain_text(win.root.name, 80) if win.root else ""
        win.setWindowTitle(f"{plain_text(view.title(), 160)} — {vault} — Anthology")

    def document_exists(self, kind: str, ref: str) -> bool:
        """Whether a restored tab's document of another kind than an entry is still there."""
        found, vault = document_kind(kind), self.open_vault()
        return found is not None and vault is not None and found.exists(vault, ref)

    # -- what a refresh changed ------------------------------------------------------------
    def follow_moves(self, changes: Changes) -> Changes:
        """Notes renamed or moved on disk (session/moves.py): the session's bookmarks and
        recent entries and every tab's history follow them; ``changes`` with its moves."""
        win = self.win
        if not changes.removed or win.index is None:
            return changes
        known = {e.id: e.body for p in self.tabs.panes() if (e := p.shown_entry)}
        moves = moved_entries(changes, win.index, known)
        if not moves:
            return changes
        win.session.follow_moves(moves)
        win.switcher.set_recent(win.session.recent)
        for i in range(self.tabs.count()):
            self.tabs.tab(i).history.follow_moves(moves)
        return replace(changes, moved=tuple(moves.items()))

    def reading_changed(self, changes: Changes) -> None:
        """The tabs and the backlinks: the open entry rendered again if it changed (where the
        reader was in it), another shown if it was deleted; other tabs when next shown."""
        win = self.win
        index, current = win.index, win.current_id()
        assert index is not None
        shown = win.tabs.document()
        if shown.kind != ENTRY:
            # another kind of document is shown: its entries follow when shown again; a
            # kind that reads the whole index (a base) is asked again now
            if (again := getattr(shown, "index_changed", None)) is not None:
                again()
            return
        if current is None:
            win.show_first_entry()
            return
        what = win.session.after_refresh(changes, current, index)
        if what == "moved" and (new := changes.new_id(current)) is not None:
            win.statusBar().showMessage(
                f"{plain_text(current, 120)} was renamed on disk: now {plain_text(new, 120)}", 6000
            )
            win.show_entry(new, push=False, keep_scroll=True)
            self.save_timer.start()
            return
        if what == "keep" and win.entry_pane.ran_query:
            what = "render"  # a base in the page: its rows may be among what changed
        if what == "deleted":
            win.statusBar().showMessage(f"{current} was deleted on disk", 6000)
            win.go_home()
            return
        if what == "render" and (entry := win.entry_for_pane(current)) is not None:
            if win.graph is not None:
                win.graph.hold_layout()  # the GIL is the pane's until it is painted
            pane = win.entry_pane
            pane.show_entry(entry, keep_scroll=True)
            if pane.isVisible() and not pane.rendering:
                pane.viewport().repaint()  # the edit is seen now, the backlinks follow
            if win.outline is not None:
                win.outline.follow(pane)
            # its title may be new (the graph is told by the views, if anything of it changed)
            self.show_titles(pane, EntryRef(entry.id, entry.title, entry.path))
        win.surroundings.show_backlinks(current)

    def changed(self, changes: Changes) -> None:
        """Background tabs whose entry changed are rendered again when next shown."""
        active = self.tabs.pane()
        for pane in self.tabs.panes():
            if pane is not active and changes.touches(pane.current_entry_id):
                self.stale.add(id(pane))

    def on_pane_changed(self, pane: EntryPane) -> None:
        """Another tab is active: show its entry if it was not shown yet (a restored tab)
        or changed on disk meanwhile, and make the panels follow it."""
        win = self.win
        if win.index is None:
            return
        tab = self.tabs.tab_of(pane)
        visit = tab.history.current
        if visit is not None and visit.kind != ENTRY:  # another kind of document
            if tab.current.document_id() != visit.entry_id or tab.current.kind != visit.kind:
                self.open_document(visit.kind, visit.entry_id, push=False, scroll=visit.scroll)
            else:
                self.document_follows(tab.current)
            return
        stale = id(pane) in self.stale
        self.stale.discard(id(pane))
        if visit is not None and (pane.current_entry_id is None or stale):
            if win.index.entry_ref(visit.entry_id) is None:  # deleted meanwhile
                win.go_home()
                return
            scroll = pane.verticalScrollBar().value() if stale else visit.scroll
            win.show_entry(visit.entry_id, push=False, keep_scroll=stale, scroll=scroll)
            return
        ref = win.index.entry_ref(pane.current_entry_id) if pane.current_entry_id else None
        if ref is not None:
            self.panels_follow(pane, ref)
        else:
            if win.outline is not None:
                win.outline.follow(pane)
            self.update_actions()

    def restore_tabs(self) -> bool:
        """Put back the tabs the session kept; False if there were none. The active one is
        shown; the others when first clicked."""
        index = self.win.index
        assert index is not None
        restored = self.win.session.restore_tabs(index, self.document_exists)
        if restored is None:
            return False
        self.tabs.blockSignals(True)  # the active one is shown once, below
        try:
            first, *others = restored.histories
            self.tabs.set_history(self.tabs.reset(), first)
            for n, history in enumerate(others, start=1):
                self.tabs.add_tab(at=n, activate=False, history=history)
            for pane in self.tabs.panes():
                visit = self.tabs.history(pane).current
                ref = index.entry_ref(visit.entry_id) if visit and visit.kind == ENTRY else None
                if visit is not None and visit.kind != ENTRY:
                    self.tabs.set_title(pane, Path(visit.entry_id).name, visit.entry_id)
                elif ref is not None:
                    self.tabs.set_title(pane, ref.short_label, f"{ref.label}\n{ref.path}")
            self.tabs.setCurrentIndex(restored.active)
        finally:
            self.tabs.blockSignals(False)
        self.on_pane_changed(self.tabs.pane())
        return self.tabs.document().document_id() is not None

    def save_tabs(self) -> None:
        """Keep the open tabs (each one's history and reading positions) in the user state."""
        if self.win.index is None:
            return
        panes = self.tabs.panes()
        for pane in panes:
            tab = self.tabs.tab_of(pane)
            visit, shown = tab.history.current, tab.current
            if visit is not None and (shown.kind, shown.document_id()) == (
                visit.kind,
                visit.entry_id,
            ):
                tab.history.leave(shown.scroll_position())
        histories = [self.tabs.history(pane) for pane in panes]
        self.win.session.save_tabs(histories, panes.index(self.tabs.pane()))
        self.win.switcher.set_recent(self.win.session.recent)

    def reset(self) -> None:
        """The vault closes: one empty tab (its tabs were saved)."""
        self.save_timer.stop()
        self.tabs.reset()
        self.stale.clear()

    # -- back and forward ----------------------------------------------------------------------
    def go_back(self) -> None:
        """Back in the active tab's history, to where the reader was in that document."""
        tab = self.tabs.tab()
        self._show(tab.history.back(leaving_scroll=tab.current.scroll_position()))

    def go_forward(self) -> None:
        tab = self.tabs.tab()
        self._show(tab.history.forward(leaving_scroll=tab.current.scroll_position()))

    def _show(self, visit: Visit | None) -> None:
        if visit is not None:
            self.open_document(visit.kind, visit.entry_id, push=False, scroll=visit.scroll)
        self.update_actions()

    def update_actions(self) -> None:
        win, history = self.win, self.tabs.history()
        win.act_back.setEnabled(history.can_go_back)
        win.act_forward.setEnabled(history.can_go_forward)
        win.act_close_tab.setEnabled(self.tabs.count() > 1)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        # The mouse's back and forward buttons, anywhere in the window.
        if (
            event.type() == QEvent.Type.MouseButtonPress
            and isinstance(event, QMouseEvent)
            and isinstance(obj, QWidget)
            and obj.window() is self.win
        ):
            button = event.button()
            if button == Qt.MouseButton.BackButton:
                self.go_back()
                return True
            if button == Qt.MouseButton.ForwardButton:
                self.go_forward()
                return True
        return super().eventFilter(obj, event)

    def shutdown(self) -> None:
        if (app := QApplication.instance()) is not None:
            app.removeEventFilter(self)
        self.save_timer.stop()
