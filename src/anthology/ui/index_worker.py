"""Indexing off the GUI thread: a QThread that refreshes the vault's index and reports back.

The worker opens its own SQLite connection (SQLite connections belong to one thread), runs
:meth:`VaultIndex.refresh` with a :class:`Task`, and hands results back through signals. It
never touches a widget. Cancelling sets the task's flag; the refresh stops between batches.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from PySide6.QtCore import QThread, Signal

from anthology.vault import VaultError, VaultIndex
from anthology.vault.indexer import Cancelled, RefreshReport, Task


class IndexWorker(QThread):
    progress = Signal(int, int, str)  # done, total, stage
    refreshed = Signal(object)  # RefreshReport
    failed = Signal(str)

    def __init__(self, vault: Path, db: Path | None, parent=None) -> None:
        super().__init__(parent)
        self.vault = vault
        self.db = db
        self.task = Task(report=self._report)

    def _report(self, done: int, total: int, stage: str) -> None:
        self.progress.emit(done, total, stage)

    def cancel(self) -> None:
        self.task.cancelled = True

    def run(self) -> None:
        try:
            index = VaultIndex.open(self.vault, self.db, refresh=False)
            try:
                report: RefreshReport = index.refresh(self.task)
            finally:
                index.close()
        except Cancelled:
            return
        except VaultError as exc:  # a clear message already (disk full, read-only index)
            self.failed.emit(str(exc))
            return
        except Exception as exc:  # reported in the window, never a crash
            traceback.print_exc()
            self.failed.emit(f"{type(exc).__name__}: {exc}")
            return
        self.refreshed.emit(report)
