"""The entry's neighbours by content and by relation: the Related entries and Relations
docks, on the right beside the graph, tabbed together and hidden until asked for (View
menu). They follow the entry the active tab shows, as the backlinks do, but only while in
view: a hidden dock asks nothing, and catches up when it is shown.

Related entries are asked on a worker through a read-only reader of the index of their own
(interrupted when another entry is opened, closed with the vault); the ladder is a few
indexed queries, asked on the GUI thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow

from anthology.session import Changes
from anthology.ui.panels.ladder_panel import LadderPanel
from anthology.ui.panels.related_panel import RelatedPanel
from anthology.vault import VaultIndex
from anthology.vault.related import RelatedEntries

if TYPE_CHECKING:
    from anthology.ui.reading.page_preview import PreviewController


class Reader(Protocol):
    """What the docks ask of the window beside its dock area: the index, the entry read,
    how to open one, and the page preview (whose related section shares their reader)."""

    @property
    def index(self) -> VaultIndex | None: ...

    @property
    def previews(self) -> PreviewController: ...

    def current_id(self) -> str | None: ...

    def show_entry(self, entry_id: str) -> bool: ...

    def open_in_new_tab(self, entry_id: str) -> bool: ...


RIGHT = Qt.DockWidgetArea.RightDockWidgetArea


class Neighbours(QObject):
    """The Related entries and Relations docks of ``win``."""

    def __init__(self, win: QMainWindow, reader: Reader) -> None:
        super().__init__(win)
        self.win = reader
        self.related = RelatedPanel()
        self.ladder = LadderPanel()
        for panel in (self.related, self.ladder):
            panel.entryActivated.connect(reader.show_entry)
            panel.entryActivatedNewTab.connect(reader.open_in_new_tab)
        self.related_dock = QDockWidget("Related", win)
        self.related_dock.setObjectName("relatedDock")
        self.related_dock.setWidget(self.related)
        self.ladder_dock = QDockWidget("Relations", win)
        self.ladder_dock.setObjectName("ladderDock")
        self.ladder_dock.setWidget(self.ladder)
        win.addDockWidget(RIGHT, self.related_dock)
        win.tabifyDockWidget(self.related_dock, self.ladder_dock)
        self.act_related = self.related_dock.toggleViewAction()
        self.act_related.setText("&Related Entries")
        self.act_related.setStatusTip("Show or hide the entries alike in words to this one")
        self.act_ladder = self.ladder_dock.toggleViewAction()
        self.act_ladder.setText("Re&lations")
        self.act_ladder.setStatusTip("Show or hide this entry's typed relations and chains")
        for act, dock in ((self.act_related, self.related_dock),
                          (self.act_ladder, self.ladder_dock)):  # fmt: skip
            # shown from the menu, a dock tabbed with the other comes to the front
            act.triggered.connect(lambda on, d=dock: on and QTimer.singleShot(0, d.raise_))
        for dock in (self.related_dock, self.ladder_dock):
            dock.hide()
            dock.visibilityChanged.connect(self._shown)
        self._reader: tuple[VaultIndex, VaultIndex] | None = None  # (index, its reader)
        # The page preview's section of related entries asks a reader of its own: a
        # superseded section is interrupted without touching the panel's question.
        self._preview_reader: tuple[VaultIndex, VaultIndex] | None = None
        self._ladder_of: str | None = None  # the entry the ladder shows

    # -- following the entry ---------------------------------------------------------------
    def follow(self, entry_id: str) -> None:
        """The active tab shows ``entry_id``: the docks in view show its neighbours."""
        win = self.win
        index = win.index
        if index is None:
            return
        if self.ladder_dock.isVisible() and self._ladder_of != entry_id:
            self._ladder_of = entry_id
            try:
                self.ladder.show_ladder(index.ladder(entry_id))
            except sqlite3.Error as exc:  # a closed or replaced index: said, not raised
                self.ladder.show_ladder(None, f"Could not read the relations: {exc}")
        if self.related_dock.isVisible():
            reader = self._reader_of(index)
            self.related.ask_for(entry_id, reader.related, reader.interrupt)

    def _shown(self, shown: bool) -> None:
        if shown:
            self.catch_up()

    def catch_up(self) -> None:
        """A dock came into view: it shows the entry read now."""
        if (current := self.win.current_id()) is not None:
            self.follow(current)

    def _reader_of(self, index: VaultIndex) -> VaultIndex:
        if self._reader is None or self._reader[0] is not index:
            self.detach()
            self._reader = (index, index.reader())
        return self._reader[1]

    def preview_asker(self) -> tuple[Callable[[str], RelatedEntries | None],
                                     Callable[[], None]] | None:  # fmt: skip
        """How the page preview asks its section of related entries (on its worker) and
        interrupts it (from the GUI thread); None without an index."""
        index = self.win.index
        if index is None:
            return None
        if self._preview_reader is None or self._preview_reader[0] is not index:
            self._close_preview_reader()
            self._preview_reader = (index, index.reader())
        reader = self._preview_reader[1]
        return reader.related, reader.interrupt

    def _close_preview_reader(self) -> None:
        if self._preview_reader is not None:
            self._preview_reader[1].interrupt()
            self.win.previews.stop_related()  # its question ended before its reader closes
            self._preview_reader[1].close()
            self._preview_reader = None

    # -- what a refresh changed, the vault closing ---------------------------------------
    def changed(self, changes: Changes) -> None:
        """The index changed: both are asked again (now, for the docks in view)."""
        self._ladder_of = None
        self.related.forget()
        self.catch_up()

    def detach(self) -> None:
        """The vault closes (or its index is replaced): the question out is let end and
        the reader closed."""
        if self._reader is not None:
            self._reader[1].interrupt()
        self.related.stop()
        self._ladder_of = None
        if self._reader is not None:
            self._reader[1].close()
            self._reader = None
        self._close_preview_reader()

    def clear(self) -> None:
        self.detach()
        self.related.clear()
        self.ladder.clear()

    def shutdown(self) -> None:
        """Quitting: a question running is interrupted."""
        for kept in (self._reader, self._preview_reader):
            if kept is not None:
                kept[1].interrupt()
        self.related.forget()
