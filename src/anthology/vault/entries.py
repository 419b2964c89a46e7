"""Entries and their typed relations, and the renderer's questions of the index.

Answers what the entry pane shows of an entry (:meth:`EntryQueries.entry`), the lists the
quick switcher and the CLI read, and what rendering an entry asks
(:class:`anthology.vault.model.EntryLookup`: which entry or attachment a link names).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from anthology.vault.connection import IndexConnection, ref
from anthology.vault.files import read_shown_body, vault_file
from anthology.vault.model import Entry, EntryRef, Relation
from anthology.vault.relink import index_resolver
from anthology.vault.resolve import ATTACHMENT, Resolver

if TYPE_CHECKING:  # numpy (~0.1 s to import) is loaded when a graph is asked for, not by
    # a re-run of the CLI that only checks the index is up to date
    from anthology.vault.graph_data import GraphData

HOME_IDS = ("home", "index", "readme")
# The aliases of every entry that has none (most): one list, read and never changed, not
# a json.loads and a list per entry (0.75 s and 5.6 MB at 100,000 entries).
_NO_ALIASES: list[str] = []
CITED_CACHE_SIZE = 256  # entries whose typed citers are kept (cleared when the index changes)


# The first ``?3`` entries (by id, any case) citing entry ``?1`` as relation ``?2``, each
# with its link's text, as EntryQueries._count_cited_by finds them when not sorting them
# all; ``which`` picks the citing entries by IndexConnection._read_plan's way.
_FIRST_CITING = (
    "SELECT (SELECT min(text) FROM links WHERE target = ?1 AND relation = ?2 "
    "AND source = s.eid), s.id, s.title, s.path FROM entries s WHERE {which} "
    "ORDER BY s.id COLLATE NOCASE LIMIT ?3"
)
_CITING_ENTRIES = {
    # every entry in id order, asked whether it cites ?1
    "walk": "s.eid != ?1 AND EXISTS (SELECT 1 FROM links WHERE target = ?1 "
    "AND relation = ?2 AND source = s.eid)",
    # the citing entries, then sorted
    "sources": "s.eid IN (SELECT source FROM links WHERE target = ?1 AND relation = ?2 "
    "AND source != ?1)",
}


class EntryQueries(IndexConnection):
    """Entries, their relations both ways, and link resolution for the renderer."""

    def entries(self) -> list[EntryRef]:
        """Every entry, sorted by id: what the quick switcher lists."""
        return [ref(r) for r in self._q("SELECT id, title, path FROM entries ORDER BY id")]

    def entry_paths(self) -> list[str]:
        """Every entry's vault-relative path."""
        return [r[0] for r in self._q("SELECT path FROM entries")]

    def entry_folders(self) -> tuple[list[str], int]:
        """The folders that hold entries (vault-relative, "" for the vault's own) and how
        many entries there are: what the live reload watches when it cannot watch every
        file."""
        folders = [
            r[0].rstrip("/")
            for r in self._q("SELECT DISTINCT rtrim(path, replace(path, '/', '')) FROM entries")
        ]
        return folders, self._q("SELECT count(*) FROM entries")[0][0]

    def attachment_paths(self) -> list[str]:
        """Every attachment's vault-relative path, sorted: what the file explorer lists
        beside the entries when it is asked to show attachments."""
        return [r[0] for r in self._q("SELECT path FROM attachments ORDER BY path")]

    def switcher_items(self, graph: GraphData | None = None) -> list[tuple[EntryRef, list[str]]]:
        """Every entry with its aliases, for fuzzy matching over id, title and alias. With
        ``graph`` (this index's :meth:`graph`, asked in the same read transaction) its
        ids, titles and paths are shared, not asked for again (~25 MB at 100,000)."""
        if graph is None:
            return [
                (EntryRef(i, t, p), json.loads(a) if a and a != "[]" else _NO_ALIASES)
                for i, t, p, a in self._q(
                    "SELECT id, title, path, aliases FROM entries ORDER BY id"
                )
            ]
        aliases = {
            i: json.loads(a)
            for i, a in self._q("SELECT id, aliases FROM entries WHERE aliases != '[]'")
        }
        ids, titles, paths, ghost = graph.ids, graph.titles, graph.paths, graph.ghost
        return [
            (EntryRef(ids[k], titles[k], paths[k]), aliases.get(ids[k], _NO_ALIASES))
            for k in (~ghost).nonzero()[0].tolist()
        ]

    def home_id(self) -> str | None:
        """The entry to open first: kind ``home``, else an id/file named HOME, index or README."""
        rows = self._q("SELECT id FROM entries WHERE kind = 'home' COLLATE NOCASE "
                       "ORDER BY path LIMIT 1")  # fmt: skip
        if rows:
            return rows[0][0]
        for name in HOME_IDS:
            # NOCASE equality uses the id index; a root file of that name is one of
            # a few spellings (the path index is case-sensitive).
            spellings = {f"{v}.md" for v in (name, name.upper(), name.capitalize())}
            rows = self._q(
                "SELECT id, path FROM entries WHERE id = ? COLLATE NOCASE "
                f"OR path IN ({', '.join('?' * len(spellings))}) ORDER BY path",
                (name, *sorted(spellings)),
            )
            rows = [r for r in rows if r[0].lower() == name or r[1].lower() == f"{name}.md"]
            if rows:
                return rows[0][0]
        rows = self._q("SELECT id FROM entries ORDER BY path LIMIT 1")
        return rows[0][0] if rows else None

    def entry(self, entry_id: str, *, cited_by_limit: int | None = None) -> Entry | None:
        """The entry as the entry pane shows it: properties, both directions of typed
        relations, and its current body read from disk (the file is the truth).

        ``cited_by_limit``: at most this many citing entries per relation (the first by id),
        for a hub cited by thousands; ``cited_by_total`` counts them all."""
        rows = self._q(
            "SELECT eid, id, path, title, kind, status, tags, aliases, properties, body_line, "
            "words, reading_minutes, headings, mtime_ns, fields FROM entries "
            "WHERE id = ? COLLATE NOCASE ORDER BY id = ? DESC",
            (entry_id, entry_id),
        )
        if not rows:
            return None
        (eid, eid_s, path, title, kind, status, tags, aliases, props, body_line,
         words, minutes, headings, mtime_ns, fields) = rows[0]  # fmt: skip
        shown = self._read_shown(path)
        body, body_line, body_chars = ("", 1, None) if shown is None else shown
        forward = [
            Relation(rel, EntryRef(t_id, t_title, t_path) if t_id else None, text)
            for rel, text, t_id, t_title, t_path in self._q(
                "SELECT l.relation, l.text, t.id, t.title, t.path FROM links l "
                "LEFT JOIN entries t ON t.eid = l.target "
                "WHERE l.source = ? AND l.relation IS NOT NULL ORDER BY l.lid",
                (eid,),
            )
        ]
        reverse, totals = self._cited_by(eid, cited_by_limit)
        return Entry(
            id=eid_s,
            path=path,
            title=title,
            kind=kind or "",
            status=status or "",
            tags=json.loads(tags or "[]"),
            aliases=json.loads(aliases or "[]"),
            properties=json.loads(props or "{}"),
            relations=forward,
            cited_by=reverse,
            cited_by_total=totals,
            body=body,
            body_line=body_line,
            words=words,
            reading_minutes=minutes,
            headings=[tuple(h) for h in json.loads(headings or "[]")],
            mtime=mtime_ns / 1e9,
            body_chars=body_chars,
            inline_fields=json.loads(fields) if fields else {},
        )

    def _cited_by(self, eid: int, limit: int | None) -> tuple[list[Relation], dict[str, int]]:
        """The entries citing ``eid`` through a typed relation, at most ``limit`` per relation
        (the first by id, case folded), and how many cite it per relation.

        A hub is cited by tens of thousands: sorting them all to show ten took 0.8 s at
        100,000 entries. As :meth:`IndexConnection._read_plan` chooses: the entries walked
        in id order (the id index), each asked whether it cites this one, stopping after
        ``limit`` finds (a large or dense relation); the citing entries sorted, not their
        links (a hub's relation of 1,100 links at 10,000 entries: 1.1 ms, where joining and
        sorting its links took 4 ms warm, 38 ms cold); or a small one joined and sorted
        whole. Kept until the index changes."""
        with self._lock:
            self._fresh()
            hit = self._cited.get((eid, limit))
        if hit is not None:
            return list(hit[0]), dict(hit[1])
        reverse, totals = self._count_cited_by(eid, limit)
        with self._lock:
            if len(self._cited) >= CITED_CACHE_SIZE:
                self._cited.clear()
            self._cited[(eid, limit)] = (list(reverse), dict(totals))
        return reverse, totals

    def _count_cited_by(self, eid: int, limit: int | None) -> tuple[list[Relation], dict[str, int]]:
        with self._lock:  # each relation counted on the (target, relation, source) index
            totals = {
                relation: n
                for relation in self._typed_relations_to(eid)
                if (n := self.conn.execute(
                    "SELECT count(DISTINCT source) FROM links WHERE target = ?1 "
                    "AND relation = ?2 AND source != ?1", (eid, relation)).fetchone()[0])
            }  # fmt: skip
        reverse: list[Relation] = []
        for relation, total in totals.items():
            with self._lock:  # walked, by sorted sources or sorted whole: the same rows
                plan = "sort" if limit is None else self._read_plan(total, limit)
            if plan != "sort":
                rows = self._q(_FIRST_CITING.format(which=_CITING_ENTRIES[plan]),
                               (eid, relation, limit))  # fmt: skip
            else:
                rows = self._q(
                    "SELECT min(l.text), s.id, s.title, s.path FROM links l "
                    "JOIN entries s ON s.eid = l.source WHERE l.target = ?1 AND l.relation = ?2 "
                    "AND l.source != l.target GROUP BY s.eid ORDER BY s.id COLLATE NOCASE "
                    + ("LIMIT ?3" if limit is not None else ""),
                    (eid, relation, limit) if limit is not None else (eid, relation),
                )  # fmt: skip
            reverse += [Relation(relation, EntryRef(i, t, p), text) for text, i, t, p in rows]
        return reverse, totals

    def _read_shown(self, path: str) -> tuple[str, int, int | None] | None:
        """(body, its first line, None or its full length when only its head was read) of
        the file at ``path`` as the pane shows it: only what is shown is read (a 200 MB entry
        is not read whole on every open and hover), through :func:`files.open_regular` (never
        a file outside the vault, never a FIFO; an escaped name reads the real file)."""
        shown = read_shown_body(self.root, path)
        return None if shown is None else (shown.body, shown.body_line, shown.body_chars)

    def _read_body(self, path: str) -> tuple[str, int] | None:
        shown = self._read_shown(path)
        return None if shown is None else shown[:2]

    # -- the renderer's questions (anthology.vault.model.EntryLookup) ----------------------
    def _get_resolver(self) -> Resolver:
        with self._lock:
            self._fresh()
            if self._resolver is None:
                self._resolver = index_resolver(self.conn)
            return self._resolver

    def _written(self, target: str, source_path: str) -> tuple[int | None, str, str | None] | None:
        """How the index resolved the wikilink ``target`` written in the entry at
        ``source_path``: ``(target eid, status, resolved path)``, or None when that entry
        holds no such link (or holds it resolved two ways).

        Rendering an entry asks about every link in it, and the full name map costs 2.4 s
        to build at 100,000 entries: the links the entry itself holds were resolved when
        it was indexed (and again whenever a change touched their names), so the render
        of a freshly opened vault needs no map. The rows of one source are kept until the
        index changes."""
        with self._lock:
            self._fresh()
            rows = self._written_links.get(source_path)
            if rows is None:
                rows = {}
                for text, eid, status, resolved in self.conn.execute(
                    "SELECT l.text, l.target, l.status, l.resolved_path FROM entries e "
                    "JOIN links l ON l.source = e.eid WHERE e.path = ? AND l.markdown = 0",
                    (source_path,),
                ):  # fmt: skip
                    answer = (eid, status, resolved)
                    rows[text] = answer if rows.get(text, answer) == answer else None
                if len(self._written_links) >= 64:  # a few recent entries and their embeds
                    self._written_links.clear()
                self._written_links[source_path] = rows
            return rows.get(target)

    def resolve(self, target: str, source_path: str) -> EntryRef | None:
        """The entry a link target names, seen from the entry at ``source_path``."""
        written = self._written(target, source_path)
        if written is not None:
            eid, status, _resolved = written
            if status not in ("resolved", "ambiguous") or eid is None:
                return None
            rows = self._q("SELECT id, title, path FROM entries WHERE eid = ?", (eid,))
            return ref(rows[0]) if rows else None
        res = self._get_resolver().resolve(target, source_path)
        if res.status in ("resolved", "ambiguous") and res.target:
            return self.entry_ref(res.target)
        return None

    def attachment(self, target: str, source_path: str) -> Path | None:
        """Absolute path of an attachment inside the vault; None if missing or outside."""
        written = self._written(target, source_path)
        if written is not None:
            status, found = written[1], written[2]
        else:
            res = self._get_resolver().resolve(target, source_path)
            status, found = res.status, res.target
        if status != ATTACHMENT or not found:
            return None
        return vault_file(self.root, found)

    def embed_body(self, entry_id: str) -> str | None:
        """The Markdown body of an entry, for transclusion."""
        ref = self.entry_ref(entry_id)
        if ref is None:
            return None
        body = self._read_body(ref.path)
        return body[0] if body else None
