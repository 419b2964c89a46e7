"""Every node in one scatter item (:class:`NodeLayer`: a pixel-mode sprite atlas, one
``drawPixmapFragments`` call) with vectorised hit testing and the mouse behaviour of the
view (click, double-click, drag, hover, context menu); :class:`PassiveScatter` for what is
laid over the nodes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QPainter,
    QTransform,
)

from anthology.ui.graph.viewport_cache import ViewportCache, device_coords

__all__ = ["NodeLayer", "PassiveScatter"]


class NodeLayer(pg.ScatterPlotItem):
    """Every node in one scatter item, plus the mouse behaviour of the graph."""

    data: Any  # pyqtgraph's record array of the spots

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
        self._band: tuple[int, int] | None = None  # the nodes a render step draws
        self._new_graph = False  # set_nodes gave a graph not rendered sharp yet
        self._widget = None
        self._cache: ViewportCache | None = None  # pyqtgraph's __init__ calls setData first
        super().__init__(pxMode=True, antialias=True, pen=None, hoverable=False)
        self._cache = ViewportCache(self, self._render_into, self._render_steps,
                                    self._is_slow, self._live_is_quick)  # fmt: skip
        self._sizes = np.zeros(0)
        self._hover = -1
        self._drag = -1

    # ---- cached painting: pan blits, zoom scales, a sharp render follows ----------------
    def invalidate(self) -> None:
        self._version += 1
        super().invalidate()

    def refresh(self) -> None:
        if self._cache is not None:
            self._cache.refresh()

    @property
    def cache(self) -> ViewportCache:
        assert self._cache is not None
        return self._cache

    def viewRect(self):
        return self._cull if self._cull is not None else super().viewRect()

    def paint(self, p: QPainter, option, widget=None) -> None:
        if widget is None or self._exportOpts is not False or len(self.data) == 0:
            super().paint(p, option, widget)
            return
        self._widget = widget
        self.cache.paint(p, widget, self.boundingRect(), self._version)

    def _render_into(
        self, p: QPainter, tr: QTransform, _clip: QRectF, item_rect, live: bool = False
    ) -> None:
        if live:  # the graph is on screen (a layout's frames): its renders go at once
            self._new_graph = False
        p.setTransform(tr)
        self._cull = item_rect
        try:
            pg.ScatterPlotItem.paint(self, p, None, self._widget)
        finally:
            self._cull = None

    # A new graph of more than this many nodes is first rendered in slices, BAND_NODES
    # nodes a step (in their order: the image the same as one render's): 100,000 sprites
    # held the GUI thread 20-70 ms in one turn, the first paint of the global graph. The
    # layer shows its nodes once the image is done, a few turns later, as the edges and
    # labels come in pieces. Later renders of the same graph (a layout come to rest, a
    # zoom step's sizes) go at once, as before: the image they replace is not blanked.
    PROGRESSIVE_NODES = 20_000
    BAND_NODES = 10_000  # ~5-10 ms a step at 100,000 (each also culls all of them)

    def _is_slow(self) -> bool:
        return self._new_graph and len(self.data) > self.PROGRESSIVE_NODES

    def _live_is_quick(self) -> bool:
        """Whether a live paint is quick (it is the whole render: only for a small layer)."""
        return len(self.data) <= self.PROGRESSIVE_NODES

    def _render_steps(self, p: QPainter, tr: QTransform, clip: QRectF, item_rect: QRectF):
        """:meth:`_render_into` ``BAND_NODES`` nodes a step."""
        n = len(self.data)
        try:
            for a in range(0, n, self.BAND_NODES):
                self._band = (a, min(n, a + self.BAND_NODES))
                self._render_into(p, tr, clip, item_rect)
                yield
        finally:
            self._band = None
        self._new_graph = False  # (an abandoned render leaves it: the next goes in slices)

    def _maskAt(self, obj):  # pyqtgraph's: the points a paint draws (those in view)
        mask = super()._maskAt(obj)
        if self._band is not None:  # a step of a progressive render: its nodes only
            a, b = self._band
            mask[:a] = False
            mask[b:] = False
        return mask

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
        for _ in self.set_nodes_steps(pos, sizes, brushes, styles):
            pass

    def set_nodes_steps(
        self,
        pos: np.ndarray,
        sizes: np.ndarray,
        brushes: np.ndarray | list,
        styles: np.ndarray | None = None,
    ) -> Iterator[None]:
        """:meth:`set_nodes` in three steps (a step of the GUI thread each at 100,000
        nodes, ~20-30 ms in one): the points' record made, their sprites looked up, then
        the layer given them (until then it shows the nodes it had)."""
        sizes = np.asarray(sizes, dtype=np.float64)
        if len(pos) == 0:
            self._sizes = sizes
            self.clear()
            return
        # pyqtgraph's setData, minus its costs at 10,000 nodes: its record array came from
        # np.empty, which sets every object field of every row to None one at a time (4.4 ms);
        # zeros, then each object field filled at once, take 0.7. No pen or symbol per node
        # (None: the layer's own, set once): a QPen per node made a sprite key per node and
        # the atlas grew by every node style on every local graph.
        data: Any = np.zeros(len(pos), dtype=self.data.dtype)  # a record array
        for name in ("symbol", "pen", "data", "item"):
            data[name] = None
        data["x"], data["y"] = pos[:, 0], pos[:, 1]
        data["size"] = sizes
        data["visible"] = True
        data["brush"] = brushes  # an object array of a few shared QBrush (see setBrush)
        yield
        self._sprites(data, same=("symbol", "pen"), styles=styles)
        atlas = len(self.fragmentAtlas)
        yield
        if len(self.fragmentAtlas) < atlas:  # rebuilt meanwhile: its places are new
            data["sourceRect"] = 0
            self._sprites(data, same=("symbol", "pen"), styles=styles)
        self.clear()
        self._sizes = sizes
        self._new_graph = True
        self.data = data
        self._maybeRebuildAtlas()
        self._updateMaxSpotSizes(data=data)
        self.prepareGeometryChange()
        self.informViewBoundsChanged()
        self.bounds = [None, None]
        self.invalidate()
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
        looked_up = self._sprites(data, same, styles)
        if looked_up:
            self._maybeRebuildAtlas()
        self._updateMaxSpotSizes(data=data)
        if looked_up:
            self.invalidate()

    def _sprites(
        self, data: Any, same: tuple[str, ...] = (), styles: np.ndarray | None = None
    ) -> bool:
        """Each point of ``data`` without one given its sprite's place in the atlas (the
        atlas grows by the new styles); whether any was."""
        mask = np.flatnonzero(data["sourceRect"]["w"] == 0)
        if not len(mask):
            return False
        if styles is not None and len(styles) == len(mask) == len(data):
            code = np.asarray(styles, dtype=np.int64)
        else:
            code = np.zeros(len(mask), dtype=np.int64)
            for col in ("symbol", "pen", "brush"):
                if col in same:
                    continue
                ids = np.fromiter(map(id, data[col][mask]), np.int64, len(mask))
                _u, inv = np.unique(ids, return_inverse=True)
                code = code * (int(inv.max()) + 1) + inv
            _u, inv = np.unique(data["size"][mask], return_inverse=True)
            code = code * (int(inv.max()) + 1) + inv
        _u, first, inv = np.unique(code, return_index=True, return_inverse=True)
        reps = mask[first]
        looks = list(zip(*self._style(["symbol", "size", "pen", "brush"], data=data,
                                      idx=reps), strict=True))  # fmt: skip
        rects = np.array(self.fragmentAtlas[looks], dtype=data["sourceRect"].dtype)
        data["sourceRect"][mask] = rects[inv.reshape(-1)]
        return True

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
