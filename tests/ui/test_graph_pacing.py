"""The graph keeps the GUI thread's turns short: a progressive render's slice begins no
step it cannot end within the slice, and after a layout frame the GUI thread rests as long
as the frame kept it busy before the next is asked for (time is a fake clock here)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter, QTransform

from anthology.ui.graph import frame_pacing, viewport_cache
from anthology.ui.graph.viewport_cache import ViewportCache, _Job
from anthology.vault.graph_data import GraphData

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _Item:
    def __init__(self) -> None:
        self.updates = 0

    def update(self) -> None:
        self.updates += 1


def _slices(monkeypatch, step_s: float, steps: int) -> list[int]:
    """Run a progressive render of ``steps`` steps of ``step_s`` each: steps per slice."""
    clock = _Clock()
    monkeypatch.setattr(viewport_cache, "_clock", clock)
    done: list[int] = []

    def work():
        for _ in range(steps):
            clock.now += step_s
            done.append(1)
            yield

    item = _Item()
    cache = ViewportCache(item, render=None)
    image = QImage(4, 4, QImage.Format.Format_ARGB32_Premultiplied)
    cache._job = _Job(image, QPainter(image), work(), QTransform(), QRectF(0, 0, 4, 4), 1)
    per_slice = []
    while cache.busy:
        before = len(done)
        cache._step()
        per_slice.append(len(done) - before)
    assert item.updates == 1  # shown once, complete
    return per_slice


def test_a_slice_begins_no_step_it_cannot_end_in_time(monkeypatch, qapp) -> None:
    slice_s = ViewportCache.SLICE_S
    # steps of two thirds of a slice: one per slice (two made a slice 1.33x too long)
    per = _slices(monkeypatch, slice_s * 2 / 3, 6)
    assert per[:6] == [1] * 6
    # small steps fill the slice, never past it
    per = _slices(monkeypatch, slice_s / 6, 30)
    assert max(per) == 6 and sum(per) == 30
    # a step longer than the slice still goes on, one per slice
    per = _slices(monkeypatch, slice_s * 3, 3)
    assert per[:3] == [1, 1, 1]


def test_after_a_frame_the_next_is_asked_for_after_a_rest_as_long(
    qtbot, make_view, monkeypatch
) -> None:
    view = make_view()
    n = 50
    edges = np.column_stack([np.arange(1, n), np.zeros(n - 1, dtype=np.int64)])
    g = GraphData([f"E{i}" for i in range(n)], [f"T{i}" for i in range(n)], ["note"] * n,
                  [[] for _ in range(n)], edges, [None] * (n - 1))  # fmt: skip
    view.set_graph(g, None, "v")
    worker = view.worker()
    assert worker is not None
    view.set_paused(True)
    clock = _Clock()
    monkeypatch.setattr(frame_pacing, "_clock", clock)
    asked: list[int] = []
    monkeypatch.setattr(worker, "frame_consumed", lambda: asked.append(1))

    view.pacing.frame_started = clock.now
    clock.now += 0.060  # the frame kept the GUI thread busy for 60 ms
    view.pacing.frame_done()
    assert asked == [] and view.pacing.rest_timer.isActive()
    assert view.pacing.rest_timer.interval() == 60
    qtbot.waitUntil(lambda: asked == [1], timeout=2000)

    view.pacing.frame_started = clock.now
    clock.now += 0.002  # a quick frame: the next at once
    view.pacing.frame_done()
    assert asked == [1, 1] and not view.pacing.rest_timer.isActive()

    view.pacing.frame_started = clock.now
    clock.now += 5.0  # however long a frame took, the rest is bounded
    view.pacing.frame_done()
    assert view.pacing.rest_timer.interval() == int(1000 * frame_pacing.MAX_REST_S)


def test_a_moving_frame_of_a_compact_graph_draws_a_bounded_share_of_its_edges(
    qtbot, make_view, monkeypatch
) -> None:
    from anthology.ui.graph.edge_layer import EdgeLayer

    monkeypatch.setattr(EdgeLayer, "LIVE_MAX_EDGES", 500)
    view = make_view()
    rng = np.random.default_rng(3)
    n = 1500
    edges = np.unique(np.sort(rng.integers(0, n, (4000, 2)), axis=1), axis=0)
    edges = edges[edges[:, 0] != edges[:, 1]]
    g = GraphData([f"E{i}" for i in range(n)], [f"T{i}" for i in range(n)], ["note"] * n,
                  [[] for _ in range(n)], edges, [None] * len(edges))  # fmt: skip
    view.set_graph(g, None, "v")  # a fresh layout: frames are painted live as it moves
    qtbot.waitUntil(lambda: view.edges.stats["live"] >= 3, timeout=20000)
    assert 0 < view.edges.stats["live_edges"] <= 500  # not all of them
