"""Which entries a refresh moved: notes renamed or moved on disk, followed by the reader.

The index knows a file by its path, and an entry without an ``id`` property by its path too,
so a note renamed in a file manager (or by a sync, or by ``git mv``) leaves the index as one
entry removed and one added. Obsidian follows a rename because it makes it; a reader of a
folder others change must infer it. :func:`moved_entries` pairs each removed entry with the
one added in its place:

- an entry whose ``id`` changed in the same file (the index reports it: ``Changes.renamed``);
- a removed entry whose text the reader had (the note open in a tab) and an added one with
  the same text: renamed, moved, or both;
- a removed entry and the one added entry with the same file name, in another folder: moved.

An added entry is given to one removed entry at most; a pairing that is not certain (two
added notes of that name, two removed ones) is not made. The work is bounded: past
:data:`MAX_CANDIDATES` added entries, only the same-name rule is used.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Protocol

from anthology.session.changes import Changes
from anthology.vault import Entry, EntryRef

MAX_CANDIDATES = 200  # added entries whose text is read to find a moved note's new place


class Lookup(Protocol):
    def entry_ref(self, entry_id: str) -> EntryRef | None: ...

    def entry(self, entry_id: str) -> Entry | None: ...


def _name(entry_id: str) -> str:
    """The file name an id without ``id`` property was made from (its last segment)."""
    return posixpath.basename(entry_id).casefold()


def moved_entries(
    changes: Changes, index: Lookup, known_text: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Old id → new id for every entry ``changes`` moved (see the module's doc).
    ``known_text``: the bodies of removed entries the reader had open (id → body)."""
    moves = {old: new for old, new in changes.renamed if index.entry_ref(new) is not None}
    gone = [i for i in changes.removed if i not in moves and index.entry_ref(i) is None]
    fresh = [i for i in changes.added if i not in moves.values()]
    if not gone or not fresh:
        return moves
    taken: set[str] = set()
    if known_text and len(fresh) <= MAX_CANDIDATES:
        wanted = {old: text for old, text in known_text.items() if old in gone}
        if wanted:
            bodies: dict[str, list[str]] = {}
            for new in fresh:
                entry = index.entry(new)
                if entry is not None:
                    bodies.setdefault(entry.body, []).append(new)
            for old, text in wanted.items():
                same = [n for n in bodies.get(text, []) if n not in taken]
                if len(same) == 1 or (same and _name(old) in {_name(n) for n in same}):
                    new = next((n for n in same if _name(n) == _name(old)), same[0])
                    moves[old] = new
                    taken.add(new)
    by_name: dict[str, list[str]] = {}
    for new in fresh:
        if new not in taken:
            by_name.setdefault(_name(new), []).append(new)
    gone_names: dict[str, list[str]] = {}
    for old in gone:
        if old not in moves:
            gone_names.setdefault(_name(old), []).append(old)
    for name, olds in gone_names.items():
        news = by_name.get(name, [])
        if len(olds) == 1 and len(news) == 1:
            moves[olds[0]] = news[0]
    return moves
