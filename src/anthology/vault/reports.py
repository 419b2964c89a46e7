"""What ``anthology check`` reports, and the counts of the status bar.

Every problem has a stable ``kind`` (scripts match on it) and a ``severity``:

- ``error``: the vault cannot be read as written (a file not read, front matter that does
  not parse, two entries claiming one id, a link leaving the vault). ``check`` exits 1.
- ``warning``: something a reader will trip on, but Obsidian shows it as normal (a link to
  a note not yet written, a heading or block that is not there, a name two notes share).
- ``info``: worth knowing, never wrong (an entry nothing links to).

:data:`PROBLEM_KINDS` lists every kind with its severity; the README's table is its copy.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections import Counter
from collections.abc import Iterable

from anthology.vault.entries import EntryQueries
from anthology.vault.fragments import missing_fragments
from anthology.vault.model import Problem
from anthology.vault.resolve import ATTACHMENT, RESOLVED
from anthology.vault.schema import REVISION_KEY, STATS_KEY

SEVERITIES = ("error", "warning", "info")
# The counts of ReportQueries.stats, kept in the index's meta table under STATS_KEY.
STAT_NAMES = ("entries", "links", "resolved_links", "unresolved_links", "typed_relations",
              "tags", "attachments", "errors", "warnings", "info")  # fmt: skip

# kind → (severity, what it means). File problems get their severity where they are found
# (files.py, scan.py, parse.py, ids.py); this table says which it is, for the README and
# for the test that keeps the two in step.
PROBLEM_KINDS: dict[str, tuple[str, str]] = {
    # Files that could not be read, or not all of them
    "unreadable": ("error", "the file or folder could not be read (permissions, I/O)"),
    "binary": ("error", "binary data in a .md file"),
    "encoding": ("error", "not UTF-8; read with replacement characters"),
    "not-regular": ("error", "a device, pipe or socket named .md (a warning if not .md)"),
    "unparsable": ("error", "the parser failed; indexed without its front matter"),
    "front-matter": ("error", "the front matter is not valid YAML"),
    "duplicate-id": ("error", "two entries claim one id; the second gets a fallback id"),
    "outside-link": ("error", "a link climbs out of the vault; not followed"),
    "too-large": ("warning", "over the size limit; only its head is indexed"),
    "empty": ("warning", "the file is empty"),
    "vanished": ("warning", "deleted while the vault was indexed"),
    "file-name": ("warning", "the file name is not valid UTF-8"),
    "normalization-twin": ("warning", "two file names that look the same (Unicode forms)"),
    "symlink-loop": ("warning", "a folder link loops back; not followed"),
    "broken-link": ("warning", "a symbolic link to nothing"),
    "outside-vault": ("warning", "a symbolic link leads outside the vault; not followed"),
    # Links (Obsidian shows all of these without complaint: they are warnings)
    "unresolved-link": ("warning", "links to a note that does not exist (yet)"),
    "missing-attachment": ("warning", "links to a file that does not exist (yet)"),
    "ambiguous-link": ("warning", "a name several entries share; the first is followed"),
    "heading-not-found": ("warning", "the linked entry has no such heading"),
    "block-not-found": ("warning", "the linked entry has no such block id"),
    # Canvases (vault/canvas): what a .canvas gets wrong; an error when a card is refused
    # (a path outside the vault) or the file cannot be drawn (not JSON, wrong shape)
    "canvas": ("warning", "a canvas with a bad part: skipped, cut or drawn by default"),
    # Dataview's inline fields and list items (vault/note_fields): past a note's caps
    "dataview": ("warning", "a note past 20,000 list items or 10,000 inline field values"),
    # Structure
    "orphan": ("info", "no other entry links here"),
}

_LINK_PROBLEM_KIND = {
    "unresolved": ("unresolved-link", "links to “{text}”, which is not an entry"),
    "ambiguous": ("ambiguous-link", "“{text}” names several entries: {candidates}"),
    "outside": ("outside-link", "“{text}” points outside the vault; not followed"),
    "missing-attachment": ("missing-attachment", "attachment “{text}” not found"),
}


def summarize(problems: Iterable[Problem]) -> dict[str, dict[str, int]]:
    """The count of problems per kind (most first) and per severity (all three)."""
    problems = list(problems)
    kinds = Counter(p.kind for p in problems)
    severities = Counter(p.severity for p in problems)
    return {
        "by_kind": dict(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
        "by_severity": {s: severities.get(s, 0) for s in SEVERITIES}
        | {s: n for s, n in severities.items() if s not in SEVERITIES},
    }


class ReportQueries(EntryQueries):
    """Problems (broken files, bad links, duplicate ids, orphans) and counts."""

    def problems(self) -> list[Problem]:
        """What ``anthology check`` reports: broken files, bad links, duplicate ids, orphans."""
        out = [
            Problem(path, line, kind, message, severity)
            for path, line, kind, message, severity in self._q(
                "SELECT path, line, kind, message, severity FROM problems ORDER BY path, line"
            )
        ]
        for path, text, status, line, extra in self._q(
            "SELECT e.path, l.text, l.status, l.line, l.resolved_path FROM links l "
            "JOIN entries e ON e.eid = l.source WHERE l.status NOT IN (?, ?) "
            "ORDER BY e.path, l.line",
            (RESOLVED, ATTACHMENT),
        ):
            kind, template = _LINK_PROBLEM_KIND.get(status, ("link", "cannot follow “{text}”"))
            severity = PROBLEM_KINDS.get(kind, ("error", ""))[0]
            candidates = ", ".join(json.loads(extra)) if status == "ambiguous" and extra else ""
            message = template.format(text=text, candidates=candidates)
            out.append(Problem(path, line, kind, message, severity))
        out += missing_fragments(self._q)  # heading-not-found, block-not-found: warnings
        home = self.home_id()
        for entry_id, path in self._q(
            "SELECT id, path FROM entries e WHERE NOT EXISTS (SELECT 1 FROM links l "
            "WHERE l.target = e.eid AND l.source != e.eid) ORDER BY path"
        ):
            if entry_id == home:
                continue
            out.append(Problem(path, None, "orphan", "no other entry links here", "info"))
        return sorted(out, key=lambda p: (p.path, p.line or 0, p.kind))

    def stats(self) -> dict[str, int]:
        """Counts for the status bar and ``anthology index``: as the last refresh stored
        them with the index (:data:`STATS_KEY`), else counted now. At 100,000 entries
        counting takes ~0.4 s and :meth:`problems` ~1.2 s: a start asks for them while
        the index has not changed since they were stored."""
        stored = self._q("SELECT value FROM meta WHERE key = ?", (STATS_KEY,))
        if stored:
            with contextlib.suppress(ValueError, TypeError):
                value = json.loads(stored[0][0])
                if isinstance(value, dict) and set(value) == set(STAT_NAMES):
                    return {k: int(value[k]) for k in STAT_NAMES}
        return self.count_stats()

    def count_stats(self) -> dict[str, int]:
        """The counts of :meth:`stats`, asked of the index now: every problem
        :meth:`problems` lists is counted by severity, none of them made."""
        q = lambda sql, *p: self._q(sql, p)[0][0]  # noqa: E731
        severity: Counter[str] = Counter()
        for level, count in self._q("SELECT severity, count(*) FROM problems GROUP BY severity"):
            severity[level] += count
        for status, count in self._q(
            "SELECT l.status, count(*) FROM links l JOIN entries e ON e.eid = l.source "
            "WHERE l.status NOT IN (?, ?) GROUP BY l.status",
            (RESOLVED, ATTACHMENT),
        ):
            kind = _LINK_PROBLEM_KIND.get(status, ("link", ""))[0]
            severity[PROBLEM_KINDS.get(kind, ("error", ""))[0]] += count
        severity.update(p.severity for p in missing_fragments(self._q))
        orphans = self._q(
            "SELECT count(*), max(CASE WHEN id = ? THEN 1 ELSE 0 END) FROM entries e "
            "WHERE NOT EXISTS (SELECT 1 FROM links l WHERE l.target = e.eid "
            "AND l.source != e.eid)",
            (self.home_id() or "",),
        )[0]
        severity["info"] += orphans[0] - (orphans[1] or 0)  # the home entry is no orphan
        return {
            "entries": q("SELECT count(*) FROM entries"),
            "links": q("SELECT count(*) FROM links"),
            "resolved_links": q("SELECT count(*) FROM links WHERE target IS NOT NULL"),
            "unresolved_links": q("SELECT count(*) FROM links WHERE status = 'unresolved'"),
            "typed_relations": q("SELECT count(*) FROM links WHERE relation IS NOT NULL"),
            "tags": q("SELECT count(DISTINCT lower(tag)) FROM tags"),
            "attachments": q("SELECT count(*) FROM attachments"),
            "errors": severity["error"],
            "warnings": severity["warning"],
            "info": sum(n for s, n in severity.items() if s not in ("error", "warning")),
        }

    def store_stats(self) -> None:
        """Count now and keep the counts with the index, and a new revision (a refresh that
        changed anything dropped both: see :func:`anthology.vault.indexer.forget_stored`)."""
        counts = self.count_stats()
        with self._lock, self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [(STATS_KEY, json.dumps(counts)), (REVISION_KEY, uuid.uuid4().hex)],
            )

    def revision(self) -> str | None:
        """A text that names this state of the index and no other (not even one of a later
        index at the same path), or None while a refresh is changing it: the key of what is
        cached of its answers outside it (:mod:`anthology.vault.graph_cache`)."""
        row = self._q("SELECT value FROM meta WHERE key = ?", (REVISION_KEY,))
        return str(row[0][0]) if row else None
