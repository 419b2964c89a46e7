"""Which node labels a paint of the graph tries, in the order they claim room."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LabelChoice:
    """The labels one paint may draw, in the order they claim room: ``nodes`` (shown
    indices), their opacity ``alpha`` and whether each is ``forced`` (a highlight's)."""

    nodes: np.ndarray
    alpha: np.ndarray
    forced: np.ndarray
    full: np.ndarray  # shown in full (not elided): zoomed in far enough past the fade-in


class LabelRank:
    """Which node labels come first: hubs first (by degree in the shown graph), the biggest
    hubs in view labelled at any zoom (an overview of a big vault gets its landmarks, not
    one nameless blob), the rest fading in with the zoom, a highlight's labels before all.
    The grid that keeps them apart is :func:`anthology.graph.drawing.claim`, at paint."""

    HUB_LABELS = 12  # hubs labelled at any zoom
    MAX_LABELS = 200  # labels one paint considers
    FULL_AT = 2.2  # a label is shown in full this far past its fade-in threshold

    def __init__(self, degree: np.ndarray | None = None) -> None:
        deg = np.asarray(degree if degree is not None else np.zeros(0), dtype=np.float64)
        self.weight = 1.0 + 0.75 * np.log2(1.0 + deg)  # >= 1: hubs pass the threshold first
        self.order = np.argsort(-deg, kind="stable")
        linked = deg[deg > 0]
        floor = max(4.0, 4.0 * float(np.median(linked))) if len(linked) else np.inf
        # far above the usual degree, by degree
        self.hubs = self.order[deg[self.order] >= floor][: 4 * self.HUB_LABELS]

    def alpha(self, zoom: float, threshold: float) -> np.ndarray:
        """Opacity of every label at ``zoom``: 0 below ``threshold``, ramping up to 1."""
        t = threshold
        return np.clip((zoom * self.weight - t) / (0.6 * t), 0.0, 1.0)

    def choose(
        self, visible: np.ndarray, zoom: float, threshold: float, forced: np.ndarray
    ) -> LabelChoice:
        """The labels to try, in order, of the nodes ``visible`` (a mask) at ``zoom``;
        ``forced``: shown indices drawn whatever the zoom (a hover's, a search's)."""
        n = len(visible)
        alpha = self.alpha(zoom, threshold)
        hubs = self.hubs[self.hubs < n]
        hubs = hubs[visible[hubs]][: self.HUB_LABELS]
        if len(hubs):
            alpha[hubs] = np.maximum(alpha[hubs], 0.9)
        forced = forced[(forced >= 0) & (forced < n)]
        is_forced = np.zeros(n, dtype=bool)
        is_forced[forced] = True
        order = self.order[(visible & ((alpha > 0.02) | is_forced))[self.order]]
        if len(forced):
            order = np.concatenate([forced[visible[forced]], order[~is_forced[order]]])
        order = order[: self.MAX_LABELS]
        full = zoom * self.weight[order] >= self.FULL_AT * threshold
        return LabelChoice(order, alpha[order], is_forced[order], full)
