"""One protocol for slow work: a :class:`TaskState` the work reports to and is cancelled by.

Long functions (a refresh of the index, the demo's d_k sweep, the graph's layout loop) take
a ``TaskState`` as their first argument, as Orange's ``TaskState`` and Anki's ``taskman``
do. The work calls :meth:`TaskState.set_progress` and :meth:`TaskState.set_partial` as it
goes and :meth:`TaskState.check` where it can stop cleanly; whoever started it calls
:meth:`TaskState.cancel` from any thread, and the work raises :class:`Cancelled` at its
next check. The caller hears back through the ``on_progress`` / ``on_partial`` callbacks,
run on the working thread: the CLI draws its bar there, and
:class:`anthology.ui.common.task_runner.TaskRunner` turns them into Qt signals on the GUI thread.

No Qt here: the core (``vault/``, ``demo/``, ``layout/``) uses this module as it is.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

ProgressCallback = Callable[[int, int, str], None]
PartialCallback = Callable[[Any], None]


class Cancelled(Exception):
    """Raised inside a task's work when its :class:`TaskState` was cancelled."""


class TaskState:
    """Progress, partial results and cancellation of one run of slow work.

    Thread-safe: the work reports from its own thread, :meth:`cancel` may come from any
    thread, and :attr:`progress` reads the latest report consistently. The callbacks are
    called on the reporting thread, outside the state's lock (a callback may cancel, or
    raise :class:`Cancelled` itself to stop the work).
    """

    def __init__(
        self,
        on_progress: ProgressCallback | None = None,
        on_partial: PartialCallback | None = None,
    ) -> None:
        self._on_progress = on_progress
        self._on_partial = on_partial
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._progress: tuple[int, int, str] = (0, 0, "")
        self._hooks: list[Callable[[], None]] = []

    # -- the caller's side ---------------------------------------------------------------
    def cancel(self) -> None:
        """Ask the work to stop (idempotent, any thread): it raises :class:`Cancelled` at
        its next :meth:`check` or :meth:`set_progress`. The hooks of :meth:`when_cancelled`
        run here, once, on the cancelling thread."""
        with self._lock:
            if self._cancelled.is_set():
                return
            self._cancelled.set()
            hooks, self._hooks = self._hooks, []
        for hook in hooks:
            hook()

    def when_cancelled(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` when the task is cancelled (at once if it already is): for work
        that waits where it cannot check, e.g. interrupting a running SQLite query."""
        with self._lock:
            if not self._cancelled.is_set():
                self._hooks.append(hook)
                return
        hook()

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled.is_set()

    @property
    def progress(self) -> tuple[int, int, str]:
        """The latest ``(done, total, stage)`` reported; ``(0, 0, "")`` before any."""
        with self._lock:
            return self._progress

    # -- the work's side -----------------------------------------------------------------
    def check(self) -> None:
        """Raise :class:`Cancelled` if the task was cancelled: call it where stopping
        leaves things consistent."""
        if self._cancelled.is_set():
            raise Cancelled

    def set_progress(self, done: int, total: int, stage: str = "") -> None:
        """Report ``done`` of ``total`` in ``stage``. Every report is also a cancellation
        point: it raises :class:`Cancelled` (before reporting) once cancelled."""
        self.check()
        with self._lock:
            self._progress = (done, total, stage)
        if self._on_progress is not None:
            self._on_progress(done, total, stage)

    def set_partial(self, result: Any) -> None:
        """Hand over a result so far (e.g. the curves of the d_ks done); never raises
        :class:`Cancelled` itself, so the work decides where it stops."""
        if self._on_partial is not None:
            self._on_partial(result)
