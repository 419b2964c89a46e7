"""What ``anthology check`` reports, and the counts of the status bar."""

from __future__ import annotations

import json

from anthology.vault.entries import EntryQueries
from anthology.vault.fragments import missing_fragments
from anthology.vault.model import Problem
from anthology.vault.resolve import ATTACHMENT, RESOLVED

_LINK_PROBLEM_KIND = {
    "unresolved": ("unresolved-link", "error", "links to “{text}”, which is not an entry"),
    "ambiguous": ("ambiguous-link", "warning", "“{text}” names several entries: {candidates}"),
    "outside": ("outside-link", "error", "“{text}” points outside the vault; not followed"),
    "missing-attachment": ("missing-attachment", "error", "attachment “{text}” not found"),
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
            kind, severity, template = _LINK_PROBLEM_KIND.get(
                status, ("link", "error", "cannot follow “{text}”")
            )
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
            out.append(Problem(path, None, "orphan", "no other entry links here", "warning"))
        return sorted(out, key=lambda p: (p.path, p.line or 0, p.kind))

    def stats(self) -> dict[str, int]:
        """Counts for the status bar and ``anthology index``."""
        q = lambda sql: self._q(sql)[0][0]  # noqa: E731
        problems = self.problems()
        return {
            "entries": q("SELECT count(*) FROM entries"),
            "links": q("SELECT count(*) FROM links"),
            "resolved_links": q("SELECT count(*) FROM links WHERE target IS NOT NULL"),
            "unresolved_links": q("SELECT count(*) FROM links WHERE status = 'unresolved'"),
            "typed_relations": q("SELECT count(*) FROM links WHERE relation IS NOT NULL"),
            "tags": q("SELECT count(DISTINCT lower(tag)) FROM tags"),
            "attachments": q("SELECT count(*) FROM attachments"),
            "errors": sum(p.severity == "error" for p in problems),
            "warnings": sum(p.severity != "error" for p in problems),
        }
