"""The graph by keyboard: a focus that walks along the links.

Keys (on the graph canvas):

* ←/→/↑/↓ move the focus to the neighbour of the focused node that lies in that direction
  on screen (within 67.5° of it, the nearest and best aligned first); with no neighbour
  there, to the nearest shown node in that direction. The first arrow puts the focus on
  the current entry (or the node nearest the middle of the view).
* Tab / Shift+Tab cycle through the neighbours of the node the cycle started from, clockwise
  / anticlockwise (an arrow starts a new cycle from where the focus lands).
* Enter opens the focused entry; Esc clears the focus (and, with none, the node search).
* Shift+arrows pan, + / − zoom, 0 / Home fit (what the arrows did before).

The focused node is highlighted as a hover is (its neighbourhood drawn at full strength, its
title in the tooltip) and the view glides to keep it in sight. The module only decides which
node: :class:`GraphKeys` asks its host (the view) through :class:`KeyHost`.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent

__all__ = ["GraphKeys", "KeyHost", "step_towards"]

CONE = math.radians(67.5)
# screen directions (device px: y grows downwards)
DIRECTIONS = {
    Qt.Key.Key_Left: (-1.0, 0.0),
    Qt.Key.Key_Right: (1.0, 0.0),
    Qt.Key.Key_Up: (0.0, -1.0),
    Qt.Key.Key_Down: (0.0, 1.0),
}


class KeyHost(Protocol):
    """What the keys need of the view (indices are into the shown nodes)."""

    def key_device_positions(self) -> np.ndarray: ...  # (n, 2) device px

    def key_neighbours(self, j: int) -> np.ndarray: ...

    def key_start(self) -> int: ...  # current entry's index, else nearest the middle; -1

    def key_focus(self, j: int) -> None: ...  # -1 clears

    def key_open(self, j: int) -> None: ...

    def key_clear(self) -> bool: ...  # with no focus: clear the search; True if it did

    def key_pan_zoom(self, event: QKeyEvent) -> bool: ...


def step_towards(
    d: np.ndarray, origin: int, candidates: np.ndarray, direction: tuple[float, float]
) -> int:
    """The candidate in ``direction`` from ``origin`` (all device px), or -1: within the cone,
    the lowest distance × (1 + 2·(1 − cos angle)), so a well aligned node beats a near one
    off to the side."""
    candidates = np.asarray(candidates, dtype=np.int64)
    candidates = candidates[candidates != origin]
    if len(candidates) == 0:
        return -1
    v = d[candidates] - d[origin]
    dist = np.hypot(v[:, 0], v[:, 1])
    ok = np.isfinite(dist) & (dist > 1e-9)
    cos = (v[:, 0] * direction[0] + v[:, 1] * direction[1]) / np.maximum(dist, 1e-9)
    ok &= cos >= math.cos(CONE)
    if not ok.any():
        return -1
    score = np.where(ok, dist * (1.0 + 2.0 * (1.0 - cos)), np.inf)
    return int(candidates[int(np.argmin(score))])


class GraphKeys:
    """The keyboard focus of one graph view."""

    def __init__(self, host: KeyHost) -> None:
        self.host = host
        self.focus = -1
        self._anchor = -1  # the node whose neighbours Tab cycles
        self._ring: list[int] = []

    def reset(self) -> None:
        """The shown graph changed: indices no longer mean the same nodes."""
        self.focus = -1
        self._anchor = -1
        self._ring = []

    def handle(self, event: QKeyEvent) -> bool:
        """True when ``event`` was a graph key (and was acted on)."""
        key = event.key()
        mods = event.modifiers()
        shift = bool(mods & Qt.KeyboardModifier.ShiftModifier)
        if key in DIRECTIONS and not shift:
            self._arrow(DIRECTIONS[Qt.Key(key)])
            return True
        if key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
            self._tab(-1 if key == Qt.Key.Key_Backtab or shift else 1)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if self.focus >= 0:
                self.host.key_open(self.focus)
                return True
            return False
        if key == Qt.Key.Key_Escape:
            if self.focus >= 0:
                self._set(-1)
                self._anchor, self._ring = -1, []
                return True
            return self.host.key_clear()
        return self.host.key_pan_zoom(event)

    # ---- moves -------------------------------------------------------------------------------
    def _set(self, j: int) -> None:
        self.focus = j
        self.host.key_focus(j)

    def _arrow(self, direction: tuple[float, float]) -> None:
        self._anchor, self._ring = -1, []
        d = self.host.key_device_positions()
        n = len(d)
        if not (0 <= self.focus < n):
            self._set(self.host.key_start())
            return
        j = step_towards(d, self.focus, self.host.key_neighbours(self.focus), direction)
        if j < 0:
            j = step_towards(d, self.focus, np.arange(n), direction)
        if j >= 0:
            self._set(j)

    def _tab(self, step: int) -> None:
        d = self.host.key_device_positions()
        n = len(d)
        if not (0 <= self._anchor < n) or not self._ring:
            anchor = self.focus if 0 <= self.focus < n else self.host.key_start()
            if anchor < 0:
                return
            nbr = np.unique(self.host.key_neighbours(anchor))
            nbr = nbr[nbr != anchor]
            if len(nbr) == 0:
                self._set(anchor)
                return
            v = d[nbr] - d[anchor]
            # clockwise on screen from 12 o'clock (device y grows downwards)
            angle = np.mod(np.arctan2(v[:, 0], -v[:, 1]), 2 * math.pi)
            self._anchor = anchor
            self._ring = nbr[np.argsort(angle, kind="stable")].tolist()
            self._set(self._ring[0] if step > 0 else self._ring[-1])
            return
        k = self._ring.index(self.focus) if self.focus in self._ring else -1
        self._set(self._ring[(k + step) % len(self._ring)])
