"""The timeline in a tab (View › Open Timeline in a Tab, or the graph's toolbar): the vault's
entries by a date property, relations as arcs (:mod:`anthology.ui.graph.timeline_view`).

A :class:`TimelineTab` is a kind of document (:mod:`anthology.ui.common.document`) named
``timeline``; its ``ref`` is the date property it shows (``auto``: the vault's own, see
:func:`anthology.graph.timeline.default_key`). The window feeds it the graph it has loaded
(:class:`~anthology.ui.common.document.GraphFed`), the side graph's filters
(:meth:`follow_graph_settings`) and the entry the reader is on (:meth:`follow_entry`). A
click opens the entry in the tab (Ctrl+click, middle-click: a new tab).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QIcon, QTextDocument
from PySide6.QtWidgets import QVBoxLayout, QWidget

from anthology.ui.common.document import OpenVault
from anthology.ui.graph.tab_refs import AUTO, TIMELINE
from anthology.ui.graph.timeline_view import TimelineView
from anthology.vault.graph_data import GraphData
from anthology.vault.render.reading import ReadingStyle


class TimelineTab(QWidget):
    """A tab showing the timeline (see the module docstring)."""

    kind = TIMELINE
    entryRequested = Signal(str, str, bool)  # entry id, heading, in a new tab

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelineTab")
        self.view = TimelineView(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.view.entryActivated.connect(lambda i: self.entryRequested.emit(i, "", False))
        self.view.entryActivatedNewTab.connect(lambda i: self.entryRequested.emit(i, "", True))
        self._ref: str | None = None
        self._vault: OpenVault | None = None

    # -- from the window ------------------------------------------------------------------
    def feed_graph(
        self, data: GraphData, positions: Mapping[str, tuple[float, float]], vault_key: str
    ) -> None:
        """The vault's graph as the window loaded it (again after a refresh)."""
        lookup = self._vault.lookup if self._vault is not None else None
        file_dates = getattr(lookup, "file_dates", None)  # the index's (VaultIndex)
        self.view.set_graph(data, file_dates=file_dates)

    def follow_graph_settings(self, settings: Mapping[str, Any]) -> None:
        """The side graph's settings: its filters apply here too."""
        self.view.set_graph_settings(settings)

    def follow_entry(self, entry_id: str | None) -> None:
        """The entry the reader is on: ringed, and brought into view."""
        self.view.set_current(entry_id)

    # -- what a tab asks of its document ---------------------------------------------------
    def widget(self) -> QWidget:
        return self

    def document_id(self) -> str | None:
        if self._ref is None:
            return None
        return self.view.key() or self._ref

    def open_document(self, ref: str) -> bool:
        self._ref = ref or AUTO
        if self._ref != AUTO:
            self.view.set_key(self._ref)
        return True

    def title(self) -> str:
        key = self.view.key()
        return f"Timeline: {key}" if key else "Timeline"

    def tooltip(self) -> str:
        return f"{self.title()} — {self.view.status.text()}"

    def icon(self) -> QIcon:
        return QIcon()

    def scroll_position(self) -> int:
        return 0

    def restore_scroll(self, position: int) -> None:
        pass  # the view stays where the reader left it

    def scroll_to(self, anchor: str) -> bool:
        return False

    def find_text(self, text: str, *, backward: bool = False) -> bool:
        """Find in the timeline: its filter keeps the matching entries."""
        self.view.set_query(text)
        return bool(text) and bool(self.view.shown_ids())

    def printable(self) -> QTextDocument | None:
        return None

    def export_html(self) -> str | None:
        return None

    def set_theme(self, theme: str) -> None:
        self.view.set_theme(theme)

    def set_reading(self, style: ReadingStyle, *, readable: bool = True, width: int = 760) -> None:
        pass  # no text to set

    def attach_vault(self, vault: OpenVault) -> None:
        self._vault = vault

    def shutdown(self) -> None:
        self.view.shutdown()
