"""What the graph shows, as plain data, and the geometry its painters share. Free of Qt.

- :class:`Drawing`: a snapshot of every shown node and edge in layout coordinates (y up),
  with the theme's colours as RGBA tuples. The graph view makes one
  (``GraphView.drawing()``); the PNG export paints it with Qt, :func:`svg` writes it as
  text. Neither reads the view, so the pictures do not depend on its zoom, caches or hover.
- :func:`arrow_heads`: the filled triangle of each edge, its tip on the target's rim; the
  live view and both exports draw these same triangles.
- :func:`claim`: a label's box reserved in a grid unless it overlaps one placed before; the
  view's hubs-first labels and the exports' use it alike (:func:`label_spots`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

import numpy as np

__all__ = [
    "LABELS_MAX",
    "Drawing",
    "Rgba",
    "arrow_heads",
    "claim",
    "finite_positions",
    "frame",
    "label_spots",
    "svg",
]

Rgba = tuple[int, int, int, int]
MARGIN = 40.0  # px around the graph in an export
LABELS_MAX = 400  # labels an export places, hubs first
FONT_PX = 11  # the exports' label size


@dataclass
class Drawing:
    """What is shown, in layout coordinates (y up), with the colours of the theme.

    ``rings``: the marks (current entry, trail, pins, search matches, selection), each
    ``(node, colour, pen width px, extra diameter px, symbol)`` with symbol ``"o"`` (a ring)
    or ``"s"`` (a square)."""

    ids: list[str]
    titles: list[str]
    labels: list[str]
    pos: np.ndarray  # (n, 2)
    radius: np.ndarray  # (n,) px at the export's scale
    fill: list[Rgba]
    degree: np.ndarray
    edges: np.ndarray  # (m, 2) indices into the nodes
    edge_group: np.ndarray  # (m,) index into edge_colours
    edge_colours: list[Rgba]
    edge_width: float
    arrows: bool
    background: Rgba
    text: Rgba
    title: str = "graph"
    rings: list[tuple[int, Rgba, float, float, str]] = field(default_factory=list)

    def edge_groups(self) -> list[tuple[Rgba, np.ndarray]]:
        """(colour, edge mask) per colour group of the edges, in the groups' order."""
        m = len(self.edges)
        if len(self.edge_group) != m:
            return [(self.edge_colours[0], np.ones(m, dtype=bool))] if m else []
        return [
            (self.edge_colours[int(g) % len(self.edge_colours)], self.edge_group == g)
            for g in np.unique(self.edge_group).tolist()
        ]


def finite_positions(pos: np.ndarray) -> np.ndarray:
    """``pos`` (n, 2) with any non-finite row moved to the mean of the finite ones: a node
    whose layout blew up still lands inside the picture."""
    pos = np.asarray(pos, dtype=np.float64).reshape(-1, 2)
    ok = np.isfinite(pos).all(axis=1)
    if ok.all():
        return pos
    pos = pos.copy()
    pos[~ok] = pos[ok].mean(axis=0) if ok.any() else 0.0
    return pos


def hex_rgb(c: Rgba) -> str:
    return f"#{c[0]:02x}{c[1]:02x}{c[2]:02x}"


def alpha(c: Rgba) -> float:
    return c[3] / 255.0


def arrow_heads(
    a: np.ndarray, b: np.ndarray, rim: np.ndarray, size: float
) -> tuple[np.ndarray, np.ndarray]:
    """A filled triangle per edge a[k] → b[k], its tip on the target's rim (``rim``: the
    target's radius, same units): ``(heads (n, 3, 2): tip, left, right; ok)``, ``ok`` the
    edges long enough to carry one (longer than the rim and one and a half heads)."""
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    ok = length > rim + 1.5 * size
    u = d / np.maximum(length, 1e-9)[:, None]
    tip = b - u * rim[:, None]
    base = tip - u * size
    perp = np.column_stack([-u[:, 1], u[:, 0]]) * (size * 0.45)
    return np.stack([tip, base + perp, base - perp], axis=1), ok


def claim(grid: dict, cell: float, box: tuple[float, float, float, float]) -> bool:
    """Reserve ``box`` (x0, y0, x1, y1) in a grid of placed labels, unless it overlaps one.
    Plain loops: a new graph's first frame tries ~200 labels, and the generator and key
    list of the first version cost ~3 ms of it."""
    x0, y0, x1, y1 = box
    cells = []
    for cx in range(int(x0 // cell), int(x1 // cell) + 1):
        for cy in range(int(y0 // cell), int(y1 // cell) + 1):
            placed = grid.get((cx, cy))
            if placed is not None:
                for b in placed:
                    if x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1:
                        return False
            cells.append((cx, cy))
    for k in cells:
        placed = grid.get(k)
        if placed is None:
            grid[k] = [box]
        else:
            placed.append(box)
    return True


def frame(d: Drawing, width: float | None) -> tuple[float, float, float, np.ndarray]:
    """(scale px per unit, picture width, height, node positions in picture px, y down).

    Without ``width`` the scale keeps the layout's own units (at least 1600 px across);
    the nodes' extent plus their radii and :data:`MARGIN` is framed."""
    if len(d.pos) == 0:
        w = float(width or 400)
        return 1.0, w, w * 0.75, np.zeros((0, 2))
    x0, y0 = d.pos.min(axis=0)
    x1, y1 = d.pos.max(axis=0)
    span_x, span_y = max(x1 - x0, 1.0), max(y1 - y0, 1.0)
    rmax = float(d.radius.max()) if len(d.radius) else 0.0
    pad = MARGIN + rmax
    if width is None:
        scale = max(1.0, 1600.0 / max(span_x, span_y))
    else:
        scale = max(1e-6, (float(width) - 2 * pad) / span_x)
    w = span_x * scale + 2 * pad
    h = span_y * scale + 2 * pad
    xy = np.column_stack([(d.pos[:, 0] - x0) * scale + pad, (y1 - d.pos[:, 1]) * scale + pad])
    return scale, float(width) if width is not None else w, h, xy


def export_arrow_heads(xy: np.ndarray, d: Drawing) -> tuple[np.ndarray, np.ndarray]:
    """The arrowheads of an export: a size that follows the edges' width, not a zoom."""
    rim = d.radius[d.edges[:, 1]]
    return arrow_heads(xy[d.edges[:, 0]], xy[d.edges[:, 1]], rim, 4.0 + 2.0 * d.edge_width)


def label_spots(
    xy: np.ndarray,
    d: Drawing,
    measure: Callable[[str], float],
    line_height: float,
    ascent: float,
) -> list[tuple[int, float, float]]:
    """(node, x of the text's left, y of its baseline) for the labels that fit under their
    nodes: hubs first, none overlapping another, at most :data:`LABELS_MAX`. ``measure``:
    a text's width in px in the exports' font (the painter's metrics)."""
    grid: dict = {}
    out: list[tuple[int, float, float]] = []
    for j in np.argsort(-d.degree, kind="stable").tolist():
        if len(out) >= LABELS_MAX:
            break
        text = d.labels[j]
        if not text:
            continue
        w = measure(text)
        x0 = xy[j, 0] - w / 2
        y0 = xy[j, 1] + d.radius[j] + 2
        if claim(grid, 64.0, (x0 - 1, y0, x0 + w + 1, y0 + line_height)):
            out.append((j, x0, y0 + ascent))
    return out


def svg(d: Drawing, measure: Callable[[str], float], line_height: float, ascent: float) -> str:
    """``d`` as a vector SVG: every node a ``<circle class="node">`` (its id in ``data-id``,
    its title in a ``<title>``), the edges one ``<path class="edges">`` per colour,
    arrowheads when they are on, the marks, and the labels that fit (see
    :func:`label_spots`)."""
    _scale, w, h, xy = frame(d, None)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
        f'viewBox="0 0 {w:.1f} {h:.1f}">',
        f"<title>{escape(d.title)}</title>",
        f"<desc>{len(d.ids)} nodes, {len(d.edges)} edges</desc>",
        f'<rect width="100%" height="100%" fill="{hex_rgb(d.background)}"/>',
    ]
    if len(d.edges):
        a, b = xy[d.edges[:, 0]], xy[d.edges[:, 1]]
        heads, head_ok = export_arrow_heads(xy, d)
        for c, sel in d.edge_groups():
            segs = " ".join(
                f"M{x0:.1f} {y0:.1f}L{x1:.1f} {y1:.1f}"
                for (x0, y0), (x1, y1) in zip(a[sel].tolist(), b[sel].tolist(), strict=True)
            )
            out.append(
                f'<path class="edges" d="{segs}" stroke="{hex_rgb(c)}" '
                f'stroke-opacity="{alpha(c):.3f}" stroke-width="{d.edge_width:.2f}" '
                'fill="none"/>'
            )
            if d.arrows:
                tri = " ".join(
                    f"M{p[0][0]:.1f} {p[0][1]:.1f}L{p[1][0]:.1f} {p[1][1]:.1f}"
                    f"L{p[2][0]:.1f} {p[2][1]:.1f}Z"
                    for p in heads[head_ok & sel].tolist()
                )
                if tri:
                    out.append(f'<path class="arrows" d="{tri}" fill="{hex_rgb(c)}"/>')
    out.append('<g class="nodes">')
    for j, node_id in enumerate(d.ids):
        c = d.fill[j]
        out.append(
            f'<circle class="node" data-id={quoteattr(node_id)} cx="{xy[j, 0]:.1f}" '
            f'cy="{xy[j, 1]:.1f}" r="{d.radius[j]:.1f}" fill="{hex_rgb(c)}" '
            f'fill-opacity="{alpha(c):.3f}"><title>{escape(d.titles[j])}</title></circle>'
        )
    out.append("</g>")
    for j, c, width, extra, symbol in d.rings:
        r = d.radius[j] + extra / 2
        style = (
            f'fill="none" stroke="{hex_rgb(c)}" stroke-opacity="{alpha(c):.3f}" '
            f'stroke-width="{width:.1f}"'
        )
        if symbol == "s":
            out.append(
                f'<rect class="mark" x="{xy[j, 0] - r:.1f}" y="{xy[j, 1] - r:.1f}" '
                f'width="{2 * r:.1f}" height="{2 * r:.1f}" {style}/>'
            )
        elif symbol == "d":  # a canvas's diamond
            x, y = xy[j, 0], xy[j, 1]
            out.append(
                f'<polygon class="mark" points="{x:.1f},{y - r:.1f} {x + r:.1f},{y:.1f} '
                f'{x:.1f},{y + r:.1f} {x - r:.1f},{y:.1f}" {style}/>'
            )
        else:
            out.append(
                f'<circle class="mark" cx="{xy[j, 0]:.1f}" cy="{xy[j, 1]:.1f}" r="{r:.1f}" '
                f"{style}/>"
            )
    out.append(
        f'<g class="labels" font-family="sans-serif" font-size="{FONT_PX}" '
        f'fill="{hex_rgb(d.text)}">'
    )
    for j, x, y in label_spots(xy, d, measure, line_height, ascent):
        out.append(f'<text x="{x:.1f}" y="{y:.1f}">{escape(d.labels[j])}</text>')
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)
