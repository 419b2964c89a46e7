"""Layout quality figures shared by the benchmarks and the tests.

* :func:`normalized_stress` — stress against graph-theoretic (BFS hop) distances on a
  sample of node pairs, after the optimal uniform scaling of the layout (so it is scale
  free).  0 is a perfect embedding of the hop metric; lower is better.
* :func:`edge_length_ratio` — mean edge length / mean nearest-neighbour distance: how long
  the links are compared to the node spacing (≈1–2 is a readable force layout; large
  values mean links are stretched across the drawing).
* :func:`crossing_fraction` — fraction of pairs of (sampled, non-adjacent) edges that cross.

All are deterministic from ``seed``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "bfs_distances",
    "crossing_fraction",
    "edge_length_ratio",
    "layout_quality",
    "nearest_neighbour_distance",
    "normalized_stress",
]


def _csr(n: int, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    e = e[e[:, 0] != e[:, 1]]
    a = np.concatenate([e[:, 0], e[:, 1]])
    b = np.concatenate([e[:, 1], e[:, 0]])
    order = np.argsort(a, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(a, minlength=n), out=indptr[1:])
    return indptr, b[order]


def bfs_distances(n: int, edges: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """Hop distances ``(len(sources), n)`` (``-1`` = unreachable), level-synchronous BFS."""
    indptr, nbr = _csr(n, edges)
    sources = np.asarray(sources, dtype=np.int64)
    out = np.full((len(sources), n), -1, dtype=np.int64)
    deg = np.diff(indptr)
    for row, s in enumerate(sources):
        dist = out[row]
        dist[s] = 0
        frontier = np.array([s], dtype=np.int64)
        level = 0
        while len(frontier):
            level += 1
            cnt = deg[frontier]
            tot = int(cnt.sum())
            if tot == 0:
                break
            off = np.cumsum(cnt) - cnt
            idx = np.arange(tot) + np.repeat(indptr[frontier] - off, cnt)
            cand = np.unique(nbr[idx])
            cand = cand[dist[cand] < 0]
            dist[cand] = level
            frontier = cand
    return out


def normalized_stress(
    pos: np.ndarray, edges: np.ndarray, *, n_sources: int = 64, n_pairs: int = 20000, seed: int = 0
) -> float:
    """Scale-free stress ``mean(((s·|xi-xj| - d) / d)²)`` over sampled connected pairs.

    ``d`` is the BFS hop distance; ``s`` is the least-squares optimal scale.
    """
    pos = np.asarray(pos, dtype=np.float64)
    n = len(pos)
    if n < 2 or len(edges) == 0:
        return float("nan")
    rng = np.random.default_rng(seed)
    src = rng.choice(n, size=min(n_sources, n), replace=False)
    dist = bfs_distances(n, edges, src)
    per = max(1, n_pairs // len(src))
    rows = np.repeat(np.arange(len(src)), per)
    cols = rng.integers(0, n, len(rows))
    d = dist[rows, cols].astype(np.float64)
    ok = d > 0
    if not ok.any():
        return float("nan")
    rows, cols, d = rows[ok], cols[ok], d[ok]
    geo = np.linalg.norm(pos[src[rows]] - pos[cols], axis=1)
    a = geo / d
    s = a.sum() / max((a * a).sum(), 1e-300)
    return float(np.mean((s * a - 1.0) ** 2))


def nearest_neighbour_distance(pos: np.ndarray, *, sample: int = 1000, seed: int = 0) -> float:
    """Mean distance from a sample of nodes to their nearest other node."""
    pos = np.asarray(pos, dtype=np.float64)
    n = len(pos)
    if n < 2:
        return float("nan")
    rng = np.random.default_rng(seed)
    idx = rng.choice(n, size=min(sample, n), replace=False)
    out = np.empty(len(idx))
    step = max(1, (1 << 22) // n)
    for a in range(0, len(idx), step):
        blk = idx[a : a + step]
        d2 = ((pos[None, :, :] - pos[blk, None, :]) ** 2).sum(axis=2)
        d2[np.arange(len(blk)), blk] = np.inf
        out[a : a + step] = np.sqrt(d2.min(axis=1))
    return float(out.mean())


def edge_length_ratio(pos: np.ndarray, edges: np.ndarray, *, seed: int = 0) -> float:
    """Mean edge length divided by the mean nearest-neighbour distance."""
    pos = np.asarray(pos, dtype=np.float64)
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(e) == 0 or len(pos) < 2:
        return float("nan")
    el = np.linalg.norm(pos[e[:, 0]] - pos[e[:, 1]], axis=1).mean()
    nn = nearest_neighbour_distance(pos, seed=seed)
    return float(el / nn) if nn > 0 else float("inf")


def crossing_fraction(
    pos: np.ndarray, edges: np.ndarray, *, sample: int = 1000, seed: int = 0
) -> float:
    """Fraction of pairs of sampled edges (sharing no endpoint) whose segments cross."""
    pos = np.asarray(pos, dtype=np.float64)
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(e) < 2:
        return 0.0
    rng = np.random.default_rng(seed)
    e = e[rng.choice(len(e), size=min(sample, len(e)), replace=False)]
    a, b = pos[e[:, 0]], pos[e[:, 1]]
    m = len(e)
    iu, ju = np.triu_indices(m, 1)

    def orient(p, q, r):
        return np.sign(
            (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1])
            - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])
        )

    shared = (
        (e[iu, 0] == e[ju, 0])
        | (e[iu, 0] == e[ju, 1])
        | (e[iu, 1] == e[ju, 0])
        | (e[iu, 1] == e[ju, 1])
    )
    p1, p2, p3, p4 = a[iu], b[iu], a[ju], b[ju]
    cross = (orient(p1, p2, p3) * orient(p1, p2, p4) < 0) & (
        orient(p3, p4, p1) * orient(p3, p4, p2) < 0
    )
    valid = ~shared
    return float(cross[valid].sum() / max(int(valid.sum()), 1))


def layout_quality(pos: np.ndarray, edges: np.ndarray, *, seed: int = 0) -> dict[str, float]:
    """All figures at once: ``{"stress", "edge_length_ratio", "crossings"}`` (lower is better)."""
    return {
        "stress": normalized_stress(pos, edges, seed=seed),
        "edge_length_ratio": edge_length_ratio(pos, edges, seed=seed),
        "crossings": crossing_fraction(pos, edges, seed=seed),
    }
