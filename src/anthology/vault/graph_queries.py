"""The link graph: as arrays for the layout and the view, as networkx, and exported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from anthology.vault.graph_data import GraphData, hops_within
from anthology.vault.reports import ReportQueries
from anthology.vault.resolve import ATTACHMENT

if TYPE_CHECKING:  # networkx costs ~0.3 s to import: loaded when a graph question is asked
    import networkx as nx


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
        rows = self._q(
            "SELECT eid, id, title, kind, tags, path, properties FROM entries ORDER BY id"
        )
        index = {eid: i for i, (eid, *_rest) in enumerate(rows)}
        ids = [r[1] for r in rows]
        titles = [r[2] for r in rows]
        kinds = [r[3] or "" for r in rows]
        tags = [json.loads(r[4] or "[]") for r in rows]
        paths = [r[5] for r in rows]
        properties = [_json_dict(r[6]) for r in rows]
        pairs: dict[tuple[int, int], str | None] = {}
        for s, t, relation in self._q(
            "SELECT source, target, relation FROM links WHERE target IS NOT NULL "
            "AND source != target ORDER BY relation IS NULL, lid"
        ):
            pairs.setdefault((index[s], index[t]), relation)
        ghost = [False] * len(ids)
        if ghosts:
            ghost_index: dict[str, int] = {}
            for s, text in self._q(
                "SELECT source, text FROM links WHERE status = 'unresolved' ORDER BY lid"
            ):
                key = text.strip().lower()
                if key not in ghost_index:
                    ghost_index[key] = len(ids)
                    ids.append(f"?{text.strip()}")
                    titles.append(text.strip())
                    kinds.append("unresolved")
                    tags.append([])
                    ghost.append(True)
                    paths.append("")
                    properties.append({})
                pairs.setdefault((index[s], ghost_index[key]), None)
        edges = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
        return GraphData(ids, titles, kinds, tags, edges, list(pairs.values()),
                         np.array(ghost, dtype=bool), paths, properties)  # fmt: skip

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
        data = self.graph()
        hops = hops_within(len(data.ids), data.edges, data.ids.index(ref.id), depth)
        near = np.flatnonzero(hops >= 0)
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
