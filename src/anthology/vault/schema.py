"""The one owner of the index's schema.

The index is a cache of the vault: its version lives in ``PRAGMA user_version``, and any
mismatch, foreign file or corruption means "delete and rebuild", never "migrate" — the
Markdown files are the truth and rebuilding loses nothing.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
from pathlib import Path
from types import ModuleType
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
SCHEMA_VERSION = 10
APP_ID = "anthology-index"


# The tables' columns, from their rows' fields (see anthology.vault.rows).
def _table(row: type[tuple]) -> dict[str, type]:
    """A row type's columns and their SQLite types (as sqlite-utils creates them)."""
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


def _sqlite_utils() -> ModuleType:
    """sqlite-utils, imported without pandas.

    It is imported here, not at module level, since only a new index needs it; and it
    imports pandas whenever pandas is installed, to convert DataFrame values we never pass:
    0.3 s of the first start (measured in the benchmark environment, where obsidiantools
    brings pandas). Unless pandas is already loaded, the import is made with pandas hidden,
    which sqlite-utils takes as pandas not installed."""
    if "sqlite_utils" in sys.modules or "pandas" in sys.modules:
        import sqlite_utils

        return sqlite_utils
    sys.modules["pandas"] = None  # type: ignore[assignment]  # import pandas -> ImportError
    try:
        import sqlite_utils
    finally:
        del sys.modules["pandas"]
    return sqlite_utils


def create_schema(conn: sqlite3.Connection) -> None:
    """Create every table and index of an empty database."""
    db = _sqlite_utils().Database(conn)
    db["meta"].create({"key": str, "value": str}, pk="key")
    # Every file seen, with the stat that decides whether it must be read again.
    db["files"].create({"path": str, "size": int, "mtime_ns": int, "ctime_ns": int}, pk="path")
    db["entries"].create(
        ENTRIES,
        pk="eid",
        not_null={"id", "path"},
    )
    db["entries"].create_index(["id"], unique=True)
    db["entries"].create_index(["path"], unique=True)
    db.execute("CREATE UNIQUE INDEX idx_entries_id_nocase ON entries(id COLLATE NOCASE, eid)")
    db["links"].create(
        LINKS,
        pk="lid",
    )
    db["links"].create_index(["source"])
    # Backlinks, grouped by relation; with the source, a hub's groups and citing entries
    # are counted from the index alone (81,407 links: 80 → 24 ms).
    db["links"].create_index(["target", "relation", "source"])
    db["links"].create_index(["target_name"])
    # Clustered by entry (an entry's tags are unique): a refresh deletes an entry's rows as
    # one range, and no separate index on eid is written.
    db.execute(
        "CREATE TABLE tags (eid INTEGER NOT NULL, tag TEXT NOT NULL, "
        "PRIMARY KEY (eid, tag)) WITHOUT ROWID"
    )
    db.execute("CREATE INDEX idx_tags_tag ON tags(tag COLLATE NOCASE)")
    db["problems"].create(PROBLEMS)
    db["problems"].create_index(["path"])
    db["attachments"].create({"path": str}, pk="path")
    db.execute(
        "CREATE VIRTUAL TABLE entries_fts USING fts5("
        "title, aliases, tags, body, tokenize = 'unicode61 remove_diacritics 2')"
    )
    db["meta"].insert({"key": "app", "value": APP_ID}, replace=True)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # proves the file is ours
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


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
