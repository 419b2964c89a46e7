"""The force simulation off the GUI thread.

:class:`LayoutThread` owns one :class:`~anthology.layout.force_layout.ForceLayout` at a
time and ticks it in a plain loop.  The GUI talks to it only through a thread-safe command
queue (:meth:`load`, :meth:`pin`, :meth:`unpin`, :meth:`set_params`, :meth:`reheat`,
:meth:`set_paused`) and hears back through two queued signals: ``frame(generation, positions)``
at most ``max_fps`` times a second (a numpy copy; never the live array) and
``settled(generation)`` once each time the simulation cools.  It never touches a widget.

Back-pressure: a new frame is only emitted once the GUI has taken the previous one
(:meth:`frame_consumed`), so a slow GUI drops frames instead of queueing them.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import QThread, Signal


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


class LayoutThread(QThread):
    """Runs ``ForceLayout.tick`` in a loop; see the module docstring."""

    frame = Signal(int, object)  # generation, (n, 2) float64 copy
    settled = Signal(int)  # generation
    failed = Signal(str)

    def __init__(self, max_fps: float = 30.0, parent=None) -> None:
        super().__init__(parent)
        self._commands: queue.SimpleQueue = queue.SimpleQueue()
        self._wake = threading.Event()
        self._consumed = threading.Event()
        self._consumed.set()
        self._stop = threading.Event()
        self._min_interval = 1.0 / max(1.0, float(max_fps))
        self.ticks = 0  # total ticks run (for tests and benchmarks)
        self.frames = 0  # frames emitted
        self.setObjectName("graphLayoutThread")

    # ---- GUI-side API (any thread) -------------------------------------------------------
    def load(self, generation: int, spec: LayoutSpec | None) -> None:
        self._put(("load", generation, spec))

    def pin(self, i: int, x: float, y: float, reheat: float | None = 0.3) -> None:
        self._put(("pin", int(i), float(x), float(y), reheat))

    def unpin(self, i: int, reheat: float | None = 0.3) -> None:
        self._put(("unpin", int(i), reheat))

    def set_params(self, params: Any, reheat: float | None = 0.3) -> None:
        self._put(("params", params, reheat))

    def reheat(self, alpha: float = 0.3) -> None:
        self._put(("reheat", float(alpha)))

    def set_paused(self, paused: bool) -> None:
        self._put(("pause", bool(paused)))

    def frame_consumed(self) -> None:
        self._consumed.set()
        self._wake.set()

    def stop(self, timeout_ms: int = 5000) -> bool:
        """Ask the loop to end and wait for it; True when the thread is no longer running."""
        self._stop.set()
        self.requestInterruption()
        self._wake.set()
        if self.isRunning():
            return self.wait(timeout_ms)
        return True

    def _put(self, command: tuple) -> None:
        self._commands.put(command)
        self._wake.set()

    # ---- worker thread -------------------------------------------------------------------
    def run(self) -> None:
        layout = None
        spec: LayoutSpec | None = None
        generation = -1
        paused = False
        announced = True  # settled() already emitted for this heating
        dirty = False  # positions changed since the last emitted frame
        last_emit = 0.0
        pending: list[tuple] = []  # pin/params/reheat waiting for a lazily-built layout

        def ensure_layout():
            nonlocal layout
            if layout is None and spec is not None and spec.n > 0:
                layout = _make_layout(spec)
                for cmd in pending:
                    apply(cmd)
                pending.clear()
            return layout

        def apply(cmd: tuple) -> None:
            nonlocal announced
            kind = cmd[0]
            lay = layout
            if kind == "pin":
                _, i, x, y, heat = cmd
                if 0 <= i < lay.positions.shape[0]:
                    lay.pin(i, x, y)
                    if heat is not None:
                        lay.reheat(max(heat, lay.alpha))
            elif kind == "unpin":
                _, i, heat = cmd
                if 0 <= i < lay.positions.shape[0]:
                    lay.unpin(i)
                    if heat is not None:
                        lay.reheat(max(heat, lay.alpha))
            elif kind == "params":
                _, params, heat = cmd
                lay.set_params(params)
                if heat is not None:
                    lay.reheat(max(heat, lay.alpha))
            elif kind == "reheat":
                lay.reheat(max(cmd[1], lay.alpha))
            announced = False

        while not self._stop.is_set():
            # 1. commands
            while True:
                try:
                    cmd = self._commands.get_nowait()
                except queue.Empty:
                    break
                kind = cmd[0]
                try:
                    if kind == "load":
                        generation, spec = cmd[1], cmd[2]
                        layout = None
                        pending.clear()
                        announced = True
                        dirty = False
                        if spec is not None and spec.n > 0 and spec.alpha > 0:
                            ensure_layout()
                            announced = False
                    elif kind == "pause":
                        paused = cmd[1]
                    elif spec is not None and spec.n > 0:
                        if layout is None:
                            pending.append(cmd)
                            ensure_layout()
                        else:
                            apply(cmd)
                except Exception as exc:  # a broken engine must not kill the thread silently
                    layout = None
                    self.failed.emit(f"{type(exc).__name__}: {exc}")
            if self._stop.is_set():
                break

            running = layout is not None and not paused and not announced and not layout.settled()
            now = time.monotonic()
            if running:
                # 2. tick for roughly one frame interval, yielding the GIL between ticks
                t_end = now + self._min_interval * 0.5
                try:
                    while True:
                        layout.tick(1)
                        self.ticks += 1
                        dirty = True
                        if layout.settled() or time.monotonic() >= t_end:
                            break
                        time.sleep(0)
                except Exception as exc:
                    layout = None
                    self.failed.emit(f"{type(exc).__name__}: {exc}")
                    continue
            cooled = layout is not None and not announced and layout.settled()

            # 3. stream a frame (rate-limited, only when the GUI took the last one)
            now = time.monotonic()
            if (
                dirty
                and layout is not None
                and self._consumed.is_set()
                and (cooled or now - last_emit >= self._min_interval)
            ):
                self._consumed.clear()
                self.frames += 1
                last_emit = now
                dirty = False
                self.frame.emit(generation, np.array(layout.positions, dtype=np.float64))
            if cooled and not dirty and not announced:
                announced = True
                self.settled.emit(generation)

            # 4. idle: sleep until a command (or the GUI taking a frame) wakes us
            if not running:
                self._wake.wait(0.05 if dirty else 0.5)
                self._wake.clear()
            else:
                # leave the GUI thread time to paint (2 shared cores, one GIL)
                time.sleep(0.002)
