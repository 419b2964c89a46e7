"""Colour groups: which colour each shown node gets, and the legend's rows.

A base colouring (``color_by``) and, over it, the reader's ordered groups, as Obsidian's
Groups: each a query of the shared language (``folder:x``, ``tag:x``, ``[key:value]``,
words…) with a colour; the first group that matches a node colours it.

Base colourings: ``kind`` (the ``kind`` property), ``folder`` (the top folder), ``tag``
(the first tag), ``community`` (networkx's Louvain communities of the shown graph, seeded
so the colours stay put), and ``auto``: ``kind`` when the vault has kinds, else
``folder`` (a 6,500-note vault without ``kind`` was one grey blob). ``query`` is the old
``;``-separated ``group_query`` setting, still understood.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from anthology.graph.model import ShownGraph, match_nodes, per_data, top_folder
from anthology.vault.graph_data import GraphData

__all__ = [
    "COLOUR_MODES",
    "DEFAULT",
    "GHOST",
    "PREFERRED_KINDS",
    "Colouring",
    "Group",
    "base_mode",
    "colour_nodes",
    "communities",
    "groups_from_settings",
]

PREFERRED_KINDS = ("literature", "practice", "note")  # palette slots 0, 1, 2
COLOUR_MODES = ("auto", "kind", "folder", "tag", "community", "query")
DEFAULT, GHOST = 0, 1  # Colouring.index values before the named groups (2 + j)
COMMUNITY_SEED = 7


@dataclass(frozen=True)
class Group:
    """One of the reader's colour groups: a query and a colour (``#rrggbb``)."""

    query: str
    colour: str

    def to_json(self) -> dict[str, str]:
        return {"query": self.query, "color": self.colour}


@dataclass
class Colouring:
    """``index[k]`` for shown node ``k``: :data:`DEFAULT`, :data:`GHOST`, or ``2 + j`` for
    ``names[j]`` drawn in ``colours[j]``."""

    mode: str  # the base colouring in effect ("auto" resolved)
    names: list[str]
    colours: list[str]
    index: np.ndarray


def groups_from_settings(st: Mapping[str, Any]) -> list[Group]:
    """The reader's groups from saved settings, skipping malformed rows."""
    out = []
    for row in st.get("groups") or ():
        if isinstance(row, dict) and str(row.get("query", "")).strip():
            out.append(Group(str(row["query"]).strip(), str(row.get("color") or "#888888")))
    return out


def base_mode(data: GraphData, mode: str) -> str:
    """``auto`` → ``kind`` when an entry of the vault has a kind, else ``folder``."""
    if mode not in COLOUR_MODES:
        mode = "auto"
    if mode != "auto":
        return mode
    has_kind = any(k for k, g in zip(data.kinds, data.ghost.tolist(), strict=True) if not g)
    return "kind" if has_kind else "folder"


def _kind_codes(data: GraphData) -> tuple[list[str], np.ndarray]:
    """The vault's kinds in colour order, and each node's colour index by its kind."""

    def make() -> tuple[list[str], np.ndarray]:
        names = kind_order(data)
        lookup = {name: 2 + j for j, name in enumerate(names)}
        codes = np.fromiter((lookup.get(x, DEFAULT) for x in data.kinds), np.int64, data.n)
        return names, codes

    return per_data(data, "kind", 0, make)


def prepare_colours(data: GraphData) -> None:
    """Make the colour codes the default ("auto") colouring asks of the whole graph, on
    the caller's thread (the views' loader: ~45 ms of the GUI thread at 100,000 nodes)."""
    if base_mode(data, "auto") == "kind":
        _kind_codes(data)


def _folder_codes(data: GraphData, slots: int) -> tuple[list[str], np.ndarray]:
    """The ``slots`` biggest top folders, and each node's colour index by its folder."""

    def make() -> tuple[list[str], np.ndarray]:
        key = [top_folder(p) if p else "" for p in data.paths]
        counted = Counter(x for x, p in zip(key, data.paths, strict=True) if p)
        names = [name for name, _ in counted.most_common(slots)]
        lookup = {name: 2 + j for j, name in enumerate(names)}
        return names, np.fromiter((lookup.get(x, DEFAULT) for x in key), np.int64, data.n)

    return per_data(data, "folder", slots, make)


def kind_order(data: GraphData) -> list[str]:
    """The vault's kinds, its usual ones first (they keep their colours from vault to
    vault), then the others by frequency."""
    kinds = [
        k for k, _ in Counter(
            k for k, g in zip(data.kinds, data.ghost.tolist(), strict=True) if not g
        ).most_common()
    ]  # fmt: skip
    preferred = [k for k in PREFERRED_KINDS if k in kinds]
    return preferred + [k for k in kinds if k and k not in preferred]


@lru_cache(maxsize=4)
def _louvain(n: int, edges: bytes) -> tuple[tuple[int, ...], ...]:
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(np.frombuffer(edges, dtype=np.int64).reshape(-1, 2).tolist())
    found = nx.community.louvain_communities(g, seed=COMMUNITY_SEED)
    # largest first; ties by smallest member, so the order (and the colours) is stable
    return tuple(tuple(sorted(c)) for c in sorted(found, key=lambda c: (-len(c), min(c))))


def communities(n: int, edges: np.ndarray) -> list[list[int]]:
    """Louvain communities of an undirected graph of ``n`` nodes (seeded: the same graph
    gives the same communities), largest first. Cached for the last few graphs."""
    e = np.ascontiguousarray(np.asarray(edges, dtype=np.int64).reshape(-1, 2))
    return [list(c) for c in _louvain(int(n), e.tobytes())]


def colour_nodes(
    data: GraphData,
    shown: ShownGraph,
    mode: str,
    groups: Sequence[Group],
    palette: Sequence[str],
    group_query: str = "",
) -> Colouring:
    """Colour the shown nodes: the base colouring ``mode``, then ``groups`` over it (first
    match wins); ghosts stay :data:`GHOST`."""
    nodes = shown.nodes
    k = len(nodes)
    idx = np.zeros(k, dtype=np.int64)
    names: list[str] = []
    colours: list[str] = []
    mode = base_mode(data, mode)
    pal = list(palette) or ["#888888"]
    if mode == "kind":
        names, codes = _kind_codes(data)
        names = list(names)  # the memo's own is not to be extended with the groups
        colours = [pal[j % len(pal)] for j in range(len(names))]
        idx = codes[nodes]
    elif mode == "folder":
        # the whole vault's folders, so a folder keeps its colour in the local graph
        names, codes = _folder_codes(data, len(pal))
        names = list(names)
        colours = pal[: len(names)]
        idx = codes[nodes]
    elif mode == "tag":
        key = [data.tags[i][0].lstrip("#") if data.tags[i] else "" for i in nodes.tolist()]
        counted = Counter(x for x in key if x)
        names = [name for name, _ in counted.most_common(len(pal))]
        colours = pal[: len(names)]
        lookup = {name: 2 + j for j, name in enumerate(names)}
        idx = np.fromiter((lookup.get(x, DEFAULT) for x in key), np.int64, k)
    elif mode == "community":
        found = communities(k, shown.edges)
        found = [c for c in found if len(c) > 1][: len(pal)]
        names = [f"Community {j + 1} ({len(c)})" for j, c in enumerate(found)]
        colours = pal[: len(names)]
        for j, members in enumerate(found):
            idx[np.asarray(members, dtype=np.int64)] = 2 + j
    elif mode == "query":
        queries = [q.strip() for q in group_query.split(";") if q.strip()][: len(pal)]
        groups = [Group(q, pal[j]) for j, q in enumerate(queries)] + list(groups)
    base = len(names)
    for j in range(len(groups) - 1, -1, -1):  # backwards: the first group's colour wins
        hit = match_nodes(data, groups[j].query, nodes)
        idx[hit] = 2 + base + j
    names += [g.query for g in groups]
    colours += [g.colour for g in groups]
    if k:
        idx[data.ghost[nodes]] = GHOST
    return Colouring(mode, names, colours, idx)
