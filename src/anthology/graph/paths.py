"""Paths between entries: "how are A and B related?"

The link graph is walked without regard to direction (a citation relates both ends), but
each hop remembers which way its link was written and its relation, so a chain reads::

    SOTA-050 —introduced by→ LIT-008 ←paper— NOTE-011

(SOTA-050 links to LIT-008 as "introduced by"; NOTE-011 links to LIT-008 as "paper".)
The k shortest simple paths come from networkx (``shortest_simple_paths``, Yen's
algorithm), optionally over typed relations only. :class:`PathFinder` builds its networkx
graphs once per :class:`~anthology.vault.graph_data.GraphData` and keeps them: seconds and
hundreds of MB at 100,000 entries, so the window asks it on a task runner (a
:class:`~anthology.tasks.TaskState` given to :meth:`PathFinder.paths` can stop the build).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice, pairwise
from typing import TYPE_CHECKING

from anthology.tasks import TaskState
from anthology.vault.graph_data import GraphData

if TYPE_CHECKING:  # networkx costs ~0.3 s to import: loaded when a path is asked for
    import networkx as nx

__all__ = [
    "MAX_PATHS",
    "Hop",
    "LinkPath",
    "PathFinder",
    "arrow",
    "format_path",
    "no_path_text",
]

MAX_PATHS = 5
UNTYPED = "links to"  # how a hop over a body link (no relation) reads


@dataclass(frozen=True)
class Hop:
    """One step of a path, from ``source`` to ``target`` (the path's direction). ``forward``:
    the link was written in ``source`` (it points the way the path goes)."""

    source: str
    target: str
    relation: str | None  # None: a link in the body
    forward: bool

    @property
    def label(self) -> str:
        return self.relation or UNTYPED


@dataclass(frozen=True)
class LinkPath:
    nodes: tuple[str, ...]
    hops: tuple[Hop, ...]

    def __len__(self) -> int:
        return len(self.hops)

    def edges(self) -> list[tuple[str, str]]:
        """The hops as the links are written (source, target)."""
        return [(h.source, h.target) if h.forward else (h.target, h.source) for h in self.hops]


def arrow(hop: Hop, relation: Callable[[str], str] = str) -> str:
    """`` —relation→ `` or `` ←relation— ``: the way the hop's link was written."""
    name = relation(hop.label)
    return f" —{name}→ " if hop.forward else f" ←{name}— "


def format_path(
    path: LinkPath, label: Callable[[str], str] = str, relation: Callable[[str], str] = str
) -> str:
    """``A —relation→ B ←relation— C``: each entry by ``label(id)``, each hop's relation by
    ``relation(name)``, its arrow pointing the way its link was written."""
    if not path.nodes:
        return ""
    out = [label(path.nodes[0])]
    for hop in path.hops:
        out.append(arrow(hop, relation))
        out.append(label(hop.target))
    return "".join(out)


def no_path_text(a: str, b: str, typed_only: bool = False) -> str:
    what = "typed relations" if typed_only else "links"
    return f"No path between “{a}” and “{b}” through {what}."


class PathFinder:
    """Shortest paths over one graph's links; build once, ask many times."""

    def __init__(self, data: GraphData) -> None:
        self._data = data
        self._index = data.index_of()
        self._graphs: dict[bool, nx.Graph] = {}

    def graph(self, typed_only: bool = False, state: TaskState | None = None) -> nx.Graph:
        """The undirected simple graph the paths walk (entries only: unresolved targets are
        no entries to pass through); each edge keeps its links as
        ``links = [(source, target, relation), …]``, typed ones first. A cancelled
        ``state`` stops the build (:class:`~anthology.tasks.Cancelled`), nothing kept."""
        g = self._graphs.get(typed_only)
        if g is not None:
            return g
        import networkx as nx

        d = self._data
        g = nx.Graph()
        g.add_nodes_from(i for i, ghost in zip(d.ids, d.ghost.tolist(), strict=True) if not ghost)
        ghost = d.ghost.tolist()
        for k, ((s, t), rel) in enumerate(zip(d.edges.tolist(), d.relations, strict=True)):
            if state is not None and k % 8192 == 0:
                state.check()
            if ghost[s] or ghost[t] or (typed_only and not rel):
                continue
            a, b = d.ids[s], d.ids[t]
            if g.has_edge(a, b):
                g[a][b]["links"].append((a, b, rel))
            else:
                g.add_edge(a, b, links=[(a, b, rel)])
        for _a, _b, links in g.edges(data="links"):
            links.sort(key=lambda link: link[2] is None)
        self._graphs[typed_only] = g
        return g

    def _hop(self, g: nx.Graph, u: str, v: str) -> Hop:
        links = g[u][v]["links"]
        # a typed link before a body link; of equals, the one written in u
        best = min(links, key=lambda link: (link[2] is None, link[0] != u))
        return Hop(u, v, best[2], best[0] == u)

    def paths(
        self,
        a: str,
        b: str,
        k: int = 1,
        typed_only: bool = False,
        state: TaskState | None = None,
    ) -> list[LinkPath]:
        """Up to ``k`` (≤ :data:`MAX_PATHS`) shortest simple paths from ``a`` to ``b``,
        shortest first; ``[]`` when there is none or either is no entry of the graph.
        ``state``: see :meth:`graph` (the k paths are checked for between two)."""
        import networkx as nx

        g = self.graph(typed_only, state)
        if a not in g or b not in g or a == b:
            return []
        k = max(1, min(MAX_PATHS, int(k)))
        try:
            if k == 1:
                found = [nx.bidirectional_shortest_path(g, a, b)]
            else:
                found = []
                for p in islice(nx.shortest_simple_paths(g, a, b), k):
                    found.append(p)
                    if state is not None:
                        state.check()
        except nx.NetworkXNoPath:
            return []
        return [
            LinkPath(tuple(p), tuple(self._hop(g, u, v) for u, v in pairwise(p))) for p in found
        ]
