"""Slow work off the GUI thread, heard back as Qt signals: the one way the window does it.

A :class:`TaskRunner` runs ``fn(state, *args)`` (``state`` a
:class:`~anthology.tasks.TaskState`) on a worker thread and delivers what the state hears
as signals on the GUI thread, in the order the work said it: ``progress(done, total,
stage)``, ``partial(result)``, then ``done(result)`` or ``error(exception)``, then
``finished()``. One task at a time per runner: :meth:`TaskRunner.start` cancels the running
task (its deliveries, even those already queued, are dropped) and the new one starts when the
old one has stopped; a task superseded before it started never runs.

Why it cannot crash when its widget goes first (what the earlier wrappers each guarded
against in their own way): the worker touches exactly one Qt object, a process-wide
:class:`_Mailbox` that is never deleted; it holds no reference to the runner or the widget.
The mailbox finds the runner on the GUI thread, by key, and drops the message when the
runner is gone (its C++ object deleted with its parent widget, or its Python object
collected). A runner destroyed with its parent cancels its task. Nothing Qt owns waits for a
worker in a destructor (where the GUI thread may hold the interpreter lock the worker needs):
:meth:`TaskRunner.shutdown` cancels and waits with the lock released, and at exit the tasks
still running are cancelled and waited for before the interpreter goes.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import threading
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Qt, QThread, QThreadPool, Signal, Slot

from anthology.tasks import Cancelled, TaskState

_FINAL = ("done", "error", "cancelled")
# Enough threads that no runner's task queues behind another runner's (an index refresh can
# take minutes); each runner runs one task at a time, so this bounds nothing in practice.
_MAX_THREADS = 16


@dataclass
class _Job:
    serial: int
    state: TaskState
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    ended: threading.Event = field(default_factory=threading.Event)


class _Mailbox(QObject):
    """The one Qt object workers emit on; lives on the GUI thread for the whole process."""

    posted = Signal(int, int, str, object)  # runner key, job serial, kind, payload

    def __init__(self) -> None:
        super().__init__()
        self.runners: weakref.WeakValueDictionary[int, TaskRunner] = weakref.WeakValueDictionary()
        self.live: dict[int, _Job] = {}  # every job started and not yet ended, any runner
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(_MAX_THREADS)
        self.posted.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @Slot(int, int, str, object)
    def _deliver(self, key: int, serial: int, kind: str, payload: object) -> None:
        if kind in _FINAL:
            self.live.pop(serial, None)
        runner = self.runners.get(key)
        if runner is not None and shiboken6.isValid(runner):
            runner._receive(serial, kind, payload)
        elif (job := self.live.get(serial)) is not None:
            job.state.cancel()  # nobody is listening any more

    def drain(self) -> None:
        """Cancel every task still running and wait for them (at interpreter exit)."""
        jobs = list(self.live.values())
        for job in jobs:
            job.state.cancel()
        for job in jobs:  # an Event's wait lets go of the interpreter lock; Qt's may not
            job.ended.wait()


_mailbox: _Mailbox | None = None


def _the_mailbox() -> _Mailbox:
    global _mailbox
    if _mailbox is None:  # made on the GUI thread, by the first runner
        _mailbox = _Mailbox()
        atexit.register(_mailbox.drain)
    return _mailbox


def _run(post: Callable[[int, int, str, object], None], key: int, job: _Job,
         priority: QThread.Priority | None) -> None:  # fmt: skip
    """The worker's side: run the job and post its end; touches nothing but ``post``."""
    thread = QThread.currentThread()
    before = thread.priority()
    if before == QThread.Priority.InheritPriority:  # a pool thread's; not one to set back
        before = QThread.Priority.NormalPriority
    if priority is not None:
        thread.setPriority(priority)
    try:
        kind, payload = "done", job.fn(job.state, *job.args)
    except Cancelled:
        kind, payload = "cancelled", None
    except Exception as exc:  # handed to the GUI thread, never lost in the worker
        kind, payload = "error", exc
    finally:
        if priority is not None:
            thread.setPriority(before)
    job.fn = job.args = None  # type: ignore[assignment]  # let go of the work's objects here
    post(key, job.serial, kind, payload)
    job.ended.set()


def _cancel_jobs(jobs: list[_Job], *_args: object) -> None:
    for job in jobs:
        job.state.cancel()


class TaskRunner(QObject):
    """Runs one ``fn(state, *args)`` at a time off the GUI thread; see the module docstring.

    ``parent`` is the widget that listens: when it is destroyed the runner goes with it and
    cancels its task. ``priority`` is the worker thread's while the task runs (low for work
    that must not delay painting).
    """

    progress = Signal(int, int, str)  # done, total, stage
    partial = Signal(object)  # a result so far
    done = Signal(object)  # the result
    error = Signal(object)  # the exception the task raised
    finished = Signal()  # the runner is idle: nothing running or waiting

    _keys = itertools.count(1)
    _serials = itertools.count(1)

    def __init__(
        self, parent: QObject | None = None, *, priority: QThread.Priority | None = None
    ) -> None:
        super().__init__(parent)
        self._mailbox = _the_mailbox()
        self._key = next(TaskRunner._keys)
        self._mailbox.runners[self._key] = self
        self._priority = priority
        self._running: list[_Job] = []  # zero or one: a list the destroyed hook can hold
        self._queued: _Job | None = None
        self._closed = False
        self.destroyed.connect(functools.partial(_cancel_jobs, self._running))

    @property
    def busy(self) -> bool:
        """A task is running or waiting to start."""
        return bool(self._running) or self._queued is not None

    def start(self, fn: Callable[..., Any], *args: Any) -> TaskState:
        """Run ``fn(state, *args)`` once the running task (now cancelled) has stopped;
        returns its state. After :meth:`shutdown` nothing runs (the state is cancelled)."""
        self.cancel()
        serial = next(TaskRunner._serials)
        post = functools.partial(self._mailbox.posted.emit, self._key, serial)
        state = TaskState(
            on_progress=lambda done, total, stage: post("progress", (done, total, stage)),
            on_partial=lambda result: post("partial", result),
        )
        if self._closed:
            state.cancel()
            return state
        job = _Job(serial, state, fn, args)
        if self._running:
            self._queued = job
        else:
            self._launch(job)
        return state

    def cancel(self) -> None:
        """Cancel the running task and forget the waiting one: nothing more of either is
        delivered (a running task stops at its next check)."""
        if self._queued is not None:
            self._queued.state.cancel()
            self._queued = None
        _cancel_jobs(self._running)

    def shutdown(self, timeout: float | None = None) -> bool:
        """:meth:`stop`, and run nothing more: for a widget that is closing."""
        self._closed = True
        return self.stop(timeout)

    def stop(self, timeout: float | None = None) -> bool:
        """Cancel, and wait (at most ``timeout`` seconds, the interpreter lock released)
        for the running task to reach its next check; True when it has stopped."""
        self.cancel()
        stopped = all(job.ended.wait(timeout) for job in list(self._running))
        self._running[:] = [job for job in self._running if not job.ended.is_set()]
        return stopped

    def _launch(self, job: _Job) -> None:
        self._running.append(job)
        self._mailbox.live[job.serial] = job
        self._mailbox.pool.start(
            functools.partial(_run, self._mailbox.posted.emit, self._key, job, self._priority)
        )

    def _receive(self, serial: int, kind: str, payload: object) -> None:
        """A message of job ``serial``, on the GUI thread (from the mailbox)."""
        job = next((j for j in self._running if j.serial == serial), None)
        if job is None:
            return
        if kind not in _FINAL:
            if not job.state.is_cancelled and not self._closed:
                if kind == "progress":
                    self.progress.emit(*payload)  # type: ignore[misc]
                else:
                    self.partial.emit(payload)
            return
        self._running.remove(job)
        if self._closed:
            return
        if not job.state.is_cancelled:
            if kind == "done":
                self.done.emit(payload)
            elif kind == "error":
                self.error.emit(payload)
        if self._queued is not None and not self._running:
            queued, self._queued = self._queued, None
            self._launch(queued)
        elif not self.busy:  # (a done handler may have started the next task already)
            self.finished.emit()


def describe_error(exc: BaseException, expected: tuple[type[BaseException], ...] = ()) -> str:
    """A task's error as one line for the window; a surprise (not one of ``expected``,
    whose messages are clear already) is also printed with its traceback."""
    if isinstance(exc, expected):
        return str(exc)
    traceback.print_exception(exc)
    return f"{type(exc).__name__}: {exc}"
