"""Build and refresh the index: scan, read what changed, parse, resolve, write.

Incremental: a file is read again only when its size or mtime changed; deleted files are
removed; links elsewhere are re-resolved only when a name they could point at appeared or
disappeared. Long runs report progress through a :class:`~anthology.tasks.TaskState` and
can be cancelled between batches (the index stays consistent: each batch is one transaction).
"""

from __future__ import annotations

import contextlib
import functools
import json
import multiprocessing
import os
import pickle
import posixpath
import re
import shutil
import sqlite3
import stat
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from anthology.tasks import Cancelled, TaskState
from anthology.vault.parse import ParseProblem, path_id
from anthology.vault.resolve import LinkResolution, NamedEntry, Resolver, name_keys
from anthology.vault.scan import SCAN_PROBLEM_KINDS, FileStat, read_and_parse_rows, scan_vault
from anthology.vault.schema import ENTRIES, LINKS, PROBLEMS, insert_sql
from anthology.vault.stage import (
    COPY_CHUNK,
    Job,
    Staged,
    Stager,
    entry_values,
    fts_row,
    save_links,
    stage_in_worker,
    start_worker,
)

# Below this many files to read, parsing in-process beats starting worker processes.
PARALLEL_THRESHOLD = 1500
MAX_WORKERS = 4
# Files a worker parses per task, and files written per transaction (between which a
# refresh can be cancelled).
CHUNK = 100
BATCH = 1000
# From this many files on, an empty index is built in bulk (see Indexer._build_cold).
COLD_THRESHOLD = 200


# An entry's row but its eid (which SQLite gives, or which stays): see stage.entry_values.
_INSERT_ENTRY = insert_sql("entries", ENTRIES, skip=("eid",))
_UPDATE_ENTRY = (
    f"UPDATE entries SET {', '.join(f'{n} = ?' for n in ENTRIES if n != 'eid')} WHERE eid = ?"
)
_INSERT_LINK = insert_sql("links", LINKS, skip=("lid",))
_INSERT_PROBLEM = insert_sql("problems", PROBLEMS)

J = TypeVar("J")
R = TypeVar("R")


@dataclass
class RefreshReport:
    scanned: int = 0
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    links: int = 0
    problems: int = 0
    seconds: float = 0.0
    changed_ids: list[str] = field(default_factory=list)
    removed_ids: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.scanned} files: {self.added} added, {self.changed} changed, "
            f"{self.removed} removed, {self.unchanged} unchanged; {self.links} links; "
            f"{self.problems} problems; {self.seconds:.2f} s"
        )


SCRATCH_PREFIX = "anthology-build-"
_SCRATCH_RE = re.compile(re.escape(SCRATCH_PREFIX) + r"(\d+)-[A-Za-z0-9_]+$")
_OLD_SCRATCH_AGE = 24 * 3600  # seconds; folders from before the pid was in the name


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def sweep_scratch(folder: str) -> list[str]:
    """Delete the scratch folders of cold builds whose process is gone (a build killed with
    ``kill -9`` cannot remove its own); only folders this module names. Returns them."""
    swept: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return swept
    now = time.time()
    for name in names:
        if not name.startswith(SCRATCH_PREFIX):
            continue
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode):
            continue  # never a link or a file
        m = _SCRATCH_RE.match(name)
        stale = (not _alive(int(m.group(1)))) if m else now - st.st_mtime > _OLD_SCRATCH_AGE
        if stale and (not m or int(m.group(1)) != os.getpid()):
            shutil.rmtree(path, ignore_errors=True)
            swept.append(path)
    return swept


def _in_order(
    jobs: list[J],
    here: Callable[[J], R],
    there: Callable[[J], R],
    parallel: bool,
    initializer: Callable[..., None] | None = None,
    initargs: tuple = (),
) -> Generator[R, None, None]:
    """The results of ``jobs``, in order: computed by ``here(job)`` in this process, and with
    ``parallel`` by ``there(job)`` in worker processes too, while the caller writes what it
    already has. ``there`` and ``initializer(*initargs)`` (run once in each worker) must be
    picklable. Close the iterator to stop the workers."""
    done = 0
    pool = None
    taken: dict[int, R] = {}  # results of jobs done here out of order
    if parallel and (os.cpu_count() or 1) > 1 and len(jobs) > 1:
        # "spawn", not "fork": the GUI calls this from a thread, and forking a threaded
        # process can deadlock. The workers import only the parser (no Qt), so they start
        # quickly. A pool that cannot start or breaks (a script without a __main__ guard, a
        # worker killed) is not fatal: what is left is done here.
        try:
            context = multiprocessing.get_context("spawn")
            # As many workers as cores: this process writes, and works only when it would wait.
            pool = ProcessPoolExecutor(
                max_workers=min(os.cpu_count() or 1, MAX_WORKERS),
                mp_context=context,
                initializer=initializer,
                initargs=initargs,
            )
            # The first job is done here while the workers start.
            futures = [None] + [pool.submit(there, job) for job in jobs[1:]]
            # While the next job in order is not ready, this process takes the last job no
            # worker has started (workers go from the front, this one from the back, and they
            # meet) rather than wait: when the cores are busy (with the writing, or with other
            # programs) this is no slower than working in-process; when they are free the
            # workers run ahead. Results are still handed on in order.
            tail = len(jobs) - 1
            for i, job in enumerate(jobs):
                future = futures[i]
                if future is None:
                    result = here(job)
                else:
                    while tail > i and not future.done():
                        if (theirs := futures[tail]) is not None and theirs.cancel():
                            taken[tail] = here(jobs[tail])
                            tail -= 1
                        else:  # the workers have reached it: everything before is theirs
                            tail = i
                    result = taken.pop(i) if i in taken else future.result()
                    futures[i] = None  # let the result go once handed on
                yield result
                done += 1
        except (BrokenProcessPool, OSError, RuntimeError, EOFError, pickle.PicklingError):
            pass
        finally:
            # Waiting costs at most the jobs already running; not waiting leaves the pool's
            # thread to die at interpreter exit, with a traceback.
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
    for i in range(done, len(jobs)):  # serially, or what a broken pool left
        yield taken.pop(i) if i in taken else here(jobs[i])


def _parse_all(
    root: Path, stats: list[FileStat], task: TaskState
) -> Iterator[tuple[FileStat, tuple]]:
    """Read and parse ``stats`` into ``(stat, (problems, entry))``, in order; in worker
    processes too when there are many (see :func:`_in_order`)."""
    chunks = [stats[i : i + CHUNK] for i in range(0, len(stats), CHUNK)]
    parse = functools.partial(read_and_parse_rows, str(root))
    jobs = [[s.path for s in chunk] for chunk in chunks]
    done = 0
    with contextlib.closing(
        _in_order(jobs, parse, parse, parallel=len(stats) >= PARALLEL_THRESHOLD)
    ) as results:
        for chunk, rows in zip(chunks, results, strict=True):
            yield from zip(chunk, rows, strict=True)
            done += len(chunk)
            task.set_progress(done, len(stats), "parsing")


def _nocase(text: str) -> str:
    """``text`` as SQLite's NOCASE collation compares it: ASCII letters folded, no others."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


class Indexer:
    """One refresh of the index through ``conn`` for the vault at ``root``."""

    def __init__(self, conn: sqlite3.Connection, root: Path) -> None:
        self.conn = conn
        self.root = root
        # Links of the entries written in this refresh, resolved and inserted in one pass
        # once every new name is known: (source eid, source path, link rows).
        self.pending_links: list[tuple[int, str, list[tuple]]] = []
        # A cold build (empty index) looks nothing up in it: ids are checked against this
        # map (NOCASE id → path) and names against the scan (see _build_cold).
        self.cold = False
        self.cold_ids: dict[str, str] = {}
        self.cold_file_names: Counter[str] = Counter()

    # -- the refresh -----------------------------------------------------------------------
    def refresh(self, task: TaskState | None = None) -> RefreshReport:
        task = task or TaskState()
        t0 = time.perf_counter()
        report = RefreshReport()
        scan = scan_vault(self.root)
        report.scanned = len(scan.entries)
        task.set_progress(0, len(scan.entries), "scanning")

        known = {
            path: (size, mtime)
            for path, size, mtime in self.conn.execute("SELECT path, size, mtime_ns FROM files")
        }
        seen = {s.path: s for s in scan.entries}
        to_read = [s for s in scan.entries if known.get(s.path) != (s.size, s.mtime_ns)]
        removed_paths = [p for p in known if p not in seen]
        report.unchanged = len(scan.entries) - len(to_read)

        old_attachments = {r[0] for r in self.conn.execute("SELECT path FROM attachments")}
        attachments_changed = old_attachments != set(scan.attachments)
        # Scan-level problems (loops, unreadable folders) are rewritten on every run.
        scan_problem_paths = {p for p, _ in scan.problems}
        if not to_read and not removed_paths and not attachments_changed:
            self._replace_scan_problems(scan.problems, scan_problem_paths)
            report.seconds = time.perf_counter() - t0
            report.problems = self._count("problems")
            report.links = self._count("links")
            return report

        if len(to_read) >= PARALLEL_THRESHOLD and getattr(
            multiprocessing.current_process(), "_inheriting", False
        ):
            # A worker starting up is re-running a script that has no ``if __name__ ==
            # "__main__":`` guard: fail here, before writing, as spawn does; the parent then
            # parses in-process.
            raise RuntimeError("a worker process is re-running a script without a main guard")
        self.cold = not known and len(to_read) >= COLD_THRESHOLD and not self._count("entries")
        affected_names: set[str] = set()
        if self.cold:
            self.conn.execute("PRAGMA synchronous = OFF")  # a cache: rebuilt if ever torn
        with self.conn:
            for path in removed_paths:
                old = self._entry_names(path)
                if old is not None:
                    affected_names |= old[1]
                    report.removed_ids.append(old[2])
                self._delete_path(path)
            report.removed = len(removed_paths)
            if attachments_changed:
                self.conn.execute("DELETE FROM attachments")
                self.conn.executemany(
                    "INSERT INTO attachments(path) VALUES (?)", [(a,) for a in scan.attachments]
                )
            if self.cold:
                # Only scan problems can be left in an index without files; they are
                # written again below.
                self.conn.execute("DELETE FROM problems")

        try:
            try:
                if self.cold:
                    self._build_cold(to_read, scan.attachments, task, report, affected_names)
                else:
                    batch: list[tuple] = []
                    for item in _parse_all(self.root, to_read, task):
                        batch.append(item)
                        if len(batch) >= BATCH:
                            self._write_batch(batch, report, affected_names)
                            batch = []
                    if batch:
                        self._write_batch(batch, report, affected_names)
            except Cancelled:
                # What was written stays: give it its links, or they would be lost, since
                # the next refresh sees those files unchanged.
                with self.conn:
                    self._settle_links(affected_names, attachments_changed)
                raise
            task.set_progress(0, 1, "resolving links")
            with self.conn:
                self._settle_links(affected_names, attachments_changed)
                self._replace_scan_problems(scan.problems, scan_problem_paths)
        except BaseException:
            if self.conn.in_transaction:  # else the pragma below masks the real error
                self.conn.rollback()
            raise
        finally:
            if self.cold and not self.conn.in_transaction:
                self.conn.execute("PRAGMA synchronous = NORMAL")
        report.links = self._count("links")
        report.problems = self._count("problems")
        report.seconds = time.perf_counter() - t0
        task.set_progress(1, 1, "done")
        return report

    # -- a cold build ----------------------------------------------------------------------
    def _build_cold(
        self,
        to_read: list[FileStat],
        attachments: list[str],
        task: TaskState,
        report: RefreshReport,
        affected_names: set[str],
    ) -> None:
        """Build an empty index in bulk: files are parsed into stages (see
        :mod:`anthology.vault.stage`), by worker processes when there are many, and copied
        into the index chunk by chunk in scan order, a transaction per ``BATCH`` files.

        Every file's row id is known before it is parsed (its place in the scan), and so is
        every name a link can use except those the files declare (an ``id`` other than the
        path, ``aliases``): links are resolved against the paths alone where they are
        parsed. Whatever a declared name (or a file that turned out unreadable) could
        change is added to ``affected_names`` and resolved again at the end, as an edit
        would be; so are the links to files a cancelled build did not reach.
        """
        c = self.conn
        root = str(self.root)
        eids = {s.path: n for n, s in enumerate(to_read, start=1)}
        named = [NamedEntry(path_id(path), path) for path in eids]
        links = LinkResolution(Resolver(named, attachments), {e.id: eids[e.path] for e in named})
        self.cold_file_names = Counter(_file_name(path) for path in eids)
        jobs: list[Job] = [
            [(s.path, eids[s.path], s.size, s.mtime_ns) for s in to_read[i : i + CHUNK]]
            for i in range(0, len(to_read), CHUNK)
        ]
        c.execute("CREATE TEMP TABLE IF NOT EXISTS renamed (eid INTEGER PRIMARY KEY, id TEXT)")
        c.execute("DELETE FROM temp.renamed")
        # The stages are scratch files beside the index (where there is room for it).
        index_file = next((r[2] for r in c.execute("PRAGMA database_list") if r[1] == "main"), "")
        scratch_parent = os.path.dirname(index_file) or None
        sweep_scratch(scratch_parent or tempfile.gettempdir())
        folder = tempfile.TemporaryDirectory(
            prefix=f"{SCRATCH_PREFIX}{os.getpid()}-",  # the pid tells a later run it is stale
            dir=scratch_parent,
            ignore_cleanup_errors=True,
        )
        here = Stager(os.path.join(folder.name, "stage-here.sqlite"), root, links)
        results = _in_order(
            jobs,
            here.stage,
            stage_in_worker,
            parallel=len(to_read) >= PARALLEL_THRESHOLD,
            initializer=start_worker,
            initargs=(folder.name, root, save_links(folder.name, links)),
        )
        stages: dict[str, str] = {}  # stage file → its schema name in this connection
        pending = set(eids)  # not copied yet
        batch: list[tuple[Job, Staged]] = []
        try:
            for n, (job, staged) in enumerate(zip(jobs, results, strict=True), start=1):
                batch.append((job, staged))
                if len(batch) * CHUNK < BATCH and n < len(jobs):
                    continue
                for _, (stage_file, _named) in batch:
                    if stage_file not in stages:  # outside any transaction, as ATTACH must be
                        stages[stage_file] = f"stage{len(stages)}"
                        c.execute(f"ATTACH DATABASE ? AS {stages[stage_file]}", (stage_file,))
                # A transaction per batch (each commit flushes the FTS5 table's new terms),
                # begun once the batch's chunks are staged: it reads the stages as they are
                # when it begins.
                with c:
                    for job, staged in batch:
                        self._copy_chunk(job, staged, stages[staged[0]], report, affected_names)
                for job, _ in batch:
                    pending.difference_update(path for path, _, _, _ in job)
                batch = []
                task.set_progress(len(eids) - len(pending), len(eids), "parsing")
        except Cancelled:
            for path in pending:  # links to these were resolved as if they were entries
                affected_names |= _names(path_id(path), path, ())
            raise
        finally:
            results.close()  # stops the workers
            here.close()
            for schema in stages.values():
                c.execute(f"DETACH DATABASE {schema}")
            folder.cleanup()

    def _copy_chunk(
        self,
        job: Job,
        staged: Staged,
        schema: str,
        report: RefreshReport,
        affected_names: set[str],
    ) -> None:
        """Copy one staged chunk into the index, giving each entry its id (a duplicate gets
        a fallback, as in :meth:`_assign_id`) and noting which names need resolving again."""
        c = self.conn
        renamed: list[tuple[int, str]] = []
        duplicates: list[tuple] = []
        for (path, eid, _, _), named in zip(job, staged[1], strict=True):
            if named is None:  # unreadable: links to it were resolved as if it were an entry
                affected_names |= _names(path_id(path), path, ())
                continue
            declared_id, aliases = named
            entry_id, dup = self._assign_id(declared_id, path, None)
            self.cold_ids[_nocase(entry_id)] = path
            if dup is not None:
                renamed.append((eid, entry_id))
                duplicates.append((path, *dup))
            if aliases or not self._named_as_guessed(entry_id, path):
                affected_names |= _names(entry_id, path, aliases)
            report.added += 1
            report.changed_ids.append(entry_id)
        c.executemany("INSERT INTO temp.renamed (eid, id) VALUES (?, ?)", renamed)
        bounds = (job[0][1], job[-1][1])
        for sql in COPY_CHUNK:
            c.execute(sql.format(stage=schema), bounds)
        c.executemany(_INSERT_PROBLEM, duplicates)

    def _named_as_guessed(self, entry_id: str, path: str) -> bool:
        """Whether every link resolves to this entry as it did under its path id: its id is
        its path id, or its file name when no other file has that name (then a link by
        that name found it by file name and finds it by id now, and by path as before).
        Vaults whose ids are their file names (as this app's anthology) re-resolve nothing.
        """
        if entry_id == path_id(path):
            return True
        name = _file_name(path)
        return entry_id.lower() == name and self.cold_file_names[name] == 1

    # -- writing ---------------------------------------------------------------------------
    def _count(self, table: str) -> int:
        return self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]

    def _entry_names(self, path: str) -> tuple[int, set[str], str, str] | None:
        """(eid, the names links may use for it, id, aliases JSON) of the entry at ``path``."""
        row = self.conn.execute(
            "SELECT eid, id, aliases FROM entries WHERE path = ?", (path,)
        ).fetchone()
        if row is None:
            return None
        eid, entry_id, aliases = row
        return eid, _names(entry_id, path, json.loads(aliases or "[]")), entry_id, aliases

    def _delete_path(self, path: str) -> None:
        c = self.conn
        row = c.execute("SELECT eid FROM entries WHERE path = ?", (path,)).fetchone()
        if row is not None:
            eid = row[0]
            c.execute("DELETE FROM links WHERE source = ?", (eid,))
            c.execute(
                "UPDATE links SET target = NULL, status = 'unresolved' WHERE target = ?", (eid,)
            )
            for table in ("tags", "aliases", "properties"):
                c.execute(f"DELETE FROM {table} WHERE eid = ?", (eid,))
            c.execute("DELETE FROM entries_fts WHERE rowid = ?", (eid,))
            c.execute("DELETE FROM entries WHERE eid = ?", (eid,))
        c.execute("DELETE FROM problems WHERE path = ?", (path,))
        c.execute("DELETE FROM files WHERE path = ?", (path,))

    def _id_holder(self, entry_id: str) -> tuple[int | None, str] | None:
        """(eid, path) of the entry that already has ``entry_id`` (NOCASE), or None."""
        if self.cold:
            path = self.cold_ids.get(_nocase(entry_id))
            return None if path is None else (None, path)
        return self.conn.execute(
            "SELECT eid, path FROM entries WHERE id = ? COLLATE NOCASE", (entry_id,)
        ).fetchone()

    def _assign_id(self, wanted: str, path: str, eid: int | None) -> tuple[str, tuple | None]:
        """The entry's id, unique in the index; a duplicate falls back to its path id."""
        holder = self._id_holder(wanted)
        if holder is None or (eid is not None and holder[0] == eid):
            return wanted, None
        fallback = path_id(path)
        n = 1
        candidate = fallback
        while True:
            row = self._id_holder(candidate)
            if row is None or (eid is not None and row[0] == eid):
                break
            n += 1
            candidate = f"{fallback}~{n}"
        problem = (
            None,
            "duplicate-id",
            f"id “{wanted}” is already used by {holder[1]}; this entry is indexed as “{candidate}”",
            "error",
        )
        return candidate, problem

    def _write_batch(
        self,
        batch: list[tuple],
        report: RefreshReport,
        affected_names: set[str],
    ) -> None:
        """Write a batch of parsed files into an index that has entries: each replaces the
        rows of its path; its links wait in ``pending_links`` for every new name."""
        c = self.conn
        tag_rows: list[tuple] = []
        alias_rows: list[tuple] = []
        prop_rows: list[tuple] = []
        fts_rows: list[tuple] = []
        problem_rows: list[tuple] = []
        file_rows: list[tuple] = []
        with c:
            for stat, (problems, entry) in batch:
                path = stat.path
                file_rows.append((path, stat.size, stat.mtime_ns))
                old = self._entry_names(path)
                c.execute("DELETE FROM problems WHERE path = ?", (path,))
                if entry is None:
                    if old is not None:
                        affected_names |= old[1]
                        self._delete_path(path)
                        report.removed_ids.append(old[2])
                    problem_rows += [(path, *p) for p in problems]
                    continue
                eid = old[0] if old else None
                if old is not None:
                    for table in ("tags", "aliases", "properties"):
                        c.execute(f"DELETE FROM {table} WHERE eid = ?", (eid,))
                    c.execute("DELETE FROM links WHERE source = ?", (eid,))
                    c.execute("DELETE FROM entries_fts WHERE rowid = ?", (eid,))
                    report.changed += 1
                else:
                    report.added += 1
                entry_id, dup = self._assign_id(entry.declared_id, path, eid)
                if dup is not None:
                    problems = [*problems, dup]
                values = entry_values(entry_id, path, stat.mtime_ns, entry)
                if eid is None:
                    eid = c.execute(_INSERT_ENTRY, values).lastrowid
                else:
                    c.execute(_UPDATE_ENTRY, (*values, eid))
                assert eid is not None
                report.changed_ids.append(entry_id)
                # Links elsewhere need resolving again only when the entry's names changed
                # (its path is the same; its row id too).
                if old is None or (old[2], old[3]) != (entry_id, entry.aliases_json):
                    if old is not None:
                        affected_names |= old[1]
                    affected_names |= _names(entry_id, path, entry.aliases)
                if entry.links:
                    self.pending_links.append((eid, path, entry.links))
                tag_rows += [(eid, t) for t in entry.tags]
                alias_rows += [(eid, a) for a in entry.aliases]
                prop_rows += [(eid, k, v) for k, v in entry.property_rows]
                fts_rows.append(fts_row(eid, entry))
                problem_rows += [(path, *p) for p in problems]
            c.executemany("INSERT INTO tags(eid, tag) VALUES (?,?)", tag_rows)
            c.executemany("INSERT INTO aliases(eid, alias) VALUES (?,?)", alias_rows)
            c.executemany("INSERT INTO properties(eid, key, value) VALUES (?,?,?)", prop_rows)
            c.executemany(
                "INSERT INTO entries_fts(rowid, title, aliases, tags, body) VALUES (?,?,?,?,?)",
                fts_rows,
            )
            c.executemany(_INSERT_PROBLEM, problem_rows)
            c.executemany(
                "INSERT OR REPLACE INTO files(path, size, mtime_ns) VALUES (?,?,?)", file_rows
            )

    def _replace_scan_problems(
        self, problems: list[tuple[str, ParseProblem]], paths: set[str]
    ) -> None:
        c = self.conn
        with c:
            kinds = ", ".join(f"'{k}'" for k in SCAN_PROBLEM_KINDS)
            c.execute(
                f"DELETE FROM problems WHERE kind IN ({kinds}) "
                "OR (kind = 'unreadable' AND path NOT IN (SELECT path FROM files))"
            )
            c.executemany(
                _INSERT_PROBLEM,
                [(path, p.line, p.kind, p.message, p.severity) for path, p in problems],
            )

    # -- resolution ------------------------------------------------------------------------
    def resolver(self) -> Resolver:
        entries = [
            NamedEntry(i, p, tuple(json.loads(a)) if a and a != "[]" else ())
            for i, p, a in self.conn.execute("SELECT id, path, aliases FROM entries")
        ]
        attachments = [r[0] for r in self.conn.execute("SELECT path FROM attachments")]
        return Resolver(entries, attachments)

    def _settle_links(self, affected_names: set[str], attachments_changed: bool) -> None:
        """Give the links written in this refresh, and those its changes touched, their
        final targets. A cold build has written its links, resolved against the scan's
        attachments: only the names it noted are resolved again."""
        self._resolve(affected_names, attachments_changed and not self.cold)

    def _resolve(self, affected_names: set[str], attachments_changed: bool) -> None:
        """Insert this refresh's links, resolved; re-resolve older links a change touched,
        rewriting those whose target changed."""
        c = self.conn
        conditions: list[str] = []
        if affected_names:
            # A table, not an IN list: a cancelled cold build can touch every name.
            c.execute("CREATE TEMP TABLE IF NOT EXISTS affected_names(name TEXT PRIMARY KEY)")
            c.execute("DELETE FROM temp.affected_names")
            c.executemany(
                "INSERT OR IGNORE INTO temp.affected_names VALUES (?)",
                ((n,) for n in affected_names),
            )
            conditions.append("l.target_name IN (SELECT name FROM temp.affected_names)")
        if attachments_changed:
            conditions.append("l.status IN ('attachment', 'missing-attachment')")
        existing = []
        if conditions and self._count("links"):
            existing = c.execute(
                "SELECT l.lid, l.text, l.markdown, e.path, l.target, l.status, l.resolved_path "
                f"FROM links l JOIN entries e ON e.eid = l.source WHERE {' OR '.join(conditions)}"
            ).fetchall()
        if not existing and not self.pending_links:
            return
        resolve = LinkResolution(self.resolver(), dict(c.execute("SELECT id, eid FROM entries")))
        updates = []
        for lid, text, md, path, *was in existing:
            now = resolve(text, path, md)
            if now != tuple(was):
                updates.append((*now, lid))
        c.executemany(
            "UPDATE links SET target = ?, status = ?, resolved_path = ? WHERE lid = ?", updates
        )
        self._insert_links(resolve)

    def _insert_links(self, resolve: LinkResolution) -> None:
        """Write the pending links, resolved by ``resolve``."""
        rows = [
            r for eid, path, links in self.pending_links for r in resolve.rows(eid, path, links)
        ]
        self.conn.executemany(_INSERT_LINK, rows)
        self.pending_links = []


def _file_name(path: str) -> str:
    """The file name without ``.md``, lower case: the name a link finds a file by."""
    return posixpath.basename(path_id(path)).lower()


def _names(entry_id: str, path: str, aliases: Iterable[str]) -> set[str]:
    """The link target names (``links.target_name``) that could resolve to this entry."""
    return {posixpath.basename(k) for k in name_keys(NamedEntry(entry_id, path, tuple(aliases)))}
