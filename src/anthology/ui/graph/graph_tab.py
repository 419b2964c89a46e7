"""The graph in a tab of its own (View › Open Graph in a Tab), as Obsidian opens its graph
view: the vault's global graph, or one entry's local graph, with the toolbar and controls
drawn over it, beside the side panel's graph.

A :class:`GraphTab` is a kind of document (:mod:`anthology.ui.common.document`) named
``graph``: its ``ref`` is ``"global"`` or ``"local:ID"``. The window feeds it the graph it
has loaded (:class:`~anthology.ui.common.document.GraphFed`), with the side panel's
positions, so it opens laid out; it has its own camera, filters and forces (kept for the
session, not saved: the side panel's are the vault's). A click on a node opens its entry
in the tab (Ctrl+click: a new tab), as the side panel's does.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Signal
from PySide6.QtGui import QIcon, QTextDocument
from PySide6.QtWidgets import QVBoxLayout, QWidget

from anthology.ui.common.document import OpenVault
from anthology.ui.graph.graph_view import GraphView
from anthology.ui.graph.tab_refs import AUTO, GLOBAL, GRAPH, LOCAL, TIMELINE
from anthology.vault.graph_data import GraphData
from anthology.vault.render.reading import ReadingStyle


class GraphTab(QWidget):
    """A tab showing the graph (see the module docstring)."""

    kind = GRAPH
    entryRequested = Signal(str, str, bool)  # entry id, heading, in a new tab
    documentRequested = Signal(str, str, bool)  # kind, ref, in a new tab (the Timeline button)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphTab")
        self.view = GraphView(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.view.entryActivated.connect(lambda i: self.entryRequested.emit(i, "", False))
        self.view.entryActivatedNewTab.connect(lambda i: self.entryRequested.emit(i, "", True))
        self.view.timelineRequested.connect(
            lambda: self.documentRequested.emit(TIMELINE, AUTO, True)
        )
        self._ref: str | None = None
        self._fed = False
        self._lookup: OpenVault | None = None

    # -- the graph, from the window ------------------------------------------------------------
    def feed_graph(
        self, data: GraphData, positions: Mapping[str, tuple[float, float]], vault_key: str
    ) -> None:
        """The vault's graph as the window loaded it (again after a refresh)."""
        # a key of its own: the tab's camera and settings are not the side panel's
        self.view.set_graph(data, dict(positions) or None, vault_key=f"{vault_key}#graph-tab")
        self._fed = True
        if self._ref is not None:
            self._show(self._ref)

    def _show(self, ref: str) -> None:
        if ref.startswith(LOCAL):
            self.view.set_local(True)
            self.view.set_current(ref[len(LOCAL) :])
        else:
            self.view.set_local(False)

    # -- what a tab asks of its document ---------------------------------------------------
    def widget(self) -> QWidget:
        return self

    def document_id(self) -> str | None:
        return self._ref

    def open_document(self, ref: str) -> bool:
        if ref != GLOBAL and not (ref.startswith(LOCAL) and len(ref) > len(LOCAL)):
            return False
        self._ref = ref
        if self._fed:
            self._show(ref)
        return True

    def title(self) -> str:
        if self._ref is not None and self._ref.startswith(LOCAL):
            return f"Local graph: {self._ref[len(LOCAL) :]}"
        return "Graph"

    def tooltip(self) -> str:
        return self.title()

    def icon(self) -> QIcon:
        return QIcon()

    def scroll_position(self) -> int:
        return 0

    def restore_scroll(self, position: int) -> None:
        pass  # the camera stays where the reader left it

    def scroll_to(self, anchor: str) -> bool:
        return False

    def find_text(self, text: str, *, backward: bool = False) -> bool:
        """Find in the graph: its search field highlights the matching nodes."""
        self.view.search_edit.setText(text)
        return bool(text) and bool(self.view.highlighted_ids())

    def printable(self) -> QTextDocument | None:
        return None  # the graph exports itself (its toolbar's Export: PNG, SVG, GraphML)

    def export_html(self) -> str | None:
        return None

    def set_theme(self, theme: str) -> None:
        self.view.set_theme(theme)

    def set_reading(self, style: ReadingStyle, *, readable: bool = True, width: int = 760) -> None:
        pass  # no text to set

    def attach_vault(self, vault: OpenVault) -> None:
        self._lookup = vault

    def shutdown(self) -> None:
        self.view.shutdown()
