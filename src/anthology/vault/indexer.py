"""Build and refresh the index: scan, read what changed, parse, resolve, write.

Incremental: a file is read again only when its size or mtime changed; deleted files are
removed; links elsewhere are re-resolved only when a name they could point at appeared or
disappeared. Long runs report progress through a :class:`Task` and can be cancelled
between batches (the index stays consistent: each batch is one transaction).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import posixpath
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import sqlite_utils

from anthology.vault.parse import ParsedEntry, ParseProblem, parse_entry, path_id, reading_minutes
from anthology.vault.resolve import NamedEntry, Resolver, name_keys, target_key
from anthology.vault.scan import FileStat, read_entry_text, scan_vault

# Below this many files to read, parsing in-process beats starting worker processes.
PARALLEL_THRESHOLD = 1500
BATCH = 1000


class Cancelled(Exception):
    """Raised inside a refresh when its task was cancelled."""


@dataclass
class Task:
    """Progress and cancellation for slow work, shared by the CLI bar and the GUI worker.

    ``report(done, total, stage)`` is called from the working thread; ``cancelled`` may be
    set from any thread.
    """

    report: Callable[[int, int, str], None] | None = None
    cancelled: bool = False

    def progress(self, done: int, total: int, stage: str) -> None:
        if self.cancelled:
            raise Cancelled
        if self.report is not None:
            self.report(done, total, stage)


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


def _read_and_parse(root: str, stat: FileStat) -> tuple[FileStat, ParsedEntry | None, list]:
    read = read_entry_text(Path(root) / stat.path)
    if read.text is None:
        return stat, None, read.problems
    parsed = parse_entry(read.text, stat.path)
    return stat, parsed, read.problems + parsed.problems


def _parse_chunk(root: str, stats: Sequence[FileStat]) -> list:
    return [_read_and_parse(root, s) for s in stats]


def _parse_all(root: Path, stats: list[FileStat], task: Task) -> Iterable[tuple]:
    """Read and parse ``stats``, in worker processes when there are many."""
    total = len(stats)
    if total < PARALLEL_THRESHOLD or (os.cpu_count() or 1) < 2:
        for i, s in enumerate(stats):
            if i % 200 == 0:
                task.progress(i, total, "parsing")
            yield _read_and_parse(str(root), s)
        return
    workers = min(os.cpu_count() or 2, 4)
    chunk = 250
    chunks = [stats[i : i + chunk] for i in range(0, total, chunk)]
    done = 0
    # The main process writes SQLite while the workers read and parse the next chunks.
    # "spawn", not "fork": the GUI calls this from a thread, and forking a threaded process
    # can deadlock. Workers import only the parser (no Qt), so they start quickly.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for result in pool.map(_parse_chunk, [str(root)] * len(chunks), chunks):
            yield from result
            done += len(result)
            task.progress(done, total, "parsing")


def _problem_rows(path: str, problems: Iterable[ParseProblem]) -> list[tuple]:
    return [(path, p.line, p.kind, p.message, p.severity) for p in problems]


class Indexer:
    """One refresh of the index at ``db`` for the vault at ``root``."""

    def __init__(self, db: sqlite_utils.Database, root: Path) -> None:
        self.db = db
        self.conn = db.conn
        self.root = root
        # Links of the entries written in this refresh, resolved and inserted in one pass
        # once every new name is known: (source eid, source path, text, target_name, …).
        self.pending_links: list[tuple] = []

    # -- the refresh -----------------------------------------------------------------------
    def refresh(self, task: Task | None = None) -> RefreshReport:
        task = task or Task()
        t0 = time.perf_counter()
        report = RefreshReport()
        scan = scan_vault(self.root)
        report.scanned = len(scan.entries)
        task.progress(0, len(scan.entries), "scanning")

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

        affected_names: set[str] = set()
        touched_eids: set[int] = set()
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

        batch: list[tuple] = []
        for item in _parse_all(self.root, to_read, task):
            batch.append(item)
            if len(batch) >= BATCH:
                self._write_batch(batch, report, affected_names, touched_eids)
                batch = []
        if batch:
            self._write_batch(batch, report, affected_names, touched_eids)

        task.progress(0, 1, "resolving links")
        with self.conn:
            self._resolve(touched_eids, affected_names, attachments_changed)
            self._replace_scan_problems(scan.problems, scan_problem_paths)
        report.links = self._count("links")
        report.problems = self._count("problems")
        report.seconds = time.perf_counter() - t0
        task.progress(1, 1, "done")
        return report

    # -- writing ---------------------------------------------------------------------------
    def _count(self, table: str) -> int:
        return self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]

    def _entry_names(self, path: str) -> tuple[int, set[str], str] | None:
        row = self.conn.execute(
            "SELECT eid, id, aliases FROM entries WHERE path = ?", (path,)
        ).fetchone()
        if row is None:
            return None
        eid, entry_id, aliases = row
        named = NamedEntry(entry_id, path, tuple(json.loads(aliases or "[]")))
        return eid, {posixpath.basename(k) for k in name_keys(named)}, entry_id

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

    def _assign_id(self, parsed: ParsedEntry, eid: int | None) -> tuple[str, ParseProblem | None]:
        """The entry's id, unique in the index; a duplicate falls back to its path id."""
        wanted = parsed.id
        holder = self.conn.execute(
            "SELECT eid, path FROM entries WHERE id = ? COLLATE NOCASE", (wanted,)
        ).fetchone()
        if holder is None or holder[0] == eid:
            return wanted, None
        fallback = path_id(parsed.path)
        n = 1
        candidate = fallback
        while True:
            row = self.conn.execute(
                "SELECT eid FROM entries WHERE id = ? COLLATE NOCASE", (candidate,)
            ).fetchone()
            if row is None or row[0] == eid:
                break
            n += 1
            candidate = f"{fallback}~{n}"
        problem = ParseProblem(
            "duplicate-id",
            f"id “{wanted}” is already used by {holder[1]}; this entry is indexed as “{candidate}”",
        )
        return candidate, problem

    def _write_batch(
        self,
        batch: list[tuple],
        report: RefreshReport,
        affected_names: set[str],
        touched_eids: set[int],
    ) -> None:
        c = self.conn
        tag_rows: list[tuple] = []
        alias_rows: list[tuple] = []
        prop_rows: list[tuple] = []
        fts_rows: list[tuple] = []
        problem_rows: list[tuple] = []
        file_rows: list[tuple] = []
        with c:
            for stat, parsed, problems in batch:
                file_rows.append((stat.path, stat.size, stat.mtime_ns))
                old = self._entry_names(stat.path)
                c.execute("DELETE FROM problems WHERE path = ?", (stat.path,))
                if parsed is None:
                    if old is not None:
                        affected_names |= old[1]
                        self._delete_path(stat.path)
                        report.removed_ids.append(old[2])
                    problem_rows += _problem_rows(stat.path, problems)
                    continue
                eid = old[0] if old else None
                if old is not None:
                    affected_names |= old[1]
                    for table in ("tags", "aliases", "properties"):
                        c.execute(f"DELETE FROM {table} WHERE eid = ?", (eid,))
                    c.execute("DELETE FROM links WHERE source = ?", (eid,))
                    c.execute("DELETE FROM entries_fts WHERE rowid = ?", (eid,))
                    report.changed += 1
                else:
                    report.added += 1
                entry_id, dup = self._assign_id(parsed, eid)
                if dup is not None:
                    problems = [*problems, dup]
                values = (
                    entry_id,
                    parsed.id,
                    parsed.path,
                    parsed.title,
                    parsed.kind,
                    parsed.status,
                    parsed.words,
                    reading_minutes(parsed.words),
                    parsed.body_line,
                    json.dumps(parsed.headings, ensure_ascii=False),
                    json.dumps(parsed.tags, ensure_ascii=False),
                    json.dumps(parsed.aliases, ensure_ascii=False),
                    json.dumps(parsed.properties, ensure_ascii=False),
                    stat.mtime_ns,
                )
                if eid is None:
                    cur = c.execute(
                        "INSERT INTO entries(id, declared_id, path, title, kind, status, words, "
                        "reading_minutes, body_line, headings, tags, aliases, properties, "
                        "mtime_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        values,
                    )
                    eid = cur.lastrowid
                else:
                    c.execute(
                        "UPDATE entries SET id=?, declared_id=?, path=?, title=?, kind=?, "
                        "status=?, words=?, reading_minutes=?, body_line=?, headings=?, tags=?, "
                        "aliases=?, properties=?, mtime_ns=? WHERE eid=?",
                        (*values, eid),
                    )
                assert eid is not None
                touched_eids.add(eid)
                report.changed_ids.append(entry_id)
                affected_names |= {
                    posixpath.basename(k)
                    for k in name_keys(NamedEntry(entry_id, parsed.path, tuple(parsed.aliases)))
                }
                for pl in parsed.links:
                    lk = pl.link
                    self.pending_links.append(
                        (
                            eid,
                            parsed.path,
                            lk.target,
                            posixpath.basename(target_key(lk.target)),
                            pl.relation,
                            int(lk.embed),
                            int(lk.markdown),
                            lk.line,
                            pl.context,
                            lk.alias,
                            lk.heading,
                            lk.block,
                        )
                    )
                tag_rows += [(eid, t) for t in parsed.tags]
                alias_rows += [(eid, a) for a in parsed.aliases]
                prop_rows += [
                    (eid, k, json.dumps(v, ensure_ascii=False))
                    for k, v in parsed.properties.items()
                ]
                fts_rows.append(
                    (
                        eid,
                        parsed.title,
                        " ".join(parsed.aliases),
                        " ".join(parsed.tags),
                        parsed.body,
                    )
                )
                problem_rows += _problem_rows(stat.path, problems)
            c.executemany("INSERT INTO tags(eid, tag) VALUES (?,?)", tag_rows)
            c.executemany("INSERT INTO aliases(eid, alias) VALUES (?,?)", alias_rows)
            c.executemany("INSERT INTO properties(eid, key, value) VALUES (?,?,?)", prop_rows)
            c.executemany(
                "INSERT INTO entries_fts(rowid, title, aliases, tags, body) VALUES (?,?,?,?,?)",
                fts_rows,
            )
            c.executemany(
                "INSERT INTO problems(path, line, kind, message, severity) VALUES (?,?,?,?,?)",
                problem_rows,
            )
            c.executemany(
                "INSERT OR REPLACE INTO files(path, size, mtime_ns) VALUES (?,?,?)", file_rows
            )

    def _replace_scan_problems(
        self, problems: list[tuple[str, ParseProblem]], paths: set[str]
    ) -> None:
        c = self.conn
        with c:
            c.execute(
                "DELETE FROM problems WHERE kind IN ('symlink-loop', 'broken-link') "
                "OR (kind = 'unreadable' AND path NOT IN (SELECT path FROM files))"
            )
            rows = [r for path, p in problems for r in _problem_rows(path, [p])]
            c.executemany(
                "INSERT INTO problems(path, line, kind, message, severity) VALUES (?,?,?,?,?)",
                rows,
            )

    # -- resolution ------------------------------------------------------------------------
    def resolver(self) -> Resolver:
        entries = [
            NamedEntry(i, p, tuple(json.loads(a or "[]")))
            for i, p, a in self.conn.execute("SELECT id, path, aliases FROM entries")
        ]
        attachments = [r[0] for r in self.conn.execute("SELECT path FROM attachments")]
        return Resolver(entries, attachments)

    def _resolve(
        self, touched_eids: set[int], affected_names: set[str], attachments_changed: bool
    ) -> None:
        """Insert this refresh's links, resolved; re-resolve older links a change touched."""
        c = self.conn
        conditions: list[str] = []
        params: list = []
        if affected_names:
            names = sorted(affected_names)
            # Chunk the IN list under SQLite's variable limit.
            for i in range(0, len(names), 500):
                part = names[i : i + 500]
                conditions.append(f"l.target_name IN ({','.join('?' * len(part))})")
                params += part
        if attachments_changed:
            conditions.append("l.status IN ('attachment', 'missing-attachment')")
        existing = []
        if conditions and self._count("links"):
            existing = c.execute(
                "SELECT l.lid, l.text, l.markdown, e.path FROM links l JOIN entries e "
                f"ON e.eid = l.source WHERE {' OR '.join(conditions)}",
                params,
            ).fetchall()
        if not existing and not self.pending_links:
            return
        resolver = self.resolver()
        eids = dict(c.execute("SELECT id, eid FROM entries"))
        memo: dict[tuple[str, str, int], tuple[int | None, str, str | None]] = {}
        folders: dict[str, str] = {}

        def resolve(text: str, source_path: str, markdown: int) -> tuple:
            # Hubs are linked thousands of times: resolve each (text, folder) once.
            folder = folders.get(source_path)
            if folder is None:
                folder = folders[source_path] = posixpath.dirname(source_path)
            key = (text, folder, markdown)
            hit = memo.get(key)
            if hit is None:
                res = resolver.resolve(text, source_path, markdown=bool(markdown))
                target = eids.get(res.target) if res.status in ("resolved", "ambiguous") else None
                extra = (
                    json.dumps(list(res.candidates), ensure_ascii=False)
                    if res.candidates
                    else (res.target if target is None else None)
                )
                hit = memo[key] = (target, res.status, extra)
            return hit

        if existing:
            c.executemany(
                "UPDATE links SET target = ?, status = ?, resolved_path = ? WHERE lid = ?",
                [(*resolve(text, path, md), lid) for lid, text, md, path in existing],
            )
        rows = []
        for (
            eid,
            path,
            text,
            name,
            relation,
            embed,
            md,
            line,
            context,
            alias,
            heading,
            block,
        ) in self.pending_links:
            target, status, extra = resolve(text, path, md)
            rows.append((eid, target, status, text, name, extra, relation, embed, md, line,
                         context, alias, heading, block))  # fmt: skip
        c.executemany(
            "INSERT INTO links(source, target, status, text, target_name, resolved_path, "
            "relation, embed, markdown, line, context, alias, heading, block) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        self.pending_links = []
