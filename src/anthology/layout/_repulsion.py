"""Many-body repulsion (exact and approximate) and collision, vectorised with numpy.

All "field" functions return ``F`` with ``F[i] = sum_j K(x_j - x_i)`` where ``K`` is d3's
many-body kernel ``K(d) = d / l``, ``l = |d|^2`` (``l = |d|`` when ``|d| < 1``, d3's
``distanceMin = 1``) and ``K = 0`` beyond ``distance_max``; the caller multiplies by
``strength * alpha`` (negative strength = repulsion).

``exact_field`` is the O(n²) sum (row blocks, bounded memory).

``mesh_field`` is a P3M solver (particle–particle / particle–mesh), O(n + G² log G):

* the kernel is split with a compactly supported, C² weight ``w(q) = (1 - q²)³`` (``q = r /
  rc``, ``rc = CUTOFF_CELLS * h``): ``K = K·w + K·(1 - w)``;
* the smooth long-range part ``K·(1 - w)`` is sampled on a grid of spacing ``h`` (about
  ``sqrt(n)`` cells along the longer side of the bounding box, ``h`` quantised to 2^(1/8)
  steps so the kernel FFT is cached), convolved with the cloud-in-cell density through a
  zero-padded real FFT (float32), and interpolated back with the same CIC weights (pair
  forces antisymmetric, no self-force);
* the short-range part ``K·w`` (exactly zero beyond ``rc``) is summed exactly over the
  pairs of a vectorised cell list; if the pairs exceed ``PAIR_BUDGET * n`` the grid is
  refined (the refinement is remembered from tick to tick);
* stragglers outside a robust core box (quantiles, ×4) feel the exact field of the other
  stragglers plus the core's monopole, and act on the core as a uniform field;
* a finite ``distance_max`` that keeps the pair count affordable is summed exactly with
  the cell list (no mesh); otherwise the truncated kernel goes on the mesh (less accurate).

Measured against ``exact_field`` on a 2,000-node layout (power-law graph, 6,000 links):
median relative error of the per-node force 0.6 %, 95th percentile 2.6 %; on a 10,000-node
layout 0.25 % / 0.9 %.
"""

from __future__ import annotations

import math

import numpy as np


def jiggle(rng: np.random.Generator, size: int) -> np.ndarray:
    """d3's jiggle: a tiny random non-zero offset, ``(U[0,1) - 0.5) * 1e-6``."""
    j = (rng.random(size) - 0.5) * 1e-6
    j[j == 0.0] = 1e-7
    return j


def exact_field(
    pos: np.ndarray, distance_max: float, rng: np.random.Generator, chunk: int = 1 << 21
) -> np.ndarray:
    """O(n²) many-body field, processed in row blocks of about ``chunk`` pairs."""
    n = len(pos)
    out = np.zeros((n, 2))
    if n < 2:
        return out
    x, y = pos[:, 0], pos[:, 1]
    dmax2 = distance_max * distance_max if math.isfinite(distance_max) else math.inf
    rows = max(1, chunk // n)
    for a in range(0, n, rows):
        b = min(n, a + rows)
        dx = x[None, :] - x[a:b, None]
        dy = y[None, :] - y[a:b, None]
        zx = dx == 0.0
        zy = dy == 0.0
        diag = np.arange(a, b)
        zx[diag - a, diag] = False
        zy[diag - a, diag] = False
        if zx.any():
            dx[zx] = jiggle(rng, int(zx.sum()))
        if zy.any():
            dy[zy] = jiggle(rng, int(zy.sum()))
        l2 = dx * dx + dy * dy
        l2[diag - a, diag] = math.inf
        small = l2 < 1.0
        if small.any():
            l2[small] = np.sqrt(l2[small])
        if dmax2 != math.inf:
            l2[l2 >= dmax2] = math.inf
        inv = 1.0 / l2
        out[a:b, 0] = np.einsum("ij,ij->i", dx, inv)
        out[a:b, 1] = np.einsum("ij,ij->i", dy, inv)
    return out


#: Near-field cutoff in grid cells (``rc = CUTOFF_CELLS * h``).
CUTOFF_CELLS = 1.5
#: Grid cells per ``sqrt(n)`` along the longer side of the bounding box.
CELLS_PER_SQRT_N = 1.0
#: Largest FFT side (the padded grid is at most ``MAX_FFT`` × ``MAX_FFT``).
MAX_FFT = 2048
#: ... and at most this many FFT points per side per sqrt(n) (FFT vs pair cost balance).
P_MAX_PER_SQRT_N = 6.0
#: Near-field pair budget per node before the grid is refined.
PAIR_BUDGET = 32
#: Hard cap on near-field pairs per evaluation (memory bound for degenerate inputs).
MAX_PAIRS = 4_000_000

_FAST_SIZES = sorted(
    {(2**a) * (3**b) * (5**c) for a in range(12) for b in range(4) for c in range(3)} - {1}
)


def _fast_size(m: int) -> int:
    """Smallest even FFT-friendly size (2^a 3^b 5^c) >= m."""
    for s in _FAST_SIZES:
        if s >= m and s % 2 == 0:
            return s
    return m + (m & 1)


def split_weight(q: np.ndarray) -> np.ndarray:  # documentation/tests; inlined in mesh_field
    """Short-range share of the kernel at ``q = r / rc``: ``(1 - q²)³`` for ``q < 1``, else 0.

    C² at ``q = 1``, so the long-range remainder is smooth enough for the mesh.
    """
    w = np.clip(1.0 - q * q, 0.0, None)
    return w * w * w


class MeshCache:
    """Per-simulation cache for the particle-mesh solver (kernel FFTs keyed by grid size)."""

    def __init__(self) -> None:
        self.kernels: dict = {}
        self.last_grid: tuple[int, int, float] = (0, 0, 0.0)  # (G, P, h) of the last call
        self.last_pairs: int = 0
        self.refine: float = 1.0  # grid refinement factor the pair budget needed last time

    def kernel_hat(self, p: int, rc_cells: float, dmax_cells: float) -> np.ndarray:
        key = (p, rc_cells, dmax_cells)
        k = self.kernels.get(key)
        if k is None:
            if len(self.kernels) > 8:
                self.kernels.clear()
            u = np.fft.fftfreq(p, 1.0 / p)  # 0, 1, ..., p/2-1, -p/2, ..., -1
            ux, uy = np.meshgrid(u, u, indexing="ij")
            r2 = ux * ux + uy * uy
            r2[0, 0] = 1.0
            long = (1.0 - split_weight(np.sqrt(r2) / rc_cells)) / r2
            long[0, 0] = 0.0
            if math.isfinite(dmax_cells):
                long[r2 >= dmax_cells * dmax_cells] = 0.0
            # the mesh computes conv(rho, K)(a) = sum_b rho(b) K(a - b); we want K(b - a)
            kx, ky = -ux * long, -uy * long
            k = np.fft.rfft2(np.stack([kx, ky]), axes=(1, 2)).astype(np.complex64)
            self.kernels[key] = k
        return k


def mesh_field(
    pos: np.ndarray,
    distance_max: float,
    rng: np.random.Generator,
    cache: MeshCache,
    *,
    cells_per_sqrt_n: float = CELLS_PER_SQRT_N,
    cutoff_cells: float = CUTOFF_CELLS,
    _depth: int = 0,
) -> np.ndarray:
    """Particle-mesh (FFT) far field + exact near field ("P3M") for d3's many-body kernel.

    The kernel is split as ``K = K * w(r / rc) + K * (1 - w(r / rc))`` with the compactly
    supported :func:`split_weight` ``w``.  The smooth long-range part is convolved on a
    zero-padded grid (cloud-in-cell deposit and interpolation, so the pair force is
    antisymmetric and there is no self-force); the short-range part is summed exactly over
    all pairs closer than ``rc`` (a vectorised cell list).  Far-away stragglers (outside a
    robust core box) feel the exact field of the other stragglers plus the core's
    monopole, and act on the core as a uniform field evaluated at its centre.
    """
    n = len(pos)
    out = np.zeros((n, 2))
    if n < 2:
        return out
    lo = pos.min(axis=0)
    hi = pos.max(axis=0)
    core = None
    if n >= 200 and _depth < 4:
        qlo, qhi = np.quantile(pos, [0.005, 0.995], axis=0)
        mid = 0.5 * (qlo + qhi)
        half = 2.0 * max(float((qhi - qlo).max()), 1e-9) + 1.0
        if float((hi - lo).max()) > 2.0 * half:
            inside = (np.abs(pos - mid) <= half).all(axis=1)
            if inside.sum() >= n // 2 and not inside.all():
                core = inside
    if core is not None:
        ci = np.flatnonzero(core)
        oi = np.flatnonzero(~core)
        pc, po = pos[ci], pos[oi]
        fc = mesh_field(
            pc,
            distance_max,
            rng,
            cache,
            cells_per_sqrt_n=cells_per_sqrt_n,
            cutoff_cells=cutoff_cells,
            _depth=_depth + 1,
        )
        fo = exact_field(po, distance_max, rng)
        com = pc.mean(axis=0)
        fo += len(ci) * _direct(po, com[None, :], distance_max)
        fc += len(oi) * _direct(com[None, :], po, distance_max).mean(axis=0)
        out[ci] = fc
        out[oi] = fo
        return out

    extent = max(float((hi - lo).max()), 1e-9)
    if math.isfinite(distance_max) and distance_max < extent:
        # a finite distance_max makes the kernel short-ranged: when the pairs within it are
        # affordable, sum them exactly (a truncated kernel is a poor fit for the mesh)
        cells = CellList(pos, distance_max)
        if cells.total <= min(8 * PAIR_BUDGET * n + 16384, 2_000_000):
            cache.last_grid = (0, 0, 0.0)
            return _pair_field(pos, cells, rng, distance_max, cutoff=None, out=out)
    g0 = max(8.0, cells_per_sqrt_n * math.sqrt(n))
    # start from the refinement the previous tick needed (layouts change slowly)
    scale = cache.refine
    budget = PAIR_BUDGET * n + 4096
    # refining beyond ~6 sqrt(n) FFT points per side costs more than the pairs it saves
    p_max = min(MAX_FFT, max(128.0, P_MAX_PER_SQRT_N * math.sqrt(n)))
    while True:
        h = extent / (g0 * scale)
        # quantise h so the cached kernel is reused from tick to tick
        h = 2.0 ** (math.ceil(math.log2(h) * 8.0) / 8.0)
        gg = math.ceil(extent / h) + 2
        # p depends only on the refinement, not on the extent, so the kernel (in grid
        # units) is computed once per refinement level rather than whenever h changes
        p = _fast_size(2 * (math.ceil(g0 * scale) + 2))
        rc = cutoff_cells * h
        cells = CellList(pos, rc)
        if cells.total <= budget or p * math.sqrt(2.0) > p_max:
            break
        scale *= math.sqrt(2.0)
    if cells.total < budget // 4 and scale > 1.0:
        scale = max(1.0, scale / math.sqrt(2.0))  # try a coarser grid next tick
    cache.refine = scale
    dmax_cells = distance_max / h if math.isfinite(distance_max) else math.inf
    if math.isfinite(dmax_cells):
        dmax_cells = round(dmax_cells * 16.0) / 16.0
    khat = cache.kernel_hat(p, cutoff_cells, dmax_cells)
    cache.last_grid = (gg, p, h)

    # --- cloud-in-cell deposit onto the padded p x p grid, FFT convolution, interpolation
    gx = (pos[:, 0] - lo[0]) / h + 0.5
    gy = (pos[:, 1] - lo[1]) / h + 0.5
    ix = gx.astype(np.int64)
    iy = gy.astype(np.int64)
    fx = gx - ix
    fy = gy - iy
    b00 = ix * p + iy
    b10 = b00 + p
    b01 = b00 + 1
    b11 = b10 + 1
    gx1 = 1.0 - fx
    gy1 = 1.0 - fy
    w00 = gx1 * gy1
    w10 = fx * gy1
    w01 = gx1 * fy
    w11 = fx * fy
    idx = np.concatenate([b00, b10, b01, b11])
    wts = np.concatenate([w00, w10, w01, w11])
    rho = np.bincount(idx, wts, minlength=p * p).astype(np.float32).reshape(p, p)
    rho_hat = np.fft.rfft2(rho)
    rho_hat = rho_hat[None, :, :] * khat
    fld = np.fft.irfft2(rho_hat, s=(p, p), axes=(1, 2)).reshape(2, p * p)
    inv_h = 1.0 / h
    for c in range(2):
        fc = fld[c]
        out[:, c] = (fc[b00] * w00 + fc[b10] * w10 + fc[b01] * w01 + fc[b11] * w11) * inv_h

    # --- exact near field of the short-range remainder (computed in cell order)
    return _pair_field(pos, cells, rng, distance_max, cutoff=rc, out=out, cache=cache)


def _pair_field(
    pos: np.ndarray,
    cells: CellList,
    rng: np.random.Generator,
    distance_max: float,
    *,
    cutoff: float | None,
    out: np.ndarray,
    cache: MeshCache | None = None,
) -> np.ndarray:
    """Add the pair sum over the cell list's pairs to ``out``.

    With ``cutoff`` the short-range remainder ``K * w(r / cutoff)`` (P3M near field), without
    it the full kernel ``K`` truncated at ``distance_max``.
    """
    n = len(pos)
    i, j = cells.pairs()
    if cache is not None:
        cache.last_pairs = len(i)
    if len(i) == 0:
        return out
    order = cells.order
    lo = pos.min(axis=0)
    # float32 differences relative to the box corner: half the memory traffic
    xs = (pos[order, 0] - lo[0]).astype(np.float32)
    ys = (pos[order, 1] - lo[1]).astype(np.float32)
    dx = xs[j] - xs[i]
    dy = ys[j] - ys[i]
    r2 = dx * dx + dy * dy
    same = r2 == 0.0
    if same.any():
        dx[same] = jiggle(rng, int(same.sum()))
        dy[same] = jiggle(rng, int(same.sum()))
        r2 = dx * dx + dy * dy
        r2[r2 == 0.0] = np.float32(1e-30)
    if cutoff is not None:
        t = np.float32(1.0) - r2 * np.float32(1.0 / (cutoff * cutoff))
        np.maximum(t, np.float32(0.0), out=t)
        w = t * t * t
    else:
        w = np.ones_like(r2)
    coef = w / r2
    small = r2 < 1.0
    if small.any():
        r2s = r2[small]
        # exact kernel is d / r for r < 1 (d3's distanceMin); long part is (1 - w) / r²
        coef[small] = 1.0 / np.sqrt(r2s) - (1.0 - w[small]) / r2s
    if math.isfinite(distance_max):
        # the mesh part was truncated at distance_max too: cut the whole kernel there
        coef[r2 >= distance_max * distance_max] = 0.0
    sx = dx * coef
    sy = dy * coef
    ax = np.bincount(i, sx, minlength=n) - np.bincount(j, sx, minlength=n)
    ay = np.bincount(i, sy, minlength=n) - np.bincount(j, sy, minlength=n)
    out[order, 0] += ax
    out[order, 1] += ay
    return out


def _direct(targets: np.ndarray, sources: np.ndarray, distance_max: float) -> np.ndarray:
    """Exact field at ``targets`` from unit sources (no self-exclusion; distinct points)."""
    d = sources[None, :, :] - targets[:, None, :]
    l2 = np.einsum("ijk,ijk->ij", d, d)
    l2 = np.where(l2 < 1.0, np.sqrt(l2), l2)
    l2[l2 == 0.0] = math.inf
    if math.isfinite(distance_max):
        l2[l2 >= distance_max * distance_max] = math.inf
    return np.einsum("ijk,ij->ik", d, 1.0 / l2)


class CellList:
    """Vectorised cell list: every unordered pair of points closer than ``cutoff`` (and some
    a little farther) as index pairs into ``order`` (points sorted by cell).

    Cells have side ``cutoff / 2``; each point owns pairs with the points of a half 5×5
    stencil, which in sorted-key space is three contiguous ranges: its own column (later
    points of its cell and the two cells above) and the next two columns (rows -2..+2).
    """

    def __init__(self, pos: np.ndarray, cutoff: float) -> None:
        n = len(pos)
        self.n = n
        if n < 2 or not cutoff > 0:
            self.order = np.arange(n)
            self.starts = self.counts = np.zeros(0, dtype=np.int64)
            self.total = 0
            return
        lo = pos.min(axis=0)
        span = float((pos.max(axis=0) - lo).max())
        # cells no smaller than span / 2^20 keep keys small (a superset of pairs is fine)
        cell = max(0.5 * cutoff, span * 2.0**-20, 1e-300)
        ix = ((pos[:, 0] - lo[0]) / cell).astype(np.int64)
        iy = ((pos[:, 1] - lo[1]) / cell).astype(np.int64)
        ny = int(iy.max()) + 5
        nkeys = (int(ix.max()) + 3) * ny
        key = ix * ny + (iy + 2)
        order = np.argsort(key, kind="stable")
        ks = key[order]
        s0 = np.arange(1, n + 1)
        if nkeys <= 16 * n + (1 << 20):
            # dense table of cell starts (counting sort offsets): O(n + cells), no searching
            first = np.zeros(nkeys + 1, dtype=np.int64)
            np.cumsum(np.bincount(key, minlength=nkeys), out=first[1:])
            e0 = first[ks + 3]
            s1 = first[ks + (ny - 2)]
            e1 = first[ks + (ny + 3)]
            s2 = first[ks + (2 * ny - 2)]
            e2 = first[ks + (2 * ny + 3)]
        else:
            e0 = np.searchsorted(ks, ks + 2, side="right")
            s1 = np.searchsorted(ks, ks + (ny - 2), side="left")
            e1 = np.searchsorted(ks, ks + (ny + 2), side="right")
            s2 = np.searchsorted(ks, ks + (2 * ny - 2), side="left")
            e2 = np.searchsorted(ks, ks + (2 * ny + 2), side="right")
        self.order = order
        self.starts = np.concatenate([s0, s1, s2])
        self.counts = np.maximum(np.concatenate([e0 - s0, e1 - s1, e2 - s2]), 0)
        self.total = int(self.counts.sum())

    def pairs(self, cap: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Pairs ``(i, j)`` of positions in the sorted order (``order[i]`` is the node).

        At most about ``cap`` pairs: in pathological cases (thousands of nodes on one spot)
        each point keeps only the first ``k`` points of each of its ranges, ``k`` the
        largest value that fits the cap — bounded memory and time instead of O(n²).
        """
        n = self.n
        if self.total == 0:
            e = np.zeros(0, dtype=np.int64)
            return e, e
        counts = self.counts
        cap = MAX_PAIRS if cap is None else cap
        if self.total > cap:
            lo, hi = 0, int(counts.max())
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if int(np.minimum(counts, mid).sum()) <= cap:
                    lo = mid
                else:
                    hi = mid - 1
            counts = np.minimum(counts, lo)
        q = np.arange(n)
        return ragged_ranges(np.concatenate([q, q, q]), self.starts, counts)


def neighbour_pairs(pos: np.ndarray, cutoff: float) -> tuple[np.ndarray, np.ndarray]:
    """Unordered node pairs ``(i, j)`` including every pair closer than ``cutoff``."""
    cl = CellList(pos, cutoff)
    i, j = cl.pairs()
    return cl.order[i], cl.order[j]


def ragged_ranges(owner: np.ndarray, starts: np.ndarray, counts: np.ndarray):
    """Expand ``(owner, [start, start+count))`` ranges into flat ``(owner, index)`` arrays."""
    counts = np.maximum(counts, 0)
    total = int(counts.sum())
    if total == 0:
        e = np.zeros(0, dtype=np.int64)
        return e, e
    nz = counts > 0
    owner, starts, counts = owner[nz], starts[nz], counts[nz]
    off = np.cumsum(counts) - counts
    i = np.repeat(owner, counts)
    j = np.arange(total, dtype=np.int64) + np.repeat(starts - off, counts)
    return i, j


def collide(
    pos: np.ndarray,
    vel: np.ndarray,
    radii: np.ndarray,
    rng: np.random.Generator,
    strength: float = 1.0,
) -> None:
    """d3.forceCollide (one iteration), Jacobi-style: separate overlapping circles.

    Uses the predicted positions ``x + v``; for an overlapping pair the velocity change
    ``(r - l) / l * strength * d`` is split by ``rj² / (ri² + rj²)`` as in d3.
    """
    n = len(pos)
    if n < 2:
        return
    p = pos + vel
    rmax = float(radii.max())
    if not rmax > 0:
        return
    i, j = neighbour_pairs(p, 2.0 * rmax)
    if len(i) == 0:
        return
    d = p[i] - p[j]
    ri, rj = radii[i], radii[j]
    r = ri + rj
    l2 = np.einsum("ij,ij->i", d, d)
    hit = l2 < r * r
    if not hit.any():
        return
    i, j, d, ri, rj, r, l2 = i[hit], j[hit], d[hit], ri[hit], rj[hit], r[hit], l2[hit]
    zx = d[:, 0] == 0.0
    if zx.any():
        d[zx, 0] = jiggle(rng, int(zx.sum()))
    zy = d[:, 1] == 0.0
    if zy.any():
        d[zy, 1] = jiggle(rng, int(zy.sum()))
    l2 = np.einsum("ij,ij->i", d, d)
    ln = np.sqrt(l2)
    k = (r - ln) / ln * strength
    d *= k[:, None]
    ri2, rj2 = ri * ri, rj * rj
    w = rj2 / (ri2 + rj2)
    for c in range(2):
        vel[:, c] += np.bincount(i, d[:, c] * w, minlength=n)
        vel[:, c] -= np.bincount(j, d[:, c] * (1.0 - w), minlength=n)
