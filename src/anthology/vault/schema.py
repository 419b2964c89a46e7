"""The one owner of the index's schema.

The index is a cache of the vault: its version lives in ``PRAGMA user_version``, and any
mismatch, foreign file or corruption means "delete and rebuild", never "migrate" — the
Markdown files are the truth and rebuilding loses nothing.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import get_args, get_type_hints
from urllib.parse import quote

from anthology.vault.index_file import (
    APPLICATION_ID,
    BUILDING,
    IndexFileError,
    describe_sqlite_error,
    make_folder,
    remove_building,
    remove_index,
)
from anthology.vault.rows import EntryRow, LinkTarget, ParsedLink, ProblemRow

# 7: the application id in the header (see index_file); 8: no write-only data (the aliases
# and properties tables, entries.declared_id)
# 9: graph positions moved to the user state (user_state.py)
# 10: files.ctime_ns (a note made unreadable by chmod is read again: its mtime stays)
# 11: a note whose first heading is empty is titled by its file name (parse.py): read again
# 12: a .canvas is an entry (kind "canvas"), and [[Board.canvas]] links to it, no longer to
# an attachment: an index of 11 or less holds neither
# 13: entries.fields and entries.items, Dataview's inline fields and list items (note_fields);
# the status bar's counts kept in meta under STATS_KEY (reports.py), not counted at every start
SCHEMA_VERSION = 13
STATS_KEY = "stats"
# a new random text whenever a refresh has changed the index, written with the counts: what
# caches of the index's answers kept outside it are keyed by (graph_cache.py)
REVISION_KEY = "revision"
APP_ID = "anthology-index"


# The tables' columns, from their rows' fields (see anthology.vault.rows).
def _table(row: type[tuple]) -> dict[str, type]:
    """A row type's columns and their Python types (``int | None`` is ``int``)."""
    hints = get_type_hints(row)
    return {name: next(t for t in get_args(h) or (h,) if t is not type(None))
            for name, h in hints.items()}  # fmt: skip


ENTRIES = _table(EntryRow)
LINKS = {"lid": int, "source": int, **_table(LinkTarget), **_table(ParsedLink)}
PROBLEMS = _table(ProblemRow)


def columns(table: dict[str, type], *, skip: tuple[str, ...] = ()) -> str:
    """The table's column names in order, comma-separated, without those in ``skip``."""
    return ", ".join(name for name in table if name not in skip)


def insert_sql(name: str, table: dict[str, type], *, skip: tuple[str, ...] = ()) -> str:
    """``INSERT INTO name (columns) VALUES (?, …)`` for every column but those in ``skip``."""
    names = [n for n in table if n not in skip]
    return f"INSERT INTO {name} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"


ENTRY_COLUMNS = columns(ENTRIES)
LINK_COLUMNS = columns(LINKS, skip=("lid",))  # the row id is SQLite's to give
PROBLEM_COLUMNS = columns(PROBLEMS)


# The SQL type of each Python type the rows hold (SQLite's type affinity: what a column
# stores a value as).
_SQL_TYPES: dict[type, str] = {str: "TEXT", int: "INTEGER"}


def _create_table(
    conn: sqlite3.Connection,
    name: str,
    table: dict[str, type],
    *,
    pk: str | None = None,
    not_null: tuple[str, ...] = (),
) -> None:
    """``CREATE TABLE`` with ``table``'s columns in order (an INTEGER ``pk`` is the rowid)."""
    cols = ", ".join(
        f'"{col}" {_SQL_TYPES[kind]}'
        + (" PRIMARY KEY" if col == pk else "")
        + (" NOT NULL" if col in not_null else "")
        for col, kind in table.items()
    )
    conn.execute(f'CREATE TABLE "{name}" ({cols})')


def _create_index(
    conn: sqlite3.Connection, table: str, cols: list[str], *, unique: bool = False
) -> None:
    """An index on ``cols`` named ``idx_<table>_<cols>``."""
    name = f"idx_{table}_{'_'.join(cols)}"
    keys = ", ".join(f'"{c}"' for c in cols)
    conn.execute(f'CREATE {"UNIQUE " if unique else ""}INDEX "{name}" ON "{table}" ({keys})')


def create_schema(conn: sqlite3.Connection) -> None:
    """Create every table and index of an empty database."""
    _create_table(conn, "meta", {"key": str, "value": str}, pk="key")
    # Every file seen, with the stat that decides whether it must be read again.
    _create_table(
        conn, "files", {"path": str, "size": int, "mtime_ns": int, "ctime_ns": int}, pk="path"
    )
    _create_table(conn, "entries", ENTRIES, pk="eid", not_null=("id", "path"))
    _create_index(conn, "entries", ["id"], unique=True)
    _create_index(conn, "entries", ["path"], unique=True)
    conn.execute("CREATE UNIQUE INDEX idx_entries_id_nocase ON entries(id COLLATE NOCASE, eid)")
    _create_table(conn, "links", LINKS, pk="lid")
    _create_index(conn, "links", ["source"])
    # Backlinks, grouped by relation; with the source, a hub's groups and citing entries
    # are counted from the index alone (81,407 links: 80 → 24 ms).
    _create_index(conn, "links", ["target", "relation", "source"])
    _create_index(conn, "links", ["target_name"])
    # Clustered by entry (an entry's tags are unique): a refresh deletes an entry's rows as
    # one range, and no separate index on eid is written.
    conn.execute(
        "CREATE TABLE tags (eid INTEGER NOT NULL, tag TEXT NOT NULL, "
        "PRIMARY KEY (eid, tag)) WITHOUT ROWID"
    )
    conn.execute("CREATE INDEX idx_tags_tag ON tags(tag COLLATE NOCASE)")
    _create_table(conn, "problems", PROBLEMS)
    _create_index(conn, "problems", ["path"])
    _create_table(conn, "attachments", {"path": str}, pk="path")
    conn.execute(
        "CREATE VIRTUAL TABLE entries_fts USING fts5("
        "title, aliases, tags, body, tokenize = 'unicode61 remove_diacritics 2')"
    )
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('app', ?)", (APP_ID,))
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # proves the file is ours
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _is_current(path: Path) -> bool:
    """Whether ``path`` is an index of ours, of this schema version, and readable."""
    for mode in ("mode=ro", "immutable=1"):  # immutable: in a read-only folder
        try:
            conn = sqlite3.connect(f"file:{quote(str(path))}?{mode}", uri=True)
            try:
                if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                    return False
                row = conn.execute("SELECT value FROM meta WHERE key = 'app'").fetchone()
                return bool(row) and row[0] == APP_ID
            finally:
                conn.close()
        except sqlite3.Error:
            continue
    return False


def _create_in_place(path: Path) -> None:
    """Make a new, empty index at ``path`` so that ``path`` never holds a half-made one.

    The schema is written into ``<index>.building`` and that file renamed into place only
    once its application id and every table are in it and it is closed (its log folded
    in): a run killed meanwhile (kill -9, a power cut) leaves at most the ``.building``
    file, which the next build deletes, never a file at ``path`` without the id — which
    every later run refused, for good, as "not an Anthology index". The caller holds the
    build lock, so one build at a time uses the ``.building`` name."""
    building = Path(f"{path}{BUILDING}")
    remove_building(path)
    try:
        conn = sqlite3.connect(str(building))
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            with conn:
                create_schema(conn)
        finally:
            conn.close()  # the last connection: its log is checkpointed and deleted
        os.replace(building, path)
    except (sqlite3.Error, OSError) as exc:
        with contextlib.suppress(OSError, IndexFileError):
            remove_building(path)
        if isinstance(exc, sqlite3.Error):
            message = describe_sqlite_error(exc, path)
        else:
            message = f"cannot create the index at {path}: {exc.strerror or exc}"
        raise IndexFileError(message or f"cannot create the index at {path}") from None


def open_database(path: Path) -> tuple[sqlite3.Connection, bool, bool]:
    """Open the index at ``path``, rebuilding it if stale; (connection, created, read-only).

    The caller has checked the place (:func:`index_file.check_place`): whatever is at
    ``path`` is an index of ours, so a stale one may be deleted. A new index is made beside
    and renamed into place (:func:`_create_in_place`). An index in a read-only folder is
    opened read-only (``immutable``): it can be read, not brought up to date.
    """
    make_folder(path.parent)
    created = False
    if path.exists() and not _is_current(path):
        remove_index(path)
    if not path.exists():
        created = True
        _create_in_place(path)
    try:
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode = WAL")
    except sqlite3.OperationalError as exc:
        if created or not _is_current(path):
            message = describe_sqlite_error(exc, path) or f"cannot open the index at {path}"
            raise IndexFileError(message) from None
        conn = sqlite3.connect(
            f"file:{quote(str(path))}?immutable=1", uri=True, check_same_thread=False
        )
        return conn, False, True
    conn.execute("PRAGMA synchronous = NORMAL")  # a cache: durability of the last commit is moot
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute("PRAGMA cache_size = -32000")
    return conn, created, False
