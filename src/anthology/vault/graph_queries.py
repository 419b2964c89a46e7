"""The link graph: as arrays for the layout and the view, as networkx, and exported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anthology.vault.reports import ReportQueries
from anthology.vault.resolve import ATTACHMENT

if TYPE_CHECKING:  # networkx costs ~0.3 s to import, numpy ~0.1 s: loaded when a graph
    # question is asked (an `anthology index` re-run asks none)
    import networkx as nx
    import numpy as np

    from anthology.vault.graph_cache import LinkPairs
    from anthology.vault.graph_data import GraphData


def _json_dict(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class GraphQueries(ReportQueries):
    """The graph of entries and resolved links, and the vault's exports."""

    def graph(self, *, ghosts: bool = False) -> GraphData:
        """All entries and their resolved links as arrays, for the layout and the graph view.

        With ``ghosts``, each distinct unresolved target becomes a node of its own, id
        ``?text``, so the view can show where the vault wants a note it does not have.
        """
        import numpy as np  # here, not at the top: see TYPE_CHECKING above

        from anthology.vault.graph_data import GraphData, JsonColumn

        rows = self._q(
            "SELECT eid, id, title, kind, tags, path, properties, fields FROM entries ORDER BY id"
        )
        n = len(rows)
        eids = np.fromiter((r[0] for r in rows), np.int64, n)
        ids = [r[1] for r in rows]
        titles = [r[2] for r in rows]
        kinds = [r[3] or "" for r in rows]
        tag_texts: list[str | None] = [r[4] for r in rows]
        paths = [r[5] for r in rows]
        prop_texts: list[str | None] = [r[6] for r in rows]
        field_texts: list[str | None] = [r[7] for r in rows]  # Dataview's inline fields
        del rows
        at = np.full(int(eids.max()) + 1 if n else 0, -1, dtype=np.int64)  # eid → node
        at[eids] = np.arange(n)
        links = self._kept_link_pairs(at, n)
        edges = pairs = links.pairs
        relations = links.relations()
        ghost = [False] * n
        extra: list[tuple[int, int]] = []
        if ghosts:
            ghost_index: dict[str, int] = {}
            # an unresolved link has no target: found through the (target, …) index among
            # the few with none, not by reading every link (~80 ms at 1.5 million)
            for s, text in self._q(
                "SELECT source, text FROM links WHERE target IS NULL AND status = 'unresolved' "
                "ORDER BY lid"
            ):
                key = text.strip().lower()
                if key not in ghost_index:
                    ghost_index[key] = len(ids)
                    ids.append(f"?{text.strip()}")
                    titles.append(text.strip())
                    kinds.append("unresolved")
                    tag_texts.append(None)
                    ghost.append(True)
                    paths.append("")
                    prop_texts.append(None)
                    field_texts.append(None)
                extra.append((int(at[s]), ghost_index[key]))
        if extra:  # after the resolved links, each (source, ghost) once
            more = np.array(list(dict.fromkeys(extra)), dtype=np.int64).reshape(-1, 2)
            edges = np.concatenate([pairs, more])
            relations = relations + [None] * len(more)
        return GraphData(ids, titles, kinds, JsonColumn(tag_texts, list), edges, relations,
                         np.array(ghost, dtype=bool), paths, JsonColumn(prop_texts, dict),
                         JsonColumn(field_texts, dict), clean=True)  # fmt: skip

    def _kept_link_pairs(self, at: np.ndarray, n: int) -> LinkPairs:
        """:meth:`_link_pairs`, from the copy kept beside the index for its revision when
        there is one (:mod:`anthology.vault.graph_cache`: ~0.8 s → a few ms at 100,000
        entries), else asked and kept. Kept only if the revision was the same after asking
        as before: a refresh that began meanwhile dropped it (``indexer.forget_stored``)."""
        from anthology.vault import graph_cache

        revision = self.revision()
        path = graph_cache.cache_path(self.db_path)
        if revision is not None:
            kept = graph_cache.load(path, revision, n)
            if kept is not None:
                return kept
        links = self._link_pairs(at)
        if revision is not None and self.revision() == revision:
            graph_cache.save(path, revision, n, links)
        return links

    def _link_pairs(self, at: np.ndarray) -> LinkPairs:
        """The resolved links between two entries as node pairs (``at``: eid → node), each
        pair once, with the relation of its first typed link (else a mention): typed links
        first, each kind in link order. The 1.5 million links of a 100,000-entry vault
        come as one text per relation, parsed by numpy: no Python object per link (a
        tuple per row and a dict of pairs took ~2.5 s there)."""
        import numpy as np

        from anthology.vault.graph_cache import LinkPairs

        empty = LinkPairs(np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64), [])
        width = max(len(at), 1)  # source * width + target: one number per link
        # Both ends among the entries read: an index being built (VaultIndex.being_built)
        # links to entries of batches not written yet.
        among = "target IS NOT NULL AND source != target AND source < ?1 AND target < ?1"
        lid_text, pair_text = self._q(
            f"SELECT group_concat(lid), group_concat(source * ?1 + target) FROM links "
            f"WHERE {among}",
            (width,),
        )[0]
        if not lid_text:
            return empty
        lids = np.fromstring(lid_text, dtype=np.int64, sep=",")
        both = np.fromstring(pair_text, dtype=np.int64, sep=",")
        del lid_text, pair_text
        order = np.argsort(lids, kind="stable")  # in link order (the index gave another)
        lids, both = lids[order], both[order]
        code = np.full(len(lids), -1, dtype=np.int64)  # which relation; -1: a mention
        names: list[str] = []
        for relation, text in self._q(
            f"SELECT relation, group_concat(lid) FROM links WHERE relation IS NOT NULL "
            f"AND {among} GROUP BY relation",
            (width,),
        ):
            code[np.searchsorted(lids, np.fromstring(text, dtype=np.int64, sep=","))] = len(names)
            names.append(relation)
        order = np.argsort(code < 0, kind="stable")  # typed links first, each in link order
        both, code = both[order], code[order]
        _unique, first = np.unique(both, return_index=True)  # (source, target) once
        first.sort()  # each pair where it first came
        source, target = np.divmod(both[first], width)
        pairs = np.empty((len(first), 2), dtype=np.int64)
        pairs[:, 0], pairs[:, 1] = at[source], at[target]
        known = (pairs >= 0).all(axis=1)  # an eid between those read: not written yet
        return LinkPairs(pairs[known], code[first][known], names)

    def file_dates(self) -> dict[str, tuple[int, int]]:
        """Each entry's file times, id → (ctime_ns, mtime_ns): the timeline's
        ``file.ctime`` and ``file.mtime`` (anthology.graph.timeline)."""
        return {
            i: (int(c or 0), int(m or 0))
            for i, c, m in self._q(
                "SELECT e.id, f.ctime_ns, f.mtime_ns FROM entries e JOIN files f ON f.path = e.path"
            )
        }

    def link_graph(self) -> nx.MultiDiGraph:
        """The resolved links as a networkx multigraph (cached): nodes are entry ids with
        their title, path, kind and tags (comma-separated), edges carry the relation
        ("mentions" for a body link), the text written, embed and line."""
        import networkx as nx

        with self._lock:
            self._fresh()
            if self._graph is None:
                g = nx.MultiDiGraph()
                for i, p, t, k, tg in self._q("SELECT id, path, title, kind, tags FROM entries"):
                    tags = ", ".join(json.loads(tg or "[]"))
                    g.add_node(i, title=t, path=p, kind=k or "", tags=tags)
                for s, t, text, rel, em, line in self._q(
                    "SELECT s.id, t.id, l.text, l.relation, l.embed, l.line FROM links l "
                    "JOIN entries s ON s.eid = l.source JOIN entries t ON t.eid = l.target "
                    "ORDER BY l.lid"
                ):
                    g.add_edge(s, t, relation=rel or "mentions", text=text, embed=bool(em),
                               line=line)  # fmt: skip
                self._graph = g
            return self._graph

    def neighbourhood(self, entry_id: str, depth: int = 1) -> list[str]:
        """Ids within ``depth`` links of the entry, either direction, itself first: what the
        local graph shows (the same :func:`graph_data.hops_within`)."""
        ref = self.entry_ref(entry_id)
        if ref is None:
            return []
        from anthology.vault.graph_data import hops_within

        data = self.graph()
        hops = hops_within(len(data.ids), data.edges, data.ids.index(ref.id), depth)
        near = (hops >= 0).nonzero()[0]
        return [data.ids[i] for i in sorted(near, key=lambda i: (hops[i], data.ids[i]))]

    def export_json(self) -> dict[str, Any]:
        """The graph as ``{"entries": […], "links": […], "problems": […]}`` (see README).

        A link carries all the index knows of it: what was written (``text``, ``alias``,
        ``heading``, ``block``, ``embed``, ``markdown``), where it goes (``target``, an entry
        id, or ``attachment``, a file's vault-relative path; ``null`` when nothing is there)
        and how it resolved (``status``)."""
        entries = [
            {
                "id": i,
                "path": p,
                "title": t,
                "kind": k or "",
                "tags": json.loads(tg or "[]"),
                "aliases": json.loads(al or "[]"),
                "properties": json.loads(pr or "{}"),
            }
            for i, p, t, k, tg, al, pr in self._q(
                "SELECT id, path, title, kind, tags, aliases, properties FROM entries ORDER BY id"
            )
        ]
        links = [
            {"source": s, "target": t, "text": text, "relation": rel, "embed": bool(em),
             "line": line, "alias": alias, "heading": heading, "block": block,
             "attachment": extra if status == ATTACHMENT else None, "status": status,
             "markdown": bool(md)}
            for s, t, text, rel, em, line, alias, heading, block, status, extra, md in self._q(
                "SELECT s.id, t.id, l.text, l.relation, l.embed, l.line, l.alias, l.heading, "
                "l.block, l.status, l.resolved_path, l.markdown FROM links l "
                "JOIN entries s ON s.eid = l.source LEFT JOIN entries t ON t.eid = l.target "
                "ORDER BY s.id, l.line, l.lid"
            )
        ]  # fmt: skip
        problems = [
            {"path": p.path, "line": p.line, "kind": p.kind, "message": p.message,
             "severity": p.severity}
            for p in self.problems()
        ]  # fmt: skip
        return {"entries": entries, "links": links, "problems": problems}

    def export_graphml(self, out: Path | Any) -> None:
        """Write the link graph as GraphML (opens in Gephi, yEd, networkx)."""
        import networkx as nx

        nx.write_graphml(self.link_graph(), out)
