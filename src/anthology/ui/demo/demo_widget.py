"""The attention-scaling demo as a widget: controls, a logit histogram, one query's weights,
and the d_k sweep of every scaling at once.

The maths is :mod:`anthology.demo.attention_scaling`; this module only draws its answers.
The single-d_k views (histogram, bars, readout) are cheap and recomputed synchronously on
every change; the sweep runs on a :class:`~anthology.ui.common.task_runner.TaskRunner` (one at a
time), reports back through its signals, and a newer request cancels the older one (its
results are dropped if they still arrive). :meth:`AttentionScalingDemo.shutdown` (closeEvent
calls it) cancels the sweep before the widget goes.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, QTimer, Signal, Slot
from PySide6.QtGui import (
    QColor,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QPixmap,
    QPolygonF,
    QStandardItem,
    QStandardItemModel,
)
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from anthology.demo import DEMOS, views
from anthology.demo import attention_scaling as maths
from anthology.demo.styles import PANEL_CAPTIONS, SCALING_STYLES, CurveStyle
from anthology.palette import THEMES
from anthology.palette import theme as palette_theme
from anthology.tasks import TaskState
from anthology.ui.common.task_runner import TaskRunner

# d_k values the slider steps through: half octaves from 1 to 4096.
SLIDER_D_KS: tuple[int, ...] = tuple(sorted({round(2 ** (i / 2)) for i in range(25)}))
SWEEP_D_KS: tuple[int, ...] = tuple(2**i for i in range(13))  # 1 … 4096
_LEGEND_SAMPLE = (44, 14)  # px of each legend entry's line sample
_SYMBOLS = {"o": "o", "s": "s", "t": "t", "d": "d"}  # styles' marker → pyqtgraph symbol

_INTRO = (
    "Each sampled query attends to <i>n</i> random keys with N(0, σ²) components. "
    "Unscaled, the logits' variance grows like d<sub>k</sub>; once their spread τ passes "
    "τ<sub>c</sub> = √(2 ln n) the softmax saturates and its gradient vanishes. "
    "1/√d<sub>k</sub> keeps τ = σ<sub>q</sub>σ<sub>k</sub>; QK-norm pins it at 1 for any σ. "
    'See <a href="entry:LIT-008">LIT-008</a> (Vaswani et al., 2017) and the reading note '
    '<a href="entry:NOTE-011">NOTE-011</a>.'
)


class DemoWidget(QWidget):
    """What every demo's widget is (see :mod:`anthology.demo`): the window connects
    ``entryLinkActivated`` to its navigation and ``set_theme`` to its theme, and calls
    ``shutdown`` before the widget goes; ``demo_name`` says which demo it shows."""

    entryLinkActivated = Signal(str)  # an entry id, from a link inside the demo
    demo_name = ""  # set by create_demo_widget

    def set_theme(self, name: str) -> None:
        """Recolour for a ``"light"`` or ``"dark"`` window (the palette does, by default)."""

    def shutdown(self, timeout: float | None = None) -> None:
        """Stop any work behind the widget (nothing, by default)."""


def _sweep(state: TaskState, params: dict) -> maths.SweepResult:
    """One sweep on the runner's thread: touches no widget."""
    return maths.sweep(**params, state=state)


def _caption_html(text: str) -> str:
    return text.replace("d_k", "d<sub>k</sub>").replace("τ_c", "τ<sub>c</sub>")


def _pen(style: CurveStyle, colour: str) -> QPen:
    """A scaling's line as Qt draws it (Qt counts a dash pattern in line widths)."""
    c = QColor(colour)
    c.setAlphaF(style.alpha)
    pen = pg.mkPen(c, width=style.width)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    if style.dash:
        pen.setDashPattern([v / style.width for v in style.dash])
    return pen


def legend_sample(scaling: str, colour: str, dpr: float = 2.0) -> QPixmap:
    """The small picture of a scaling's line and marker in the sweep's legend."""
    style = SCALING_STYLES[scaling]
    w, h = _LEGEND_SAMPLE
    pixmap = QPixmap(round(w * dpr), round(h * dpr))
    pixmap.setDevicePixelRatio(dpr)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(_pen(style, colour))
    painter.drawLine(QPointF(1, h / 2), QPointF(w - 1, h / 2))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(colour))
    painter.drawPath(_marker_path(style.marker, QPointF(w / 2, h / 2), 4.0))
    painter.end()
    return pixmap


def _marker_path(kind: str, c: QPointF, r: float) -> QPainterPath:
    path = QPainterPath()
    if kind == "o":
        path.addEllipse(c, r, r)
    elif kind == "s":
        path.addRect(c.x() - r, c.y() - r, 2 * r, 2 * r)
    else:
        r = r * 1.25 if kind == "d" else r
        pts = (
            [(0, -r), (r, 0), (0, r), (-r, 0)]
            if kind == "d"
            else [(-r, -0.8 * r), (r, -0.8 * r), (0, r)]
        )
        path.addPolygon(QPolygonF([QPointF(c.x() + dx, c.y() + dy) for dx, dy in pts]))
        path.closeSubpath()
    return path


class _Caption(pg.LabelItem):
    """A caption that wraps to the width of its panel instead of widening the column (a
    plain LabelItem asks for its whole text's width as its minimum)."""

    _MIN_WIDTH = 40.0

    def resizeEvent(self, ev) -> None:
        width = max(self._MIN_WIDTH, self.rect().width())
        if abs(self.item.textWidth() - width) > 0.5:
            self.item.setTextWidth(width)
        super().resizeEvent(ev)

    def updateMin(self) -> None:
        height = self.itemRect().height()
        self.setMinimumWidth(self._MIN_WIDTH)
        self.setMinimumHeight(height)
        self._sizeHint = {
            Qt.SizeHint.MinimumSize: (self._MIN_WIDTH, height),
            Qt.SizeHint.PreferredSize: (self._MIN_WIDTH, height),
            Qt.SizeHint.MaximumSize: (-1, -1),
            Qt.SizeHint.MinimumDescent: (0, 0),
        }
        self.updateGeometry()


class _SweepPlot:
    """One sweep panel: a curve per scaling (its own line and marker, see
    :mod:`anthology.demo.styles`), optionally with an interquartile band, and a caption."""

    def __init__(self, title: str, tooltip: str, log_y: bool, band: bool, caption: str):
        self.plot = pg.PlotItem()
        self.plot.setTitle(title, size="9pt")  # the title names the y axis: no left label
        self.plot.setToolTip(tooltip)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setMenuEnabled(False)
        self.plot.getAxis("bottom").setLogMode(True)
        self.plot.getAxis("left").setLogMode(log_y)
        self.caption = _Caption(caption, size="8pt", justify="center")
        self.caption_text = caption
        self.log_y = log_y
        self.curves: dict[str, pg.PlotDataItem] = {}
        # Markers on every other point, alternating between scalings (marker_phase): where
        # two curves coincide their markers take turns instead of hiding one another.
        self.markers: dict[str, pg.ScatterPlotItem] = {}
        self.bands: dict[str, tuple[pg.PlotCurveItem, pg.PlotCurveItem, pg.FillBetweenItem]] = {}
        for scaling in maths.SCALINGS:
            if band:
                lo, hi = pg.PlotCurveItem(), pg.PlotCurveItem()
                fill = pg.FillBetweenItem(lo, hi)
                for item in (lo, hi, fill):
                    self.plot.addItem(item)
                self.bands[scaling] = (lo, hi, fill)
            z = SCALING_STYLES[scaling].z
            curve = pg.PlotDataItem(name=maths.SCALING_LABELS[scaling])
            curve.setZValue(10 + 2 * z)
            marker = pg.ScatterPlotItem(symbol=_SYMBOLS[SCALING_STYLES[scaling].marker])
            marker.setZValue(11 + 2 * z)
            self.plot.addItem(curve)
            self.plot.addItem(marker)
            self.curves[scaling] = curve
            self.markers[scaling] = marker
        self.marker = pg.InfiniteLine(angle=90, movable=False)
        self.threshold = pg.InfiniteLine(angle=90, movable=False)
        self.plot.addItem(self.marker, ignoreBounds=True)
        self.plot.addItem(self.threshold, ignoreBounds=True)

    def set_data(self, scaling: str, xs: np.ndarray, ys: np.ndarray) -> None:
        self.curves[scaling].setData(xs, ys)
        phase = SCALING_STYLES[scaling].marker_phase
        self.markers[scaling].setData(xs[phase::2], ys[phase::2])

    def set_colours(self, colours: dict[str, str], accent: str, fg: str) -> None:
        for scaling, curve in self.curves.items():
            style, colour = SCALING_STYLES[scaling], QColor(colours[scaling])
            curve.setPen(_pen(style, colours[scaling]))
            marker = self.markers[scaling]
            marker.setSize(8 if style.marker == "d" else 7)
            marker.setPen(pg.mkPen(None))
            marker.setBrush(pg.mkBrush(colour))
            if scaling in self.bands:
                lo, hi, fill = self.bands[scaling]
                lo.setPen(pg.mkPen(None))
                hi.setPen(pg.mkPen(None))
                band = QColor(colour)
                band.setAlpha(60)
                fill.setBrush(pg.mkBrush(band))
        self.marker.setPen(pg.mkPen(accent, width=1))
        self.threshold.setPen(pg.mkPen(accent, width=1, style=Qt.PenStyle.DashLine))
        self.caption.setText(self.caption_text, color=fg)


class AttentionScalingDemo(DemoWidget):
    """Why attention logits are scaled: the demo SOTA-050 embeds. Object name
    ``attentionDemo``; ``entryLinkActivated(id)`` fires for the LIT-008/NOTE-011 links."""

    sweepFinished = Signal(object)  # the SweepResult now shown
    pointUpdated = Signal()  # histogram, bars and readout redrawn

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("attentionDemo")
        self.sweep_result: maths.SweepResult | None = None
        self.point: maths.PointResult | None = None
        self._theme = "light"
        self._closed = False
        self._sweeps = TaskRunner(self)  # one sweep computes at a time; a newer one waits
        self._sweeps.done.connect(self._on_sweep_finished)
        self._sweeps.error.connect(self._on_sweep_failed)
        self._sweeps.progress.connect(self._on_sweep_progress)
        self._sweeps.partial.connect(self._on_sweep_partial)
        self._sweep_timer = QTimer(self)
        self._sweep_timer.setSingleShot(True)
        self._sweep_timer.setInterval(150)  # coalesce spin-box bursts into one sweep
        self._sweep_timer.timeout.connect(self._start_sweep)

        self._build_controls()
        self._build_plots()
        self._build_layout()
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        self.set_theme("dark" if dark else "light")
        self._update_point()
        self.request_sweep(immediately=True)

    # ------------------------------------------------------------------ building

    def _build_controls(self) -> None:
        self.intro = QLabel(_INTRO)
        self.intro.setWordWrap(True)
        self.intro.setTextFormat(Qt.TextFormat.RichText)
        self.intro.setOpenExternalLinks(False)
        self.intro.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.intro.linkActivated.connect(self._on_link)

        self.d_k_slider = QSlider(Qt.Orientation.Horizontal)
        self.d_k_slider.setRange(0, len(SLIDER_D_KS) - 1)
        self.d_k_slider.setValue(SLIDER_D_KS.index(64))
        self.d_k_slider.setToolTip("Key/query dimension d_k (log scale, half-octave steps)")
        self.d_k_label = QLabel()
        self.d_k_label.setMinimumWidth(70)

        self.n_spin = QSpinBox()
        self.n_spin.setRange(2, 1024)
        self.n_spin.setValue(64)
        self.n_spin.setToolTip("Number of keys each query attends to")

        self.scaling_combo = QComboBox()
        for scaling in maths.SCALINGS:
            self.scaling_combo.addItem(maths.SCALING_LABELS[scaling], scaling)
        self.scaling_combo.setCurrentIndex(0)
        self.scaling_combo.setToolTip("Scaling of the histogram and weights (the sweep shows all)")

        self.sigma_q_spin = self._sigma_spin("σ_q: standard deviation of query components")
        self.sigma_k_spin = self._sigma_spin("σ_k: standard deviation of key components")

        self.dtype_combo = QComboBox()
        dtypes = QStandardItemModel(self.dtype_combo)  # ours, so its items can be disabled
        for dtype in maths.DTYPES:
            item = QStandardItem(dtype)
            item.setData(dtype, Qt.ItemDataRole.UserRole)  # where addItem(text, data) puts it
            if dtype == "bfloat16" and not maths.torch_available():
                item.setEnabled(False)
                item.setToolTip("bfloat16 needs torch")
            dtypes.appendRow(item)
        self.dtype_combo.setModel(dtypes)
        self.dtype_combo.setToolTip("Working precision (bfloat16 runs on the torch backend)")

        self.samples_spin = QSpinBox()
        self.samples_spin.setRange(50, 20000)
        self.samples_spin.setSingleStep(250)
        self.samples_spin.setValue(1000)
        self.samples_spin.setToolTip("Sampled queries per d_k in the sweep")

        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setValue(0)

        self.x_axis_combo = QComboBox()
        self.x_axis_combo.addItem("d_k", "d_k")
        self.x_axis_combo.addItem("τ = c·σ_q·σ_k·√d_k", "tau")
        self.x_axis_combo.setToolTip(
            "Against τ every scaling falls onto one curve: τ is all that matters"
        )

        self.readout = QLabel()
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.readout.setWordWrap(True)
        self.status = QLabel()
        self.progress = QProgressBar()
        self.progress.setMaximumHeight(12)
        self.progress.setTextVisible(False)

        point_changes = (
            self.d_k_slider.valueChanged,
            self.n_spin.valueChanged,
            self.scaling_combo.currentIndexChanged,
            self.sigma_q_spin.valueChanged,
            self.sigma_k_spin.valueChanged,
            self.dtype_combo.currentIndexChanged,
            self.seed_spin.valueChanged,
        )
        for signal in point_changes:
            signal.connect(self._update_point)
        sweep_changes = (
            self.n_spin.valueChanged,
            self.sigma_q_spin.valueChanged,
            self.sigma_k_spin.valueChanged,
            self.dtype_combo.currentIndexChanged,
            self.samples_spin.valueChanged,
            self.seed_spin.valueChanged,
        )
        for signal in sweep_changes:
            signal.connect(self.request_sweep)
        self.x_axis_combo.currentIndexChanged.connect(lambda _index: self._draw_sweep())
        self.d_k_slider.valueChanged.connect(self._draw_markers)
        self.scaling_combo.currentIndexChanged.connect(self._draw_markers)

    def _sigma_spin(self, tip: str) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(0.05, 20.0)
        spin.setDecimals(2)
        spin.setSingleStep(0.1)
        spin.setValue(1.0)
        spin.setToolTip(tip)
        return spin

    def _build_plots(self) -> None:
        self.histogram_widget = pg.PlotWidget()
        hist = self.histogram_widget.getPlotItem()
        hist.setMenuEnabled(False)
        hist.setLabel("bottom", "logit s = c·q·k")
        hist.setLabel("left", "density")
        hist.getAxis("left").enableAutoSIPrefix(False)
        hist.showGrid(x=True, y=True, alpha=0.25)
        self.histogram_legend = hist.addLegend(offset=(-5, 5), labelTextSize="8pt")
        self.histogram_item = pg.PlotDataItem(stepMode="center", fillLevel=0, name="sampled")
        self.gaussian_item = pg.PlotDataItem(name="N(0, τ²)")
        hist.addItem(self.histogram_item)
        hist.addItem(self.gaussian_item)

        self.weights_widget = pg.PlotWidget()
        bars = self.weights_widget.getPlotItem()
        bars.setMenuEnabled(False)
        bars.setLabel("bottom", "key j")
        bars.setLabel("left", "weight p_j")
        bars.setYRange(0, 1)
        bars.showGrid(y=True, alpha=0.25)
        self.weights_item = pg.BarGraphItem(x=[0], height=[0], width=0.8)
        self.uniform_line = pg.InfiniteLine(angle=0, movable=False)
        bars.addItem(self.weights_item)
        bars.addItem(self.uniform_line, ignoreBounds=True)

        self.sweep_widget = pg.GraphicsLayoutWidget()
        specs = {
            "var_logit": ("Var(s)", "mean of the per-query logit variance", True, False),
            "max_p": ("E[max p]", "mean of the largest weight", False, False),
            "entropy_norm": ("H / ln n", "mean normalised entropy", False, False),
            "jac_fro": (
                "‖J‖<sub>F</sub>",
                "median (line) and interquartile band of ‖J‖_F",
                True,
                True,
            ),
            "grad_q_norm": (
                "‖∂L/∂q‖",
                "median (line) and interquartile band of ‖∂L/∂q‖",
                True,
                True,
            ),
            "zero_grad": (
                "zero-gradient share",
                "share of queries whose p_max rounded to 1",
                False,
                False,
            ),
        }
        self.sweep_plots = {
            metric: _SweepPlot(*spec, caption=_caption_html(PANEL_CAPTIONS[metric]))
            for metric, spec in specs.items()
        }
        # The legend is a row above the panels (inside a panel it hides curves): each
        # scaling's own line and marker as a small picture, then its name.
        self.sweep_legend = QWidget()
        self.sweep_legend.setAutoFillBackground(True)
        legend_row = QHBoxLayout(self.sweep_legend)
        legend_row.setContentsMargins(6, 2, 6, 2)
        legend_row.addStretch(1)
        self.legend_samples: dict[str, QLabel] = {}
        self.legend_labels: list[QLabel] = []
        for scaling in maths.SCALINGS:
            sample = QLabel()
            sample.setToolTip(maths.SCALING_LABELS[scaling])
            self.legend_samples[scaling] = sample
            text = QLabel(maths.SCALING_LABELS[scaling].replace("d_k", "dₖ"))
            self.legend_labels.append(text)
            legend_row.addWidget(sample)
            legend_row.addWidget(text)
            legend_row.addSpacing(10)
        marks = QLabel("│ now &nbsp;┆ saturation (τ = τ<sub>c</sub>)")
        marks.setTextFormat(Qt.TextFormat.RichText)
        self.legend_labels.append(marks)
        legend_row.addWidget(marks)
        legend_row.addStretch(1)
        for p in self.sweep_plots.values():
            p.plot.setXLink(self.sweep_plots["var_logit"].plot)
        self._sweep_columns = 0
        self._arrange_sweep_plots(2)

    def _arrange_sweep_plots(self, columns: int) -> None:
        if columns == self._sweep_columns:
            return
        self._sweep_columns = columns
        layout = self.sweep_widget.ci
        for p in self.sweep_plots.values():
            for item in (p.plot, p.caption):
                if item in layout.items:
                    layout.removeItem(item)
        # each row of panels, then a row of their captions (what to look for)
        for i, p in enumerate(self.sweep_plots.values()):
            row, col = 2 * (i // columns), i % columns
            layout.addItem(p.plot, row=row, col=col)
            layout.addItem(p.caption, row=row + 1, col=col)

    def _build_layout(self) -> None:
        controls = QGridLayout()
        controls.setHorizontalSpacing(6)
        controls.setVerticalSpacing(3)
        d_k_row = QHBoxLayout()
        d_k_row.addWidget(self.d_k_slider, 1)
        d_k_row.addWidget(self.d_k_label)
        controls.addWidget(QLabel("d<sub>k</sub>"), 0, 0)
        controls.addLayout(d_k_row, 0, 1, 1, 3)
        pairs = (
            ("scaling", self.scaling_combo),
            ("n keys", self.n_spin),
            ("σ<sub>q</sub>", self.sigma_q_spin),
            ("σ<sub>k</sub>", self.sigma_k_spin),
            ("dtype", self.dtype_combo),
            ("samples", self.samples_spin),
            ("seed", self.seed_spin),
            ("x axis", self.x_axis_combo),
        )
        for i, (text, widget) in enumerate(pairs):
            row, col = 1 + i // 2, (i % 2) * 2
            label = QLabel(text)
            label.setBuddy(widget)
            widget.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            widget.setMinimumWidth(60)
            controls.addWidget(label, row, col)
            controls.addWidget(widget, row, col + 1)
        controls.setColumnStretch(1, 1)
        controls.setColumnStretch(3, 1)

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        sweep_tab = QWidget()
        sweep_layout = QVBoxLayout(sweep_tab)
        sweep_layout.setContentsMargins(0, 0, 0, 0)
        sweep_layout.setSpacing(0)
        sweep_layout.addWidget(self.sweep_legend)
        sweep_layout.addWidget(self.sweep_widget, 1)
        self.tabs.addTab(sweep_tab, "Sweep (all scalings)")
        self.tabs.addTab(self.histogram_widget, "Logits")
        self.tabs.addTab(self.weights_widget, "One query")

        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.progress)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        layout.addWidget(self.intro)
        layout.addLayout(controls)
        layout.addWidget(self.readout)
        layout.addWidget(self.tabs, 1)
        layout.addLayout(status_row)
        self.setMinimumWidth(380)

    # ------------------------------------------------------------------ params

    def d_k(self) -> int:
        return SLIDER_D_KS[self.d_k_slider.value()]

    def set_d_k(self, d_k: int) -> None:
        """Move the slider to the step nearest ``d_k`` (log scale)."""
        index = int(np.argmin([abs(math.log2(v) - math.log2(max(d_k, 1))) for v in SLIDER_D_KS]))
        self.d_k_slider.setValue(index)

    def scaling(self) -> str:
        return self.scaling_combo.currentData()

    def dtype(self) -> str:
        return self.dtype_combo.currentData()

    def backend(self) -> str:
        return "torch" if self.dtype() == "bfloat16" else "numpy"

    def configure(
        self,
        *,
        n: int | None = None,
        samples: int | None = None,
        seed: int | None = None,
        dtype: str | None = None,
        d_k: int | None = None,
        scaling: str | None = None,
    ) -> None:
        """Set several controls at once (used by ``anthology demo``)."""
        if dtype is not None:
            if dtype not in maths.DTYPES:
                raise ValueError(f"unknown dtype {dtype!r}")
            if dtype == "bfloat16" and not maths.torch_available():
                raise ValueError("bfloat16 needs torch")
            self.dtype_combo.setCurrentIndex(maths.DTYPES.index(dtype))
        if scaling is not None:
            self.scaling_combo.setCurrentIndex(maths.SCALINGS.index(scaling))
        if n is not None:
            self.n_spin.setValue(n)
        if samples is not None:
            self.samples_spin.setValue(samples)
        if seed is not None:
            self.seed_spin.setValue(seed)
        if d_k is not None:
            self.set_d_k(d_k)

    def _sweep_params(self) -> dict:
        return {
            "d_ks": SWEEP_D_KS,
            "n": self.n_spin.value(),
            "sigma_q": self.sigma_q_spin.value(),
            "sigma_k": self.sigma_k_spin.value(),
            "dtype": self.dtype(),
            "samples": self.samples_spin.value(),
            "seed": self.seed_spin.value(),
            "backend": self.backend(),
        }

    # ------------------------------------------------------------------ theme

    def set_theme(self, name: str) -> None:
        """Colour the plots for a ``"light"`` or ``"dark"`` window."""
        if name not in THEMES:
            raise ValueError(f"theme must be 'light' or 'dark', got {name!r}")
        self._theme = name
        colours = palette_theme(name).demo
        fg, accent = colours.foreground, colours.accent
        for widget in (self.histogram_widget, self.weights_widget, self.sweep_widget):
            widget.setBackground(colours.background)
        plots = [self.histogram_widget.getPlotItem(), self.weights_widget.getPlotItem()]
        plots += [p.plot for p in self.sweep_plots.values()]
        for plot in plots:
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(pg.mkPen(fg))
                axis.setTextPen(pg.mkPen(fg))
            plot.titleLabel.setAttr("color", fg)
            plot.titleLabel.setText(plot.titleLabel.text)
        self.histogram_legend.setLabelTextColor(fg)
        for _sample, label in self.histogram_legend.items:
            label.setText(label.text, color=fg)
        scaling_colours = colours.scalings
        for scaling, sample in self.legend_samples.items():
            sample.setPixmap(legend_sample(scaling, scaling_colours[scaling]))
        for label in self.legend_labels:
            label.setStyleSheet(f"color: {fg};")
        legend_palette = self.sweep_legend.palette()
        legend_palette.setColor(QPalette.ColorRole.Window, QColor(colours.background))
        self.sweep_legend.setPalette(legend_palette)
        for p in self.sweep_plots.values():
            p.set_colours(scaling_colours, accent, fg)
        hist_colour = QColor(scaling_colours["1/sqrt(d)"])
        hist_fill = QColor(hist_colour)
        hist_fill.setAlpha(90)
        self.histogram_item.setPen(pg.mkPen(hist_colour, width=1))
        self.histogram_item.setFillBrush(pg.mkBrush(hist_fill))
        self.gaussian_item.setPen(pg.mkPen(scaling_colours["none"], width=2))
        self.weights_item.setOpts(
            brush=pg.mkBrush(scaling_colours["1/sqrt(d)"]), pen=pg.mkPen(None)
        )
        self.uniform_line.setPen(pg.mkPen(accent, style=Qt.PenStyle.DashLine))

    def theme(self) -> str:
        return self._theme

    # ------------------------------------------------------------------ one d_k

    @Slot()
    def _update_point(self) -> None:
        """Recompute the histogram, the bars and the readout for the current controls."""
        d_k, n, scaling = self.d_k(), self.n_spin.value(), self.scaling()
        self.d_k_label.setText(f"d<sub>k</sub> = {d_k}")
        try:
            view = views.point_view(d_k, n, scaling, *self._sigmas(), self.dtype(),
                                    self.samples_spin.value(), self.seed_spin.value(),
                                    self.backend())  # fmt: skip
        except ValueError as exc:
            self.status.setText(str(exc))
            return
        self.point = view.point
        self.histogram_item.setData(view.edges, view.counts)
        self.gaussian_item.setData(view.gaussian_x, view.gaussian_y)
        self.histogram_widget.getPlotItem().setTitle(view.histogram_title, size="9pt")
        self.weights_item.setOpts(x=np.arange(n), height=view.weights, width=0.8)
        self.uniform_line.setValue(1.0 / n)
        self.weights_widget.getPlotItem().setTitle(view.weights_title, size="9pt")
        self.readout.setText(view.readout)
        self.pointUpdated.emit()

    # ------------------------------------------------------------------ sweep

    @Slot()
    def request_sweep(self, *_args, immediately: bool = False) -> None:
        """Ask for a sweep with the current controls; it supersedes any running one."""
        if self._closed:
            return
        self._sweeps.cancel()  # the running sweep stops at its next chunk
        if immediately:
            self._sweep_timer.stop()
            self._start_sweep()
        else:
            self._sweep_timer.start()

    @Slot()
    def _start_sweep(self) -> None:
        if self._closed:
            return
        self._sweeps.start(_sweep, self._sweep_params())
        self.progress.setRange(0, len(SWEEP_D_KS))
        self.progress.setValue(0)
        self.progress.show()
        self.status.setText("computing the sweep…")

    def sweep_running(self) -> bool:
        return self._sweeps.busy or self._sweep_timer.isActive()

    # The runner delivers only the newest sweep's answers, and nothing once shut down.
    def _on_sweep_progress(self, done: int, total: int, _stage: str) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)

    def _on_sweep_failed(self, exc: BaseException) -> None:
        self.progress.hide()
        self.status.setText(f"sweep failed: {type(exc).__name__}: {exc}")

    def _on_sweep_partial(self, result: maths.SweepResult) -> None:
        self._draw_sweep(result)

    def _on_sweep_finished(self, result: maths.SweepResult) -> None:
        self.sweep_result = result
        self.progress.hide()
        self.status.setText(
            f"sweep: {len(result.d_ks)} d_k × {len(result.scalings)} scalings × "
            f"{result.samples} samples, n = {result.n}, {result.dtype}"
        )
        self._draw_sweep()
        self.sweepFinished.emit(result)

    def _draw_sweep(self, result: maths.SweepResult | None = None) -> None:
        """Draw ``result`` (default: the last complete sweep) on the sweep panels."""
        result = result or self.sweep_result
        if result is None:
            return
        against_tau = self.x_axis_combo.currentData() == "tau"
        taus = result.taus()
        x_label = (
            "τ = c·σ<sub>q</sub>·σ<sub>k</sub>·√d<sub>k</sub>" if against_tau else "d<sub>k</sub>"
        )
        for metric, p in self.sweep_plots.items():
            p.plot.setLabel("bottom", x_label)
            for i, scaling in enumerate(result.scalings):
                series = views.sweep_series(result, metric, i, against_tau=against_tau,
                                            log_y=p.log_y, band=scaling in p.bands)  # fmt: skip
                p.set_data(scaling, series.x, series.y)
                if series.band is not None:
                    lo, hi, _fill = p.bands[scaling]
                    bx, by_lo, by_hi = series.band
                    lo.setData(bx, by_lo)
                    hi.setData(bx, by_hi)
        every_x = views.log10(taus.ravel()) if against_tau else views.log10(result.d_ks)
        for p in self.sweep_plots.values():
            p.plot.setXRange(every_x.min(), every_x.max(), padding=0.04)
            p.plot.enableAutoRange(axis="y")
        for metric in ("max_p", "entropy_norm", "zero_grad"):
            self.sweep_plots[metric].plot.setYRange(0, 1, padding=0.02)
        self._draw_markers()

    @Slot()
    def _draw_markers(self) -> None:
        """The current d_k (or its τ) and the saturation threshold on every sweep panel."""
        against_tau = self.x_axis_combo.currentData() == "tau"
        at, threshold = views.markers(self.d_k(), self.n_spin.value(), self.scaling(),
                                      *self._sigmas(), against_tau=against_tau)  # fmt: skip
        for p in self.sweep_plots.values():
            p.marker.setValue(at)
            p.threshold.setValue(threshold)

    def _sigmas(self) -> tuple[float, float]:
        return self.sigma_q_spin.value(), self.sigma_k_spin.value()

    # ------------------------------------------------------------------ misc

    @Slot(str)
    def _on_link(self, href: str) -> None:
        if href.startswith("entry:"):
            self.entryLinkActivated.emit(href.removeprefix("entry:"))

    def changeEvent(self, event) -> None:
        # Follow the application's light/dark switch (a new palette) unless told otherwise.
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
            if (self._theme == "dark") != dark:
                self.set_theme("dark" if dark else "light")
        super().changeEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange_sweep_plots(3 if self.width() >= 760 else 2)

    def shutdown(self, timeout: float | None = None) -> None:
        """Cancel any sweep (a waiting one never starts) and wait until it has stopped, at
        its next chunk: no sweep outlives the widget. ``timeout``: wait at most so long
        (the window quitting: the process ends, and the sweep with it)."""
        self._closed = True
        self._sweep_timer.stop()
        self._sweeps.shutdown(timeout)

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)


class UnknownDemo(DemoWidget):
    """What the dock shows for a demo name no one registered: a label saying which are."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("unknownDemo")
        known = ", ".join(sorted(DEMOS))
        self.label = QLabel(f"Unknown demo “{name}”. Known demos: {known}")
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        QVBoxLayout(self).addWidget(self.label)


def create_demo_widget(name: str, parent: QWidget | None = None) -> DemoWidget:
    """The widget of the demo called ``name`` (see :data:`anthology.demo.DEMOS`); an
    :class:`UnknownDemo` label for a name not there."""
    demo = DEMOS.get(name)
    if demo is None:
        widget: DemoWidget = UnknownDemo(name, parent)
    else:
        module, _, cls = demo.widget.partition(":")
        widget = getattr(importlib.import_module(module), cls)(parent)
    widget.demo_name = name  # which demo the dock shows
    return widget
