"""The list items of a note, as Dataview's ``file.lists`` and ``file.tasks`` hold them.

Dataview takes list items from Obsidian's parse (its ``listItems``: CommonMark lists, in
block quotes and callouts too) and adds the text, the task's checkbox character and the
heading above (``src/data-import/markdown-file.ts``). Here one pass over the note's lines
(the paragraphs between lists skipped in one search each) does the same: an item is a line
whose text (after any ``>`` of a block quote) starts with ``-``, ``*``, ``+``, ``1.`` or
``1)`` and a blank; it is nested under the open item whose content column its marker
reaches (CommonMark's rule: ``- a`` then ``  - b``); the lines right after it that start
nothing new (lazy or indented) continue its text; a heading, a rule, a paragraph less
indented than an item, or a change of block quote closes items.

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
_NOT_BLANK_RE = re.compile(r"[^ \t]")
_INK_RE = re.compile(r"\S")


@dataclass(slots=True)
class ScannedItem:
    """A list item found by :func:`scan_list_items`; offsets are the body's."""

    line: int  # the body line (0-based) it starts on
    status: str | None
    parent: int | None  # the body line of the item it is nested under
    section: str | None
    symbol: str
    # its lines: (where the line starts, where its text starts: after the marker and the box
    # on the first, after any ">" on the others, where the line ends)
    pieces: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def line_count(self) -> int:
        return len(self.pieces)


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


# A line that may start an item, a heading or a setext underline: where the scan goes on
# when no item is open (the lines between are paragraphs, skipped in one search). Both
# start with the newline before the line: a literal first character, which the regex
# engine skips to quickly (a "^" in MULTILINE mode is tried at every character).
_NEXT_RE = re.compile(r"\n[ \t>]*(?:[-*+_=#]|\d)")
# a line that starts a list item: a note without one (most) is not scanned
_ANY_ITEM_RE = re.compile(r"\n[ \t>]*(?:[-*+]|\d{1,9}[.)])(?:[ \t\r\n]|\Z)")
_FIRST_ITEM_RE = re.compile(r"[ \t>]*(?:[-*+]|\d{1,9}[.)])(?:[ \t\r\n]|\Z)")


def scan_list_items(body: str, masked: str) -> tuple[list[ScannedItem], int, int]:
    """The list items of ``body`` (``masked``: the same text with code and comments
    blanked, see the module's docstring) in order, how many more there were past
    :data:`MAX_ITEMS`, and the offset of the line of the first of those (-1: none)."""
    items: list[ScannedItem] = []
    dropped, cut = 0, -1
    if _FIRST_ITEM_RE.match(masked) is None and _ANY_ITEM_RE.search(masked) is None:
        return items, dropped, cut
    stack: list[tuple[int, int]] = []  # open items: (content column, body line)
    open_item: ScannedItem | None = None  # the item whose text a next line may continue
    section: str | None = None
    para = -1  # the start of the last line if it was a paragraph's (for a setext heading)
    depth = 0  # block quote depth of the open items
    size, pos, n = len(masked), 0, 0  # line n starts at pos
    find = masked.find
    not_blank = _NOT_BLANK_RE.search
    while pos <= size:
        if pos and not stack and open_item is None:
            m = _NEXT_RE.search(masked, pos - 1)
            if m is None:
                break
            start = m.start() + 1
            if start > pos:
                n += masked.count("\n", pos, start)
                before = masked.rfind("\n", 0, start - 1) + 1
                prev = masked[before : start - 1].lstrip(" \t")
                para = before if prev and prev[0] != ">" else -1
                pos = start
        end = find("\n", pos)
        if end < 0:
            end = size
        stop = end - 1 if end > pos and masked[end - 1] == "\r" else end  # CRLF
        # Offsets, not copies: a paragraph in a list may be a line of thousands of
        # characters, and only its first few say what it is.
        ink = not_blank(masked, pos, stop)
        at = stop if ink is None else ink.start()  # the first non-blank
        if at == stop:  # blank, or code/comment blanked out
            if stack and _INK_RE.search(body, pos, stop):  # code: closes what it is left of
                lead = not_blank(body, pos, stop)
                _close(stack, _width(body[pos : stop if lead is None else lead.start()]))
            open_item, para = None, -1
            pos, n = end + 1, n + 1
            continue
        col = pos  # where the text after the block quote starts
        first = masked[at]
        quote = 0
        if first == ">":
            q = _QUOTE_RE.match(masked, pos, stop)
            assert q is not None  # the line's first non-blank is ">"
            col = q.end()
            quote = q.group().count(">")
            ink = not_blank(masked, col, stop)
            at = stop if ink is None else ink.start()
            if at == stop:
                if quote != depth:
                    stack.clear()
                    depth = quote
                open_item, para = None, -1
                pos, n = end + 1, n + 1
                continue
            first = masked[at]
        if quote != depth:
            stack.clear()
            open_item, depth = None, quote
        indent = at - col
        if indent and "\t" in masked[col:at]:
            indent = _width(masked[col:at])
        top = stack[-1][0] if stack else 0
        if first == "#" and indent < 4 and _HEADING_RE.match(masked, at, stop):
            if not quote:
                section = heading_text(body[at:stop])
            stack.clear()
            open_item, para = None, -1
            pos, n = end + 1, n + 1
            continue
        if first in "-*_=" and indent < 4:
            heading = False
            if first == "=":  # "Title\n===": a heading (under no paragraph: text)
                heading = (
                    para >= 0 and not quote and bool(_SETEXT_EQ_RE.fullmatch(masked, at, stop))
                )
                rule = heading
            else:
                rule = bool(_RULE_RE.fullmatch(masked, at, stop))
                heading = rule and first == "-" and para >= 0 and not quote
            if heading:  # "Title\n---" too
                para_end = find("\n", para)
                section = body[para : para_end if para_end >= 0 else size].strip()
            if rule:
                stack.clear()
                open_item, para = None, -1
                pos, n = end + 1, n + 1
                continue
        if (first in "-*+" or "0" <= first <= "9") and indent < top + 4:
            m = _ITEM_RE.match(masked, at, stop)
            if m is not None:
                _close(stack, indent)
                parent = stack[-1][1] if stack else None
                gap = m.group(1)
                symbol = masked[at : m.end() if gap is None else m.start(1)]
                width = 1 if gap is None else len(gap) if "\t" not in gap else _width(gap)
                stack.append((indent + len(symbol) + (1 if width > 4 else width), n))
                para = -1
                if len(items) >= MAX_ITEMS:
                    if not dropped:
                        cut = pos
                    dropped += 1
                    open_item = None
                    pos, n = end + 1, n + 1
                    continue
                text_at = m.end()
                status = None
                if (
                    masked.startswith("[", text_at, stop)
                    and masked.startswith("]", text_at + 2, stop)
                    and (text_at + 3 == stop or masked[text_at + 3] in " \t")
                ):
                    status = body[text_at + 1]
                    text_at += 3
                open_item = ScannedItem(n, status, parent, section, symbol, [(pos, text_at, stop)])
                items.append(open_item)
                pos, n = end + 1, n + 1
                continue
        if open_item is not None:  # "- item\ncontinued": the item's text goes on
            open_item.pieces.append((pos, col, stop))
        else:
            _close(stack, indent)
            para = pos if not stack and not quote else -1
        pos, n = end + 1, n + 1
    return items, dropped, cut


def _close(stack: list[tuple[int, int]], indent: int) -> None:
    """Close the open items whose content a line indented ``indent`` is not in."""
    while stack and stack[-1][0] > indent:
        stack.pop()


def item_text(item: ScannedItem, text: str, src: str | None = None) -> str:
    """The item's text cut from ``text`` (the body, or a masked copy: then ``src`` is the
    body, whose blanks decide where each line is trimmed, so every copy is cut alike): the
    first line after the marker and the box, then each continuation line, trimmed, joined
    by newlines; at most :data:`MAX_ITEM_TEXT` characters."""
    src = text if src is None else src
    parts: list[str] = []
    size = 0
    for _line, a, e in item.pieces:
        raw = src[a:e]
        kept = raw.strip()
        start = a + raw.find(kept[:1]) if kept else a
        piece = text[start : start + len(kept)]
        parts.append(piece)
        size += len(piece) + 1
        if size > MAX_ITEM_TEXT:
            break
    return "\n".join(parts)[:MAX_ITEM_TEXT]
