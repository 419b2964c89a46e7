"""One queue for the GUI thread's pieces of work: the one way the window spreads a heavy job
over event-loop turns.

The start hands its views over in pieces (:mod:`anthology.ui.window.surroundings`), the
graph view draws a big graph in pieces, its layers render their images in slices, the
explorer makes a big folder's rows in slices. Each chain once had its own 0–1 ms timer;
Qt fires every timer that is due in one pass of the event loop, so pieces of three chains
ran back to back and made one turn of 100–150 ms at 100,000 entries, though none of them
took more than 50 ms. Here every piece waits in one queue, and a pass runs pieces until
:data:`BUDGET_S` is spent (at least one): input and paint get a turn between passes
whatever the number of chains.

A chain posts its next piece when the current one is done (:func:`later`), so chains take
turns, first come first served. What would compete with the pieces for the interpreter (a
refresh scanning every file on a worker: its Python work halves the GUI thread's share)
waits until no piece has been posted for :data:`QUIET_MS` and nobody holds the queue busy
(:func:`when_quiet`; the window holds it while its views are asked off the thread and
handed over: :meth:`StepQueue.hold`). A piece posted twice before it ran runs once (a
layer asking for its next slice while one is already queued). A piece given a
``context`` is dropped if that object was deleted meanwhile (a closed view's pieces do
nothing).
"""

from __future__ import annotations

import time
import weakref
from collections import deque
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QTimer

# What one pass of the event loop gives the queue: no piece is begun once this is spent.
# Pieces are sized to ~5–30 ms, so a pass stays well under the ~50 ms a reader notices
# (at 10 ms an explorer slice and a graph piece shared a pass: 40 ms and its paint).
BUDGET_S = 0.005
# 1 ms, not 0: the timers and input that came due meanwhile go first (a 0 ms timer fired
# before a due one, and two pieces made one turn).
INTERVAL_MS = 1
# The queue is quiet when it has been empty this long (a chain may post its next piece
# from a timer of its own a little later: the explorer's reveal waits 60 ms for a paint).
QUIET_MS = 250

_clock = time.perf_counter  # (tests give a clock of their own)

Piece = tuple[Callable[[], object], QObject | None]


class StepQueue(QObject):
    """The queue (one per application: :func:`step_queue`)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pieces: deque[Piece] = deque()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(INTERVAL_MS)
        self._timer.timeout.connect(self._run)
        self._quiet: list[Piece] = []  # to run once nothing has been posted for a while
        self._quiet_timer = QTimer(self)
        self._quiet_timer.setSingleShot(True)
        self._quiet_timer.setInterval(QUIET_MS)
        self._quiet_timer.timeout.connect(self._run_quiet)
        # what holds the queue busy (see hold), weakly: a window closed while busy lets go
        self._holders: weakref.WeakSet[QObject] = weakref.WeakSet()
        self.passes = 0  # how many passes ran pieces (tests compare it with the pieces)

    def post(self, piece: Callable[[], object], context: QObject | None = None) -> None:
        """Run ``piece`` in a coming pass of the event loop, after those posted before it;
        not if it is already waiting, nor if ``context`` is deleted by then."""
        if any(p == piece and c is context for p, c in self._pieces):
            return
        self._pieces.append((piece, context))
        self._quiet_timer.stop()
        if not self._timer.isActive():
            self._timer.start()

    def when_quiet(self, then: Callable[[], object], context: QObject | None = None) -> None:
        """Run ``then`` once no piece has been posted for :data:`QUIET_MS` (none waits)."""
        self._quiet.append((then, context))
        if not self._pieces:
            self._quiet_timer.start()

    def pending(self) -> int:
        """How many pieces wait (one more while the queue is held busy)."""
        return len(self._pieces) + self._held()

    def _held(self) -> bool:
        for holder in list(self._holders):
            if not shiboken6.isValid(holder):  # (its C++ side deleted with its window)
                self._holders.discard(holder)
        return bool(self._holders)

    def hold(self, holder: QObject, busy: bool) -> None:
        """``holder`` has work coming (``busy``: the window's views asked off the thread,
        their pieces to follow) or not any more: while any holder is busy the queue is not
        quiet, whatever waits for quiet waits on."""
        if busy:
            self._holders.add(holder)
        elif holder in self._holders:
            self._holders.discard(holder)
            if not self._held() and not self._pieces and self._quiet:
                self._quiet_timer.start()  # quiet from now on, if nothing is posted

    def _run(self) -> None:
        start = _clock()
        self.passes += 1
        try:
            while self._pieces:
                piece, context = self._pieces.popleft()
                if context is not None and not shiboken6.isValid(context):
                    continue
                piece()
                if _clock() - start >= BUDGET_S:
                    break
        finally:  # a piece that raised leaves the others theirs
            if self._pieces:
                self._timer.start()
            elif self._quiet:
                self._quiet_timer.start()

    def _run_quiet(self) -> None:
        if self._pieces:
            return  # (posted meanwhile: asked again once they are done)
        if self._held():
            self._quiet_timer.start()  # asked again in a while (a holder may be gone by then)
            return
        quiet, self._quiet = self._quiet, []
        for then, context in quiet:
            if context is None or shiboken6.isValid(context):
                then()


_queue: StepQueue | None = None


def step_queue() -> StepQueue:
    """The application's queue (made with the first piece, owned by the application)."""
    global _queue
    if _queue is None or not shiboken6.isValid(_queue):
        _queue = StepQueue(QCoreApplication.instance())
    return _queue


def when_quiet(then: Callable[[], object], context: QObject | None = None) -> None:
    """Run ``then`` once the queue has been quiet a while (see :class:`StepQueue`)."""
    step_queue().when_quiet(then, context)


def later(piece: Callable[[], object], context: QObject | None = None) -> None:
    """Run ``piece`` in a coming pass of the event loop (see :class:`StepQueue`)."""
    step_queue().post(piece, context)
