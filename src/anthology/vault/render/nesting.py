"""The nesting budget of a render: how deep quotes, lists and boxes may go.

Where the time went: not python-markdown (20 quote levels parse in a millisecond) but Qt's
table layout. Quotes, callouts, embeds, code blocks and tables are drawn as ``<table>``s
(Qt draws no ``div`` borders), and Qt lays out the content of a table cell about twice per
level of tables around it: a 52-byte note of 20 nested quotes held the GUI thread 46 s, the
same text 12 deep 0.16 s, and 30 KB of text 8 boxes deep 0.7 s. So the budget is of two kinds:

- :func:`clamp_source`, before python-markdown sees a body: a line's quote and list markers
  (``> > >``, ``- > - >``, ``1. >`` mixed) past :data:`~.context.MAX_NESTING` are dropped,
  the text kept at that depth (python-markdown recurses once per level; 10,000 levels would
  end in a RecursionError).
- :func:`fit_boxes`, on the finished HTML of the whole render (the entry or preview with
  everything it embeds): boxes past :data:`~.context.MAX_BOXES` deep, or past the depth at
  which their text would cost Qt more than :data:`~.context.MAX_BOX_WEIGHT` (each character
  weighs 2 to the power of its box depth), lose their frame and are drawn as indented blocks,
  which Qt lays out in linear time. The reader still sees the nesting, as indentation.

:func:`~.markdown_ext.markdown_to_html` applies both, so every path that renders (the pane,
the page preview, embeds, export and print) goes through the same budget.
"""

from __future__ import annotations

import re

from .context import MAX_BOX_WEIGHT, MAX_BOXES, MAX_LIST_INDENT, MAX_NESTING, RenderContext

# One container marker at the start of a line: a quote's ">" or a list item's marker.
_MARKER_RE = re.compile(r"[ \t]*(?:>|(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$))")
_DEEP_LIST_RE = re.compile(
    rf"^([ \t]{{{MAX_LIST_INDENT + 1},}})(?=(?:[-*+]|\d{{1,9}}[.)])(?:[ \t]|$))"
)
_STACKED_MARKERS_RE = re.compile(r"^([ \t]*)((?:[-*+][ \t]+){8,})")


def _clamp_line(line: str) -> str | None:
    """``line`` with its container markers past :data:`MAX_NESTING` dropped, or None."""
    pos, count = 0, 0
    while (m := _MARKER_RE.match(line, pos)) is not None and m.end() > pos:
        count += 1
        if count > MAX_NESTING:
            # the rest of the prefix goes: its text stays, at the deepest level kept
            end = pos
            while (m := _MARKER_RE.match(line, end)) is not None and m.end() > end:
                end = m.end()
            return line[:pos] + " " + line[end:].lstrip(" \t")
        pos = m.end()
    return None


def clamp_source(body: str) -> tuple[str, bool]:
    """``body`` with no line nested deeper than python-markdown may go; whether it changed.

    Linear: each line's prefix is read once. Lists nested by indentation are bounded by
    :data:`MAX_LIST_INDENT` columns, a stack of 8 or more bare list markers (``- - - - …``)
    becomes one."""
    if len(body) < 2 * MAX_NESTING and len(body) < MAX_LIST_INDENT:
        return body, False
    changed = False
    out = []
    for line in body.split("\n"):
        clamped = _clamp_line(line)
        if clamped is not None:
            line, changed = clamped, True
        if (m := _DEEP_LIST_RE.match(line)) is not None:
            line, changed = " " * MAX_LIST_INDENT + line[m.end() :], True
        if (m := _STACKED_MARKERS_RE.match(line)) is not None:
            line, changed = m.group(1) + "- " + line[m.end() :], True
        out.append(line)
    return ("\n".join(out) if changed else body), changed


# ---------------------------------------------------------------- boxes
_TAG_RE = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>")
_TABLE_PARTS = frozenset(("table", "tr", "td", "th", "thead", "tbody", "tfoot", "caption"))
_INDENT = 12  # px a frameless box is indented by
MAX_INDENTS = 24  # frameless boxes deeper than this are not indented further


def box_depths(html: str) -> list[int]:
    """Characters of text at each depth of tables (index 0: outside any table)."""
    chars = [0]
    depth = 0
    pos = 0
    for m in _TAG_RE.finditer(html):
        chars[depth] += m.start() - pos
        pos = m.end()
        if m.group(2).lower() == "table":
            if m.group(1):
                depth = max(0, depth - 1)
            else:
                depth += 1
                if depth == len(chars):
                    chars.append(0)
    chars[depth] += len(html) - pos
    return chars


def box_room(chars: list[int]) -> int:
    """The deepest boxes that may keep their frame: at most :data:`MAX_BOXES`, and no
    deeper than the weight of the text (2**depth a character) allows; at least 1."""
    for room in range(min(MAX_BOXES, len(chars) - 1), 0, -1):
        weight = sum(n << min(d, room) for d, n in enumerate(chars))
        if weight <= MAX_BOX_WEIGHT:
            return room
    return 1


def _unframe(html: str, room: int) -> str:
    """Tables deeper than ``room`` as indented blocks: a row is a block, a cell's content
    follows the one before it, the bar of a quote or callout goes."""
    out: list[str] = []
    kept: list[bool] = []  # the open tables: keep their frame?
    indents = 0
    pos = 0
    skip_text = False
    for m in _TAG_RE.finditer(html):
        name = m.group(2).lower()
        if name not in _TABLE_PARTS:
            continue
        if not skip_text:
            out.append(html[pos : m.start()])
        skip_text = False
        pos = m.end()
        closing = bool(m.group(1))
        tag = m.group(0)
        if name == "table":
            if not closing:
                kept.append(len(kept) < room)
                if kept[-1]:
                    out.append(tag)
                else:
                    indents += 1
                    margin = _INDENT if indents <= MAX_INDENTS else 0
                    out.append(f'<div style="margin-left: {margin}px;">')
            elif kept:
                if kept.pop():
                    out.append(tag)
                else:
                    indents -= 1
                    out.append("</div>")
            continue  # a stray </table> goes
        if not kept or kept[-1]:
            out.append(tag)
        elif name == "tr":
            out.append("</div>" if closing else "<div>")
        elif name in ("td", "th") and not closing and 'class="bar"' in tag:
            skip_text = True  # the bar's hair space
        elif name in ("td", "th") and closing:
            out.append(" ")
    if not skip_text:
        out.append(html[pos:])
    return "".join(out)


def fit_boxes(html: str, ctx: RenderContext) -> str:
    """``html`` with no more boxes inside one another than Qt lays out quickly (see the
    module's notes); a cut is noted in ``ctx.budget``."""
    if "<table" not in html:
        return html
    chars = box_depths(html)
    room = box_room(chars)
    if len(chars) - 1 <= room:
        return html
    ctx.budget.cut(
        "boxes",
        f"quotes, callouts and embeds more than {room} deep are shown indented, "
        "without their frames",
    )
    return _unframe(html, room)
