"""What a graph scene asks of the whole graph, made once per graph (``per_data``) and
read-only, so the views' loader can make it on its thread before the scene's first load
(:func:`prepare_scene`): the node index, the relations' codes, the kinds' counts, the local
graph of the entry shown and its labels."""

from __future__ import annotations

from collections import Counter

import numpy as np

from anthology.graph.groups import prepare_colours
from anthology.graph.model import (
    Filters,
    ShownGraph,
    node_titles,
    per_data,
    prepare_graph,
    shown_graph,
)
from anthology.vault.graph_data import GraphData
from anthology.vault.shown import plain_text


def node_index(data: GraphData) -> dict[str, int]:
    """Each node's index by id, made once per graph (read-only: shared)."""
    return per_data(data, "index", 0, data.index_of)


def kind_counts(data: GraphData) -> dict[str, int]:
    """How many real entries have each kind, most used first (once per graph)."""

    def make() -> dict[str, int]:
        counts = Counter(k for k, g in zip(data.kinds, data.ghost.tolist(), strict=True) if not g)
        return dict(counts.most_common())

    return per_data(data, "kind-counts", 0, make)


def relation_codes(data: GraphData) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per edge, the relation as drawn (``plain_text``: no bidi override turns it round;
    None: a mention) and its colour group (0: mentions, then 1 + the relation's rank),
    and the relations, most used first: made once per graph, read-only (1.5 million
    links at 100,000 entries: ~0.1 s, made on the views' loader, see :func:`prepare_scene`)."""

    def make() -> tuple[np.ndarray, np.ndarray, list[str]]:
        # each distinct relation's text and group made once, then indexed by a code per
        # edge (made in C): comparing the edges' objects with each relation in turn took
        # a pass over every edge per relation
        counts = Counter(data.relations)
        distinct = list(counts)  # None (a mention) and "" among them
        code_of = {r: k for k, r in enumerate(distinct)}
        codes = np.fromiter(map(code_of.__getitem__, data.relations), np.int64,
                            len(data.relations))  # fmt: skip
        rels = [r for r, _ in counts.most_common() if r]
        rank = {r: 1 + j for j, r in enumerate(rels)}
        shown = np.empty(len(distinct), dtype=object)
        shown[:] = [plain_text(r) if r else r for r in distinct]
        group = np.array([rank.get(r, 0) if r else 0 for r in distinct], dtype=np.int64)
        return shown[codes], group[codes], rels

    return per_data(data, "relation-codes", 0, make)


def prepare_scene(
    data: GraphData, filters: Filters, *, local: bool = True, centre: str | None = None,
    depth: int = 1,
) -> None:  # fmt: skip
    """Make on the caller's thread (the views' loader) what the view's first load and
    rebuild of ``data`` ask of the whole graph: :func:`prepare_graph`'s, the node index,
    the relations' codes, the kinds and their colour codes, and with ``local`` the local
    graph of ``centre`` (the entry shown) and its labels, and the global graph and its
    labels. At 100,000 entries these held the GUI thread ~0.4 s in one turn."""
    prepare_graph(data, filters, local=local)
    index = node_index(data)
    relation_codes(data)
    kind_counts(data)
    prepare_colours(data)
    if local and centre is not None and (i := index.get(centre)) is not None:
        sg = per_data(data, "local", (filters.key(), (i,), int(depth)),
                      lambda: shown_graph(data, filters, [i], int(depth)), only=True)  # fmt: skip
        per_data(data, "local-titles", 0, lambda: (sg, title_labels(data, sg)), only=True)
    # the global graph and its labels, whichever is shown: a switch from the local graph
    # made them on the GUI thread (85 + 58 ms at 100,000 entries, in one turn)
    whole = per_data(data, "global", filters.key(),
                     lambda: shown_graph(data, filters, None, 1), only=True)  # fmt: skip
    per_data(data, "global-titles", 0, lambda: (whole, title_labels(data, whole)), only=True)


def title_labels(data: GraphData, sg: ShownGraph) -> list[str]:
    """The labels of ``sg``'s nodes by title (the folder added where two titles are equal)."""
    return [plain_text(t) for t in node_titles(data, sg.nodes.tolist())]
