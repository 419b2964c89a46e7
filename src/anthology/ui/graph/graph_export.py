"""The whole shown graph (not the viewport) as SVG or as a PNG of a chosen width.

Both paint a :class:`~anthology.graph.drawing.Drawing`, the plain snapshot the view makes
of what it shows (``GraphView.drawing()``): this module never reads the view. The SVG is
written by the Qt-free :func:`anthology.graph.drawing.svg`; here Qt only measures the
labels' text and paints the PNG with ``QPainter``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
)

from anthology.graph.drawing import (
    FONT_PX,
    Drawing,
    Rgba,
    export_arrow_heads,
    frame,
    label_spots,
    svg,
)
from anthology.ui.graph.edge_layer import pairs_path, triangles_path

__all__ = ["export_png", "export_svg", "render_image"]


def _font() -> QFont:
    font = QFont()
    font.setPixelSize(FONT_PX)
    return font


def _metrics() -> tuple[Callable[[str], float], float, float]:
    """(text width, line height, ascent) of the exports' label font."""
    fm = QFontMetricsF(_font())
    return fm.horizontalAdvance, fm.height(), fm.ascent()


def _qcolor(c: Rgba) -> QColor:
    return QColor(*c)


def export_svg(d: Drawing, path: str | Path) -> int:
    """Write every node and edge of ``d`` to ``path`` as SVG; returns the node count."""
    Path(path).write_text(svg(d, *_metrics()), encoding="utf-8")
    return len(d.ids)


def render_image(d: Drawing, width: int) -> QImage:
    """``d`` painted into an image ``width`` px wide (the height follows its aspect)."""
    width = max(64, int(width))
    _scale, _w, h, xy = frame(d, width)
    h = int(min(max(64, math.ceil(h)), 16 * width, 32768))
    img = QImage(width, h, QImage.Format.Format_ARGB32_Premultiplied)
    if img.isNull():
        raise OSError(f"cannot make a {width}×{h} image")
    img.fill(_qcolor(d.background))
    p = QPainter(img)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if len(d.edges):
            heads, ok = export_arrow_heads(xy, d) if d.arrows else (None, None)
            for rgba, sel in d.edge_groups():
                c = _qcolor(rgba)
                pen = QPen(c)
                pen.setWidthF(d.edge_width)
                p.setPen(pen)
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawPath(pairs_path(xy[d.edges[sel, 0]], xy[d.edges[sel, 1]]))
                if heads is not None and ok is not None:
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(c)
                    p.drawPath(triangles_path(heads[sel & ok]))
        p.setPen(Qt.PenStyle.NoPen)
        by_colour: dict[Rgba, QPainterPath] = {}
        for j in range(len(d.ids)):
            r = float(d.radius[j])
            by_colour.setdefault(d.fill[j], QPainterPath()).addEllipse(
                QPointF(xy[j, 0], xy[j, 1]), r, r
            )
        for rgba, path in by_colour.items():
            p.setBrush(_qcolor(rgba))
            p.drawPath(path)
        p.setBrush(Qt.BrushStyle.NoBrush)
        for j, ring, width_, extra, symbol in d.rings:
            pen = QPen(_qcolor(ring))
            pen.setWidthF(width_)
            p.setPen(pen)
            r = float(d.radius[j] + extra / 2)
            if symbol == "s":
                p.drawRect(QRectF(xy[j, 0] - r, xy[j, 1] - r, 2 * r, 2 * r))
            elif symbol == "d":  # a canvas's diamond
                x, y = float(xy[j, 0]), float(xy[j, 1])
                p.drawPolygon(QPolygonF([QPointF(x, y - r), QPointF(x + r, y),
                                         QPointF(x, y + r), QPointF(x - r, y)]))  # fmt: skip
            else:
                p.drawEllipse(QPointF(xy[j, 0], xy[j, 1]), r, r)
        p.setFont(_font())
        p.setPen(_qcolor(d.text))
        for j, x, y in label_spots(xy, d, *_metrics()):
            p.drawText(QPointF(x, y), d.labels[j])
    finally:
        p.end()
    return img


def export_png(d: Drawing, path: str | Path, width: int = 2400) -> tuple[int, int]:
    """Write ``d`` as a PNG ``width`` px wide; returns (width, height)."""
    img = render_image(d, width)
    if not img.save(str(path), "PNG"):  # type: ignore[call-overload]  # stubs say bytes
        raise OSError(f"could not write {path}")
    return img.width(), img.height()
