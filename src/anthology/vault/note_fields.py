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
        notes.append(
            f"only its first {MAX_ITEMS:,} list items of {MAX_ITEMS + dropped:,}, and the "
            f"inline fields above the next one (line {first_line + cut + 1:,}), are kept "
            "for Dataview queries"
        )
    fields: dict[str, list[str]] = {}
    has_sep = "::" in masked or (("%%" in body or "<!--" in body) and "::" in body)
    shorthand = bool(scanned) and SHORTHAND_CHARS_RE.search(body) is not None
    body_lines: list[str] | None = None
    if has_sep or shorthand:
        scan_text = masked
        if "%%" in body or "<!--" in body:
            scan_text = mask_code(body, comments=False)  # fields in comments count
        if "$" in scan_text:
            scan_text = _without_math(scan_text)
        scan_lines = scan_text.split("\n")
        body_lines = body.split("\n")
        if cut >= 0:  # past the last item kept, which lines are in lists is not known
            del scan_lines[cut:]
        found = _page_fields(scanned, scan_lines, body_lines) if has_sep else []
        found += _item_fields(scanned, scan_lines, body_lines)
        found.sort(key=lambda f: f[0])  # stable: a line's fields stay in their order
        count = 0
        for _line, key, value in found:
            if not key:
                continue
            if count >= MAX_VALUES:
                notes.append(f"only its first {MAX_VALUES:,} inline field values are kept")
                break
            fields.setdefault(key, []).append(value)
            count += 1
    items: list[ItemRow] = []
    if scanned:
        if body_lines is None:
            body_lines = body.split("\n")
        for it in scanned:
            items.append([first_line + it.line, item_text(it, body_lines), it.status,
                          None if it.parent is None else first_line + it.parent,
                          it.section, it.symbol, it.line_count])  # fmt: skip
    return NoteFields(fields, items, notes)


def _page_fields(
    scanned: list[ScannedItem], lines: list[str], src: list[str]
) -> list[tuple[int, str, str]]:
    """The fields of the lines outside list items: bracketed ones, else a full-line one."""
    in_items: set[int] = set()
    for it in scanned:
        in_items.add(it.line)
        in_items.update(n for n, _c in it.more)
    out: list[tuple[int, str, str]] = []
    for n, line in enumerate(lines):
        if "::" not in line or n in in_items or len(line) > MAX_LINE:
            continue
        raw = src[n]
        start = len(raw) - len(raw.lstrip())
        end = len(raw.rstrip())
        scan, text = line[start:end], raw[start:end]
        found = extract_inline_fields(scan, source=text)
        if found:
            out += [(n, f.key, f.value) for f in found]
        else:
            whole = full_line_field(scan, text)
            if whole is not None:
                out.append((n, whole.key, whole.value))
    return out


def _item_fields(
    scanned: list[ScannedItem], lines: list[str], src: list[str]
) -> list[tuple[int, str, str]]:
    """The fields of list items that are not tasks, which Dataview gives the page too:
    bracketed ones and emoji dates, else a full-line ``- Key:: value``."""
    out: list[tuple[int, str, str]] = []
    for it in scanned:
        if it.status is not None:
            continue
        scan = item_text(it, lines, src).replace("\n", " ")
        if "::" not in scan and SHORTHAND_CHARS_RE.search(scan) is None:
            continue
        text = item_text(it, src).replace("\n", " ")
        found = extract_inline_fields(scan, task_fields=True, source=text)
        if found:
            out += [(it.line, f.key, f.value) for f in found]
        else:
            whole = full_line_field(scan, text)
            if whole is not None:
                out.append((it.line, whole.key, whole.value))
    return out
