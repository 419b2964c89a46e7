"""Entry ids, unique in the index (case-insensitively, as SQLite's NOCASE compares them).

An entry's id is its ``id`` property, else its path id. When another entry already has it,
the entry falls back to its path id (``folder/note``, then ``folder/note~2``, …) and the
clash is reported as a ``duplicate-id`` problem.
"""

from __future__ import annotations

import sqlite3

from anthology.vault.resolve import path_id
from anthology.vault.rows import ProblemRow


def nocase(text: str) -> str:
    """``text`` as SQLite's NOCASE collation compares it: ASCII letters folded, no others."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


class IdBook:
    """The ids one refresh gives, checked against each other and against the index."""

    def __init__(self, conn: sqlite3.Connection, *, fresh: bool) -> None:
        self.conn = conn
        # A fresh index (empty before this refresh) holds only the ids given here: the
        # index need not be asked.
        self.fresh = fresh
        self.given: dict[str, tuple[int, str]] = {}  # NOCASE id → (eid, path)

    def holder(self, entry_id: str) -> tuple[int, str] | None:
        """(eid, path) of the entry that already has ``entry_id`` (NOCASE), or None."""
        given = self.given.get(nocase(entry_id))
        if given is not None or self.fresh:
            return given
        return self.conn.execute(
            "SELECT eid, path FROM entries WHERE id = ? COLLATE NOCASE", (entry_id,)
        ).fetchone()

    def give(self, wanted: str, path: str, eid: int) -> tuple[str, ProblemRow | None]:
        """The id of the entry ``eid`` at ``path`` that wants ``wanted``, and the problem
        when it had to fall back."""
        entry_id, problem = self._unique(wanted, path, eid)
        self.given[nocase(entry_id)] = (eid, path)
        return entry_id, problem

    def _unique(self, wanted: str, path: str, eid: int) -> tuple[str, ProblemRow | None]:
        holder = self.holder(wanted)
        if holder is None or holder[0] == eid:
            return wanted, None
        fallback = path_id(path)
        n = 1
        candidate = fallback
        while True:
            row = self.holder(candidate)
            if row is None or row[0] == eid:
                break
            n += 1
            candidate = f"{fallback}~{n}"
        message = (
            f"id “{wanted}” is already used by {holder[1]}; this entry is indexed as “{candidate}”"
        )
        return candidate, ProblemRow(path, None, "duplicate-id", message, "error")
