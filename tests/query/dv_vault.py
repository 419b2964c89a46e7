"""Small vaults of query rows for the DQL tests, shaped like the examples of Dataview's
documentation (``from dv_vault import …``): each note is written as Markdown would give it
to the index — front matter, inline fields as raw text, tags, links, list items parsed
from their Markdown lines."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from anthology.query.rows import Dataset, FileRow, LinkOut

_ITEM_RE = re.compile(
    r"^(?P<indent>[\t ]*)(?P<symbol>[-*+]|\d+[.)])\s+(?:\[(?P<status>.)\]\s+)?(?P<text>.*)$"
)


@dataclass
class Note:
    path: str
    props: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, list[str]] = field(default_factory=dict)  # inline fields, raw texts
    tags: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # targets as written
    items: str = ""  # Markdown list lines, under the heading in ``section``
    section: str | None = None
    ctime: str | None = None  # "2021-05-13" (local time)


def _items(markdown: str, section: str | None) -> list[list[Any]]:
    out: list[list[Any]] = []
    stack: list[tuple[int, int]] = []  # (indent width, line)
    for line_no, line in enumerate(markdown.splitlines()):
        m = _ITEM_RE.match(line)
        if not m:
            continue
        width = len(m.group("indent").replace("\t", "    "))
        while stack and stack[-1][0] >= width:
            stack.pop()
        parent = stack[-1][1] if stack else None
        out.append([line_no, m.group("text"), m.group("status"), parent, section,
                    m.group("symbol"), 1])  # fmt: skip
        stack.append((width, line_no))
    return out


def _ns(day: str | None) -> int | None:
    if day is None:
        return None
    return int(dt.datetime.fromisoformat(day).timestamp() * 1e9)


def dataset(notes: Iterable[Note], attachments: Iterable[str] = ()) -> Dataset:
    notes = list(notes)
    by_name: dict[str, str] = {}
    for n in notes:
        by_name[n.path.rsplit("/", 1)[-1].removesuffix(".md").lower()] = n.path
        by_name[n.path.removesuffix(".md").lower()] = n.path
    for a in attachments:
        by_name[a.rsplit("/", 1)[-1].lower()] = a

    def resolve(target: str, source: str) -> str | None:
        return by_name.get(target.split("#", 1)[0].strip().lower())

    rows = []
    for i, n in enumerate(notes):
        ns = _ns(n.ctime)
        rows.append(
            FileRow(
                n.path,
                entry_id=f"e{i}",
                size=100 + i,
                mtime_ns=ns,
                ctime_ns=ns,
                tags=list(n.tags),
                props_json=json.dumps(n.props),
                fields_json=json.dumps(n.fields),
                items_json=json.dumps(_items(n.items, n.section)),
                links=[LinkOut(t, resolve(t, n.path), False) for t in n.links],
            )
        )
    rows += [FileRow(a) for a in attachments]
    rows.sort(key=lambda r: r.path)
    return Dataset(rows, resolve)
