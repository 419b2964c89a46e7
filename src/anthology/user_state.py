"""The reader's own state of one vault: what must survive when the index is deleted.

The index (:mod:`anthology.vault.index`) is a cache: it is rebuilt from the vault, and
deleting it loses nothing. What the reader *did* — where they dragged and pinned the graph's
nodes, how they set the graph up — is in no file of the vault and cannot be rebuilt, so it
lives here, apart from the cache: one SQLite file a vault in the user data folder,
``platformdirs.user_data_dir("anthology")/vaults/<name>-<digest>.sqlite`` (named as the index
is, by :func:`anthology.paths.vault_file_name`), or in ``$ANTHOLOGY_STATE_DIR`` when that is
set (the tests and ``anthology screenshot`` point it at a throwaway folder).

What it holds (schema version in ``PRAGMA user_version``):

- ``positions(id, x, y, pinned)``: the graph's layout, by entry id (not by the index's row
  ids, which a rebuild renumbers); ``pinned`` nodes stay where the reader dropped them.
- ``settings(key, value)``: JSON values by key, for state that is read and written whole.
  In use: ``graph.view`` (:data:`GRAPH_VIEW`, the graph's forces, filters, groups and mode),
  ``graph.camera`` (:data:`GRAPH_CAMERA`, where the graph looks: centre and span of the
  view, one for the global and one for the local graph),
  ``reader.tabs`` (:data:`READER_TABS`, the open tabs: each one's back/forward history with
  the reading position in every entry of it, and which tab is active) and
  ``explorer.view`` (:data:`EXPLORER_VIEW`, the file explorer's expanded folders and whether
  it lists attachments). State that grows row by row gets a table of its own and a schema
  version.

A file that cannot be used never stops the window: a damaged one (not SQLite, or failing
SQLite's quick check) is reported, moved aside as ``<file>.corrupt`` (``.corrupt.2``, … when
one is already there: each damaged copy is kept) and started anew; one from a newer
Anthology, another program's SQLite file (only a file with our application id, or an empty
one, or one with only our tables is ours) or one that cannot be opened at all is left as it
is and this session's state is kept in memory only. A read-only one (file or folder) is read
into memory — what it holds is shown — and said to be unsaveable. A failed write (a full
disk) is reported, not raised: losing a layout must not take the window down. Every value
read is checked (the ``clean`` of :meth:`UserState.get`): a bad one is reported and replaced
by its default.

Two windows on one vault (two processes, or two windows of one) share the file. Lists that
both change are written as changes, never as a window's copy: :meth:`UserState.update` reads,
changes and writes in one ``BEGIN IMMEDIATE`` transaction — the bookmarks (add or remove
one) and the recent entries (the ones a window opened go first, the others' stay). Each
window polls :meth:`UserState.changed_elsewhere` (SQLite's ``data_version``) and re-reads
them when another one wrote. The open tabs are each window's own session: a window saves
its tabs when the reader moves and when it closes, so the window that changed or closed
last decides the tabs the next start restores. The graph's layout and settings and the
explorer's view are read and written whole: the window that saves last keeps its own.

Free of Qt. One connection, behind a lock, serves the GUI thread and the views loader
(which reads the positions off the GUI thread).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

import platformdirs

from anthology.paths import vault_file_name

STATE_DIR_ENV = "ANTHOLOGY_STATE_DIR"
SCHEMA_VERSION = 1
APPLICATION_ID = 0x414E5455  # "ANTU", in the SQLite header (the index's is "ANTH")
GRAPH_VIEW = "graph.view"
GRAPH_CAMERA = "graph.camera"
READER_TABS = "reader.tabs"
EXPLORER_VIEW = "explorer.view"
BOOKMARKS = "reader.bookmarks"  # entry ids, in the order they were bookmarked
RECENT = "reader.recent"  # entry ids, the last opened first
_SIBLINGS = ("-wal", "-shm", "-journal")
_DAMAGED = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB
_OURS = {"positions", "settings", "sqlite_autoindex_settings_1"}  # what _create_schema makes

Report = Callable[[str], None]


class Position(NamedTuple):
    x: float
    y: float
    pinned: bool = False


class _Unusable(Exception):
    """The file is not one this Anthology may change (newer, or not a state file)."""


def state_dir() -> Path:
    """The folder of the per-vault state files."""
    env = os.environ.get(STATE_DIR_ENV)
    return Path(env) if env else Path(platformdirs.user_data_dir("anthology")) / "vaults"


def default_state_path(root: Path) -> Path:
    """The state file of the vault at ``root``."""
    return state_dir() / vault_file_name(root)


def _print_report(message: str) -> None:
    print(f"anthology: {message}", file=sys.stderr)


def _finite(value: float) -> bool:
    return value == value and abs(value) != float("inf")


def _no_constant(_name: str) -> None:
    """``NaN``/``Infinity``/``-Infinity`` in a saved value read as ``null``: no number the
    views use may be one of them."""
    return None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and _finite(value)


# -- what each saved value must look like (the ``clean`` of :meth:`UserState.get`) ----------
def clean_id_list(value: Any) -> list[str]:
    """Bookmarks and recent entries: entry ids, each once, in order."""
    if not isinstance(value, list):
        raise TypeError(f"a list of entry ids, not {type(value).__name__}")
    return list(dict.fromkeys(v for v in value if isinstance(v, str) and v))


def clean_tabs(value: Any) -> dict[str, Any]:
    """``reader.tabs``: ``{"tabs": [history, …], "current": k}``; each history is read by
    ``TabHistory.from_json``, which drops what it cannot use."""
    if not isinstance(value, dict) or not isinstance(value.get("tabs"), list):
        raise TypeError("not {'tabs': [...], 'current': k}")
    current = value.get("current", 0)
    return {
        "tabs": [t for t in value["tabs"] if isinstance(t, dict)],
        "current": current if isinstance(current, int) and not isinstance(current, bool) else 0,
    }


def clean_explorer_view(value: Any) -> dict[str, Any]:
    """``explorer.view``: the expanded folders and whether attachments are listed."""
    if not isinstance(value, dict):
        raise TypeError(f"a mapping, not {type(value).__name__}")
    out = dict(value)
    if "expanded" in out:
        expanded = out["expanded"]
        paths = expanded if isinstance(expanded, list) else []
        out["expanded"] = [p for p in paths if isinstance(p, str)]
    if "attachments" in out and not isinstance(out["attachments"], bool):
        out["attachments"] = False
    return out


def clean_camera(value: Any) -> dict[str, dict[str, float]]:
    """``graph.camera``: per mode, the centre and span of the view (finite, spans > 0)."""
    if not isinstance(value, dict):
        raise TypeError(f"a mapping, not {type(value).__name__}")

    def usable(view: Any) -> bool:
        return (
            isinstance(view, dict)
            and all(_number(view.get(k)) for k in ("cx", "cy", "w", "h"))
            and view["w"] > 0
            and view["h"] > 0
        )

    return {mode: view for mode, view in value.items() if isinstance(mode, str) and usable(view)}


class UserState:
    """One vault's user state; see the module docstring. ``path=None`` keeps it in memory."""

    def __init__(self, path: Path | None, *, report: Report = _print_report) -> None:
        self.path = path
        self._report = report
        self.read_only = False  # True: read from a file that cannot be written (in memory)
        self._lock = threading.Lock()
        self.conn = self._connect()
        # a file of ours in WAL mode (not the in-memory stand-in): a big read may go through
        # a connection of its own, beside the window's writes (see positions)
        self._on_disk = not self.read_only and bool(
            self.conn.execute("PRAGMA database_list").fetchone()[2]
        )
        self._seen_version: int | None = None
        self.changed_elsewhere()  # the version read now is the one later ones compare with

    @classmethod
    def for_vault(
        cls, root: Path, *, folder: Path | None = None, report: Report = _print_report
    ) -> UserState:
        """The state of the vault at ``root``, in ``folder`` (default: :func:`state_dir`)."""
        path = default_state_path(root) if folder is None else folder / vault_file_name(root)
        return cls(path, report=report)

    # -- opening ---------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self.path is None:
            return self._memory()
        try:
            if self.path.is_file() and not _writable(self.path):
                return self._read_only(self.path)
            return self._open(self.path)
        except _Unusable as exc:
            self._report(f"{exc}; this session's graph layout and settings will not be kept")
        except (OSError, sqlite3.Error) as exc:
            if isinstance(exc, sqlite3.DatabaseError) and self._damaged(exc):
                return self._start_anew(self.path, exc)
            if self.path.is_file() and _read_only_error(exc):
                with contextlib.suppress(OSError, sqlite3.Error, _Unusable):
                    return self._read_only(self.path)
            self._report(
                f"cannot open the user state at {self.path} ({exc}); this session's graph "
                "layout and settings will not be kept"
            )
        return self._memory()

    def _read_only(self, path: Path) -> sqlite3.Connection:
        """A state file that cannot be written (it or its folder is read-only): what it holds
        is read into memory and shown; this session's changes are kept in memory only."""
        conn = self._memory()
        wal = Path(f"{path}-wal")
        # immutable: nothing is made beside the file (no -shm); only a log left with pages
        # in it (an unclean exit) needs SQLite's read-only WAL reader
        pending = wal.is_file() and wal.stat().st_size > 0
        for mode in ("mode=ro", "immutable=1") if pending else ("immutable=1",):
            try:
                source = sqlite3.connect(f"file:{quote(str(path))}?{mode}", uri=True)
                try:
                    _check_ours(source, path)
                    source.backup(conn)
                finally:
                    source.close()
                break
            except sqlite3.Error:
                continue
        else:
            raise sqlite3.OperationalError(f"cannot read {path}")
        self.read_only = True
        self._report(
            f"the user state at {path} is read-only: the saved tabs, bookmarks and layout are "
            "shown, but this session's changes cannot be saved"
        )
        return conn

    @staticmethod
    def _damaged(exc: sqlite3.DatabaseError) -> bool:
        code = getattr(exc, "sqlite_errorcode", None)
        return code in _DAMAGED or not isinstance(exc, sqlite3.OperationalError)

    def _start_anew(self, path: Path, exc: BaseException) -> sqlite3.Connection:
        aside = _free_aside(path)
        try:
            for suffix in ("", *_SIBLINGS):  # an old log must not be replayed onto the new file
                old = Path(f"{path}{suffix}")
                if old.exists():
                    os.replace(old, Path(f"{aside}{suffix}"))
            conn = self._open(path)
        except (OSError, sqlite3.Error, _Unusable) as again:
            self._report(
                f"the user state at {path} is damaged ({exc}) and cannot be replaced "
                f"({again}); this session's graph layout and settings will not be kept"
            )
            return self._memory()
        self._report(f"the user state at {path} was damaged ({exc}): moved to {aside.name}, "
                     "starting anew")  # fmt: skip
        return conn

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=5)
        try:
            _check_ours(conn, path)
            conn.execute("PRAGMA journal_mode = WAL")  # changes the header: only in ours
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"quick check: {check}")
            _create_schema(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _memory() -> sqlite3.Connection:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        _create_schema(conn)
        return conn

    @contextlib.contextmanager
    def _using(self, what: str) -> Iterator[sqlite3.Connection]:
        """The connection, held; a failure is reported, not raised (see the module doc)."""
        with self._lock:
            try:
                yield self.conn
            except sqlite3.Error as exc:
                self._report(f"could not {what} the user state at {self.path}: {exc}")

    # -- positions -------------------------------------------------------------------------
    def positions(self) -> dict[str, Position]:
        """The saved graph layout, by entry id."""
        out: dict[str, Position] = {}
        bad = 0
        for i, x, y, pinned in self._position_rows():
            if isinstance(i, str) and _number(x) and _number(y):
                out[i] = Position(float(x), float(y), bool(pinned))
            else:  # Infinity, text or a blob where a coordinate belongs
                bad += 1
        if bad:
            self.report_invalid("graph layout", f"had {bad} unusable positions",
                                what="those nodes are placed anew")  # fmt: skip
        return out

    def _position_rows(self) -> list[tuple[Any, Any, Any, Any]]:
        """Every saved position's row. The views' loader reads them off the GUI thread (0.2 s
        at 100,000 entries): through a read-only connection of its own where the state is a
        WAL file, so the window's writes meanwhile (the tabs saved as the entry opens) do
        not wait for the shared connection's lock; else through the shared one."""
        query = "SELECT id, x, y, pinned FROM positions"
        if self._on_disk and self.path is not None:
            try:
                reader = sqlite3.connect(f"file:{quote(str(self.path))}?mode=ro", uri=True,
                                         timeout=5, check_same_thread=False)  # fmt: skip
                try:
                    return reader.execute(query).fetchall()
                finally:
                    reader.close()
            except sqlite3.Error:
                pass  # (read through the shared connection, which reports a failure)
        with self._using("read the graph layout from") as conn:
            return conn.execute(query).fetchall()
        return []  # the failure was reported

    def save_positions(
        self, positions: Mapping[str, tuple[float, float]], pinned: Iterable[str] = ()
    ) -> None:
        """Replace the saved layout with ``positions``; the ids in ``pinned`` are pins."""
        pins = set(pinned)
        rows = [(k, float(x), float(y), int(k in pins)) for k, (x, y) in positions.items()
                if _finite(float(x)) and _finite(float(y))]  # fmt: skip
        with self._using("save the graph layout in") as conn, conn:
            conn.execute("DELETE FROM positions")
            conn.executemany("INSERT INTO positions(id, x, y, pinned) VALUES (?,?,?,?)", rows)

    # -- settings --------------------------------------------------------------------------
    def get(
        self, key: str, default: Any = None, *, clean: Callable[[Any], Any] | None = None
    ) -> Any:
        """The JSON value saved under ``key``, or ``default`` when there is none.

        Every value is checked before it is used: ``clean`` returns the usable part of a
        value, or raises ``ValueError``/``TypeError`` when nothing of it is usable. A value
        that is not JSON, or that ``clean`` refuses or trims, is reported (once, here) and
        replaced by ``default`` or by what ``clean`` kept: one bad value must never stop a
        view from opening. ``NaN`` and ``Infinity`` (which Python's JSON reads) come back as
        ``null``."""
        row = None
        with self._using("read a setting from") as conn:
            row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        if row is None:
            return default
        try:
            value = json.loads(row[0], parse_constant=_no_constant)
        except (ValueError, TypeError, RecursionError):
            self.report_invalid(key, "is not JSON")
            return default
        if clean is None:
            return value
        try:
            kept = clean(value)
        except (ValueError, TypeError) as exc:
            self.report_invalid(key, f"is not usable ({exc})")
            return default
        if kept != value:
            self.report_invalid(key, "had parts that are not usable", what="kept the rest")
        return kept

    def update(
        self, key: str, change: Callable[[Any], Any], default: Any, clean: Callable[[Any], Any]
    ) -> Any:
        """Change the value under ``key`` as it is *now* in the file, not as this window last
        read it: read, ``change`` and write in one write transaction (``BEGIN IMMEDIATE``,
        SQLite's lock on the file), so a change another window made meanwhile is kept (two
        windows toggling bookmarks each wrote its whole list: the last one won). Returns
        the new value, or None when it could not be written (reported)."""
        with self._using("save a setting in") as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
                current = default
                if row is not None:
                    with contextlib.suppress(ValueError, TypeError, RecursionError):
                        current = clean(json.loads(row[0], parse_constant=_no_constant))
                new = change(current)
                text = json.dumps(new, allow_nan=False)
                conn.execute(
                    "INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)", (key, text)
                )
                conn.commit()
            except BaseException:
                if conn.in_transaction:
                    conn.rollback()
                raise
            return new
        return None

    def changed_elsewhere(self) -> bool:
        """Whether another connection (another window on this vault, in this process or
        another) has written the file since this was last asked: SQLite's
        ``data_version``, one cheap PRAGMA, what a window polls to re-read its bookmarks.
        While another thread holds the state (the window's loader reading 100,000 saved
        positions: 0.4 s) the answer is "not yet": the poll asks again, the GUI thread
        does not wait."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            version = self._data_version(self.conn)
        except sqlite3.Error:
            return False
        finally:
            self._lock.release()
        changed = self._seen_version is not None and version != self._seen_version
        self._seen_version = version
        return changed

    @staticmethod
    def _data_version(conn: sqlite3.Connection) -> int:
        return int(conn.execute("PRAGMA data_version").fetchone()[0])

    def report_invalid(self, key: str, why: str, *, what: str = "the default is used") -> None:
        """Say that the saved ``key`` was bad and what was done instead."""
        self._report(f"the saved {key} in {self.path or 'memory'} {why}: {what}")

    def put(self, key: str, value: Any) -> None:
        """Save ``value`` (anything JSON can hold) under ``key``."""
        try:
            text = json.dumps(value, allow_nan=False)  # NaN is no JSON: never written
        except (ValueError, TypeError, RecursionError) as exc:
            self._report(f"could not save {key} in the user state at {self.path}: {exc}")
            return
        with self._using("save a setting in") as conn, conn:
            conn.execute("INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)", (key, text))

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def __enter__(self) -> UserState:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_ours(conn: sqlite3.Connection, path: Path) -> None:
    """Raise :class:`_Unusable` unless ``conn`` is a user state of ours this Anthology may
    change: one with our application id, or — with none — an empty file (a new one) or one
    holding only our tables (written before the id existed). Any other SQLite file (another
    program's database put at this path) is refused, never altered, as the index refuses a
    file it did not make."""
    app = conn.execute("PRAGMA application_id").fetchone()[0]  # reads the header
    if app not in (0, APPLICATION_ID):
        raise _Unusable(f"{path} is not an Anthology user state")
    if conn.execute("PRAGMA user_version").fetchone()[0] > SCHEMA_VERSION:
        raise _Unusable(f"the user state at {path} is from a newer Anthology")
    if app == 0:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if not names <= _OURS:
            raise _Unusable(f"{path} is not an Anthology user state (it holds other tables)")


def _writable(path: Path) -> bool:
    """Whether the state file and its folder may be written. Their permission bits are
    honoured even where the process could write anyway (as root): a file made read-only
    is the reader's "leave it as it is"."""
    for p in (path, path.parent):
        try:
            mode = p.stat().st_mode
        except OSError:
            return False
        if not (mode & 0o222) or not os.access(p, os.W_OK):
            return False
    return True


def _read_only_error(exc: BaseException) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    text = str(exc).lower()
    return (
        isinstance(exc, PermissionError)
        or code in (8, 14)  # SQLITE_READONLY, SQLITE_CANTOPEN (no -wal/-shm in the folder)
        or "readonly" in text
        or "read-only" in text
    )


def _free_aside(path: Path) -> Path:
    """Where a damaged state file is moved: ``<file>.corrupt``, or ``<file>.corrupt.2``,
    ``.3``… when earlier damaged copies are already there (each one is kept)."""
    n = 1
    while True:
        aside = path.with_name(path.name + (".corrupt" if n == 1 else f".corrupt.{n}"))
        if not any(os.path.lexists(f"{aside}{s}") for s in ("", *_SIBLINGS)):
            return aside
        n += 1


def _create_schema(conn: sqlite3.Connection) -> None:
    made = (conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
            and conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION)  # fmt: skip
    if made:  # nothing written: another window's data_version stays as it was
        return
    with conn:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS positions (id TEXT PRIMARY KEY, x REAL NOT NULL, "
            "y REAL NOT NULL, pinned INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID"
        )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
