"""What the graph shows, decided without Qt: filters, neighbourhoods, matching, titles.

The view (:mod:`anthology.ui.graph.graph_view`) asks :func:`shown_graph` for the nodes and edges
to draw, :func:`match_nodes` for what the node search finds, and :func:`display_titles`
for the labels' text; colours come from :mod:`anthology.graph.groups`, paths from
:mod:`anthology.graph.paths`, initial positions from :mod:`anthology.layout.placement`.
Everything here works on :class:`~anthology.vault.graph_data.GraphData` arrays.
"""

from __future__ import annotations

import posixpath
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anthology.graph.settings import DEFAULTS, MENTION
from anthology.vault.graph_data import GraphData
from anthology.vault.model import telling_folders
from anthology.vault.query import (
    Query,
    filter_holds,
    fold,
    haystack,
    parse_query,
    tag_matches,
)

__all__ = [
    "MENTION",
    "Filters",
    "ShownGraph",
    "ShownGraphs",
    "adjacency",
    "display_titles",
    "match_nodes",
    "neighbourhood",
    "neighbourhood_in",
    "node_record",
    "place_array",
    "prepare_graph",
    "sanitize_graph",
    "shown_graph",
    "visible",
]


def sanitize_graph(data: GraphData) -> GraphData:
    """A copy that the view can trust: lists padded to ``n``, edges in range, no self-links,
    no duplicate (directed) edges, one relation per edge."""
    n = len(data.ids)
    if data.clean:  # the index's: already so (at 100,000 entries this copy took ~0.5 s)
        return data

    def pad(values, fill):
        values = list(values)[:n]
        return values + [fill() if callable(fill) else fill] * (n - len(values))

    titles = [t if isinstance(t, str) else "" for t in pad(data.titles, "")]
    titles = [t or i for t, i in zip(titles, data.ids, strict=True)]
    kinds = [k if isinstance(k, str) else "" for k in pad(data.kinds, "")]
    tags = [list(t) if t else [] for t in pad(data.tags, list)]
    e = np.asarray(data.edges, dtype=np.int64).reshape(-1, 2)
    rel = list(data.relations)[: len(e)]
    rel += [None] * (len(e) - len(rel))
    rel_arr = np.array([r if isinstance(r, str) and r else None for r in rel], dtype=object)
    if len(e):
        ok = (e >= 0).all(axis=1) & (e < n).all(axis=1) & (e[:, 0] != e[:, 1])
        e, rel_arr = e[ok], rel_arr[ok]
    if len(e):
        key = e[:, 0] * np.int64(max(n, 1)) + e[:, 1]
        order = np.argsort(key, kind="stable")
        ks = key[order]
        first = np.sort(order[np.concatenate([[True], ks[1:] != ks[:-1]])])
        e, rel_arr = e[first], rel_arr[first]
    ghost = np.asarray(data.ghost, dtype=bool).reshape(-1)
    if len(ghost) != n:
        ghost = np.zeros(n, dtype=bool)
    return GraphData(
        ids=list(data.ids),
        titles=titles,
        kinds=kinds,
        tags=tags,
        edges=e,
        relations=list(rel_arr),
        ghost=ghost.copy(),
        paths=list(data.paths),
        properties=list(data.properties),
        fields=list(data.fields),
    )


@dataclass
class Filters:
    """What the reader asked to see (the Filters page of the graph's controls)."""

    hidden_kinds: frozenset[str] = frozenset()
    tags: tuple[str, ...] = ()  # show only entries with one of these (nested ones too)
    hidden_relations: frozenset[str] = frozenset()  # MENTION for untyped links
    orphans: bool = True
    ghosts: bool = False

    def key(self) -> tuple:
        """The filters as a hashable value (what :func:`shown_graph` keeps its work by)."""
        return (
            tuple(sorted(self.hidden_kinds)),
            self.tags,
            tuple(sorted(self.hidden_relations)),
            self.orphans,
            self.ghosts,
        )

    @classmethod
    def from_settings(cls, st: Mapping[str, Any]) -> Filters:
        """The filters of the graph's settings (:mod:`anthology.graph.settings`)."""
        wanted = tuple(t.strip().lstrip("#") for t in str(st.get("tags", "")).split(","))
        return cls(
            hidden_kinds=frozenset(st.get("hidden_kinds") or ()),
            tags=tuple(t for t in wanted if t),
            hidden_relations=frozenset(st.get("hidden_relations") or ()),
            orphans=bool(st.get("orphans", DEFAULTS["orphans"])),
            ghosts=bool(st.get("ghosts", DEFAULTS["ghosts"])),
        )


def visible(data: GraphData, filters: Filters) -> tuple[np.ndarray, np.ndarray]:
    """(node mask, edge mask) over the whole graph after the filters. A tag filter keeps
    nested tags as search does (``ml`` keeps ``ml/vision``)."""
    n = data.n
    keep = np.ones(n, dtype=bool)
    if not filters.ghosts:
        keep &= ~data.ghost
    if filters.hidden_kinds:
        keep &= np.fromiter((k not in filters.hidden_kinds for k in data.kinds), bool, n)
    if filters.tags:
        keep &= np.fromiter(
            (any(tag_matches(w, tags) for w in filters.tags) for tags in data.tags), bool, n
        )
    e = data.edges
    emask = np.ones(len(e), dtype=bool)
    if filters.hidden_relations and len(e):
        hidden = filters.hidden_relations
        emask &= np.fromiter(((r or MENTION) not in hidden for r in data.relations), bool, len(e))
    if len(e):
        emask &= keep[e[:, 0]] & keep[e[:, 1]]
    if not filters.orphans:
        deg = np.zeros(n, dtype=np.int64)
        if emask.any():
            np.add.at(deg, e[emask].ravel(), 1)
        keep &= deg > 0
    return keep, emask


def neighbourhood(n: int, edges: np.ndarray, centres: Iterable[int], depth: int) -> np.ndarray:
    """Indices (sorted) within ``depth`` undirected hops of any of ``centres``: the local
    graph of one entry, or of a selection of several (networkx's ``ego_graph`` of each,
    united), walked over the graph's adjacency (see :func:`adjacency`)."""
    return neighbourhood_in(adjacency(n, edges), centres, depth)


def adjacency(n: int, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The undirected adjacency of a graph of ``n`` nodes as CSR: ``(indptr, neighbours,
    edge)``, node i's neighbours being ``neighbours[indptr[i]:indptr[i + 1]]`` and
    ``edge[…]`` the index in ``edges`` of the edge that joins each."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    a = np.concatenate([edges[:, 0], edges[:, 1]])
    b = np.concatenate([edges[:, 1], edges[:, 0]])
    order = stable_order(a, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(a, minlength=n), out=indptr[1:])
    return indptr, b[order], np.concatenate([np.arange(len(edges))] * 2)[order]


def stable_order(keys: np.ndarray, n: int) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of keys in ``[0, n)``, as least-significant-
    digit radix passes of 16 bits: numpy sorts 16-bit keys by radix and wider ones by
    timsort (the 1.1 million ends of a 100,000-entry graph: 110 → 39 ms, two passes)."""
    order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    shift = 16
    while n > 1 << shift:
        digit = ((keys[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    return order


def neighbourhood_in(
    adj: tuple[np.ndarray, np.ndarray, np.ndarray], centres: Iterable[int], depth: int
) -> np.ndarray:
    """:func:`neighbourhood` over an :func:`adjacency` made once: a local graph's walk
    reads only the rows of the nodes it reaches (a depth-1 graph, the centre's row), where
    a walk over the edge array read every edge (~3 ms at 50,000 edges, on every click)."""
    indptr, nbr, _edge = adj
    n = len(indptr) - 1
    seen = np.zeros(n, dtype=bool)
    frontier = np.unique(np.asarray(list(centres), dtype=np.int64))
    frontier = frontier[(frontier >= 0) & (frontier < n)]
    seen[frontier] = True
    for _step in range(max(0, int(depth))):
        if len(frontier) == 0:
            break
        starts, counts = indptr[frontier], indptr[frontier + 1] - indptr[frontier]
        # the rows of the frontier, gathered in one go: row k's offsets run from starts[k]
        at = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        reached = nbr[at]
        reached = reached[~seen[reached]]
        seen[reached] = True
        frontier = np.unique(reached)
    return np.flatnonzero(seen)


@dataclass
class ShownGraph:
    """The drawn graph: ``nodes`` are indices into the full graph, ``edges`` index
    ``nodes`` (so they index the layers' arrays), ``edge_ids`` the full graph's edges."""

    nodes: np.ndarray
    edges: np.ndarray
    edge_ids: np.ndarray
    remap: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def local(self, i: int) -> int:
        """The shown index of full-graph node ``i``, or -1."""
        return int(self.remap[i]) if 0 <= i < len(self.remap) else -1


def shown_graph(
    data: GraphData, filters: Filters, centres: Sequence[int] | None = None, depth: int = 1
) -> ShownGraph:
    """What is drawn: the filtered graph (``centres`` None), or the filtered nodes within
    ``depth`` hops of ``centres`` (the centres shown even when a filter hides them). A local
    graph of no centre is empty: showing the whole graph under a "Local" button was the
    dishonest toolbar of issue 14.

    What the filters make of the whole graph (masks, the kept edges, their adjacency) is
    made once per graph and filters (see :func:`per_data`): a click asks only for its
    neighbourhood."""
    keep, eidx, kept_edges, adj = per_data(
        data, "filtered", filters.key(), lambda: _filtered(data, filters), only=True
    )
    if centres is not None:
        shown = neighbourhood_in(adj, centres, depth)
        is_centre = np.zeros(data.n, dtype=bool)
        is_centre[list(centres)] = True
        shown = shown[keep[shown] | is_centre[shown]]
    else:
        shown = np.flatnonzero(keep)
    remap = np.full(data.n, -1, dtype=np.int64)
    remap[shown] = np.arange(len(shown))
    if len(eidx):
        sub = remap[kept_edges]
        ok = (sub >= 0).all(axis=1)
        eidx, sub = eidx[ok], sub[ok]
    else:
        sub = np.zeros((0, 2), dtype=np.int64)
    return ShownGraph(shown.astype(np.int64), sub.reshape(-1, 2), eidx.astype(np.int64), remap)


class ShownGraphs:
    """The last few shown graphs, by what they were asked with: a reader goes back and
    forth between a hub and its notes, and a hub's local graph of 10,000 nodes took ~4 ms
    to find again (its labels' text ~1 ms more, see :meth:`derived`). Entries belong to
    one :class:`GraphData`; a new one (a reload) starts afresh."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._data: GraphData | None = None
        self._graphs: dict[tuple, ShownGraph] = {}  # oldest first
        self._derived: dict[tuple[int, str, Hashable], Any] = {}

    def get(
        self, data: GraphData, filters: Filters, centres: Sequence[int] | None, depth: int
    ) -> ShownGraph:
        """:func:`shown_graph` of these arguments, made once while it stays among the last
        ``size`` asked. Treat what it returns as read-only: it is handed out again."""
        if data is not self._data:
            self._data = data
            self._graphs.clear()
            self._derived.clear()
        key = (filters.key(), None if centres is None else tuple(centres), int(depth))
        sg = self._graphs.pop(key, None)
        if sg is None and centres is not None:  # the entry shown: perhaps made already
            sg = take_data(data, "local", key)
        if sg is None and centres is None:  # the global graph: perhaps made already
            sg = per_data(data, "global", filters.key(),
                          lambda: shown_graph(data, filters, None, depth), only=True)  # fmt: skip
        if sg is None:
            sg = shown_graph(data, filters, centres, depth)
            while len(self._graphs) >= self.size:
                old = self._graphs.pop(next(iter(self._graphs)))
                for k in [k for k in self._derived if k[0] == id(old)]:
                    del self._derived[k]
        self._graphs[key] = sg  # the most recent last
        return sg

    def derived(self, sg: ShownGraph, what: str, arg: Hashable, make: Callable[[], Any]) -> Any:
        """``make()`` once per kept shown graph and ``(what, arg)``: what the view derives
        from a shown graph alone (its labels' text by the label setting)."""
        if not any(g is sg for g in self._graphs.values()):
            return make()  # not one of ours (or dropped): nothing to keep it with
        key = (id(sg), what, arg)
        if key not in self._derived:
            self._derived[key] = make()
        return self._derived[key]


def _filtered(data: GraphData, filters: Filters) -> tuple:
    """:func:`visible`'s node mask, the kept edges (their indices and node pairs) and the
    kept edges' :func:`adjacency`: what every local graph under ``filters`` walks."""
    keep, emask = visible(data, filters)
    eidx = np.flatnonzero(emask)
    kept = data.edges[eidx] if len(eidx) else np.zeros((0, 2), dtype=np.int64)
    return keep, eidx, kept, adjacency(data.n, kept)


def node_record(data: GraphData, i: int) -> dict[str, Any]:
    """Node ``i`` as :func:`anthology.vault.query.matches` reads a record."""
    return {
        "id": data.ids[i],
        "title": data.titles[i],
        "path": data.paths[i],
        "kind": data.kinds[i],
        "tags": data.tags[i],
        "properties": data.properties[i],
        "fields": data.fields[i],
    }


def match_nodes(data: GraphData, query: str | Query, nodes: np.ndarray | None = None) -> np.ndarray:
    """Positions in ``nodes`` (default: every node) of the nodes that ``query`` matches, in
    the query language search uses (:mod:`anthology.vault.query`): ``tag:``, ``kind:``,
    ``path:``, ``folder:``, ``[key:value]``, ``-``; free words are looked for in the id,
    title and path. An empty query matches nothing."""
    q = parse_query(query) if isinstance(query, str) else query
    idx = np.arange(data.n) if nodes is None else np.asarray(nodes, dtype=np.int64)
    if not q or len(idx) == 0:
        return np.zeros(0, dtype=np.int64)
    # :func:`matches`, one part at a time over the nodes still in (as it does per node):
    # the folded id-title-path a word is looked for in is made once per graph, not once
    # per node and group (20 word groups over 100,000 nodes took 5.9 s, each colouring).
    cand = idx.tolist()
    keep: list[int] | range = range(len(cand))
    for f in q.filters:
        keep = [j for j in keep if filter_holds(f, node_record(data, cand[j])) != f.negated]
    if q.terms:
        hays: list[str] = per_data(
            data, "haystacks", 0, lambda: [haystack(node_record(data, i)) for i in range(data.n)]
        )
        for t in q.terms:
            word = fold(t.text.strip())
            keep = [j for j in keep if (word in hays[cand[j]]) != t.negated]
    return np.asarray(list(keep), dtype=np.int64)


_MEMO: dict[tuple[int, str, Hashable], tuple[weakref.ref, Any]] = {}
_MEMO_LOCK = threading.Lock()


def per_data(
    data: GraphData, what: str, arg: Hashable, make: Callable[[], Any], *, only: bool = False
) -> Any:
    """``make()`` once per graph, kept while ``data`` lives: what a local graph needs of the
    whole vault on every click (its kind and folder colour codes, its shared titles, what
    the filters keep) does not change from click to click. ``only``: keep just the latest
    ``arg``'s value of ``what`` for this graph (the filtered graph of filters changed since
    is dropped, not kept for the life of the vault)."""
    key = (id(data), what, arg)
    with _MEMO_LOCK:  # the views' loader warms it on its thread (prepare_graph)
        hit = _MEMO.get(key)
        if hit is not None and hit[0]() is data:
            return hit[1]
    value = make()
    with _MEMO_LOCK:
        for k in [k for k, (ref, _v) in _MEMO.items()
                  if ref() is None or (only and k[:2] == key[:2])]:  # fmt: skip
            del _MEMO[k]
        _MEMO[key] = (weakref.ref(data), value)
    return value


def take_data(data: GraphData, what: str, arg: Hashable) -> Any:
    """What :func:`per_data` kept for ``data``, ``what`` and ``arg``, no longer kept there
    (made beforehand for one use: its taker keeps it as long as it needs); None if none."""
    with _MEMO_LOCK:
        hit = _MEMO.pop((id(data), what, arg), None)
    return hit[1] if hit is not None and hit[0]() is data else None


def prepare_graph(data: GraphData, filters: Filters, *, local: bool = True) -> None:
    """Make now, on the caller's thread, what the view's first rebuild of ``data`` asks
    of the whole graph under ``filters`` (its filtered adjacency, the titles that need
    their folder, and with ``local`` False the global graph shown: ~0.4–0.6 s of the GUI
    thread at 1.5 million links), so that it finds it made."""
    per_data(data, "filtered", filters.key(), lambda: _filtered(data, filters), only=True)
    node_titles(data, ())  # which titles two notes share: what every label asks
    if not local:
        per_data(data, "global", filters.key(),
                 lambda: shown_graph(data, filters, None, 1), only=True)  # fmt: skip


def place_array(data: GraphData, places: Mapping[str, tuple[float, float]]) -> np.ndarray:
    """``places`` (node id → x, y) as an ``(n, 2)`` array in ``data``'s order, NaN where
    a node has none: what the view's load reads, made off the GUI thread."""
    pos = np.full((data.n, 2), np.nan)
    if places:
        at = data.index_of()
        rows = [(at[k], xy) for k, xy in places.items() if k in at]
        if rows:
            idx = np.fromiter((i for i, _xy in rows), np.int64, len(rows))
            xy = np.array([xy for _i, xy in rows], dtype=np.float64).reshape(-1, 2)
            pos[idx] = xy
    return pos


def node_titles(data: GraphData, nodes: Sequence[int]) -> list[str]:
    """:func:`display_titles` of ``nodes``: only the titles two of the vault's notes share
    (found once per graph) can need their folder, so only those are compared (comparing
    every shown title cost ~8 ms per local graph at 10,000 nodes)."""

    def make() -> np.ndarray:  # each title folded once, counted in C (39 → 26 ms at 100k)
        folded = [t.casefold() for t in data.titles]
        seen = Counter(folded)
        return np.fromiter(map(seen.__getitem__, folded), np.int64, data.n) > 1

    shared: np.ndarray = per_data(data, "shared-titles", 0, make)
    nodes = list(nodes)
    titles = [data.titles[i] for i in nodes]
    some = np.flatnonzero(shared[nodes]).tolist() if nodes else []
    if some:
        told = display_titles([titles[j] for j in some], [data.paths[nodes[j]] for j in some])
        for j, text in zip(some, told, strict=True):
            titles[j] = text
    return titles


def display_titles(titles: Sequence[str], paths: Sequence[str]) -> list[str]:
    """The labels' text: each full title, and where two shown titles read the same (two
    "Introduction" notes), the folder that tells them apart, as few of its last parts as
    do: ``Introduction (Guides)``; ``/`` is the vault's top. Eliding for the zoom is the
    view's business, not this."""
    groups: dict[str, dict[str, None]] = {}
    for title, path in zip(titles, paths, strict=True):
        if path:
            groups.setdefault(title.casefold(), {})[path] = None
    tell: dict[str, str] = {}
    for group in groups.values():
        if len(group) > 1:
            tell.update(telling_folders(list(group)))
    return [
        f"{t} ({tell[p]})" if p and p in tell else t for t, p in zip(titles, paths, strict=True)
    ]


def top_folder(path: str) -> str:
    """The first folder of a vault-relative path; "/" for a note at the vault's top."""
    head = path.split("/", 1)[0] if "/" in path else ""
    return head or "/"


def folder_of(path: str) -> str:
    return posixpath.dirname(path)


def same_graph(a: GraphData | None, b: GraphData | None) -> bool:
    """Whether two graphs draw the same: same nodes, titles, kinds, tags, relations, paths,
    properties and edges. An edit of a note's text alone leaves the graph as it was, and
    the window then does not give it to the view again: given again, the view laid a local
    graph out anew from the global positions, and its nodes jumped (~290 px at 10,000)."""
    if a is None or b is None:
        return a is b
    return (
        a.ids == b.ids
        and a.titles == b.titles
        and a.kinds == b.kinds
        and a.tags == b.tags
        and a.relations == b.relations
        and a.paths == b.paths
        and a.properties == b.properties
        and a.fields == b.fields
        and np.array_equal(a.edges, b.edges)
        and np.array_equal(a.ghost, b.ghost)
    )
