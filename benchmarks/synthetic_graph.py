"""Seeded synthetic graphs for the layout benchmarks."""

from __future__ import annotations

import numpy as np


def power_law_graph(n: int, m: int, seed: int = 0, exponent: float = 2.5) -> np.ndarray:
    """A Chung–Lu style power-law graph: ``(m, 2)`` int64 edges, no self-loops, no duplicates.

    Expected degrees follow ``w_i ∝ (i + i0) ** (-1 / (exponent - 1))`` (a few hubs, a long tail
    of degree-1 nodes); endpoints are drawn with probability proportional to ``w``.  Edges are
    drawn in batches until ``m`` distinct undirected pairs exist (so the degree sequence is
    only approximately Chung–Lu).  Node labels are shuffled so the hubs are not the first
    indices.  Deterministic from ``seed``.
    """
    n, m = int(n), int(m)
    if n < 2 or m <= 0:
        return np.zeros((0, 2), dtype=np.int64)
    max_m = n * (n - 1) // 2
    if m > max_m:
        raise ValueError(f"m={m} exceeds the {max_m} possible edges of a simple graph on {n} nodes")
    rng = np.random.default_rng(seed)
    i0 = max(1.0, n / 1000.0)
    w = (np.arange(n) + i0) ** (-1.0 / (exponent - 1.0))
    p = w / w.sum()
    cdf = np.cumsum(p)
    cdf[-1] = 1.0
    keys = np.zeros(0, dtype=np.int64)
    first_seen = np.zeros(0, dtype=np.int64)
    edges = np.zeros((0, 2), dtype=np.int64)
    batch = m
    while len(edges) < m:
        s = np.searchsorted(cdf, rng.random(batch * 2), side="right")
        t = np.searchsorted(cdf, rng.random(batch * 2), side="right")
        # mix in uniform endpoints so dense requests (m close to max_m) terminate
        if len(keys) and batch > m:
            u = rng.random(len(s)) < 0.5
            t[u] = rng.integers(0, n, int(u.sum()))
        s = np.minimum(s, n - 1)
        t = np.minimum(t, n - 1)
        ok = s != t
        s, t = s[ok], t[ok]
        lo, hi = np.minimum(s, t), np.maximum(s, t)
        cand = np.concatenate([edges, np.column_stack([s, t])])
        k = np.concatenate([keys, lo * n + hi])
        _, first = np.unique(k, return_index=True)
        first.sort()
        first_seen = first[:m]
        edges = cand[first_seen]
        keys = k[first_seen]
        batch *= 2
    perm = rng.permutation(n)
    return np.ascontiguousarray(perm[edges[:m]])


def orphans_and_hub(n_orphans: int, hub_links: int) -> tuple[int, np.ndarray]:
    """A hub (node 0) with ``hub_links`` leaves plus ``n_orphans`` unlinked nodes."""
    n = 1 + hub_links + n_orphans
    leaves = np.arange(1, hub_links + 1, dtype=np.int64)
    return n, np.column_stack([np.zeros_like(leaves), leaves])
