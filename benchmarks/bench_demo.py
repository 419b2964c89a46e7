"""The attention-scaling demo's sweep: numpy backend (ours) against the torch backend (peer).

Workload: the CLI's default sweep — d_k = 1, 2, 4, …, 1024 (11 values) × 4 scalings ×
2,000 sampled queries, n = 64 keys, float64 — timed end to end (sampling included), best
of a few repeats. Torch runs with its default thread count. A second row reports the peak
Python-heap memory (tracemalloc; numpy buffers are traced) of one d_k = 4096 point with
all scalings, against the arrays the same sampler would hold without chunking.

    .venv/bin/python benchmarks/bench_demo.py [--quick]
"""

from __future__ import annotations

import importlib.util
import sys
import time
import tracemalloc

from anthology.demo import attention_scaling as maths

D_KS = tuple(2**i for i in range(11))
SAMPLES = 2000
N = 64


def _best_of(repeats: int, fn) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _sweep(backend: str) -> None:
    maths.sweep(d_ks=D_KS, n=N, samples=SAMPLES, dtype="float64", backend=backend)


def run(quick: bool = False) -> list[dict]:
    repeats = 1 if quick else 3
    size = f"{len(D_KS)} d_k × {len(maths.SCALINGS)} scalings × {SAMPLES} samples, n={N}"
    has_torch = importlib.util.find_spec("torch") is not None
    _sweep("numpy")  # warm-up: imports, BLAS threads
    ours = _best_of(repeats, lambda: _sweep("numpy"))
    peer_value = None
    if has_torch:
        _sweep("torch")
        peer_value = _best_of(repeats, lambda: _sweep("torch"))
    rows = [
        {
            "name": "demo: attention-scaling sweep (float64)",
            "size": size,
            "unit": "s",
            "ours": ours,
            "peer": "anthology torch backend (autograd)" if has_torch else "torch (not installed)",
            "peer_value": peer_value,
            "ratio": None if peer_value is None else peer_value / ours,
        }
    ]

    d_k = 4096
    tracemalloc.start()
    try:
        maths.sample_point(d_k, N, samples=SAMPLES, dtype="float64", seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The same computation without chunks: queries, keys (one set per block of 64
    # queries) and every scaling's gradient rows for all samples at once, float64.
    queries = -(-SAMPLES // 64) * 64
    naive = 8 * d_k * (queries + queries // 64 * N + len(maths.SCALINGS) * queries)
    rows.append(
        {
            "name": "demo: peak memory of one d_k = 4096 point (tracemalloc)",
            "size": f"d_k={d_k}, {len(maths.SCALINGS)} scalings × {SAMPLES} samples, n={N}",
            "unit": "MB",
            "ours": peak / 2**20,
            "peer": "same sampler without chunks (computed size, not run)",
            "peer_value": naive / 2**20,
            "ratio": naive / peak,
        }
    )
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv[1:]):
        print(row)
