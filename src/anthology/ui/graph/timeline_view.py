"""The timeline view: the vault's entries laid out by a date property, typed relations as
arcs between them (the layout is :mod:`anthology.graph.timeline`'s; this only draws it).

Drawn as the graph view draws: every entry in one scatter item (the graph's
:class:`~anthology.ui.graph.node_layer.NodeLayer`: a sprite atlas, vectorised hit testing,
click / Ctrl+click / middle-click / hover), every arc in one :class:`ArcLayer` (a path per
relation colour, rendered through the graph's
:class:`~anthology.ui.graph.viewport_cache.ViewportCache`: panning blits an image), a ring
for the current entry, and a year axis under them. No item per entry.

The toolbar: the date property (the vault's date-like keys, :func:`date_keys`, and the
file's dates), a query in search's language (``tag:x``, ``folder:x``, ``[key:value]``,
``-word``…), arcs on or off, Fit. The graph's filters (hidden kinds and relations, the tag
filter, orphans) are the side graph's, given by the window (:meth:`set_graph_settings`).

Public API::

    view = TimelineView()
    view.entryActivated / entryActivatedNewTab          # str: an entry clicked
    view.set_graph(data, file_dates=None)               # the vault's graph (GraphData)
    view.set_key("year"); view.set_query("tag:nlp")     # what the toolbar sets
    view.set_graph_settings(settings)                   # the graph's filters
    view.set_current(entry_id)                          # the ring, and the view follows it
    view.shown_ids(); view.entry_viewport_pos(id); view.hover_text(); view.message()
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QTransform
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from anthology.graph.model import Filters
from anthology.graph.timeline import (
    FILE_KEYS,
    MAX_ROWS,
    Timeline,
    build_timeline,
    date_keys,
    default_key,
    key_label,
    tick_label,
)
from anthology.ui.graph.graph_paint import THEMES
from anthology.ui.graph.node_layer import NodeLayer, PassiveScatter
from anthology.ui.graph.viewport_cache import ViewportCache
from anthology.vault import GraphData
from anthology.vault.render.safe_text import plain_text, tooltip_html

__all__ = ["ArcLayer", "TimelineView"]

NODE_PX = 9.0
RING_PX = 17.0


class YearAxis(pg.AxisItem):
    """The bottom axis: years, then months, days, times as the reader zooms in."""

    def tickStrings(self, values, scale, spacing):  # pyqtgraph's name
        return [tick_label(float(v), float(spacing)) for v in values]


class ArcLayer(pg.GraphicsObject):
    """Every arc in one item, drawn through a :class:`ViewportCache` (a pan blits the image;
    a zoom re-renders it once the wheel stops).

    A render draws in device coordinates, hairlines, the shortest visible arcs first, up
    to :attr:`BUDGET_PX` pixels of drawn length (anti-aliased up to :attr:`AA_BUDGET_PX`):
    at 10,000 entries the ~12,000 relations of a synthetic vault are ~6 million pixels of
    curve over a 1-million-pixel view (a solid wash, and seconds to stroke); what is left
    out is the longest arcs, which zooming in brings back. ``drawn`` / ``visible`` say how
    many the last render drew of those in view."""

    BUDGET_PX = 1.2e6
    AA_BUDGET_PX = 0.6e6
    LIVE_BUDGET_PX = 0.15e6  # a frame painted while the sharp image is drawn in slices
    CHUNK = 500  # arcs per path: one step of a sliced render (one huge path strokes slower)
    SLOW_S = 0.03  # a render slower than this goes in slices, between event-loop turns
    # a timeline is panned along far more than a graph: its image reaches further beyond
    # the view (fewer re-renders on a long pan; the blit stays one drawImage)
    MARGIN = 0.6

    def __init__(self) -> None:
        super().__init__()
        self._xs = np.zeros((0, 2))
        self._ys = np.zeros((0, 2))
        self._group = np.zeros(0, dtype=np.int64)
        self._colours: list[QColor] = []
        self._lo = np.zeros((0, 2))  # per arc, its bounding box: (xmin, ymin)
        self._hi = np.zeros((0, 2))  # (xmax, ymax)
        self._bounds = QRectF()
        self._version = 0
        self.drawn = 0
        self.visible = 0
        self.cache: ViewportCache = ViewportCache(
            self, self._render_into, self._render_steps, self._is_slow
        )
        self.cache.MARGIN = self.MARGIN
        # a timeline's content changes at a reader's step (a property, a query typed), not
        # in a simulation's frames: never painted "live" as a moving layout is (each frame
        # of a pan in the 1.5 s after a change stroked every arc again, ~40 ms)
        self.cache.ANIMATING_S = 0.0

    def _is_slow(self) -> bool:
        return self.cache.last_render_s > self.SLOW_S

    def set_arcs(self, xs: np.ndarray, ys: np.ndarray, group: np.ndarray,
                 colours: list[QColor]) -> None:  # fmt: skip
        """Arcs as curves, (xs, ys) of shape (k, points), coloured by ``group`` (into
        ``colours``)."""
        self.prepareGeometryChange()
        self._xs, self._ys = np.asarray(xs, np.float64), np.asarray(ys, np.float64)
        self._group, self._colours = np.asarray(group, np.int64), list(colours)
        if len(self._xs):
            self._lo = np.column_stack([self._xs.min(axis=1), self._ys.min(axis=1)])
            self._hi = np.column_stack([self._xs.max(axis=1), self._ys.max(axis=1)])
            x0, y0 = self._lo.min(axis=0)
            x1, y1 = self._hi.max(axis=0)
            self._bounds = QRectF(float(x0), float(y0), max(float(x1 - x0), 1e-9),
                                  max(float(y1 - y0), 1e-9))  # fmt: skip
        else:
            self._bounds = QRectF()
        self._version += 1
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, p: QPainter, option, widget=None) -> None:
        if len(self._xs) == 0:
            return
        if widget is None:  # an export: straight to the device
            self._render_into(p, p.transform(), QRectF(), None)
            return
        self.cache.paint(p, widget, self._bounds, self._version)

    def _render_into(self, p: QPainter, tr: QTransform, clip: QRectF, _item_rect,
                     live: bool = False) -> None:  # fmt: skip
        for _ in self._steps(p, tr, clip, live):
            pass

    def _render_steps(self, p: QPainter, tr: QTransform, clip: QRectF, _item_rect):
        """The sharp render, a path at a time (the cache draws them between event-loop
        turns while it shows the stale image or a live frame)."""
        return self._steps(p, tr, clip, False)

    def _steps(self, p: QPainter, tr: QTransform, clip: QRectF, live: bool):
        xs, ys = self._xs, self._ys
        if len(xs) == 0:
            return
        # the arcs in view (their boxes meet the clip, mapped back to item coordinates)
        sel = np.arange(len(xs))
        if not clip.isEmpty():
            inv, ok = tr.inverted()
            if ok:
                r = inv.mapRect(clip)
                meet = ((self._hi[:, 0] >= r.left()) & (self._lo[:, 0] <= r.right())
                        & (self._hi[:, 1] >= r.top()) & (self._lo[:, 1] <= r.bottom()))  # fmt: skip
                sel = np.flatnonzero(meet)
        dx = tr.m11() * xs[sel] + tr.m21() * ys[sel] + tr.dx()
        dy = tr.m12() * xs[sel] + tr.m22() * ys[sel] + tr.dy()
        length = np.hypot(np.diff(dx, axis=1), np.diff(dy, axis=1)).sum(axis=1)
        order = np.argsort(length, kind="stable")
        budget = self.LIVE_BUDGET_PX if live else self.BUDGET_PX
        keep = order[np.cumsum(length[order]) <= budget]
        if not live:
            self.visible, self.drawn = len(sel), len(keep)
        p.save()
        try:  # (a sliced render abandoned midway is closed at a yield)
            p.resetTransform()
            p.setRenderHint(QPainter.RenderHint.Antialiasing,
                            float(length[keep].sum()) <= self.AA_BUDGET_PX)  # fmt: skip
            p.setBrush(Qt.BrushStyle.NoBrush)
            points = xs.shape[1]
            group = self._group[sel]
            for k, colour in enumerate(self._colours):
                mine = keep[group[keep] == k]
                if len(mine) == 0:
                    continue
                pen = QPen(colour)
                pen.setWidthF(0.0)  # a hairline: the raster engine's fast path
                pen.setCosmetic(True)
                p.setPen(pen)
                for c in range(0, len(mine), self.CHUNK):
                    part = mine[c : c + self.CHUNK]
                    connect = np.ones((len(part), points), dtype=np.int32)
                    connect[:, -1] = 0  # each curve ends: no segment to the next one
                    p.drawPath(pg.arrayToQPath(dx[part].ravel(), dy[part].ravel(),
                                               connect=connect.ravel()))  # fmt: skip
                    yield
        finally:
            p.restore()

    def mouseClickEvent(self, ev) -> None:
        ev.ignore()  # the entries under the arcs take the clicks


class TimelineView(QWidget):
    """Entries by date, with their typed relations as arcs (see the module docstring)."""

    entryActivated = Signal(str)
    entryActivatedNewTab = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelineView")
        self._data: GraphData | None = None
        self._file_dates: Mapping[str, tuple[int, int]] | None = None
        self._file_dates_fn: Callable[[], Mapping[str, tuple[int, int]]] | None = None
        self._filters = Filters()
        self._key = ""
        self._query = ""
        self._current: str | None = None
        self._theme = "dark"
        self._hover = -1
        self.timeline: Timeline | None = None
        self._build_ui()
        self._apply_theme()

    # ---- UI ------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 4)
        bar.setSpacing(6)
        bar.addWidget(QLabel("Date:"))
        self.key_combo = QComboBox()
        self.key_combo.setObjectName("timelineKey")
        self.key_combo.setToolTip("The property that dates each entry")
        self.key_combo.activated.connect(
            lambda i: self.set_key(str(self.key_combo.itemData(i) or ""))
        )
        bar.addWidget(self.key_combo)
        self.query_edit = QLineEdit()
        self.query_edit.setObjectName("timelineQuery")
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.setPlaceholderText("Filter: tag:x folder:x [key:value] -word")
        self.query_edit.textChanged.connect(self.set_query)
        bar.addWidget(self.query_edit, 1)
        self.arcs_button = QToolButton()
        self.arcs_button.setText("Relations")
        self.arcs_button.setCheckable(True)
        self.arcs_button.setChecked(True)
        self.arcs_button.setToolTip("Draw typed relations as arcs between the entries")
        self.arcs_button.toggled.connect(lambda on: self.arcs.setVisible(on))
        bar.addWidget(self.arcs_button)
        self.fit_button = QToolButton()
        self.fit_button.setText("Fit")
        self.fit_button.clicked.connect(self.fit)
        bar.addWidget(self.fit_button)

        self.view = pg.GraphicsView(self)
        self.view.setObjectName("timelineCanvas")
        self.axis = YearAxis("bottom")
        self.plot = pg.PlotItem(axisItems={"bottom": self.axis}, enableMenu=False)
        self.plot.hideAxis("left")
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.view.setCentralItem(self.plot)
        self.vb = self.plot.getViewBox()
        self.vb.disableAutoRange()
        self.arcs: ArcLayer = ArcLayer()
        self.arcs.setZValue(0)
        self.nodes = NodeLayer()
        self.nodes.setZValue(1)
        self.nodes.cache.MARGIN = ArcLayer.MARGIN
        self.nodes.cache.ANIMATING_S = 0.0  # (see ArcLayer)
        self.ring = PassiveScatter(pxMode=True, antialias=True, brush=None)
        self.ring.setZValue(2)
        self.current_label = pg.TextItem(anchor=(0.0, 1.0))  # the current entry's title
        self.current_label.setZValue(3)
        for item in (self.arcs, self.nodes, self.ring, self.current_label):
            self.vb.addItem(item, ignoreBounds=True)
        self.nodes.nodeClicked.connect(lambda j: self._activate(j, False))
        self.nodes.nodeClickedNewTab.connect(lambda j: self._activate(j, True))
        self.nodes.nodeHovered.connect(self._on_hover)

        self.empty_label = QLabel("", self.view)
        self.empty_label.setObjectName("timelineEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.legend = QLabel("")  # the relations' colours
        self.legend.setObjectName("timelineLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.legend.setContentsMargins(6, 2, 6, 0)
        self.status = QLabel("")
        self.status.setObjectName("timelineStatus")
        self.status.setWordWrap(True)
        self.status.setContentsMargins(6, 2, 6, 2)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(bar)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.legend)
        lay.addWidget(self.status)
        self.view.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.view and event.type() == event.Type.Resize:
            self.empty_label.setGeometry(24, 0, max(0, self.view.width() - 48), self.view.height())
        return super().eventFilter(obj, event)

    # ---- input ---------------------------------------------------------------------------
    def set_graph(
        self, data: GraphData, file_dates: Callable[[], Mapping[str, tuple[int, int]]] | None = None
    ) -> None:
        """The vault's graph (again after a refresh); ``file_dates`` asks the index for
        the files' times when a file date is picked (:meth:`VaultIndex.file_dates`)."""
        self._data = data
        self._file_dates, self._file_dates_fn = None, file_dates
        keys = date_keys(data, with_files=file_dates is not None)
        self.key_combo.blockSignals(True)
        self.key_combo.clear()
        for key, n in keys:
            suffix = "" if key in FILE_KEYS else f"  ({n})"
            self.key_combo.addItem(f"{key_label(key)}{suffix}", key)
        self.key_combo.blockSignals(False)
        names = [k for k, _n in keys]
        if not self._key or (self._key not in names and self._key not in FILE_KEYS):
            self._key = default_key(keys)
        self._sync_combo()
        self._rebuild(fit=True)

    def set_key(self, key: str) -> None:
        """Lay the entries out by ``key`` (a property, or ``file.mtime`` / ``file.ctime``)."""
        if key == self._key or not key:
            return
        self._key = key
        self._sync_combo()
        self._rebuild(fit=True)

    def key(self) -> str:
        return self._key

    def set_query(self, text: str) -> None:
        """Show only the entries ``text`` matches (search's query language)."""
        if text != self.query_edit.text():
            self.query_edit.setText(text)  # (comes back here)
            return
        if text == self._query:
            return
        self._query = text
        self._rebuild(fit=False)

    def set_graph_settings(self, settings: Mapping[str, Any]) -> None:
        """The graph's filters (its settings, :mod:`anthology.graph.settings`)."""
        filters = Filters.from_settings(settings)
        if filters.key() != self._filters.key():
            self._filters = filters
            self._rebuild(fit=False)

    def set_current(self, entry_id: str | None) -> None:
        """Ring the entry the reader is on and bring it into view."""
        self._current = entry_id
        self._draw_ring(follow=True)

    def set_theme(self, theme: str) -> None:
        if theme in THEMES and theme != self._theme:
            self._theme = theme
            self._apply_theme()
            self._draw()

    def _sync_combo(self) -> None:
        i = self.key_combo.findData(self._key)
        if i < 0:  # a key no entry has (a saved tab's): shown, so it can be picked away
            self.key_combo.addItem(key_label(self._key), self._key)
            i = self.key_combo.count() - 1
        self.key_combo.setCurrentIndex(i)

    def _activate(self, j: int, new_tab: bool) -> None:
        entry_id = self._id_at(j)
        if entry_id is not None:
            (self.entryActivatedNewTab if new_tab else self.entryActivated).emit(entry_id)

    def _on_hover(self, j: int) -> None:
        self._hover = j
        self.view.setToolTip(tooltip_html(self.hover_text()) if j >= 0 else "")

    # ---- what is shown -------------------------------------------------------------------
    def _id_at(self, j: int) -> str | None:
        t, data = self.timeline, self._data
        if t is None or data is None or not 0 <= j < t.n:
            return None
        return data.ids[int(t.nodes[j])]

    def shown_ids(self) -> list[str]:
        """The entries placed, oldest first."""
        t, data = self.timeline, self._data
        if t is None or data is None:
            return []
        return [data.ids[i] for i in t.nodes.tolist()]

    def hover_text(self) -> str:
        """What the pointer's entry shows: its title and date ("" over none)."""
        t, data = self.timeline, self._data
        if t is None or data is None or not 0 <= self._hover < t.n:
            return ""
        i = int(t.nodes[self._hover])
        return f"{data.titles[i]} — {t.when[self._hover].text}"

    def hover(self, entry_id: str | None) -> None:
        """Hover ``entry_id`` as the pointer would (tests and hosts)."""
        ids = self.shown_ids()
        self._on_hover(ids.index(entry_id) if entry_id in ids else -1)

    def message(self) -> str:
        """The empty state's text ("" while entries are shown)."""
        return self.empty_label.text() if self.empty_label.isVisible() else ""

    def entry_viewport_pos(self, entry_id: str) -> QPoint | None:
        """Where ``entry_id`` is drawn, in ``self.view.viewport()`` coordinates."""
        ids = self.shown_ids()
        if entry_id not in ids:
            return None
        x, y = self._positions()[ids.index(entry_id)]
        return self.view.mapFromScene(self.vb.mapViewToScene(QPointF(float(x), float(y))))

    def _positions(self) -> np.ndarray:
        t = self.timeline
        if t is None:
            return np.zeros((0, 2))
        return np.column_stack([t.x, t.row.astype(np.float64)])

    # ---- building and drawing ------------------------------------------------------------
    def _rebuild(self, fit: bool) -> None:
        data = self._data
        if data is None:
            return
        if self._key in FILE_KEYS and self._file_dates is None and self._file_dates_fn:
            self._file_dates = self._file_dates_fn()
        self.timeline = build_timeline(
            data, self._key, query=self._query, filters=self._filters, file_dates=self._file_dates
        )
        self._hover = -1
        self._draw()
        if fit:
            self.fit()

    def _colours(self) -> tuple[np.ndarray, list[QColor]]:
        """Per placed entry, a colour index by kind; and the colours."""
        t, data = self.timeline, self._data
        assert t is not None and data is not None
        palette = THEMES[self._theme]["palette"]
        kinds: dict[str, int] = {}
        idx = np.fromiter(
            (kinds.setdefault(data.kinds[i], len(kinds)) for i in t.nodes.tolist()), np.int64, t.n
        )
        colours = [QColor(palette[k % len(palette)]) for k in range(max(1, len(kinds)))]
        return idx, colours

    def _draw(self) -> None:
        t = self.timeline
        if t is None:
            return
        if t.n == 0:
            self.nodes.set_nodes(np.zeros((0, 2)), np.zeros(0), np.zeros(0, dtype=object))
            self.arcs.set_arcs(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, np.int64), [])
            self.ring.setData([], [])
            self.current_label.hide()
            self.legend.setText("")
            self.empty_label.setText(t.message)
            self.empty_label.show()
            self._update_status()
            return
        self.empty_label.hide()
        group, colours = self._colours()
        brushes = np.empty(len(colours), dtype=object)
        for k, c in enumerate(colours):
            brushes[k] = pg.mkBrush(c)
        self.nodes.set_nodes(self._positions(), np.full(t.n, NODE_PX), brushes[group],
                             styles=group)  # fmt: skip
        xs, ys = t.arc_curves()
        relations = sorted(set(t.relations))
        rel_index = {r: k for k, r in enumerate(relations)}
        palette = THEMES[self._theme]["palette"]
        arc_colours = []
        for k in range(len(relations)):
            c = QColor(palette[(k + 3) % len(palette)])
            c.setAlpha(150)
            arc_colours.append(c)
        arc_group = np.fromiter((rel_index[r] for r in t.relations), np.int64, len(t.relations))
        self.arcs.set_arcs(xs, ys, arc_group, arc_colours)
        self.legend.setText("  ".join(
            f'<span style="color:{c.name()}">━ {html.escape(r)}</span>'
            for r, c in zip(relations, arc_colours, strict=True)
        ))  # fmt: skip
        self._draw_ring(follow=False)
        self._update_status()

    def _update_status(self) -> None:
        t = self.timeline
        if t is None:
            return
        parts = [f"{t.n:,} entries by “{key_label(t.key)}”"]
        if t.n:
            parts[0] += f", {t.when[0].text} to {t.when[-1].text}"
        if len(t.arcs):
            parts.append(f"{len(t.arcs):,} relations")
        if t.undated:
            parts.append(f"{t.undated:,} without it")
        if t.refused_count:
            eid, why = t.refused[0]
            more = f" and {t.refused_count - 1:,} more" if t.refused_count > 1 else ""
            parts.append(f"not dates: {plain_text(eid, 60)} ({why}){more}")
        if t.adjusted_count:
            eid, note = t.adjusted[0]
            more = f" and {t.adjusted_count - 1:,} more" if t.adjusted_count > 1 else ""
            parts.append(f"placed nearby: {plain_text(eid, 60)} ({note}){more}")
        self.status.setText(" · ".join(parts))

    def _draw_ring(self, follow: bool) -> None:
        ids = self.shown_ids()
        if self._current is None or self._current not in ids:
            self.ring.setData([], [])
            self.current_label.hide()
            return
        j = ids.index(self._current)
        pos = self._positions()[j]
        accent = THEMES[self._theme]["accent"]
        self.ring.setData([pos[0]], [pos[1]], size=RING_PX, pen=pg.mkPen(accent, width=2.5),
                          brush=None)  # fmt: skip
        data, t = self._data, self.timeline
        assert data is not None and t is not None
        self.current_label.setText(plain_text(data.titles[int(t.nodes[j])], 80), color=accent)
        self.current_label.setPos(float(pos[0]), float(pos[1]) + 0.4)
        self.current_label.show()
        if follow:
            r = self.vb.viewRect()
            if not r.contains(QPointF(float(pos[0]), float(pos[1]))):
                self.vb.translateBy(x=float(pos[0]) - r.center().x(),
                                    y=float(pos[1]) - r.center().y())  # fmt: skip

    def fit(self) -> None:
        """Every placed entry in view (and the arcs over them)."""
        t = self.timeline
        if t is None or t.n == 0:
            return
        x0, x1 = float(t.x.min()), float(t.x.max())
        pad = max((x1 - x0) * 0.04, t.column)
        top = float(t.row.max()) + 1.0
        if len(t.arcs):
            _xs, ys = t.arc_curves(3)
            top = max(top, float(ys.max()) + 0.5)
        top = min(top, float(MAX_ROWS) * 2.5)  # arcs of far-apart entries may leave the top
        self.vb.setRange(xRange=(x0 - pad, x1 + pad), yRange=(-1.0, top), padding=0)

    def _apply_theme(self) -> None:
        t = THEMES[self._theme]
        self.view.setBackground(t["background"])
        fg = t["text"]
        self.axis.setPen(fg)
        self.axis.setTextPen(fg)
        self.empty_label.setStyleSheet(f"color: {fg.name()}; background: transparent;")

    def shutdown(self) -> None:
        for cache in (self.arcs.cache, self.nodes.cache):
            cache.timer.stop()
            cache.cancel()
            cache.settle_timer.stop()
