"""A multilevel start for a fresh layout of a big graph: the same forces, far fewer node-ticks.

A fresh global layout (no saved position) of 100,000 entries on d3's schedule is 300 ticks of
the full graph (~190 ms each there, most of it the many-body field): over a minute. Here the
graph is first filtered into levels (:func:`hierarchy`: each coarser level keeps the best
linked quarter of the nodes of the one before and the links among them, down to a few
hundred nodes — GRIP's filtration, by degree), the coarsest level is laid out on d3's full
schedule (cheap there), and each finer level starts from the coarser one: its nodes keep
their positions, spread by ``sqrt(n_fine / n_coarse)`` (a force layout's area grows with its
node count), the others start beside their placed neighbours
(:func:`~anthology.layout.placement.place_missing`, the placement a live reload uses), and
the level is only refined: it starts at ``REFINE_ALPHA`` and cools to ``alpha_min`` in
``REFINE_TICKS`` ticks (the full graph in ``FINE_TICKS``).

"Settled" is what :class:`~anthology.layout.force_layout.ForceLayout` calls it, ``alpha <
alpha_min``, reached on the full graph; :func:`movement` (the root-mean-square step of a
node per tick, in link lengths; at rest below :data:`SETTLED_MOVEMENT`) is the measure that
does not depend on the schedule, used by the tests and ``benchmarks/bench_layout.py``. On the
100,000-entry synthetic vault (2 shared cores): settled in ~11 s against 67 s for d3's
schedule (and 19 s for the same forces cooled in 100 ticks), with the same quality figures
(stress 0.186 / 0.182, crossings 0.150 / 0.173).

The filtration is part of the layout (the multilevel scheme of GRIP / FM³ / sfdp),
vectorised like the rest of the engine; nothing here is a graph query.

:class:`MultilevelLayout` has the interface the layout thread drives (``tick``, ``settled``,
``positions``, ``alpha``, ``pin``, ``unpin``, ``reheat``, ``set_params``, ``energy``): while
a coarse level runs, ``positions`` are every entry's (those of finer levels stand where they
were placed when the level began); an edit (a pin, new forces) skips the remaining levels
and goes on with the full graph and the forces as given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from anthology.layout.force_layout import ForceLayout, ForceParams, clean_edges
from anthology.layout.placement import place_missing

__all__ = [
    "FINE_TICKS",
    "MULTILEVEL_MIN_N",
    "REFINE_ALPHA",
    "REFINE_TICKS",
    "SETTLED_MOVEMENT",
    "Level",
    "MultilevelLayout",
    "filtration_step",
    "hierarchy",
    "movement",
]

#: Below this many nodes a fresh layout runs on the full graph: d3's schedule settles 10,000
#: nodes in 5-10 s there, and its frames were cheaper to draw than the multilevel start's
#: compact ones (10k, two runs under load: frame p95 131 ms against 187-199 ms).
MULTILEVEL_MIN_N = 20_000
#: Each coarser level keeps this share of the nodes of the one before.
KEEP_SHARE = 0.25
#: Coarsening stops at this many nodes...
COARSEST_N = 300
#: ... or when a level keeps more than this share of the nodes (nothing left to drop).
STALL_RATIO = 0.9
#: A refined level starts at this heat...
REFINE_ALPHA = 0.5
#: ... and cools to ``alpha_min`` in this many ticks (the coarse levels)...
REFINE_TICKS = 60
#: ... and in this many on the finest level.
FINE_TICKS = 50
#: A layout whose rms step per tick is below this many link lengths is at rest.
SETTLED_MOVEMENT = 0.02


def movement(layout: ForceLayout) -> float:
    """Root-mean-square step of a node in the last tick, in link lengths."""
    v = layout.velocities
    if len(v) == 0:
        return 0.0
    d = max(float(layout.params.link_distance), 1e-9)
    return float(math.sqrt(float(np.einsum("ij,ij->", v, v)) / len(v))) / d


def filtration_step(
    n: int, edges: np.ndarray, keep_share: float, rng: np.random.Generator
) -> np.ndarray:
    """The nodes of the next coarser level: the ``keep_share`` of highest degree (random
    tie-break) that still have a link among themselves, sorted. ``edges`` are clean."""
    if n == 0 or len(edges) == 0:
        return np.zeros(0, dtype=np.int64)
    deg = np.bincount(edges.ravel(), minlength=n).astype(np.float64)
    order = np.argsort(-(deg + rng.random(n) * 0.5), kind="stable")
    k = max(1, int(n * keep_share))
    kept = np.zeros(n, dtype=bool)
    kept[order[:k]] = True
    inner = kept[edges[:, 0]] & kept[edges[:, 1]]
    linked = np.zeros(n, dtype=bool)
    linked[edges[inner].ravel()] = True
    return np.flatnonzero(kept & linked)


@dataclass
class Level:
    """One level of the hierarchy: its nodes (indices into the next finer level; all of
    them for the full graph) and the links among them (in its own numbering)."""

    nodes: np.ndarray
    edges: np.ndarray

    @property
    def n(self) -> int:
        return len(self.nodes)


def hierarchy(n: int, edges: np.ndarray, seed: int = 0) -> list[Level]:
    """Levels from the full graph (first) to the coarsest (last): each keeps the best
    linked quarter of the one before (:func:`filtration_step`), the links among them."""
    rng = np.random.default_rng(seed)
    levels = [Level(np.arange(n, dtype=np.int64), clean_edges(n, edges))]
    while levels[-1].n > COARSEST_N:
        cur = levels[-1]
        keep = filtration_step(cur.n, cur.edges, KEEP_SHARE, rng)
        if len(keep) < COARSEST_N // 2 or len(keep) > STALL_RATIO * cur.n:
            break
        remap = np.full(cur.n, -1, dtype=np.int64)
        remap[keep] = np.arange(len(keep))
        sub = remap[cur.edges]
        sub = sub[(sub >= 0).all(axis=1)]
        levels.append(Level(keep, sub))
    return levels


def _refine_params(params: ForceParams, ticks: int) -> ForceParams:
    decay = 1.0 - (params.alpha_min / REFINE_ALPHA) ** (1.0 / max(ticks, 1))
    return replace(params, alpha_decay=decay)


class MultilevelLayout:
    """A fresh layout of a big graph, coarsest level first; see the module docstring."""

    def __init__(
        self, n: int, edges: np.ndarray, params: ForceParams | None = None, *, seed: int = 0
    ) -> None:
        self.n = int(n)
        self.seed = seed
        self.params = replace(params) if params is not None else ForceParams()
        self.levels = hierarchy(self.n, edges, seed)
        self.level = len(self.levels) - 1
        self.node_ticks = 0  # sum over ticks of the nodes simulated (work, for the tests)
        self._layout = ForceLayout(self.levels[-1].n, self.levels[-1].edges, self.params, seed=seed)
        self._pins: dict[int, tuple[float, float]] = {}
        self._full = self._layout.positions
        self._glob = np.arange(self.n, dtype=np.int64)
        if not self.fine:
            self._start_level(self._layout.positions)

    # ---- the levels -------------------------------------------------------------------
    @property
    def fine(self) -> bool:
        return self.level == 0

    def _expand(self, pos: np.ndarray, level: int) -> np.ndarray:
        """Positions of level ``level - 1`` from those of ``level``: its nodes keep theirs,
        spread by ``sqrt`` of the node ratio; the others start beside their placed
        neighbours (:func:`~anthology.layout.placement.place_missing`)."""
        finer, cur = self.levels[level - 1], self.levels[level]
        scale = math.sqrt(finer.n / max(cur.n, 1))
        centre = pos.mean(axis=0) if len(pos) else np.zeros(2)
        out = np.full((finer.n, 2), np.nan)
        out[cur.nodes] = (pos - centre) * scale + centre
        rng = np.random.default_rng(self.seed + level)
        return place_missing(out, finer.edges, self.params.link_distance, rng=rng)

    def _start_level(self, pos: np.ndarray) -> None:
        """The current level begins at ``pos``; every entry's position is worked out once
        (for the frames shown while it runs: the entries of finer levels stand still)."""
        full = pos
        for level in range(self.level, 0, -1):
            full = self._expand(full, level)
        self._full = full
        self._glob = self._global_index(self.level)

    def _global_index(self, level: int) -> np.ndarray:
        idx = self.levels[level].nodes
        for k in range(level - 1, 0, -1):
            idx = self.levels[k].nodes[idx]
        return idx

    def _full_positions(self) -> np.ndarray:
        out = self._full.copy()
        out[self._glob] = self._layout.positions
        return out

    def _descend(self) -> None:
        pos = self._expand(self._layout.positions, self.level)
        self.level -= 1
        lvl = self.levels[self.level]
        ticks = FINE_TICKS if self.level == 0 else REFINE_TICKS
        self._layout = ForceLayout(
            lvl.n, lvl.edges, _refine_params(self.params, ticks), seed=self.seed, positions=pos
        )
        self._layout.alpha = REFINE_ALPHA
        if not self.fine:
            self._start_level(pos)

    def _go_fine(self) -> None:
        """An edit: the rest is simulated on the full graph, from where it stands now, with
        the forces as given (the finest level's quicker cooling is for its first settling)."""
        if self.fine:
            if self._layout.params != self.params:
                self._layout.set_params(self.params)
        else:
            alpha = max(self._layout.alpha, REFINE_ALPHA)
            pos = self._full_positions()
            self.level = 0
            lvl = self.levels[0]
            self._layout = ForceLayout(lvl.n, lvl.edges, self.params, seed=self.seed, positions=pos)
            self._layout.alpha = alpha
            for i, (x, y) in self._pins.items():
                self._layout.pin(i, x, y)

    # ---- the ForceLayout interface -----------------------------------------------------
    @property
    def positions(self) -> np.ndarray:
        return self._layout.positions if self.fine else self._full_positions()

    @property
    def velocities(self) -> np.ndarray:
        return self._layout.velocities

    @property
    def alpha(self) -> float:
        return self._layout.alpha

    @alpha.setter
    def alpha(self, value: float) -> None:
        self._layout.alpha = float(value)

    def settled(self) -> bool:
        return self.fine and self._layout.settled()

    def tick(self, iterations: int = 1) -> None:
        for _ in range(int(iterations)):
            if self._layout.settled() and not self.fine:
                self._descend()
            self._layout.tick(1)
            self.node_ticks += self._layout.n

    def movement(self) -> float:
        return movement(self._layout)

    def energy(self) -> float:
        return self._layout.energy()

    def reheat(self, alpha: float = 0.3) -> None:
        self._go_fine()
        self._layout.reheat(alpha)

    def pin(self, i: int, x: float, y: float) -> None:
        self._pins[i] = (x, y)
        self._go_fine()
        self._layout.pin(i, x, y)

    def unpin(self, i: int) -> None:
        self._pins.pop(i, None)
        self._go_fine()
        self._layout.unpin(i)

    def is_pinned(self, i: int) -> bool:
        return i in self._pins

    def set_params(self, params: ForceParams) -> None:
        self.params = replace(params)
        self._go_fine()
        self._layout.set_params(params)
