"""The rows of the index's tables, one named tuple per table: the fields are the table's
columns in order (:mod:`anthology.vault.schema` creates the tables from them), so the
statements that write a row take their column lists from here and nothing builds or reads
a row by position. Imports nothing: the parser's worker processes load it.
"""

from __future__ import annotations

from typing import NamedTuple


class EntryRow(NamedTuple):
    """A row of ``entries``."""

    eid: int
    id: str  # unique (NOCASE): the ``id`` property, the path id, or a fallback (duplicate)
    path: str
    title: str
    kind: str
    status: str
    words: int
    reading_minutes: int
    body_line: int
    headings: str  # JSON [[level, text], …]
    tags: str  # JSON list, in order of appearance
    aliases: str  # JSON list
    properties: str  # JSON object, front matter as written
    mtime_ns: int
    # Dataview's (see anthology.vault.note_fields); None when the note has none
    fields: str | None  # JSON object: inline field key as written → [raw value text, …]
    items: str | None  # JSON array of [line, text, status, parent, section, symbol, count]


class LinkTarget(NamedTuple):
    """What resolving a link adds to it (see :class:`anthology.vault.resolve.LinkTargets`):
    the columns of ``links`` between ``source`` and ``text``."""

    target: int | None  # entries.eid; None when not an entry (unresolved, attachment, …)
    status: str  # see anthology.vault.resolve: resolved, unresolved, ambiguous, …
    resolved_path: str | None  # the attachment path, or the ambiguous candidates


class ParsedLink(NamedTuple):
    """A link as the parser finds it: the columns of ``links`` from ``text`` on."""

    text: str  # the target as written
    target_name: str  # last segment of the normalised target: what a rename touches
    relation: str | None  # None: an untyped mention in the body
    embed: int  # 0/1
    markdown: int  # 0/1: [text](path.md) rather than [[wikilink]]
    line: int
    # A front-matter link's "key: value". In the index, None for a body link: its context
    # is cut from the body (stored once, in entries_fts) between body_start and body_end
    # when it is shown; storing it here too doubled the index.
    context: str | None
    alias: str | None
    heading: str | None
    block: str | None
    body_start: int | None  # character offsets of the link in the entry's body
    body_end: int | None


class ProblemRow(NamedTuple):
    """A row of ``problems``."""

    path: str
    line: int | None
    kind: str
    message: str
    severity: str
