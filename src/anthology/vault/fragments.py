"""Links whose ``#Heading`` or ``#^block`` their (resolved) target does not hold.

Such a link still goes to its entry, as in Obsidian (it opens the note at its top), so it is
a warning, not an error: kinds ``heading-not-found`` and ``block-not-found``. Worked out
when asked (``anthology check``, the problems list) from what the index holds: the target's
headings, and its body for block ids. It depends on two entries, the one that links and the
one linked, so staging one file could not decide it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from anthology.vault.links import block_ids, heading_key, mask_code
from anthology.vault.model import Problem

HEADING_NOT_FOUND = "heading-not-found"
BLOCK_NOT_FOUND = "block-not-found"


def missing_fragments(query: Callable[..., list[tuple]]) -> list[Problem]:
    """The warnings for links to a heading or block their target lacks; ``query`` runs SQL
    on the index (``EntryQueries._q``)."""
    rows = query(
        "SELECT e.path, l.line, l.text, l.heading, l.block, l.target, t.path FROM links l "
        "JOIN entries e ON e.eid = l.source JOIN entries t ON t.eid = l.target "
        "WHERE l.heading IS NOT NULL OR l.block IS NOT NULL ORDER BY e.path, l.line"
    )
    if not rows:
        return []
    # Subqueries, not lists of row ids: a big vault's ids overflow SQLite's parameters.
    # Each target's headings as their keys, once (a hub is linked by thousands of
    # "#Heading" links: match_heading per link took ~1 s at 100,000 entries); each wanted
    # key once too. Only whether one matches counts here, not which.
    headings = {
        eid: {heading_key(h[1]) for h in json.loads(text or "[]")}
        for eid, text in query(
            "SELECT eid, headings FROM entries WHERE eid IN (SELECT target FROM links "
            "WHERE heading IS NOT NULL)"
        )
    }
    blocks = {
        eid: block_ids(mask_code(body or ""))
        for eid, body in query(
            "SELECT rowid, body FROM entries_fts WHERE rowid IN (SELECT target FROM links "
            "WHERE block IS NOT NULL)"
        )
    }
    wanted: dict[str, str] = {}
    out: list[Problem] = []
    for path, line, text, heading, block, target, target_path in rows:
        shown = f"{text}#{'^' + block if block is not None else heading}"
        if block is not None and block.lower() not in blocks.get(target, set()):
            message = f"“{shown}”: no block ^{block} in {target_path}"
            out.append(Problem(path, line, BLOCK_NOT_FOUND, message, "warning"))
        elif heading is not None and not _holds(headings.get(target, ()), heading, wanted):
            message = f"“{shown}”: no heading “{heading}” in {target_path}"
            out.append(Problem(path, line, HEADING_NOT_FOUND, message, "warning"))
    return out


def _holds(keys: set[str] | tuple[()], heading: str, wanted: dict[str, str]) -> bool:
    """Whether a link's ``#heading`` names one of the target's heading ``keys``, as
    :func:`.links.match_heading` finds it (``A#B`` names its last part); ``wanted`` keeps
    each link text's key."""
    want = wanted.get(heading)
    if want is None:
        want = wanted[heading] = heading_key(heading.rsplit("#", 1)[-1])
    return bool(want) and want in keys
