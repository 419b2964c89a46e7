"""The graph layers' image cache and the geometry they share (device coordinates, clipping).

:class:`ViewportCache` renders a layer into a device-resolution image covering the viewport
plus a margin: panning blits it, zooming draws it scaled and re-renders it sharp (in slices,
between event-loop turns) a moment after the wheel stops.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QImage,
    QPainter,
    QTransform,
)

from anthology.ui.common.step_queue import later

__all__ = [
    "ViewportCache",
    "clip_codes",
    "device_coords",
    "inside",
    "item_bounds",
    "place",
    "same_linear",
    "zoom_of",
]


def _clock() -> float:
    """The progressive render's clock (a seam: the tests drive it by hand)."""
    return time.perf_counter()


def device_coords(tr: QTransform, pos: np.ndarray) -> np.ndarray:
    """Map ``(n, 2)`` item coordinates through an affine ``QTransform`` (vectorised)."""
    if pos.size == 0:
        return np.zeros((0, 2))
    out = np.empty_like(pos, dtype=np.float64)
    x, y = pos[:, 0], pos[:, 1]
    out[:, 0] = tr.m11() * x + tr.m21() * y + tr.dx()
    out[:, 1] = tr.m12() * x + tr.m22() * y + tr.dy()
    return out


def clip_codes(px: np.ndarray, py: np.ndarray, clip: QRectF) -> np.ndarray:
    """Per point, the sides of ``clip`` it lies beyond, as Cohen–Sutherland's bits (left 1,
    right 2, above 4, below 8); a point that is not finite, 16."""
    code = (px < clip.left()).astype(np.uint8)
    code |= (px > clip.right()).astype(np.uint8) << 1
    code |= (py < clip.top()).astype(np.uint8) << 2
    code |= (py > clip.bottom()).astype(np.uint8) << 3
    code[~(np.isfinite(px) & np.isfinite(py))] = 16
    return code


def inside(code: np.ndarray, s: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The segments ``s[i]``–``t[i]`` that may cross the clip: not both ends beyond the
    same side, and both placed. Codes are per node, so a test per edge is one AND
    (comparing both ends' coordinates edge by edge cost twice as much at 55,000 edges)."""
    cs, ct = code[s], code[t]
    return ((cs & ct) == 0) & (((cs | ct) & 16) == 0)


def item_bounds(pos: np.ndarray) -> QRectF:
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


def zoom_of(tr: QTransform) -> float:
    return math.sqrt(abs(tr.m11() * tr.m22() - tr.m12() * tr.m21())) or 1e-9


def same_linear(a: QTransform, b: QTransform) -> bool:
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

    def __init__(self, item, render, steps=None, progressive=None, live_quick=None) -> None:
        self.item = item
        self.render_fn = render  # (painter, item→image transform, image clip, item rect)
        self.steps_fn = steps  # the same, as a generator yielding between chunks
        self.progressive = progressive or (lambda: False)
        # whether a live paint is quick enough to stand in while the image is drawn in
        # slices (else the layer shows nothing new until the image is done)
        self.live_quick = live_quick or (lambda: True)
        self._job: _Job | None = None
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
        self.settle_timer.timeout.connect(self._came_to_rest)
        # a simulation was started (expect_motion) and has not come to rest: its frames
        # are painted live even where a live paint is slow (an image each frame is slower)
        self._motion = False

    ANIMATING_S = 1.5  # content changed this recently: paint live, no image

    def expect_motion(self) -> None:
        """A simulation is starting: its first frame is painted live too (rendering the
        image for it cost a second at 50,000 edges, and the next frame throws it away)."""
        self._last_change = time.monotonic()
        self._motion = True

    def _came_to_rest(self) -> None:
        self._motion = False
        self.item.update()

    def _animating(self, now: float) -> bool:
        """Whether the content is moving: changed within :data:`ANIMATING_S`, by the frames
        of a simulation or on a layer quick to paint live. A big layer given a new graph
        piece by piece (the 100k global graph shown: nodes, then edges, labels…) is not
        moving: each live paint of it took 80-100 ms; its image is drawn in slices."""
        return now - self._last_change < self.ANIMATING_S and (self._motion or self.live_quick())

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
        job, self._job = self._job, None  # its slice still queued finds no job
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
        # a slice a pass, taking turns with the window's other pieces (none once the layer
        # is gone)
        later(self._step, self.item if isinstance(self.item, QObject) else None)

    def _step(self) -> None:
        job = self._job
        if job is None:
            return
        t0 = _clock()
        end = t0 + self.SLICE_S
        self.stats["slices"] += 1
        try:
            # a step is not begun when the last one would end past the slice: steps of
            # 5-15 ms made slices of up to 27 ms, turns of 38-48 ms at p95 on a busy machine
            now, step = t0, 0.0
            while now + step < end or now == t0:
                next(job.steps)
                after = _clock()
                step, now = after - now, after
        except StopIteration:
            job.work += _clock() - t0
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
        job.work += _clock() - t0
        # a slice a pass, taking turns with the window's other pieces (none once the layer
        # is gone)
        later(self._step, self.item if isinstance(self.item, QObject) else None)

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
        if job is not None and (job.version != version or not same_linear(tr, job.tr)):
            self.cancel()  # the picture it draws is not wanted any more
        now = time.monotonic()
        live = False
        if version != self._seen_version:
            # the content changes (simulation frames): while it keeps changing, paint
            # straight to the viewport; an image would be thrown away at the next frame
            live = self._live = self._animating(now)
            self._seen_version = version
            self._last_change = now
        elif self._live and self.version != version:
            # a second paint of a moving frame (another layer asked for it, or a pan): live
            # again.  Rendering the cache here cost a full sharp render (~300 ms at 50,000
            # edges) per frame of a fresh layout: the stalls of issue 14.
            live = self._animating(now)
        if live:
            self.settle_timer.start()
            self._paint_live(p, tr, view, opacity)
            return True
        if self.image is not None and self.version == version:
            dev = tr.mapRect(self.item_rect)
            same = same_linear(tr, self.tr)
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
            # slow to render: a quick live paint now, the sharp image a slice at a time;
            # a layer too big to paint quickly waits for the image (the window answers)
            self._start(tr, view, bounds, dpr, version)
            if not self.live_quick():
                self.stats["deferred"] = self.stats.get("deferred", 0) + 1
                return False
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
        assert self.image is not None  # a blit follows a render
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


def place(item: Any, pos: np.ndarray) -> None:
    """Give ``item`` new positions; its bounding rect follows them, announced to Qt first
    (as a change of an item's geometry must be)."""
    item._pos = pos
    b = item_bounds(pos)
    if b != item._bounds:
        item.prepareGeometryChange()
        item._bounds = b
