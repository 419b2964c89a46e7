"""The graph view's state, free of Qt: what is shown where, and how it is marked.

A :class:`GraphScene` holds one vault's graph as the reader sees it: the global positions,
the pins, the visited trail, the Shift+click selection, the shown graph (global, or the
local graph of one or several centres) and its display positions, each node's size per zoom
step and its colour group, the highlight (hover, a path, the node search) and the marks laid
over the nodes. The Qt view (:mod:`anthology.ui.graph.graph_view`) asks it what to draw and
tells it what the reader did; its colours are named by role (``"accent"``, ``"trail"``, …)
and resolved against :mod:`anthology.palette` only when drawn. :meth:`GraphScene.drawing` is
the snapshot both exports paint.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from anthology.graph.drawing import Drawing, Rgba, finite_positions
from anthology.graph.groups import (
    base_mode,
    colour_nodes,
    groups_from_settings,
)
from anthology.graph.labels import LabelChoice, LabelRank
from anthology.graph.model import (
    Filters,
    ShownGraph,
    ShownGraphs,
    adjacency,
    match_nodes,
    sanitize_graph,
    take_data,
)
from anthology.graph.paths import LinkPath, PathFinder
from anthology.graph.scene_prep import (
    kind_counts,
    node_index,
    relation_codes,
    title_labels,
)
from anthology.graph.settings import MENTION, defaults
from anthology.layout.force_layout import ForceParams
from anthology.layout.placement import place_missing
from anthology.palette import theme as palette_theme
from anthology.vault.graph_data import GraphData
from anthology.vault.shown import plain_text

__all__ = [
    "LABEL_CHARS",
    "POSITION_LIMIT",
    "TRAIL_LENGTH",
    "ZOOM_STEP",
    "GraphScene",
    "Highlight",
    "LabelChoice",
    "LabelRank",
    "LayoutStart",
    "Mark",
    "clean_positions",
    "elide",
    "rgba",
]

TRAIL_LENGTH = 12
POSITION_LIMIT = 1.0e6
ZOOM_STEP = 2**0.25  # nodes grow (gently) with the zoom, in steps: the sprite atlas stays small
MARKS_MAX_MATCHES = 500  # search matches ringed at most (a broad query matches thousands)
# Past this many nodes shown, a graph whose nodes all have places is drawn there, not moved
# again: a live reload that changed a link, or a local graph that is most of the vault (a
# hub's, 99,901 of 100,000 notes). Each frame of a 100,000-node layout held the GUI thread
# ~0.1 s (every node painted), for the 8-13 s a settle took on two cores, after one edit.
# A node new to such a graph is placed beside its neighbours. (The multilevel start takes
# over at the same size, layout.multilevel.MULTILEVEL_MIN_N.)
SETTLE_LIMIT = 20_000


GREY: Rgba = (136, 136, 136, 255)  # a group colour that is not one (the settings are text)
LABEL_CHARS = 28


def rgba(colour: str) -> Rgba:
    """A colour, ``#rgb``, ``#rrggbb`` or ``#rrggbbaa`` (the palette's), as an RGBA tuple;
    anything else grey."""
    h = str(colour).strip().lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    try:
        if len(h) not in (6, 8):
            raise ValueError(colour)
        r, g, b = (int(h[k : k + 2], 16) for k in (0, 2, 4))
        return (r, g, b, int(h[6:8], 16) if len(h) == 8 else 255)
    except ValueError:
        return GREY


def elide(text: str, limit: int = LABEL_CHARS) -> str:
    """Long titles make unreadable labels: cut at a word boundary and add an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-–—") + "…"


def clean_positions(arr: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Non-finite rows replaced by ``fallback`` (or the centroid), everything clamped."""
    arr = np.array(arr, dtype=np.float64, copy=True)
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        fb = fallback[bad] if len(fallback) == len(arr) else np.full((bad.sum(), 2), np.nan)
        fb_bad = ~np.isfinite(fb).all(axis=1)
        if fb_bad.any():
            good = arr[~bad]
            fb[fb_bad] = good.mean(axis=0) if len(good) else 0.0
        arr[bad] = fb
    np.clip(arr, -POSITION_LIMIT, POSITION_LIMIT, out=arr)
    return arr


def _links_changed(moved: np.ndarray, old: np.ndarray, new: np.ndarray, n: int) -> bool:
    """Whether the links between nodes differ (each pair once, as :func:`sanitize_graph`
    leaves them): ``old``'s pairs through ``moved`` (old node → new, -1 gone) against
    ``new``'s, as numbers. Past 200,000 links not compared (a new position decides)."""
    if len(old) >= 200_000:
        return False
    if len(old) != len(new):
        return True
    if not len(old):
        return False
    ends = moved[old]
    if (ends < 0).any():
        return True
    return not np.array_equal(
        np.sort(ends[:, 0] * n + ends[:, 1]), np.sort(new[:, 0] * n + new[:, 1])
    )


class Mark(NamedTuple):
    """A ring or square laid over shown node ``node``: ``role`` names its colour in the
    theme's graph colours (``accent``, ``trail``, ``pin``, ``search``, ``text``), ``alpha``
    overrides that colour's opacity (None: as the theme has it)."""

    node: int
    role: str
    width: float  # pen width, px
    extra: float  # px added to the node's diameter
    symbol: str  # "o" a ring, "s" a square
    alpha: float | None = None


@dataclass
class Highlight:
    """What is drawn at full strength, the rest dimmed: ``kind`` is ``"hover"``,
    ``"path"``, ``"search"`` or ``""`` (nothing highlighted)."""

    kind: str = ""
    nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    edges: np.ndarray | None = None  # shown edge indices drawn strong (None: no edge)


@dataclass
class LayoutStart:
    """What a rebuild hands the simulation: the shown graph's start, pins and heat."""

    edges: np.ndarray
    positions: np.ndarray
    pins: tuple[tuple[int, float, float], ...]
    alpha: float
    centres: int  # how many local centres are in the graph


_EMPTY = GraphData([], [], [], [], np.zeros((0, 2)), [])


class GraphScene:
    """One vault's graph as shown; see the module docstring."""

    def __init__(self) -> None:
        self.settings: dict[str, Any] = defaults()
        self.theme = "dark"
        self.data = sanitize_graph(_EMPTY)
        self.index: dict[str, int] = {}
        self.gpos = np.zeros((0, 2))  # global layout coordinates (NaN: not placed yet)
        self.current: str | None = None
        self.local_centre: str | None = None
        self.trail: list[str] = []
        self.pins: dict[str, tuple[float, float]] = {}
        self.selection: list[str] = []  # Shift+clicked nodes (ids), in the order chosen
        self.selection_centres: list[str] = []  # the local graph of a selection, when shown
        self.shown_graphs = ShownGraphs()  # the last local graphs, found again on a revisit
        self.shown_graph = ShownGraph(
            np.zeros(0, np.int64), np.zeros((0, 2), np.int64), np.zeros(0, np.int64)
        )
        self.dpos = np.zeros((0, 2))  # display positions of the shown nodes
        self.base_sizes = np.zeros(0)  # px diameters at zoom step 0
        self.sizes = np.zeros(0)  # px diameters at the zoom step in effect
        self.zoom_step = 0
        self.colour_index = np.zeros(0, dtype=np.int64)  # per shown node, into node_colours
        self.node_colours: list[str] = []  # [node, ghost, *groups]
        self.groups: list[tuple[str, str]] = []  # (name, colour) of the colour groups
        self.edge_group = np.zeros(0, dtype=np.int64)  # per shown edge, into edge_colours
        self.relation_names: list[str] = []  # typed relations, most used first
        self.rel_group_full = np.zeros(0, dtype=np.int64)
        self.relations_arr = np.empty(0, dtype=object)
        self.hover = -1
        self.highlight = Highlight()
        self.search = ""
        self.search_hits = np.zeros(0, dtype=np.int64)
        self.path: LinkPath | None = None
        self.marks: list[Mark] = []
        self._canvas_key: tuple[int, int, int] | None = None
        self._canvas_found: list[int] = []
        self.dragging = -1
        self.generation = 0
        self.changed = False  # the last load changed the graph (a live reload settles it)
        # (the local centres, the shown positions by id) of a local graph before a reload
        self._local_seed: tuple[tuple[str, ...], dict[str, tuple[float, float]]] | None = None
        self._paths: PathFinder | None = None
        self._csr_made: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    # ---- the shown graph ------------------------------------------------------------------
    @property
    def shown(self) -> np.ndarray:
        return self.shown_graph.nodes

    @property
    def sub_edges(self) -> np.ndarray:
        return self.shown_graph.edges

    @property
    def sub_edge_ids(self) -> np.ndarray:
        return self.shown_graph.edge_ids

    @property
    def local(self) -> bool:
        return bool(self.settings["local"])

    def id_of(self, j: int) -> str | None:
        if 0 <= j < len(self.shown):
            return self.data.ids[int(self.shown[j])]
        return None

    def is_ghost(self, j: int) -> bool:
        return bool(self.data.ghost[self.shown[j]]) if 0 <= j < len(self.shown) else True

    def local_index(self, entry_id: str | None) -> int:
        """Where ``entry_id`` is among the shown nodes (-1: not shown)."""
        i = self.index.get(entry_id) if entry_id is not None else None
        if i is None:
            return -1
        j = int(np.searchsorted(self.shown, i))  # shown graphs keep their nodes sorted
        return j if j < len(self.shown) and self.shown[j] == i else -1

    def shown_ids(self) -> list[str]:
        return [self.data.ids[i] for i in self.shown.tolist()]

    def shown_edges(self) -> list[tuple[str, str]]:
        ids, shown = self.data.ids, self.shown
        return [(ids[shown[a]], ids[shown[b]]) for a, b in self.sub_edges.tolist()]

    def position_of(self, entry_id: str) -> tuple[float, float] | None:
        """Where ``entry_id`` is drawn, in layout coordinates (None: not shown)."""
        j = self.local_index(entry_id)
        if j < 0:
            return None
        x, y = self.dpos[j]
        return float(x), float(y)

    def positions(self) -> dict[str, tuple[float, float]]:
        """Global layout coordinates of every placed node (for the index to persist)."""
        out: dict[str, tuple[float, float]] = {}
        ok = np.isfinite(self.gpos).all(axis=1)
        for i in np.flatnonzero(ok).tolist():
            out[self.data.ids[i]] = (float(self.gpos[i, 0]), float(self.gpos[i, 1]))
        return out

    @property
    def csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The shown graph's adjacency (:func:`adjacency`), made on first use: hover and
        the arrow keys need it, a click that rebuilds the local graph does not (4-8 ms at
        10,000 nodes)."""
        if self._csr_made is None:
            self._csr_made = adjacency(len(self.shown), self.sub_edges)
        return self._csr_made

    def neighbours(self, j: int) -> np.ndarray:
        indptr, nbr, _eid = self.csr
        return nbr[indptr[j] : indptr[j + 1]] if 0 <= j < len(self.shown) else nbr[:0]

    def nearest(self, x: float, y: float) -> int:
        """The shown node nearest ``(x, y)`` (-1: none shown)."""
        if len(self.dpos) == 0:
            return -1
        return int(np.argmin(np.hypot(self.dpos[:, 0] - x, self.dpos[:, 1] - y)))

    # ---- loading a graph ------------------------------------------------------------------
    def forget_vault(self) -> None:
        """A new vault: pins, trail, selection, current entry and node search belong to the
        old one (a search left behind greyed out the whole new graph)."""
        self.pins.clear()
        self.trail.clear()
        self.selection.clear()
        self.selection_centres = []
        self.current = self.local_centre = None
        self.search = ""
        self.search_hits = np.zeros(0, dtype=np.int64)

    def load(
        self,
        data: GraphData,
        positions: Mapping[str, Sequence[float]] | np.ndarray | None,
        pinned: Iterable[str],
        keep: bool,
    ) -> bool:
        """Replace the graph. With ``keep`` (the same vault) the positions of nodes already
        known are kept (a live reload only settles what changed); ``positions`` fill in the
        rest, and the ids in ``pinned`` among them are pinned there. True when the graph
        was empty before (the view then fits)."""
        old_ids, old_pos = self.data.ids, self.gpos
        # A local graph is laid out apart from the global one: a reload (the same vault)
        # starts its rebuild where its nodes were shown, not from their global places.
        self._local_seed = (
            (tuple(self.local_centres()),
             {old_ids[i]: (float(x), float(y)) for i, (x, y) in zip(
                 self.shown.tolist(), self.dpos.tolist(), strict=True)})
            if keep and self.local and len(self.shown) == len(self.dpos)
            else None
        )  # fmt: skip
        old_edges = self.data.edges
        data = sanitize_graph(data)
        n = data.n
        index = node_index(data)
        # where each old node is in the new graph (-1: gone): what is kept, and whether the
        # links changed, compared as numbers (sets of id pairs and a dict of the old ids
        # held the GUI thread ~0.2 s as a 50,000-note vault's build ended)
        moved = (
            np.fromiter(map(index.get, old_ids, itertools.repeat(-1)), np.int64, len(old_ids))
            if keep and len(old_ids)
            else np.zeros(0, dtype=np.int64)
        )
        pos = np.full((n, 2), np.nan)
        if isinstance(positions, np.ndarray):  # in data's order (graph.model.place_array)
            if positions.shape == (n, 2):
                pos[:] = positions
        elif positions:
            for node_id, xy in positions.items():
                i = index.get(node_id)
                if i is None:
                    continue
                with contextlib.suppress(TypeError, ValueError, IndexError):
                    pos[i] = (float(xy[0]), float(xy[1]))
        if len(moved):
            jj = np.flatnonzero(moved >= 0)
            ii = moved[jj]
            fresh = np.isfinite(old_pos[jj]).all(axis=1)
            pos[ii[fresh]] = old_pos[jj[fresh]]
        pos[~np.isfinite(pos).all(axis=1)] = np.nan
        np.clip(pos, -POSITION_LIMIT, POSITION_LIMIT, out=pos)
        self.changed = bool(
            (~np.isfinite(pos).all(axis=1)).any()
            or (len(moved) and _links_changed(moved, old_edges, data.edges, n))
        )
        self.data = data
        self.relations_arr, self.rel_group_full, self.relation_names = relation_codes(data)
        self.index = index
        self.gpos = pos
        self.pins = {k: v for k, v in self.pins.items() if k in index}
        for node_id in pinned:
            i = index.get(node_id)
            if i is not None and np.isfinite(pos[i]).all():
                self.pins[node_id] = (float(pos[i, 0]), float(pos[i, 1]))
        self.trail = [k for k in self.trail if k in index]
        if self.current not in index:
            self.current = None
        if self.local_centre not in index:
            self.local_centre = self.current
        self._paths = None  # the path finder's graphs belong to the old data
        self.path = None
        self.selection = [k for k in self.selection if k in index]
        self.selection_centres = [k for k in self.selection_centres if k in index]
        return not len(old_ids)

    def kinds(self) -> list[str]:
        """Every kind of a real entry, most used first ("(none)" included: the filter lists
        it; :func:`~anthology.graph.groups.kind_order` leaves it out)."""
        return list(kind_counts(self.data))

    def relation_filter_names(self) -> list[str]:
        return [MENTION, *self.relation_names]

    def colour_mode(self) -> str:
        """The base colouring in effect ("auto" resolved)."""
        return base_mode(self.data, str(self.settings["color_by"]))

    # ---- following the reader ----------------------------------------------------------------
    def follow(self, entry_id: str | None, force: bool = False) -> bool:
        """The entry pane shows ``entry_id``: it becomes current and joins the trail. True
        when the local graph must be rebuilt around it (``force``: even if it is the centre
        already)."""
        if entry_id is not None and entry_id not in self.index:
            entry_id = None
        self.current = entry_id
        if entry_id is not None:
            if entry_id in self.trail:
                self.trail.remove(entry_id)
            self.trail.append(entry_id)
            del self.trail[:-TRAIL_LENGTH]
        if self.local and (entry_id != self.local_centre or force or self.selection_centres):
            self.local_centre = entry_id
            self.selection_centres = []  # the local graph follows the reader again
            return True
        return False

    def local_centres(self) -> list[str]:
        """What the local graph is the neighbourhood of: a selection's nodes when its
        neighbourhood was asked for, else the one centre (the current entry)."""
        if self.selection_centres:
            return list(self.selection_centres)
        return [self.local_centre] if self.local_centre else []

    def set_selection(self, ids: Iterable[str]) -> None:
        self.selection = [k for k in dict.fromkeys(ids) if k in self.index]

    def toggle_selected(self, entry_id: str) -> None:
        if entry_id in self.selection:
            self.selection.remove(entry_id)
        elif entry_id in self.index:
            self.selection.append(entry_id)

    def pin(self, entry_id: str, x: float, y: float) -> int | None:
        """Fix ``entry_id`` at ``(x, y)``; its shown index (None: unknown, -1: not shown)."""
        i = self.index.get(entry_id)
        if i is None:
            return None
        x = float(np.clip(x, -POSITION_LIMIT, POSITION_LIMIT))
        y = float(np.clip(y, -POSITION_LIMIT, POSITION_LIMIT))
        self.pins[entry_id] = (x, y)
        if not self.local:
            self.gpos[i] = (x, y)
        j = self.local_index(entry_id)
        if j >= 0:
            pos = self.dpos.copy()
            pos[j] = (x, y)
            self.set_display_positions(pos)
        return j

    def unpin(self, entry_id: str) -> int | None:
        """Free ``entry_id``; its shown index (None: it was not pinned, -1: not shown)."""
        if self.pins.pop(entry_id, None) is None:
            return None
        return self.local_index(entry_id)

    def path_finder(self) -> PathFinder:
        """The shortest-path model of the loaded graph (its networkx graphs built once)."""
        if self._paths is None:
            self._paths = PathFinder(self.data)
        return self._paths

    def set_path(self, path: LinkPath | None) -> bool:
        """Highlight ``path`` (None clears). True when a node of it is not shown (the view
        then goes back to the global graph)."""
        self.path = path if path is not None and len(path.nodes) > 1 else None
        return self.path is not None and any(
            self.shown_graph.local(self.index.get(k, -1)) < 0 for k in self.path.nodes
        )

    # ---- rebuilding -------------------------------------------------------------------------
    def rebuild(self) -> LayoutStart:
        """Find the shown graph for the mode and the filters and where its nodes start."""
        local = self.local
        centres = [self.index[k] for k in self.local_centres() if k in self.index]
        sg = self.shown_graphs.get(
            self.data,
            Filters.from_settings(self.settings),
            centres if local else None,
            int(self.settings["depth"]),
        )
        self.shown_graph = sg
        shown, sub, remap = sg.nodes, sg.edges, sg.remap
        self._csr_made = None  # made when hover or the keys first ask (not on a click)
        self.hover = -1
        self.highlight = Highlight()

        start = self.gpos[shown] if len(shown) else np.zeros((0, 2))
        seed, self._local_seed = self._local_seed, None
        reloaded = (
            local and seed is not None and seed[0] == tuple(self.local_centres()) and len(shown)
        )
        if reloaded:
            assert seed is not None
            ids = self.data.ids
            start = start.copy()
            for j, i in enumerate(shown.tolist()):
                xy = seed[1].get(ids[i])
                start[j] = xy if xy is not None else (np.nan, np.nan)
        known = np.isfinite(start).all(axis=1)
        start = place_missing(start, sub, float(self.settings["link_distance"]))
        pin_list = []
        for k, (x, y) in self.pins.items():
            j = remap[self.index[k]]
            if j >= 0:
                start[j] = (x, y)
                pin_list.append((int(j), float(x), float(y)))
        self.dpos = start
        if not local and len(shown):
            self.gpos[shown] = start

        big = len(shown) > SETTLE_LIMIT  # placed, not moved again (see SETTLE_LIMIT)
        if len(shown) == 0:
            alpha = 0.0
        elif reloaded and known.all() and not self.changed:
            alpha = 0.0  # the same local graph again: it stays as it stood
        elif reloaded:
            alpha = 0.0 if big else float(np.clip(0.1 + (~known).mean() * 2.0, 0.1, 0.3))
        elif local and big:
            # past the limit: drawn at its global places, or, with none, laid out from
            # nothing as a fresh global graph is (multilevel: 47 -> 17.5 s at 100k, shared CPU)
            alpha = 0.0 if known.all() else 1.0 if not known.any() else 0.6
        elif local:
            alpha = 0.6
        elif not known.any():
            alpha = 1.0
        elif not known.all() or self.changed:
            # a live reload: settle what changed, gently when little did
            alpha = 0.0 if big else float(np.clip(0.1 + (~known).mean() * 2.0, 0.1, 0.3))
        else:
            alpha = 0.0
        self.changed = False
        self.generation += 1
        self.base_sizes = np.zeros(0)  # no zoom restyle while the graph is swapped
        return LayoutStart(sub, start, tuple(pin_list), alpha, len(centres))

    def frame(self, generation: int, arr: Any) -> np.ndarray | None:
        """A simulation frame made usable (non-finite rows fixed, a dragged node held), or
        None when it belongs to an older graph or does not fit this one."""
        if generation != self.generation:
            return None
        arr = np.asarray(arr, dtype=np.float64)
        if arr.shape != self.dpos.shape:
            return None
        arr = clean_positions(arr, self.dpos)
        if self.dragging >= 0:
            arr[self.dragging] = self.dpos[self.dragging]
        return arr

    def set_display_positions(self, pos: np.ndarray) -> None:
        self.dpos = pos
        if not self.local and len(self.shown):
            self.gpos[self.shown] = pos

    def layout_cooled(self) -> None:
        """A simulation cooled. A local graph past :data:`SETTLE_LIMIT` nodes (a hub's:
        most of the vault) lends its places to its nodes that have no global one, so they
        are kept (``positions``) and the next start draws it at once, where it laid out
        100,000 nodes again at every start in local mode."""
        if self.local and len(self.shown) > SETTLE_LIMIT and len(self.dpos) == len(self.shown):
            placeless = ~np.isfinite(self.gpos[self.shown]).all(axis=1)
            self.gpos[self.shown[placeless]] = self.dpos[placeless]

    def force_params(self) -> ForceParams:
        st = self.settings
        ls = st["link_strength"]
        return ForceParams(
            gravity=float(st["center"]),
            repel_strength=float(st["repel"]),
            link_distance=float(st["link_distance"]),
            link_strength=None if ls is None else float(ls),
        )

    # ---- style: sizes, colours, labels ----------------------------------------------------------
    @staticmethod
    def zoom_factor(step: int) -> float:
        # zoomed far out (a big vault's overview) nodes shrink to dots, so that thousands of
        # them show the graph's shape instead of covering each other
        z = ZOOM_STEP**step
        return float(np.clip(z, 0.05, 2.0) ** 0.5)

    @staticmethod
    def zoom_step_of(px_per_unit: float) -> int:
        """The zoom step of a view showing ``px_per_unit`` pixels per layout unit."""
        if not math.isfinite(px_per_unit) or px_per_unit <= 0:
            return 0
        return round(math.log(px_per_unit, ZOOM_STEP))

    def degree(self) -> np.ndarray:
        """Each shown node's degree in the shown graph (what the reader sees linked)."""
        n = len(self.shown)
        if not len(self.sub_edges):
            return np.zeros(n, dtype=np.int64)
        return np.bincount(self.sub_edges.ravel(), minlength=n)

    def restyle(self, zoom_step: int) -> np.ndarray:
        """Sizes, colour groups and edge colours of the shown graph; its degrees (the
        labels' rank: hubs first)."""
        deg = self.degree()
        raw = np.clip(6.0 + 2.0 * np.sqrt(deg), 6.0, 36.0) * float(self.settings["node_size"])
        self.base_sizes = np.round(raw * 2.0) / 2.0  # few distinct sprites
        self.zoom_step = zoom_step
        self.sizes = np.round(self.base_sizes * self.zoom_factor(zoom_step) * 2.0) / 2.0
        g = palette_theme(self.theme).graph
        c = colour_nodes(
            self.data,
            self.shown_graph,
            str(self.settings["color_by"]),
            groups_from_settings(self.settings),
            g.groups,
            str(self.settings.get("group_query", "")),
        )
        self.groups = list(zip(c.names, c.colours, strict=True))
        self.node_colours = [g.node, g.ghost, *c.colours]
        self.colour_index = c.index
        self.edge_group = self.rel_group_full[self.sub_edge_ids]
        self.compute_search()
        return deg

    def edge_colours(self) -> list[Rgba]:
        """Untyped links in the theme's mention colour, each relation in a palette colour."""
        g = palette_theme(self.theme).graph
        pal = g.groups
        typed = [(*rgba(pal[(j + 3) % len(pal)])[:3], 130) for j in range(len(self.relation_names))]
        return [rgba(g.mention), *typed]

    def zoom_to(self, step: int) -> bool:
        """The view's zoom step changed: True when the sizes did."""
        if (
            step == self.zoom_step
            or not len(self.base_sizes)
            or len(self.base_sizes) != len(self.dpos)
        ):
            return False
        f_old = self.zoom_factor(self.zoom_step)
        self.zoom_step = step
        f = self.zoom_factor(step)
        if f == f_old:
            return False
        self.sizes = np.round(self.base_sizes * f * 2.0) / 2.0
        return True

    def label_texts(self) -> list[str]:
        """The shown nodes' label strings (full: placement and elision are the view's):
        titles, the folder added where two shown titles are equal; or the ids."""
        d, by = self.data, self.settings["label_by"]

        def make() -> list[str]:
            shown = self.shown.tolist()
            if by == "title":  # perhaps made by the views' loader (prepare_scene)
                made = take_data(d, "local-titles" if self.local else "global-titles", 0)
                if made is not None and made[0] is self.shown_graph:
                    return list(made[1])
                return title_labels(d, self.shown_graph)
            return [plain_text(d.ids[i]) for i in shown]  # no bidi override turns it round

        return self.shown_graphs.derived(self.shown_graph, "labels", by, make)

    def relations(self) -> np.ndarray:
        """The shown edges' relation names (None: a mention), drawn on them zoomed in."""
        return self.relations_arr[self.sub_edge_ids]

    def legend_relations(self) -> list[tuple[str, int]]:
        """(name, edge colour index) of the relations the shown edges use (at most 8), then
        the mentions when there is anything else to tell them from."""
        g = self.edge_group  # small codes (0: mentions): counted, not np.unique's sort
        present = set(np.flatnonzero(np.bincount(g)).tolist()) if len(g) else set()
        out = [(name, j + 1) for j, name in enumerate(self.relation_names[:8]) if j + 1 in present]
        if (self.groups or out) and 0 in present:
            out.append((MENTION, 0))
        return out

    def legend_marks(self) -> list[str]:
        """The marks in use, as the legend names them."""
        out = []
        if self.current is not None:
            out.append("current")
        if len(self.trail) > 1:
            out.append("trail")
        if self.pins:
            out.append("pin")
        if self.search:
            out.append("match")
        if self.canvas_nodes():
            out.append("canvas")
        return out

    # ---- hover, search, paths: the highlight -------------------------------------------------
    def set_search(self, text: str) -> None:
        self.search = text.strip().lower()
        self.compute_search()

    def compute_search(self) -> None:
        """Shown-node indices matching the search, in search's query language."""
        self.search_hits = (
            match_nodes(self.data, self.search, self.shown)
            if self.search
            else np.zeros(0, np.int64)
        )

    def search_matches(self) -> list[str]:
        return [self.data.ids[self.shown[i]] for i in self.search_hits.tolist()]

    def set_hover(self, j: int) -> str:
        """The pointer is over shown node ``j`` (-1: none); its tooltip text."""
        self.hover = j if 0 <= j < len(self.shown) else -1
        entry_id = self.id_of(self.hover)
        if entry_id is None:
            return ""
        title = self.data.titles[int(self.shown[self.hover])]
        return entry_id if title == entry_id else f"{entry_id} — {title}"

    def update_highlight(self) -> Highlight:
        """Hover (a node and its neighbours) wins over a path, a path over the search."""
        if self.hover >= 0:
            h = self.hover
            indptr, nbr, eid = self.csr
            hl = np.unique(np.concatenate([[h], nbr[indptr[h] : indptr[h + 1]]]))
            inc = np.unique(eid[indptr[h] : indptr[h + 1]])
            self.highlight = Highlight("hover", hl.astype(np.int64), inc)
        elif self.path is not None:
            hl, inc = self.path_items(self.path)
            self.highlight = Highlight("path", hl, inc)
        elif self.search:
            self.highlight = Highlight("search", self.search_hits)
        else:
            self.highlight = Highlight()
        return self.highlight

    def highlighted_ids(self) -> set[str]:
        return {self.data.ids[int(self.shown[j])] for j in self.highlight.nodes.tolist()}

    def path_items(self, path: LinkPath) -> tuple[np.ndarray, np.ndarray]:
        """(shown node indices, shown edge indices) of ``path``'s entries and links."""
        sg = self.shown_graph
        nodes = [sg.local(self.index.get(k, -1)) for k in path.nodes]
        hl = np.array(sorted({j for j in nodes if j >= 0}), dtype=np.int64)
        local = {k: sg.local(self.index.get(k, -1)) for k in path.nodes}
        # the links each hop went over, as they are written (not their reverse, if any)
        want = {(local[a], local[b]) for a, b in path.edges()}
        inc = [k for k, (a, b) in enumerate(self.sub_edges.tolist()) if (a, b) in want]
        return hl, np.asarray(inc, dtype=np.int64)

    def highlighted_edges(self) -> list[tuple[str, str]]:
        """The shown links drawn at full strength by a shown path (not while hovering)."""
        if self.path is None or self.hover >= 0:
            return []
        _hl, inc = self.path_items(self.path)
        ids, shown = self.data.ids, self.shown
        return [(ids[shown[a]], ids[shown[b]]) for a, b in self.sub_edges[inc].tolist()]

    # ---- marks --------------------------------------------------------------------------------
    def update_marks(self) -> list[Mark]:
        """Rings: current entry (accent, thick), visited trail (fading), pins, search hits,
        the selection. Each mark its own colour *and* shape, so they read apart in both
        themes and where they meet on one node: a search match a double-width ring close to
        the node, a pin a square, the trail a thin ring fading with age, the current entry
        a thick ring furthest out."""
        remap = (
            {self.data.ids[i]: j for j, i in enumerate(self.shown.tolist())}
            if len(self.shown) < 5000
            else None
        )

        def local_index(entry_id: str) -> int:
            return remap.get(entry_id, -1) if remap is not None else self.local_index(entry_id)

        spots: list[Mark] = []
        if self.search and self.hover < 0:
            for j in self.search_hits[:MARKS_MAX_MATCHES].tolist():
                spots.append(Mark(j, "search", 2.5, 5.0, "o"))
        for k in self.selection:  # Shift+click selection: a wide ring in the text colour
            j = local_index(k)
            if j >= 0:
                spots.append(Mark(j, "text", 2.0, 14.0, "o"))
        for k in self.pins:
            j = local_index(k)
            if j >= 0:
                spots.append(Mark(j, "pin", 2.0, 8.0, "s"))
        trail = [k for k in self.trail if k != self.current]
        for age, k in enumerate(reversed(trail)):
            j = local_index(k)
            if j >= 0:
                spots.append(Mark(j, "trail", 1.5, 10.0, "o", max(0.25, 0.75 - 0.06 * age)))
        if self.current is not None:
            j = local_index(self.current)
            if j >= 0:
                spots.append(Mark(j, "accent", 3.0, 12.0, "o"))
        # a canvas (issue 32): a diamond of its own around the node, under the other marks
        spots[:0] = [Mark(j, "text", 1.5, 9.0, "d", 0.7) for j in self.canvas_nodes()]
        self.marks = spots if len(self.dpos) else []
        return self.marks

    def canvas_nodes(self) -> list[int]:
        """The shown nodes that are canvases (kind ``canvas``), found once per shown graph."""
        key = (id(self.shown), len(self.shown), id(self.data))
        if self._canvas_key != key:
            kinds = self.data.kinds
            self._canvas_key = key
            self._canvas_found = [j for j, i in enumerate(self.shown.tolist())
                                  if kinds[i] == "canvas"]  # fmt: skip
        return self._canvas_found

    def mark_rgba(self, mark: Mark) -> Rgba:
        """A mark's colour in the scene's theme."""
        c = rgba(getattr(palette_theme(self.theme).graph, mark.role))
        return c if mark.alpha is None else (*c[:3], round(mark.alpha * 255))

    def marks_of(self, entry_id: str) -> list[Mark]:
        """The marks laid over ``entry_id`` (tests and hosts ask)."""
        j = self.local_index(entry_id)
        return [m for m in self.marks if m.node == j] if j >= 0 else []

    # ---- the export's snapshot --------------------------------------------------------------
    def drawing(self, title: str = "graph") -> Drawing:
        """A plain snapshot of every node and edge shown (after the filters and the mode):
        what the PNG and SVG exports paint, whatever the zoom, caches or hover."""
        g = palette_theme(self.theme).graph
        n = len(self.shown)
        ids = self.shown_ids()
        base = self.base_sizes if len(self.base_sizes) == n else np.full(n, 8.0)
        table = [rgba(c) for c in self.node_colours] or [rgba(g.node)]
        fill = [table[int(k) % len(table)] for k in self.colour_index.tolist()]
        if len(fill) != n:
            fill = [rgba(g.node)] * n
        edges = np.asarray(self.sub_edges, dtype=np.int64).reshape(-1, 2)
        labels = self.label_texts()
        return Drawing(
            ids=ids,
            titles=[plain_text(self.data.titles[i]) for i in self.shown.tolist()],
            labels=labels if len(labels) == n else list(ids),
            pos=finite_positions(self.dpos),
            radius=np.asarray(base, dtype=np.float64) / 2.0,
            fill=fill,
            degree=self.degree() if len(edges) else np.zeros(n, int),
            edges=edges,
            edge_group=np.asarray(self.edge_group, dtype=np.int64),
            edge_colours=self.edge_colours(),
            edge_width=float(self.settings.get("link_width", 1.0)),
            arrows=bool(self.settings.get("arrows", False)),
            background=rgba(g.background),
            text=rgba(g.text),
            title=title,
            rings=[
                (m.node, self.mark_rgba(m), m.width, m.extra, m.symbol)
                for m in self.marks
                if 0 <= m.node < n
            ],
        )
