"""Live reload: the vault's files watched (or polled), a refresh of the index after a quiet
moment, one at a time, on a :class:`TaskRunner` off the GUI thread.

It hands each finished refresh's :class:`~anthology.vault.indexer.RefreshReport` to the
window (``refreshed``), which makes it one :class:`~anthology.session.Changes` for every
panel. What to watch is the session's answer (:func:`anthology.session.watch_set`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from PySide6.QtWidgets import QProgressBar

from anthology.session import WatchSet
from anthology.ui.common.task_runner import TaskRunner, describe_error
from anthology.ui.window.index_worker import refresh_index
from anthology.vault import RefreshReport, VaultError

POLL_MS = 2000
POLL_DUTY = 0.1  # the share of time a polling refresh may take (see _on_done)
DEBOUNCE_MS = 150


class LiveReload(QObject):
    """Refreshes of one vault's index, asked by the reader (F5), the watcher or the poll.
    ``say(text, ms)`` shows a message in the window's status bar."""

    refreshed = Signal(object)  # the RefreshReport of a finished refresh

    def __init__(
        self, parent: QObject, progress: QProgressBar, say: Callable[[str, int], None]
    ) -> None:
        super().__init__(parent)
        self.progress = progress
        self._say = say
        self.root: Path | None = None
        self.db: Path | None = None
        self.watching = False  # the watches follow the vault's files (see watch)
        self._rerun = False
        self.indexing = TaskRunner(self)
        self.indexing.progress.connect(self._on_progress)
        self.indexing.done.connect(self._on_done)
        self.indexing.error.connect(self._on_failed)
        self.indexing.finished.connect(self._on_finished)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(self._on_disk_change)
        self.watcher.fileChanged.connect(self._on_disk_change)
        self.debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self.debounce.timeout.connect(self.reindex)
        self.poll = QTimer(self, interval=POLL_MS)
        self.poll.timeout.connect(self.reindex)

    @property
    def busy(self) -> bool:
        return self.indexing.busy

    def reindex(self) -> None:
        """Refresh the index in the background (only changed files are read); asked while
        one runs, another follows it."""
        if self.root is None or self.db is None:
            return
        if self.indexing.busy:
            self._rerun = True
            return
        self._rerun = False
        self.indexing.start(refresh_index, self.root, self.db)

    def watch(self, wanted: WatchSet) -> None:
        """Watch these paths (and only these); poll when there are too many to watch."""
        self.watching = True
        current = set(self.watcher.files()) | set(self.watcher.directories())
        if stale := current - wanted.paths:
            self.watcher.removePaths(list(stale))
        if new := wanted.paths - current:
            self.watcher.addPaths(sorted(new))
        if wanted.poll:
            self.poll.start()
        else:
            self.poll.stop()

    def stop(self, wait: float | None = None) -> bool:
        """The vault closes: the refresh cancelled (waited for at most ``wait`` s, None:
        until its next check), nothing watched. False if it was still running."""
        stopped = self.indexing.stop(wait)
        self._rerun = False
        for paths in (self.watcher.files(), self.watcher.directories()):
            if paths:
                self.watcher.removePaths(paths)
        self.watching = False
        self.root = self.db = None
        return stopped

    def shutdown(self) -> None:
        """Quitting: nothing more starts; the refresh running is told to stop."""
        self.debounce.stop()
        self.poll.stop()
        self.indexing.cancel()

    def _on_disk_change(self, _path: str) -> None:
        self.debounce.start()

    def _on_progress(self, done: int, total: int, stage: str) -> None:
        if total >= 200:  # short runs would only flicker
            self.progress.show()
            self.progress.setMaximum(max(total, 1))
            self.progress.setValue(done)
            self.progress.setFormat(f"{stage} %v/%m")

    def _on_done(self, report: RefreshReport) -> None:
        self.progress.hide()
        # Polling a big vault costs a refresh (a stat of every file) each time: at 100,000
        # entries ~2 s of CPU, every 2 s, starved the window. Poll at most POLL_DUTY of the time.
        self.poll.setInterval(max(POLL_MS, int(report.seconds * 1000 / POLL_DUTY)))
        self.refreshed.emit(report)

    def _on_failed(self, exc: BaseException) -> None:
        self.progress.hide()
        self._say(f"Indexing failed: {describe_error(exc, expected=(VaultError,))}", 10000)

    def _on_finished(self) -> None:
        if self._rerun:
            QTimer.singleShot(0, self.reindex)
