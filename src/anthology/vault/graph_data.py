"""The link graph as arrays, the shape the layout engine and the graph view consume.

Built by :meth:`anthology.vault.index.VaultIndex.graph`; kept free of Qt and of SQLite so
the layout, the view and the benchmarks can all make one from anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class GraphData:
    """Nodes are entries (and, when asked for, ghost nodes for unresolved link targets).

    ``edges`` is an ``(m, 2)`` int array of indices into ``ids`` (source, target);
    ``relations[k]`` is the typed relation of edge ``k`` ("introduced by", …) or ``None``
    for an untyped mention in the body. Duplicate edges and self-links are already dropped.
    """

    ids: list[str]
    titles: list[str]
    kinds: list[str]  # the entry's ``kind`` property ("literature", "practice", …) or ""
    tags: list[list[str]]
    edges: np.ndarray
    relations: list[str | None]
    ghost: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # unresolved
    # vault-relative paths ("" for a ghost) and front matter ({}): what colour groups by
    # folder or property and the shared query language (:mod:`.query`) look at
    paths: list[str] = field(default_factory=list)
    properties: list[dict[str, Any]] = field(default_factory=list)
    # Dataview's inline fields ({}: none), which ``[key:value]`` matches too
    fields: list[dict[str, list[str]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)
        if len(self.ghost) != len(self.ids):
            self.ghost = np.zeros(len(self.ids), dtype=bool)
        n = len(self.ids)
        self.paths = [p if isinstance(p, str) else "" for p in list(self.paths)[:n]]
        self.paths += [""] * (n - len(self.paths))
        self.properties = [p if isinstance(p, dict) else {} for p in list(self.properties)[:n]]
        self.properties += [{} for _ in range(n - len(self.properties))]
        self.fields = [f if isinstance(f, dict) else {} for f in list(self.fields)[:n]]
        self.fields += [{} for _ in range(n - len(self.fields))]

    @property
    def n(self) -> int:
        return len(self.ids)

    def index_of(self) -> dict[str, int]:
        return {node_id: i for i, node_id in enumerate(self.ids)}

    def subgraph(self, keep: list[int] | np.ndarray) -> GraphData:
        """The graph induced by the node indices ``keep`` (in that order)."""
        keep = np.asarray(keep, dtype=np.int64)
        remap = np.full(self.n, -1, dtype=np.int64)
        remap[keep] = np.arange(len(keep))
        if len(self.edges):
            mapped = remap[self.edges]
            ok = (mapped >= 0).all(axis=1)
            edges = mapped[ok]
            relations = [r for r, k in zip(self.relations, ok, strict=True) if k]
        else:
            edges, relations = np.zeros((0, 2), dtype=np.int64), []
        return GraphData(
            ids=[self.ids[i] for i in keep],
            titles=[self.titles[i] for i in keep],
            kinds=[self.kinds[i] for i in keep],
            tags=[self.tags[i] for i in keep],
            edges=edges,
            relations=relations,
            ghost=self.ghost[keep],
            paths=[self.paths[i] for i in keep],
            properties=[self.properties[i] for i in keep],
            fields=[self.fields[i] for i in keep],
        )


def hops_within(n: int, edges: np.ndarray, start: int | Iterable[int], depth: int) -> np.ndarray:
    """For each node of a graph of ``n`` nodes, how many undirected hops it lies from node
    ``start`` (``start``: 0), or -1 beyond ``depth``: the local graph's neighbourhood.
    ``start`` may be several nodes: the hops from the nearest of them (the neighbourhood
    of a selection).

    Frontier by frontier over the edge array: O(depth · m) in numpy, where networkx first
    builds a graph of Python objects (seconds at 800,000 edges)."""
    hops = np.full(n, -1, dtype=np.int64)
    starts = np.unique(np.asarray([start] if isinstance(start, int | np.integer) else list(start),
                                  dtype=np.int64))  # fmt: skip
    starts = starts[(starts >= 0) & (starts < n)]
    if len(starts) == 0:
        return hops
    hops[starts] = 0
    frontier = starts
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(edges):
        a = np.concatenate([edges[:, 0], edges[:, 1]])
        b = np.concatenate([edges[:, 1], edges[:, 0]])
        for step in range(1, max(0, int(depth)) + 1):
            mark = np.zeros(n, dtype=bool)
            mark[frontier] = True
            nxt = np.unique(b[mark[a]])
            nxt = nxt[hops[nxt] < 0]
            if len(nxt) == 0:
                break
            hops[nxt] = step
            frontier = nxt
    return hops
