"""What the index keeps of a note for Dataview: its inline fields and its list items.

The page's fields are Dataview's (``parseMarkdown`` in its ``markdown-file.ts``): on each
line outside a list, the bracketed fields (``[key:: value]``, ``(key:: value)``) or, when
there are none, a full-line ``Key:: value``; and the fields of each list item that is not
a task (a task's own fields stay on the task: a query reads them from its text). Never in
code (fenced, indented, inline), math or the front matter; inside ``%%comments%%`` they
count, as in Dataview (a common way to keep a field out of sight).

One difference, on purpose: a key's values are kept in the order they stand in the note
(Dataview puts the list items' before the other lines').

Bounded: a line past :data:`~anthology.query.inline_fields.MAX_LINE` holds no field (as
in Dataview), a note keeps at most :data:`MAX_VALUES` values and
:data:`~anthology.vault.list_items.MAX_ITEMS` list items; each step is linear.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from anthology.query.inline_fields import (
    MAX_LINE,
    SHORTHAND_CHARS_RE,
    extract_inline_fields,
    full_line_field,
)
from anthology.vault.list_items import MAX_ITEMS, ScannedItem, item_text, scan_list_items
from anthology.vault.masking import mask_code

MAX_VALUES = 10_000  # inline field values a note keeps

# $…$ on one line, as the renderer finds it (vault/render/mathtex.py): linear, each try
# stops at the next "$"
_INLINE_MATH_RE = re.compile(r"(?<![\\$])\$(?![\s$])(?:\\\$|[^$\n])+?(?<![\s\\])\$(?![\d$])")

# One list item as the index keeps it (query.rows.FileRow.list_items reads it):
# [line, text, status, parent, section, symbol, line_count]; lines are the file's, 0-based.
ItemRow = list


class NoteFields(NamedTuple):
    fields: dict[str, list[str]]  # key as written → its values' raw texts, in order
    items: list[ItemRow]
    notes: list[str]  # what was left out, for the note's problems (empty: nothing)


def _without_math(text: str) -> str:
    """``text`` with ``$$…$$`` and ``$…$`` blanked (offsets and newlines kept)."""
    if "$$" in text:
        at, spans = [], []
        pos = text.find("$$")
        while pos >= 0:
            at.append(pos)
            pos = text.find("$$", pos + 2)
        for a, b in zip(at[0::2], at[1::2], strict=False):
            spans.append((a, b + 2))
        if spans:  # blank the blocks' characters, keep their newlines
            parts, last = [], 0
            for a, b in spans:
                parts.append(text[last:a])
                parts.append(re.sub(r"[^\n]", " ", text[a:b]))
                last = b
            parts.append(text[last:])
            text = "".join(parts)
    if "$" in text:
        text = _INLINE_MATH_RE.sub(lambda m: " " * len(m.group()), text)
    return text


def note_fields(body: str, masked: str, first_line: int) -> NoteFields:
    """The inline fields and list items of a note whose body is ``body`` (``masked``: it
    with code and comments blanked, as the parser has it), starting on the file's
    ``first_line`` (0-based)."""
    notes: list[str] = []
    scanned, dropped, cut = scan_list_items(body, masked)
    if dropped:
        line = first_line + body.count("\n", 0, cut) + 1
        notes.append(
            f"only its first {MAX_ITEMS:,} list items of {MAX_ITEMS + dropped:,}, and the "
            f"inline fields above the next one (line {line:,}), are kept for Dataview queries"
        )
    fields: dict[str, list[str]] = {}
    texts = [item_text(it, body) for it in scanned]
    # (a search for one character first: memchr, far quicker than one for two)
    comments = ("%" in body and "%%" in body) or ("<" in body and "<!--" in body)
    has_sep = ":" in body and ("::" in masked or (comments and "::" in body))
    plain = [
        (it, text)
        for it, text in zip(scanned, texts, strict=True)
        if it.status is None
        and ("::" in text or (not text.isascii() and SHORTHAND_CHARS_RE.search(text)))
    ]  # the items whose fields may be the page's (isascii: O(1), the emoji are not ASCII)
    if has_sep or plain:
        scan = masked
        if comments:
            scan = mask_code(body, comments=False)  # fields in comments count
        if "$" in scan:
            scan = _without_math(scan)
        found = _page_fields(scanned, scan, body, cut) if has_sep else []
        found += _item_fields(plain, scan, body)
        found.sort(key=lambda f: f[0])  # stable: a line's fields stay in their order
        count = 0
        for _at, key, value in found:
            if not key:
                continue
            if count >= MAX_VALUES:
                notes.append(f"only its first {MAX_VALUES:,} inline field values are kept")
                break
            fields.setdefault(key, []).append(value)
            count += 1
    items = [
        [first_line + it.line, text, it.status,
         None if it.parent is None else first_line + it.parent, it.section, it.symbol,
         it.line_count]
        for it, text in zip(scanned, texts, strict=True)
    ]  # fmt: skip
    return NoteFields(fields, items, notes)


def _page_fields(
    scanned: list[ScannedItem], scan: str, body: str, cut: int
) -> list[tuple[int, str, str]]:
    """(offset, key, value) of the fields of the lines outside list items (and above
    ``cut``, if not -1): bracketed ones, else a full-line one. Only lines holding "::"
    are looked at, found with one search each."""
    in_items = {line for it in scanned for line, _a, _e in it.pieces}
    out: list[tuple[int, str, str]] = []
    size = len(scan)
    at = scan.find("::")
    while at >= 0 and (cut < 0 or at < cut):
        start = scan.rfind("\n", 0, at) + 1
        end = scan.find("\n", at)
        if end < 0:
            end = size
        if start not in in_items and end - start <= MAX_LINE:
            raw = body[start:end]
            kept = raw.strip()
            a = start + raw.find(kept[:1])
            e = a + len(kept)
            out += _line_fields(scan[a:e], body[a:e], start, task_fields=False)
        at = scan.find("::", end)
    return out


def _item_fields(
    plain: list[tuple[ScannedItem, str]], scan: str, body: str
) -> list[tuple[int, str, str]]:
    """The fields of list items that are not tasks (each with its text), which Dataview
    gives the page too: bracketed ones and emoji dates, else a full-line ``- Key:: value``."""
    out: list[tuple[int, str, str]] = []
    for it, written in plain:
        line = item_text(it, scan, body).replace("\n", " ")
        text = written.replace("\n", " ")
        out += _line_fields(line, text, it.pieces[0][0], task_fields=True)
    return out


def _line_fields(line: str, text: str, at: int, *, task_fields: bool) -> list[tuple[int, str, str]]:
    """A line's bracketed fields (and with ``task_fields`` its emoji dates), else its
    full-line ``Key:: value``, each as (``at``, key, value): ``line`` as scanned (code
    masked), ``text`` as written."""
    found = extract_inline_fields(line, task_fields=task_fields, source=text)
    if found:
        return [(at, f.key, f.value) for f in found]
    whole = full_line_field(line, text)
    return [] if whole is None else [(at, whole.key, whole.value)]
