"""The force simulation off the GUI thread.

:class:`LayoutThread` ticks one :class:`~anthology.layout.force_layout.ForceLayout` at a
time in a plain loop; what it simulates is a :class:`Simulation`, with one method per
command. The GUI talks to it only through a thread-safe queue of those bound methods
(:meth:`LayoutThread.load`, ``pin``, ``unpin``, ``set_params``, ``reheat``, ``set_paused``
put them there; the loop runs them between ticks) and hears back through queued signals:
``frame(generation, positions)`` at most ``max_fps`` times a second (a numpy copy; never
the live array) and ``settled(generation)`` once each time the simulation cools.  It never
touches a widget. It stops when its :class:`~anthology.tasks.TaskState` is cancelled
(:meth:`LayoutThread.stop`).

A long-lived QThread rather than a :class:`~anthology.ui.common.task_runner.TaskRunner` task: the
loop lives as long as the graph view, takes commands while it runs, and paces its own frames.

Back-pressure: a new frame is only emitted once the GUI has taken the previous one
(:meth:`frame_consumed`), so a slow GUI drops frames instead of queueing them.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from PySide6.QtCore import QThread, Signal

from anthology.tasks import TaskState

HOLD_S = 0.5  # the longest LayoutThread.hold: a click's work takes a tenth of it


@dataclass
class LayoutSpec:
    """What to simulate: a graph, the start positions and how hot to start."""

    n: int
    edges: np.ndarray
    positions: np.ndarray  # (n, 2); NaN rows are placed by the engine
    params: Any = None  # ForceParams
    alpha: float = 1.0  # 0 = start cold (nothing to settle)
    known: np.ndarray | None = None
    radii: np.ndarray | None = None
    pins: tuple[tuple[int, float, float], ...] = ()
    seed: int = 0


def _make_layout(spec: LayoutSpec):
    from anthology.layout.force_layout import ForceLayout
    from anthology.layout.multilevel import MULTILEVEL_MIN_N, MultilevelLayout

    if spec.alpha >= 1.0 and spec.n >= MULTILEVEL_MIN_N and not spec.pins:
        # a big graph laid out from nothing (the scene heats only those to 1): coarsest
        # level first, the full graph only refined (73 s -> 15 s in the window at 100k entries)
        return MultilevelLayout(spec.n, spec.edges, spec.params, seed=spec.seed)
    kwargs: dict[str, Any] = {"seed": spec.seed, "positions": spec.positions}
    if spec.known is not None:
        kwargs["known"] = spec.known
    if spec.radii is not None:
        kwargs["radii"] = spec.radii
    layout = ForceLayout(spec.n, spec.edges, spec.params, **kwargs)
    for i, x, y in spec.pins:
        layout.pin(i, x, y)
    layout.alpha = float(spec.alpha)
    return layout


class Simulation:
    """The loop's state and one method per command; used on the layout thread only.

    A layout is built lazily: a graph loaded cold (``alpha == 0``) builds it only when a
    command first needs it. Every edit heats the layout to at least its own heat.
    """

    def __init__(self) -> None:
        self.layout: Any = None  # ForceLayout or MultilevelLayout
        self.spec: LayoutSpec | None = None
        self.generation = -1
        self.paused = False
        self.announced = True  # settled() already emitted for this heating
        self.dirty = False  # positions changed since the last emitted frame

    def load(self, generation: int, spec: LayoutSpec | None) -> None:
        if spec is not None:  # the layout's own arrays, copied here, off the GUI thread
            # (the scene shows its start positions: the engine moves its copy; copying 1M
            # edges and 100,000 positions took 38 ms of the GUI thread's turn at 100k)
            spec = replace(spec, edges=np.array(spec.edges), positions=np.array(spec.positions))
        self.generation, self.spec = generation, spec
        self.layout = None
        self.announced = True
        self.dirty = False
        if spec is not None and spec.n > 0 and spec.alpha > 0:
            self.layout = _make_layout(spec)
            self.announced = False

    def set_paused(self, paused: bool) -> None:
        self.paused = paused

    def pin(self, i: int, x: float, y: float, heat: float | None) -> None:
        self._edit(lambda lay: _if_node(lay, i, lambda: lay.pin(i, x, y)), heat)

    def unpin(self, i: int, heat: float | None) -> None:
        self._edit(lambda lay: _if_node(lay, i, lambda: lay.unpin(i)), heat)

    def set_params(self, params: Any, heat: float | None) -> None:
        self._edit(lambda lay: (lay.set_params(params), True)[1], heat)

    def reheat(self, alpha: float) -> None:
        self._edit(lambda lay: True, alpha)

    def _edit(self, change: Callable[[Any], bool], heat: float | None) -> None:
        """Apply ``change`` (True when it changed the layout) to the layout, built first if
        need be; nothing without a graph."""
        spec = self.spec
        if spec is None or spec.n <= 0:
            return
        if self.layout is None:
            self.layout = _make_layout(spec)
        lay = self.layout
        if change(lay) and heat is not None:
            lay.reheat(max(heat, lay.alpha))
        self.announced = False

    def running(self) -> bool:
        lay = self.layout
        return lay is not None and not self.paused and not self.announced and not lay.settled()


def _if_node(layout: Any, i: int, change: Callable[[], None]) -> bool:
    if 0 <= i < layout.positions.shape[0]:
        change()
        return True
    return False


class LayoutThread(QThread):
    """Runs ``ForceLayout.tick`` in a loop; see the module docstring."""

    frame = Signal(int, object)  # generation, (n, 2) float64 copy
    settled = Signal(int)  # generation
    failed = Signal(str)

    def __init__(self, max_fps: float = 30.0, parent=None) -> None:
        super().__init__(parent)
        self._commands: queue.SimpleQueue[tuple[Callable[..., None], tuple]] = queue.SimpleQueue()
        self._sim = Simulation()  # touched by the loop only: commands go through the queue
        self._wake = threading.Event()
        self._consumed = threading.Event()
        self._consumed.set()
        self.state = TaskState()  # cancelled by stop()
        self._min_interval = 1.0 / max(1.0, float(max_fps))
        self._last_emit = 0.0
        # hold(): the loop stands still until this time.monotonic() (0: not held)
        self._hold_until = 0.0
        self.ticks = 0  # total ticks run (for tests and benchmarks)
        self.frames = 0  # frames emitted
        self.setObjectName("graphLayoutThread")

    # ---- GUI-side API (any thread) -------------------------------------------------------
    def load(self, generation: int, spec: LayoutSpec | None) -> None:
        self._put(self._sim.load, generation, spec)

    def pin(self, i: int, x: float, y: float, reheat: float | None = 0.3) -> None:
        self._put(self._sim.pin, int(i), float(x), float(y), reheat)

    def unpin(self, i: int, reheat: float | None = 0.3) -> None:
        self._put(self._sim.unpin, int(i), reheat)

    def set_params(self, params: Any, reheat: float | None = 0.3) -> None:
        self._put(self._sim.set_params, params, reheat)

    def reheat(self, alpha: float = 0.3) -> None:
        self._put(self._sim.reheat, float(alpha))

    def set_paused(self, paused: bool) -> None:
        self._put(self._sim.set_paused, bool(paused))

    def hold(self, seconds: float = HOLD_S) -> None:
        """Stand still (no tick, no command) for at most ``seconds``, or until
        :meth:`release`: while the GUI thread opens an entry. Both want the one GIL on two
        shared cores, and the simulation of the graph being left (or the build of the next
        one) slowed a click's panes by ~10 %. A hold that is never released runs out."""
        self._hold_until = time.monotonic() + max(0.0, float(seconds))

    def release(self) -> None:
        self._hold_until = 0.0
        self._wake.set()

    def held(self) -> bool:
        return time.monotonic() < self._hold_until

    def frame_consumed(self) -> None:
        self._consumed.set()
        self._wake.set()

    def stop(self, timeout_ms: int = 5000) -> bool:
        """Ask the loop to end and wait for it; True when the thread is no longer running."""
        self.state.cancel()
        self.requestInterruption()
        self._wake.set()
        if self.isRunning():
            return self.wait(timeout_ms)
        return True

    def _put(self, command: Callable[..., None], *args: Any) -> None:
        self._commands.put((command, args))
        self._wake.set()

    # ---- worker thread -------------------------------------------------------------------
    def run(self) -> None:
        sim = self._sim
        while not self.state.is_cancelled:
            while self.held() and not self.state.is_cancelled:
                time.sleep(0.002)  # the GIL is the GUI's
            self._run_commands()
            if self.state.is_cancelled:
                break
            running = sim.running()
            if running:
                self._tick_for_a_frame(sim)
            self._stream(sim)
            if not running:  # idle: sleep until a command (or the GUI taking a frame)
                self._wake.wait(0.05 if sim.dirty else 0.5)
                self._wake.clear()
            else:
                # leave the GUI thread time to paint (2 shared cores, one GIL)
                time.sleep(0.002)

    def _run_commands(self) -> None:
        while True:
            try:
                command, args = self._commands.get_nowait()
            except queue.Empty:
                return
            try:
                command(*args)
            except Exception as exc:  # a broken engine must not kill the thread silently
                self._fail(exc)

    def _tick_for_a_frame(self, sim: Simulation) -> None:
        """Tick for about half a frame interval, yielding the GIL between ticks."""
        t_end = time.monotonic() + self._min_interval * 0.5
        try:
            while True:
                sim.layout.tick(1)
                self.ticks += 1
                sim.dirty = True
                if sim.layout.settled() or time.monotonic() >= t_end or self.held():
                    break
                time.sleep(0)
        except Exception as exc:
            self._fail(exc)

    def _stream(self, sim: Simulation) -> None:
        """Emit a frame (rate-limited, only once the GUI took the last one), then
        ``settled`` once the layout has cooled and its last frame is out."""
        lay = sim.layout
        cooled = lay is not None and not sim.announced and lay.settled()
        now = time.monotonic()
        if (
            sim.dirty
            and lay is not None
            and self._consumed.is_set()
            and (cooled or now - self._last_emit >= self._min_interval)
        ):
            self._consumed.clear()
            self.frames += 1
            self._last_emit = now
            sim.dirty = False
            self.frame.emit(sim.generation, np.array(lay.positions, dtype=np.float64))
        if cooled and not sim.dirty and not sim.announced:
            sim.announced = True
            self.settled.emit(sim.generation)

    def _fail(self, exc: Exception) -> None:
        self._sim.layout = None
        self.failed.emit(f"{type(exc).__name__}: {exc}")
