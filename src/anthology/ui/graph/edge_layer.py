"""Every edge of the graph in one item (:class:`EdgeLayer`).

Edges are grouped by colour (one ``QPainterPath`` per relation colour, built from numpy
with ``pg.arrayToQPath``) and rendered through a
:class:`~anthology.ui.graph.viewport_cache.ViewportCache`; only a position or style change
rebuilds the paths. :func:`pairs_path` and :func:`triangles_path` are the paths the PNG
export paints too.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QTransform,
)
from PySide6.QtWidgets import QWidget

from anthology.graph.drawing import arrow_heads
from anthology.ui.graph.viewport_cache import (
    ViewportCache,
    clip_codes,
    device_coords,
    inside,
    place,
    zoom_of,
)

__all__ = ["EdgeLayer", "pairs_path", "triangles_path"]


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
                                   self._is_slow, self._live_is_quick)  # fmt: skip
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
        place(self, pos)
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
    # (a still picture is anti-aliased and translucent: ~10 µs an edge, so the first sharp
    # render of a 1,000-note vault's ~8,000 edges took 80-130 ms in one turn at 8,000)
    PROGRESSIVE_EDGES = 3000
    PROGRESSIVE_S = 0.04
    CHUNK_EDGES = 500  # edges per path: one step of a progressive render (~5–15 ms at 10k)
    SUBLAYERS = 4  # a group's edges are dealt over this many opaque layers (_layered_steps)

    # past this many edges a live paint (the stand-in while the sharp image is drawn in
    # slices) is no quicker than the image: ~0.4 s at 550,000 edges, in one turn
    LIVE_PAINT_EDGES = 150_000

    def _live_is_quick(self) -> bool:
        return len(self._edges) <= self.LIVE_PAINT_EDGES

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
        ok = inside(clip_codes(d[:, 0], d[:, 1], clip), e[:, 0], e[:, 1])
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
        for _ in self._item_path_steps():
            pass
        return self._paths

    def _item_path_steps(self):
        """:meth:`_item_paths` made a chunk per step (a progressive render yields between
        them: 550,000 edges took ~0.15 s to make into paths, in one turn)."""
        if self._paths_version != self._geom_version:
            version = self._geom_version
            finite = np.asarray(np.isfinite(self._pos).all(axis=1))
            out: list[tuple[int, int, object]] = []
            yield from self._group_path_steps(
                finite[self._edges[:, 0]] & finite[self._edges[:, 1]], None, out
            )
            self._paths, self._paths_version = out, version

    def _group_paths(
        self, keep: np.ndarray, sublayers: int | None = None
    ) -> list[tuple[int, int, object]]:
        """The ``keep`` edges of each colour group, dealt round ``sublayers`` (SUBLAYERS:
        the opaque layers of :meth:`_layered_steps`), in paths of at most CHUNK_EDGES (the
        steps of a progressive render)."""
        out: list[tuple[int, int, object]] = []
        for _ in self._group_path_steps(keep, sublayers, out):
            pass
        return out

    def _group_path_steps(self, keep: np.ndarray, sublayers: int | None, out: list):
        """:meth:`_group_paths` into ``out``, yielding after each path."""
        pos, e = self._pos, self._edges
        layers = self.SUBLAYERS if sublayers is None else max(1, sublayers)
        for k in self._groups():
            sel = np.flatnonzero(keep & (self._group == k))
            for s in range(layers):
                part = sel[s::layers]
                for c in range(0, len(part), self.CHUNK_EDGES):
                    chunk = part[c : c + self.CHUNK_EDGES]
                    out.append((int(k), s, pairs_path(pos[e[chunk, 0]], pos[e[chunk, 1]])))
                    yield

    # Rasterising cost grows with the drawn length: anti-alias only below AA_BUDGET pixels
    # of visible edge length; while the layout moves, draw at most LIVE_BUDGET pixels (the
    # early, tangled frames of a big graph would otherwise take a second each).
    AA_BUDGET = 0.6e6
    LIVE_BUDGET = 0.9e6
    LIVE_AA_BUDGET = 0.4e6
    # ... and at most LIVE_MAX_EDGES edges, anti-aliased only up to LIVE_AA_MAX_EDGES: a
    # compact layout (a multilevel start, the last frames of any) has short edges, all 50,000
    # of them under the pixel budgets, and its frames cost 1.5-2x the tangled ones
    LIVE_MAX_EDGES = 12_000
    LIVE_AA_MAX_EDGES = 3_000

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
        length = np.empty(len(self._edges))
        for _ in self._pixel_length_steps(tr, clip, length):
            pass
        return length

    LENGTH_CHUNK = 100_000  # edges measured per step of a progressive render

    def _pixel_length_steps(self, tr: QTransform, clip: QRectF, out: np.ndarray):
        """:meth:`_pixel_lengths` into ``out``, LENGTH_CHUNK edges a step (550,000 edges
        took 0.1–0.25 s in one slice of a progressive render)."""
        d = device_coords(tr, self._pos)
        px, py = d[:, 0], d[:, 1]
        codes = clip_codes(px, py, clip)
        diagonal = math.hypot(clip.width(), clip.height())
        for c in range(0, len(self._edges), self.LENGTH_CHUNK):
            s, t = (
                self._edges[c : c + self.LENGTH_CHUNK, 0],
                self._edges[c : c + self.LENGTH_CHUNK, 1],
            )
            length = np.hypot(px[t] - px[s], py[t] - py[s])
            np.minimum(length, diagonal, out=length)
            length[~inside(codes, s, t)] = 0.0
            out[c : c + len(length)] = length
            yield

    def _draw_edges(self, p: QPainter, tr: QTransform, clip: QRectF, live: bool = False) -> None:
        for _ in self._edge_steps(p, tr, clip, live):
            pass

    def _edge_steps(self, p: QPainter, tr: QTransform, clip: QRectF, live: bool = False):
        """Draw the edges (then the arrowheads), yielding after each path: all at once
        for a paint, a slice per event-loop turn for a progressive render."""
        if len(self._edges) == 0:
            return
        if live and len(self._edges) > self.LIVE_SAMPLE:
            yield from self._sampled_live_steps(p, tr, clip)
            return
        length = np.empty(len(self._edges))
        yield from self._pixel_length_steps(tr, clip, length)
        total = float(length.sum())
        shown = int(np.count_nonzero(length)) if live else 0
        # frames of a moving layout are drawn without anti-aliasing (a third of the cost)
        # unless they are small; a still picture is anti-aliased up to AA_BUDGET
        aa_budget = self.LIVE_AA_BUDGET if live else self.AA_BUDGET
        aa = total <= aa_budget and shown <= self.LIVE_AA_MAX_EDGES
        p.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
        if not live or (total <= self.LIVE_BUDGET and shown <= self.LIVE_MAX_EDGES):
            yield from self._item_path_steps()
            paths = self._paths
            self.stats["live_edges"] = shown
        else:
            # a stable subset, the same edges from frame to frame (a fixed shuffled order,
            # no sort per frame), up to the budgets of drawn length and of edges
            perm = self._live_order()
            ordered = length[perm]
            fits = (np.cumsum(ordered) <= self.LIVE_BUDGET) & (
                np.cumsum(ordered > 0) <= self.LIVE_MAX_EDGES
            )
            keep = np.zeros(len(length), dtype=bool)
            keep[perm[fits]] = True
            keep &= length > 0
            paths = self._group_paths(keep, sublayers=1)  # stroked translucent: no layers
            self.stats["decimated"] = self.stats.get("decimated", 0) + 1
            self.stats["live_edges"] = int(keep.sum())
        fade = self.density_opacity(total, clip)
        dev = p.device()
        # opaque layers for a big still picture; a live frame is decimated already (its
        # layers' allocation and compositing would cost it more than they save), and a
        # vector device (SVG, a printer) keeps every stroke
        if live or total <= aa_budget or not isinstance(dev, QImage | QWidget):
            yield from self._translucent_steps(p, tr, paths, fade)
        else:
            yield from self._layered_steps(p, tr, paths, fade)
        yield from self._arrow_steps(p, tr, clip)

    def _arrow_steps(self, p: QPainter, tr: QTransform, clip: QRectF, idx=None):
        """The arrowheads of the visible edges (of ``idx``, when given), a group a step."""
        if not self._arrows:
            return
        a, b, g, ends = self._segments(tr, clip, idx)
        if len(a) == 0:
            return
        heads, ok = self._arrow_heads(a, b, ends, zoom_of(tr))
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

    # A live paint of more edges than this measures only the first LIVE_SAMPLE of the
    # stable shuffled order (the edges it may draw are among them): measuring and ranking
    # all 1.5 million edges of a 100,000-entry graph took 0.3–0.5 s per live paint, in one
    # event-loop turn (the first paint of a graph about to move, and each frame after).
    LIVE_SAMPLE = 4 * LIVE_MAX_EDGES

    def _sampled_live_steps(self, p: QPainter, tr: QTransform, clip: QRectF):
        """A live paint of a big graph: up to the live budgets of drawn length and of
        edges, among a fixed sample of the shuffled order; the drawn length of the whole
        (what the fade reads) estimated from the sample."""
        m = len(self._edges)
        sample = self._live_order()[: self.LIVE_SAMPLE]
        d = device_coords(tr, self._pos)
        px, py = d[:, 0], d[:, 1]
        s, t = self._edges[sample, 0], self._edges[sample, 1]
        length = np.hypot(px[t] - px[s], py[t] - py[s])
        np.minimum(length, math.hypot(clip.width(), clip.height()), out=length)
        length[~inside(clip_codes(px, py, clip), s, t)] = 0.0
        total = float(length.sum()) * m / len(sample)
        fits = (np.cumsum(length) <= self.LIVE_BUDGET) & (
            np.cumsum(length > 0) <= self.LIVE_MAX_EDGES
        )
        chosen = np.sort(sample[fits & (length > 0)])
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # live, and thousands
        paths: list[tuple[int, int, object]] = []
        pos, e, group = self._pos, self._edges, self._group[chosen]
        for k in self._groups():
            part = chosen[group == k]
            for c in range(0, len(part), self.CHUNK_EDGES):
                chunk = part[c : c + self.CHUNK_EDGES]
                paths.append((int(k), 0, pairs_path(pos[e[chunk, 0]], pos[e[chunk, 1]])))
        self.stats["decimated"] = self.stats.get("decimated", 0) + 1
        self.stats["live_edges"] = len(chosen)
        yield from self._translucent_steps(p, tr, paths, self.density_opacity(total, clip))
        yield from self._arrow_steps(p, tr, clip, chosen)

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
        heads, ok = self._arrow_heads(a, b, ends, zoom_of(tr))
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
            heads, ok = self._arrow_heads(a, b, ends, zoom_of(tr))
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
