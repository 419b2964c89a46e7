"""The entry tabs and moving between entries: a new tab, closing one, back and forward in
a tab's history (the mouse's side buttons too), a tab shown again, the tabs saved and put
back (through the session, :class:`~anthology.session.ReaderSession`).

A tab shows its entry once it is first shown (ten restored tabs do not cost ten renders);
one whose entry changed on disk while it was in the background is rendered again when next
shown, where the reader was in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from anthology.session import Changes, Visit
from anthology.ui.reading.entry_pane import BACKGROUND_RENDER_CHARS, EntryPane
from anthology.ui.reading.entry_tabs import EntryTabs
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
        self.save_timer = QTimer(self, singleShot=True, interval=TABS_SAVE_MS)
        self.save_timer.timeout.connect(self.save_tabs)
        self.tabs = EntryTabs(self._new_pane)
        self.tabs.paneChanged.connect(self.on_pane_changed)
        self.tabs.tabBar().tabMoved.connect(lambda _a, _b: self.save_timer.start())
        self._app().installEventFilter(self)  # the mouse's back and forward

    @staticmethod
    def _app() -> QCoreApplication:
        app = QApplication.instance()
        assert app is not None  # a window needs one
        return app

    def _new_pane(self) -> EntryPane:
        """A pane for a new tab, wired to the window (every tab's pane is wired so)."""
        win = self.win
        pane = EntryPane()
        pane.background_render_chars = BACKGROUND_RENDER_CHARS  # long: off-thread
        pane.entryLinkActivated.connect(win.follow_link)
        pane.entryLinkActivatedNewTab.connect(self.open_in_new_tab)
        pane.tagActivated.connect(lambda tag: win.search(f"tag:{tag}"))
        pane.demoRequested.connect(win.open_demo)
        pane.unresolvedLinkActivated.connect(
            lambda text: win.statusBar().showMessage(f"“{text}” is not an entry yet", 4000)
        )
        # the page preview of a hovered link (ui/reading/page_preview.py), not a tooltip
        pane.linkHovered.connect(
            lambda target, frag, ctrl: win.previews.hover(target, frag, immediate=ctrl)
        )
        pane.linkLeft.connect(win.previews.leave)
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
        visit = self.tabs.history(pane).current
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
            win.panels_follow(pane, ref)
        else:
            if win.outline is not None:
                win.outline.follow(pane)
            self.update_actions()

    def restore_tabs(self) -> bool:
        """Put back the tabs the session kept; False if there were none. The active one is
        shown; the others when first clicked."""
        index = self.win.index
        assert index is not None
        restored = self.win.session.restore_tabs(index)
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
                ref = index.entry_ref(visit.entry_id) if visit else None
                if ref is not None:
                    self.tabs.set_title(pane, ref.short_label, f"{ref.label}\n{ref.path}")
            self.tabs.setCurrentIndex(restored.active)
        finally:
            self.tabs.blockSignals(False)
        self.on_pane_changed(self.tabs.pane())
        return self.win.current_id() is not None

    def save_tabs(self) -> None:
        """Keep the open tabs (each one's history and reading positions) in the user state."""
        if self.win.index is None:
            return
        panes = self.tabs.panes()
        for pane in panes:
            history = self.tabs.history(pane)
            if history.current is not None and pane.current_entry_id == history.current.entry_id:
                history.leave(pane.verticalScrollBar().value())
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
        """Back in the active tab's history, to where the reader was in that entry."""
        pane = self.tabs.pane()
        self._show(self.tabs.history(pane).back(leaving_scroll=pane.verticalScrollBar().value()))

    def go_forward(self) -> None:
        pane = self.tabs.pane()
        scroll = pane.verticalScrollBar().value()
        self._show(self.tabs.history(pane).forward(leaving_scroll=scroll))

    def _show(self, visit: Visit | None) -> None:
        if visit is not None:
            self.win.show_entry(visit.entry_id, push=False, scroll=visit.scroll)
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
            and isinstance(obj, QWidget)
            and obj.window() is self.win
        ):
            button = event.button()  # type: ignore[attr-defined]  # a mouse press
            if button == Qt.MouseButton.BackButton:
                self.go_back()
                return True
            if button == Qt.MouseButton.ForwardButton:
                self.go_forward()
                return True
        return super().eventFilter(obj, event)

    def shutdown(self) -> None:
        self._app().removeEventFilter(self)
        self.save_timer.stop()
