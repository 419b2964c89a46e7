"""The graph view's simulation thread and the pace of its frames.

The layout runs in :class:`~anthology.ui.graph.layout_worker.LayoutThread`; each frame it
sends is drawn by the view, and the next is asked for only once that one is on screen (or
after 200 ms), then after a rest as long as the frame kept the GUI thread busy (at most
:data:`MAX_REST_S`): a multilevel layout's coarse levels tick in a few ms, and frames of
100,000 nodes asked for at once kept the GUI thread busy from one to the next (event-loop
turns p95 75 ms while it settled). Input is answered between frames however quickly the
layout ticks. While the window opens an entry the simulation is held (:meth:`hold`) until
the panes are painted.
"""

from __future__ import annotations

import contextlib
import time
import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget

from anthology.ui.graph.layout_worker import LayoutSpec, LayoutThread

# hold's hold lasts until the panes are painted: a hub's take ~50 ms at 10,000 entries
RELEASE_MS = 80
MAX_REST_S = 0.2  # the longest rest between layout frames (see FramePacing.frame_done)
MIN_REST_MS = 5  # a frame quicker than this asks for the next at once


def _clock() -> float:
    """The frame pacing's clock (a seam: the tests drive it by hand)."""
    return time.perf_counter()


def _stop_quietly(worker: LayoutThread) -> None:
    with contextlib.suppress(RuntimeError):  # the C++ object may already be gone at exit
        worker.stop()


def single_shot(parent: QObject, ms: int, slot: Any) -> QTimer:
    t = QTimer(parent)
    t.setSingleShot(True)
    t.setInterval(ms)
    t.timeout.connect(slot)
    return t


class FramePacing(QObject):
    """The layout thread of ``view`` (made on the first layout) and its frames' pace.

    ``draw(generation, positions)`` draws a frame and says whether it will be painted (the
    view is visible); ``settled(generation)`` and ``failed(message)`` are the thread's."""

    def __init__(
        self,
        view: QWidget,
        draw: Callable[[int, Any], bool],
        settled: Callable[[int], None],
        failed: Callable[[str], None],
    ) -> None:
        super().__init__(view)
        self._view = view
        self._draw = draw
        self._settled = settled
        self._failed = failed
        self.worker: LayoutThread | None = None
        self.shut = False
        self.awaiting_paint = False
        self.frame_started = 0.0
        self.release_timer = single_shot(self, RELEASE_MS, self.release)
        self.frame_timer = single_shot(self, 200, self.frame_done)
        self.rest_timer = single_shot(self, 0, self.ask_next_frame)

    def load(self, generation: int, spec: LayoutSpec, *, paused: bool) -> None:
        """Lay out ``spec`` (the thread made and started on the first call)."""
        if self.worker is None:
            self.worker = worker = LayoutThread(max_fps=30.0)
            worker.frame.connect(self._on_frame)
            worker.settled.connect(self._settled)
            worker.failed.connect(self._failed)
            worker.start()
            # a view dropped without shutdown() must not leave its thread running
            weakref.finalize(self._view, _stop_quietly, worker)
            if paused:
                worker.set_paused(True)
        self.worker.load(generation, spec)

    def _on_frame(self, generation: int, arr: Any) -> None:
        shown = False
        self.frame_started = _clock()
        try:
            if not self.shut:
                shown = self._draw(generation, arr)
        finally:
            if shown:
                # the next frame is asked for once this one has been painted (or after
                # 200 ms), so the frame rate adapts to what the GUI can draw
                self.awaiting_paint = True
                self.frame_timer.start()
            else:
                self.frame_done()

    def frame_done(self) -> None:
        """A frame is painted: the next is asked for after a rest as long as this one's
        work (at most ``MAX_REST_S``)."""
        self.awaiting_paint = False
        self.frame_timer.stop()
        spent = _clock() - self.frame_started
        rest_ms = int(1000 * min(spent, MAX_REST_S))
        if rest_ms >= MIN_REST_MS:
            self.rest_timer.start(rest_ms)
        else:
            self.ask_next_frame()

    def ask_next_frame(self) -> None:
        if self.worker is not None and not self.shut:
            self.worker.frame_consumed()

    def painted(self) -> None:
        """The view's top layer painted: the frame awaited is on screen."""
        if self.awaiting_paint:
            self.frame_done()

    def hold(self) -> None:
        """The simulation stands still until the panes are painted (see the module)."""
        if self.worker is not None and not self.shut:
            self.worker.hold()
            self.release_timer.start()

    def release(self) -> None:
        if self.worker is not None and not self.shut:
            self.worker.release()

    def stop(self) -> None:
        """Stop the thread (idempotent); frames queued late are dropped."""
        self.shut = True
        with contextlib.suppress(RuntimeError):
            for t in (self.release_timer, self.frame_timer, self.rest_timer):
                t.stop()
        if self.worker is not None:
            self.worker.stop()
