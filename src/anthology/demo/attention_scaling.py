"""The attention-scaling demo's maths: why attention logits are scaled, as numbers.

A query ``q`` and ``n`` keys ``k_j`` have independent N(0, σ²) components; the logits are
``s_j = c·(q·k_j)`` for a scale ``c`` and the weights ``p = softmax(s)``. For every sampled
query this module measures the spread of the logits, how peaked ``p`` is, the Frobenius norm
of the softmax Jacobian ``J = diag(p) − p·pᵀ``, the gradient that reaches ``q`` for a random
upstream gradient, and whether finite precision has flattened that gradient to exactly zero.
The maths (and why the stable forms matter) is in ``shared/research/attention-scaling.md``.

No Qt here. numpy always; torch only inside the torch backend, imported when that backend
runs, so ``import anthology.demo.attention_scaling`` stays light.

Sampling. Queries come in *blocks* of ``min(n, 64)`` that attend to one shared set of ``n``
keys, as the queries of one sequence do in a real attention head. Given the keys the queries
are independent, and every query's marginal distribution is exactly the one described above;
sharing the keys cuts the random numbers needed per query from ``n·d_k`` to about ``2·d_k``.
Each block draws from its own generator, seeded by ``(seed, d_k, block)``, so a result does
not depend on how blocks are grouped into memory-bounded chunks, and the first ``m`` samples
of a run are the same whatever the total: a sweep point equals a single-point run. The
inputs are drawn in float64 and rounded to the working dtype, so every dtype and both
backends see the same q, K and upstream gradient.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from anthology.tasks import TaskState

SCALINGS: tuple[str, ...] = ("none", "1/sqrt(d)", "1/d", "qk-norm")
SCALING_LABELS: dict[str, str] = {
    "none": "none",
    "1/sqrt(d)": "1/√d_k",
    "1/d": "1/d_k",
    "qk-norm": "QK-norm",
}
DTYPES: tuple[str, ...] = ("float64", "float32", "bfloat16")
BACKENDS: tuple[str, ...] = ("numpy", "torch")
METRICS: tuple[str, ...] = (
    "var_logit",
    "max_p",
    "entropy_norm",
    "jac_fro",
    "grad_q_norm",
    "zero_grad",
)
MAX_D_K = 4096
MAX_N = 4096

_QUERIES_PER_BLOCK = 64
# Elements (of any dtype) a chunk of blocks may hold at once: keys, queries and the
# gradient rows of every scaling. ~2**21 float64 elements is 16 MB per array family.
_CHUNK_ELEMENTS = 1 << 21


# --------------------------------------------------------------------------- scalings


def tau(d_k: float, scaling: str, sigma_q: float = 1.0, sigma_k: float = 1.0) -> float:
    """The logit scale ``τ = c·σ_q·σ_k·√d_k``; the one number the softmax statistics depend on.

    QK-norm removes σ_q and σ_k (the normalised vectors have unit RMS), so its τ is 1.
    """
    _check_scaling(scaling)
    if scaling == "qk-norm":
        return 1.0
    return _c(scaling, d_k) * sigma_q * sigma_k * math.sqrt(d_k)


def _c(scaling: str, d_k: float) -> float:
    if scaling == "none":
        return 1.0
    if scaling == "1/d":
        return 1.0 / d_k
    return 1.0 / math.sqrt(d_k)


def predicted_logit_var(d_k: float, scaling: str, sigma_q: float = 1.0, sigma_k: float = 1.0):
    """Var(s) = c²·d_k·σ_q²·σ_k² = τ² (exactly, for independent zero-mean inputs)."""
    return tau(d_k, scaling, sigma_q, sigma_k) ** 2


def tau_c(n: int) -> float:
    """Saturation threshold τ_c = √(2 ln n): softmax over n logits saturates beyond it."""
    return math.sqrt(2.0 * math.log(n))


def log_spaced_d_ks(lo: int = 1, hi: int = MAX_D_K, per_octave: int = 1) -> list[int]:
    """Distinct integers from ``lo`` to ``hi``, ``per_octave`` per doubling (powers of two
    for the default)."""
    if lo < 1 or hi < lo:
        raise ValueError(f"need 1 <= lo <= hi, got lo={lo}, hi={hi}")
    steps = round(math.log2(hi / lo) * per_octave)
    values = [round(lo * 2 ** (i / per_octave)) for i in range(steps + 1)]
    return sorted(set(values) | {hi})


# --------------------------------------------------------------------- softmax maths


def softmax_jacobian_fro(p: np.ndarray) -> np.ndarray:
    """‖J‖_F of the softmax Jacobian ``J = diag(p) − p·pᵀ``, along the last axis, stably.

    ‖J‖_F² = Σᵢ pᵢ² [(1 − pᵢ)² + Σ_{j≠i} p_j²], with 1 − pᵢ computed as the sum of the
    other weights and Σ_{j≠i} p_j² without subtracting from the total where that cancels:
    near a one-hot p every term is then accurate to rounding, where the textbook
    Σp² − 2Σp³ + (Σp²)² is the difference of numbers close to 1 and loses everything.
    """
    p = np.asarray(p, dtype=np.float64)
    shape = p.shape[:-1]
    flat = p.reshape(-1, p.shape[-1])
    rows = np.arange(flat.shape[0])
    imax = flat.argmax(axis=-1)
    p_max = flat[rows, imax]
    others = flat.copy()
    others[rows, imax] = 0.0  # the weights other than the largest
    rest = others.sum(axis=-1)  # Σ_{j≠max} p_j = 1 − p_max, without cancellation
    rest_sq = np.einsum("ij,ij->i", others, others)  # Σ_{j≠max} p_j²
    # i = max: p_max² [rest² + rest_sq].
    total = p_max * p_max * (rest * rest + rest_sq)
    # i ≠ max: 1 − pᵢ = p_max + (rest − pᵢ), Σ_{j≠i} p_j² = p_max² + (rest_sq − pᵢ²); pᵢ ≤
    # p_max, so any cancellation in the brackets is swamped by the p_max term. The max's
    # own slot in ``others`` is 0 and adds nothing.
    one_minus = (p_max + rest)[:, None] - others
    others_sq = others * others
    sq_rest = (p_max * p_max + rest_sq)[:, None] - others_sq
    total += np.einsum("ij,ij->i", others_sq, one_minus * one_minus + sq_rest)
    return np.sqrt(total).reshape(shape)


def softmax_jacobian_fro_textbook(p: np.ndarray) -> np.ndarray:
    """‖J‖_F² = Σp² − 2Σp³ + (Σp²)², as usually written. Inaccurate near a one-hot p:
    kept only to show (and test) why :func:`softmax_jacobian_fro` exists."""
    p = np.asarray(p, dtype=np.float64)
    s2 = (p**2).sum(axis=-1)
    s3 = (p**3).sum(axis=-1)
    return np.sqrt(np.maximum(s2 - 2.0 * s3 + s2 * s2, 0.0))


def normalised_entropy(p: np.ndarray) -> np.ndarray:
    """H(p)/ln n along the last axis (0·ln 0 = 0): 1 for uniform, 0 for one-hot."""
    p = np.asarray(p, dtype=np.float64)
    n = p.shape[-1]
    plogp = p * np.log(np.where(p > 0, p, 1.0))
    return -plogp.sum(axis=-1) / math.log(n) if n > 1 else np.zeros(p.shape[:-1])


def softmax(s: np.ndarray) -> np.ndarray:
    """Softmax along the last axis, in the array's own dtype (max-subtracted)."""
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_backward(p: np.ndarray, g: np.ndarray) -> np.ndarray:
    """∂L/∂s = J·g = p ⊙ (g − pᵀg) for the upstream gradient g = ∂L/∂p, in p's dtype.

    For the largest weight, g_max − pᵀg is the difference of two nearly equal numbers when
    p is near one-hot; it is computed as Σ_j p_j (g_max − g_j) (the j = max term is 0).
    """
    v = p * (g - (p * g).sum(axis=-1, keepdims=True))
    imax = np.argmax(p, axis=-1)[..., None]
    p_max = np.take_along_axis(p, imax, axis=-1)
    g_max = np.take_along_axis(g, imax, axis=-1)
    v_max = p_max * (p * (g_max - g)).sum(axis=-1, keepdims=True)
    np.put_along_axis(v, imax, v_max, axis=-1)
    return v


# ----------------------------------------------------------------------- the sampler


@dataclass
class PointResult:
    """Per-sample statistics at one d_k, for each scaling asked for.

    ``stats[scaling][metric]`` is an array of length ``samples``; metrics are
    ``var_logit`` (variance of the query's n logits), ``max_p``, ``entropy_norm`` (H/ln n),
    ``jac_fro`` (‖J‖_F, stable form), ``grad_q_norm`` (‖∂L/∂q‖ for L = gᵀp, g ~ N(0, I))
    and ``zero_grad`` (bool: the largest weight rounded to exactly 1 in the working dtype,
    so the softmax gradient through it, p_max·(1 − p_max), is exactly 0 there).
    ``logits``/``weights`` (float64, ``(kept, n)``) hold the first ``keep`` samples when
    asked for.
    """

    d_k: int
    n: int
    scalings: tuple[str, ...]
    stats: dict[str, dict[str, np.ndarray]]
    logits: dict[str, np.ndarray] = field(default_factory=dict)
    weights: dict[str, np.ndarray] = field(default_factory=dict)


def _check_scaling(scaling: str) -> None:
    if scaling not in SCALINGS:
        raise ValueError(f"unknown scaling {scaling!r}; known: {', '.join(SCALINGS)}")


def _validate(d_k, n, scalings, sigma_q, sigma_k, dtype, samples, seed, backend) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; known: {', '.join(DTYPES)}")
    if dtype == "bfloat16" and backend != "torch":
        raise ValueError("bfloat16 needs the torch backend (numpy has no bfloat16)")
    if backend == "torch":
        try:
            import torch  # noqa: F401
        except ImportError as exc:
            raise ValueError(f"the torch backend needs torch: {TORCH_INSTALL}") from exc
    for s in scalings:
        _check_scaling(s)
    if not 1 <= int(d_k) <= 1 << 16:
        raise ValueError(f"d_k must be between 1 and 65536, got {d_k}")
    if not 2 <= int(n) <= MAX_N:
        raise ValueError(f"n must be between 2 and {MAX_N}, got {n}")
    if int(samples) < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    if int(seed) < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    if not (sigma_q > 0 and sigma_k > 0 and math.isfinite(sigma_q) and math.isfinite(sigma_k)):
        raise ValueError(f"σ_q and σ_k must be positive, got {sigma_q}, {sigma_k}")


def _draw_block(seed: int, d_k: int, n: int, m: int, block: int):
    """Queries (m, d_k), keys (n, d_k) and upstream gradients (m, n) of one block, float64.

    Separate streams, so n' < n keys are the first n' of the n (and likewise queries)."""
    sq, sk, sg = np.random.SeedSequence([seed, d_k, block]).spawn(3)
    q = np.random.default_rng(sq).standard_normal((m, d_k))
    k = np.random.default_rng(sk).standard_normal((n, d_k))
    g = np.random.default_rng(sg).standard_normal((m, n))
    return q, k, g


def _chunks(n_blocks: int, per_block: int):
    per_chunk = max(1, _CHUNK_ELEMENTS // max(per_block, 1))
    for start in range(0, n_blocks, per_chunk):
        yield range(start, min(n_blocks, start + per_chunk))


def _numpy_chunk(q, k, g, d_k, scalings, dtype):
    """Logits, weights (dtype), ‖∂L/∂q‖ and zero flags per scaling for a chunk of blocks.

    q: (B, m, d), k: (B, n, d), g: (B, m, n), float64. Returns {scaling: (s, p, gnorm, zero)}
    with s, p of shape (B·m, n)."""
    dt = np.dtype(dtype)
    q = q.astype(dt, copy=False)
    k = k.astype(dt, copy=False)
    g = g.astype(dt, copy=False)
    raw = np.matmul(q, np.swapaxes(k, 1, 2))  # (B, m, n) = q·k_j
    if "qk-norm" in scalings:
        q_norm = np.sqrt(np.einsum("bmd,bmd->bm", q, q))[..., None]  # ‖q‖, (B, m, 1)
        k_norm = np.sqrt(np.einsum("bnd,bnd->bn", k, k))[:, None, :]  # ‖k_j‖, (B, 1, n)
    weights, rows = [], {}
    for scaling in scalings:
        if scaling == "qk-norm":
            s = raw * (dt.type(math.sqrt(d_k)) / (q_norm * k_norm))
        else:
            s = raw * dt.type(_c(scaling, d_k))
        p = softmax(s)
        v = softmax_backward(p, g)  # ∂L/∂s
        if scaling == "qk-norm":
            weights.append(v / k_norm)  # h = ∂L/∂q̂ = Σ_j v_j k_j/‖k_j‖ (the √d's cancel)
        else:
            weights.append(v * dt.type(_c(scaling, d_k)))  # ∂L/∂q = c Σ_j v_j k_j
        rows[scaling] = (s, p)
    # One GEMM for every scaling's ∂L/∂q (or ∂L/∂q̂): (B, S·m, n) @ (B, n, d).
    h_all = np.matmul(np.concatenate(weights, axis=1), k)
    m = q.shape[1]
    result = {}
    for i, scaling in enumerate(scalings):
        s, p = rows[scaling]
        h = h_all[:, i * m : (i + 1) * m, :]
        h_sq = np.einsum("bmd,bmd->bm", h, h).astype(np.float64)
        if scaling == "qk-norm":
            # ∂L/∂q = (√d/‖q‖)(I − uuᵀ)h with u = q/‖q‖: the RMS normalisation's Jacobian.
            # ‖(I − uuᵀ)h‖² = ‖h‖² − (u·h)² cancels when h ∥ u (always at d_k = 1), so
            # small d_k project explicitly; there it is cheap anyway.
            if d_k <= 64:
                u = q / q_norm
                ph = h - u * np.einsum("bmd,bmd->bm", u, h)[..., None]
                ph_sq = np.einsum("bmd,bmd->bm", ph, ph).astype(np.float64)
            else:
                u_h = np.einsum("bmd,bmd->bm", q, h).astype(np.float64) / q_norm[..., 0]
                ph_sq = np.maximum(h_sq - u_h * u_h, 0.0)
            h_sq = ph_sq * (d_k / q_norm[..., 0].astype(np.float64) ** 2)
        gnorm = np.sqrt(h_sq).reshape(-1)
        zero = (p.max(axis=-1) == 1).reshape(-1)
        result[scaling] = (s.reshape(-1, s.shape[-1]), p.reshape(-1, p.shape[-1]), gnorm, zero)
    return result


def _torch_chunk(q, k, g, d_k, scalings, dtype):
    """As :func:`_numpy_chunk`, with torch: the gradient comes from autograd of L = Σ g·p."""
    import torch

    tdt = {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16}[dtype]
    kt = torch.from_numpy(k).to(tdt)
    gt = torch.from_numpy(g).to(tdt)
    q0 = torch.from_numpy(q).to(tdt)
    result = {}
    for scaling in scalings:
        qt = q0.clone().requires_grad_(True)
        if scaling == "qk-norm":
            qh = qt / torch.sqrt(torch.mean(qt * qt, dim=-1, keepdim=True))
            kh = kt / torch.sqrt(torch.mean(kt * kt, dim=-1, keepdim=True))
            s = torch.matmul(qh, kh.transpose(1, 2)) * (1.0 / math.sqrt(d_k))
        else:
            s = torch.matmul(qt, kt.transpose(1, 2)) * _c(scaling, d_k)
        p = torch.softmax(s, dim=-1)
        (p * gt).sum().backward()
        with torch.no_grad():
            gnorm = torch.linalg.vector_norm(qt.grad.to(torch.float64), dim=-1).reshape(-1)
            zero = (p.max(dim=-1).values == 1).reshape(-1)
            result[scaling] = (
                s.detach().to(torch.float64).reshape(-1, s.shape[-1]).numpy(),
                p.detach().to(torch.float64).reshape(-1, p.shape[-1]).numpy(),
                gnorm.numpy(),
                zero.numpy(),
            )
    return result


def sample_point(
    d_k: int,
    n: int = 64,
    scalings: Sequence[str] = SCALINGS,
    sigma_q: float = 1.0,
    sigma_k: float = 1.0,
    dtype: str = "float64",
    samples: int = 2000,
    seed: int = 0,
    backend: str = "numpy",
    keep: int = 0,
    state: TaskState | None = None,
) -> PointResult:
    """Sample ``samples`` queries (each with n keys) at one d_k; statistics per scaling.

    ``keep`` > 0 also returns the float64 logits and weights of the first ``keep`` samples
    (for a histogram or a bar chart). Raises ValueError for bad arguments, among them
    bfloat16 with the numpy backend. A cancelled ``state`` makes it raise
    :class:`~anthology.tasks.Cancelled` between chunks.
    """
    scalings = tuple(scalings)
    _validate(d_k, n, scalings, sigma_q, sigma_k, dtype, samples, seed, backend)
    d_k, n, samples, seed = int(d_k), int(n), int(samples), int(seed)
    m = min(n, _QUERIES_PER_BLOCK)
    n_blocks = -(-samples // m)
    per_block = (n + m * (1 + len(scalings))) * d_k + 4 * m * n * len(scalings)
    compute = _torch_chunk if backend == "torch" else _numpy_chunk
    stats = {s: {k: np.empty(n_blocks * m) for k in METRICS} for s in scalings}
    for s in scalings:
        stats[s]["zero_grad"] = np.empty(n_blocks * m, dtype=bool)
    keep = min(int(keep), samples)
    kept_logits: dict[str, list] = {s: [] for s in scalings}
    kept_weights: dict[str, list] = {s: [] for s in scalings}
    for chunk in _chunks(n_blocks, per_block):
        if state is not None:
            state.check()
        draws = [_draw_block(seed, d_k, n, m, b) for b in chunk]
        q = np.stack([d[0] for d in draws]) * sigma_q
        k = np.stack([d[1] for d in draws]) * sigma_k
        g = np.stack([d[2] for d in draws])
        rows = slice(chunk.start * m, chunk.stop * m)
        for scaling, (s, p, gnorm, zero) in compute(q, k, g, d_k, scalings, dtype).items():
            s64 = s.astype(np.float64, copy=False)
            p64 = p.astype(np.float64, copy=False)
            st = stats[scaling]
            st["var_logit"][rows] = s64.var(axis=-1, ddof=1)
            st["max_p"][rows] = p64.max(axis=-1)
            st["entropy_norm"][rows] = normalised_entropy(p64)
            st["jac_fro"][rows] = softmax_jacobian_fro(p64)
            st["grad_q_norm"][rows] = gnorm
            st["zero_grad"][rows] = zero
            have = chunk.start * m
            if have < keep:
                kept_logits[scaling].append(s64[: keep - have].copy())
                kept_weights[scaling].append(p64[: keep - have].copy())
    for s in scalings:
        for key in METRICS:
            stats[s][key] = stats[s][key][:samples]
    result = PointResult(d_k=d_k, n=n, scalings=scalings, stats=stats)
    if keep:
        result.logits = {s: np.concatenate(kept_logits[s])[:keep] for s in scalings}
        result.weights = {s: np.concatenate(kept_weights[s])[:keep] for s in scalings}
    return result


# ------------------------------------------------------------------------- the sweep


@dataclass
class SweepResult:
    """Summaries of :func:`sample_point` over d_k, all scalings at once.

    ``summary[metric][kind]`` is an array ``(len(scalings), len(d_ks))`` for kind in
    ``mean``, ``median``, ``q25``, ``q75`` (for ``zero_grad`` the mean is the share).
    """

    d_ks: np.ndarray
    scalings: tuple[str, ...]
    n: int
    samples: int
    sigma_q: float
    sigma_k: float
    dtype: str
    seed: int
    backend: str
    summary: dict[str, dict[str, np.ndarray]]

    def taus(self) -> np.ndarray:
        """τ for every (scaling, d_k), shape ``(len(scalings), len(d_ks))``."""
        return np.array(
            [[tau(d, s, self.sigma_q, self.sigma_k) for d in self.d_ks] for s in self.scalings]
        )

    def rows(self) -> list[dict]:
        """One dict per (d_k, scaling): the CLI's JSON rows."""
        out = []
        for j, d in enumerate(self.d_ks):
            for i, s in enumerate(self.scalings):
                out.append(
                    {
                        "d_k": int(d),
                        "scaling": s,
                        "var_logit": float(self.summary["var_logit"]["mean"][i, j]),
                        "mean_max_p": float(self.summary["max_p"]["mean"][i, j]),
                        "entropy_norm": float(self.summary["entropy_norm"]["mean"][i, j]),
                        "jac_fro_median": float(self.summary["jac_fro"]["median"][i, j]),
                        "zero_grad_share": float(self.summary["zero_grad"]["mean"][i, j]),
                    }
                )
        return out


DEFAULT_SWEEP_D_KS: tuple[int, ...] = tuple(2**i for i in range(11))  # 1 … 1024


def summarise(values: np.ndarray) -> dict[str, float]:
    v = np.asarray(values, dtype=np.float64)
    q25, median, q75 = np.quantile(v, [0.25, 0.5, 0.75])
    return {"mean": float(v.mean()), "median": float(median), "q25": q25, "q75": q75}


def sweep(
    d_ks: Sequence[int] = DEFAULT_SWEEP_D_KS,
    n: int = 64,
    scalings: Sequence[str] = SCALINGS,
    sigma_q: float = 1.0,
    sigma_k: float = 1.0,
    dtype: str = "float64",
    samples: int = 2000,
    seed: int = 0,
    backend: str = "numpy",
    state: TaskState | None = None,
) -> SweepResult:
    """Run :func:`sample_point` for every d_k (all scalings share the draws) and summarise.

    ``state`` hears the progress after each d_k (``set_progress(done, total, "sweep")``)
    and, as a partial result, the :class:`SweepResult` of the d_ks done so far (to draw
    curves as they grow); once it is cancelled the sweep raises
    :class:`~anthology.tasks.Cancelled` at its next chunk. Memory stays bounded by the
    chunk size whatever d_k (≈ 25 MB at d_k = 4096, n = 64).
    """
    state = state or TaskState()
    scalings = tuple(scalings)
    d_list = [int(d) for d in d_ks]
    if not d_list:
        raise ValueError("d_ks must not be empty")
    summary = {
        m: {k: np.empty((len(scalings), len(d_list))) for k in ("mean", "median", "q25", "q75")}
        for m in METRICS
    }

    def _result(done: int) -> SweepResult:
        return SweepResult(
            d_ks=np.array(d_list[:done]),
            scalings=scalings,
            n=int(n),
            samples=int(samples),
            sigma_q=float(sigma_q),
            sigma_k=float(sigma_k),
            dtype=dtype,
            seed=int(seed),
            backend=backend,
            summary={
                m: {k: v[:, :done].copy() for k, v in kinds.items()} for m, kinds in summary.items()
            },
        )

    for j, d in enumerate(d_list):
        point = sample_point(
            d, n, scalings, sigma_q, sigma_k, dtype, samples, seed, backend, state=state
        )
        for i, s in enumerate(scalings):
            for metric in METRICS:
                for kind, value in summarise(point.stats[s][metric]).items():
                    summary[metric][kind][i, j] = value
        state.set_progress(j + 1, len(d_list), "sweep")
        if j + 1 < len(d_list):
            state.set_partial(_result(j + 1))
    return _result(len(d_list))


# How to add torch without its GPU stack: a plain `pip install torch` on Linux resolves to
# the CUDA build (several GB of nvidia-* wheels); PyTorch's CPU index holds the CPU build.
TORCH_INSTALL = (
    "pip install torch --index-url https://download.pytorch.org/whl/cpu "
    "(the CPU build; a plain `pip install torch` on Linux brings the CUDA build, several GB)"
)


def torch_available() -> bool:
    """Whether the torch backend (and bfloat16) can run, without importing torch."""
    import importlib.util

    return importlib.util.find_spec("torch") is not None
