"""Where the index may live, what Anthology may delete, and one writer at a time.

The index is a cache, so Anthology rebuilds it freely — but it deletes or replaces **only a
file it can prove it made**: an SQLite file whose header carries Anthology's application id
(``PRAGMA application_id``, bytes 68–71 of the header, readable even when the rest of the
file is damaged), or, for indexes written before that id existed, whose ``meta`` table says
``anthology-index``. Anything else at the index path — a note, ``thesis.txt``, a folder, a
FIFO, a device, a symbolic link — is refused with :class:`IndexFileError` (the CLI prints one
line and exits 2). The index is never placed inside the vault, whatever ``--db`` says.

A new index is made under ``<index>.building`` and renamed into place once its application
id and schema are written (:func:`anthology.vault.schema.open_database`), so a build killed
meanwhile never leaves a file at the index path that cannot be proved ours; the next build
deletes the ``.building`` file (an empty or SQLite file; anything else there is refused).
A file such a kill left at the index path before that (no id, nothing in it) is taken as
ours only in Anthology's own index folder: at a ``--db`` the user named it is refused still.

Builds take an exclusive ``flock`` on ``<index>.lock`` beside the index (a file Anthology
creates and never needs to delete): a second build waits for the first instead of writing
the same rows (``UNIQUE constraint failed: entries.eid``), then finds the index current.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from anthology.paths import user_cache_dir
from anthology.vault.files import file_kind
from anthology.vault.scan import VaultError

APPLICATION_ID = 0x414E5448  # "ANTH", in the SQLite header at offset 68
_SQLITE_MAGIC = b"SQLite format 3\x00"
_OLD_MARKER = "anthology-index"
# SQLite's files beside the index, and the graph's arrays kept beside it (graph_cache.py)
_SIBLINGS = ("-wal", "-shm", "-journal", ".graph.npz")
BUILDING = ".building"  # a new index is made under <index>.building, then renamed into place


class IndexFileError(VaultError):
    """The index cannot be used where it is asked for; the message says why and what to do."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def real_place(db: Path) -> Path:
    """``db`` with its folder's symbolic links resolved but not its own name (a link at the
    index path itself is refused, never followed)."""
    db = Path(os.path.abspath(db.expanduser()))
    return Path(os.path.realpath(db.parent)) / db.name


def is_ours(path: Path) -> bool:
    """Whether the regular file ``path`` is an index Anthology made (see the module doc)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        header = os.read(fd, 100)
    finally:
        os.close(fd)
    if len(header) == 100 and header.startswith(_SQLITE_MAGIC):
        if int.from_bytes(header[68:72], "big") == APPLICATION_ID:
            return True
    elif header:  # neither empty (an index still in its WAL) nor an SQLite file
        return False
    # An index from before the application id (its meta row says so), or one whose pages
    # are still in its write-ahead log: ask SQLite, read-only.
    for mode in ("mode=ro", "immutable=1"):
        try:
            conn = sqlite3.connect(f"file:{quote(str(path))}?{mode}", uri=True)
            try:
                if conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
                    return True
                row = conn.execute("SELECT value FROM meta WHERE key = 'app'").fetchone()
                return bool(row) and row[0] == _OLD_MARKER
            finally:
                conn.close()
        except sqlite3.Error:
            continue
    return _half_made_in_own_folder(path)


def _nothing_in_it(path: Path) -> bool:
    """Whether ``path`` is an empty file or an SQLite database with nothing in it: no table,
    no application id, no version (what a build killed before its first commit left)."""
    if os.path.getsize(path) == 0:
        return True
    for mode in ("mode=ro", "immutable=1"):
        try:
            conn = sqlite3.connect(f"file:{quote(str(path))}?{mode}", uri=True)
            try:
                return (
                    conn.execute("PRAGMA application_id").fetchone()[0] == 0
                    and conn.execute("PRAGMA user_version").fetchone()[0] == 0
                    and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
                )
            finally:
                conn.close()
        except sqlite3.Error:
            continue
    return False


def _half_made_in_own_folder(path: Path) -> bool:
    """An index a build killed before its first commit left behind (before indexes were made
    under a temporary name): proved ours by its place — Anthology's own index folder, where
    no other program writes — and by holding nothing at all. Such a file elsewhere (a
    ``--db`` the user named) is still refused: an empty database there may be someone's."""
    own = Path(os.path.realpath(user_cache_dir() / "indexes"))
    return real_place(path).parent == own and _nothing_in_it(path)


def remove_building(db: Path) -> None:
    """Delete what a build killed while making a new index left at ``<db>.building`` (and its
    SQLite siblings): an empty or SQLite file there is a half-made index of ours; anything
    else is refused, never deleted."""
    building = Path(f"{db}{BUILDING}")
    if os.path.lexists(building):
        if not stat.S_ISREG(os.lstat(building).st_mode) or not _sqlite_or_empty(building):
            raise IndexFileError(
                f"{building} is in the way of a new index and is not one; Anthology will not "
                "replace it (move it, or give --db another path)"
            )
        building.unlink()
    for suffix in _SIBLINGS:
        sibling = Path(f"{building}{suffix}")
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISREG(os.lstat(sibling).st_mode):
                sibling.unlink()


def _sqlite_or_empty(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(len(_SQLITE_MAGIC))
    return not head or head == _SQLITE_MAGIC


def check_place(db: Path, vault: Path | None, *, allow_empty: bool = False) -> Path:
    """The index path to use for ``db``, or :class:`IndexFileError` when Anthology may not
    write there: inside the vault, a link, a folder or device, or a file it did not make.

    ``allow_empty`` lets an empty or SQLite file pass, for a caller that checks again holding the
    build lock (a concurrent build creates the file before it writes its header)."""
    place = real_place(db)
    if vault is not None and _inside(place, Path(os.path.realpath(vault))):
        raise IndexFileError(
            f"the index cannot go inside the vault ({db}): Anthology never writes into a "
            "vault; give --db a path outside it"
        )
    for candidate in (place, *(Path(f"{place}{s}") for s in _SIBLINGS)):
        try:
            mode = os.lstat(candidate).st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise IndexFileError(
                f"cannot use the index at {candidate}: {exc.strerror}; give --db a writable path"
            ) from None
        if not stat.S_ISREG(mode):
            raise IndexFileError(
                f"{candidate} is {file_kind(mode)}, not an index; Anthology will not replace it"
            )
    if allow_empty and place.exists() and _sqlite_or_empty(place):
        return place  # perhaps another build creating it: judged again under the build lock
    if place.exists() and not is_ours(place):
        raise IndexFileError(
            f"{db} exists and is not an Anthology index; refusing to replace it "
            "(choose another --db path, or delete the file yourself)"
        )
    return place


def remove_index(path: Path) -> None:
    """Delete the index at ``path`` and its SQLite siblings — only if Anthology made it."""
    if os.path.lexists(path):
        if not is_ours(path):
            raise IndexFileError(f"{path} is not an Anthology index; refusing to delete it")
        path.unlink()
    for suffix in _SIBLINGS:
        sibling = Path(f"{path}{suffix}")
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISREG(os.lstat(sibling).st_mode):
                sibling.unlink()


def make_folder(path: Path) -> None:
    """Create the index's folder, or say clearly why it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IndexFileError(
            f"cannot create the index folder {path}: {exc.strerror or exc}; "
            "give --db a writable path"
        ) from None
    if not path.is_dir():
        raise IndexFileError(f"cannot create the index folder {path}: a file is in the way")


@contextlib.contextmanager
def build_lock(db: Path) -> Iterator[None]:
    """Hold the index's build lock (waiting for another build to finish first).

    The lock file, ``INDEX.lock``, exists only while a build holds it: the holder removes
    it before letting go, so nothing is left beside the index after exit. A waiter that
    then wins the lock on the removed file sees that the path no longer names the file it
    locked, and takes the lock anew on the current one (the usual flock-and-unlink dance).
    Where the lock file cannot be created (a read-only folder), there is nothing another
    process could write either, so the build goes on unlocked and fails on its first write
    with a clear message."""
    path = f"{db}.lock"
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError:
            yield
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        held = os.fstat(fd)
        try:
            now = os.stat(path, follow_symlinks=False)
            if (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
                break
        except OSError:
            pass
        os.close(fd)  # the file we locked was removed by the build before us: again
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)  # releases the lock


def describe_sqlite_error(exc: sqlite3.Error, db: Path) -> str | None:
    """One line for a write failure a user can act on, or None for anything else."""
    text = str(exc).lower()
    code = getattr(exc, "sqlite_errorcode", None)
    if "disk is full" in text or code == 13:  # SQLITE_FULL
        return f"the disk is full: cannot write the index at {db}; free some space"
    if "readonly" in text or "read-only" in text or code == 8:  # SQLITE_READONLY
        return f"the index at {db} is read-only: it cannot be brought up to date"
    if "unable to open" in text or code == 14:  # SQLITE_CANTOPEN
        return f"cannot open the index at {db}: is its folder writable?"
    if "locked" in text or "busy" in text:
        return f"the index at {db} is busy (another build?); try again"
    return None
