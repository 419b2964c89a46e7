"""What the filters leave, as data: GraphML (Gephi, yEd, networkx) and node-link JSON.

The picture exports (PNG, SVG) are the view's; these write the shown graph's nodes and
links with what the vault knows of them, so another tool can take it from there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anthology.graph.model import MENTION, ShownGraph
from anthology.vault.graph_data import GraphData

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["shown_networkx", "write_graphml", "write_node_link_json"]


def shown_networkx(data: GraphData, shown: ShownGraph) -> nx.DiGraph:
    """The shown nodes and links as a directed graph: nodes are entry ids with ``title``,
    ``path``, ``kind``, ``tags`` (comma-separated, as GraphML takes only scalars) and
    ``unresolved``; edges carry their ``relation`` ("mention" for a body link)."""
    import networkx as nx

    g = nx.DiGraph()
    for i in shown.nodes.tolist():
        g.add_node(
            data.ids[i],
            title=data.titles[i],
            path=data.paths[i],
            kind=data.kinds[i],
            tags=", ".join(data.tags[i]),
            unresolved=bool(data.ghost[i]),
        )
    ids = data.ids
    for k, (s, t) in zip(shown.edge_ids.tolist(), shown.edges.tolist(), strict=True):
        a, b = ids[int(shown.nodes[s])], ids[int(shown.nodes[t])]
        g.add_edge(a, b, relation=data.relations[k] or MENTION)
    return g


def write_graphml(data: GraphData, shown: ShownGraph, path: str | Path) -> int:
    """Write the shown graph as GraphML; returns the number of nodes written."""
    import networkx as nx

    g = shown_networkx(data, shown)
    nx.write_graphml(g, str(path))
    return g.number_of_nodes()


def write_node_link_json(data: GraphData, shown: ShownGraph, path: str | Path) -> int:
    """Write the shown graph as networkx's node-link JSON (``nodes`` and ``links``, as
    d3 reads them); returns the number of nodes written."""
    import networkx as nx

    g = shown_networkx(data, shown)
    doc: dict[str, Any] = nx.node_link_data(g, edges="links")
    Path(path).write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    return g.number_of_nodes()
