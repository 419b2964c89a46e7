"""Node labels (ids or titles) in device pixels, hubs first, fading in with zoom, without
overlaps (the grid is :func:`anthology.graph.drawing.claim`), and the relation labels at
close zoom: :class:`LabelLayer`.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
)

from anthology.graph.drawing import claim
from anthology.graph.labels import LabelRank
from anthology.ui.graph.viewport_cache import device_coords, place, zoom_of

__all__ = ["LabelLayer"]


class LabelLayer(pg.GraphicsObject):
    """Node labels (hubs first, fading in with zoom: :class:`~anthology.graph.labels.LabelRank`)
    and relation labels, in one item."""

    MAX_RELATION_LABELS = 150

    def __init__(self) -> None:
        super().__init__()
        self._pos = np.zeros((0, 2))
        self._text: list[str] = []
        self.rank = LabelRank()  # which labels come first (hubs), Qt-free
        self._radius = np.zeros(0)
        self._bounds = QRectF()
        self._margin = 0.0
        self.threshold = 1.0  # zoom (px per layout unit) at which a degree-0 label is opaque
        self._color = QColor(220, 220, 220)
        self._forced = np.zeros(0, dtype=np.int64)
        self._dim = 1.0
        self._font = QFont()
        self._font.setPixelSize(11)
        self._rel_font = QFont()
        self._rel_font.setPixelSize(9)
        self._fm = QFontMetricsF(self._font)
        self._widths: dict[tuple[int, bool], float] = {}
        self._widest: float | None = None
        self._elide: Callable[[str], str] | None = None
        self._short: dict[int, str] = {}
        self._edges = np.zeros((0, 2), dtype=np.int64)
        self._rel_text: Sequence[str | None] | np.ndarray = []
        self._rel_colors: list[QColor] = []
        self._rel_group = np.zeros(0, dtype=np.int64)
        self._rel_has = np.zeros(0, dtype=bool)
        self.painted: Callable[[], None] | None = None  # called after every paint
        self.shown: list[int] = []  # indices labelled by the last paint (tests, SVG export)
        self.relations_shown: list[int] = []  # edge indices whose relation was labelled
        self.alphas: dict[int, float] = {}
        self.texts: dict[int, str] = {}  # the strings the last paint drew, by node
        self._moving = False  # positions changed since the last paint
        self._halo: QColor | None = None
        self._layout_key: tuple = ()
        self._layout_time = -1.0

    def set_graph(
        self,
        text: list[str],
        degree: np.ndarray,
        radius: np.ndarray,
        elide: Callable[[str], str] | None = None,
    ) -> None:
        """``text``: the full labels; ``elide`` shortens one for the zoomed-out view."""
        self._text = list(text)
        self._widest = None  # the widest label as drawn (fit_margin): measured again
        self._elide = elide
        self._short.clear()
        self.rank = LabelRank(degree)
        self._radius = np.asarray(radius, dtype=np.float64)
        self._widths.clear()
        self._forced = np.zeros(0, dtype=np.int64)
        self.update()

    def fit_margin(self) -> tuple[float, float]:
        """The screen pixels a fit leaves around the nodes so their labels show: half the
        widest label as drawn zoomed out (elided), and a label's height under its node."""
        if not self._text:
            return (0.0, 0.0)
        if self._widest is None:  # once a graph (a local graph refits at every click)
            shorten = self._elide or (lambda t: t)
            # the longest few (by characters) stand for all: measuring 100,000 would cost
            longest = heapq.nlargest(50, self._text, key=len)
            self._widest = max(self._fm.horizontalAdvance(shorten(t)) for t in longest)
        radius = float(self._radius.max()) if len(self._radius) else 0.0
        return (self._widest / 2 + 6, self._fm.height() + radius + 6)

    def set_radius(self, radius: np.ndarray) -> None:
        self._radius = np.asarray(radius, dtype=np.float64)
        self.update()

    def set_relations(
        self,
        edges: np.ndarray,
        rel_text: Sequence[str | None] | np.ndarray,
        group: np.ndarray,
        colors: list[QColor],
    ) -> None:
        """``rel_text[k]``: edge k's relation name (None for a mention; a list or an object
        array, read only for the few edges labelled at close zoom)."""
        self._edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        self._rel_text = rel_text
        self._rel_group = np.asarray(group, dtype=np.int64)
        self._rel_colors = list(colors)
        if isinstance(rel_text, np.ndarray):  # vectorised: a local graph per click
            self._rel_has = np.not_equal(rel_text, cast(Any, None))
        else:  # once, not per paint (50,000 Python calls cost ~5 ms a frame)
            self._rel_has = np.fromiter((t is not None for t in rel_text), bool, len(rel_text))
        self.update()

    def set_positions(self, pos: np.ndarray) -> None:
        place(self, pos)
        self._moving = True
        self.update()

    def set_style(self, color: QColor, threshold: float, halo: QColor | None = None) -> None:
        """``halo``: the plot's background, laid under each label so it reads over nodes
        and edges."""
        self._color = QColor(color)
        self.threshold = max(1e-6, float(threshold))
        self._halo = None if halo is None else QColor(halo)
        self.update()

    def set_forced(self, idx: np.ndarray | None, dim: float) -> None:
        self._forced = np.zeros(0, dtype=np.int64) if idx is None else np.asarray(idx, np.int64)
        self._dim = float(dim)
        self.update()

    def viewTransformChanged(self) -> None:
        super().viewTransformChanged()
        px = self.pixelLength(pg.Point(1, 0)) if self.getViewBox() is not None else None
        margin = 0.0 if px is None else float(px) * 200.0
        if margin != self._margin and math.isfinite(margin):
            self.prepareGeometryChange()
            self._margin = margin

    def boundingRect(self) -> QRectF:
        if self._bounds.isNull():
            return QRectF()
        m = self._margin
        return self._bounds.adjusted(-m, -m, m, m)

    FULL_CHARS = 90  # even zoomed in, a paragraph-long title is cut

    def label(self, i: int, full: bool) -> str:
        """Node ``i``'s label: in full when zoomed in, elided when zoomed out."""
        text = self._text[i]
        if full:
            return text if len(text) <= self.FULL_CHARS else text[: self.FULL_CHARS - 1] + "…"
        if self._elide is None:
            return text
        short = self._short.get(i)
        if short is None:
            short = self._short[i] = self._elide(text)
        return short

    def _width(self, i: int, full: bool = False) -> float:
        w = self._widths.get((i, full))
        if w is None:
            w = self._fm.horizontalAdvance(self.label(i, full))
            self._widths[(i, full)] = w
        return w

    def alpha_for(self, zoom: float) -> np.ndarray:
        """Opacity of every label at ``zoom``: 0 below the threshold, ramping up to 1."""
        return self.rank.alpha(zoom, self.threshold)

    def paint(self, p: QPainter, option, widget=None) -> None:
        try:
            self._paint_labels(p, widget)
        finally:
            if self.painted is not None:
                self.painted()

    # While the layout moves, the choice of labels (hubs first, no overlaps: the costly
    # part) is redone at most every RELAYOUT_S; the frames between draw the same labels at
    # their new places.
    RELAYOUT_S = 0.3

    def _paint_labels(self, p: QPainter, widget) -> None:
        n = len(self._pos)
        if n == 0 or len(self._text) != n:
            self.relations_shown, self.shown, self.alphas = [], [], {}
            return
        tr = p.transform()
        zoom = zoom_of(tr)
        d = device_coords(tr, self._pos)
        view = QRectF(p.viewport()) if widget is None else QRectF(widget.rect())
        key = (round(zoom, 9), len(self._forced), self._dim, len(self._text), view)
        now = time.monotonic()
        if (
            self._moving
            and key == self._layout_key
            and now - self._layout_time < self.RELAYOUT_S
            and self.shown
        ):
            self._moving = False
            self._repaint_labels(p, d)
            return
        self._moving = False
        self._layout_key, self._layout_time = key, now
        self.relations_shown = []
        self.shown = []
        self.alphas = {}
        vis = (
            np.isfinite(d).all(axis=1)
            & (d[:, 0] > view.left() - 100)
            & (d[:, 0] < view.right() + 100)
            & (d[:, 1] > view.top() - 20)
            & (d[:, 1] < view.bottom() + 20)
        )
        choice = self.rank.choose(vis, zoom, self.threshold, self._forced)
        order = choice.nodes

        p.save()
        p.resetTransform()
        p.setFont(self._font)
        ascent = self._fm.ascent()
        h = self._fm.height()
        cell = 64.0
        grid: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
        idx = order.tolist()
        xy = d[order].tolist()
        rad = (self._radius[order] if len(self._radius) == n else np.full(len(order), 4.0)).tolist()
        alist = np.where(choice.forced, 1.0, choice.alpha * self._dim).tolist()
        full_list = choice.full.tolist()
        base = QColor(self._color)
        base_alpha = base.alphaF()
        colours: dict[int, QColor] = {}
        self.texts = {}
        for i, (px, py), r, a, full in zip(idx, xy, rad, alist, full_list, strict=True):
            if a <= 0.01:
                continue
            w = self._width(i, full)
            x0, y0 = px - w / 2 - 1, py + r + 2.0
            if not claim(grid, cell, (x0, y0, x0 + w + 2, y0 + h)):
                continue
            level = round(a * 20)
            color = colours.get(level)
            if color is None:
                color = QColor(base)
                color.setAlphaF(max(0.0, min(1.0, level / 20 * base_alpha)))
                colours[level] = color
            if self._halo is not None:
                halo = QColor(self._halo)
                halo.setAlphaF(0.7 * min(1.0, a))
                p.fillRect(QRectF(x0, y0, w + 2, h), halo)
            p.setPen(color)
            text = self.label(i, full)
            p.drawText(QPointF(x0 + 1, y0 + ascent), text)
            self.shown.append(i)
            self.texts[i] = text
            self.alphas[i] = a
        self._paint_relations(p, d, zoom, view, grid, cell)
        p.restore()

    def _repaint_labels(self, p: QPainter, d: np.ndarray) -> None:
        """The last chosen labels at the nodes' new places (a moving layout's frames)."""
        p.save()
        p.resetTransform()
        p.setFont(self._font)
        ascent = self._fm.ascent()
        base = QColor(self._color)
        rad = self._radius if len(self._radius) == len(d) else np.full(len(d), 4.0)
        for i in self.shown:
            text = self.texts.get(i, "")
            if not np.isfinite(d[i]).all():
                continue
            color = QColor(base)
            color.setAlphaF(max(0.0, min(1.0, self.alphas.get(i, 1.0) * base.alphaF())))
            p.setPen(color)
            w = self._fm.horizontalAdvance(text)
            p.drawText(QPointF(d[i, 0] - w / 2, d[i, 1] + rad[i] + 2.0 + ascent), text)
        p.restore()

    RELATION_ZOOM = 2.5  # px per layout unit from which relation labels are drawn

    def _paint_relations(
        self, p: QPainter, d: np.ndarray, zoom: float, view: QRectF, grid: dict, cell: float
    ) -> None:
        """Relation names at the middle of long enough edges, never over a node label."""
        if len(self._edges) == 0 or len(self._rel_text) != len(self._edges):
            return
        if zoom < self.RELATION_ZOOM:
            return
        a, b = d[self._edges[:, 0]], d[self._edges[:, 1]]
        mid = (a + b) / 2
        length = np.hypot(*(b - a).T)
        has = self._rel_has
        if len(has) != len(self._edges) or not has.any():
            return
        ok = (
            has
            & (length > 90)
            & (mid[:, 0] > view.left())
            & (mid[:, 0] < view.right())
            & (mid[:, 1] > view.top())
            & (mid[:, 1] < view.bottom())
        )
        idx = np.flatnonzero(ok)[: self.MAX_RELATION_LABELS]
        if len(idx) == 0:
            return
        p.setFont(self._rel_font)
        fm = QFontMetricsF(self._rel_font)
        h = fm.height()
        for k in idx.tolist():
            text = self._rel_text[k] or ""
            w = fm.horizontalAdvance(text)
            if w > length[k] - 30:
                continue
            x0, y1 = mid[k, 0] - w / 2 - 1, mid[k, 1] - 3 + fm.descent()
            x1, y0 = x0 + w + 2, y1 - h
            if not claim(grid, cell, (x0, y0, x1, y1)):
                continue
            g = int(self._rel_group[k]) if len(self._rel_group) > k else 0
            color = QColor(
                self._rel_colors[g % len(self._rel_colors)] if self._rel_colors else self._color
            )
            color.setAlphaF(min(1.0, 0.9 * self._dim + 0.1))
            p.setPen(color)
            p.drawText(QPointF(mid[k, 0] - w / 2, mid[k, 1] - 3), text)
            self.relations_shown.append(k)
