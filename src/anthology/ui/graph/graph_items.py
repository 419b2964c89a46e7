"""The pyqtgraph items of the graph view: one item per layer, never one per node.

* :class:`EdgeLayer` paints every edge.  Edges are grouped by colour (one
  ``QPainterPath`` per relation colour, built from numpy with ``pg.arrayToQPath``) and
  rendered into a device-resolution image cache covering the viewport plus a margin.
  Panning blits the cache; zooming draws the cache scaled (and re-renders it sharp a
  moment after the wheel stops); only a position or style change rebuilds the paths.
* :class:`NodeLayer` is a ``pg.ScatterPlotItem`` (pixel-mode sprite atlas, one
  ``drawPixmapFragments`` call) with vectorised hit testing and the mouse behaviour of
  the view: click, double-click, drag, hover, context menu.
* :class:`LabelLayer` paints the node labels (ids or titles) in device pixels, hubs first,
  fading in with zoom, without overlaps; and the relation labels at close zoom.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QTransform,
)
from PySide6.QtWidgets import QWidget

from anthology.graph.drawing import arrow_heads, claim

__all__ = ["EdgeLayer", "LabelLayer", "NodeLayer", "PassiveScatter", "device_coords"]


def device_coords(tr: QTransform, pos: np.ndarray) -> np.ndarray:
    """Map ``(n, 2)`` item coordinates through an affine ``QTransform`` (vectorised)."""
    if pos.size == 0:
        return np.zeros((0, 2))
    out = np.empty_like(pos, dtype=np.float64)
    x, y = pos[:, 0], pos[:, 1]
    out[:, 0] = tr.m11() * x + tr.m21() * y + tr.dx()
    out[:, 1] = tr.m12() * x + tr.m22() * y + tr.dy()
    return out


def _clip_codes(px: np.ndarray, py: np.ndarray, clip: QRectF) -> np.ndarray:
    """Per point, the sides of ``clip`` it lies beyond, as Cohen–Sutherland's bits (left 1,
    right 2, above 4, below 8); a point that is not finite, 16."""
    code = (px < clip.left()).astype(np.uint8)
    code |= (px > clip.right()).astype(np.uint8) << 1
    code |= (py < clip.top()).astype(np.uint8) << 2
    code |= (py > clip.bottom()).astype(np.uint8) << 3
    code[~(np.isfinite(px) & np.isfinite(py))] = 16
    return code


def _inside(code: np.ndarray, s: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The segments ``s[i]``–``t[i]`` that may cross the clip: not both ends beyond the
    same side, and both placed. Codes are per node, so a test per edge is one AND
    (comparing both ends' coordinates edge by edge cost twice as much at 55,000 edges)."""
    cs, ct = code[s], code[t]
    return ((cs & ct) == 0) & (((cs | ct) & 16) == 0)


def _bounds(pos: np.ndarray) -> QRectF:
    if pos.size == 0:
        return QRectF()
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    if np.isfinite(lo).all() and np.isfinite(hi).all():  # every node placed: no mask, no copy
        return QRectF(float(lo[0]), float(lo[1]), max(float(hi[0] - lo[0]), 1e-6),
                      max(float(hi[1] - lo[1]), 1e-6))  # fmt: skip
    finite = np.isfinite(pos).all(axis=1)
    if not finite.any():
        return QRectF()
    p = pos[finite]
    x0, y0 = p.min(axis=0)
    x1, y1 = p.max(axis=0)
    return QRectF(float(x0), float(y0), max(float(x1 - x0), 1e-6), max(float(y1 - y0), 1e-6))


def _zoom(tr: QTransform) -> float:
    return math.sqrt(abs(tr.m11() * tr.m22() - tr.m12() * tr.m21())) or 1e-9


def _same_linear(a: QTransform, b: QTransform) -> bool:
    """Same scale/rotation (translation may differ)."""
    return (
        abs(a.m11() - b.m11()) <= 1e-9 * abs(a.m11()) + 1e-12
        and abs(a.m22() - b.m22()) <= 1e-9 * abs(a.m22()) + 1e-12
        and abs(a.m12() - b.m12()) <= 1e-12
        and abs(a.m21() - b.m21()) <= 1e-12
    )


class ViewportCache:
    """A device-resolution image of one layer covering the viewport plus a margin.

    ``paint`` blits it while only the translation changes (panning), draws it scaled while
    the zoom changes (and schedules a sharp re-render ``REFRESH_MS`` after the last zoom
    step), and re-renders when the layer's ``version`` changed, when panning left the
    cached area, or when a stale zoom would leave too much of the view uncovered.

    A layer that is slow to render (``progressive()`` says so) and can draw in ``steps``
    renders *progressively*: the new image is drawn a slice of at most ``SLICE_S`` per turn
    of the event loop while the view shows the stale image (or a quick live paint), and
    replaces it when complete. Qt's QPainter keeps the GIL, so a thread would not help; at
    50,000 edges a sharp render took 0.1–1.3 s and the window froze that long after every
    zoom and when a layout came to rest (issue 14).
    """

    MARGIN = 0.35  # cache this fraction of the viewport beyond each side
    REFRESH_MS = 120
    MIN_COVER = 0.6  # a stale zoomed image must cover this much of the view

    SLICE_S = 0.012  # a progressive render's work per turn of the event loop

    def __init__(self, item, render, steps=None, progressive=None) -> None:
        self.item = item
        self.render_fn = render  # (painter, item→image transform, image clip, item rect)
        self.steps_fn = steps  # the same, as a generator yielding between chunks
        self.progressive = progressive or (lambda: False)
        self._job: _Job | None = None
        self.job_timer = QTimer()
        self.job_timer.setSingleShot(True)
        self.job_timer.setInterval(0)
        self.job_timer.timeout.connect(self._step)
        self._last_paint: tuple | None = None  # (tr, view, bounds, dpr, version)
        self.image: QImage | None = None
        self.version = -1
        self.tr = QTransform()
        self.item_rect = QRectF()
        self.timer = QTimer()
        self.timer.setSingleShot(True)
        self.timer.setInterval(self.REFRESH_MS)
        self.timer.timeout.connect(self.sharpen)
        self.stats = {"render": 0, "blit": 0, "stale": 0, "live": 0, "progressive": 0,
                      "slices": 0}  # fmt: skip
        self.last_render_s = 0.0
        self._last_change = -1.0
        self._seen_version = -1
        self._live = False  # the current version was painted live (it is moving)
        # once the movement stops, one sharp (cached) render; while it goes on, none
        self.settle_timer = QTimer()
        self.settle_timer.setSingleShot(True)
        self.settle_timer.setInterval(int(self.ANIMATING_S * 1000) + 50)
        self.settle_timer.timeout.connect(self.item.update)

    ANIMATING_S = 1.5  # content changed this recently: paint live, no image

    def expect_motion(self) -> None:
        """A simulation is starting: its first frame is painted live too (rendering the
        image for it cost a second at 50,000 edges, and the next frame throws it away)."""
        self._last_change = time.monotonic()

    def refresh(self) -> None:
        """Drop the image now; the next paint renders sharp, at once (exports call this)."""
        self.timer.stop()
        self.cancel()
        self.version = -1
        self.item.update()

    def sharpen(self) -> None:
        """After a zoom gesture: render the image sharp for the current view, progressively
        for a slow layer (the scaled stale image stays up meanwhile), else at the next
        paint."""
        last = self._last_paint
        if last is None or self.steps_fn is None or not self.progressive():
            self.refresh()
            return
        tr, view, bounds, dpr, version = last
        self._start(tr, view, bounds, dpr, version)

    @property
    def busy(self) -> bool:
        """A progressive render is under way."""
        return self._job is not None

    def cancel(self) -> None:
        """Abandon a progressive render (the view moved on, or the item is going away)."""
        job, self._job = self._job, None
        self.job_timer.stop()
        if job is not None:
            job.close()

    def _start(self, tr: QTransform, view: QRectF, bounds: QRectF, dpr: float, version: int):
        job = self._job
        if job is not None and job.version == version and job.tr == tr:
            return  # already drawing exactly this
        self.cancel()
        img, shifted, clip, item_rect = self._prepare(tr, view, bounds, dpr)
        painter = QPainter(img)
        self._job = _Job(img, painter, self.steps_fn(painter, shifted, clip, item_rect),
                         QTransform(tr), item_rect, version)  # fmt: skip
        self.job_timer.start()

    def _step(self) -> None:
        job = self._job
        if job is None:
            return
        t0 = time.perf_counter()
        end = t0 + self.SLICE_S
        self.stats["slices"] += 1
        try:
            while time.perf_counter() < end:
                next(job.steps)
        except StopIteration:
            job.work += time.perf_counter() - t0
            job.close()
            self._job = None
            self.image, self.tr, self.item_rect = job.image, job.tr, job.item_rect
            self.version = job.version
            self.stats["render"] += 1
            self.stats["progressive"] += 1
            self.last_render_s = job.work
            self.item.update()
            return
        except BaseException:
            self.cancel()
            raise
        job.work += time.perf_counter() - t0
        self.job_timer.start()

    def paint(
        self,
        p: QPainter,
        widget,
        bounds: QRectF,
        version: int,
        opacity: float | None = None,
    ) -> bool:
        """Paint from the cache; False when nothing had to be drawn."""
        tr = p.transform()
        view = QRectF(widget.rect())
        need = view.intersected(tr.mapRect(bounds).adjusted(-60, -60, 60, 60))
        if need.isEmpty():
            return False
        dpr = widget.devicePixelRatioF()
        self._last_paint = (QTransform(tr), view, QRectF(bounds), dpr, version)
        job = self._job
        if job is not None and (job.version != version or not _same_linear(tr, job.tr)):
            self.cancel()  # the picture it draws is not wanted any more
        now = time.monotonic()
        live = False
        if version != self._seen_version:
            # the content changes (simulation frames): while it keeps changing, paint
            # straight to the viewport; an image would be thrown away at the next frame
            live = self._live = now - self._last_change < self.ANIMATING_S
            self._seen_version = version
            self._last_change = now
        elif self._live and self.version != version:
            # a second paint of a moving frame (another layer asked for it, or a pan): live
            # again.  Rendering the cache here cost a full sharp render (~300 ms at 50,000
            # edges) per frame of a fresh layout: the stalls of issue 14.
            live = now - self._last_change < self.ANIMATING_S
        if live:
            self.settle_timer.start()
            self._paint_live(p, tr, view, opacity)
            return True
        if self.image is not None and self.version == version:
            dev = tr.mapRect(self.item_rect)
            same = _same_linear(tr, self.tr)
            if same and dev.adjusted(-0.5, -0.5, 0.5, 0.5).contains(need):
                self._blit(p, dev, opacity)
                return True
            if not same:
                inter = dev.intersected(need)
                covered = inter.width() * inter.height() / max(need.width() * need.height(), 1e-9)
                if covered > self.MIN_COVER:
                    self.stats["stale"] += 1
                    p.save()
                    p.resetTransform()
                    if opacity is not None:
                        p.setOpacity(opacity)
                    p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
                    p.drawImage(dev, self.image)
                    p.restore()
                    if self._job is None:  # else the sharp one is being drawn already
                        self.timer.start()
                    return True
        if self.steps_fn is not None and self.progressive():
            # slow to render: a quick live paint now, the sharp image a slice at a time
            self._start(tr, view, bounds, dpr, version)
            self._paint_live(p, tr, view, opacity)
            return True
        self._render(tr, view, bounds, dpr, version)
        self._blit(p, tr.mapRect(self.item_rect), opacity)
        return True

    def _paint_live(self, p: QPainter, tr: QTransform, view: QRectF, opacity: float | None):
        """Draw the layer straight onto the view (its live, cheaper form), no image."""
        self.stats["live"] += 1
        p.save()
        if opacity is not None:
            p.setOpacity(opacity)
        inv, _ok = tr.inverted()
        self.render_fn(p, tr, view, inv.mapRect(view), True)
        p.restore()

    def _blit(self, p: QPainter, dev: QRectF, opacity: float | None) -> None:
        self.stats["blit"] += 1
        p.save()
        p.resetTransform()
        if opacity is not None:
            p.setOpacity(opacity)
        if self.image is not None:  # a blit follows a render: there is one
            p.drawImage(QPointF(round(dev.x()), round(dev.y())), self.image)
        p.restore()

    def _prepare(self, tr: QTransform, view: QRectF, bounds: QRectF, dpr: float):
        """A transparent image for the view plus the margin: (image, item→image transform,
        image clip, the item rect it covers)."""
        mw, mh = view.width() * self.MARGIN, view.height() * self.MARGIN
        rect = view.adjusted(-mw, -mh, mw, mh).intersected(
            tr.mapRect(bounds).adjusted(-60, -60, 60, 60)
        )
        rect = QRectF(
            math.floor(rect.x()),
            math.floor(rect.y()),
            math.ceil(rect.width()) + 1,
            math.ceil(rect.height()) + 1,
        )
        w, h = max(1, int(rect.width() * dpr)), max(1, int(rect.height() * dpr))
        img = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
        img.setDevicePixelRatio(dpr)
        img.fill(Qt.GlobalColor.transparent)
        shifted = QTransform(tr)
        shifted *= QTransform.fromTranslate(-rect.x(), -rect.y())
        inv, _ok = tr.inverted()
        return img, shifted, QRectF(0, 0, rect.width(), rect.height()), inv.mapRect(rect)

    def _render(self, tr: QTransform, view: QRectF, bounds: QRectF, dpr: float, version: int):
        t0 = time.perf_counter()
        self.cancel()
        img, shifted, clip, item_rect = self._prepare(tr, view, bounds, dpr)
        painter = QPainter(img)
        try:
            self.render_fn(painter, shifted, clip, item_rect)
        finally:
            painter.end()
        self.image = img
        self.tr = QTransform(tr)
        self.item_rect = item_rect
        self.version = version
        self.stats["render"] += 1
        self.last_render_s = time.perf_counter() - t0


class _Job:
    """A progressive render under way: its image, open painter and remaining steps."""

    def __init__(self, image: QImage, painter: QPainter, steps, tr: QTransform,
                 item_rect: QRectF, version: int) -> None:  # fmt: skip
        self.image, self.painter, self.steps = image, painter, steps
        self.tr, self.item_rect, self.version = tr, item_rect, version
        self.work = 0.0  # seconds of drawing, over all its slices

    def close(self) -> None:
        self.steps.close()
        if self.painter.isActive():
            self.painter.end()


def _place(item: EdgeLayer | LabelLayer, pos: np.ndarray) -> None:
    """Give ``item`` new positions; its bounding rect follows them, announced to Qt first
    (as a change of an item's geometry must be)."""
    item._pos = pos
    b = _bounds(pos)
    if b != item._bounds:
        item.prepareGeometryChange()
        item._bounds = b


class EdgeLayer(pg.GraphicsObject):
    """All edges of the graph in one item, drawn through a :class:`ViewportCache`."""

    def __init__(self) -> None:
        super().__init__()
        self._pos = np.zeros((0, 2))
        self._edges = np.zeros((0, 2), dtype=np.int64)
        self._group = np.zeros(0, dtype=np.int64)
        self._colors: list[QColor] = [QColor(128, 128, 128, 120)]
        self._radius = np.zeros(0)  # node radius in px, to stop arrows at the rim
        self._width = 1.0
        self._arrows = False
        self._bounds = QRectF()
        self._version = 0
        self._geom_version = 0
        self._paths_version = -1
        self._paths: list[tuple[int, int, object]] = []
        self._group_list: list[int] | None = None
        self._dim = 1.0
        self._hl_edges = np.zeros(0, dtype=np.int64)
        self._hl_color = QColor(255, 255, 255)
        self.last_density_opacity = 1.0
        self._perms: dict[int, np.ndarray] = {}  # the live frames' edge order, per edge count
        self.cache = ViewportCache(self, self._render_into, self._render_steps,
                                   self._is_slow)  # fmt: skip
        self.stats = self.cache.stats
        self.stats["direct"] = 0

    # ---- data ----------------------------------------------------------------------------
    def set_graph(self, edges: np.ndarray, group: np.ndarray, colors: list[QColor]) -> None:
        self._edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        self._group = np.asarray(group, dtype=np.int64)
        self._colors = list(colors) or [QColor(128, 128, 128)]
        self._hl_edges = np.zeros(0, dtype=np.int64)
        self._group_list = None
        self._geom_version += 1
        self._touch()

    def set_positions(self, pos: np.ndarray) -> None:
        _place(self, pos)
        self._geom_version += 1
        self._touch()

    def set_style(self, width: float, arrows: bool, radius: np.ndarray | None = None) -> None:
        self._width = max(0.1, float(width))
        self._arrows = bool(arrows)
        if radius is not None:
            self._radius = np.asarray(radius, dtype=np.float64)
        self._touch()

    def set_highlight(self, edge_idx: np.ndarray | None, dim: float, color: QColor) -> None:
        """Draw the whole layer at opacity ``dim`` and ``edge_idx`` on top in ``color``."""
        self._hl_edges = (
            np.zeros(0, dtype=np.int64) if edge_idx is None else np.asarray(edge_idx, np.int64)
        )
        self._dim = float(dim)
        self._hl_color = QColor(color)
        self.update()

    def _touch(self) -> None:
        self._version += 1
        self.update()

    def refresh(self) -> None:
        """Drop the image cache now (the next paint renders sharp; exports call this)."""
        self.cache.refresh()

    @property
    def last_render_s(self) -> float:
        return self.cache.last_render_s

    def boundingRect(self) -> QRectF:
        if self._bounds.isNull():
            return QRectF()
        return self._bounds

    # ---- painting ------------------------------------------------------------------------
    def paint(self, p: QPainter, option, widget=None) -> None:
        if len(self._edges) == 0 or len(self._pos) == 0:
            return
        tr = p.transform()
        if widget is None or self._exportOpts is not False:
            self._paint_direct(p)
            return
        if self.cache.paint(p, widget, self._bounds, self._version, self._dim):
            self._paint_highlight(p, tr)

    def _render_into(
        self, p: QPainter, tr: QTransform, clip: QRectF, _item_rect, live: bool = False
    ) -> None:
        self._draw_edges(p, tr, clip, live)

    def _render_steps(self, p: QPainter, tr: QTransform, clip: QRectF, _item_rect):
        """The sharp render in steps (a chunk of edges, or of arrowheads, each)."""
        return self._edge_steps(p, tr, clip, False)

    # above this many edges, or once a sharp render took PROGRESSIVE_S, renders go in slices
    PROGRESSIVE_EDGES = 8000
    PROGRESSIVE_S = 0.04
    CHUNK_EDGES = 500  # edges per path: one step of a progressive render (~5–15 ms at 10k)
    SUBLAYERS = 4  # a group's edges are dealt over this many opaque layers (_layered_steps)

    def _is_slow(self) -> bool:
        return (
            len(self._edges) > self.PROGRESSIVE_EDGES
            or self.cache.last_render_s > self.PROGRESSIVE_S
        )

    def _segments(self, tr: QTransform, clip: QRectF, idx: np.ndarray | None = None):
        """Device-space endpoints of the (visible) edges: (a, b, group) arrays."""
        e = self._edges if idx is None else self._edges[idx]
        g = self._group if idx is None else self._group[idx]
        d = device_coords(tr, self._pos)
        ok = _inside(_clip_codes(d[:, 0], d[:, 1], clip), e[:, 0], e[:, 1])
        e = e[ok]
        return d[e[:, 0]], d[e[:, 1]], g[ok], e[:, 1]

    def _pen(self, color: QColor, width: float) -> QPen:
        pen = QPen(color)
        pen.setWidthF(width)
        pen.setCosmetic(True)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        return pen

    def _item_paths(self) -> list[tuple[int, int, object]]:
        """The edges as QPainterPaths in item coordinates, (group, sublayer, path) each;
        rebuilt only when the positions or the edges change (zoom and pan re-use them)."""
        if self._paths_version != self._geom_version:
            finite = np.asarray(np.isfinite(self._pos).all(axis=1))
            self._paths = self._group_paths(finite[self._edges[:, 0]] & finite[self._edges[:, 1]])
            self._paths_version = self._geom_version
        return self._paths

    def _group_paths(
        self, keep: np.ndarray, sublayers: int | None = None
    ) -> list[tuple[int, int, object]]:
        """The ``keep`` edges of each colour group, dealt round ``sublayers`` (SUBLAYERS:
        the opaque layers of :meth:`_layered_steps`), in paths of at most CHUNK_EDGES (the
        steps of a progressive render)."""
        pos, e = self._pos, self._edges
        layers = self.SUBLAYERS if sublayers is None else max(1, sublayers)
        out: list[tuple[int, int, object]] = []
        for k in self._groups():
            sel = np.flatnonzero(keep & (self._group == k))
            for s in range(layers):
                part = sel[s::layers]
                for c in range(0, len(part), self.CHUNK_EDGES):
                    chunk = part[c : c + self.CHUNK_EDGES]
                    out.append((int(k), s, pairs_path(pos[e[chunk, 0]], pos[e[chunk, 1]])))
        return out

    # Rasterising cost grows with the drawn length: anti-alias only below AA_BUDGET pixels
    # of visible edge length; while the layout moves, draw at most LIVE_BUDGET pixels (the
    # early, tangled frames of a big graph would otherwise take a second each).
    AA_BUDGET = 0.6e6
    LIVE_BUDGET = 0.9e6
    LIVE_AA_BUDGET = 0.4e6

    def _live_order(self) -> np.ndarray:
        m = len(self._edges)
        perm = self._perms.pop(m, None)
        if perm is None:  # kept per size: going back and forth between two graphs
            perm = np.random.default_rng(m).permutation(m)
            while len(self._perms) >= 4:
                del self._perms[next(iter(self._perms))]
        self._perms[m] = perm
        return perm

    def _pixel_lengths(self, tr: QTransform, clip: QRectF) -> np.ndarray:
        """Each edge's length on screen (px), cut to the view's diagonal; 0 for an edge
        wholly outside ``clip`` (or with an unplaced end)."""
        d = device_coords(tr, self._pos)
        px, py = d[:, 0], d[:, 1]
        s, t = self._edges[:, 0], self._edges[:, 1]
        length = np.hypot(px[t] - px[s], py[t] - py[s])
        np.minimum(length, math.hypot(clip.width(), clip.height()), out=length)
        length[~_inside(_clip_codes(px, py, clip), s, t)] = 0.0
        return length

    def _draw_edges(self, p: QPainter, tr: QTransform, clip: QRectF, live: bool = False) -> None:
        for _ in self._edge_steps(p, tr, clip, live):
            pass

    def _edge_steps(self, p: QPainter, tr: QTransform, clip: QRectF, live: bool = False):
        """Draw the edges (then the arrowheads), yielding after each path: all at once
        for a paint, a slice per event-loop turn for a progressive render."""
        if len(self._edges) == 0:
            return
        length = self._pixel_lengths(tr, clip)
        total = float(length.sum())
        # frames of a moving layout are drawn without anti-aliasing (a third of the cost)
        # unless they are small; a still picture is anti-aliased up to AA_BUDGET
        aa_budget = self.LIVE_AA_BUDGET if live else self.AA_BUDGET
        p.setRenderHint(QPainter.RenderHint.Antialiasing, total <= aa_budget)
        if not live or total <= self.LIVE_BUDGET:
            paths = self._item_paths()
        else:
            # a stable subset, the same edges from frame to frame (a fixed shuffled order,
            # no sort per frame), up to the budget of drawn length
            perm = self._live_order()
            keep = np.zeros(len(length), dtype=bool)
            keep[perm[np.cumsum(length[perm]) <= self.LIVE_BUDGET]] = True
            paths = self._group_paths(keep, sublayers=1)  # stroked translucent: no layers
            self.stats["decimated"] = self.stats.get("decimated", 0) + 1
        fade = self.density_opacity(total, clip)
        dev = p.device()
        # opaque layers for a big still picture; a live frame is decimated already (its
        # layers' allocation and compositing would cost it more than they save), and a
        # vector device (SVG, a printer) keeps every stroke
        if live or total <= aa_budget or not isinstance(dev, QImage | QWidget):
            yield from self._translucent_steps(p, tr, paths, fade)
        else:
            yield from self._layered_steps(p, tr, paths, fade)
        if not self._arrows:
            return
        a, b, g, ends = self._segments(tr, clip)
        if len(a) == 0:
            return
        heads, ok = self._arrow_heads(a, b, ends, _zoom(tr))
        # the heads are in device coordinates: drawn through the painter's item transform
        # (as the live frames once did) they landed far from their edges, a speckle cloud
        p.save()
        try:
            p.resetTransform()
            p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            p.setPen(Qt.PenStyle.NoPen)
            for k in np.unique(g[ok]).tolist():
                m = ok & (g == k)
                c = QColor(self._colors[k % len(self._colors)])
                c.setAlphaF(min(1.0, c.alphaF() * 1.6))
                p.setBrush(c)
                p.drawPath(triangles_path(heads[m]))
                yield
        finally:
            p.restore()

    def _translucent_steps(self, p: QPainter, tr: QTransform, paths, fade: float):
        """Each path stroked in its group's translucent colour, straight onto ``p``."""
        p.save()
        try:  # a progressive render abandoned mid-way closes this generator at a yield
            p.setTransform(tr)
            for k, _sub, path in paths:
                # the fade goes into the pen's alpha: a painter opacity below 1 took the
                # raster engine off its solid-colour path (3× slower at 50,000 edges)
                c = QColor(self._colors[k % len(self._colors)])
                c.setAlphaF(c.alphaF() * fade)
                p.setPen(self._pen(c, self._width))
                p.drawPath(path)
                yield
        finally:
            p.restore()

    def _layered_steps(self, p: QPainter, tr: QTransform, paths, fade: float):
        """The aliased picture of many edges, fast: Qt strokes a one-pixel line 7× faster
        in an opaque colour than in a translucent one (78 against 583 ms for 50,000 edges
        at 10,000 nodes), so each colour group is stroked opaque into a transparent layer,
        and the layer laid on ``p`` at the group's opacity. A big group is spread over
        SUBLAYERS layers (its edges dealt round), so where its edges cross they still
        darken as translucent strokes do, up to that many deep."""
        dev = p.device()
        dpr = float(dev.devicePixelRatioF())
        if isinstance(dev, QImage):  # its size is in device pixels already
            w, h = dev.width(), dev.height()
        else:
            w, h = round(dev.width() * dpr), round(dev.height() * dpr)
        layer = QImage(max(1, w), max(1, h), QImage.Format.Format_ARGB32_Premultiplied)
        layer.setDevicePixelRatio(dpr)
        layers: dict[tuple[int, int], list] = {}  # (group, sublayer) → its paths, in order
        for k, sub, path in paths:
            layers.setdefault((k, sub), []).append(path)
        for (k, _sub), layer_paths in layers.items():
            c = QColor(self._colors[k % len(self._colors)])
            opacity = c.alphaF() * fade
            c.setAlphaF(1.0)
            layer.fill(Qt.GlobalColor.transparent)
            lp = QPainter(layer)
            try:
                lp.setTransform(tr)
                lp.setPen(self._pen(c, self._width))
                for path in layer_paths:
                    lp.drawPath(path)
                    yield
            finally:
                lp.end()
            p.save()
            p.resetTransform()
            p.setOpacity(p.opacity() * opacity)
            p.drawImage(QPointF(0, 0), layer)
            p.restore()
            yield

    # Edge opacity falls with the ink the edges would put on the view: where the drawn
    # length × width covers more than DENSITY_INK of the area, they fade (down to
    # DENSITY_FLOOR), so a 6,500-node graph shows its structure instead of a grey blob.
    DENSITY_INK = 0.2
    DENSITY_FLOOR = 0.3

    def density_opacity(self, total_px: float, clip: QRectF) -> float:
        area = max(clip.width() * clip.height(), 1.0)
        ink = total_px * self._width / area
        if ink <= self.DENSITY_INK:
            f = 1.0
        else:
            f = max(self.DENSITY_FLOOR, (self.DENSITY_INK / ink) ** 0.7)
        self.last_density_opacity = f
        return f

    def _groups(self) -> list[int]:
        if self._group_list is None:
            # the groups are a few small codes: counted (O(n)), not np.unique's hash/sort
            g = self._group
            if len(g) == 0:
                self._group_list = []
            elif g.min() >= 0:
                self._group_list = np.flatnonzero(np.bincount(g)).tolist()
            else:
                self._group_list = np.unique(g).tolist()
        return self._group_list

    def arrow_size(self, zoom: float) -> float:
        """The length (px) of an arrowhead at ``zoom`` (px per layout unit): it grows with
        the zoom, as the edges' lengths do, within readable bounds."""
        return float(np.clip(5.0 * math.sqrt(max(zoom, 1e-9)) * (0.7 + 0.3 * self._width), 3, 18))

    def _arrow_heads(self, a: np.ndarray, b: np.ndarray, ends: np.ndarray, zoom: float):
        """A filled triangle per edge, its tip on the target node's rim (device px):
        (heads (n, 3, 2): tip, left, right; ok mask of edges long enough for one)."""
        r = self._radius[ends] if len(self._radius) else np.full(len(ends), 3.0)
        return arrow_heads(a, b, r, self.arrow_size(zoom))

    def arrow_heads(self, tr: QTransform) -> tuple[np.ndarray, np.ndarray]:
        """(heads (n, 3, 2) in device px through ``tr``, target node index per head) of every
        drawn arrow: what the paint draws (tests check the tips sit on the rims)."""
        a, b, _g, ends = self._segments(tr, QRectF(-1e7, -1e7, 2e7, 2e7))
        heads, ok = self._arrow_heads(a, b, ends, _zoom(tr))
        return heads[ok], ends[ok]

    def _paint_highlight(self, p: QPainter, tr: QTransform) -> None:
        if len(self._hl_edges) == 0:
            return
        view = QRectF(p.viewport())
        a, b, _g, ends = self._segments(tr, view, self._hl_edges)
        if len(a) == 0:
            return
        p.save()
        p.resetTransform()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(self._pen(self._hl_color, self._width * 1.6))
        p.drawPath(pairs_path(a, b))
        if self._arrows:
            heads, ok = self._arrow_heads(a, b, ends, _zoom(tr))
            if ok.any():
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(self._hl_color)
                p.drawPath(triangles_path(heads[ok]))
        p.restore()

    def _paint_direct(self, p: QPainter) -> None:
        """No widget (export / print): paths in device space, no cache."""
        self.stats["direct"] += 1
        tr = p.transform()
        p.save()
        p.resetTransform()
        p.setOpacity(self._dim)
        self._draw_edges(p, tr, QRectF(-1e7, -1e7, 2e7, 2e7))
        p.restore()
        self._paint_highlight(p, tr)


def pairs_path(a: np.ndarray, b: np.ndarray):
    """One QPainterPath of the segments a[k] → b[k] (any leading shape, last dim 2)."""
    a = a.reshape(-1, 2)
    b = b.reshape(-1, 2)
    xy = np.empty((2 * len(a), 2))
    xy[0::2] = a
    xy[1::2] = b
    np.clip(xy, -1e7, 1e7, out=xy)
    return pg.arrayToQPath(xy[:, 0].copy(), xy[:, 1].copy(), connect="pairs", finiteCheck=False)


def triangles_path(heads: np.ndarray) -> QPainterPath:
    """One path of closed triangles (``heads``: (n, 3, 2))."""
    if len(heads) == 0:
        return QPainterPath()
    xy = np.empty((len(heads), 4, 2))
    xy[:, :3] = heads
    xy[:, 3] = heads[:, 0]  # back to the tip: each triangle a closed polygon
    xy = np.clip(xy.reshape(-1, 2), -1e7, 1e7)
    connect = np.ones(len(xy), dtype=np.int32)
    connect[3::4] = 0  # no line from one triangle to the next
    return pg.arrayToQPath(xy[:, 0].copy(), xy[:, 1].copy(), connect=connect, finiteCheck=False)


class NodeLayer(pg.ScatterPlotItem):
    """Every node in one scatter item, plus the mouse behaviour of the graph."""

    data: np.ndarray[Any, np.dtype[np.void]]  # pyqtgraph's record array, a row per node
    nodeClicked = Signal(int)
    nodeClickedNewTab = Signal(int)  # a middle-click, or a click with Ctrl held
    nodeShiftClicked = Signal(int)  # a click with Shift held: add to / drop from the selection
    nodeDoubleClicked = Signal(int)
    nodeHovered = Signal(int)  # -1 when the pointer leaves every node
    nodeDragged = Signal(int, float, float, str)  # index, x, y, "start" | "move" | "finish"
    nodeContextMenu = Signal(int, QPoint)  # index, global screen position
    emptyClicked = Signal()

    HIT_SLOP_PX = 3.0

    def __init__(self) -> None:
        self._version = 0
        self._cull: QRectF | None = None
        self._widget = None
        super().__init__(pxMode=True, antialias=True, pen=None, hoverable=False)
        # after Qt's __init__: a signal connected to a half-made item outlives its deletion
        self.cache = ViewportCache(self, self._render_into)
        self._sizes = np.zeros(0)
        self._hover = -1
        self._drag = -1

    # ---- cached painting: pan blits, zoom scales, a sharp render follows ----------------
    def invalidate(self) -> None:
        self._version += 1
        super().invalidate()

    def refresh(self) -> None:
        if self.cache is not None:
            self.cache.refresh()

    def viewRect(self):
        return self._cull if self._cull is not None else super().viewRect()

    def paint(self, p: QPainter, option, widget=None) -> None:
        if widget is None or self._exportOpts is not False or len(self.data) == 0:
            super().paint(p, option, widget)
            return
        self._widget = widget
        self.cache.paint(p, widget, self.boundingRect(), self._version)

    def _render_into(
        self, p: QPainter, tr: QTransform, _clip: QRectF, item_rect, _live: bool = False
    ) -> None:
        p.setTransform(tr)
        self._cull = item_rect
        try:
            pg.ScatterPlotItem.paint(self, p, None, self._widget)
        finally:
            self._cull = None

    def set_nodes(
        self,
        pos: np.ndarray,
        sizes: np.ndarray,
        brushes: np.ndarray | list,
        styles: np.ndarray | None = None,
    ) -> None:
        """Every node at once. ``styles``: per node, an int equal for two nodes exactly when
        their brush and size are (the view's colour index and half-pixel size), which
        spares the sprite lookup finding that out (see :meth:`updateSpots`)."""
        self._sizes = np.asarray(sizes, dtype=np.float64)
        if len(pos) == 0:
            self.clear()
            return
        # pyqtgraph's setData, minus its costs at 10,000 nodes: its record array came from
        # np.empty, which sets every object field of every row to None one at a time (4.4 ms);
        # zeros, then each object field filled at once, take 0.7. No pen or symbol per node
        # (None: the layer's own, set once): a QPen per node made a sprite key per node and
        # the atlas grew by every node style on every local graph.
        self.clear()
        data = np.zeros(len(pos), dtype=self.data.dtype)
        for name in ("symbol", "pen", "data", "item"):
            data[name] = None
        data["x"], data["y"] = pos[:, 0], pos[:, 1]
        data["size"] = self._sizes
        data["visible"] = True
        data["brush"] = brushes  # an object array of a few shared QBrush (see setBrush)
        self.data = data
        self.prepareGeometryChange()
        self.informViewBoundsChanged()
        self.bounds = [None, None]
        self.invalidate()
        self.updateSpots(data, same=("symbol", "pen"), styles=styles)
        self.sigPlotChanged.emit(self)

    def setBrush(self, *args, **kargs) -> None:  # pyqtgraph's name
        """pyqtgraph's; an object array of QBrush (one per node, from a small table) is
        taken as it is, not passed through ``mkBrush`` one by one (5 ms at 10,000)."""
        brushes = args[0] if len(args) == 1 else None
        if (
            isinstance(brushes, np.ndarray)
            and brushes.dtype == object
            and kargs.get("mask") is None
            and len(brushes) == len(kargs.get("dataSet", self.data))
        ):
            data = kargs.get("dataSet", self.data)
            data["brush"] = brushes
            data["sourceRect"] = 0
            if kargs.get("update", True):
                self.updateSpots(data)
            return
        super().setBrush(*args, **kargs)

    def updateSpots(
        self, dataSet=None, same: tuple[str, ...] = (), styles: np.ndarray | None = None
    ) -> None:
        """pyqtgraph's, with the sprite lookup done once per distinct style instead of
        once per point: its per-point key list cost 42 ms at 10,000 nodes on every local
        graph shown, where nodes share a few brushes and sizes. ``same``: the style columns
        known to hold one value for every point (not told apart); ``styles``: the points'
        style codes when the caller knows them (see :meth:`set_nodes`)."""
        data = self.data if dataSet is None else dataSet
        if not (self.opts["pxMode"] and self.opts["useCache"]) or self.opts["hoverable"]:
            super().updateSpots(dataSet)
            return
        mask = np.flatnonzero(data["sourceRect"]["w"] == 0)
        if len(mask) and styles is not None and len(styles) == len(mask) == len(data):
            code = np.asarray(styles, dtype=np.int64)
        elif len(mask):
            code = np.zeros(len(mask), dtype=np.int64)
            for col in ("symbol", "pen", "brush"):
                if col in same:
                    continue
                ids = np.fromiter(map(id, data[col][mask]), np.int64, len(mask))
                _u, inv = np.unique(ids, return_inverse=True)
                code = code * (int(inv.max()) + 1) + inv
            _u, inv = np.unique(data["size"][mask], return_inverse=True)
            code = code * (int(inv.max()) + 1) + inv
        if len(mask):
            _u, first, inv = np.unique(code, return_index=True, return_inverse=True)
            reps = mask[first]
            looks = list(zip(*self._style(["symbol", "size", "pen", "brush"], data=data,
                                          idx=reps), strict=True))  # fmt: skip
            rects = np.array(self.fragmentAtlas[looks], dtype=data["sourceRect"].dtype)
            data["sourceRect"][mask] = rects[inv.reshape(-1)]
            self._maybeRebuildAtlas()
        self._updateMaxSpotSizes(data=data)
        if len(mask):
            self.invalidate()

    def set_sizes(self, sizes: np.ndarray) -> None:
        self._sizes = np.asarray(sizes, dtype=np.float64)
        if len(self._sizes) == len(self.data) and len(self.data):
            self.setSize(self._sizes)

    def set_positions(self, pos: np.ndarray) -> None:
        if len(pos) != len(self.data):
            return
        self.data["x"] = pos[:, 0]
        self.data["y"] = pos[:, 1]
        self.prepareGeometryChange()
        self.bounds = [None, None]
        self.invalidate()

    def node_at(self, pos: QPointF) -> int:
        """The index of the node under ``pos`` (item coordinates), or -1."""
        n = len(self.data)
        if n == 0:
            return -1
        tr = self.deviceTransform_()
        if tr is None:
            return -1
        xy = np.column_stack([self.data["x"], self.data["y"]])
        d = device_coords(tr, xy)
        c = tr.map(pos)
        dist2 = (d[:, 0] - c.x()) ** 2 + (d[:, 1] - c.y()) ** 2
        reach = (self._sizes / 2.0 + self.HIT_SLOP_PX) ** 2
        hit = np.flatnonzero(dist2 <= reach)
        if len(hit) == 0:
            return -1
        return int(hit[np.argmin(dist2[hit])])

    # ---- pyqtgraph mouse events ---------------------------------------------------------
    def mouseClickEvent(self, ev) -> None:
        i = self.node_at(ev.pos())
        if i < 0:
            if ev.button() == Qt.MouseButton.LeftButton:
                self.emptyClicked.emit()
            ev.ignore()
            return
        ev.accept()
        ctrl = bool(ev.modifiers() & Qt.KeyboardModifier.ControlModifier)
        shift = bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if ev.button() == Qt.MouseButton.LeftButton and shift and not ctrl and not ev.double():
            self.nodeShiftClicked.emit(i)
        elif ev.button() == Qt.MouseButton.MiddleButton or (
            ev.button() == Qt.MouseButton.LeftButton and ctrl and not ev.double()
        ):
            self.nodeClickedNewTab.emit(i)
        elif ev.button() == Qt.MouseButton.LeftButton:
            if ev.double():
                self.nodeDoubleClicked.emit(i)
            else:
                self.nodeClicked.emit(i)
        elif ev.button() == Qt.MouseButton.RightButton:
            self.nodeContextMenu.emit(i, ev.screenPos().toPoint())

    def mouseDragEvent(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            self._drag = self.node_at(ev.buttonDownPos())
            if self._drag < 0:
                ev.ignore()  # empty space: the ViewBox pans
                return
            ev.accept()
            p = ev.pos()
            self.nodeDragged.emit(self._drag, p.x(), p.y(), "start")
            return
        if self._drag < 0:
            ev.ignore()
            return
        ev.accept()
        p = ev.pos()
        phase = "finish" if ev.isFinish() else "move"
        self.nodeDragged.emit(self._drag, p.x(), p.y(), phase)
        if ev.isFinish():
            self._drag = -1

    def hoverEvent(self, ev) -> None:
        i = -1 if ev.isExit() else self.node_at(ev.pos())
        if i >= 0:
            ev.acceptClicks(Qt.MouseButton.LeftButton)
            ev.acceptClicks(Qt.MouseButton.MiddleButton)
            ev.acceptDrags(Qt.MouseButton.LeftButton)
        if i != self._hover:
            self._hover = i
            self.nodeHovered.emit(i)


class PassiveScatter(pg.ScatterPlotItem):
    """A scatter drawn over the nodes (highlights, rings) that leaves the mouse to them."""

    def mouseClickEvent(self, ev) -> None:
        ev.ignore()

    def hoverEvent(self, ev) -> None:
        return


class LabelLayer(pg.GraphicsObject):
    """Node labels (hubs first, fading in with zoom) and relation labels, in one item."""

    MAX_LABELS = 200
    HUB_LABELS = 12
    MAX_RELATION_LABELS = 150

    def __init__(self) -> None:
        super().__init__()
        self._pos = np.zeros((0, 2))
        self._text: list[str] = []
        self._weight = np.zeros(0)  # >= 1; hubs larger, so they pass the threshold first
        self._order = np.zeros(0, dtype=np.int64)
        self._hubs = np.zeros(0, dtype=np.int64)  # far above the usual degree, by degree
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
        self._elide = elide
        self._short.clear()
        deg = np.asarray(degree, dtype=np.float64)
        self._weight = 1.0 + 0.75 * np.log2(1.0 + deg)
        self._order = np.argsort(-deg, kind="stable")
        linked = deg[deg > 0]
        floor = max(4.0, 4.0 * float(np.median(linked))) if len(linked) else np.inf
        self._hubs = self._order[deg[self._order] >= floor][: 4 * self.HUB_LABELS]
        self._radius = np.asarray(radius, dtype=np.float64)
        self._widths.clear()
        self._forced = np.zeros(0, dtype=np.int64)
        self.update()

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
            self._rel_has = np.not_equal(rel_text, np.array(None))  # stubs refuse a bare None
        else:  # once, not per paint (50,000 Python calls cost ~5 ms a frame)
            self._rel_has = np.fromiter((t is not None for t in rel_text), bool, len(rel_text))
        self.update()

    def set_positions(self, pos: np.ndarray) -> None:
        _place(self, pos)
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

    # a label is shown in full once the zoom carries it this far past its fade-in threshold
    FULL_AT = 2.2
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
        t = self.threshold
        return np.clip((zoom * self._weight - t) / (0.6 * t), 0.0, 1.0)

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
        zoom = _zoom(tr)
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
        alpha = self.alpha_for(zoom)
        # the biggest hubs in view are labelled at any zoom (if their label fits): an
        # overview of a big vault gets its landmarks, not one nameless blob
        hubs = self._hubs[self._hubs < n]
        hubs = hubs[vis[hubs]][: self.HUB_LABELS]
        if len(hubs):
            alpha[hubs] = np.maximum(alpha[hubs], 0.9)
        forced = self._forced[(self._forced >= 0) & (self._forced < n)]
        is_forced = np.zeros(n, dtype=bool)
        is_forced[forced] = True
        order = self._order[(vis & ((alpha > 0.02) | is_forced))[self._order]]
        if len(forced):
            order = np.concatenate([forced[vis[forced]], order[~is_forced[order]]])
        order = order[: self.MAX_LABELS]

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
        alist = np.where(is_forced[order], 1.0, alpha[order] * self._dim).tolist()
        full_list = (zoom * self._weight[order] >= self.FULL_AT * self.threshold).tolist()
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
