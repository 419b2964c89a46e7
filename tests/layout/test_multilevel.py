"""The multilevel start: a big fresh layout comes to rest in fewer node-ticks than d3's
schedule on the full graph, as good a layout, and the hostile shapes (a star, no links)
still settle with every node placed and apart."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from anthology.layout.force_layout import ForceLayout, ForceParams
from anthology.layout.multilevel import (
    SETTLED_MOVEMENT,
    MultilevelLayout,
    hierarchy,
    movement,
)
from anthology.layout.quality import nearest_neighbour_distance, normalized_stress
from synthetic_graph import power_law_graph


def _single(n: int, edges: np.ndarray) -> tuple[ForceLayout, int, int]:
    """d3's schedule on the full graph: the layout, node-ticks to rest and to settled."""
    lay = ForceLayout(n, edges, ForceParams(), seed=0)
    ticks, at_rest = 0, 0
    while not lay.settled():
        lay.tick(1)
        ticks += 1
        if not at_rest and movement(lay) < SETTLED_MOVEMENT:
            at_rest = ticks * n
    return lay, at_rest, ticks * n


def _multi(n: int, edges: np.ndarray) -> tuple[MultilevelLayout, int]:
    lay = MultilevelLayout(n, edges, ForceParams(), seed=0)
    at_rest = 0
    while not lay.settled():
        lay.tick(1)
        if not at_rest and lay.fine and lay.movement() < SETTLED_MOVEMENT:
            at_rest = lay.node_ticks
    return lay, at_rest


@pytest.mark.parametrize("seed", [1, 2])
def test_a_mid_size_graph_comes_to_rest_in_fewer_node_ticks_and_as_good(seed: int) -> None:
    n = 3000
    edges = power_law_graph(n, 9000, seed=seed)
    single, single_rest, single_settled = _single(n, edges)
    multi, multi_rest = _multi(n, edges)
    assert len(multi.levels) >= 2  # it did coarsen
    assert 0 < multi_rest < 0.7 * single_rest  # at rest (movement) sooner
    assert multi.node_ticks < 0.4 * single_settled  # settled (alpha) with far less work
    # the same forces: about as good a drawing (measured: 0.19 vs 0.17-0.18)
    assert normalized_stress(multi.positions, edges) < 1.2 * normalized_stress(
        single.positions, edges
    )
    assert np.isfinite(multi.positions).all() and multi.positions.shape == (n, 2)


def test_every_level_is_linked_and_smaller_than_the_one_before() -> None:
    n = 5000
    levels = hierarchy(n, power_law_graph(n, 15000, seed=3))
    assert levels[0].n == n and len(levels) >= 3
    for finer, coarser in itertools.pairwise(levels):
        assert coarser.n < finer.n
        assert coarser.nodes.max() < finer.n
        # every node kept has a link among the kept (an unlinked one would drift away)
        assert set(np.unique(coarser.edges)) == set(range(coarser.n))


def test_a_star_of_twenty_thousand_leaves_settles_with_the_leaves_apart() -> None:
    # "100,000 notes all link to one note", scaled down
    n = 20001
    edges = np.column_stack([np.arange(1, n), np.zeros(n - 1, dtype=np.int64)])
    lay, at_rest = _multi(n, edges)
    assert lay.settled() and at_rest > 0
    pos = lay.positions
    assert np.isfinite(pos).all()
    # the leaves are spread around the hub, not piled on it
    assert nearest_neighbour_distance(pos, seed=1) > 1.0
    r = np.hypot(*(pos[1:] - pos[0]).T)
    assert np.median(r) > ForceParams().link_distance


def test_a_graph_without_links_is_laid_out_in_one_level() -> None:
    lay = MultilevelLayout(3000, np.zeros((0, 2), dtype=np.int64), seed=0)
    assert len(lay.levels) == 1 and lay.fine
    while not lay.settled():
        lay.tick(1)
    assert np.isfinite(lay.positions).all()


def test_a_pin_while_a_coarse_level_runs_goes_on_with_the_full_graph() -> None:
    n = 3000
    edges = power_law_graph(n, 9000, seed=4)
    lay = MultilevelLayout(n, edges, seed=0)
    lay.tick(20)
    assert not lay.fine
    before = lay.positions.copy()
    lay.pin(7, 500.0, -250.0)
    assert lay.fine and lay.is_pinned(7)
    assert lay.alpha >= 0.3  # still warm: the rest settles around the pin
    now = lay.positions
    others = np.arange(n) != 7
    assert np.allclose(now[others], before[others])  # nothing jumped
    while not lay.settled():
        lay.tick(1)
    assert tuple(lay.positions[7]) == (500.0, -250.0)
    lay.unpin(7)
    assert not lay.is_pinned(7)


def test_new_forces_apply_to_the_full_graph_with_its_own_cooling() -> None:
    n = 3000
    lay = MultilevelLayout(n, power_law_graph(n, 9000, seed=5), seed=0)
    lay.tick(5)
    params = ForceParams(repel_strength=-120.0)
    lay.set_params(params)
    assert lay.fine and lay._layout.params == params
