"""What a refresh of the index changed, as every panel is told it.

The window does not translate a refresh for each panel: it makes one :class:`Changes` of the
index's :class:`~anthology.vault.indexer.RefreshReport` and gives it to every panel's
``changed(changes)`` in one loop; each panel decides what to redo (the pane re-renders the
open note only if it changed, the explorer and the switcher only if ids came or went, …).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from anthology.vault import RefreshReport


@dataclass(frozen=True)
class Changes:
    """The entries a refresh added, edited (read again, same id), removed (gone from the
    index) and renamed (one file whose id changed: ``(old, new)``)."""

    added: frozenset[str] = frozenset()
    changed: frozenset[str] = frozenset()
    removed: frozenset[str] = frozenset()
    renamed: tuple[tuple[str, str], ...] = ()
    # of the removed, those found again under another id (renamed or moved on disk: see
    # moves.py): old id → new id. The reader's tabs, bookmarks and recent entries follow.
    moved: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_report(cls, report: RefreshReport) -> Changes:
        read = set(report.changed_ids)
        gone = set(report.removed_ids)
        # a file moved under the same id was removed at one path and added at another
        added = set(report.added_ids) - gone
        renamed = tuple(report.renamed)
        old_names = {old for old, _new in renamed}
        new_names = {new for _old, new in renamed}
        return cls(
            added=frozenset(added | new_names),
            changed=frozenset(read - added - new_names),
            removed=frozenset((gone | old_names) - read),
            renamed=renamed,
        )

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed or self.renamed)

    @property
    def ids_changed(self) -> bool:
        """Entries came or went (or took other names): lists of entries need making again."""
        return bool(self.added or self.removed or self.renamed)

    def touches(self, entry_id: str | None) -> bool:
        """Whether ``entry_id``'s own page may differ now (it was edited, renamed or
        removed)."""
        if entry_id is None:
            return False
        return (
            entry_id in self.changed
            or entry_id in self.removed
            or any(old == entry_id for old, _new in self.renamed)
        )

    def new_id(self, entry_id: str | None) -> str | None:
        """Where ``entry_id`` moved to, if it moved."""
        return next((new for old, new in self.moved if old == entry_id), None)

    def stale(self, ids: Iterable[str | None]) -> list[str]:
        """Of ``ids`` (the entries other tabs show), those to render again when next shown."""
        return [i for i in ids if i is not None and self.touches(i)]
