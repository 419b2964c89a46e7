"""A tab's back/forward history, as plain data.

A list of :class:`Visit` (an entry and the reading position in it, saved when the reader
leaves it) and where in the list the reader is. It is what the user state keeps of the tabs
(``reader.tabs``, see :mod:`anthology.user_state`); the tab widget (``ui/reading/entry_tabs``)
holds one per tab.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_VISITS_KEPT = 50  # a tab's history as saved: the visits around where the reader is
ENTRY = "entry"  # the kind of an entry page (ui/common/document.py registers the others)


@dataclass
class Visit:
    """One step of a tab's history: a document (an entry, unless ``kind`` names another
    kind of document: then ``entry_id`` is that document's id) and where the reader was."""

    entry_id: str
    scroll: int = 0  # the view's scroll position when the reader left the document
    kind: str = ENTRY


class TabHistory:
    """A tab's back/forward history, as a browser keeps it: going somewhere new drops what
    was ahead; the reading position of the entry left is kept in its visit."""

    def __init__(self, visits: list[Visit] | None = None, pos: int = -1) -> None:
        self.visits: list[Visit] = list(visits or [])
        self.pos = min(max(pos, -1), len(self.visits) - 1)
        if self.visits and self.pos < 0:
            self.pos = len(self.visits) - 1

    @property
    def current(self) -> Visit | None:
        return self.visits[self.pos] if 0 <= self.pos < len(self.visits) else None

    @property
    def can_go_back(self) -> bool:
        return self.pos > 0

    @property
    def can_go_forward(self) -> bool:
        return self.pos < len(self.visits) - 1

    def ids(self) -> list[str]:
        return [v.entry_id for v in self.visits]

    def leave(self, scroll: int) -> None:
        """Note where the reader is in the current entry (they are about to leave it)."""
        if (visit := self.current) is not None:
            visit.scroll = max(0, int(scroll))

    def push(self, entry_id: str, *, leaving_scroll: int | None = None, kind: str = ENTRY) -> None:
        """Go to ``entry_id`` (a document of ``kind``): it becomes the current visit; what
        was ahead is dropped."""
        if leaving_scroll is not None:
            self.leave(leaving_scroll)
        del self.visits[self.pos + 1 :]
        self.visits.append(Visit(entry_id, kind=kind))
        self.pos = len(self.visits) - 1

    def back(self, *, leaving_scroll: int | None = None) -> Visit | None:
        if not self.can_go_back:
            return None
        if leaving_scroll is not None:
            self.leave(leaving_scroll)
        self.pos -= 1
        return self.current

    def forward(self, *, leaving_scroll: int | None = None) -> Visit | None:
        if not self.can_go_forward:
            return None
        if leaving_scroll is not None:
            self.leave(leaving_scroll)
        self.pos += 1
        return self.current

    def follow_moves(self, moves: dict[str, str]) -> bool:
        """Entries renamed or moved on disk (old id → new id): their visits name the new
        ids. True if a visit changed."""
        hit = False
        for visit in self.visits:
            if visit.kind == ENTRY and (new := moves.get(visit.entry_id)) is not None:
                visit.entry_id = new
                hit = True
        return hit

    # -- what the user state keeps ----------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        start = max(0, min(self.pos - MAX_VISITS_KEPT // 2, len(self.visits) - MAX_VISITS_KEPT))
        kept = self.visits[start : start + MAX_VISITS_KEPT]
        visits = [[v.entry_id, v.scroll] + ([v.kind] if v.kind != ENTRY else []) for v in kept]
        return {"visits": visits, "pos": self.pos - start}

    @classmethod
    def from_json(
        cls,
        data: object,
        keep: Callable[[str], bool],
        keep_document: Callable[[str, str], bool] | None = None,
    ) -> TabHistory:
        """A history saved by :meth:`to_json`; visits of entries ``keep`` refuses (gone
        since) are dropped, and visits of other kinds of document unless
        ``keep_document(kind, id)`` keeps them; anything malformed is ignored, never raised."""
        if not isinstance(data, dict):
            return cls()
        raw = data.get("visits")
        pos = data.get("pos")
        pos = pos if isinstance(pos, int) else -1
        visits: list[Visit] = []
        new_pos = -1
        for i, item in enumerate(raw if isinstance(raw, list) else []):
            if not (isinstance(item, list) and len(item) in (2, 3) and isinstance(item[0], str)):
                continue
            scroll = item[1] if isinstance(item[1], int) and item[1] >= 0 else 0
            kind = item[2] if len(item) == 3 else ENTRY
            if not isinstance(kind, str):
                continue
            if kind == ENTRY:
                if not keep(item[0]):
                    continue
            elif keep_document is None or not keep_document(kind, item[0]):
                continue
            last = visits[-1] if visits else None
            if last is not None and (last.entry_id, last.kind) == (item[0], kind):
                last.scroll = scroll  # a gone document joined two visits
            else:
                visits.append(Visit(item[0], scroll, kind))
            if i <= pos:
                new_pos = len(visits) - 1
        return cls(visits, new_pos if new_pos >= 0 else len(visits) - 1)
