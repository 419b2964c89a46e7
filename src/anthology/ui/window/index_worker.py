"""Indexing off the GUI thread: the function the window's index runner runs.

:func:`refresh_index` opens its own SQLite connection (SQLite connections belong to one
thread), runs :meth:`VaultIndex.refresh` with the runner's :class:`TaskState` and returns
the report; the window hears progress, the report or the error as the runner's signals.
Cancelling the state stops the refresh between batches.
"""

from __future__ import annotations

from pathlib import Path

from anthology.tasks import TaskState
from anthology.vault import RefreshReport, VaultIndex


def refresh_index(state: TaskState, vault: Path, db: Path | None) -> RefreshReport:
    """Bring the index of ``vault`` up to date (on the runner's thread)."""
    index = VaultIndex.open(vault, db, refresh=False)
    try:
        return index.refresh(state)
    finally:
        index.close()
