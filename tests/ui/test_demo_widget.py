"""The attention-scaling widget, offscreen: controls redraw, the sweep arrives off-thread."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel

from anthology.demo.attention_scaling import SCALINGS
from anthology.ui.demo.demo_widget import AttentionScalingDemo, create_demo_widget


@pytest.fixture
def demo(qtbot):
    widget = create_demo_widget("attention-scaling")
    qtbot.addWidget(widget)
    widget.configure(samples=100)  # small sweeps keep the test fast
    widget.resize(450, 800)
    widget.show()
    yield widget
    widget.shutdown()
    assert not widget.sweep_running()


def _histogram(widget):
    x, y = widget.histogram_item.getData()
    return np.array(x), np.array(y)


def test_slider_redraws_histogram_bars_and_readout(demo, qtbot):
    assert demo.objectName() == "attentionDemo"
    assert isinstance(demo, AttentionScalingDemo)
    edges_before, counts_before = _histogram(demo)
    readout_before = demo.readout.text()
    bars_before = demo.weights_item.opts["height"].copy()
    assert "τ<sub>c</sub> = √(2 ln n) = <b>2.88</b>" in readout_before

    with qtbot.waitSignal(demo.pointUpdated):
        demo.d_k_slider.setValue(demo.d_k_slider.maximum())  # d_k = 4096
    assert demo.d_k() == 4096
    edges_after, counts_after = _histogram(demo)
    assert edges_after.max() > 5 * edges_before.max()  # logits spread like √d_k
    assert not np.array_equal(counts_before, counts_after)
    assert demo.readout.text() != readout_before
    assert "= <b>4096</b>" in demo.readout.text()
    assert demo.weights_item.opts["height"].max() > bars_before.max()

    # 1/√d_k brings the spread back to τ = 1.
    demo.scaling_combo.setCurrentIndex(SCALINGS.index("1/sqrt(d)"))
    assert _histogram(demo)[0].max() < 10


def test_sweep_arrives_and_is_drawn(demo, qtbot):
    qtbot.waitUntil(lambda: demo.sweep_result is not None, timeout=20_000)
    result = demo.sweep_result
    assert result.samples == 100 and len(result.d_ks) == 13
    x, y = demo.sweep_plots["max_p"].curves["none"].getData()
    assert len(x) == 13 and y[-1] > 0.9
    lo, hi, _fill = demo.sweep_plots["jac_fro"].bands["none"]
    assert np.all(np.nan_to_num(lo.getData()[1]) <= np.nan_to_num(hi.getData()[1]))

    # A change supersedes: only the newest sweep is shown, with the new n.
    with qtbot.waitSignal(demo.sweepFinished, timeout=20_000):
        demo.n_spin.setValue(9)
        demo.n_spin.setValue(16)
    assert demo.sweep_result.n == 16

    # Against τ the x data changes (1/√d_k collapses onto τ = σ_q σ_k = 1, log10 = 0).
    demo.x_axis_combo.setCurrentIndex(1)
    x_tau, _ = demo.sweep_plots["max_p"].curves["1/sqrt(d)"].getData()
    np.testing.assert_allclose(x_tau, 0.0, atol=1e-12)

    demo.set_theme("dark")
    assert demo.theme() == "dark"
    demo.resize(1000, 700)
    assert demo.sweep_widget.ci.getItem(0, 2) is not None  # three columns when wide


def test_each_scaling_is_told_apart_by_line_marker_and_caption(demo, qtbot):
    """At σ = 1 the 1/√d_k and QK-norm curves are the same numbers: their lines differ in
    width and dash, and their markers take alternate points, so both stay visible."""
    from anthology.demo.styles import PANEL_CAPTIONS

    qtbot.waitUntil(lambda: demo.sweep_result is not None, timeout=20_000)
    panel = demo.sweep_plots["var_logit"]
    pens = {s: panel.curves[s].opts["pen"] for s in SCALINGS}
    looks = {(p.widthF(), tuple(p.dashPattern()), p.color().name()) for p in pens.values()}
    assert len(looks) == len(SCALINGS)
    assert pens["1/sqrt(d)"].widthF() > 2 * pens["qk-norm"].widthF()
    assert pens["qk-norm"].style() == Qt.PenStyle.CustomDashLine
    x_band, _ = panel.markers["1/sqrt(d)"].getData()
    x_line, _ = panel.markers["qk-norm"].getData()
    assert len(x_band) and len(x_line) and not set(x_band) & set(x_line)
    symbols = {panel.markers[s].opts["symbol"] for s in SCALINGS}
    assert len(symbols) == len(SCALINGS)
    for metric, p in demo.sweep_plots.items():
        assert p.caption.text and PANEL_CAPTIONS[metric].split()[0] in p.caption.text
    # the captions wrap inside their panels: three columns still fit a 1000 px demo
    demo.resize(1000, 700)
    qtbot.waitUntil(lambda: demo.sweep_widget.ci.getItem(0, 2) is not None)
    right = demo.sweep_plots["entropy_norm"].plot.sceneBoundingRect().right()
    assert right <= demo.sweep_widget.width() + 1
    for scaling, sample in demo.legend_samples.items():
        assert not sample.pixmap().isNull(), scaling


@pytest.mark.torch
def test_bfloat16_runs_on_the_torch_backend(demo, qtbot):
    pytest.importorskip("torch")
    demo.configure(dtype="bfloat16", d_k=1024)
    assert demo.backend() == "torch"
    assert demo.point.stats["none"]["zero_grad"].any()  # bf16 rounds p_max to 1 often
    with qtbot.waitSignal(demo.sweepFinished, timeout=30_000) as blocker:
        pass
    assert blocker.args[0].dtype == "bfloat16"


def test_entry_links_emit_ids(demo, qtbot):
    assert 'href="entry:LIT-008"' in demo.intro.text()
    with qtbot.waitSignal(demo.entryLinkActivated) as blocker:
        demo.intro.linkActivated.emit("entry:NOTE-011")
    assert blocker.args == ["NOTE-011"]


def test_unknown_demo_is_a_label(qtbot):
    widget = create_demo_widget("foo")
    qtbot.addWidget(widget)
    labels = widget.findChildren(QLabel)
    assert [label.text() for label in labels] == [
        "Unknown demo “foo”. Known demos: attention-scaling"
    ]
    widget.set_theme("dark")  # the window's calls on every demo widget: none fails
    widget.shutdown(timeout=0)


def test_theme_follows_a_dark_palette(demo):
    palette = demo.palette()
    palette.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    demo.setPalette(palette)
    assert demo.theme() == "dark"
    with pytest.raises(ValueError, match="light"):
        demo.set_theme("sepia")


def test_cli_without_sweep_opens_the_widget(qapp, monkeypatch):
    from PySide6.QtWidgets import QApplication

    from anthology import cli

    seen = []

    def fake_exec(*_args):
        seen.extend(w for w in qapp.topLevelWidgets() if w.objectName() == "attentionDemo")
        return 0

    monkeypatch.setattr(QApplication, "exec", fake_exec)
    assert cli.main(["demo", "attention-scaling", "--samples", "60", "--n", "16"]) == 0
    (widget,) = [w for w in seen if w.isVisible()]
    assert widget.n_spin.value() == 16 and widget.samples_spin.value() == 60
    assert widget._closed and not widget.sweep_running()  # shut down after exec
    widget.close()
    widget.deleteLater()
