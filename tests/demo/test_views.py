"""The demo's panels as numbers and text, without a display (the widget only draws them)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from anthology.demo import attention_scaling as maths
from anthology.demo import views


def view(d_k: int, scaling: str, **kw) -> views.PointView:
    args = {"n": 64, "sigma_q": 1.0, "sigma_k": 1.0, "dtype": "float64", "samples": 2000,
            "seed": 0, "backend": "numpy"} | kw  # fmt: skip
    return views.point_view(d_k, scaling=scaling, **args)


def test_the_histogram_is_a_density_around_the_predicted_gaussian() -> None:
    v = view(256, "1/sqrt(d)")
    widths = np.diff(v.edges)
    assert float((v.counts * widths).sum()) == pytest.approx(1.0, abs=0.01)
    assert len(v.counts) == views.HISTOGRAM_BINS
    assert v.tau == pytest.approx(1.0)  # 1/√d_k keeps the spread at σ_q·σ_k
    peak = v.gaussian_y.max()
    assert peak == pytest.approx(1 / math.sqrt(2 * math.pi), rel=1e-3)
    centre = (v.edges[:-1] + v.edges[1:]) / 2
    measured_sd = math.sqrt(float((v.counts * widths * centre**2).sum()))
    assert measured_sd == pytest.approx(1.0, rel=0.1)


def test_the_readout_says_when_the_softmax_saturates() -> None:
    unscaled = view(1024, "none")
    assert "(saturated)" in unscaled.readout and "Var(q·k)" in unscaled.readout
    assert "<b>1024</b>" in unscaled.readout
    scaled = view(1024, "1/sqrt(d)")
    assert "(not saturated)" in scaled.readout
    assert unscaled.weights.max() > scaled.weights.max()  # one key takes the query
    assert unscaled.weights.sum() == pytest.approx(1.0)
    assert "d<sub>k</sub> = 1024" in unscaled.histogram_title
    assert f"max p = {unscaled.weights.max():.3f}" in unscaled.weights_title


def test_the_histogram_stays_cheap_however_many_samples_are_asked() -> None:
    assert views.histogram_samples(64, 100_000) == views.HISTOGRAM_LOGITS // 64
    assert views.histogram_samples(4096, 100_000) == 16
    assert views.histogram_samples(64, 10) == 10
    assert view(16, "1/d", samples=100_000).samples == views.HISTOGRAM_LOGITS // 64


def test_a_setting_that_cannot_run_is_a_value_error_for_the_status_line() -> None:
    with pytest.raises(ValueError, match="bfloat16"):
        view(16, "none", dtype="bfloat16")


def test_sweep_series_are_sorted_with_gaps_for_exact_zeros_and_bands() -> None:
    result = maths.sweep(d_ks=[64, 1, 4096, 16], n=32, samples=200, seed=1)
    i = result.scalings.index("none")
    s = views.sweep_series(result, "var_logit", i, against_tau=False, log_y=True, band=False)
    assert (np.diff(s.x) > 0).all() and s.band is None
    np.testing.assert_allclose(s.x, np.log10([1, 16, 64, 4096]))
    # unscaled, Var(s) grows like d_k: a slope of one decade per decade
    assert (s.y[-1] - s.y[0]) == pytest.approx(math.log10(4096), abs=0.15)
    z = views.sweep_series(result, "zero_grad", i, against_tau=True, log_y=True, band=True)
    assert len(z.x) < 4  # an exact zero share has no place on a log axis: left out
    assert z.band is not None and len(z.band[0]) == len(z.band[1]) == len(z.band[2])
    lin = views.sweep_series(result, "max_p", i, against_tau=False, log_y=False, band=True)
    assert len(lin.x) == 4 and (lin.band[1] <= lin.band[2]).all()


def test_markers_put_the_setting_and_the_threshold_on_the_axis() -> None:
    at, threshold = views.markers(256, 64, "none", 1.0, 1.0, against_tau=True)
    assert at == pytest.approx(math.log10(16.0))  # τ = √256 unscaled
    assert threshold == pytest.approx(math.log10(math.sqrt(2 * math.log(64))))
    at, threshold = views.markers(256, 64, "none", 1.0, 2.0, against_tau=False)
    assert at == pytest.approx(math.log10(256))
    assert threshold == pytest.approx(math.log10(2 * math.log(64) / 4.0))
