"""Links resolved again after a change, and the names an entry answers to.

A link is resolved where its file is staged, against the names known then; a change of
names (an entry added, removed, renamed, given aliases; attachments come and go) is
followed by :func:`resolve_again` over just the links that could name what changed.
"""

from __future__ import annotations

import json
import posixpath
import sqlite3
from collections.abc import Iterable

from anthology.vault.resolve import (
    LinkTargets,
    NamedEntry,
    Resolver,
    is_same_note,
    name_keys,
    path_id,
)


def index_resolver(conn: sqlite3.Connection) -> Resolver:
    """A resolver over the entries and attachments the index holds."""
    entries = [
        NamedEntry(i, p, aliases_of(a))
        for i, p, a in conn.execute("SELECT id, path, aliases FROM entries")
    ]
    attachments = [r[0] for r in conn.execute("SELECT path FROM attachments")]
    return Resolver(entries, attachments)


def resolve_again(
    conn: sqlite3.Connection, affected_names: set[str], attachments_changed: bool
) -> None:
    """Resolve again the links a change touched (those naming ``affected_names``; with
    ``attachments_changed``, those to attachments), rewriting those whose target
    changed."""
    c = conn
    conditions: list[str] = []
    if affected_names:
        # A table, not an IN list: a cancelled cold build can touch every name.
        c.execute("CREATE TEMP TABLE IF NOT EXISTS affected_names(name TEXT PRIMARY KEY)")
        c.execute("DELETE FROM temp.affected_names")
        c.executemany(
            "INSERT OR IGNORE INTO temp.affected_names VALUES (?)",
            ((n,) for n in affected_names),
        )
        conditions.append("l.target_name IN (SELECT name FROM temp.affected_names)")
    if attachments_changed:
        conditions.append("l.status IN ('attachment', 'missing-attachment')")
    if not conditions:
        return
    existing = c.execute(
        "SELECT l.lid, l.text, l.markdown, l.heading, l.block, e.path, l.target, l.status, "
        "l.resolved_path "
        f"FROM links l JOIN entries e ON e.eid = l.source WHERE {' OR '.join(conditions)}"
    ).fetchall()
    if not existing:
        return
    resolve = LinkTargets(index_resolver(c), dict(c.execute("SELECT id, eid FROM entries")))
    updates = []
    for lid, text, md, heading, block, path, *was in existing:
        now = resolve(text, path, md, same_note=is_same_note(text, heading, block))
        if now != tuple(was):
            updates.append((*now, lid))
    c.executemany(
        "UPDATE links SET target = ?, status = ?, resolved_path = ? WHERE lid = ?", updates
    )


def aliases_of(text: str | None) -> tuple[str, ...]:
    return tuple(json.loads(text)) if text and text != "[]" else ()


def file_name(path: str) -> str:
    """The file name without ``.md``, lower case: the name a link finds a file by."""
    return posixpath.basename(path_id(path)).lower()


def link_names(entry_id: str, path: str, aliases: Iterable[str]) -> set[str]:
    """The link target names (``links.target_name``) that could resolve to this entry."""
    return {posixpath.basename(k) for k in name_keys(NamedEntry(entry_id, path, tuple(aliases)))}
