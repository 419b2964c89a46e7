"""The link graph as arrays, the shape the layout engine and the graph view consume.

Built by :meth:`anthology.vault.index.VaultIndex.graph`; kept free of Qt and of SQLite so
the layout, the view and the benchmarks can all make one from anything.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np


class JsonColumn(Sequence[Any]):
    """A column of JSON texts (the index's ``tags`` or ``properties``), each decoded when
    it is asked for: a graph of 100,000 entries loaded every entry's tags and front matter
    as lists and dicts (~150 MB, ~1.5 s of ``json.loads``), for the few the view reads (a
    node's record, a tag filter). A text that does not decode to ``kind`` reads as an
    empty one. Items are new values at each access: read them, do not change them."""

    __slots__ = ("_kind", "_texts")

    def __init__(self, texts: Sequence[str | None], kind: type[list] | type[dict]) -> None:
        self._texts = texts
        self._kind = kind

    def __len__(self) -> int:
        return len(self._texts)

    def _decode(self, text: str | None) -> Any:
        if text:
            try:
                value = json.loads(text)
            except ValueError:
                value = None
            if isinstance(value, self._kind):
                return value
        return self._kind()

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self._decode(t) for t in self._texts[i]]
        return self._decode(self._texts[i])

    def __iter__(self) -> Iterator[Any]:
        return (self._decode(t) for t in self._texts)

    def take(self, keep: Iterable[int]) -> JsonColumn:
        """The items at the positions ``keep``, still undecoded."""
        return JsonColumn([self._texts[i] for i in keep], self._kind)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JsonColumn):
            if other._kind is self._kind and other._texts == self._texts:
                return True
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        if isinstance(other, list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"JsonColumn({len(self)} {self._kind.__name__}s)"


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
    tags: Sequence[list[str]]  # a list, or the index's texts decoded when read (JsonColumn)
    edges: np.ndarray
    relations: list[str | None]
    ghost: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # unresolved
    # vault-relative paths ("" for a ghost) and front matter ({}): what colour groups by
    # folder or property and the shared query language (:mod:`.query`) look at
    paths: list[str] = field(default_factory=list)
    properties: Sequence[dict[str, Any]] = field(default_factory=list)
    # Dataview's inline fields ({}: none), which ``[key:value]`` matches too
    fields: Sequence[dict[str, list[str]]] = field(default_factory=list)
    # made by the index: lists of n, edges in range, no self-link nor duplicate, one
    # relation per edge (what graph.model.sanitize_graph makes of anything else)
    clean: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        self.edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)
        if len(self.ghost) != len(self.ids):
            self.ghost = np.zeros(len(self.ids), dtype=bool)
        n = len(self.ids)
        if not (isinstance(self.paths, list) and len(self.paths) == n and self.clean):
            self.paths = [p if isinstance(p, str) else "" for p in list(self.paths)[:n]]
            self.paths += [""] * (n - len(self.paths))
        if not (isinstance(self.properties, JsonColumn) and len(self.properties) == n):
            props = [p if isinstance(p, dict) else {} for p in list(self.properties)[:n]]
            self.properties = props + [{} for _ in range(n - len(props))]
        if not (isinstance(self.fields, JsonColumn) and len(self.fields) == n):
            found = [f if isinstance(f, dict) else {} for f in list(self.fields)[:n]]
            self.fields = found + [{} for _ in range(n - len(found))]

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
            tags=self.tags.take(keep.tolist())
            if isinstance(self.tags, JsonColumn)
            else [self.tags[i] for i in keep],
            edges=edges,
            relations=relations,
            ghost=self.ghost[keep],
            paths=[self.paths[i] for i in keep],
            properties=self.properties.take(keep.tolist())
            if isinstance(self.properties, JsonColumn)
            else [self.properties[i] for i in keep],
            fields=self.fields.take(keep.tolist())
            if isinstance(self.fields, JsonColumn)
            else [self.fields[i] for i in keep],
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
