"""What every query of the index stands on: its connection, its lock and its caches.

:class:`IndexConnection` is the base of the query classes (:mod:`.entries`,
:mod:`.backlinks`, :mod:`.search`, :mod:`.reports`, :mod:`.graph_queries`), which
:class:`anthology.vault.index.VaultIndex` joins into the one door the UI and CLI use.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anthology.vault.lru import LockedLru
from anthology.vault.model import EntryRef

if TYPE_CHECKING:  # networkx costs ~0.3 s to import: loaded when a graph question is asked
    import networkx as nx

    from anthology.vault.resolve import Resolver

# Past this many links in one relation, the first few citing entries are found by walking
# the entries in id order rather than by sorting them all (EntryQueries._cited_by and
# BacklinkQueries.backlinks_page): walking a small group would visit most entries.
WALK_PAST = 2000
# Below it, the first ``wanted`` are found by walking when the walk's steps,
# ``wanted × entries / size``, are fewer than WALK_DENSE × the ``size`` sources the other way
# sorts (a step ~0.5 µs, a sorted source ~1 µs at 10,000 entries); a group of up to
# SORT_UP_TO links, about a page, is sorted whole. See IndexConnection._read_plan.
WALK_DENSE = 2
SORT_UP_TO = 100
# Backlinks views and pages kept until the index changes (see BacklinkQueries.backlinks_view):
# a hub's view is 7 groups of 50 links, ~300 KB with their rows.
VIEW_CACHE_SIZE = 32
PAGE_CACHE_SIZE = 256
# The row id of the entry whose id (any case) is the query's next parameter.
ENTRY_EID = "(SELECT eid FROM entries WHERE id = ? COLLATE NOCASE LIMIT 1)"


def ref(row: sqlite3.Row | tuple) -> EntryRef:
    """An :class:`EntryRef` of an ``(id, title, path)`` row."""
    return EntryRef(row[0], row[1], row[2])


class IndexConnection:
    """A connection to an index and what is cached of it. Use from one thread at a time.

    Another connection (a background indexer) may refresh the same file meanwhile: WAL lets
    readers go on, and in-memory caches are dropped when SQLite's ``data_version`` moves.
    """

    root: Path
    db_path: Path
    conn: sqlite3.Connection

    def _start(self, root: Path, db_path: Path, conn: sqlite3.Connection) -> None:
        """Set up this connection's state (used by the index and by its readers)."""
        self.root = root
        self.db_path = db_path
        self.conn = conn
        self._lock = threading.RLock()
        self._cache_version: int | None = None
        self._resolver: Resolver | None = None
        # source path → {link text: (target eid, status, resolved path) or None}: see _written
        self._written_links: dict[str, dict[str, tuple | None]] = {}
        self._graph: nx.MultiDiGraph | None = None
        # (eid, limit) → the typed relations citing an entry and their counts: a hub's take
        # ~40 ms to count, and a reader comes back to hubs (see EntryQueries._cited_by)
        self._cited: dict[tuple[int, int | None], tuple[list, dict[str, int]]] = {}
        self._entry_count: int | None = None  # what _read_plan weighs a walk by
        # The backlinks of the entries shown last, kept until the index changes: a reader
        # goes back and forth between a hub and its notes, and a hub's view and first pages
        # are ~40 queries (see BacklinkQueries.backlinks_view). (entry id, caps) → its view;
        # (entry id, relation, offset, limit) → a page of it, least recently used first.
        self._backlink_views: LockedLru[Any] = LockedLru(VIEW_CACHE_SIZE)
        self._backlink_pages: LockedLru[list] = LockedLru(PAGE_CACHE_SIZE)

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Ask several questions of one state of the index: a read transaction, so a
        refresh committed meanwhile (another connection) is seen by all of them or none."""
        with self._lock:
            began = not self.conn.in_transaction
            if began:
                self.conn.execute("BEGIN")
            try:
                yield
            finally:
                if began and self.conn.in_transaction:
                    self.conn.execute("COMMIT")

    def interrupt(self) -> None:
        """Stop the query running on this index's connection (from any thread): it returns
        as if nothing was found. For a superseded background question."""
        self.conn.interrupt()

    def _fresh(self) -> None:
        """Drop caches when another connection has written since they were built (this
        connection's own refresh drops them itself)."""
        key = self.generation
        if key != self._cache_version:
            self._cache_version = key
            self._resolver = None
            self._written_links.clear()
            self._cited.clear()
            self._entry_count = None
            self._backlink_views.clear()
            self._backlink_pages.clear()
            self._graph = None

    @property
    def generation(self) -> int:
        """Changes whenever another connection (the background indexer) has written: the
        renderer keys its cache on it, so links re-render once their targets change."""
        with self._lock:
            return self.conn.execute("PRAGMA data_version").fetchone()[0]

    def _q(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        with self._lock:
            return self.conn.execute(sql, params).fetchall()

    def _eid(self, entry_id: str) -> int | None:
        """The row id of the entry ``entry_id`` (any case): what _ENTRY_EID finds in SQL."""
        row = self._q(ENTRY_EID.removeprefix("(").removesuffix(")"), (entry_id,))
        return row[0][0] if row else None

    def _read_plan(self, size: int, wanted: int) -> str:
        """How to find the first ``wanted`` (by id) of the entries linking to one entry in
        one relation, ``size`` links: ``"walk"`` the entries in id order, each looked up in
        the (target, relation, source) index; ``"sources"``: sort the group's sources; or
        ``"sort"`` the whole group's rows (a group of about a page)."""
        if size > WALK_PAST:
            return "walk"
        if size <= SORT_UP_TO:
            return "sort"
        if self._entry_count is None:  # asked per relation of a hub: counted once per state
            # of the index (_fresh drops it; stale, it would change the way, not the rows)
            self._entry_count = self.conn.execute("SELECT count(*) FROM entries").fetchone()[0]
        return "walk" if wanted * self._entry_count < WALK_DENSE * size * size else "sources"

    def entry_ref(self, entry_id: str) -> EntryRef | None:
        """``id``, title and path of one entry (case-insensitive id), or None."""
        rows = self._q(
            "SELECT id, title, path FROM entries WHERE id = ? COLLATE NOCASE ORDER BY id = ? DESC",
            (entry_id, entry_id),
        )
        return ref(rows[0]) if rows else None

    def entry_ref_at_path(self, path: str) -> EntryRef | None:
        """The entry of the note at the vault-relative ``path`` (``notes/a b.md``), or None:
        what ``anthology NOTE.md`` and "Open with" name."""
        rows = self._q("SELECT id, title, path FROM entries WHERE path = ?", (path,))
        return ref(rows[0]) if rows else None

    def _typed_relations_to(self, eid: int) -> list[str]:
        """The relations under which ``eid`` is cited, by name: found by skipping through
        the (target, relation, source) index, one step per relation (a hub's 800,000 links
        took 0.17 s to group)."""
        return [r for (r,) in self.conn.execute(
            "WITH RECURSIVE r(rel) AS (SELECT min(relation) FROM links WHERE target = ?1 "
            "UNION ALL SELECT (SELECT min(relation) FROM links WHERE target = ?1 "
            "AND relation > r.rel) FROM r WHERE r.rel IS NOT NULL) "
            "SELECT rel FROM r WHERE rel IS NOT NULL", (eid,))]  # fmt: skip
