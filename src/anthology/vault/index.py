"""The vault index and its query API: the one door through which the UI and CLI see a vault.

>>> with VaultIndex.open("entries") as index:          # doctest: +SKIP
...     index.entry("LIT-008").cited_by
...     index.backlinks("LIT-008"), index.search("tag:normalization rms")

The UI never writes SQL: it asks these documented methods. The index is a cache in the
user's cache folder (never inside the vault) and can be deleted at any time.
"""

from __future__ import annotations

import contextlib
import errno
import sqlite3
from pathlib import Path
from urllib.parse import quote

from anthology import paths
from anthology.gc_pause import gc_paused
from anthology.paths import index_dir, vault_file_name
from anthology.tasks import TaskState
from anthology.vault.backlinks import BacklinkQueries
from anthology.vault.entries import HOME_IDS
from anthology.vault.graph_queries import GraphQueries
from anthology.vault.index_file import (
    IndexFileError,
    build_lock,
    check_place,
    describe_sqlite_error,
    make_folder,
    remove_index,
)
from anthology.vault.indexer import Indexer, RefreshReport
from anthology.vault.ladder import LadderQueries
from anthology.vault.related import RelatedQueries
from anthology.vault.scan import vault_root
from anthology.vault.schema import REVISION_KEY, STATS_KEY, open_database
from anthology.vault.search import SearchQueries

__all__ = ["HOME_IDS", "VaultIndex", "default_db_path"]


def default_db_path(root: Path) -> Path:
    """The index of the vault at ``root``, in the user cache folder, keyed by its path."""
    return index_dir() / vault_file_name(root)


def _is_corruption(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return any(w in text for w in ("malformed", "not a database", "corrupt", "no such table"))


def _built_for(place: Path) -> str | None:
    """The vault the index at ``place`` was built for (``meta.vault``), or None."""
    if not place.is_file():
        return None
    for mode in ("mode=ro", "immutable=1"):  # immutable: in a read-only folder
        try:
            conn = sqlite3.connect(f"file:{quote(str(place))}?{mode}", uri=True)
            try:
                row = conn.execute("SELECT value FROM meta WHERE key = 'vault'").fetchone()
                return row[0] if row else None
            finally:
                conn.close()
        except sqlite3.Error:
            continue
    return None


def _forget_other_vault(place: Path, root: Path) -> str | None:
    """An index of ours built for another vault (``--db`` naming it) would show that
    vault's entries under this one's name: it is a cache, so it is deleted (to be rebuilt
    for ``root``) and the line returned says so. One that cannot be deleted is refused."""
    other = _built_for(place)
    if other is None or other == str(root):
        return None
    try:
        remove_index(place)
    except OSError as exc:
        raise IndexFileError(
            f"the index at {place} was built for another vault ({other}) and cannot be "
            f"rebuilt ({exc.strerror or exc}); give another --db"
        ) from None
    return f"the index at {place} was built for another vault ({other}); rebuilding it for this one"


# GraphQueries ⊃ Report ⊃ Entry; RelatedQueries: related entries; LadderQueries: the ladder
class VaultIndex(BacklinkQueries, SearchQueries, GraphQueries, RelatedQueries, LadderQueries):
    """A vault and its SQLite index. Open with :meth:`open`; use from one thread at a time.

    The questions it answers live with their concern: :class:`EntryQueries` (entries,
    relations, link resolution), :class:`BacklinkQueries`, :class:`SearchQueries`,
    :class:`ReportQueries` (problems, stats), :class:`GraphQueries` (graph, exports).
    Another connection (a background indexer) may refresh the same file meanwhile: WAL lets
    readers go on, and in-memory caches are dropped when SQLite's ``data_version`` moves.
    """

    def __init__(self, root: Path, db_path: Path) -> None:
        try:
            conn, self.created, self.read_only = open_database(db_path)
        except IndexFileError:
            raise
        except sqlite3.DatabaseError:
            remove_index(db_path)  # corrupt beyond what the header check sees (and ours)
            conn, self.created, self.read_only = open_database(db_path)
        self._start(root, db_path, conn)
        # Why the last refresh could not write (a read-only index), for the caller to say.
        self.stale_reason: str | None = None
        # Something the caller should say once (the index was another vault's: rebuilt).
        self.notice: str | None = None
        self.last_report: RefreshReport | None = None

    @classmethod
    def open(
        cls,
        vault: str | Path,
        db: str | Path | None = None,
        *,
        refresh: bool = True,
        task: TaskState | None = None,
        rebuild: bool = False,
        allow_stale: bool = False,
    ) -> VaultIndex:
        """Open (and by default refresh) the index of ``vault``; ``db`` overrides its place.

        :class:`IndexFileError` when the index may not live at ``db`` (see
        :mod:`index_file`). ``rebuild`` deletes the index first. With ``allow_stale``, an
        index that cannot be written (read-only file or folder) is opened as it was last
        built, with :attr:`stale_reason` saying why, instead of failing.
        """
        root = vault_root(vault)
        place = check_place(Path(db) if db else default_db_path(root), root, allow_empty=True)
        make_folder(place.parent)
        with build_lock(place):  # a concurrent build may be creating this very file
            check_place(place, root)
            notice = None
            if rebuild:
                remove_index(place)
            else:
                notice = _forget_other_vault(place, root)
            index = cls(root, place)
            index.notice = notice or (None if db else paths.cache_problem())
            if _built_for(place) != str(root):  # an index knows its vault (see above)
                with contextlib.suppress(sqlite3.Error), index.conn:  # read-only: as it was
                    index.conn.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES ('vault', ?)",
                        (str(root),),
                    )
        if refresh:
            if index.read_only:
                index._stale("the index is in a read-only folder", allow_stale)
            else:
                try:
                    index.refresh(task)
                except IndexFileError as exc:
                    if "read-only" not in str(exc):
                        index.close()
                        raise
                    index._stale(str(exc), allow_stale)
        return index

    def _stale(self, reason: str, allowed: bool) -> None:
        if not allowed:
            self.close()
            raise IndexFileError(f"{reason}: cannot bring the index at {self.db_path} up to date")
        self.stale_reason = reason

    def refresh(self, task: TaskState | None = None) -> RefreshReport:
        """Bring the index up to date with the files; only what changed is read again.

        Python's cyclic collector is paused meanwhile (:func:`gc_paused`): the scan makes a
        tuple per file, whose allocations set off full collections (0.03-0.045 s each,
        several per refresh at 100,000 files), and a refresh runs on a thread of the window,
        where each held the interpreter from the GUI thread. A refresh makes almost no
        cyclic garbage (a cold build of 10,000 notes: 58 objects, collected after it)."""
        with gc_paused():
            return self._refresh(task)

    def _refresh(self, task: TaskState | None) -> RefreshReport:
        with self._lock, build_lock(self.db_path):  # another build finishes first
            try:
                try:
                    report = Indexer(self.conn, self.root).refresh(task)
                except sqlite3.DatabaseError as exc:
                    if not _is_corruption(exc):
                        raise
                    # A file that passed the header check but is damaged inside: start over.
                    self.conn.close()
                    remove_index(self.db_path)
                    self.conn, self.created, self.read_only = open_database(self.db_path)
                    report = Indexer(self.conn, self.root).refresh(task)
            except sqlite3.Error as exc:
                message = describe_sqlite_error(exc, self.db_path)
                if message is None:
                    raise
                if self.conn.in_transaction:
                    self.conn.rollback()
                raise IndexFileError(message) from None
            except OSError as exc:  # the scratch folder of a build: disk full, no access
                if exc.errno != errno.ENOSPC:
                    raise
                raise IndexFileError(
                    f"the disk is full: cannot build the index at {self.db_path}; free some space"
                ) from None
            self._cache_version = None
            self.last_report = report
            try:  # the refresh changed what they count (or none were kept): counted once
                kept = self._q("SELECT count(*) FROM meta WHERE key IN (?, ?)",
                               (STATS_KEY, REVISION_KEY))[0][0]  # fmt: skip
                if kept < 2:
                    self.store_stats()
            except sqlite3.Error:  # not kept: stats() counts them when asked
                if self.conn.in_transaction:
                    self.conn.rollback()
            return report

    @classmethod
    def being_built(cls, vault: str | Path, db: Path) -> VaultIndex:
        """A read-only view of the index at ``db`` while another connection builds it for
        the first time (without the build lock, which the build holds): each batch of
        entries is seen once committed (WAL). What a window shows of a never-seen vault
        before its index is done (:mod:`anthology.ui.window.partial_index`)."""
        return cls._read_only(vault_root(vault), Path(db))

    def reader(self) -> VaultIndex:
        """Another VaultIndex on the same file with its own read-only connection, for a
        question asked on another thread (the unlinked mentions of a common word): it does
        not hold this index's lock, so the GUI thread's questions go on meanwhile."""
        return type(self)._read_only(self.root, self.db_path)

    @classmethod
    def _read_only(cls, root: Path, db: Path) -> VaultIndex:
        """A VaultIndex of ``root`` on a read-only connection of its own to ``db``, usable
        from another thread (``reader``, ``being_built``)."""
        conn = sqlite3.connect(
            f"{db.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False, timeout=30
        )
        index = cls.__new__(cls)
        index._start(root, db, conn)
        index.created = False
        index.read_only = True
        index.stale_reason = None
        index.notice = None
        index.last_report = None
        return index

    def __enter__(self) -> VaultIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
