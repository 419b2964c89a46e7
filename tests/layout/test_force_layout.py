"""Tests for the d3-force compatible layout engine (anthology.layout.force_layout)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from anthology.layout import _repulsion
from anthology.layout.force_layout import (
    POSITION_LIMIT,
    ForceLayout,
    ForceParams,
    clean_edges,
    phyllotaxis,
)
from anthology.layout.quality import layout_quality, normalized_stress
from synthetic_graph import orphans_and_hub, power_law_graph

NO_CENTER = dict(center_strength=0.0, gravity=0.0)


def _dist(lay: ForceLayout, a: int = 0, b: int = 1) -> float:
    return float(np.linalg.norm(lay.positions[a] - lay.positions[b]))


@pytest.mark.parametrize("mode", ["exact", "approx"])
def test_two_unlinked_nodes_repel(mode):
    pos = np.array([[0.0, 0.0], [5.0, 0.0]])
    lay = ForceLayout(2, [], ForceParams(repulsion=mode, **NO_CENTER), positions=pos)
    lay.tick(10)
    assert _dist(lay) > 5.0
    # pushed apart along the line joining them
    assert lay.positions[0, 0] < 0.0 < 5.0 < lay.positions[1, 0]


def test_link_pulls_far_nodes_together():
    pos = np.array([[-200.0, 0.0], [200.0, 0.0]])
    lay = ForceLayout(2, [[0, 1]], ForceParams(**NO_CENTER), positions=pos)
    lay.tick(50)
    assert _dist(lay) < 100.0
    lay.tick(250)
    # settles near the link distance (repulsion lengthens it a little)
    assert 25.0 < _dist(lay) < 40.0


def test_first_tick_matches_d3_by_hand():
    # d3: alpha 1 -> 1 - decay; link force on (x + v) with bias/strength 1/min(deg) = 1
    p = ForceParams(repel_strength=0.0, **NO_CENTER)
    pos = np.array([[0.0, 0.0], [100.0, 0.0]])
    lay = ForceLayout(2, [[0, 1]], p, positions=pos)
    lay.tick(1)
    alpha = 1.0 + (0.0 - 1.0) * p.alpha_decay
    k = (100.0 - 30.0) / 100.0 * alpha  # strength 1
    dv = 100.0 * k * 0.5  # bias 0.5
    v = dv * (1 - p.velocity_decay)
    assert lay.positions[0, 0] == pytest.approx(v)
    assert lay.positions[1, 0] == pytest.approx(100.0 - v)
    assert lay.alpha == pytest.approx(alpha)


def test_energy_falls_and_simulation_settles():
    edges = power_law_graph(300, 600, seed=3)
    lay = ForceLayout(300, edges, seed=1)
    lay.tick(30)
    e_early = lay.energy()
    lay.tick(270)
    assert lay.energy() < 0.1 * e_early
    assert lay.settled()
    assert np.isfinite(lay.positions).all()


def test_deterministic_from_seed():
    edges = power_law_graph(800, 2000, seed=5)
    runs = []
    for _ in range(2):
        lay = ForceLayout(800, edges, ForceParams(repulsion="approx"), seed=7)
        lay.tick(40)
        runs.append(lay.positions.copy())
    assert np.array_equal(runs[0], runs[1])


def test_new_nodes_placed_next_to_linked_neighbour():
    n = 50
    edges = np.array([[i, i + 1] for i in range(n - 1)] + [[n - 1, 0]])
    pos = phyllotaxis(np.arange(n)) * 20.0
    pos[10] = np.nan  # new entry linking to 9 and 11
    known = np.ones(n, dtype=bool)
    known[20] = False  # stale row: re-placed as well
    lay = ForceLayout(n, edges, positions=pos, known=known, seed=2)
    assert np.isfinite(lay.positions).all()
    mid = 0.5 * (pos[9] + pos[11])
    assert np.linalg.norm(lay.positions[10] - mid) <= 30.0 + 1e-9
    assert (
        not np.allclose(lay.positions[20], pos[20])
        or np.linalg.norm(lay.positions[20] - 0.5 * (pos[19] + pos[21])) <= 30.0
    )
    # known rows are kept as given
    assert np.array_equal(lay.positions[0], pos[0])


def test_all_unknown_uses_d3_phyllotaxis():
    lay = ForceLayout(5, [])
    assert np.allclose(lay.positions, phyllotaxis(np.arange(5)))
    assert lay.positions[0] == pytest.approx([10 * math.sqrt(0.5), 0.0])


@pytest.mark.parametrize("mode", ["exact", "approx"])
def test_pinned_node_stays_put(mode):
    edges = power_law_graph(700, 1400, seed=1)
    lay = ForceLayout(700, edges, ForceParams(repulsion=mode), seed=0)
    lay.pin(3, 123.0, -45.0)
    assert tuple(lay.positions[3]) == (123.0, -45.0)
    lay.tick(20)
    assert tuple(lay.positions[3]) == (123.0, -45.0)
    assert lay.velocities[3].tolist() == [0.0, 0.0]
    assert lay.is_pinned(3)
    lay.unpin(3)
    lay.reheat(0.5)
    assert lay.alpha == 0.5
    lay.tick(5)
    assert tuple(lay.positions[3]) != (123.0, -45.0)


def test_nan_and_overflow_are_repaired():
    edges = power_law_graph(200, 400, seed=2)
    lay = ForceLayout(200, edges, seed=0)
    lay.tick(5)
    lay.positions[7] = np.nan
    lay.velocities[8] = [np.inf, -np.nan]
    lay.positions[9] = [1e300, -np.inf]
    lay.tick(3)
    assert np.isfinite(lay.positions).all()
    assert np.isfinite(lay.velocities).all()
    assert np.abs(lay.positions).max() <= POSITION_LIMIT
    # repaired nodes come back near the others, not at the clamp
    assert np.abs(lay.positions[[7, 9]]).max() < 1e4
    # absurd parameters must not crash either
    lay.set_params(ForceParams(repel_strength=-1e12, link_strength=1e9))
    lay.tick(3)
    assert np.isfinite(lay.positions).all()
    assert np.abs(lay.positions).max() <= POSITION_LIMIT


def test_degenerate_inputs_do_not_crash():
    ForceLayout(0, np.zeros((0, 2))).tick(3)
    one = ForceLayout(1, [], positions=np.array([[np.nan, np.nan]]))
    one.tick(3)
    assert np.isfinite(one.positions).all()
    assert one.energy() == 0.0
    # self-links ignored, duplicates (either orientation) count once
    lay = ForceLayout(3, [[0, 0], [0, 1], [1, 0], [0, 1], [1, 2], [2, 2]])
    assert lay.edges.tolist() == [[0, 1], [1, 2]]
    assert lay.degree.tolist() == [1.0, 2.0, 1.0]
    lay.tick(5)
    assert np.isfinite(lay.positions).all()
    # all nodes on one spot (coincident) are jiggled apart
    same = ForceLayout(4, [[0, 1]], positions=np.zeros((4, 2)), seed=1)
    same.tick(3)
    assert np.isfinite(same.positions).all()
    assert len(np.unique(same.positions.round(12), axis=0)) == 4
    with pytest.raises(ValueError):
        ForceLayout(3, [[0, 3]])
    assert clean_edges(5, None).shape == (0, 2)


def test_hub_and_orphans():
    n, edges = orphans_and_hub(5000, 10000)
    lay = ForceLayout(n, edges, seed=0)
    lay.tick(5)
    assert np.isfinite(lay.positions).all()
    assert lay._repulsion_state.last_pairs < 64 * n  # pair budget respected


def test_collision_separates_overlapping_nodes():
    p = ForceParams(collide_radius=10.0, repel_strength=0.0, **NO_CENTER)
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.5]])
    lay = ForceLayout(3, [], p, positions=pos, radii=np.array([1.0, 1.0, 2.0]))
    lay.tick(60)
    d = np.linalg.norm(lay.positions[:, None] - lay.positions[None], axis=2)
    r = 10.0 * np.array([1.0, 1.0, 2.0])
    need = r[:, None] + r[None, :]
    iu = np.triu_indices(3, 1)
    assert (d[iu] > 0.9 * need[iu]).all()


def test_cell_list_finds_all_close_pairs():
    rng = np.random.default_rng(0)
    pos = np.concatenate([rng.normal(0, 5, (300, 2)), rng.uniform(-100, 100, (300, 2))])
    cut = 3.7
    i, j = _repulsion.neighbour_pairs(pos, cut)
    got = {(min(a, b), max(a, b)) for a, b in zip(i.tolist(), j.tolist(), strict=True)}
    assert len(got) == len(i)  # no pair twice
    d = np.linalg.norm(pos[:, None] - pos[None], axis=2)
    a, b = np.nonzero(np.triu(d < cut, 1))
    want = set(zip(a.tolist(), b.tolist(), strict=True))
    assert want <= got


def test_approx_repulsion_error_at_2000_nodes():
    """Particle-mesh + exact near field vs the exact O(n²) field on a real layout."""
    edges = power_law_graph(2000, 6000, seed=0)
    lay = ForceLayout(2000, edges, ForceParams(repulsion="approx"), seed=0)
    lay.tick(60)
    pos = lay.positions
    rng = np.random.default_rng(0)
    exact = _repulsion.exact_field(pos, math.inf, rng)
    approx = _repulsion.mesh_field(pos, math.inf, rng, _repulsion.MeshCache())
    err = np.linalg.norm(approx - exact, axis=1) / np.linalg.norm(exact, axis=1)
    assert np.median(err) < 0.02  # measured ≈ 0.005
    assert np.quantile(err, 0.95) < 0.05  # measured ≈ 0.02
    # distance_max: both truncate the kernel
    exact_dm = _repulsion.exact_field(pos, 200.0, rng)
    approx_dm = _repulsion.mesh_field(pos, 200.0, rng, _repulsion.MeshCache())
    norm_dm = np.linalg.norm(exact_dm, axis=1)
    has = norm_dm > 0  # nodes with nobody within distance_max feel nothing
    err_dm = np.linalg.norm(approx_dm - exact_dm, axis=1)[has] / norm_dm[has]
    assert np.median(err_dm) < 0.05


def test_outliers_far_away_use_core_grid():
    rng = np.random.default_rng(1)
    pos = rng.normal(0, 100, (2000, 2))
    pos[:3] = [[1e5, 0], [-1e5, 3e4], [0, 2e5]]
    exact = _repulsion.exact_field(pos, math.inf, rng)
    cache = _repulsion.MeshCache()
    approx = _repulsion.mesh_field(pos, math.inf, rng, cache)
    err = np.linalg.norm(approx - exact, axis=1) / np.linalg.norm(exact, axis=1)
    assert np.median(err) < 0.02
    assert cache.last_grid[2] < 50.0  # grid spacing from the core, not from the outliers


def test_approx_layout_quality_matches_exact():
    edges = power_law_graph(600, 1500, seed=4)
    q = {}
    for mode in ("exact", "approx"):
        lay = ForceLayout(600, edges, ForceParams(repulsion=mode), seed=0)
        lay.tick(300)
        q[mode] = layout_quality(lay.positions, edges)
    assert q["approx"]["stress"] == pytest.approx(q["exact"]["stress"], rel=0.1)
    assert q["approx"]["edge_length_ratio"] == pytest.approx(
        q["exact"]["edge_length_ratio"], rel=0.1
    )


def test_quality_figures():
    edges = np.array([[0, 1], [1, 2], [2, 3]])
    line = np.array([[0.0, 0], [1, 0], [2, 0], [3, 0]])
    assert normalized_stress(line, edges) == pytest.approx(0.0, abs=1e-12)
    q = layout_quality(line * 7.0, edges)
    assert q["edge_length_ratio"] == pytest.approx(1.0)
    assert q["crossings"] == 0.0
    bow = np.array([[0.0, 0], [1, 1], [1, 0], [0, 1]])  # edge 0-1 crosses 2-3
    assert layout_quality(bow, edges)["crossings"] == 1.0


def test_power_law_graph_is_simple_and_seeded():
    e = power_law_graph(1000, 3000, seed=9)
    assert e.shape == (3000, 2)
    assert (e[:, 0] != e[:, 1]).all()
    assert len(np.unique(np.sort(e, axis=1), axis=0)) == 3000
    assert np.array_equal(e, power_law_graph(1000, 3000, seed=9))
    assert np.bincount(e.ravel()).max() > 50  # has hubs


def test_many_coincident_nodes_stay_bounded(monkeypatch):
    monkeypatch.setattr(_repulsion, "MAX_PAIRS", 20_000)
    n = 800
    lay = ForceLayout(n, [], ForceParams(repulsion="approx"), positions=np.zeros((n, 2)))
    lay.tick(3)
    assert np.isfinite(lay.positions).all()
    assert lay._repulsion_state.last_pairs <= 20_000


@pytest.mark.parametrize(
    "params",
    [
        ForceParams(repulsion="approx", distance_max=1e-9),
        ForceParams(repulsion="approx", distance_max=50.0),
        ForceParams(collide_radius=1e-12),
        ForceParams(collide_radius=5.0, link_distance=0.0, velocity_decay=0.0),
        ForceParams(repel_strength=0.0, center_strength=0.0, gravity=0.0),
    ],
)
def test_extreme_parameters_do_not_crash(params):
    edges = power_law_graph(400, 800, seed=3)
    pos = phyllotaxis(np.arange(400))
    pos[0] = [9e5, -9e5]  # one node far away
    lay = ForceLayout(400, edges, params, positions=pos, seed=0)
    lay.tick(5)
    assert np.isfinite(lay.positions).all()
    assert np.abs(lay.positions).max() <= POSITION_LIMIT


_D3 = Path(__file__).resolve().parents[2] / "benchmarks" / "d3" / "node_modules" / "d3-force"


@pytest.mark.skipif(
    shutil.which("node") is None or not _D3.is_dir(), reason="node / d3-force not installed"
)
def test_same_trajectory_as_d3_force():
    """Exact repulsion vs d3 with theta -> 0: identical up to rounding when no two links share
    a node (then Jacobi and d3's sequential link update coincide)."""
    from bench_layout import run_d3

    n = 120
    edges = np.array([[2 * i, 2 * i + 1] for i in range(40)])
    params = ForceParams(repulsion="exact", theta=1e-4)
    lay = ForceLayout(n, edges, params)
    lay.tick(5)
    d3 = run_d3(n, edges, params, 5)
    assert np.abs(lay.positions - d3["positions"]).max() < 1e-8
    assert lay.alpha == pytest.approx(d3["alpha"])
