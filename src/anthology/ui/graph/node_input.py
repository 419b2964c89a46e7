"""What the reader does to a node of the graph: click, hover, drag (a pin), right-click.

The node layer (:class:`anthology.ui.graph.node_layer.NodeLayer`) says which node by its
index among the shown nodes; :class:`NodeInput` turns that into what the view does: open
the entry, highlight its neighbourhood with its title in the tooltip, pin it where it was
dropped (and reheat the layout), or pop up its menu. While the view's items still show an
older graph than the scene's (a load in pieces), the indices are that graph's: the input
is ignored until the last piece is drawn.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QMenu

from anthology.graph.scene import GraphScene
from anthology.ui.graph.frame_pacing import FramePacing
from anthology.ui.graph.graph_paint import GraphPainter
from anthology.ui.graph.node_layer import NodeLayer
from anthology.vault.render.safe_text import tooltip_html

__all__ = ["NodeHost", "NodeInput"]


class NodeHost(Protocol):
    """What the node input needs of the view (the graph view is one)."""

    scene: GraphScene
    nodes: NodeLayer
    painter: GraphPainter
    pacing: FramePacing
    entryActivated: Any  # Signal(str)
    entryActivatedNewTab: Any  # Signal(str)

    def _swapping(self) -> bool: ...  # the items still show an older graph (its indices)

    def _apply_highlight(self) -> None: ...

    def _legend_follows_marks(self) -> None: ...

    def _update_marks(self) -> None: ...

    def toggle_selected(self, entry_id: str) -> None: ...

    def node_menu(self, entry_id: str) -> QMenu: ...


class NodeInput:
    """The node input of ``view`` (wired to its node layer's signals)."""

    def __init__(self, view: NodeHost) -> None:
        self.view = view
        self.tooltip = ""  # the hovered node's title ("" when none)
        nodes = view.nodes
        nodes.nodeClicked.connect(self.clicked)
        nodes.nodeShiftClicked.connect(lambda j: self._with_id(j, view.toggle_selected))
        nodes.nodeClickedNewTab.connect(self.clicked_new_tab)
        nodes.nodeDoubleClicked.connect(lambda j: self._with_id(j, self.unpin))
        nodes.nodeHovered.connect(self.hovered)
        nodes.nodeDragged.connect(self.dragged)
        nodes.nodeContextMenu.connect(self.context_menu)

    def reset(self) -> None:
        """A rebuild: no node is hovered, no tooltip (the indices change)."""
        self.view.nodes._hover = -1
        self.tooltip = ""
        self.view.nodes.setToolTip("")

    def _entry(self, j: int) -> str | None:
        """The id of shown node ``j`` (None: none, or the items show an older graph)."""
        return None if self.view._swapping() else self.view.scene.id_of(j)

    def _with_id(self, j: int, act: Any) -> None:
        entry_id = self.view.scene.id_of(j)
        if entry_id is not None:
            act(entry_id)

    def clicked(self, j: int) -> None:
        entry_id = self._entry(j)
        if entry_id is not None and not self.view.scene.is_ghost(j):
            self.view.entryActivated.emit(entry_id)

    def clicked_new_tab(self, j: int) -> None:
        entry_id = self._entry(j)
        if entry_id is not None and not self.view.scene.is_ghost(j):
            self.view.entryActivatedNewTab.emit(entry_id)

    def hovered(self, j: int) -> None:
        view = self.view
        if view._swapping():  # the items show an older graph: its indices
            return
        self.tooltip = view.scene.set_hover(j)
        # Titles are vault text: Qt would take "<img src=…>" in one as rich text and load it.
        view.nodes.setToolTip(tooltip_html(self.tooltip) if self.tooltip else "")
        view._apply_highlight()

    def hover(self, entry_id: str | None) -> None:
        """Highlight ``entry_id``'s neighbourhood as a hover would (None clears)."""
        j = self.view.scene.local_index(entry_id)
        self.view.nodes._hover = j
        self.hovered(j)

    def dragged(self, j: int, x: float, y: float, phase: str) -> None:
        entry_id = self._entry(j)
        if entry_id is None or not (math.isfinite(x) and math.isfinite(y)):
            return
        self.view.scene.dragging = -1 if phase == "finish" else j
        self.pin(entry_id, x, y)

    def pin(self, entry_id: str, x: float, y: float) -> None:
        """Fix ``entry_id`` at ``(x, y)`` (a drag does this) and reheat the simulation."""
        view = self.view
        j = view.scene.pin(entry_id, x, y)
        if j is not None and j >= 0:
            view.painter.draw_positions(view.scene)
            view._legend_follows_marks()
            if view.pacing.worker is not None:
                x, y = view.scene.pins[entry_id]
                view.pacing.worker.pin(j, x, y, reheat=0.3)

    def unpin(self, entry_id: str) -> None:
        view = self.view
        j = view.scene.unpin(entry_id)
        if j is None:
            return
        if j >= 0 and view.pacing.worker is not None:
            view.pacing.worker.unpin(j, reheat=0.3)
        view._update_marks()

    def context_menu(self, j: int, screen_pos: QPoint) -> None:
        entry_id = self._entry(j)
        if entry_id is not None:  # the view's menu (a host may give its own)
            self.view.node_menu(entry_id).popup(screen_pos)
