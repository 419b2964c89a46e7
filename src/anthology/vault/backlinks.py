"""Backlinks: the links to an entry, grouped by relation, paged, with their contexts.

A hub of a 100,000-entry vault has 800,000 backlinks: everything here is built to answer
a page of them without reading them all (see :meth:`BacklinkQueries.backlinks_page`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial

from anthology.vault.connection import ENTRY_EID, WALK_PAST, IndexConnection
from anthology.vault.model import EntryRef, LinkRow

# Rows fetched at a time by BacklinkQueries.iter_backlinks.
BACKLINK_BATCH = 1000
# A link row as _links_from_rows reads it (s: its source, t: its target, l: the link).
_LINK_COLUMNS_SQL = (
    "s.id, s.title, s.path, t.id, t.title, t.path, l.text, l.relation, "
    "l.embed, l.line, l.context, l.alias, l.heading, l.body_start, l.body_end"
)


@dataclass(frozen=True)
class BacklinksView:
    """An entry's backlinks as a panel shows them, a page at a time: what
    :meth:`BacklinkQueries.backlinks_view` answers and the backlinks panel takes as it is.

    ``groups`` are ``(relation, number of links)`` in order (None: untyped mentions, last);
    ``sources`` the number of entries linking here (each count may be capped: past its cap
    means "more"); ``page(relation, offset, limit)`` a group's links, their body contexts
    left empty; ``context(link)`` one such link's context line, cut when it is shown.
    """

    entry_id: str
    groups: list[tuple[str | None, int]]
    sources: int
    page: Callable[[str | None, int, int], list[LinkRow]]
    context: Callable[[LinkRow], str] | None = None  # None: the pages carry their contexts
    # per group, the number of entries whose links it holds (capped as ``sources``); None:
    # not asked (a group's title then counts its links)
    group_sources: list[int] | None = None


def _cut_contexts(
    bodies: dict[str, str], wanted: list[tuple[int, str, tuple[int, int]]]
) -> dict[int, str]:
    """The context line of each ``(key, source id, span)`` in ``wanted`` whose source's body
    is in ``bodies``, by key: one pass over each body for all its links, so that a line
    holding thousands of links is cut in linear time overall (see link_contexts)."""
    from anthology.vault.parse import link_contexts  # the parser: not for an index re-run

    by_source: dict[str, list[tuple[int, tuple[int, int]]]] = {}
    for key, source, span in wanted:
        if source in bodies:
            by_source.setdefault(source, []).append((key, span))
    out: dict[int, str] = {}
    for source, items in by_source.items():
        found = link_contexts(bodies[source], [span for _key, span in items])
        out.update((key, context) for (key, _span), context in zip(items, found, strict=True))
    return out


def _links_from_rows(rows: list[tuple], bodies: dict[str, str] | None = None) -> list[LinkRow]:
    """:class:`LinkRow` s of rows of :meth:`VaultIndex._link_query`. With ``bodies`` (source
    id → its indexed body), each body link's context is cut from its source's body, as
    :meth:`VaultIndex.with_contexts` cuts it; without, it is left empty.

    A hub's backlinks are hundreds of thousands: each link is built once with its context
    (not built, then copied by ``dataclasses.replace``), and shares one :class:`EntryRef`
    per entry with the other links of its batch (a source has several links, and every
    backlink has the same target)."""
    body_links = [(i, r[0], (r[13], r[14])) for i, r in enumerate(rows)
                  if r[10] is None and r[13] is not None]  # fmt: skip
    cut = {} if bodies is None else _cut_contexts(bodies, body_links)
    refs: dict[tuple, EntryRef] = {}
    links = []
    for i, (s_id, s_title, s_path, t_id, t_title, t_path, text, relation, embed, line,
            context, alias, heading, start, end) in enumerate(rows):  # fmt: skip
        key = (s_id, s_title, s_path)
        if (source := refs.get(key)) is None:
            source = refs[key] = EntryRef(s_id, s_title, s_path)
        if t_id:
            key = (t_id, t_title, t_path)
            if (target := refs.get(key)) is None:
                target = refs[key] = EntryRef(t_id, t_title, t_path)
        else:
            target = None
        if context is None and start is not None:
            span = (start, end)
            context = cut.get(i, "")
        else:
            span = None
            context = context or ""
        embedded = bool(embed)
        links.append(
            LinkRow(source, target, text, relation, embedded, line, context, alias, heading, span)
        )
    return links


class BacklinkQueries(IndexConnection):
    """The links to an entry (and from it), grouped, paged and with their contexts."""

    def backlinks_view(
        self, entry_id: str, *, sources_cap: int | None = None, count_cap: int | None = None
    ) -> BacklinksView:
        """The backlinks of ``entry_id`` as the panel shows them (see :class:`BacklinksView`;
        the caps as :meth:`backlink_groups` takes them).

        Asked again before the index changes, the same view is answered (shared: not to be
        changed), and its pages too: a reader goes back and forth between a hub and the
        notes around it, and a hub's counts and first pages were ~40 queries, 15-30 ms at
        10,000 entries. Any change to the index (a refresh, another connection's write)
        drops them (see :meth:`IndexConnection._fresh`)."""

        def make() -> BacklinksView:
            groups, sources = self.backlink_groups(
                entry_id, sources_cap=sources_cap, count_cap=count_cap
            )
            sizes = dict(groups)  # each group's links: how its pages are best read
            return BacklinksView(
                entry_id,
                groups,
                sources,
                partial(self._view_page, entry_id, sizes),
                self.link_context,
                self.backlink_group_sources(entry_id, list(sizes), cap=sources_cap),
            )

        with self._lock:
            self._fresh()
            return self._backlink_views.get_or_make((entry_id, sources_cap, count_cap), make)

    def _view_page(
        self, entry_id: str, sizes: dict[str | None, int], relation: str | None, offset: int,
        limit: int,
    ) -> list[LinkRow]:  # fmt: skip
        """A page of a :meth:`backlinks_view` (its body links without their contexts),
        kept until the index changes; ``sizes``: each group's links, as the view counted
        them (counted again otherwise)."""
        with self._lock:
            self._fresh()
            links = self._backlink_pages.get_or_make(
                (entry_id, relation, offset, limit),
                partial(self.backlinks_page, entry_id, relation, offset, limit,
                        contexts=False, size=sizes.get(relation)),
            )  # fmt: skip
        return list(links)

    def backlink_group_sources(
        self, entry_id: str, relations: list[str | None], *, cap: int | None = None
    ) -> list[int]:
        """For each of ``relations`` (None: untyped mentions), how many entries other than
        ``entry_id`` link to it so (with ``cap``, counted up to ``cap + 1``): what the
        backlinks panel lists under the group, a source with several links once. Each is a
        walk of the (target, relation, source) index, stopped at the cap."""
        limit = -1 if cap is None else cap + 1
        with self._lock:
            eid = self._eid(entry_id)
            if eid is None:
                return [0] * len(relations)
            return [
                self.conn.execute(
                    "SELECT count(*) FROM (SELECT DISTINCT source FROM links WHERE target = ?1 "
                    "AND relation IS ?2 AND source != ?1 LIMIT ?3)", (eid, relation, limit),
                ).fetchone()[0]
                for relation in relations
            ]  # fmt: skip

    def backlink_groups(
        self, entry_id: str, *, sources_cap: int | None = None, count_cap: int | None = None
    ) -> tuple[list[tuple[str | None, int]], int]:
        """How the entry's backlinks group, without fetching them: ``(relation, number of
        links)`` per group in :meth:`backlinks` order (typed relations by name, untyped
        mentions, relation None, last), and the number of distinct entries linking here
        (with ``sources_cap``, counted up to that many: ``sources_cap + 1`` means more; with
        ``count_cap``, each group's links likewise).

        A hub of 100,000 entries has 800,000 backlinks: grouping them (0.17 s) and counting
        their distinct sources (0.21 s) was most of opening it. The relations are found by
        skipping through the (target, relation, source) index, one step per relation, and
        each is counted on that index; a capped count stops at the cap (750,000 mentions
        took 60 ms to count)."""
        with self._lock:
            eid = self._eid(entry_id)
            if eid is None:
                return [], 0
            relations: list[str | None] = list(self._typed_relations_to(eid))
            if self.conn.execute("SELECT 1 FROM links WHERE target = ? AND relation IS NULL "
                                 "LIMIT 1", (eid,)).fetchone():  # fmt: skip
                relations.append(None)
            groups = []
            for relation in relations:
                if count_cap is None:  # the target's few self-links taken off
                    n = self.conn.execute(
                        "SELECT (SELECT count(*) FROM links WHERE target = ?1 "
                        "AND relation IS ?2) - (SELECT count(*) FROM links WHERE target = ?1 "
                        "AND relation IS ?2 AND source = ?1)", (eid, relation),
                    ).fetchone()[0]  # fmt: skip
                else:
                    n = self.conn.execute(
                        "SELECT count(*) FROM (SELECT 1 FROM links WHERE target = ?1 "
                        "AND relation IS ?2 AND source != ?1 LIMIT ?3)",
                        (eid, relation, count_cap + 1)).fetchone()[0]  # fmt: skip
                if n:
                    groups.append((relation, n))
            limit = -1 if sources_cap is None else sources_cap + 1
            sources = self.conn.execute(
                "SELECT count(*) FROM (SELECT DISTINCT source FROM links WHERE target = ?1 "
                "AND source != ?1 LIMIT ?2)", (eid, limit)).fetchone()[0]  # fmt: skip
        return groups, sources

    def backlinks_page(
        self,
        entry_id: str,
        relation: str | None,
        offset: int,
        limit: int,
        *,
        contexts: bool = True,
        size: int | None = None,
        plan: str | None = None,
    ) -> list[LinkRow]:
        """``limit`` backlinks under ``relation`` (None: untyped mentions) from ``offset`` on,
        in :meth:`backlinks` order, with their contexts (without ``contexts``: body links
        come with an empty one, see :meth:`link_context`): a page for a panel that shows a
        hub's tens of thousands of links a page at a time. ``size``: how many links the
        group has, if the caller has counted them (capped counts as :meth:`backlink_groups`
        gives them); otherwise they are counted here.

        Sorting a hub's 750,000 mentions for each page of 100 took 0.7 s. How the page is
        read (``plan``: chosen from ``size`` when None, the same links whichever):

        - ``"walk"``: the entries in id order (the id index), each one's links looked up in
          the (target, relation, source) index, stopping once the page is full: about
          ``(offset + limit) × entries / size`` steps of ~0.5 µs; a large group's way.
        - ``"sources"``: the group's sources sorted by id (not their links, whole rows),
          then the links of the first ``offset + limit`` of them: ~1 µs a source.
        - ``"sort"``: the group's links fetched and sorted whole: a group of about a page.

        At 10,000 entries a hub's typed relation of 1,100 links took 2.1 ms sorted, 1.2 ms
        by sources and 0.35 ms walked for its first page; one of 370, 1.0, 0.37 and 0.7 ms."""
        with self._lock:
            eid = self._eid(entry_id)
            if eid is None:
                return []
            if plan is None:
                if size is None:
                    size = self.conn.execute(
                        "SELECT count(*) FROM (SELECT 1 FROM links WHERE target = ? "
                        "AND relation IS ? LIMIT ?)", (eid, relation, WALK_PAST + 1),
                    ).fetchone()[0]  # fmt: skip
                plan = self._read_plan(size, offset + limit)
        if plan == "sort":
            return self._link_rows(
                "l.target = ? AND l.source != l.target AND l.relation IS ?",
                (eid, relation),
                contexts,
                page=(limit, offset),
            )
        if plan == "sources":
            sql = (
                "WITH src AS (SELECT s.eid FROM entries s WHERE s.eid IN (SELECT source "
                "FROM links WHERE target = ?1 AND relation IS ?2 AND source != ?1) "
                "ORDER BY s.id LIMIT ?3 + ?4) "
                "SELECT " + _LINK_COLUMNS_SQL + " FROM src CROSS JOIN links l "
                "ON l.source = src.eid AND l.target = ?1 AND l.relation IS ?2 "
                "JOIN entries s ON s.eid = l.source LEFT JOIN entries t ON t.eid = l.target "
                "ORDER BY s.id, l.line LIMIT ?3 OFFSET ?4"
            )
        else:
            sql = (
                "SELECT " + _LINK_COLUMNS_SQL + " FROM entries s CROSS JOIN links l "
                "ON l.source = s.eid AND l.target = ?1 AND l.relation IS ?2 "
                "AND l.source != ?1 LEFT JOIN entries t ON t.eid = l.target "
                "ORDER BY s.id, l.line LIMIT ?3 OFFSET ?4"
            )
        rows = self._q(sql, (eid, relation, limit, offset))
        return _links_from_rows(rows, self._bodies(rows) if contexts else None)

    def link_context(self, link: LinkRow) -> str:
        """The context line of one body link that came without it (see
        :meth:`backlinks_page`'s ``contexts``): cut from its source's indexed body."""
        return self.with_contexts([link])[0].context

    def backlinks(self, entry_id: str, *, contexts: bool = True) -> list[LinkRow]:
        """Every link to this entry from another, typed relations first, with its context.

        Without ``contexts``, body links come with an empty context, for a caller that
        shows only some of them (a hub can have tens of thousands): see
        :meth:`with_contexts`."""
        return self._link_rows(
            f"l.target = {ENTRY_EID} AND l.source != l.target", (entry_id,), contexts
        )

    def iter_backlinks(self, entry_id: str, *, batch: int = BACKLINK_BATCH) -> Iterator[LinkRow]:
        """:meth:`backlinks`, one at a time: the same links in the same order, fetched from
        SQLite ``batch`` rows at a time with their contexts, so that a hub's hundreds of
        thousands of links are never all held (``anthology show`` of a hub streams them).

        The cursor stays open while the caller iterates; close the generator (or exhaust
        it) before the index. :meth:`backlink_count` counts them without fetching."""
        # SQLite sorts every link before handing over the first: only the sort keys and
        # the link's rowid go through the sort (the sorter holds them in memory, as
        # temp_store is MEMORY: ~150 MB for 800,000 full rows), and each batch's rows are
        # then fetched by rowid and put back in the sorted order.
        with self._lock:
            cursor = self.conn.execute(
                "SELECT l.lid FROM links l JOIN entries s ON s.eid = l.source "
                f"WHERE l.target = {ENTRY_EID} AND l.source != l.target "
                "ORDER BY l.relation IS NULL, l.relation, s.id, l.line",
                (entry_id,),
            )
        try:
            while True:
                with self._lock:
                    lids = [lid for (lid,) in cursor.fetchmany(batch)]
                if not lids:
                    return
                by_lid: dict[int, tuple] = {}
                for at in range(0, len(lids), 500):
                    chunk = lids[at : at + 500]
                    sql, params = self._link_query(
                        f"l.lid IN ({', '.join('?' * len(chunk))})", tuple(chunk), lid=True
                    )
                    by_lid.update((row[0], row[1:]) for row in self._q(sql, params))
                rows = [by_lid[lid] for lid in lids]
                yield from _links_from_rows(rows, self._bodies(rows))
        finally:
            cursor.close()

    def backlink_count(self, entry_id: str) -> int:
        """How many links :meth:`backlinks` has (a COUNT, nothing fetched)."""
        return self._q(
            f"SELECT count(*) FROM links WHERE target = {ENTRY_EID} AND source != target",
            (entry_id,),
        )[0][0]

    def outgoing(self, entry_id: str) -> list[LinkRow]:
        """Every link written in this entry (resolved or not), in order of appearance."""
        rows = self._link_rows(
            "l.source = (SELECT eid FROM entries WHERE id = ? COLLATE NOCASE LIMIT 1)",
            (entry_id,),
        )
        return sorted(rows, key=lambda r: (r.line, r.relation is None))

    def with_contexts(self, links: list[LinkRow]) -> list[LinkRow]:
        """``links`` with each body link's context: its line, cut from the source's indexed
        body around the link (the index stores bodies once, not a context per link)."""
        wanted = [(i, link.source.id, link.span) for i, link in enumerate(links)
                  if link.span is not None and not link.context]  # fmt: skip
        if not wanted:
            return links
        found = _cut_contexts(self._bodies_of({source for _i, source, _s in wanted}), wanted)
        return [replace(link, context=found[i]) if i in found else link
                for i, link in enumerate(links)]  # fmt: skip

    def _link_query(
        self, where: str, params: tuple, page: tuple[int, int] | None = None, lid: bool = False
    ) -> tuple[str, tuple]:
        """The SQL and parameters of the links matching ``where``, in backlinks order
        (``lid``: each row starts with the link's rowid)."""
        return (
            ("SELECT l.lid, " if lid else "SELECT ")
            + _LINK_COLUMNS_SQL
            + " FROM links l JOIN entries s ON s.eid = l.source "
            "LEFT JOIN entries t ON t.eid = l.target "
            f"WHERE {where} ORDER BY l.relation IS NULL, l.relation, s.id, l.line"
            + (" LIMIT ? OFFSET ?" if page else ""),
            (*params, *page) if page else params,
        )

    def _link_rows(
        self,
        where: str,
        params: tuple,
        contexts: bool = True,
        page: tuple[int, int] | None = None,
    ) -> list[LinkRow]:
        rows = self._q(*self._link_query(where, params, page))
        return _links_from_rows(rows, self._bodies(rows) if contexts else None)

    def _bodies(self, rows: list[tuple]) -> dict[str, str]:
        """The indexed bodies of the sources of ``rows``' body links (those whose context
        is cut from the body), by source id."""
        return self._bodies_of({r[0] for r in rows if r[10] is None and r[13] is not None})

    def _bodies_of(self, ids: set[str]) -> dict[str, str]:
        """The indexed bodies of the entries ``ids``, by id: one query per 500 entries."""
        wanted = sorted(ids)
        bodies: dict[str, str] = {}
        with self._lock:
            for at in range(0, len(wanted), 500):
                chunk = wanted[at : at + 500]
                marks = ", ".join("?" * len(chunk))
                sql = "SELECT e.id, f.body FROM entries e JOIN entries_fts f ON f.rowid = e.eid "
                bodies.update(self.conn.execute(f"{sql}WHERE e.id IN ({marks})", chunk).fetchall())
        return bodies
