"""Build and refresh the index: scan, stage what changed, copy, resolve.

Incremental: a file is read again only when its size, mtime or ctime changed (the ctime
moves with a chmod, which leaves the mtime: a note made unreadable is reported); deleted files are
removed; links elsewhere are re-resolved only when a name they could point at appeared,
changed or disappeared. A cold build and a refresh write the same way (see
:mod:`anthology.vault.stage`). Long runs report progress through a
:class:`~anthology.tasks.TaskState` and can be cancelled between batches (the index stays
consistent: each batch is one transaction).
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from anthology.tasks import Cancelled, TaskState
from anthology.vault.ids import IdBook
from anthology.vault.model import ParseProblem
from anthology.vault.relink import (
    aliases_of,
    file_name,
    index_resolver,
    link_names,
    resolve_again,
)
from anthology.vault.resolve import LinkTargets, NamedEntry, Resolver, path_id
from anthology.vault.rows import ProblemRow
from anthology.vault.scan import SCAN_PROBLEM_KINDS, FileStat, scan_vault
from anthology.vault.schema import PROBLEMS, REVISION_KEY, STATS_KEY, insert_sql

if TYPE_CHECKING:  # the parser and the worker pool (~0.05 s to import) are loaded when a
    # file is to be read, not by a re-run that finds nothing changed
    from anthology.vault.stage import Job, Staged

# Below this many files to read, parsing in-process beats starting worker processes; above
# it, they are used only when the machine has cores to spare (pool.worker_count).
PARALLEL_THRESHOLD = 1500
# Files a stager parses per chunk, and files copied per transaction (between which a
# refresh can be cancelled).
CHUNK = 100
BATCH = 1000

_INSERT_PROBLEM = insert_sql("problems", PROBLEMS)


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
    changed_ids: list[str] = field(default_factory=list)  # every entry read: new or edited
    removed_ids: list[str] = field(default_factory=list)
    added_ids: list[str] = field(default_factory=list)  # of changed_ids, the new files'
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (old id, new id), one file

    def summary(self) -> str:
        return (
            f"{self.scanned} files: {self.added} added, {self.changed} changed, "
            f"{self.removed} removed, {self.unchanged} unchanged; {self.links} links; "
            f"{self.problems} problems; {self.seconds:.2f} s"
        )


def forget_stored(conn: sqlite3.Connection) -> None:
    """Drop the counts stored with the index (:meth:`ReportQueries.stats`) and its revision
    (what caches outside it are keyed by, :mod:`anthology.vault.graph_cache`): in the
    transaction that begins to change what they stand for, so no reader sees new rows with
    old counts, nor keeps an answer under the old revision. Both are written again once the
    refresh is in (``VaultIndex.refresh``)."""
    conn.execute("DELETE FROM meta WHERE key IN (?, ?)", (STATS_KEY, REVISION_KEY))


class Indexer:
    """One refresh of the index through ``conn`` for the vault at ``root``."""

    def __init__(self, conn: sqlite3.Connection, root: Path) -> None:
        self.conn = conn
        self.root = root
        # An index with no entries before this refresh (a cold build): no link was written
        # before, so one resolved as it was staged needs no second look, and every id is
        # one this refresh gave.
        self.fresh = False
        self.file_names: Counter[str] = Counter()  # of the files read, when fresh
        self.ids = IdBook(conn, fresh=False)

    # -- the refresh -----------------------------------------------------------------------
    def refresh(self, task: TaskState | None = None) -> RefreshReport:
        task = task or TaskState()
        t0 = time.perf_counter()
        report = RefreshReport()
        scan = scan_vault(self.root)
        report.scanned = len(scan.entries)
        task.set_progress(0, len(scan.entries), "scanning")

        # A FileStat is a tuple equal to its file's row when the file is unchanged: the rows
        # as a set (made by SQLite's cursor, no Python per row), one lookup per file.
        known = set(self.conn.execute("SELECT path, size, mtime_ns, ctime_ns FROM files"))
        to_read = [s for s in scan.entries if s not in known]
        if not to_read and len(known) == len(scan.entries):
            removed_paths: list[str] = []  # every row is a file found (paths are unique)
        else:
            seen = {s.path for s in scan.entries}
            removed_paths = sorted(row[0] for row in known if row[0] not in seen)
        report.unchanged = len(scan.entries) - len(to_read)

        old_attachments = {r[0] for r in self.conn.execute("SELECT path FROM attachments")}
        attachments_changed = old_attachments != set(scan.attachments)
        # Scan-level problems (loops, unreadable folders) are rewritten on every run.
        scan_problem_paths = {p for p, _ in scan.problems}
        if not to_read and not removed_paths and not attachments_changed:
            before = self.conn.total_changes
            self._replace_scan_problems(scan.problems, scan_problem_paths)
            if self.conn.total_changes != before:  # a scan problem came or went
                with self.conn:
                    forget_stored(self.conn)
            report.seconds = time.perf_counter() - t0
            report.problems = self._count("problems")
            report.links = self._count("links")
            return report

        import multiprocessing  # (here: a re-run that reads nothing does not load it)

        if len(to_read) >= PARALLEL_THRESHOLD and getattr(
            multiprocessing.current_process(), "_inheriting", False
        ):
            # A worker starting up is re-running a script that has no ``if __name__ ==
            # "__main__":`` guard: fail here, before writing, as spawn does; the parent then
            # parses in-process.
            raise RuntimeError("a worker process is re-running a script without a main guard")
        self.fresh = not self._count("entries")
        self.ids = IdBook(self.conn, fresh=self.fresh)
        affected_names: set[str] = set()
        if self.fresh:
            self.conn.execute("PRAGMA synchronous = OFF")  # a cache: rebuilt if ever torn
        with self.conn:
            forget_stored(self.conn)  # counted again once this refresh is in (index.py)
            for path in removed_paths:
                old = self._entry_names(path)
                if old is not None:
                    affected_names |= old[1]
                    report.removed_ids.append(old[2])
                self._clear(path, old[0] if old else None, gone=True)
            report.removed = len(removed_paths)
            if attachments_changed:
                self.conn.execute("DELETE FROM attachments")
                self.conn.executemany(
                    "INSERT INTO attachments(path) VALUES (?)", [(a,) for a in scan.attachments]
                )
            if self.fresh:
                # Only scan problems can be left in an index without entries; they are
                # written again below.
                self.conn.execute("DELETE FROM problems")

        try:
            try:
                if to_read:
                    self._write(to_read, scan.attachments, task, report, affected_names)
            except Cancelled:
                # What was written stays: give it its links, or they would be lost, since
                # the next refresh sees those files unchanged.
                with self.conn:
                    resolve_again(self.conn, affected_names, attachments_changed and not self.fresh)
                raise
            task.set_progress(0, 1, "resolving links")
            with self.conn:
                resolve_again(self.conn, affected_names, attachments_changed and not self.fresh)
                self._replace_scan_problems(scan.problems, scan_problem_paths)
        except BaseException:
            if self.conn.in_transaction:  # else the pragma below masks the real error
                self.conn.rollback()
            raise
        finally:
            if self.fresh and not self.conn.in_transaction:
                self.conn.execute("PRAGMA synchronous = NORMAL")
        report.links = self._count("links")
        report.problems = self._count("problems")
        report.seconds = time.perf_counter() - t0
        task.set_progress(1, 1, "done")
        return report

    # -- writing: stage, then copy ---------------------------------------------------------
    def _write(
        self,
        to_read: list[FileStat],
        attachments: list[str],
        task: TaskState,
        report: RefreshReport,
        affected_names: set[str],
    ) -> None:
        """Write the files of ``to_read``: each is parsed into a stage (see
        :mod:`anthology.vault.stage`), by worker processes when there are many, and copied
        into the index chunk by chunk in row-id order, a transaction per ``BATCH`` files.

        Every file's row id is known before it is parsed (an edited file keeps its own, so
        the links to it stay; a new one gets the next after the largest), and so is every
        name a link can use but those the new files declare (an ``id`` other than the path,
        ``aliases``): links are resolved where they are parsed, against the index's names
        for the entries not read again, the old names of those edited and the path ids of
        the new. Whatever a declared name (or a file that turned out unreadable) could change
        is added to ``affected_names`` and resolved again at the end; so are the names of
        files a cancelled refresh did not reach.
        """
        from anthology.vault.pool import SCRATCH_PREFIX, in_order, sweep_scratch, worker_count
        from anthology.vault.stage import (
            StageFile,
            Stager,
            save_links,
            stage_in_worker,
            start_worker,
        )

        c = self.conn
        old = self._old_entries(to_read)
        next_eid = (c.execute("SELECT max(eid) FROM entries").fetchone()[0] or 0) + 1
        eids: dict[str, int] = {}
        for s in to_read:
            if s.path in old:
                eids[s.path] = old[s.path][0]
            else:
                eids[s.path] = next_eid
                next_eid += 1
        order = sorted(to_read, key=lambda s: eids[s.path])
        jobs: list[Job] = [
            [
                StageFile(s.path, eids[s.path], s.size, s.mtime_ns, s.ctime_ns)
                for s in order[i : i + CHUNK]
            ]
            for i in range(0, len(order), CHUNK)
        ]
        if self.fresh:
            self.file_names = Counter(file_name(s.path) for s in to_read)
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
        links = self._staging_links(eids, old, attachments)
        here = Stager(os.path.join(folder.name, "stage-here.sqlite"), str(self.root), links)
        workers = worker_count(len(to_read), PARALLEL_THRESHOLD)
        parallel = workers > 0
        results = in_order(
            jobs,
            here.stage,
            stage_in_worker,
            parallel=parallel,
            initializer=start_worker,
            # the workers' names, pickled only for workers (0.15 s for 10,000 entries)
            initargs=(folder.name, str(self.root), save_links(folder.name, links), os.getpid())
            if parallel
            else (),
            workers=workers,
        )
        stages: dict[str, str] = {}  # stage file → its schema name in this connection
        pending = set(eids)  # not copied yet
        batch: list[tuple[Job, Staged]] = []
        try:
            for n, (job, staged) in enumerate(zip(jobs, results, strict=True), start=1):
                batch.append((job, staged))
                if len(batch) * CHUNK < BATCH and n < len(jobs):
                    continue
                for _, staged in batch:
                    if staged.stage_file not in stages:  # outside a transaction, as ATTACH must be
                        stages[staged.stage_file] = f"stage{len(stages)}"
                        c.execute(
                            f"ATTACH DATABASE ? AS {stages[staged.stage_file]}",
                            (staged.stage_file,),
                        )
                # A transaction per batch (each commit flushes the FTS5 table's new terms),
                # begun once the batch's chunks are staged: it reads the stages as they are
                # when it begins.
                with c:
                    for job, staged in batch:
                        self._copy_chunk(
                            job, staged, stages[staged.stage_file], old, report, affected_names
                        )
                for job, _ in batch:
                    pending.difference_update(f.path for f in job)
                batch = []
                task.set_progress(len(eids) - len(pending), len(eids), "parsing")
        except Cancelled:
            for path in pending:  # links to new files were resolved as if they were entries
                if path not in old:
                    affected_names |= link_names(path_id(path), path, ())
            raise
        finally:
            results.close()  # stops the workers
            here.close()
            for schema in stages.values():
                c.execute(f"DETACH DATABASE {schema}")
            folder.cleanup()

    def _old_entries(self, to_read: list[FileStat]) -> dict[str, tuple[int, str, list[str]]]:
        """path → (eid, id, aliases) of the entries the files to read had."""
        if self.fresh:
            return {}
        c = self.conn
        out = {}
        for s in to_read:
            row = c.execute(
                "SELECT eid, id, aliases FROM entries WHERE path = ?", (s.path,)
            ).fetchone()
            if row is not None:
                out[s.path] = (row[0], row[1], json.loads(row[2] or "[]"))
        return out

    def _staging_links(
        self,
        eids: dict[str, int],
        old: dict[str, tuple[int, str, list[str]]],
        attachments: list[str],
    ) -> LinkTargets:
        """The link resolution the files are staged with (see :meth:`_write`)."""
        named = [
            NamedEntry(old[path][1], path, tuple(old[path][2]))
            if path in old
            else NamedEntry(path_id(path), path)
            for path in eids
        ]
        ids = {e.id: eids[e.path] for e in named}
        if not self.fresh:
            for entry_id, path, aliases, eid in self.conn.execute(
                "SELECT id, path, aliases, eid FROM entries"
            ):
                if path not in eids:
                    named.append(NamedEntry(entry_id, path, aliases_of(aliases)))
                    ids[entry_id] = eid
        return LinkTargets(Resolver(named, attachments), ids)

    def _copy_chunk(
        self,
        job: Job,
        staged: Staged,
        schema: str,
        old: dict[str, tuple[int, str, list[str]]],
        report: RefreshReport,
        affected_names: set[str],
    ) -> None:
        """Copy one staged chunk into the index in place of what its files had, giving each
        entry its id (a duplicate gets a fallback, see :class:`IdBook`) and noting
        which names need resolving again."""
        c = self.conn
        renamed: list[tuple[int, str]] = []
        duplicates: list[ProblemRow] = []
        for (path, eid, *_), names in zip(job, staged.names, strict=True):
            had = old.get(path)
            old_names = link_names(had[1], path, had[2]) if had else set()
            if not self.fresh:
                self._clear(path, eid if had else None, gone=names is None)
            if names is None:  # unreadable: links to it were resolved as if it were an entry
                affected_names |= old_names or link_names(path_id(path), path, ())
                if had:
                    report.removed_ids.append(had[1])
                continue
            entry_id, dup = self.ids.give(names.id, path, eid)
            if entry_id != names.id:
                renamed.append((eid, entry_id))
            if dup is not None:
                duplicates.append(dup)
            if had:
                report.changed += 1
                if (had[1], had[2]) != (entry_id, names.aliases):
                    affected_names |= old_names | link_names(entry_id, path, names.aliases)
                if had[1] != entry_id:
                    report.renamed.append((had[1], entry_id))
            else:
                report.added += 1
                report.added_ids.append(entry_id)
                if not self.fresh or names.aliases or not self._named_as_guessed(entry_id, path):
                    affected_names |= link_names(entry_id, path, names.aliases)
            report.changed_ids.append(entry_id)
        c.executemany("INSERT INTO temp.renamed (eid, id) VALUES (?, ?)", renamed)
        from anthology.vault.stage import COPY_CHUNK  # (loaded by _write already)

        bounds = (job[0].eid, job[-1].eid)
        for sql in COPY_CHUNK:
            c.execute(sql.format(stage=schema), bounds)
        c.executemany(_INSERT_PROBLEM, duplicates)

    def _named_as_guessed(self, entry_id: str, path: str) -> bool:
        """Whether, in a fresh index, every link resolves to this entry as it did under its
        path id: its id is its path id, or its file name when no other file has that name
        (then a link by that name found it by file name and finds it by id now, and by path
        as before). Vaults whose ids are their file names (as this app's anthology)
        re-resolve nothing."""
        if entry_id == path_id(path):
            return True
        name = file_name(path)
        return entry_id.lower() == name and self.file_names[name] == 1

    def _clear(self, path: str, eid: int | None, *, gone: bool) -> None:
        """Delete what the index holds of the file at ``path`` (and of its entry ``eid``).
        ``gone``: the entry is no more, and links to it are unresolved; else it is being
        written again under the same row id, and they stay."""
        c = self.conn
        if eid is not None:
            c.execute("DELETE FROM links WHERE source = ?", (eid,))
            if gone:
                c.execute(
                    "UPDATE links SET target = NULL, status = 'unresolved' WHERE target = ?",
                    (eid,),
                )
            c.execute("DELETE FROM tags WHERE eid = ?", (eid,))
            c.execute("DELETE FROM entries_fts WHERE rowid = ?", (eid,))
            c.execute("DELETE FROM entries WHERE eid = ?", (eid,))
        c.execute("DELETE FROM problems WHERE path = ?", (path,))
        c.execute("DELETE FROM files WHERE path = ?", (path,))

    # -- ids and names ---------------------------------------------------------------------
    def _count(self, table: str) -> int:
        return self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]

    def _entry_names(self, path: str) -> tuple[int, set[str], str] | None:
        """(eid, the names links may use for it, id) of the entry at ``path``."""
        row = self.conn.execute(
            "SELECT eid, id, aliases FROM entries WHERE path = ?", (path,)
        ).fetchone()
        if row is None:
            return None
        eid, entry_id, aliases = row
        return eid, link_names(entry_id, path, aliases_of(aliases)), entry_id

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

    def resolver(self) -> Resolver:
        """A resolver over the index's entries and attachments, as links are resolved."""
        return index_resolver(self.conn)
