"""What the attention-scaling demo shows, as numbers and text: no Qt.

The widget (``ui/demo/demo_widget.py``) asks :func:`point_view` for the single-d_k panels (the
logit histogram with its Gaussian, one query's weights, the titles and the readout) and
:func:`sweep_series` for each curve of the sweep panels, then only draws them; these are
tested without a display (``tests/demo/test_views.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from anthology.demo import attention_scaling as maths

# Logits behind the histogram and readout (queries × n keys): enough for a smooth histogram,
# few enough to redraw synchronously while the slider moves.
HISTOGRAM_LOGITS = 1 << 14
HISTOGRAM_BINS = 61
_LOG_FLOOR = 1e-300


def log10(values: np.ndarray) -> np.ndarray:
    """log10 for a log axis; an exact 0 becomes the floor's, not -inf."""
    return np.log10(np.maximum(np.asarray(values, dtype=np.float64), _LOG_FLOOR))


@dataclass
class PointView:
    """The single-d_k panels for one setting of the controls."""

    point: maths.PointResult
    samples: int  # queries sampled (capped so the histogram stays cheap)
    tau: float  # the logits' predicted spread τ
    counts: np.ndarray  # histogram density per bin
    edges: np.ndarray  # the bins' edges (len(counts) + 1)
    gaussian_x: np.ndarray  # N(0, τ²), the variance argument's prediction
    gaussian_y: np.ndarray
    weights: np.ndarray  # one query's attention weights over the n keys
    histogram_title: str
    weights_title: str
    readout: str  # rich text: the predicted and measured numbers


def histogram_samples(n: int, samples: int) -> int:
    """Queries to sample for the histogram: the requested number, capped so that about
    :data:`HISTOGRAM_LOGITS` logits are drawn (at least 16 queries)."""
    return min(samples, max(16, HISTOGRAM_LOGITS // n))


def point_view(
    d_k: int,
    n: int,
    scaling: str,
    sigma_q: float,
    sigma_k: float,
    dtype: str,
    samples: int,
    seed: int,
    backend: str,
) -> PointView:
    """The panels for these controls; :class:`ValueError` (from the maths' own checks) for
    a setting that cannot run, its message for the status line."""
    samples = histogram_samples(n, samples)
    point = maths.sample_point(
        d_k, n, (scaling,), sigma_q, sigma_k, dtype, samples, seed, backend, keep=samples
    )
    tau = maths.tau(d_k, scaling, sigma_q, sigma_k)
    logits = point.logits[scaling].ravel()
    spread = max(tau, float(logits.std()), 1e-12)
    lim = 4.5 * spread
    counts, edges = np.histogram(logits, bins=HISTOGRAM_BINS, range=(-lim, lim), density=True)
    xs = np.linspace(-lim, lim, 241)
    gaussian = np.exp(-0.5 * (xs / tau) ** 2) / (tau * math.sqrt(2 * math.pi))
    weights = point.weights[scaling][0]
    stats = point.stats[scaling]
    var_qk = d_k * sigma_q**2 * sigma_k**2
    tc = maths.tau_c(n)
    state = "saturated" if tau > tc else "not saturated"
    readout = (
        f"Var(q·k) = d<sub>k</sub>·σ<sub>q</sub>²·σ<sub>k</sub>² = <b>{var_qk:.4g}</b>"
        f" &nbsp;·&nbsp; τ = c·σ<sub>q</sub>·σ<sub>k</sub>·√d<sub>k</sub> = <b>{tau:.3g}</b>"
        f" &nbsp;·&nbsp; τ<sub>c</sub> = √(2 ln n) = <b>{tc:.3g}</b> ({state})<br>"
        f"measured: Var(s) = {stats['var_logit'].mean():.4g}, "
        f"E[max p] = {stats['max_p'].mean():.3f}, "
        f"H/ln n = {stats['entropy_norm'].mean():.3f}, "
        f"median ‖J‖<sub>F</sub> = {np.median(stats['jac_fro']):.3g}"
    )
    return PointView(
        point=point,
        samples=samples,
        tau=tau,
        counts=counts,
        edges=edges,
        gaussian_x=xs,
        gaussian_y=gaussian,
        weights=weights,
        histogram_title=(
            f"logits at d<sub>k</sub> = {d_k}, {maths.SCALING_LABELS[scaling]} "
            f"({samples} queries × {n} keys)"
        ),
        weights_title=f"one query: max p = {weights.max():.3f}, uniform = 1/n (dashed)",
        readout=readout,
    )


def plot_y(values: np.ndarray, log_y: bool) -> np.ndarray:
    """Plot coordinates; an exact 0 on a log axis becomes a gap (NaN), not a cliff."""
    values = np.asarray(values, dtype=np.float64)
    if not log_y:
        return values
    out = np.full(values.shape, np.nan)
    np.log10(values, out=out, where=values > 0)
    return out


@dataclass
class Series:
    """One scaling's curve on one sweep panel, in plot coordinates (log10 x), sorted by x,
    points without a value left out; ``band``: the interquartile band's (x, low, high)."""

    x: np.ndarray
    y: np.ndarray
    band: tuple[np.ndarray, np.ndarray, np.ndarray] | None


def sweep_series(
    result: maths.SweepResult,
    metric: str,
    index: int,
    *,
    against_tau: bool,
    log_y: bool,
    band: bool,
) -> Series:
    """The curve of scaling number ``index`` of ``result`` for ``metric``: the median with
    its interquartile band where the panel has one, else the mean; against d_k or τ."""
    stat = result.summary[metric]
    centre = stat["median"] if band else stat["mean"]
    xs = log10(result.taus()[index] if against_tau else result.d_ks)
    order = np.argsort(xs, kind="stable")
    xs, ys = xs[order], plot_y(centre[index], log_y)[order]
    keep = np.isfinite(ys)
    quartiles = None
    if band:
        lo, hi = plot_y(stat["q25"][index], log_y)[order], plot_y(stat["q75"][index], log_y)[order]
        ok = np.isfinite(lo) & np.isfinite(hi)
        quartiles = (xs[ok], lo[ok], hi[ok])
    return Series(xs[keep], ys[keep], quartiles)


def markers(
    d_k: int, n: int, scaling: str, sigma_q: float, sigma_k: float, *, against_tau: bool
) -> tuple[float, float]:
    """(the current setting, the saturation threshold) on the sweep panels' log10 x axis."""
    if against_tau:
        at = maths.tau(d_k, scaling, sigma_q, sigma_k)
        threshold = maths.tau_c(n)
    else:
        at = d_k
        # τ = σ_q·σ_k·√d_k unscaled: it passes τ_c from d_k ≈ 2 ln n / (σ_q·σ_k)².
        threshold = 2 * math.log(n) / (sigma_q * sigma_k) ** 2
    return math.log10(at), math.log10(threshold)
