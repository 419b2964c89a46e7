"""Tabs of entries in the middle of the window: one :class:`EntryPane` a tab, each with its
own back/forward history (:class:`TabHistory`).

A tab keeps its pane (and so its rendered page and scroll position) while it is open, so
switching tabs costs no render. Tabs restored from the user state are made empty and
filled when first shown (the window asks for that through :attr:`EntryTabs.paneChanged`):
ten restored tabs do not cost ten renders at start-up.

The history is plain data, free of Qt (:mod:`anthology.session.history`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QTabBar, QTabWidget, QWidget

from anthology.session.history import TabHistory
from anthology.ui.reading.entry_pane import EntryPane
from anthology.vault.render.safe_text import plain_text, tooltip_html

TAB_TEXT_PX = 180  # a tab's title is elided past this width (the whole is its tooltip)


class EntryTabs(QTabWidget):
    """The entry area: closable, movable tabs of entry panes; a single tab looks like a
    title bar over the pane, as in Obsidian. ``make_pane`` makes (and wires) a new pane."""

    paneChanged = Signal(object)  # the active EntryPane (after a switch, an open or a close)

    def __init__(self, make_pane: Callable[[], EntryPane], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("entryTabs")
        self._make_pane = make_pane
        self._histories: dict[int, TabHistory] = {}  # id(pane) → its history
        self.setDocumentMode(True)
        self.setTabsClosable(True)
        self.setMovable(True)
        self.setUsesScrollButtons(True)
        self.setElideMode(Qt.TextElideMode.ElideRight)
        self.tabBar().setExpanding(False)
        self.tabCloseRequested.connect(self.close_tab)
        self.tabBar().installEventFilter(self)  # a middle-click on a tab closes it
        self.currentChanged.connect(self._on_current_changed)
        self.add_tab()

    # -- panes and histories ------------------------------------------------------------------
    def pane(self, i: int | None = None) -> EntryPane:
        """The pane of tab ``i`` (default: the active one)."""
        widget = self.widget(self.currentIndex() if i is None else i)
        assert isinstance(widget, EntryPane)
        return widget

    def panes(self) -> list[EntryPane]:
        return [self.pane(i) for i in range(self.count())]

    def history(self, pane: EntryPane | None = None) -> TabHistory:
        return self._histories[id(pane or self.pane())]

    def set_history(self, pane: EntryPane, history: TabHistory) -> None:
        self._histories[id(pane)] = history

    def add_tab(
        self, *, at: int | None = None, activate: bool = True, history: TabHistory | None = None
    ) -> EntryPane:
        """A new, empty tab (after the active one unless ``at`` says where)."""
        pane = self._make_pane()
        self._histories[id(pane)] = history or TabHistory()
        where = self.currentIndex() + 1 if at is None else at
        i = self.insertTab(where if self.count() else 0, pane, "New tab")
        self.setTabToolTip(i, "New tab")
        if activate:
            self.setCurrentIndex(i)
        return pane

    def close_tab(self, i: int) -> None:
        """Close tab ``i``; the last tab is never closed (it is emptied by the window)."""
        if self.count() <= 1 or not 0 <= i < self.count():
            return
        pane = self.pane(i)
        self.removeTab(i)  # currentChanged (and so paneChanged) follows if it was active
        self._histories.pop(id(pane), None)
        pane.clear_entry()
        pane.deleteLater()

    def reset(self) -> EntryPane:
        """One empty tab (another vault opens)."""
        while self.count() > 1:
            self.close_tab(self.count() - 1)
        pane = self.pane(0)
        pane.clear_entry()
        self._histories[id(pane)] = TabHistory()
        self.set_title(pane, "New tab")
        return pane

    def set_title(self, pane: EntryPane, label: str, tooltip: str | None = None) -> None:
        i = self.indexOf(pane)
        if i < 0:
            return
        text = plain_text(label, 200)
        shown = self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, TAB_TEXT_PX)
        self.setTabText(i, shown.replace("&", "&&"))  # "&" is not a mnemonic here
        self.setTabToolTip(i, tooltip_html(tooltip or label, 500))

    def cycle(self, step: int) -> None:
        """Ctrl+Tab (step 1) and Ctrl+Shift+Tab (step -1): the next or previous tab, round."""
        if self.count() > 1:
            self.setCurrentIndex((self.currentIndex() + step) % self.count())

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            obj is self.tabBar()
            and event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.MiddleButton
        ):
            i = self.tabBar().tabAt(event.position().toPoint())
            if i >= 0:
                self.close_tab(i)
                return True
        return super().eventFilter(obj, event)

    # A lone tab has no close button: the entry area is never empty.
    def tabInserted(self, index: int) -> None:
        super().tabInserted(index)
        self._show_close_buttons()

    def tabRemoved(self, index: int) -> None:
        super().tabRemoved(index)
        self._show_close_buttons()

    def _show_close_buttons(self) -> None:
        bar = self.tabBar()
        for i in range(self.count()):
            for side in (QTabBar.ButtonPosition.RightSide, QTabBar.ButtonPosition.LeftSide):
                if (button := bar.tabButton(i, side)) is not None:
                    button.setVisible(self.count() > 1)

    def _on_current_changed(self, i: int) -> None:
        if i >= 0:
            self.paneChanged.emit(self.pane(i))
