"""The rows a query reads, answered from the index: :func:`dataset` fills an
:class:`anthology.query.rows.Dataset` from SQLite (entries, their tags, properties and
links, the files' stat, the attachments), never reading a note again; and
:func:`load_base_text` reads a ``.base`` through the front matter's safe YAML loader.

A dataset is kept per index and state (the files' signature: a refresh that changes any
file makes a new one), so the views of one page, and the pages read after it, share one
load: 10,000 notes load in about 0.1 s, a query over them then takes milliseconds.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from anthology.gc_pause import with_gc_paused
from anthology.query.bases import Base, load_base
from anthology.query.rows import Dataset, FileRow, LinkOut
from anthology.query.values import QueryError
from anthology.vault.connection import IndexConnection
from anthology.vault.files import vault_file
from anthology.vault.frontmatter import FrontMatterError, load_properties
from anthology.vault.relink import aliases_of
from anthology.vault.resolve import AMBIGUOUS, ATTACHMENT, RESOLVED, NamedEntry, Resolver

MAX_BASE_BYTES = 1_000_000  # a .base is a few hundred bytes; past this it is not one
_CACHE_SIZE = 2
_cache: dict[tuple, Dataset] = {}
_cache_lock = threading.Lock()


def index_of(lookup: object) -> IndexConnection | None:
    """The index a render's lookup asks (the window's index, or a reader lent to a
    worker: :class:`anthology.vault.shared_reader.LentLookup`), or None (a vault without
    one: no query can be answered)."""
    if isinstance(lookup, IndexConnection):
        return lookup
    inner = getattr(lookup, "index", None)
    return inner if isinstance(inner, IndexConnection) else None


def _signature(conn: sqlite3.Connection) -> tuple:
    files = conn.execute("SELECT count(*), total(mtime_ns), total(size) FROM files").fetchone()
    attachments = conn.execute("SELECT count(*), max(rowid) FROM attachments").fetchone()
    entries = conn.execute("SELECT count(*), max(eid) FROM entries").fetchone()
    return (*files, *attachments, *entries)


def dataset(index: IndexConnection) -> Dataset:
    """Every file of ``index``'s vault as query rows (cached per state of the index)."""
    with index.snapshot():
        conn = index.conn
        key = (str(index.db_path), _signature(conn))
        with _cache_lock:
            hit = _cache.get(key)
        if hit is not None:
            return hit
        made = _load(conn, index.root)
    with _cache_lock:
        while len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = made
    return made


@with_gc_paused  # ~10 objects a note, made at once (see gc_pause)
def _load(conn: sqlite3.Connection, root: Path) -> Dataset:
    rows: list[FileRow] = []
    by_eid: dict[int, FileRow] = {}
    named: list[tuple[str, str, str | None]] = []
    for eid, ident, path, tags, aliases, props, size, mtime_ns, ctime_ns, *dataview in conn.execute(
        "SELECT e.eid, e.id, e.path, e.tags, e.aliases, e.properties, f.size, "
        "coalesce(f.mtime_ns, e.mtime_ns), f.ctime_ns, e.fields, e.items FROM entries e "
        "LEFT JOIN files f ON f.path = e.path ORDER BY e.path"
    ):
        row = FileRow(
            path=path,
            entry_id=ident,
            size=size,
            mtime_ns=mtime_ns,
            ctime_ns=ctime_ns,
            tags=json.loads(tags) if tags and tags != "[]" else [],
            props_json=props,  # parsed when a query first reads this note's properties
            eid=eid,
            # Dataview's inline fields and list items: JSON as well, most queries read neither
            fields_json=dataview[0],
            items_json=dataview[1],
        )
        rows.append(row)
        by_eid[eid] = row
        named.append((ident, path, aliases))
    attachments = [p for (p,) in conn.execute("SELECT path FROM attachments ORDER BY path")]
    rows += [FileRow(path=p) for p in attachments]
    rows.sort(key=lambda r: r.path)
    for source, target, status, resolved, text, embed in conn.execute(
        "SELECT source, target, status, resolved_path, text, embed FROM links ORDER BY lid"
    ):
        source_row = by_eid.get(source)
        if source_row is None:
            continue
        to: str | None = None
        if target is not None and status in (RESOLVED, AMBIGUOUS) and target in by_eid:
            to = by_eid[target].path
        elif status == ATTACHMENT and resolved:
            to = resolved
        source_row.links.append(LinkOut(text, to, bool(embed)))

    paths_by_id = {ident: path for ident, path, _a in named}
    resolver: list[Resolver] = []
    lock = threading.Lock()

    def resolve(target: str, source: str) -> str | None:
        with lock:  # built on the first link a query makes itself (link("…"), "[[…]]")
            if not resolver:
                entries = (NamedEntry(i, p, aliases_of(a)) for i, p, a in named)
                resolver.append(Resolver(entries, attachments))
        res = resolver[0].resolve(target, source)
        if res.status in (RESOLVED, AMBIGUOUS) and res.target:
            return paths_by_id.get(res.target)
        if res.status == ATTACHMENT and res.target:
            return res.target
        return None

    def stat(path: str) -> tuple[int, int, int] | None:
        place = vault_file(root, path)
        if place is None:
            return None
        try:
            st = os.stat(place)
        except (OSError, ValueError):
            return None
        return st.st_size, st.st_mtime_ns, st.st_ctime_ns

    return Dataset(rows, resolve, str(root), stat=stat)


def load_base_text(text: str) -> Base:
    """A ``.base`` file's text as a :class:`~anthology.query.bases.Base`: YAML through the
    project's safe loader (no Python objects; an alias bomb refused before it expands),
    then its structure checked; :class:`QueryError` with a message for a person."""
    if len(text) > MAX_BASE_BYTES:
        raise QueryError(f"a base of {len(text):,} characters (at most {MAX_BASE_BYTES:,})")
    try:
        data: Any = load_properties(text)
    except FrontMatterError as exc:
        message = str(exc).replace("front matter", "the base")
        if "not a set of properties" in message:
            message = message.replace("not a set of properties", "not a set of keys")
        line = f" (line {exc.line - 1})" if exc.line else ""
        raise QueryError(f"{message}{line}") from None
    return load_base(data)


def read_base_file(root: Path, rel: str) -> str:
    """The text of the ``.base`` file ``rel`` of the vault at ``root`` (opened the one way
    every vault file is: never outside the vault, never a FIFO); :class:`QueryError`."""
    from anthology.vault.files import open_regular, os_reason

    try:
        fh, _st = open_regular(root, rel)
        with fh:
            data = fh.read(MAX_BASE_BYTES + 1)
    except OSError as exc:
        raise QueryError(f"cannot read {rel}: {os_reason(exc)}") from None
    if len(data) > MAX_BASE_BYTES:
        raise QueryError(f"{rel} is larger than {MAX_BASE_BYTES:,} bytes: not a base")
    if b"\0" in data:
        raise QueryError(f"{rel} is not text")
    return data.decode("utf-8", "replace")
