"""The index's one write path: files become rows in a SQLite file of the parser's own.

A build or a refresh hands chunks of the files to read to a *stager*: in this process, and
in worker processes too when there are many. Each stager reads and parses its files,
resolves their links against the names known before they were read, and writes the rows
into its *stage*, a SQLite file only it writes; the indexer then copies each chunk from the
stage into the index with ``INSERT … SELECT`` (:data:`COPY_CHUNK`), inside SQLite, in chunk
order. A cold build of 10,000 notes and a refresh of one edited note go the same way.

Why not send the rows back: pickled, 10,000 notes are ~50 MB, and the indexer then bound
them into SQLite one value at a time (a link row is 16 values). That made the index's one
writer the bottleneck of a cold build: ~3.5 s of its ~4 s on two cores, with the workers
waiting. Binding now happens in the workers, in parallel, and the writer's copy costs
1.0–1.2 s of CPU for 10,000 notes, over half of it the FTS5 insert any full-text index
makes. (Measured: 10–20 % faster cold builds; on two cores the build is now bound by CPU
as a whole, parsing first.)

Rows are clustered by entry row id (``eid``), which each file gets before it is parsed (an
edited file keeps its own, a new one gets the next after the index's largest), and chunks
are cut in eid order, so a chunk is one range of every stage table. This module imports
only the parser, the resolver and ``sqlite3``: a worker starts quickly.
"""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from typing import NamedTuple

from anthology.vault.parse import ParsedEntry
from anthology.vault.parse_file import parse_files
from anthology.vault.resolve import LinkTargets
from anthology.vault.rows import EntryRow
from anthology.vault.schema import (
    ENTRIES,
    ENTRY_COLUMNS,
    LINK_COLUMNS,
    LINKS,
    PROBLEM_COLUMNS,
    PROBLEMS,
    columns,
)

# json.dumps(v, ensure_ascii=False), twice as fast on the small values of a row:
# JSONEncoder.encode builds a new C encoder on every call, so build one once (no
# circular-reference check: loaded properties are trees) and call it directly.
# c_make_encoder is CPython's internal helper: if it is missing or takes other arguments in
# some Python, or does not give json.dumps's text, the public encoder is used.
_encoder = json.JSONEncoder(ensure_ascii=False)
_encode_str = json.encoder.encode_basestring
_SAMPLE = {"a": [1, 2.5, None, True, 'é\n"', {"b": -0.0}], "c": ""}
try:
    _iterencode = json.encoder.c_make_encoder(  # type: ignore[attr-defined]
        None, _encoder.default, _encode_str, None, ": ", ", ", False, False, True
    )
    if "".join(_iterencode(_SAMPLE, 0)) != json.dumps(_SAMPLE, ensure_ascii=False):
        _iterencode = None
except (AttributeError, TypeError):  # pragma: no cover - another Python
    _iterencode = None


def _dumps(value: object) -> str:
    if value.__class__ is str:
        return _encode_str(value)
    if _iterencode is None:  # pragma: no cover - another Python
        return _encoder.encode(value)
    return "".join(_iterencode(value, 0))


# The stage's tables hold the index's columns (see schema.py), in the same order.
_ENTRY_DATA = columns(ENTRIES, skip=("eid", "id"))

_SCHEMA = f"""
CREATE TABLE entries (eid INTEGER PRIMARY KEY, id, {_ENTRY_DATA});
CREATE TABLE links ({LINK_COLUMNS}, n INTEGER, PRIMARY KEY (source, n)) WITHOUT ROWID;
CREATE TABLE tags (eid INTEGER, tag, PRIMARY KEY (eid, tag)) WITHOUT ROWID;
CREATE TABLE problems (eid INTEGER, n INTEGER, {PROBLEM_COLUMNS},
    PRIMARY KEY (eid, n)) WITHOUT ROWID;
CREATE TABLE files (eid INTEGER PRIMARY KEY, path, size, mtime_ns, ctime_ns);
CREATE TABLE fts (eid INTEGER PRIMARY KEY, title, aliases, tags, body);
"""

# One chunk's copy into the index: ``{stage}`` is the attached stage, the parameters are the
# chunk's first and last eid. An id the indexer had to change (a duplicate) is taken from
# ``temp.renamed``.
COPY_CHUNK = (
    f"INSERT INTO main.entries ({ENTRY_COLUMNS}) SELECT s.eid, coalesce(r.id, s.id), "
    f"{_ENTRY_DATA} FROM {{stage}}.entries s "
    "LEFT JOIN temp.renamed r ON r.eid = s.eid WHERE s.eid BETWEEN ?1 AND ?2",
    f"INSERT INTO main.links ({LINK_COLUMNS}) SELECT {LINK_COLUMNS} FROM {{stage}}.links "
    "WHERE source BETWEEN ?1 AND ?2",
    "INSERT INTO main.tags (eid, tag) SELECT eid, tag FROM {stage}.tags "
    "WHERE eid BETWEEN ?1 AND ?2",
    f"INSERT INTO main.problems ({PROBLEM_COLUMNS}) SELECT {PROBLEM_COLUMNS} "
    "FROM {stage}.problems WHERE eid BETWEEN ?1 AND ?2",
    "INSERT INTO main.files (path, size, mtime_ns, ctime_ns) SELECT path, size, mtime_ns, ctime_ns "
    "FROM {stage}.files WHERE eid BETWEEN ?1 AND ?2",
    "INSERT INTO main.entries_fts (rowid, title, aliases, tags, body) "
    "SELECT eid, title, aliases, tags, body FROM {stage}.fts WHERE eid BETWEEN ?1 AND ?2",
)


class StageFile(NamedTuple):
    """A file of a chunk to stage, with the row id its entry will have."""

    path: str  # vault-relative
    eid: int
    size: int
    mtime_ns: int
    ctime_ns: int


Job = Sequence[StageFile]  # a chunk, in eid order


class EntryNames(NamedTuple):
    """What the indexer must learn of a staged entry to give it its id and to resolve
    again the links its names change."""

    id: str  # as declared (the ``id`` property, else the path id)
    aliases: list[str]


class Staged(NamedTuple):
    """A staged chunk: the stage file holding it, and each file's names, in order (None:
    nothing could be read)."""

    stage_file: str
    names: list[EntryNames | None]


def entry_row(eid: int, path: str, mtime_ns: int, e: ParsedEntry) -> EntryRow:
    """The ``entries`` row of a parsed entry, under its declared id (the indexer renames a
    duplicate as it copies)."""
    return EntryRow(eid, e.id, path, e.title, e.kind, e.status, e.words, e.reading_minutes,
                    e.body_line, _dumps(e.headings), _dumps(e.tags), _dumps(e.aliases),
                    _dumps(e.properties), mtime_ns, _dumps(e.fields) if e.fields else None,
                    _dumps(e.items) if e.items else None)  # fmt: skip


def fts_row(eid: int, e: ParsedEntry) -> tuple[int, str, str, str, str]:
    """The full-text row of a parsed entry: rowid, title, aliases, tags and body."""
    return (eid, e.title, " ".join(e.aliases), " ".join(e.tags), e.body)


class Stager:
    """Writes chunks of a vault's files, parsed, into one stage file."""

    def __init__(self, path: str, root: str, links: LinkTargets) -> None:
        self.path = path
        self.root = root
        self.links = links
        self.conn = sqlite3.connect(path)
        # A scratch file, read by the indexer while this writes: no durability wanted.
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = OFF")
        self.conn.executescript(_SCHEMA)

    def close(self) -> None:
        self.conn.close()

    def stage(self, job: Job) -> Staged:
        """Read, parse and resolve the files of ``job``, and write their rows."""
        parsed = parse_files(self.root, [f.path for f in job])
        entries, links, tags, problems, files, fts = ([] for _ in range(6))
        names: list[EntryNames | None] = []
        for (path, eid, size, mtime_ns, ctime_ns), (file_problems, entry) in zip(
            job, parsed, strict=True
        ):
            files.append((eid, path, size, mtime_ns, ctime_ns))
            problems += [(eid, n, path, p.line, p.kind, p.message, p.severity)
                         for n, p in enumerate(file_problems)]  # fmt: skip
            if entry is None:
                names.append(None)
                continue
            names.append(EntryNames(entry.id, entry.aliases))
            entries.append(entry_row(eid, path, mtime_ns, entry))
            links += [(*r, n) for n, r in enumerate(self.links.rows(eid, path, entry.links))]
            tags += [(eid, t) for t in entry.tags]
            fts.append(fts_row(eid, entry))
        c = self.conn
        with c:
            c.executemany(f"INSERT INTO entries VALUES ({_marks(len(ENTRIES))})", entries)
            # a link row has the columns but lid, then its number n: as many as LINKS
            c.executemany(f"INSERT INTO links VALUES ({_marks(len(LINKS))})", links)
            c.executemany("INSERT INTO tags VALUES (?, ?)", tags)
            c.executemany(f"INSERT INTO problems VALUES ({_marks(len(PROBLEMS) + 2)})", problems)
            c.executemany("INSERT INTO files VALUES (?, ?, ?, ?, ?)", files)
            c.executemany("INSERT INTO fts VALUES (?, ?, ?, ?, ?)", fts)
        return Staged(self.path, names)


def _marks(n: int) -> str:
    return ", ".join("?" * n)


# -- in a worker process -------------------------------------------------------------------
_stager: Stager | None = None


def save_links(folder: str, links: LinkTargets) -> str:
    """Write the link resolution the workers start from into ``folder``; its file's path.

    A worker does not get it in its start-up arguments: those are pickled into a pipe that
    the new process reads only once it has imported what they name, and the ~1 MB of a
    10,000-entry vault's names stalled the indexer there for 0.2–0.5 s per worker."""
    path = os.path.join(folder, "links.pickle")
    with open(path, "wb") as fh:
        pickle.dump(links, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def _die_with_parent(parent: int | None = None) -> None:
    """End this worker when the process that started it (``parent``, its pid as that
    process gave it) dies (``kill -9`` of a build left idle workers behind): the kernel's
    parent-death signal on Linux, and everywhere a thread that notices the parent is gone.

    The pid comes from the parent, not from ``os.getppid()`` here: a build killed while its
    worker was still starting had already left it to init (ppid 1) when it asked, so the
    worker took init for its parent and waited for work forever (seen in the test suite)."""
    if parent is None:
        parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # died before the signal was armed
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def start_worker(folder: str, root: str, links_file: str, parent: int | None = None) -> None:
    """Pool initializer: this process's stage, in ``folder``, named after the process;
    ``parent``: the pid of the build that started it (see :func:`_die_with_parent`)."""
    global _stager
    _die_with_parent(parent)
    with open(links_file, "rb") as fh:
        links = pickle.load(fh)
    _stager = Stager(os.path.join(folder, f"stage-{os.getpid()}.sqlite"), root, links)


def stage_in_worker(job: Job) -> Staged:
    assert _stager is not None, "start_worker was not called in this process"
    return _stager.stage(job)
