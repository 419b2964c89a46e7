"""The graph's model, free of Qt: what the graph view shows and why.

- :mod:`.model`: filters, the shown graph (neighbourhoods of one or several nodes), node
  matching in search's query language, the labels' text;
- :mod:`.groups`: colour groups (kind, top folder, tag, Louvain communities, the reader's
  ordered queries);
- :mod:`.paths`: the k shortest paths between two entries, hop by hop with relations;
- :mod:`.export`: the shown graph as GraphML and node-link JSON;
- :mod:`.drawing`: what the view shows as plain data (the snapshot the PNG and SVG exports
  paint, the SVG writer), and the geometry the view and the exports share (arrowheads,
  the label grid);
- :mod:`.scene`: the view's state (positions, pins, trail, selection, the shown graph, sizes
  per zoom step, highlight, marks, labels), which the Qt view only draws;
- :mod:`.settings`: the graph's settings, their defaults, validation and migrations.

Initial positions are :mod:`anthology.layout.placement`'s (one implementation, the
engine's). Tested without a display (``tests/graph``).
"""

from anthology.graph.groups import Colouring, Group, colour_nodes
from anthology.graph.model import (
    MENTION,
    Filters,
    ShownGraph,
    ShownGraphs,
    display_titles,
    match_nodes,
    neighbourhood,
    node_titles,
    sanitize_graph,
    shown_graph,
    visible,
)
from anthology.graph.paths import Hop, LinkPath, PathFinder, format_path

__all__ = [
    "MENTION",
    "Colouring",
    "Filters",
    "Group",
    "Hop",
    "LinkPath",
    "PathFinder",
    "ShownGraph",
    "ShownGraphs",
    "colour_nodes",
    "display_titles",
    "format_path",
    "match_nodes",
    "neighbourhood",
    "node_titles",
    "sanitize_graph",
    "shown_graph",
    "visible",
]
