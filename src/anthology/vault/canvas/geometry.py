"""Where a board's things are drawn: the one model the canvas tab and the embed draw from.

- **Edges** leave and reach the middle of a node's side; the side the file names, else
  the pair of sides nearest each other (one named: the other side nearest its anchor). The
  curve is a cubic Bézier whose control points stand out from each side along its normal
  (as Obsidian draws them), by a share of the distance between the ends; an edge from a
  node to itself loops out of its side. Arrowheads (``fromEnd``/``toEnd``) are triangles
  along the curve's tangent at that end; a label sits at the curve's middle.
- **Groups** hold the nodes whose box lies inside theirs (JSON Canvas has no member
  lists): a node's group is the smallest group around it, never itself; of two groups of
  one box, the earlier holds the later, so no group holds itself, even through others.
- **Level of detail**: what a card shows at a zoom (:func:`detail`): far out, shapes; then
  titles; close, the whole card.
- **Culling**: the boxes as numpy arrays, so a frame asks only for what its view holds.

Pure Python and numpy; no Qt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .model import Canvas, Edge, Node

Point = tuple[float, float]

# The six presets, per theme (the spec leaves the shades to the app: these are Obsidian's).
PRESETS = {
    "light": {"1": "#e93147", "2": "#ec7500", "3": "#e0ac00", "4": "#08b94e", "5": "#00bfbc",
              "6": "#7852ee"},
    "dark": {"1": "#fb464c", "2": "#e9973f", "3": "#e0de71", "4": "#44cf6e", "5": "#53dfdd",
             "6": "#a882ff"},
}  # fmt: skip
# A card's and an edge's colour when none is given.
NEUTRAL = {"light": "#8a8a8a", "dark": "#9a9a9a"}

# Level of detail by the view's scale (screen pixels per board pixel).
SHAPES, TITLES, FULL = "shapes", "titles", "full"
TITLES_FROM = 0.15  # below: cards are shapes with their colours
FULL_FROM = 0.5  # from here: cards show their content

ARROW_LENGTH = 14.0
ARROW_WIDTH = 10.0


def colour(value: str | None, theme: str) -> str:
    """The ``#rrggbb`` of a canvas colour (preset or hex) in ``theme``; the neutral one when
    none is given."""
    if value is None:
        return NEUTRAL.get(theme, NEUTRAL["light"])
    if value in PRESETS["light"]:
        return PRESETS.get(theme, PRESETS["light"])[value]
    return value


def detail(scale: float) -> str:
    """What a card shows at ``scale``: :data:`SHAPES`, :data:`TITLES` or :data:`FULL`."""
    if scale < TITLES_FROM:
        return SHAPES
    return TITLES if scale < FULL_FROM else FULL


_NORMALS = {"top": (0.0, -1.0), "right": (1.0, 0.0), "bottom": (0.0, 1.0), "left": (-1.0, 0.0)}


def anchor(node: Node, side: str) -> Point:
    """The middle of ``node``'s ``side``."""
    x, y, w, h = node.rect
    if side == "top":
        return (x + w / 2, y)
    if side == "bottom":
        return (x + w / 2, y + h)
    if side == "left":
        return (x, y + h / 2)
    return (x + w, y + h / 2)


def _d2(a: Point, b: Point) -> float:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


def sides_for(a: Node, b: Node, side_a: str | None, side_b: str | None) -> tuple[str, str]:
    """The sides an edge from ``a`` to ``b`` uses: those named, else the nearest."""
    if side_a and side_b:
        return side_a, side_b
    if side_a:
        p = anchor(a, side_a)
        return side_a, min(_NORMALS, key=lambda s: _d2(p, anchor(b, s)))
    if side_b:
        q = anchor(b, side_b)
        return min(_NORMALS, key=lambda s: _d2(anchor(a, s), q)), side_b
    best = min(
        ((sa, sb) for sa in _NORMALS for sb in _NORMALS),
        key=lambda pair: _d2(anchor(a, pair[0]), anchor(b, pair[1])),
    )
    return best


@dataclass(frozen=True, slots=True)
class EdgeShape:
    """An edge as drawn: a cubic Bézier ``start → c1 → c2 → end``, its arrowheads (three
    points each), its label's place."""

    edge: Edge
    start: Point
    c1: Point
    c2: Point
    end: Point
    heads: tuple[tuple[Point, Point, Point], ...]
    middle: Point

    def bounds(self) -> tuple[float, float, float, float]:
        xs = (self.start[0], self.c1[0], self.c2[0], self.end[0])
        ys = (self.start[1], self.c1[1], self.c2[1], self.end[1])
        return (min(xs), min(ys), max(xs), max(ys))

    def point(self, t: float) -> Point:
        u = 1 - t
        a, b, c, d = u**3, 3 * u * u * t, 3 * u * t * t, t**3
        return (
            a * self.start[0] + b * self.c1[0] + c * self.c2[0] + d * self.end[0],
            a * self.start[1] + b * self.c1[1] + c * self.c2[1] + d * self.end[1],
        )


def _head(tip: Point, towards: Point, size: float) -> tuple[Point, Point, Point]:
    """A triangle with its point at ``tip``, pointing away from ``towards``."""
    dx, dy = tip[0] - towards[0], tip[1] - towards[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    bx, by = tip[0] - ux * size * ARROW_LENGTH, tip[1] - uy * size * ARROW_LENGTH
    px, py = -uy * size * ARROW_WIDTH / 2, ux * size * ARROW_WIDTH / 2
    return (tip, (bx + px, by + py), (bx - px, by - py))


def edge_shape(edge: Edge, a: Node, b: Node, *, head_size: float = 1.0) -> EdgeShape:
    """The curve of ``edge`` from ``a`` to ``b``."""
    side_a, side_b = sides_for(a, b, edge.from_side, edge.to_side)
    if a is b and side_a == side_b:  # a loop out of one side: leave beside where it returns
        side_b = {"top": "right", "right": "bottom", "bottom": "left", "left": "top"}[side_a]
    start, end = anchor(a, side_a), anchor(b, side_b)
    dist = math.dist(start, end)
    reach = min(max(dist * 0.45, 40.0), 300.0)
    if a is b:
        reach = max(reach, 80.0)
    na, nb = _NORMALS[side_a], _NORMALS[side_b]
    c1 = (start[0] + na[0] * reach, start[1] + na[1] * reach)
    c2 = (end[0] + nb[0] * reach, end[1] + nb[1] * reach)
    heads = []
    if edge.to_end == "arrow":
        heads.append(_head(end, c2, head_size))
    if edge.from_end == "arrow":
        heads.append(_head(start, c1, head_size))
    shape = EdgeShape(edge, start, c1, c2, end, tuple(heads), (0.0, 0.0))
    return EdgeShape(edge, start, c1, c2, end, tuple(heads), shape.point(0.5))


class Board:
    """A canvas laid out for drawing: edge curves, groups' members, culling arrays."""

    def __init__(self, canvas: Canvas) -> None:
        self.canvas = canvas
        self.nodes = canvas.nodes
        n = len(self.nodes)
        box = np.array([node.rect for node in self.nodes], dtype=np.float64).reshape(n, 4)
        self.x0, self.y0 = box[:, 0], box[:, 1]
        self.x1, self.y1 = box[:, 0] + box[:, 2], box[:, 1] + box[:, 3]
        self.edges = [
            edge_shape(e, canvas.by_id[e.from_node], canvas.by_id[e.to_node]) for e in canvas.edges
        ]
        eb = np.array([s.bounds() for s in self.edges], dtype=np.float64).reshape(-1, 4)
        self.ex0, self.ey0, self.ex1, self.ey1 = eb[:, 0], eb[:, 1], eb[:, 2], eb[:, 3]
        self.parent = self._parents()
        # Drawing order: groups first, larger under smaller, then the cards in z-order.
        groups = [i for i, node in enumerate(self.nodes) if node.type == "group"]
        groups.sort(key=lambda i: (-self.nodes[i].width * self.nodes[i].height, i))
        self.order = groups + [i for i, node in enumerate(self.nodes) if node.type != "group"]

    def _parents(self) -> list[int]:
        """Each node's group (its index), or -1: the smallest group whose box holds the
        node's, never the node itself; of two groups of one box, the earlier holds the
        later (so containment has no cycle)."""
        parent = [-1] * len(self.nodes)
        groups = [i for i, node in enumerate(self.nodes) if node.type == "group"]
        if not groups:
            return parent
        g = np.array(groups)
        gx0, gy0, gx1, gy1 = self.x0[g], self.y0[g], self.x1[g], self.y1[g]
        area = (gx1 - gx0) * (gy1 - gy0)
        for i in range(len(self.nodes)):
            inside = (gx0 <= self.x0[i]) & (gy0 <= self.y0[i]) & (gx1 >= self.x1[i])
            inside &= gy1 >= self.y1[i]
            inside &= g != i
            own = (self.x1[i] - self.x0[i]) * (self.y1[i] - self.y0[i])
            # a box as large as the node's holds it only if it comes earlier
            inside &= (area > own) | (g < i)
            if inside.any():
                cand = np.flatnonzero(inside)
                # the smallest; of equal ones, the latest (the innermost of a stack)
                best = cand[area[cand] == area[cand].min()]
                parent[i] = int(g[best].max())
        return parent

    def members(self, group: int) -> list[int]:
        """The nodes directly in the group at index ``group``."""
        return [i for i, p in enumerate(self.parent) if p == group]

    def bounds(self) -> tuple[float, float, float, float]:
        """``(x, y, width, height)`` around every node and edge (0-sized when empty)."""
        if not len(self.nodes):
            return (0.0, 0.0, 0.0, 0.0)
        x0 = float(min(self.x0.min(), self.ex0.min() if len(self.edges) else math.inf))
        y0 = float(min(self.y0.min(), self.ey0.min() if len(self.edges) else math.inf))
        x1 = float(max(self.x1.max(), self.ex1.max() if len(self.edges) else -math.inf))
        y1 = float(max(self.y1.max(), self.ey1.max() if len(self.edges) else -math.inf))
        return (x0, y0, x1 - x0, y1 - y0)

    def visible_nodes(self, x: float, y: float, w: float, h: float) -> np.ndarray:
        """Indices of the nodes whose box meets the rectangle."""
        return np.flatnonzero(
            (self.x1 >= x) & (self.x0 <= x + w) & (self.y1 >= y) & (self.y0 <= y + h)
        )

    def visible_edges(self, x: float, y: float, w: float, h: float) -> np.ndarray:
        return np.flatnonzero(
            (self.ex1 >= x) & (self.ex0 <= x + w) & (self.ey1 >= y) & (self.ey0 <= y + h)
        )

    def node_at(self, x: float, y: float) -> int:
        """The topmost card (groups last: a group is under its members) at ``(x, y``), or -1."""
        hit = np.flatnonzero((self.x0 <= x) & (self.x1 >= x) & (self.y0 <= y) & (self.y1 >= y))
        if not len(hit):
            return -1
        cards = [int(i) for i in hit if self.nodes[i].type != "group"]
        if cards:
            return max(cards)
        return min((int(i) for i in hit), key=lambda i: self.nodes[i].width * self.nodes[i].height)
