"""The list items of a note, as Dataview's ``file.lists`` and ``file.tasks`` hold them.

Dataview takes list items from Obsidian's parse (its ``listItems``: CommonMark lists, in
block quotes and callouts too) and adds the text, the task's checkbox character and the
heading above (``src/data-import/markdown-file.ts``). Here one pass over the note's lines
does the same: an item is a line whose text (after any ``>`` of a block quote) starts with
``-``, ``*``, ``+``, ``1.`` or ``1)`` and a blank; it is nested under the open item whose
content column its marker reaches (CommonMark's rule: ``- a`` then ``  - b``); the lines
right after it that start nothing new (lazy or indented) continue its text; a heading, a
rule, a paragraph less indented than an item, or a change of block quote closes items.

The scan reads the note with code and comments blanked out (:func:`masking.mask_code`):
nothing in a code block is an item. It is linear in the note (each item is pushed on and
popped off the nesting stack once) and keeps at most :data:`MAX_ITEMS` items.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_ITEMS = 20_000  # list items a note keeps for queries (a hostile note has 200,000)
MAX_ITEM_TEXT = 10_000  # characters of one item's text kept (its first ones)

_ITEM_RE = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:([ \t]+)|$)")
_QUOTE_RE = re.compile(r"(?:[ \t]{0,3}>[ \t]?)+")
_HEADING_RE = re.compile(r"#{1,6}(?:[ \t]|$)")
_RULE_RE = re.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*")
_SETEXT_EQ_RE = re.compile(r"=+[ \t]*")


@dataclass(slots=True)
class ScannedItem:
    """A list item found by :func:`scan_list_items`; lines are the body's (0-based)."""

    line: int
    col: int  # where its text starts on its first line (after the marker and the box)
    status: str | None
    parent: int | None  # the body line of the item it is nested under
    section: str | None
    symbol: str
    # the continuation lines: their body line and where their text starts (after ">")
    more: list[tuple[int, int]] = field(default_factory=list)

    @property
    def line_count(self) -> int:
        return 1 + len(self.more)


def _width(lead: str) -> int:
    """The column a run of blanks reaches (a tab to the next multiple of four)."""
    if "\t" not in lead:
        return len(lead)
    col = 0
    for c in lead:
        col = col + 4 - col % 4 if c == "\t" else col + 1
    return col


def heading_text(rest: str) -> str:
    """An ATX heading's text as Obsidian gives it: without its marks and closing '#'s."""
    rest = rest.lstrip("#").strip()
    return (rest.rstrip(" \t#") or rest[:1]).strip()


def scan_list_items(body: str, masked: str) -> tuple[list[ScannedItem], int, int]:
    """The list items of ``body`` (``masked``: the same text with code and comments
    blanked, see the module's docstring) in order, how many more there were past
    :data:`MAX_ITEMS`, and the body line of the first of those (-1: none)."""
    lines = masked.split("\n")
    orig: list[str] | None = None  # the body's own lines, split when first needed
    items: list[ScannedItem] = []
    dropped, cut = 0, -1
    stack: list[tuple[int, int]] = []  # open items: (content column, body line)
    open_item: ScannedItem | None = None  # the item whose text a next line may continue
    section: str | None = None
    para: int = -1  # the last line if it was a paragraph's (for a setext heading)
    depth = 0  # block quote depth of the open items
    for n, line in enumerate(lines):
        text = line.lstrip(" \t")
        if not text:  # blank, or code/comment blanked out
            if orig is None:
                orig = body.split("\n")
            if stack and orig[n].strip():  # code: ends the items it is less indented than
                lead = orig[n][: len(orig[n]) - len(orig[n].lstrip(" \t"))]
                _close(stack, _width(lead))
            open_item, para = None, -1
            continue
        col = 0  # where the text after the block quote starts
        first = text[0]
        if first == ">":
            m = _QUOTE_RE.match(line)
            assert m is not None  # the line's first non-blank is ">"
            col = m.end()
            quote = m.group().count(">")
            text = line[col:].lstrip(" \t")
            if not text:
                if quote != depth:
                    stack.clear()
                    depth = quote
                open_item, para = None, -1
                continue
            first = text[0]
        else:
            quote = 0
        if quote != depth:
            stack.clear()
            open_item, depth = None, quote
        rest_len = len(line) - col
        indent = rest_len - len(text)
        if indent and "\t" in line[col : col + indent]:
            indent = _width(line[col : col + indent])
        top = stack[-1][0] if stack else 0
        if first == "#" and indent < 4 and _HEADING_RE.match(text):
            if not quote:
                if orig is None:
                    orig = body.split("\n")
                section = heading_text(orig[n].lstrip(" \t"))
            stack.clear()
            open_item, para = None, -1
            continue
        if first in "-*_=" and indent < 4:
            if first == "=":  # "Title\n===": a heading (under no paragraph: text)
                if para >= 0 and not quote and _SETEXT_EQ_RE.fullmatch(text):
                    if orig is None:
                        orig = body.split("\n")
                    section = orig[para].strip()
                    stack.clear()
                    open_item, para = None, -1
                    continue
            elif _RULE_RE.fullmatch(text):
                if first == "-" and para >= 0 and not quote:  # "Title\n---": a heading
                    if orig is None:
                        orig = body.split("\n")
                    section = orig[para].strip()
                stack.clear()
                open_item, para = None, -1
                continue
        if (first in "-*+" or "0" <= first <= "9") and indent < top + 4:
            m = _ITEM_RE.match(text)
            if m is not None:
                _close(stack, indent)
                parent = stack[-1][1] if stack else None
                marker_end = m.end() if m.group(1) is None else m.start(1)
                symbol = text[:marker_end]
                gap = m.group(1)
                width = 1 if gap is None or _width(gap) > 4 else _width(gap)
                stack.append((indent + len(symbol) + width, n))
                para = -1
                if len(items) >= MAX_ITEMS:
                    if not dropped:
                        cut = n
                    dropped += 1
                    open_item = None
                    continue
                at = len(line) - len(text) + m.end()  # the text's offset in the line
                status = None
                if line.startswith("[", at) and line[at + 2 : at + 3] == "]":
                    after = line[at + 3 : at + 4]
                    if after in ("", " ", "\t"):
                        if orig is None:
                            orig = body.split("\n")
                        status = orig[n][at + 1]
                        at += 3
                open_item = ScannedItem(n, at, status, parent, section, symbol)
                items.append(open_item)
                continue
        if open_item is not None:  # "- item\ncontinued": the item's text goes on
            open_item.more.append((n, col))
            continue
        _close(stack, indent)
        para = n if not stack and not quote else -1
    return items, dropped, cut


def _close(stack: list[tuple[int, int]], indent: int) -> None:
    """Close the open items whose content a line indented ``indent`` is not in."""
    while stack and stack[-1][0] > indent:
        stack.pop()


def item_text(item: ScannedItem, lines: list[str], src: list[str] | None = None) -> str:
    """The item's text from ``lines`` (the body's, or a masked copy: then ``src`` is the
    body's, whose blanks decide where each line is trimmed, so every copy is cut alike):
    the first line after the marker and the box, then each continuation line, trimmed,
    joined by newlines; at most :data:`MAX_ITEM_TEXT` characters."""
    src = lines if src is None else src
    parts: list[str] = []
    size = 0
    for n, col in ((item.line, item.col), *item.more):
        raw = src[n]
        end = len(raw.rstrip())
        start = len(raw) - len(raw[col:].lstrip()) if col < end else end
        piece = lines[n][start:end]
        parts.append(piece)
        size += len(piece) + 1
        if size > MAX_ITEM_TEXT:
            break
    text = "\n".join(parts)
    return text[:MAX_ITEM_TEXT]
