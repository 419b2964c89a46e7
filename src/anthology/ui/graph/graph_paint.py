"""The graph view's layers, fed from the Qt-free scene (:mod:`anthology.graph.scene`).

:class:`GraphPainter` owns the five layers (edges, nodes, the highlight overlay, the marks,
the labels) and turns what the scene says into their data: the theme's colours, one QBrush
or QPen per colour (the layers' sprite atlases key on their identity), each layer its data
in one call (as pyqtgraph's ``setData`` takes positions, sizes, brushes and texts together).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

from anthology.graph.scene import GraphScene, elide
from anthology.palette import THEMES as PALETTE_THEMES
from anthology.palette import theme as palette_theme
from anthology.ui.common.theme import css_colour, qcolor
from anthology.ui.graph.edge_layer import EdgeLayer
from anthology.ui.graph.label_layer import LabelLayer
from anthology.ui.graph.node_layer import NodeLayer, PassiveScatter

__all__ = ["THEMES", "GraphPainter"]


def _graph_theme(name: str) -> dict[str, Any]:
    """The graph's colours of a theme (from :mod:`anthology.palette`), as Qt takes them."""
    g = palette_theme(name).graph
    return {
        "background": g.background,
        **{k: qcolor(getattr(g, k)) for k in ("text", "node", "ghost", "mention", "accent",
                                               "trail", "pin", "search")},
        "legend_bg": css_colour(g.legend_bg),
        "palette": list(g.groups),
    }  # fmt: skip


THEMES = {name: _graph_theme(name) for name in PALETTE_THEMES}


class GraphPainter:
    """The layers of one view and the styles they share; ``draw_*`` push the scene's state."""

    def __init__(self, vb: pg.ViewBox) -> None:
        self.edges = EdgeLayer()
        self.edges.setZValue(0)
        self.nodes = NodeLayer()
        self.nodes.setZValue(1)
        self.overlay = PassiveScatter(pxMode=True, antialias=True, pen=None)
        self.overlay.setZValue(2)
        self.marks = PassiveScatter(pxMode=True, antialias=True, brush=None)
        self.marks.setZValue(3)
        self.labels = LabelLayer()
        self.labels.setZValue(4)
        for item in (self.edges, self.nodes, self.overlay, self.marks, self.labels):
            vb.addItem(item, ignoreBounds=True)
        self._style_cache: dict[tuple, Any] = {}  # (maker, rgba, width) → QBrush / QPen
        self.brush_table: list[QColor] = []
        self.brushes = np.empty(0, dtype=object)  # one QBrush per colour of brush_table
        self.edge_colours: list[QColor] = []

    def styled(self, make: Callable[..., Any], colour: QColor, width: float | None = None) -> Any:
        """One QBrush or QPen (``make``: pg.mkBrush / pg.mkPen) per colour and width, kept:
        the layers' sprite atlases key on its identity, and a fresh one per node or mark
        per update grew them on every navigation."""
        key = (make, QColor(colour).rgba(), width)
        style = self._style_cache.get(key)
        if style is None:
            style = make(colour) if width is None else make(colour, width=width)
            self._style_cache[key] = style
        return style

    def draw(self, scene: GraphScene, rank: np.ndarray) -> None:
        """Everything the shown graph looks like (after a rebuild or a style change):
        ``rank`` orders the labels (hubs first)."""
        self.draw_nodes(scene)
        self.draw_rest(scene, rank)

    def draw_nodes(self, scene: GraphScene) -> None:
        """The nodes: :meth:`draw`'s first half (a load in pieces draws them a turn before
        the rest)."""
        for _ in self.draw_nodes_steps(scene):
            pass

    def node_pieces(
        self, scene: GraphScene, wanted: Callable[[], bool]
    ) -> list[Callable[[], None]]:
        """:meth:`draw_nodes` as pieces of the GUI thread's work, the node layer's steps a
        piece each (~20-30 ms in one at 100,000 nodes; the last piece does what is left);
        none does anything unless ``wanted()``, nor once the scene was rebuilt again after
        the first ran (a newer rebuild draws its own)."""
        steps: list[tuple[int, Iterator[None]]] = []

        def piece(last: bool) -> None:
            if not wanted():
                return
            if not steps:
                steps.append((scene.generation, self.draw_nodes_steps(scene)))
            generation, left = steps[0]
            if scene.generation != generation:
                return
            for _ in left:
                if not last:
                    return

        return [partial(piece, False), partial(piece, False), partial(piece, True)]

    def draw_nodes_steps(self, scene: GraphScene) -> Iterator[None]:
        """:meth:`draw_nodes` in the node layer's steps (:meth:`NodeLayer.set_nodes_steps`)."""
        self.brush_table = [qcolor(c) for c in scene.node_colours]
        self.brushes = np.empty(len(self.brush_table), dtype=object)
        self.brushes[:] = [self.styled(pg.mkBrush, c) for c in self.brush_table]
        self.edge_colours = [QColor(*c) for c in scene.edge_colours()]
        pos, sizes, idx = scene.dpos, scene.sizes, scene.colour_index
        styles = None
        if len(idx) == len(sizes):  # colour index × half-pixel size
            styles = idx * 8192 + np.rint(sizes * 2.0).astype(np.int64)
        yield from self.nodes.set_nodes_steps(pos, sizes, self.brushes[idx], styles)

    def draw_rest(self, scene: GraphScene, rank: np.ndarray) -> None:
        """The edges, labels, highlight and marks: :meth:`draw`'s second half."""
        self.draw_edges(scene)
        self.draw_labels(scene, rank)
        self.draw_relations(scene)

    def draw_edges(self, scene: GraphScene) -> None:
        st, pos = scene.settings, scene.dpos
        self.edges.set_graph(scene.sub_edges, scene.edge_group, self.edge_colours)
        self.edges.set_style(float(st["link_width"]), bool(st["arrows"]), scene.sizes / 2.0)
        self.edges.set_positions(pos)

    def draw_labels(self, scene: GraphScene, rank: np.ndarray) -> None:
        """The nodes' labels."""
        st, t = scene.settings, THEMES[scene.theme]
        pos, radius = scene.dpos, scene.sizes / 2.0
        # full texts: the layer elides them only zoomed out
        self.labels.set_graph(scene.label_texts(), rank, radius, elide=elide)
        self.labels.set_style(t["text"], float(st["text_fade"]), QColor(t["background"]))
        self.labels.set_positions(pos)

    def draw_relations(self, scene: GraphScene) -> None:
        """The relations' names on the edges, then the highlight and marks: what
        :meth:`draw` does last."""
        self.labels.set_relations(
            scene.sub_edges, scene.relations(), scene.edge_group, self.edge_colours
        )
        self.draw_highlight(scene)

    def draw_positions(self, scene: GraphScene) -> None:
        pos = scene.dpos
        self.nodes.set_positions(pos)
        self.edges.set_positions(pos)
        self.labels.set_positions(pos)
        hl = scene.highlight.nodes
        if len(hl):
            self.overlay.setData(
                pos=pos[hl], size=scene.sizes[hl], brush=self.brushes[scene.colour_index[hl]]
            )  # its pen (none) is set once: a pen= per call was a new sprite key each frame
        self.draw_marks(scene)

    def draw_sizes(self, scene: GraphScene) -> None:
        """The zoom step changed the nodes' sizes."""
        sizes, st = scene.sizes, scene.settings
        self.nodes.set_sizes(sizes)
        self.edges.set_style(float(st["link_width"]), bool(st["arrows"]), sizes / 2)
        self.labels.set_radius(sizes / 2)
        if len(scene.highlight.nodes):
            self.overlay.setSize(sizes[scene.highlight.nodes])
        self.draw_marks(scene)

    def draw_highlight(self, scene: GraphScene) -> None:
        """Hover (neighbourhood) wins over a path, a path over search; the rest is dimmed."""
        accent = THEMES[scene.theme]["accent"]
        h = scene.update_highlight()
        if h.kind in ("hover", "path"):
            self.nodes.setOpacity(0.18)
            self.edges.set_highlight(h.edges, 0.12, accent)
            self.labels.set_forced(h.nodes, 0.15)
        elif h.kind == "search":
            self.nodes.setOpacity(0.18)
            self.edges.set_highlight(None, 0.25, accent)
            self.labels.set_forced(h.nodes[:60], 0.2)
        else:
            self.nodes.setOpacity(1.0)
            self.edges.set_highlight(None, 1.0, accent)
            self.labels.set_forced(None, 1.0)
        if len(h.nodes) and len(self.brushes):
            self.overlay.setData(
                pos=scene.dpos[h.nodes],
                size=scene.sizes[h.nodes],
                brush=self.brushes[scene.colour_index[h.nodes]],
            )
        else:
            self.overlay.clear()
        self.overlay.setVisible(len(h.nodes) > 0)
        self.draw_marks(scene)

    def draw_marks(self, scene: GraphScene) -> None:
        """Rings: current entry (accent, thick), visited trail (fading), pins, search hits."""
        spots = scene.update_marks()
        if not spots:
            self.marks.clear()
            self.marks.setVisible(False)
            return
        t = THEMES[scene.theme]
        self.marks.setVisible(True)
        pens = []
        for m in spots:
            c = t[m.role]
            if m.alpha is not None:
                c = QColor(c)
                c.setAlphaF(m.alpha)
            pens.append(self.styled(pg.mkPen, c, m.width))
        idx = np.array([m.node for m in spots], dtype=np.int64)
        self.marks.setData(
            pos=scene.dpos[idx],
            size=[float(scene.sizes[m.node] + m.extra) for m in spots],
            pen=pens,
            symbol=[m.symbol for m in spots],
        )  # the brush (none) set once: new pens and brushes per call were new sprite keys

    def legend_entries(
        self, scene: GraphScene
    ) -> tuple[list[tuple[str, QColor]], list[tuple[str, QColor]], list[tuple[str, QColor]]]:
        """(groups, relations, marks) as the legend lists them, in the theme's colours."""
        t = THEMES[scene.theme]
        groups = [(name, qcolor(c)) for name, c in scene.groups[:12]]
        colours = self.edge_colours
        relations = [
            (name, t["mention"] if k == 0 else colours[k])
            for name, k in scene.legend_relations()
            if k < len(colours)
        ]
        role = {"current": "accent", "trail": "trail", "pin": "pin", "match": "search",
                "canvas": "text"}  # fmt: skip
        marks = [(name, t[role[name]]) for name in scene.legend_marks()]
        return groups, relations, marks
