"""Where nodes without a position start: the one implementation the engine and the view use.

A node whose neighbours are placed starts beside them (the mean of the placed neighbours
plus a seeded offset, propagated breadth-first over a few hops), so a new entry appears
next to what it links to; the rest go on d3's phyllotaxis spiral, around the placed ones'
centroid when there are any. Deterministic for a given generator.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["INITIAL_ANGLE", "INITIAL_RADIUS", "phyllotaxis", "place_missing",
           "place_near_neighbours"]  # fmt: skip

INITIAL_RADIUS = 10.0
INITIAL_ANGLE = math.pi * (3.0 - math.sqrt(5.0))


def phyllotaxis(index: np.ndarray) -> np.ndarray:
    """d3's initial placement: node ``i`` at radius ``10 * sqrt(0.5 + i)``, angle ``i * golden``."""
    i = np.asarray(index, dtype=np.float64)
    r = INITIAL_RADIUS * np.sqrt(0.5 + i)
    a = i * INITIAL_ANGLE
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


def place_near_neighbours(
    pos: np.ndarray,
    placed: np.ndarray,
    src: np.ndarray,
    tgt: np.ndarray,
    distance: float,
    rng: np.random.Generator,
    max_hops: int = 32,
) -> tuple[np.ndarray, np.ndarray]:
    """Put unplaced nodes at the mean of their placed neighbours plus a seeded offset.

    Done in rounds (breadth-first over the unplaced nodes), at most ``max_hops``, so a new
    entry appears beside what it links to. ``pos`` and ``placed`` are updated in place.
    """
    n = len(pos)
    a = np.concatenate([src, tgt])
    b = np.concatenate([tgt, src])
    for _ in range(max_hops):
        ok = placed[b] & ~placed[a]
        if not ok.any():
            break
        aa, bb = a[ok], b[ok]
        cnt = np.bincount(aa, minlength=n)
        sx = np.bincount(aa, pos[bb, 0], minlength=n)
        sy = np.bincount(aa, pos[bb, 1], minlength=n)
        new = np.flatnonzero(cnt > 0)
        ang = rng.uniform(0.0, 2.0 * math.pi, len(new))
        rad = distance * rng.uniform(0.5, 1.0, len(new))
        pos[new, 0] = sx[new] / cnt[new] + rad * np.cos(ang)
        pos[new, 1] = sy[new] / cnt[new] + rad * np.sin(ang)
        placed[new] = True
    return pos, placed


def place_missing(
    pos: np.ndarray,
    edges: np.ndarray,
    distance: float = 30.0,
    *,
    placed: np.ndarray | None = None,
    rng: np.random.Generator | None = None,
    max_hops: int = 32,
) -> np.ndarray:
    """``pos`` (n, 2) with every row not ``placed`` (default: the non-finite rows) filled:
    beside placed neighbours, else on the phyllotaxis spiral (node ``i`` at the spiral's
    ``i``-th place, as d3 does) around the placed nodes' centroid. Returns a new array."""
    pos = np.array(pos, dtype=np.float64, copy=True).reshape(-1, 2)
    ok: np.ndarray = np.asarray(np.isfinite(pos).all(axis=1), dtype=bool)
    if placed is not None:
        ok &= np.asarray(placed, dtype=bool).reshape(-1)
    if ok.all():
        return pos
    pos[~ok] = np.nan
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(e) and ok.any():
        gen = rng if rng is not None else np.random.default_rng(0)
        dist = distance if distance > 0 else 30.0
        pos, ok = place_near_neighbours(pos, ok, e[:, 0], e[:, 1], dist, gen, max_hops)
    rest = ~ok
    if rest.any():
        spiral = phyllotaxis(np.flatnonzero(rest))
        if ok.any():
            # keep the spiral of unplaced nodes around the placed ones' centroid
            spiral += pos[ok].mean(axis=0)
        pos[rest] = spiral
    return pos
