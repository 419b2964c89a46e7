"""An entry's typed relations as a ladder: its neighbours grouped by relation and direction
("Introduced by → X", "← Cited as “source” by Y, Z"), and each relation followed as a
chain to its end ("introduced by" → "introduced by" → …), a loop stopped and said.

A typed relation is a front-matter key whose values are links (:mod:`anthology.vault.parse`
names it ``relation_name(key)``); the ladder names each as the Properties box does (the
key humanised forward, "Cited as “…” by" backward). The chain is a graph question:
the relation's links reachable from the entry (at most :data:`CHAIN_NODES` entries) are
put in a networkx graph; when it has a cycle, the chain is the way to it and once round it
(:func:`networkx.find_cycle` from the entry), else the longest path from the entry
(:func:`networkx.dag_longest_path`: every entry of the graph is reachable from the entry,
so the longest path starts there).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anthology.vault.entries import EntryQueries
from anthology.vault.model import CITED_BY_SHOWN, EntryRef, Relation

if TYPE_CHECKING:
    import networkx as nx

# Entries listed on a rung (the rest counted): as many as the Properties box lists, so the
# counts of a hub's citing entries the entry pane has just asked (kept per state of the
# index, see EntryQueries._cited_by) are the ladder's too — 34 ms to count at 100,000.
RUNG_SHOWN = CITED_BY_SHOWN
CHAIN_NODES = 200  # entries a chain's walk visits at most
# A relation is followed as a chain from a rung of at most this many entries: a chain is a
# line; a hub's rung of a thousand citing entries is a fan, which the rung itself shows.
CHAIN_FAN = 3


@dataclass(frozen=True)
class Rung:
    """The entries one relation links to the entry in one direction: ``outgoing``, the
    entry's own key names them; else they name the entry. ``total`` counts them all (a
    hub's rung lists the first :data:`RUNG_SHOWN`, by id)."""

    relation: str
    outgoing: bool
    label: str
    items: tuple[Relation, ...]
    total: int


@dataclass(frozen=True)
class Chain:
    """One relation followed from the entry, one direction: ``steps`` after the entry, in
    order; ``loops_to``: the step it came back to (where it stopped), if it loops;
    ``branches``: entries on the way with more than one next step (the longest way is
    shown); ``cut``: the walk stopped at :data:`CHAIN_NODES` entries."""

    relation: str
    outgoing: bool
    label: str
    steps: tuple[EntryRef, ...]
    loops_to: EntryRef | None = None
    branches: int = 0
    cut: bool = False

    @property
    def ends(self) -> str:
        """How the chain ends, in words."""
        if self.loops_to is not None:
            return f"loops back to {self.loops_to.short_label}"
        if self.cut:
            return f"stopped after {CHAIN_NODES:,} entries"
        return "end"


@dataclass(frozen=True)
class Ladder:
    """The ladder of ``entry_id``: its rungs (outgoing first, in front-matter order, then
    incoming by relation) and the chains longer than one step."""

    entry_id: str
    rungs: tuple[Rung, ...]
    chains: tuple[Chain, ...]


def outgoing_label(relation: str, key: str | None = None) -> str:
    """``Introduced by →``: the relation as its front-matter key reads (humanised)."""
    # here, not at the top: the render (~0.07 s to import) is not what an index re-run needs
    from anthology.vault.render.properties import humanise

    return f"{humanise(key or relation)} →"


def incoming_label(relation: str) -> str:
    """``← Cited as “source” by``: as the Properties box says a reverse relation."""
    from anthology.vault.canvas.index import CANVAS_RELATION  # (it loads the parser)

    if relation == CANVAS_RELATION:
        return "← On canvas"
    return f"← Cited as “{relation}” by"


class LadderQueries(EntryQueries):
    """An entry's typed relations by relation and direction, and their chains."""

    def ladder(self, entry_id: str) -> Ladder | None:
        """The ladder of ``entry_id`` (see the module), or None when there is no such entry."""
        row = self._q(
            "SELECT eid, id, properties FROM entries WHERE id = ? COLLATE NOCASE "
            "ORDER BY id = ? DESC LIMIT 1",
            (entry_id, entry_id),
        )
        if not row:
            return None
        eid, found_id, props = row[0]
        from anthology.vault.canvas.index import CANVAS_RELATION
        from anthology.vault.parse import relation_name  # (the parser: not for a re-run)

        try:
            keys = {relation_name(k): k for k in json.loads(props or "{}")}
        except (ValueError, TypeError, AttributeError):
            keys = {}
        forward: dict[str, list[Relation]] = {}
        for rel, text, t_id, t_title, t_path in self._q(
            "SELECT l.relation, l.text, t.id, t.title, t.path FROM links l "
            "LEFT JOIN entries t ON t.eid = l.target "
            "WHERE l.source = ? AND l.relation IS NOT NULL ORDER BY l.lid",
            (eid,),
        ):
            other = EntryRef(t_id, t_title, t_path) if t_id else None
            forward.setdefault(rel, []).append(Relation(rel, other, text))
        rungs = [
            Rung(rel, True, outgoing_label(rel, keys.get(rel)), tuple(items[:RUNG_SHOWN]),
                 len(items))
            for rel, items in forward.items()
        ]  # fmt: skip
        reverse, totals = self._cited_by(eid, RUNG_SHOWN)
        backward: dict[str, list[Relation]] = {}
        for rel in reverse:
            backward.setdefault(rel.relation, []).append(rel)
        for rel in sorted(backward, key=str.lower):
            rungs.append(Rung(rel, False, incoming_label(rel), tuple(backward[rel]),
                              totals.get(rel, len(backward[rel]))))  # fmt: skip
        chains = []
        for rung in rungs:
            if rung.relation == CANVAS_RELATION or rung.total > CHAIN_FAN:
                continue  # a canvas holding a card is no relation to follow; a fan no line
            chain = self._chain(eid, rung.relation, rung.outgoing, rung.label)
            if chain is not None and (len(chain.steps) > 1 or chain.loops_to is not None):
                chains.append(chain)
        return Ladder(found_id, tuple(rungs), tuple(chains))

    def _reach(self, eid: int, relation: str, outgoing: bool) -> tuple[nx.DiGraph, bool]:
        """The links of ``relation`` reachable from ``eid`` (followed forward, or backward
        when not ``outgoing``) as a graph whose edges point the way walked; True when the
        walk stopped at :data:`CHAIN_NODES` entries."""
        import networkx as nx  # ~0.3 s to import: loaded when a ladder is first asked

        graph = nx.DiGraph()
        graph.add_node(eid)
        frontier = [eid]
        cut = False
        sql = (
            "SELECT source, target FROM links WHERE source IN ({}) AND relation = ? "
            "AND target IS NOT NULL ORDER BY lid LIMIT ?"
            if outgoing
            else "SELECT target, source FROM links WHERE target IN ({}) AND relation = ? "
            "ORDER BY source LIMIT ?"
        )
        while frontier and not cut:
            room = CHAIN_NODES - graph.number_of_nodes()
            rows = self._q(sql.format(",".join("?" * len(frontier))),
                           (*frontier, relation, room + len(frontier) * 8 + 1))  # fmt: skip
            new: list[int] = []
            for a, b in rows:
                if b not in graph:
                    if graph.number_of_nodes() >= CHAIN_NODES:
                        cut = True
                        break
                    new.append(b)
                graph.add_edge(a, b)
            frontier = new
        return graph, cut

    def _chain(self, eid: int, relation: str, outgoing: bool, label: str) -> Chain | None:
        import networkx as nx

        graph, cut = self._reach(eid, relation, outgoing)
        loops_to: int | None = None
        if nx.is_directed_acyclic_graph(graph):
            path = nx.dag_longest_path(graph) if graph.number_of_edges() else [eid]
        else:
            cycle = nx.find_cycle(graph, source=eid)
            # The way to the loop, then once round it: stopped where it comes back.
            into = cycle[0][0]
            path = nx.shortest_path(graph, eid, into) + [v for _u, v in cycle[:-1]]
            loops_to = into
        branches = sum(1 for node in path if graph.out_degree(node) > 1)
        ids = [n for n in path[1:]] + ([loops_to] if loops_to is not None else [])
        refs = self._refs(ids)
        steps = tuple(refs[n] for n in path[1:] if n in refs)
        if not steps and loops_to is None:
            return None
        back = refs.get(loops_to) if loops_to is not None else None
        return Chain(relation, outgoing, label, steps, back, branches, cut)

    def _refs(self, eids: list[int]) -> dict[int, EntryRef]:
        if not eids:
            return {}
        marks = ",".join("?" * len(set(eids)))
        return {r[0]: EntryRef(r[1], r[2], r[3]) for r in self._q(
            f"SELECT eid, id, title, path FROM entries WHERE eid IN ({marks})",
            sorted(set(eids)))}  # fmt: skip
