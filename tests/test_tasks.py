"""TaskState: the one protocol slow work reports to and is cancelled by (no Qt)."""

from __future__ import annotations

import threading

import pytest

from anthology.tasks import Cancelled, TaskState


def test_progress_and_partial_reach_the_callbacks_in_order() -> None:
    heard: list[object] = []
    state = TaskState(
        on_progress=lambda done, total, stage: heard.append((done, total, stage)),
        on_partial=heard.append,
    )
    assert state.progress == (0, 0, "")
    state.set_progress(1, 3, "parsing")
    state.set_partial("first")
    state.set_progress(2, 3)
    assert heard == [(1, 3, "parsing"), "first", (2, 3, "")]
    assert state.progress == (2, 3, "")


def test_cancel_makes_check_and_progress_raise_but_not_partial() -> None:
    heard: list[object] = []
    state = TaskState(on_progress=lambda *a: heard.append(a), on_partial=heard.append)
    state.check()
    state.cancel()
    state.cancel()  # idempotent
    assert state.is_cancelled
    with pytest.raises(Cancelled):
        state.check()
    with pytest.raises(Cancelled):
        state.set_progress(1, 2, "late")
    state.set_partial("kept")  # the work decides where it stops
    assert heard == ["kept"]


def test_cancel_hooks_run_once_and_at_once_when_already_cancelled() -> None:
    calls: list[str] = []
    state = TaskState()
    state.when_cancelled(lambda: calls.append("a"))
    state.cancel()
    state.cancel()
    state.when_cancelled(lambda: calls.append("b"))
    assert calls == ["a", "b"]


def test_cancel_from_another_thread_stops_a_loop() -> None:
    state = TaskState()
    started = threading.Event()
    outcome: list[str] = []

    def work() -> None:
        try:
            while True:
                started.set()
                state.set_progress(0, 1, "spinning")
        except Cancelled:
            outcome.append("cancelled")

    thread = threading.Thread(target=work)
    thread.start()
    started.wait()
    state.cancel()
    thread.join()
    assert outcome == ["cancelled"]
