"""Tabs of entries in the middle of the window: one :class:`EntryPane` a tab, each with its
own back/forward history (:class:`TabHistory`).

A tab keeps its pane (and so its rendered page and scroll position) while it is open, so
switching tabs costs no render. Tabs restored from the user state are made empty and
filled when first shown (the window asks for that through :attr:`EntryTabs.paneChanged`):
ten restored tabs do not cost ten renders at start-up.

The history is plain data: a list of :class:`Visit` (an entry and the reading position in
it, saved when the reader leaves it) and where in the list the reader is. It is what the
user state keeps of the tabs (``reader.tabs``, see :mod:`anthology.user_state`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QTabBar, QTabWidget, QWidget

from anthology.ui.reading.entry_pane import EntryPane
from anthology.vault.render.safe_text import plain_text, tooltip_html

MAX_VISITS_KEPT = 50  # a tab's history as saved: the visits around where the reader is
TAB_TEXT_PX = 180  # a tab's title is elided past this width (the whole is its tooltip)


@dataclass
class Visit:
    """One step of a tab's history: an entry and where the reader was in it."""

    entry_id: str
    scroll: int = 0  # the pane's vertical scroll value when the reader left the entry


class TabHistory:
    """A tab's back/forward history, as a browser keeps it: going somewhere new drops what
    was ahead; the reading position of the entry left is kept in its visit."""

    def __init__(self, visits: list[Visit] | None = None, pos: int = -1) -> None:
        self.visits: list[Visit] = list(visits or [])
        self.pos = min(max(pos, -1), len(self.visits) - 1)
        if self.visits and self.pos < 0:
            self.pos = len(self.visits) - 1

    @property
    def current(self) -> Visit | None:
        return self.visits[self.pos] if 0 <= self.pos < len(self.visits) else None

    @property
    def can_go_back(self) -> bool:
        return self.pos > 0

    @property
    def can_go_forward(self) -> bool:
        return self.pos < len(self.visits) - 1

    def ids(self) -> list[str]:
        return [v.entry_id for v in self.visits]

    def leave(self, scroll: int) -> None:
        """Note where the reader is in the current entry (they are about to leave it)."""
        if (visit := self.current) is not None:
            visit.scroll = max(0, int(scroll))

    def push(self, entry_id: str, *, leaving_scroll: int | None = None) -> None:
        """Go to ``entry_id``: it becomes the current visit; what was ahead is dropped."""
        if leaving_scroll is not None:
            self.leave(leaving_scroll)
        del self.visits[self.pos + 1 :]
        self.visits.append(Visit(entry_id))
        self.pos = len(self.visits) - 1

    def back(self, *, leaving_scroll: int | None = None) -> Visit | None:
        if not self.can_go_back:
            return None
        if leaving_scroll is not None:
            self.leave(leaving_scroll)
        self.pos -= 1
        return self.current

    def forward(self, *, leaving_scroll: int | None = None) -> Visit | None:
        if not self.can_go_forward:
            return None
        if leaving_scroll is not None:
            self.leave(leaving_scroll)
        self.pos += 1
        return self.current

    # -- what the user state keeps ----------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        start = max(0, min(self.pos - MAX_VISITS_KEPT // 2, len(self.visits) - MAX_VISITS_KEPT))
        kept = self.visits[start : start + MAX_VISITS_KEPT]
        return {"visits": [[v.entry_id, v.scroll] for v in kept], "pos": self.pos - start}

    @classmethod
    def from_json(cls, data: object, keep: Callable[[str], bool]) -> TabHistory:
        """A history saved by :meth:`to_json`; visits of entries ``keep`` refuses (gone
        since) are dropped, and anything malformed is ignored, never raised."""
        if not isinstance(data, dict):
            return cls()
        raw = data.get("visits")
        pos = data.get("pos")
        pos = pos if isinstance(pos, int) else -1
        visits: list[Visit] = []
        new_pos = -1
        for i, item in enumerate(raw if isinstance(raw, list) else []):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
                continue
            scroll = item[1] if isinstance(item[1], int) and item[1] >= 0 else 0
            if not keep(item[0]):
                continue
            if visits and visits[-1].entry_id == item[0]:  # a gone entry joined two visits
                visits[-1].scroll = scroll
            else:
                visits.append(Visit(item[0], scroll))
            if i <= pos:
                new_pos = len(visits) - 1
        return cls(visits, new_pos if new_pos >= 0 else len(visits) - 1)


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
