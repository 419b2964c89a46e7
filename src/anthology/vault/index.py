"""The vault index and its query API: the one door through which the UI and CLI see a vault.

>>> with VaultIndex.open("entries") as index:          # doctest: +SKIP
...     index.entry("LIT-008").cited_by
...     index.backlinks("LIT-008"), index.search("tag:normalization rms")

The UI never writes SQL: it asks these documented methods. The index is a cache in the
user's cache folder (never inside the vault) and can be deleted at any time.
"""

from __future__ import annotations

import contextlib
import errno
import json
import re
import sqlite3
import threading
import unicodedata
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import platformdirs

from anthology.paths import vault_file_name
from anthology.vault.graph_data import GraphData
from anthology.vault.index_file import (
    IndexFileError,
    build_lock,
    check_place,
    describe_sqlite_error,
    make_folder,
    remove_index,
)
from anthology.vault.indexer import Indexer, RefreshReport, Task
from anthology.vault.model import (
    MATCH_END,
    MATCH_START,
    Entry,
    EntryRef,
    LinkRow,
    Problem,
    Relation,
    SearchHit,
)
from anthology.vault.parse import link_contexts
from anthology.vault.resolve import ATTACHMENT, RESOLVED, Resolver
from anthology.vault.scan import read_shown_body, vault_file, vault_root
from anthology.vault.schema import open_database

if TYPE_CHECKING:  # networkx costs ~0.3 s to import: loaded when a graph question is asked
    import networkx as nx

HOME_IDS = ("home", "index", "readme")
# Past this many links in one relation, the first few citing entries are found by walking
# the entries in id order rather than by sorting them all (VaultIndex._cited_by and
# VaultIndex.backlinks_page): walking a small group would visit most entries.
WALK_PAST = 2000
# Rows fetched at a time by VaultIndex.iter_backlinks.
BACKLINK_BATCH = 1000
_FILTER_RE = re.compile(r'(?:^|\s)(-?)(tag|kind|status):("[^"]*"|\S+)', re.I)
_TERM_RE = re.compile(r'(-?)("[^"]*"|\S+)')
_LINK_PROBLEM_KIND = {
    "unresolved": ("unresolved-link", "error", "links to “{text}”, which is not an entry"),
    "ambiguous": ("ambiguous-link", "warning", "“{text}” names several entries: {candidates}"),
    "outside": ("outside-link", "error", "“{text}” points outside the vault; not followed"),
    "missing-attachment": ("missing-attachment", "error", "attachment “{text}” not found"),
}


def default_db_path(root: Path) -> Path:
    """The index of the vault at ``root``, in the user cache folder, keyed by its path."""
    return Path(platformdirs.user_cache_dir("anthology")) / "indexes" / vault_file_name(root)


def _ref(row: sqlite3.Row | tuple) -> EntryRef:
    return EntryRef(row[0], row[1], row[2])


def _cut_contexts(
    bodies: dict[str, str], wanted: list[tuple[int, str, tuple[int, int]]]
) -> dict[int, str]:
    """The context line of each ``(key, source id, span)`` in ``wanted`` whose source's body
    is in ``bodies``, by key: one pass over each body for all its links, so that a line
    holding thousands of links is cut in linear time overall (see link_contexts)."""
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


def _is_corruption(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return any(w in text for w in ("malformed", "not a database", "corrupt", "no such table"))


def _fts_phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


# Snippets are cut here, in Python, not by FTS5's snippet(): it scores every window around
# every hit, quadratic in the hits of one document (40k hits: 10-20 s; a 200 MB note: past
# 10 minutes). Ranking still runs over the whole text (MATCH, bm25); the snippet looks at
# the first SNIPPET_WINDOW characters of each column only, for the few rows shown.
SNIPPET_WINDOW = 65_536
SNIPPET_TOKENS = 16  # as snippet(…, 16) did
# A title that is a common word matches most of a vault: rank only the first this many
# matching entries (by row) for its unlinked mentions.
MENTION_ROWS = 5_000
# unicode61's tokens: runs of letters, digits and private-use characters (not "_").
_TOKEN_RE = re.compile(r"[^\W_]+|[\ue000-\uf8ff]+")


def _fold(word: str) -> str:
    """A token as unicode61 (remove_diacritics 2) compares it: lower case, no accents."""
    word = word.lower()
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _phrase(text: str, prefix: bool = False) -> tuple[tuple[str, ...], bool] | None:
    """The folded tokens of a query phrase, and whether its last one matches as a prefix."""
    words = tuple(_fold(w) for w in _TOKEN_RE.findall(text))
    return (words, prefix) if words else None


def _match_at(
    tokens: list[tuple[int, int, str]], i: int, phrases: list[tuple[tuple[str, ...], bool]]
) -> int:
    """The number of tokens of the phrase matching at token ``i``, or 0."""
    for words, prefix in phrases:
        n = len(words)
        if i + n > len(tokens):
            continue
        last = tokens[i + n - 1][2]
        if all(tokens[i + k][2] == words[k] for k in range(n - 1)) and (
            last.startswith(words[-1]) if prefix else last == words[-1]
        ):
            return n
    return 0


def _cut_snippet(
    texts: list[str | None], phrases: list[tuple[tuple[str, ...], bool]], cut: int
) -> str:
    """A snippet like FTS5's: :data:`SNIPPET_TOKENS` tokens from the first column (in
    ``texts`` order) where a phrase matches, each match between MATCH_START and MATCH_END,
    "…" where text was left out. ``texts`` are the columns' first ``cut`` characters; work
    is linear in them (each token is compared with each phrase once)."""
    fallback: str | None = None
    for text in texts:
        if not text:
            continue
        tokens = [(m.start(), m.end(), _fold(m.group())) for m in _TOKEN_RE.finditer(text)]
        if not tokens:
            continue
        cut_off = len(text) >= cut  # the column goes on past what was read
        spans: list[tuple[int, int]] = []  # (first token, last token + 1) of each match

        first = next((i for i in range(len(tokens)) if _match_at(tokens, i, phrases)), None)
        if first is None:
            if fallback is None:
                fallback = _render(text, tokens, 0, min(len(tokens), SNIPPET_TOKENS), [], cut_off)
            continue
        # A few tokens of lead-in before the first match, as a reader expects.
        start = max(0, min(first - 2, len(tokens) - SNIPPET_TOKENS))
        end = min(len(tokens), start + SNIPPET_TOKENS)
        i = first
        while i < end:
            n = _match_at(tokens, i, phrases)
            if n:
                spans.append((i, min(i + n, end)))
                i += n
            else:
                i += 1
        return _render(text, tokens, start, end, spans, cut_off)
    return fallback or ""


def _render(
    text: str,
    tokens: list[tuple[int, int, str]],
    start: int,
    end: int,
    spans: list[tuple[int, int]],
    cut_off: bool,
) -> str:
    out = ["…"] if start > 0 else [text[: tokens[0][0]]]
    pos = tokens[start][0]
    for a, b in spans:
        out += [text[pos : tokens[a][0]], MATCH_START, text[tokens[a][0] : tokens[b - 1][1]],
                MATCH_END]  # fmt: skip
        pos = tokens[b - 1][1]
    out.append(text[pos : tokens[end - 1][1]])
    if end < len(tokens) or cut_off:
        out.append("…")
    else:
        out.append(text[tokens[end - 1][1] :])
    return "".join(out)


# The row id of the entry whose id (any case) is the query's next parameter.
_ENTRY_EID = "(SELECT eid FROM entries WHERE id = ? COLLATE NOCASE LIMIT 1)"
# A link row as _links_from_rows reads it (s: its source, t: its target, l: the link).
_LINK_COLUMNS_SQL = (
    "s.id, s.title, s.path, t.id, t.title, t.path, l.text, l.relation, "
    "l.embed, l.line, l.context, l.alias, l.heading, l.body_start, l.body_end"
)


class VaultIndex:
    """A vault and its SQLite index. Open with :meth:`open`; use from one thread at a time.

    Another connection (a background indexer) may refresh the same file meanwhile: WAL lets
    readers go on, and in-memory caches are dropped when SQLite's ``data_version`` moves.
    """

    def __init__(self, root: Path, db_path: Path) -> None:
        self.root = root
        self.db_path = db_path
        try:
            self.conn, self.created, self.read_only = open_database(db_path)
        except IndexFileError:
            raise
        except sqlite3.DatabaseError:
            remove_index(db_path)  # corrupt beyond what the header check sees (and ours)
            self.conn, self.created, self.read_only = open_database(db_path)
        # Why the last refresh could not write (a read-only index), for the caller to say.
        self.stale_reason: str | None = None
        self._lock = threading.RLock()
        self._cache_version: int | None = None
        self._resolver: Resolver | None = None
        # source path → {link text: (target eid, status, resolved path) or None}: see _written
        self._written_links: dict[str, dict[str, tuple | None]] = {}
        self._graph: nx.MultiDiGraph | None = None
        self.last_report: RefreshReport | None = None

    # -- lifecycle -------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        vault: str | Path,
        db: str | Path | None = None,
        *,
        refresh: bool = True,
        task: Task | None = None,
        rebuild: bool = False,
        allow_stale: bool = False,
    ) -> VaultIndex:
        """Open (and by default refresh) the index of ``vault``; ``db`` overrides its place.

        :class:`IndexFileError` when the index may not live at ``db`` (see
        :mod:`index_file`). ``rebuild`` deletes the index first. With ``allow_stale``, an
        index that cannot be written (read-only file or folder) is opened as it was last
        built, with :attr:`stale_reason` saying why, instead of failing.
        """
        root = vault_root(vault)
        place = check_place(Path(db) if db else default_db_path(root), root, allow_empty=True)
        make_folder(place.parent)
        with build_lock(place):  # a concurrent build may be creating this very file
            check_place(place, root)
            if rebuild:
                remove_index(place)
            index = cls(root, place)
        if refresh:
            if index.read_only:
                index._stale("the index is in a read-only folder", allow_stale)
            else:
                try:
                    index.refresh(task)
                except IndexFileError as exc:
                    if "read-only" not in str(exc):
                        index.close()
                        raise
                    index._stale(str(exc), allow_stale)
        return index

    def _stale(self, reason: str, allowed: bool) -> None:
        if not allowed:
            self.close()
            raise IndexFileError(f"{reason}: cannot bring the index at {self.db_path} up to date")
        self.stale_reason = reason

    def refresh(self, task: Task | None = None) -> RefreshReport:
        """Bring the index up to date with the files; only what changed is read again."""
        with self._lock, build_lock(self.db_path):  # another build finishes first
            try:
                try:
                    report = Indexer(self.conn, self.root).refresh(task)
                except sqlite3.DatabaseError as exc:
                    if not _is_corruption(exc):
                        raise
                    # A file that passed the header check but is damaged inside: start over.
                    self.conn.close()
                    remove_index(self.db_path)
                    self.conn, self.created, self.read_only = open_database(self.db_path)
                    report = Indexer(self.conn, self.root).refresh(task)
            except sqlite3.Error as exc:
                message = describe_sqlite_error(exc, self.db_path)
                if message is None:
                    raise
                if self.conn.in_transaction:
                    self.conn.rollback()
                raise IndexFileError(message) from None
            except OSError as exc:  # the scratch folder of a build: disk full, no access
                if exc.errno != errno.ENOSPC:
                    raise
                raise IndexFileError(
                    f"the disk is full: cannot build the index at {self.db_path}; free some space"
                ) from None
            self._cache_version = None
            self.last_report = report
            return report

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

    def __enter__(self) -> VaultIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _fresh(self) -> None:
        """Drop caches when another connection has written since they were built (this
        connection's own refresh drops them itself)."""
        key = self.generation
        if key != self._cache_version:
            self._cache_version = key
            self._resolver = None
            self._written_links.clear()
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

    # -- entries ---------------------------------------------------------------------------
    def entry_ref(self, entry_id: str) -> EntryRef | None:
        """``id``, title and path of one entry (case-insensitive id), or None."""
        rows = self._q(
            "SELECT id, title, path FROM entries WHERE id = ? COLLATE NOCASE ORDER BY id = ? DESC",
            (entry_id, entry_id),
        )
        return _ref(rows[0]) if rows else None

    def entries(self) -> list[EntryRef]:
        """Every entry, sorted by id: what the quick switcher lists."""
        return [_ref(r) for r in self._q("SELECT id, title, path FROM entries ORDER BY id")]

    def switcher_items(self) -> list[tuple[EntryRef, list[str]]]:
        """Every entry with its aliases, for fuzzy matching over id, title and alias."""
        return [
            (EntryRef(i, t, p), json.loads(a or "[]"))
            for i, t, p, a in self._q("SELECT id, title, path, aliases FROM entries ORDER BY id")
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
            "words, reading_minutes, headings, mtime_ns FROM entries "
            "WHERE id = ? COLLATE NOCASE ORDER BY id = ? DESC",
            (entry_id, entry_id),
        )
        if not rows:
            return None
        (eid, eid_s, path, title, kind, status, tags, aliases, props, body_line,
         words, minutes, headings, mtime_ns) = rows[0]  # fmt: skip
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
        )

    def _cited_by(self, eid: int, limit: int | None) -> tuple[list[Relation], dict[str, int]]:
        """The entries citing ``eid`` through a typed relation, at most ``limit`` per relation
        (the first by id, case folded), and how many cite it per relation.

        A hub is cited by tens of thousands: sorting them all to show ten took 0.8 s at
        100,000 entries. For a large relation, the entries are walked in id order (the id
        index) and each is asked whether it cites this one, which stops after ``limit``
        finds; a small one is joined and sorted whole."""
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
            if limit is not None and total > WALK_PAST:
                rows = self._q(
                    "SELECT (SELECT text FROM links WHERE target = ?1 AND relation = ?2 "
                    "AND source = s.eid LIMIT 1) AS text, s.id, s.title, s.path FROM entries s "
                    "WHERE s.eid != ?1 AND EXISTS (SELECT 1 FROM links WHERE target = ?1 "
                    "AND relation = ?2 AND source = s.eid) ORDER BY s.id COLLATE NOCASE "
                    "LIMIT ?3", (eid, relation, limit))  # fmt: skip
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
        is not read whole on every open and hover), through :func:`scan.open_regular` (never
        a file outside the vault, never a FIFO; an escaped name reads the real file)."""
        shown = read_shown_body(self.root, path)
        return None if shown is None else (shown.body, shown.body_line, shown.body_chars)

    def _read_body(self, path: str) -> tuple[str, int] | None:
        shown = self._read_shown(path)
        return None if shown is None else shown[:2]

    # -- links -----------------------------------------------------------------------------
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

    def backlinks(self, entry_id: str, *, contexts: bool = True) -> list[LinkRow]:
        """Every link to this entry from another, typed relations first, with its context.

        Without ``contexts``, body links come with an empty context, for a caller that
        shows only some of them (a hub can have tens of thousands): see
        :meth:`with_contexts`."""
        return self._link_rows(
            f"l.target = {_ENTRY_EID} AND l.source != l.target", (entry_id,), contexts
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
                f"WHERE l.target = {_ENTRY_EID} AND l.source != l.target "
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
            f"SELECT count(*) FROM links WHERE target = {_ENTRY_EID} AND source != target",
            (entry_id,),
        )[0][0]

    def _eid(self, entry_id: str) -> int | None:
        """The row id of the entry ``entry_id`` (any case): what _ENTRY_EID finds in SQL."""
        row = self._q(_ENTRY_EID.removeprefix("(").removesuffix(")"), (entry_id,))
        return row[0][0] if row else None

    def _typed_relations_to(self, eid: int) -> list[str]:
        """The relations under which ``eid`` is cited, by name: found by skipping through
        the (target, relation, source) index, one step per relation (a hub's 800,000 links
        took 0.17 s to group)."""
        return [r for (r,) in self.conn.execute(
            "WITH RECURSIVE r(rel) AS (SELECT min(relation) FROM links WHERE target = ?1 "
            "UNION ALL SELECT (SELECT min(relation) FROM links WHERE target = ?1 "
            "AND relation > r.rel) FROM r WHERE r.rel IS NOT NULL) "
            "SELECT rel FROM r WHERE rel IS NOT NULL", (eid,))]  # fmt: skip

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
    ) -> list[LinkRow]:
        """``limit`` backlinks under ``relation`` (None: untyped mentions) from ``offset`` on,
        in :meth:`backlinks` order, with their contexts (without ``contexts``: body links
        come with an empty one, see :meth:`link_context`): a page for a panel that shows a
        hub's tens of thousands of links a page at a time.

        Sorting a hub's 750,000 mentions for each page of 100 took 0.7 s: a large group is
        read by walking the sources in id order (the id index) and looking each one's links
        up in the (target, relation, source) index, which stops once the page is full; a
        small one is fetched and sorted whole (walking would visit most entries)."""
        with self._lock:
            eid = self._eid(entry_id)
            if eid is None:
                return []
            large = self.conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM links WHERE target = ? AND relation IS ? "
                "LIMIT ?)", (eid, relation, WALK_PAST + 1)).fetchone()[0] > WALK_PAST  # fmt: skip
        if not large:
            return self._link_rows(
                "l.target = ? AND l.source != l.target AND l.relation IS ?",
                (eid, relation),
                contexts,
                page=(limit, offset),
            )
        rows = self._q(
            "SELECT " + _LINK_COLUMNS_SQL + " FROM entries s CROSS JOIN links l "
            "ON l.source = s.eid AND l.target = ?1 AND l.relation IS ?2 AND l.source != ?1 "
            "LEFT JOIN entries t ON t.eid = l.target ORDER BY s.id, l.line LIMIT ?3 OFFSET ?4",
            (eid, relation, limit, offset),
        )
        return _links_from_rows(rows, self._bodies(rows) if contexts else None)

    def link_context(self, link: LinkRow) -> str:
        """The context line of one body link that came without it (see
        :meth:`backlinks_page`'s ``contexts``): cut from its source's indexed body."""
        return self.with_contexts([link])[0].context

    def outgoing(self, entry_id: str) -> list[LinkRow]:
        """Every link written in this entry (resolved or not), in order of appearance."""
        rows = self._link_rows(
            "l.source = (SELECT eid FROM entries WHERE id = ? COLLATE NOCASE LIMIT 1)",
            (entry_id,),
        )
        return sorted(rows, key=lambda r: (r.line, r.relation is None))

    def unlinked_mentions(self, entry_id: str, limit: int = 50) -> list[SearchHit]:
        """Entries whose text names this entry's title or an alias without linking to it."""
        ref = self.entry_ref(entry_id)
        if ref is None:
            return []
        rows = self._q("SELECT aliases FROM entries WHERE id = ?", (ref.id,))
        names = [ref.title, *json.loads(rows[0][0] or "[]")]
        if "/" not in ref.id and ref.id != ref.title:
            names.append(ref.id)
        names = [n for n in dict.fromkeys(n.strip() for n in names) if len(n) >= 3]
        if not names:
            return []
        query = " OR ".join(f"body : {_fts_phrase(n)}" for n in names)
        phrases = [p for n in names if (p := _phrase(n))]
        with self._lock:
            try:
                # Rank at most MENTION_ROWS matching rows, then read a bounded head of the
                # bodies of the ``limit`` best to cut their snippets.
                found = self.conn.execute(
                    "SELECT e.id, e.title, e.path, e.kind, r.score, "
                    f"substr(f.body, 1, {SNIPPET_WINDOW}) FROM ("
                    " SELECT m.rid, m.score FROM ("
                    "  SELECT rowid AS rid, bm25(entries_fts) AS score FROM entries_fts"
                    "  WHERE entries_fts MATCH ? LIMIT ?) m"
                    " JOIN entries e ON e.eid = m.rid WHERE e.id != ? AND e.eid NOT IN"
                    " (SELECT source FROM links"
                    "  WHERE target = (SELECT eid FROM entries WHERE id = ?))"
                    " ORDER BY m.score LIMIT ?) r "
                    "JOIN entries e ON e.eid = r.rid JOIN entries_fts f ON f.rowid = r.rid "
                    "ORDER BY r.score",
                    (query, MENTION_ROWS, ref.id, ref.id, limit),
                ).fetchall()
            except sqlite3.OperationalError:  # also: interrupted (see :meth:`interrupt`)
                return []
        return [
            SearchHit(EntryRef(i, t, p), k or "", _cut_snippet([body], phrases, SNIPPET_WINDOW), -b)
            for i, t, p, k, b, body in found
        ]

    def reader(self) -> VaultIndex:
        """Another VaultIndex on the same file with its own read-only connection, for a
        question asked on another thread (the unlinked mentions of a common word): it does
        not hold this index's lock, so the GUI thread's questions go on meanwhile."""
        other = type(self).__new__(type(self))
        other.root = self.root
        other.db_path = self.db_path
        other.conn = sqlite3.connect(
            f"{self.db_path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False,
            timeout=30,
        )  # fmt: skip
        other.created = False
        other._lock = threading.RLock()
        other._cache_version = None
        other._resolver = None
        other._written_links = {}
        other._graph = None
        other.last_report = None
        return other

    def interrupt(self) -> None:
        """Stop the query running on this index's connection (from any thread): it returns
        as if nothing was found. For a superseded background question."""
        self.conn.interrupt()

    # -- graph -----------------------------------------------------------------------------
    def link_graph(self) -> nx.MultiDiGraph:
        """The resolved links as a networkx multigraph (nodes: entry ids; cached)."""
        import networkx as nx

        with self._lock:
            self._fresh()
            if self._graph is None:
                g = nx.MultiDiGraph()
                for entry_id, title, path, kind in self.conn.execute(
                    "SELECT id, title, path, kind FROM entries"
                ):
                    g.add_node(entry_id, title=title, path=path, kind=kind or "")
                for s, t, relation, text, embed, line in self.conn.execute(
                    "SELECT s.id, t.id, l.relation, l.text, l.embed, l.line FROM links l "
                    "JOIN entries s ON s.eid = l.source JOIN entries t ON t.eid = l.target"
                ):
                    g.add_edge(s, t, relation=relation or "", text=text, embed=embed, line=line)
                self._graph = g
            return self._graph

    def neighbourhood(self, entry_id: str, depth: int = 1) -> list[str]:
        """Ids within ``depth`` links of the entry, either direction, itself first."""
        import networkx as nx

        g = self.link_graph()
        ref = self.entry_ref(entry_id)
        if ref is None:
            return []
        lengths = nx.single_source_shortest_path_length(g.to_undirected(as_view=True), ref.id,
                                                        cutoff=depth)  # fmt: skip
        return sorted(lengths, key=lambda n: (lengths[n], n))

    def graph(self, *, ghosts: bool = False) -> GraphData:
        """All entries and their resolved links as arrays, for the layout and the graph view.

        With ``ghosts``, each distinct unresolved target becomes a node of its own, id
        ``?text``, so the view can show where the vault wants a note it does not have.
        """
        rows = self._q("SELECT eid, id, title, kind, tags FROM entries ORDER BY id")
        index = {eid: i for i, (eid, *_rest) in enumerate(rows)}
        ids = [r[1] for r in rows]
        titles = [r[2] for r in rows]
        kinds = [r[3] or "" for r in rows]
        tags = [json.loads(r[4] or "[]") for r in rows]
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
                pairs.setdefault((index[s], ghost_index[key]), None)
        edges = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
        return GraphData(ids, titles, kinds, tags, edges, list(pairs.values()),
                         np.array(ghost, dtype=bool))  # fmt: skip

    # -- search ----------------------------------------------------------------------------
    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Full-text search over title, aliases, tags and body, best first, with snippets.

        ``tag:x`` (also matches nested ``x/…``), ``kind:x`` and ``status:x`` filter; a ``-``
        before a filter or a word excludes it; ``"quoted words"`` is a phrase; the last
        word also matches as a prefix, so results come while typing.
        """
        where: list[str] = []
        params: list[Any] = []
        for neg, key, value in _FILTER_RE.findall(query):
            value = value.strip('"').lstrip("#")
            if key.lower() == "tag":
                # NOCASE and LIKE fold ASCII letters, as lower() does.
                cond = ("e.eid IN (SELECT eid FROM tags WHERE tag = ? COLLATE NOCASE "
                        "OR tag LIKE ? || '/%' ESCAPE '\\')")  # fmt: skip
                like = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                params += [value, like]
            else:
                cond = f"lower(e.{key.lower()}) = lower(?)"
                params.append(value)
            where.append(f"NOT ({cond})" if neg else cond)
        text = _FILTER_RE.sub(" ", query).strip()
        terms = _TERM_RE.findall(text)
        positive = [t for neg, t in terms if not neg]
        parts = []
        phrases: list[tuple[tuple[str, ...], bool]] = []  # what a snippet marks
        for i, (neg, term) in enumerate(terms):
            phrase = term.strip('"')
            if not phrase.strip():
                continue
            words = re.findall(r"\w+", phrase)
            if not words:
                continue
            fts = _fts_phrase(" ".join(words))
            is_last = i == len(terms) - 1 and not term.startswith('"')
            if is_last and not neg:
                fts += "*"
            if not neg and (found := _phrase(" ".join(words), prefix=is_last)):
                phrases.append(found)
            parts.append(("NOT " if neg else "") + fts)
        cond_sql = " AND ".join(where) if where else "1"
        with self._lock:
            if parts and positive:
                # FTS5's NOT is binary: the positive words go first, the exclusions after.
                match = " ".join(sorted(parts, key=lambda p: p.startswith("NOT ")))
                w = SNIPPET_WINDOW
                try:
                    # Rank over the whole text; then, for the ``limit`` best only, a bounded
                    # head of each column, from which the snippet is cut.
                    rows = self.conn.execute(
                        "SELECT e.id, e.title, e.path, e.kind, r.rank, substr(f.body, 1, ?), "
                        "substr(f.title, 1, ?), substr(f.aliases, 1, ?), substr(f.tags, 1, ?) "
                        "FROM (SELECT entries_fts.rowid AS rid, "
                        " bm25(entries_fts, 10.0, 5.0, 3.0, 1.0) AS rank FROM entries_fts"
                        " JOIN entries e ON e.eid = entries_fts.rowid"
                        f" WHERE entries_fts MATCH ? AND {cond_sql} ORDER BY rank LIMIT ?) r "
                        "JOIN entries e ON e.eid = r.rid JOIN entries_fts f ON f.rowid = r.rid "
                        "ORDER BY r.rank",
                        [w, w, w, w, match, *params, limit],
                    ).fetchall()
                except sqlite3.OperationalError:
                    rows = []
                return [
                    SearchHit(EntryRef(i, t, p), k or "", _cut_snippet(list(cols), phrases, w), -r)
                    for i, t, p, k, r, *cols in rows
                ]
            if not where:
                return []
            rows = self.conn.execute(
                "SELECT e.id, e.title, e.path, e.kind, substr(f.body, 1, 160) FROM entries e "
                f"JOIN entries_fts f ON f.rowid = e.eid WHERE {cond_sql} ORDER BY e.id LIMIT ?",
                [*params, limit],
            ).fetchall()
            return [
                SearchHit(EntryRef(i, t, p), k or "", " ".join(s.split()), 0.0)
                for i, t, p, k, s in rows
            ]

    # -- problems and stats ----------------------------------------------------------------
    def problems(self) -> list[Problem]:
        """What ``anthology check`` reports: broken files, bad links, duplicate ids, orphans."""
        out = [
            Problem(path, line, kind, message, severity)
            for path, line, kind, message, severity in self._q(
                "SELECT path, line, kind, message, severity FROM problems ORDER BY path, line"
            )
        ]
        for path, text, status, line, extra in self._q(
            "SELECT e.path, l.text, l.status, l.line, l.resolved_path FROM links l "
            "JOIN entries e ON e.eid = l.source WHERE l.status NOT IN (?, ?) "
            "ORDER BY e.path, l.line",
            (RESOLVED, ATTACHMENT),
        ):
            kind, severity, template = _LINK_PROBLEM_KIND.get(
                status, ("link", "error", "cannot follow “{text}”")
            )
            candidates = ", ".join(json.loads(extra)) if status == "ambiguous" and extra else ""
            message = template.format(text=text, candidates=candidates)
            out.append(Problem(path, line, kind, message, severity))
        home = self.home_id()
        for entry_id, path in self._q(
            "SELECT id, path FROM entries e WHERE NOT EXISTS (SELECT 1 FROM links l "
            "WHERE l.target = e.eid AND l.source != e.eid) ORDER BY path"
        ):
            if entry_id == home:
                continue
            out.append(Problem(path, None, "orphan", "no other entry links here", "warning"))
        return sorted(out, key=lambda p: (p.path, p.line or 0, p.kind))

    def stats(self) -> dict[str, int]:
        """Counts for the status bar and ``anthology index``."""
        q = lambda sql: self._q(sql)[0][0]  # noqa: E731
        problems = self.problems()
        return {
            "entries": q("SELECT count(*) FROM entries"),
            "links": q("SELECT count(*) FROM links"),
            "resolved_links": q("SELECT count(*) FROM links WHERE target IS NOT NULL"),
            "unresolved_links": q("SELECT count(*) FROM links WHERE status = 'unresolved'"),
            "typed_relations": q("SELECT count(*) FROM links WHERE relation IS NOT NULL"),
            "tags": q("SELECT count(DISTINCT lower(tag)) FROM tags"),
            "attachments": q("SELECT count(*) FROM attachments"),
            "errors": sum(p.severity == "error" for p in problems),
            "warnings": sum(p.severity != "error" for p in problems),
        }

    # -- the renderer's questions (anthology.vault.model.LinkResolver) ----------------------
    def _get_resolver(self) -> Resolver:
        with self._lock:
            self._fresh()
            if self._resolver is None:
                self._resolver = Indexer(self.conn, self.root).resolver()
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
            return _ref(rows[0]) if rows else None
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

    # -- export ----------------------------------------------------------------------------
    def export_json(self) -> dict[str, Any]:
        """The graph as ``{"entries": […], "links": […], "problems": […]}`` (see README)."""
        entries = [
            {
                "id": i,
                "path": p,
                "title": t,
                "kind": k or "",
                "tags": json.loads(tg or "[]"),
                "properties": json.loads(pr or "{}"),
            }
            for i, p, t, k, tg, pr in self._q(
                "SELECT id, path, title, kind, tags, properties FROM entries ORDER BY id"
            )
        ]
        links = [
            {"source": s, "target": t, "text": text, "relation": rel, "embed": bool(em),
             "line": line}
            for s, t, text, rel, em, line in self._q(
                "SELECT s.id, t.id, l.text, l.relation, l.embed, l.line FROM links l "
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

        g = nx.MultiDiGraph()
        for i, p, t, k, tg in self._q("SELECT id, path, title, kind, tags FROM entries"):
            g.add_node(i, title=t, path=p, kind=k or "", tags=", ".join(json.loads(tg or "[]")))
        for s, t, text, rel, em, line in self._q(
            "SELECT s.id, t.id, l.text, l.relation, l.embed, l.line FROM links l "
            "JOIN entries s ON s.eid = l.source JOIN entries t ON t.eid = l.target ORDER BY l.lid"
        ):
            g.add_edge(s, t, relation=rel or "mentions", text=text, embed=bool(em), line=line)
        nx.write_graphml(g, out)
