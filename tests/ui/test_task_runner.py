"""TaskRunner: slow work off the GUI thread, heard back as signals on it."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QThread
from PySide6.QtWidgets import QApplication, QWidget

from anthology.tasks import Cancelled, TaskState
from anthology.ui.common.task_runner import TaskRunner


class Heard:
    """Everything a runner delivered, with the thread it was delivered on."""

    def __init__(self, runner: TaskRunner) -> None:
        self.items: list[tuple] = []
        self.threads: set[QThread] = set()
        runner.progress.connect(lambda d, t, s: self._add(("progress", d, t, s)))
        runner.partial.connect(lambda r: self._add(("partial", r)))
        runner.done.connect(lambda r: self._add(("done", r)))
        runner.error.connect(lambda e: self._add(("error", type(e).__name__, str(e))))
        runner.finished.connect(lambda: self._add(("finished",)))

    def _add(self, item: tuple) -> None:
        self.items.append(item)
        self.threads.add(QThread.currentThread())


def steps(state: TaskState, n: int) -> str:
    worker = QThread.currentThread()
    assert worker is not QApplication.instance().thread()
    for i in range(n):
        state.set_progress(i + 1, n, "step")
        state.set_partial(i)
    return f"done {n}"


def test_progress_partial_done_arrive_in_order_on_the_gui_thread(qtbot) -> None:
    runner = TaskRunner()
    heard = Heard(runner)
    runner.start(steps, 3)
    assert runner.busy
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    assert heard.items == [
        ("progress", 1, 3, "step"), ("partial", 0),
        ("progress", 2, 3, "step"), ("partial", 1),
        ("progress", 3, 3, "step"), ("partial", 2),
        ("done", "done 3"), ("finished",),
    ]  # fmt: skip
    assert heard.threads == {QApplication.instance().thread()}


def test_an_error_is_delivered_as_the_exception(qtbot) -> None:
    def fails(state: TaskState) -> None:
        state.set_progress(1, 2, "half")
        raise ValueError("broken input")

    runner = TaskRunner()
    heard = Heard(runner)
    runner.start(fails)
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    assert heard.items == [
        ("progress", 1, 2, "half"),
        ("error", "ValueError", "broken input"),
        ("finished",),
    ]


def blocked(state: TaskState, release: threading.Event, started: threading.Event) -> str:
    started.set()
    state.set_partial("before")
    release.wait(10)
    state.set_partial("after")  # queued already when cancelled? dropped all the same
    state.check()
    return "too late"


def test_cancel_drops_results_even_those_already_queued(qtbot) -> None:
    runner = TaskRunner()
    heard = Heard(runner)
    release, started = threading.Event(), threading.Event()
    state = runner.start(blocked, release, started)
    assert started.wait(5)
    runner.cancel()
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    assert state.is_cancelled
    assert all(item[0] in ("finished",) for item in heard.items), heard.items


def test_a_newer_task_supersedes_and_the_one_between_never_runs(qtbot) -> None:
    runner = TaskRunner()
    heard = Heard(runner)
    release, started = threading.Event(), threading.Event()
    ran: list[str] = []
    runner.start(blocked, release, started)
    assert started.wait(5)
    skipped = runner.start(lambda state: ran.append("skipped"))
    runner.start(lambda state: ran.append("newest") or "newest")
    assert skipped.is_cancelled
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    assert ran == ["newest"]
    assert heard.items == [("done", "newest"), ("finished",)]


def test_the_widget_deleted_mid_run_neither_crashes_nor_hears(qtbot) -> None:
    widget = QWidget()
    heard: list[object] = []
    runner = TaskRunner(widget)
    runner.done.connect(heard.append)
    runner.partial.connect(heard.append)
    release, started = threading.Event(), threading.Event()
    state = runner.start(blocked, release, started)
    assert started.wait(5)
    qtbot.wait(20)  # "before" is queued or delivered
    heard.clear()
    widget.deleteLater()
    qtbot.waitUntil(lambda: state.is_cancelled, timeout=5000)  # destroyed: cancelled
    release.set()
    qtbot.wait(100)  # the late partial and the end reach the mailbox, which drops them
    del widget, runner
    qtbot.wait(20)
    assert heard == []


def test_shutdown_cancels_and_waits_for_the_task_to_stop(qtbot) -> None:
    stopped = threading.Event()

    def spins(state: TaskState) -> None:
        try:
            while True:
                state.check()
                QThread.msleep(1)
        finally:
            stopped.set()

    runner = TaskRunner()
    heard = Heard(runner)
    state = runner.start(spins)
    qtbot.wait(20)
    assert runner.shutdown(timeout=5)
    assert stopped.is_set() and state.is_cancelled
    qtbot.wait(20)
    assert heard.items == []
    assert runner.start(steps, 1).is_cancelled  # nothing runs after shutdown
    with pytest.raises(Cancelled):
        runner.start(steps, 1).check()
