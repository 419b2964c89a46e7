"""Export of the whole shown graph (not the viewport) as SVG or as a PNG of a chosen width.

Export once wrote what the canvas happened to show (635×512 px of it: issue 14). Here the
picture is of every shown node and edge, framed on their extent, at a scale of our choosing:

* :func:`export_svg` writes a vector SVG: every node a ``<circle class="node">`` (its id in
  ``data-id``, its title in a ``<title>``), the edges one ``<path class="edges">`` per colour,
  arrowheads when they are on, the rings of the current entry, trail and pins, and labels for
  the hubs that fit without overlapping.
* :func:`export_png` paints the same picture with ``QPainter`` into an image ``width`` px wide
  (the height follows the graph's aspect).

Both take a :class:`Drawing`, a plain snapshot of what the view shows (:func:`drawing_of`),
so the pictures do not depend on the view's zoom, caches or hover.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPainterPath, QPen

from anthology.ui.graph_items import _claim
from anthology.vault.shown import plain_text

if TYPE_CHECKING:
    from anthology.ui.graph_view import GraphView

__all__ = ["Drawing", "drawing_of", "export_png", "export_svg"]

MARGIN = 40.0  # px around the graph
LABELS_MAX = 400
FONT_PX = 11


@dataclass
class Drawing:
    """What is shown, in layout coordinates (y up), with the colours of the theme."""

    ids: list[str]
    titles: list[str]
    labels: list[str]
    pos: np.ndarray  # (n, 2)
    radius: np.ndarray  # (n,) px at the export's scale
    fill: list[QColor]
    degree: np.ndarray
    edges: np.ndarray  # (m, 2) indices into the nodes
    edge_group: np.ndarray
    edge_colours: list[QColor]
    edge_width: float
    arrows: bool
    background: QColor
    text: QColor
    rings: list[tuple[int, QColor, float, float, str]] = field(default_factory=list)


def drawing_of(view: GraphView) -> Drawing:
    """A snapshot of every node and edge ``view`` shows (after its filters and mode)."""
    from anthology.ui.graph_view import THEMES

    t = THEMES[view.theme()]
    n = len(view._shown)
    ids = view.shown_ids()
    pos = np.asarray(view._dpos, dtype=np.float64).reshape(-1, 2)
    ok = np.isfinite(pos).all(axis=1)
    if not ok.all():
        pos = pos.copy()
        pos[~ok] = pos[ok].mean(axis=0) if ok.any() else 0.0
    base = view._base_sizes if len(view._base_sizes) == n else np.full(n, 8.0)
    table = view._brush_table or [QColor(t["node"])]
    fill = [QColor(table[int(k) % len(table)]) for k in view._brush_idx.tolist()]
    if len(fill) != n:
        fill = [QColor(t["node"])] * n
    degree = (
        np.bincount(view._sub_edges.ravel(), minlength=n)
        if len(view._sub_edges)
        else np.zeros(n, dtype=np.int64)
    )
    labels = view._label_texts()
    return Drawing(
        ids=ids,
        titles=[plain_text(view._data.titles[i]) for i in view._shown.tolist()],
        labels=labels if len(labels) == n else list(ids),
        pos=pos,
        radius=np.asarray(base, dtype=np.float64) / 2.0,
        fill=fill,
        degree=degree,
        edges=np.asarray(view._sub_edges, dtype=np.int64).reshape(-1, 2),
        edge_group=np.asarray(view._edge_group, dtype=np.int64),
        edge_colours=list(view._edge_colours) or [QColor(t["mention"])],
        edge_width=float(view.settings().get("link_width", 1.0)),
        arrows=bool(view.settings().get("arrows", False)),
        background=QColor(t["background"]),
        text=QColor(t["text"]),
        rings=[s for s in view._mark_spots if 0 <= s[0] < n],
    )


# ---- framing ---------------------------------------------------------------------------------
def _frame(d: Drawing, width: float | None) -> tuple[float, float, float, np.ndarray]:
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


def _arrow_heads(xy: np.ndarray, d: Drawing) -> tuple[np.ndarray, np.ndarray]:
    """Triangles (k, 3, 2) with their tips on the targets' rims, and the edge mask."""
    a, b = xy[d.edges[:, 0]], xy[d.edges[:, 1]]
    v = b - a
    length = np.hypot(v[:, 0], v[:, 1])
    r = d.radius[d.edges[:, 1]]
    size = 4.0 + 2.0 * d.edge_width
    ok = length > r + 1.5 * size
    u = v / np.maximum(length, 1e-9)[:, None]
    tip = b - u * r[:, None]
    base = tip - u * size
    perp = np.column_stack([-u[:, 1], u[:, 0]]) * (size * 0.45)
    return np.stack([tip, base + perp, base - perp], axis=1), ok


def _label_boxes(xy: np.ndarray, d: Drawing) -> list[tuple[int, float, float]]:
    """(node, x of the text's left, y of its baseline) for the labels that fit: hubs first,
    none overlapping another."""
    font = QFont()
    font.setPixelSize(FONT_PX)
    fm = QFontMetricsF(font)
    grid: dict = {}
    out = []
    for j in np.argsort(-d.degree, kind="stable").tolist():
        if len(out) >= LABELS_MAX:
            break
        text = d.labels[j]
        if not text:
            continue
        w = fm.horizontalAdvance(text)
        x0 = xy[j, 0] - w / 2
        y0 = xy[j, 1] + d.radius[j] + 2
        if _claim(grid, 64.0, (x0 - 1, y0, x0 + w + 1, y0 + fm.height())):
            out.append((j, x0, y0 + fm.ascent()))
    return out


# ---- SVG -------------------------------------------------------------------------------------
def export_svg(view: GraphView, path: str | Path) -> int:
    """Write every shown node and edge of ``view`` to ``path`` as SVG; returns the node count."""
    d = drawing_of(view)
    _scale, w, h, xy = _frame(d, None)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
        f'viewBox="0 0 {w:.1f} {h:.1f}">',
        f"<title>{escape(view._vault_key or 'graph')}</title>",
        f"<desc>{len(d.ids)} nodes, {len(d.edges)} edges</desc>",
        f'<rect width="100%" height="100%" fill="{d.background.name()}"/>',
    ]
    if len(d.edges):
        a, b = xy[d.edges[:, 0]], xy[d.edges[:, 1]]
        heads, head_ok = _arrow_heads(xy, d)
        for g in np.unique(d.edge_group).tolist() if len(d.edge_group) == len(d.edges) else [0]:
            sel = (d.edge_group == g) if len(d.edge_group) == len(d.edges) else slice(None)
            c = d.edge_colours[int(g) % len(d.edge_colours)]
            segs = " ".join(
                f"M{x0:.1f} {y0:.1f}L{x1:.1f} {y1:.1f}"
                for (x0, y0), (x1, y1) in zip(a[sel].tolist(), b[sel].tolist(), strict=True)
            )
            out.append(
                f'<path class="edges" d="{segs}" stroke="{c.name()}" '
                f'stroke-opacity="{c.alphaF():.3f}" stroke-width="{d.edge_width:.2f}" '
                'fill="none"/>'
            )
            if d.arrows:
                m = head_ok & ((d.edge_group == g) if len(d.edge_group) == len(d.edges) else True)
                tri = " ".join(
                    f"M{p[0][0]:.1f} {p[0][1]:.1f}L{p[1][0]:.1f} {p[1][1]:.1f}"
                    f"L{p[2][0]:.1f} {p[2][1]:.1f}Z"
                    for p in heads[m].tolist()
                )
                if tri:
                    out.append(f'<path class="arrows" d="{tri}" fill="{c.name()}"/>')
    out.append('<g class="nodes">')
    for j, node_id in enumerate(d.ids):
        c = d.fill[j]
        out.append(
            f'<circle class="node" data-id={quoteattr(node_id)} cx="{xy[j, 0]:.1f}" '
            f'cy="{xy[j, 1]:.1f}" r="{d.radius[j]:.1f}" fill="{c.name()}" '
            f'fill-opacity="{c.alphaF():.3f}"><title>{escape(d.titles[j])}</title></circle>'
        )
    out.append("</g>")
    for j, c, width, extra, symbol in d.rings:
        r = d.radius[j] + extra / 2
        style = (
            f'fill="none" stroke="{c.name()}" stroke-opacity="{c.alphaF():.3f}" '
            f'stroke-width="{width:.1f}"'
        )
        if symbol == "s":
            out.append(
                f'<rect class="mark" x="{xy[j, 0] - r:.1f}" y="{xy[j, 1] - r:.1f}" '
                f'width="{2 * r:.1f}" height="{2 * r:.1f}" {style}/>'
            )
        else:
            out.append(
                f'<circle class="mark" cx="{xy[j, 0]:.1f}" cy="{xy[j, 1]:.1f}" r="{r:.1f}" '
                f"{style}/>"
            )
    out.append(
        f'<g class="labels" font-family="sans-serif" font-size="{FONT_PX}" fill="{d.text.name()}">'
    )
    for j, x, y in _label_boxes(xy, d):
        out.append(f'<text x="{x:.1f}" y="{y:.1f}">{escape(d.labels[j])}</text>')
    out.append("</g>")
    out.append("</svg>")
    Path(path).write_text("\n".join(out), encoding="utf-8")
    return len(d.ids)


# ---- PNG -------------------------------------------------------------------------------------
def render_image(view: GraphView, width: int) -> QImage:
    """The whole shown graph painted into an image ``width`` px wide."""
    d = drawing_of(view)
    width = max(64, int(width))
    _scale, _w, h, xy = _frame(d, width)
    h = int(min(max(64, math.ceil(h)), 16 * width, 32768))
    img = QImage(width, h, QImage.Format.Format_ARGB32_Premultiplied)
    if img.isNull():
        raise OSError(f"cannot make a {width}×{h} image")
    img.fill(d.background)
    p = QPainter(img)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if len(d.edges):
            from anthology.ui.graph_items import _pairs_path, _triangles_path

            grouped = len(d.edge_group) == len(d.edges)
            heads, ok = _arrow_heads(xy, d) if d.arrows else (None, None)
            for g in np.unique(d.edge_group).tolist() if grouped else [0]:
                sel = (d.edge_group == g) if grouped else np.ones(len(d.edges), dtype=bool)
                c = d.edge_colours[int(g) % len(d.edge_colours)]
                pen = QPen(c)
                pen.setWidthF(d.edge_width)
                p.setPen(pen)
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawPath(_pairs_path(xy[d.edges[sel, 0]], xy[d.edges[sel, 1]]))
                if heads is not None and ok is not None:
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(c)
                    p.drawPath(_triangles_path(heads[sel & ok]))
        p.setPen(Qt.PenStyle.NoPen)
        by_colour: dict[int, tuple[QColor, QPainterPath]] = {}
        for j in range(len(d.ids)):
            c = d.fill[j]
            key = c.rgba()
            if key not in by_colour:
                by_colour[key] = (c, QPainterPath())
            r = float(d.radius[j])
            by_colour[key][1].addEllipse(QPointF(xy[j, 0], xy[j, 1]), r, r)
        for c, path in by_colour.values():
            p.setBrush(c)
            p.drawPath(path)
        p.setBrush(Qt.BrushStyle.NoBrush)
        for j, c, width_, extra, symbol in d.rings:
            pen = QPen(c)
            pen.setWidthF(width_)
            p.setPen(pen)
            r = float(d.radius[j] + extra / 2)
            if symbol == "s":
                p.drawRect(QRectF(xy[j, 0] - r, xy[j, 1] - r, 2 * r, 2 * r))
            else:
                p.drawEllipse(QPointF(xy[j, 0], xy[j, 1]), r, r)
        font = QFont()
        font.setPixelSize(FONT_PX)
        p.setFont(font)
        p.setPen(d.text)
        for j, x, y in _label_boxes(xy, d):
            p.drawText(QPointF(x, y), d.labels[j])
    finally:
        p.end()
    return img


def export_png(view: GraphView, path: str | Path, width: int = 2400) -> tuple[int, int]:
    """Write the whole shown graph as a PNG ``width`` px wide; returns (width, height)."""
    img = render_image(view, width)
    if not img.save(str(path), "PNG"):
        raise OSError(f"could not write {path}")
    return img.width(), img.height()
