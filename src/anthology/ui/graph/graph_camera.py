"""Where the graph view looks: glides to a node, fits the bulk, remembers itself.

The graph must follow the reader (issue 14): after a navigation the current node has to be
on screen, and it should get there without a jump, so the eye can follow. The camera
keeps the zoom and moves the centre over :data:`GLIDE_MS` (an eased ``QVariantAnimation``);
a fit looks at the bulk of the nodes (:func:`bulk_box`), so one far orphan no longer
shrinks everything else to a dot; and :meth:`GraphCamera.state` / :meth:`restore` give
the centre and the span of the view as plain numbers for the vault's user state.

Qt-only in that it drives a ``pg.ViewBox``; :func:`bulk_box` is plain numpy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEasingCurve, QObject, QPointF, QRectF, Qt, QVariantAnimation
from PySide6.QtGui import QKeyEvent

__all__ = ["GLIDE_MS", "GraphCamera", "bulk_box"]

GLIDE_MS = 250
MIN_SPAN = 60.0  # layout units: a fit of one node or two is not an extreme close-up


def bulk_box(pos: np.ndarray, lo: float = 2.0, hi: float = 98.0) -> tuple[float, ...] | None:
    """(x0, y0, x1, y1) around the bulk of ``pos``: the whole extent, except that a side
    stops a quarter of the bulk's size beyond its ``lo``–``hi`` percentile box, so far
    outliers fall outside and ordinary edge nodes do not.  None when nothing is finite."""
    pos = np.asarray(pos, dtype=np.float64).reshape(-1, 2)
    pos = pos[np.isfinite(pos).all(axis=1)]
    if len(pos) == 0:
        return None
    x0, y0 = pos.min(axis=0)
    x1, y1 = pos.max(axis=0)
    if len(pos) >= 20:
        (bx0, by0), (bx1, by1) = np.percentile(pos, [lo, hi], axis=0)
        mx, my = 0.25 * max(bx1 - bx0, 1.0), 0.25 * max(by1 - by0, 1.0)
        x0, y0 = max(x0, bx0 - mx), max(y0, by0 - my)
        x1, y1 = min(x1, bx1 + mx), min(y1, by1 + my)
    return float(x0), float(y0), float(x1), float(y1)


def left_the_view(view: QRectF, pos: np.ndarray, *, fresh: bool, local: bool) -> bool:
    """Whether a layout that cooled should be framed again: the first global layout of a
    vault opened off-centre (its start positions were framed, then it spread) whose bulk
    left the view, or a local graph any node of which did."""
    if not len(pos):
        return False
    if fresh and (box := bulk_box(pos)) is not None:
        x0, y0, x1, y1 = box
        if x0 < view.left() or x1 > view.right() or y0 < view.top() or y1 > view.bottom():
            return True
    if local:
        x, y = pos[:, 0], pos[:, 1]
        inside = (x >= view.left()) & (x <= view.right()) & (y >= view.top()) & (y <= view.bottom())
        return not bool(inside.all())
    return False


class GraphCamera(QObject):
    """Drives one ``ViewBox``: glide, fit, reveal, state/restore."""

    def __init__(self, vb: pg.ViewBox, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.vb = vb
        self._anim = QVariantAnimation(self)
        self._anim.setDuration(GLIDE_MS)
        self._anim.setEasingCurve(QEasingCurve.Type.OutCubic)
        self._anim.valueChanged.connect(self._step)
        self._range_anim = QVariantAnimation(self)
        self._range_anim.setDuration(GLIDE_MS)
        self._range_anim.setEasingCurve(QEasingCurve.Type.OutCubic)
        self._range_anim.valueChanged.connect(self._range_step)
        # the reader grabbing the view stops any glide: the camera never fights the hand
        vb.sigRangeChangedManually.connect(self.stop)

    # ---- reading ---------------------------------------------------------------------------
    def centre(self) -> tuple[float, float]:
        c = self.vb.viewRect().center()
        return float(c.x()), float(c.y())

    def contains(self, x: float, y: float, inset: float = 0.06) -> bool:
        """Whether (x, y) is inside the view, ``inset`` of its size away from the border."""
        r = self.vb.viewRect()
        dx, dy = r.width() * inset, r.height() * inset
        return r.adjusted(dx, dy, -dx, -dy).contains(QPointF(x, y))

    def gliding(self) -> bool:
        return (
            self._anim.state() == QVariantAnimation.State.Running
            or self._range_anim.state() == QVariantAnimation.State.Running
        )

    # ---- moving ----------------------------------------------------------------------------
    def stop(self, *_args: Any) -> None:
        self._anim.stop()
        self._range_anim.stop()

    def glide_to(self, x: float, y: float, animate: bool = True) -> None:
        """Bring (x, y) to the centre, keeping the zoom."""
        if not (math.isfinite(x) and math.isfinite(y)):
            return
        self.stop()
        if not animate or not self.vb.isVisible():
            self._step(QPointF(x, y))
            return
        cx, cy = self.centre()
        self._anim.setStartValue(QPointF(cx, cy))
        self._anim.setEndValue(QPointF(x, y))
        self._anim.start()

    def reveal(self, x: float, y: float, animate: bool = True) -> bool:
        """Glide to (x, y) when it is not comfortably inside the view; True if it moves."""
        if self.contains(x, y) and not self.gliding():
            return False
        self.glide_to(x, y, animate)
        return True

    def fit(
        self,
        pos: np.ndarray,
        animate: bool = False,
        padding: float = 0.08,
        margin_px: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        """Show the bulk of ``pos`` (see :func:`bulk_box`), with ``margin_px`` (x, y) screen
        pixels left around it: the labels, drawn at a fixed size beside their nodes, were
        cut at the view's edges when only the nodes were framed."""
        self.stop()
        box = bulk_box(pos)
        if box is None:
            self.vb.setRange(QRectF(-100, -100, 200, 200), padding=0)
            return
        x0, y0, x1, y1 = box
        w, h = max(x1 - x0, MIN_SPAN), max(y1 - y0, MIN_SPAN)
        w, h = w * (1 + 2 * padding), h * (1 + 2 * padding)
        vw, vh = self.vb.width(), self.vb.height()
        mx, my = margin_px
        if vw > 4 * mx > 0 and vh > 4 * my >= 0:
            # units per pixel so that the box fits in what the margins leave
            per_px = max(w / (vw - 2 * mx), h / (vh - 2 * my))
            w, h = vw * per_px, vh * per_px
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        target = QRectF(cx - w / 2, cy - h / 2, w, h)
        if not animate or not self.vb.isVisible():
            self.vb.setRange(target, padding=0)
            return
        self._range_anim.setStartValue(self.vb.viewRect())
        self._range_anim.setEndValue(target)
        self._range_anim.start()

    def _step(self, value: QPointF) -> None:
        cx, cy = self.centre()
        self.vb.translateBy(x=value.x() - cx, y=value.y() - cy)

    def _range_step(self, value: QRectF) -> None:
        self.vb.setRange(value, padding=0)

    # ---- remembering -----------------------------------------------------------------------
    def state(self) -> dict[str, float] | None:
        """The centre and the span (layout units) of the view, as the user state keeps it."""
        r = self.vb.viewRect()
        values = (r.center().x(), r.center().y(), r.width(), r.height())
        if not all(math.isfinite(v) for v in values) or r.width() <= 0 or r.height() <= 0:
            return None
        return {"cx": values[0], "cy": values[1], "w": values[2], "h": values[3]}

    def restore(self, state: Any) -> bool:
        """Show what :meth:`state` returned; False (and nothing changes) when ``state`` is
        not such a value (a damaged or foreign setting)."""
        if not isinstance(state, dict):
            return False
        try:
            cx, cy, w, h = (float(state[k]) for k in ("cx", "cy", "w", "h"))
        except (KeyError, TypeError, ValueError):
            return False
        if not all(math.isfinite(v) for v in (cx, cy, w, h)) or w <= 0 or h <= 0:
            return False
        if max(abs(cx), abs(cy), w, h) > 1e7:
            return False
        self.stop()
        self.vb.setRange(QRectF(cx - w / 2, cy - h / 2, w, h), padding=0)
        return True

    def key(self, event: QKeyEvent, fit: Callable[[], None]) -> bool:
        """Shift+arrows pan, +/− zoom, 0/Home ``fit()``.  True when handled."""
        key = event.key()
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down) and not shift:
            return False
        self.stop()
        rect = self.vb.viewRect()
        step_x, step_y = rect.width() * 0.1, rect.height() * 0.1
        if key == Qt.Key.Key_Left:
            self.vb.translateBy(x=-step_x, y=0)
        elif key == Qt.Key.Key_Right:
            self.vb.translateBy(x=step_x, y=0)
        elif key == Qt.Key.Key_Up:
            self.vb.translateBy(x=0, y=step_y)
        elif key == Qt.Key.Key_Down:
            self.vb.translateBy(x=0, y=-step_y)
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.vb.scaleBy((1 / 1.25, 1 / 1.25))
        elif key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
            self.vb.scaleBy((1.25, 1.25))
        elif key in (Qt.Key.Key_0, Qt.Key.Key_Home):
            fit()
        else:
            return False
        return True
