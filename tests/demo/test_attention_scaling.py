"""The attention-scaling maths: real numbers at fixed seeds, against the closed forms."""

from __future__ import annotations

import math
import subprocess
import sys
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anthology.demo import DEMOS
from anthology.demo import attention_scaling as a
from anthology.tasks import Cancelled, TaskState


def _var(point, scaling):
    return point.stats[scaling]["var_logit"].mean()


# ---------------------------------------------------------------- variance


@pytest.mark.parametrize("d_k", [1, 2, 4, 16, 64, 256, 1024])
def test_unscaled_logit_variance_is_d_sigma_q2_sigma_k2(d_k):
    sigma_q, sigma_k = 1.5, 0.7
    point = a.sample_point(d_k, 64, ("none",), sigma_q, sigma_k, samples=2000, seed=0)
    expected = d_k * sigma_q**2 * sigma_k**2
    # d_k = 1, 2: q·k is a product of two normals, heavy-tailed; its variance estimate is
    # noisier (≈ 4.5 % standard error at 2,000 samples).
    rtol = 0.12 if d_k <= 2 else 0.05
    assert _var(point, "none") == pytest.approx(expected, rel=rtol)
    assert a.predicted_logit_var(d_k, "none", sigma_q, sigma_k) == pytest.approx(expected)


@pytest.mark.parametrize("d_k", [4, 64, 1024])
def test_inverse_sqrt_scaling_keeps_variance_at_one(d_k):
    point = a.sample_point(d_k, 64, ("1/sqrt(d)", "1/d"), samples=1000, seed=1)
    assert _var(point, "1/sqrt(d)") == pytest.approx(1.0, rel=0.05)
    assert _var(point, "1/d") == pytest.approx(1.0 / d_k, rel=0.05)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("d_k", [4, 64, 1024])
def test_qk_norm_pins_variance_for_every_sigma(d_k, sigma):
    point = a.sample_point(
        d_k, 64, ("qk-norm", "1/sqrt(d)"), sigma, 2 * sigma, samples=1000, seed=2
    )
    assert _var(point, "qk-norm") == pytest.approx(1.0, rel=0.03)
    # …while 1/√d alone is off by σ_q²σ_k² = 4σ⁴.
    assert _var(point, "1/sqrt(d)") == pytest.approx(4 * sigma**4, rel=0.05)


def test_tau_and_threshold():
    assert a.tau(64, "none") == pytest.approx(8.0)
    assert a.tau(64, "1/sqrt(d)", 2.0, 0.5) == pytest.approx(1.0)
    assert a.tau(64, "1/d") == pytest.approx(1 / 8)
    assert a.tau(64, "qk-norm", 5.0, 5.0) == 1.0
    assert a.tau_c(64) == pytest.approx(2.884, abs=1e-3)
    assert a.log_spaced_d_ks(1, 4096) == [2**i for i in range(13)]
    assert "attention-scaling" in DEMOS


# ------------------------------------------------------- Jacobian norm forms


@pytest.mark.parametrize("n", [2, 3, 64, 1000])
def test_jacobian_norm_closed_forms(n):
    uniform = np.full(n, 1.0 / n)
    assert a.softmax_jacobian_fro(uniform) == pytest.approx(math.sqrt(n - 1) / n, rel=1e-12)
    one_hot = np.zeros(n)
    one_hot[n // 2] = 1.0
    assert a.softmax_jacobian_fro(one_hot) == 0.0
    tie = np.zeros(n)
    tie[:2] = 0.5
    assert a.softmax_jacobian_fro(tie) == pytest.approx(0.5, rel=1e-15)


def _exact_jac_fro_sq(p: list[Fraction]) -> Fraction:
    """Σ_ij (diag(p) − p pᵀ)_ij², exactly."""
    total = Fraction(0)
    for i, pi in enumerate(p):
        for j, pj in enumerate(p):
            entry = (pi if i == j else 0) - pi * pj
            total += entry * entry
    return total


def test_stable_and_textbook_forms_agree_away_from_one_hot():
    rng = np.random.default_rng(3)
    p = a.softmax(rng.standard_normal((200, 16)))
    stable = a.softmax_jacobian_fro(p)
    textbook = a.softmax_jacobian_fro_textbook(p)
    np.testing.assert_allclose(stable, textbook, rtol=1e-12)
    exact = [math.sqrt(_exact_jac_fro_sq([Fraction(float(x)) for x in row])) for row in p[:20]]
    np.testing.assert_allclose(stable[:20], exact, rtol=1e-13)


@pytest.mark.parametrize(("eps", "textbook_error"), [(1e-6, 1e-6), (1e-9, 1e-2), (1e-13, 0.5)])
def test_stable_form_stays_accurate_near_one_hot(eps, textbook_error):
    # p = (1 − a − b, a, b) exactly; a high-precision reference from fractions.
    small = [Fraction(eps) * Fraction(3, 4), Fraction(eps) * Fraction(1, 4)]
    exact_p = [1 - sum(small), *small]
    reference = math.sqrt(_exact_jac_fro_sq(exact_p))
    p = np.array([float(x) for x in exact_p])  # p_max rounds; the small ones do not
    stable = float(a.softmax_jacobian_fro(p))
    textbook = float(a.softmax_jacobian_fro_textbook(p))
    assert stable == pytest.approx(reference, rel=1e-12)
    # The textbook form loses ~eps_machine/‖J‖_F² relatively: everything by eps = 1e-13.
    assert abs(textbook - reference) / reference > textbook_error


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-30, 30, allow_nan=False), min_size=2, max_size=12),
)
def test_stable_form_matches_the_definition(logits):
    p = a.softmax(np.array(logits))
    jac = np.diag(p) - np.outer(p, p)
    direct = math.sqrt(float((jac**2).sum()))
    # The direct sum is accurate to ~1e-16 absolute; the stable form at least as good.
    assert float(a.softmax_jacobian_fro(p)) == pytest.approx(direct, rel=1e-9, abs=1e-15)


def test_softmax_backward_is_accurate_near_one_hot():
    s = np.array([0.0, -25.0, -27.0])  # p_max = 1 − 1.5e-11
    g = np.array([0.3, -1.2, 2.0])
    p = a.softmax(s)
    v = a.softmax_backward(p, g)
    # Exact: v_i = p_i Σ_j p_j (g_i − g_j), from the float weights taken as exact.
    pf = [Fraction(float(x)) for x in p]
    gf = [Fraction(float(x)) for x in g]
    exact = [
        float(pi * sum(pj * (gi - gj) for pj, gj in zip(pf, gf, strict=True)))
        for pi, gi in zip(pf, gf, strict=True)
    ]
    np.testing.assert_allclose(v, exact, rtol=1e-12)


def test_entropy_bounds():
    assert a.normalised_entropy(np.full(8, 1 / 8)) == pytest.approx(1.0)
    assert a.normalised_entropy(np.eye(8)[3]) == 0.0


# ------------------------------------------------------------ saturation


def test_unscaled_attention_saturates_while_scaled_stays_flat():
    result = a.sweep(d_ks=[1, 4, 16, 64, 256, 1024], samples=600, seed=4)
    none = result.scalings.index("none")
    sqrt = result.scalings.index("1/sqrt(d)")
    max_p = result.summary["max_p"]["mean"]
    assert np.all(np.diff(max_p[none]) > 0)
    assert max_p[none, -1] > 0.9
    assert np.ptp(max_p[sqrt]) < 0.03
    entropy = result.summary["entropy_norm"]["mean"]
    assert entropy[none, -1] < 0.1 < 0.8 < entropy[sqrt].min()
    # The median Jacobian norm collapses past the threshold, the band stays ordered.
    jac = result.summary["jac_fro"]
    assert jac["median"][none, -1] < 1e-2 * jac["median"][sqrt, -1]
    assert np.all(jac["q25"] <= jac["median"]) and np.all(jac["median"] <= jac["q75"])
    rows = result.rows()
    assert len(rows) == 6 * 4
    assert {r["scaling"] for r in rows} == set(a.SCALINGS)


def test_float64_zero_gradient_share_grows_with_d_unscaled():
    result = a.sweep(d_ks=[16, 1024, 2048], scalings=("none", "1/sqrt(d)"), samples=400)
    share = result.summary["zero_grad"]["mean"]
    assert share[0, 0] == 0.0 < share[0, 1] < share[0, 2]
    assert np.all(share[1] == 0.0)


# ------------------------------------------------------ sampling structure


def test_results_do_not_depend_on_chunking_or_total(monkeypatch):
    big = a.sample_point(64, 32, samples=300, seed=5)
    small = a.sample_point(64, 32, samples=100, seed=5)
    monkeypatch.setattr(a, "_CHUNK_ELEMENTS", 1)  # one block per chunk
    rechunked = a.sample_point(64, 32, samples=300, seed=5)
    swept = a.sweep(d_ks=[64], n=32, samples=300, seed=5)
    for s in a.SCALINGS:
        for metric in a.METRICS:
            np.testing.assert_array_equal(big.stats[s][metric], rechunked.stats[s][metric])
            np.testing.assert_array_equal(big.stats[s][metric][:100], small.stats[s][metric])
        i = swept.scalings.index(s)
        assert swept.summary["jac_fro"]["median"][i, 0] == np.median(big.stats[s]["jac_fro"])


def test_memory_stays_bounded_at_4096():
    tracemalloc.start()
    try:
        a.sample_point(4096, 64, samples=256, seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Holding K for 256 samples at once would take 256·64·4096·8 B = 537 MB.
    assert peak < 96 * 2**20


def test_kept_logits_and_weights():
    point = a.sample_point(16, 8, ("none",), samples=70, seed=0, keep=50)
    assert point.logits["none"].shape == (50, 8)
    np.testing.assert_allclose(point.weights["none"].sum(axis=1), 1.0, rtol=1e-12)
    assert point.weights["none"].max(axis=1) == pytest.approx(point.stats["none"]["max_p"][:50])


def test_sweep_can_be_cancelled_and_reports_progress():
    seen = []

    def progress(done: int, total: int, _stage: str) -> None:
        seen.append((done, total))
        state.cancel()  # after the first d_k

    state = TaskState(on_progress=progress)
    with pytest.raises(Cancelled):
        a.sweep(d_ks=[1, 2, 4], samples=100, state=state)
    assert seen == [(1, 3)]


def test_sweep_reports_partial_results():
    partials = []
    final = a.sweep(d_ks=[1, 8, 64], samples=64, state=TaskState(on_partial=partials.append))
    assert [list(p.d_ks) for p in partials] == [[1], [1, 8]]
    np.testing.assert_array_equal(
        partials[-1].summary["max_p"]["mean"], final.summary["max_p"]["mean"][:, :2]
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dtype": "bfloat16"}, "bfloat16 needs the torch backend"),
        ({"backend": "jax"}, "unknown backend"),
        ({"scalings": ("1/d_k",)}, "unknown scaling"),
        ({"n": 1}, "n must be"),
        ({"sigma_q": 0.0}, "must be positive"),
        ({"seed": -1}, "seed must be"),
    ],
)
def test_bad_arguments_raise_clear_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        a.sample_point(8, **{"samples": 10, **kwargs})


def test_core_imports_neither_qt_nor_torch():
    code = (
        "import sys, anthology.demo, anthology.demo.attention_scaling, anthology.demo.cli; "
        "bad = [m for m in ('torch', 'PySide6', 'pyqtgraph') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------ gradients, numerically
# The numpy backend's ‖∂L/∂q‖ is analytic (softmax_backward, and the RMS normalisation's
# Jacobian for QK-norm). Here it is held against central differences of the forward pass
# itself, L(q) = Σ g·p(q), in the default suite: no torch needed to know the demo's
# gradients are right (the comparisons with torch's autograd run where torch is installed).


def _loss(q, k, g, d_k, scaling):
    (_s, p, _gnorm, _zero) = a._numpy_chunk(q, k, g, d_k, (scaling,), "float64")[scaling]
    return float((g.reshape(p.shape) * p).sum())


@pytest.mark.parametrize("scaling", a.SCALINGS)
@pytest.mark.parametrize("d_k", [1, 3, 16, 128])  # QK-norm projects two ways: ≤ 64, > 64
def test_numpy_gradient_agrees_with_central_differences(scaling, d_k):
    rng = np.random.default_rng(d_k)
    m, n = 3, 5
    q = rng.standard_normal((1, m, d_k)) * 1.3
    k = rng.standard_normal((1, n, d_k)) * 0.8
    g = rng.standard_normal((1, m, n))
    analytic = a._numpy_chunk(q, k, g, d_k, (scaling,), "float64")[scaling][2]
    h = 1e-6
    numeric = np.zeros((m, d_k))
    for i in range(m):
        for j in range(d_k):
            up, down = q.copy(), q.copy()
            up[0, i, j] += h
            down[0, i, j] -= h
            numeric[i, j] = (_loss(up, k, g, d_k, scaling) - _loss(down, k, g, d_k, scaling)) / (
                2 * h
            )
    np.testing.assert_allclose(analytic, np.linalg.norm(numeric, axis=1), rtol=1e-5, atol=1e-8)
    if scaling != "qk-norm" or d_k > 1:  # QK-norm at d_k = 1: q̂ = ±1, no gradient at all
        assert (analytic > 1e-6).all()  # a real gradient was compared, not zeros


# ------------------------------------------------------------------ torch


def _both_backends(dtype, d_k, scalings, samples=200):
    np_point = a.sample_point(d_k, 16, scalings, 1.3, 0.8, dtype, samples, seed=6)
    torch_point = a.sample_point(
        d_k, 16, scalings, 1.3, 0.8, dtype, samples, seed=6, backend="torch"
    )
    return np_point, torch_point


@pytest.mark.torch
@pytest.mark.parametrize(("dtype", "rtol"), [("float64", 1e-12), ("float32", 1e-6)])
@pytest.mark.parametrize(
    ("d_k", "scalings"),
    [(4, a.SCALINGS), (64, ("1/sqrt(d)", "1/d", "qk-norm")), (1024, ("1/sqrt(d)", "qk-norm"))],
)
def test_numpy_gradient_agrees_with_torch_autograd(dtype, rtol, d_k, scalings):
    pytest.importorskip("torch")
    np_point, torch_point = _both_backends(dtype, d_k, scalings)
    for s in scalings:
        for metric in ("grad_q_norm", "max_p", "jac_fro", "entropy_norm", "var_logit"):
            ours, theirs = np_point.stats[s][metric], torch_point.stats[s][metric]
            where = f"{s} {metric}"
            if dtype == "float64":
                np.testing.assert_allclose(ours, theirs, rtol=rtol, err_msg=where)
            else:
                # float32: the two sum in different orders (a d_k-long dot product, the
                # softmax normaliser) and autograd forms g_max − pᵀg naively, so single
                # samples differ by a few ulps more; the batch agrees to 1e-6.
                assert np.linalg.norm(ours - theirs) <= rtol * np.linalg.norm(theirs), where
                np.testing.assert_allclose(ours, theirs, rtol=20 * rtol, err_msg=where)
        np.testing.assert_array_equal(
            np_point.stats[s]["zero_grad"], torch_point.stats[s]["zero_grad"]
        )


@pytest.mark.torch
def test_bfloat16_flattens_more_gradients_than_float32():
    pytest.importorskip("torch")
    kwargs = {"d_ks": [64, 256], "scalings": ("none",), "samples": 500, "backend": "torch"}
    bf16 = a.sweep(dtype="bfloat16", **kwargs).summary["zero_grad"]["mean"][0]
    f32 = a.sweep(dtype="float32", **kwargs).summary["zero_grad"]["mean"][0]
    assert np.all(bf16 > f32)
    assert bf16[-1] > 0.2 and f32[-1] < 0.1
