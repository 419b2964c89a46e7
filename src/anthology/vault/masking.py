"""What in a note is code or a comment, and so holds no link, tag or heading.

:func:`mask_code` blanks fenced, indented and inline code, HTML comments and
``%%Obsidian comments%%`` out of a text, keeping every offset and newline, before
:mod:`anthology.vault.links` looks for anything; :func:`comment_spans` gives the renderer the
``%%`` comments it drops, found by the same scan. Every scanner here is linear in the text
(see tests/vault/test_linear_scanners.py): a hostile note cannot stall the index.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BACKTICKS_RE = re.compile(r"`+")


def _blank(segment: str) -> str:
    """Every character but newlines made a space (a regex sub costs a call per character)."""
    if "\n" not in segment:
        return " " * len(segment)
    return "\n".join([" " * len(part) for part in segment.split("\n")])


def _fence_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of fenced code blocks; a fence closes on one of the same char, as long."""
    spans: list[tuple[int, int]] = []
    fence: str | None = None
    fence_start = 0
    for pos, line in _fence_lines(text):
        stripped = line.lstrip(" >")  # fences inside block quotes (callouts) count too
        if stripped[:1] in ("`", "~"):
            m = _FENCE_RE.match(stripped)
            if fence is None:
                if m:
                    fence, fence_start = m.group(1), pos
            elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                spans.append((fence_start, pos + len(line)))
                fence = None
    if fence is not None:  # an unclosed fence runs to the end, as CommonMark says
        spans.append((fence_start, len(text)))
    return spans


# The line breaks str.splitlines honours besides a newline.
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def _fence_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, line)`` for the lines of ``text``, as ``splitlines(keepends=True)`` cuts
    them, that may open or close a fence: at least every line holding three backticks or
    three tildes.

    In the usual note (newlines only, one kind of fence) just those lines are cut out,
    found with ``str.find``: a note has a few fence lines among dozens. (A regex search
    for either mark is 7x slower.)"""
    marks = [mark for mark in ("```", "~~~") if mark[0] in text and mark in text]
    if len(marks) != 1 or any(brk in text for brk in _OTHER_BREAKS):
        pos = 0
        for line in text.splitlines(keepends=True):
            yield pos, line
            pos += len(line)
        return
    mark = marks[0]
    pos = 0
    while (at := text.find(mark[0], pos)) >= 0:  # one character: memchr, not a slow search
        if not text.startswith(mark, at):
            pos = at + 1
            continue
        start = text.rfind("\n", 0, at) + 1
        pos = text.find("\n", at + 3) + 1 or len(text)
        yield start, text[start:pos]


def _blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    out: list[str] = []
    last = 0
    for start, end in spans:
        out.append(text[last:start])
        out.append(_blank(text[start:end]))
        last = end
    out.append(text[last:])
    return "".join(out)


def mask_code(text: str, *, comments: bool = True) -> str:
    """Blank fenced, indented and inline code and comments, keeping every offset and newline.
    ``comments=False``: code only (Dataview reads inline fields inside ``%%comments%%``)."""
    # Each substring test looks for its first character alone first: that search is a
    # memchr, 20× faster than a search for the whole string through text without it.
    if ("`" in text and "```" in text) or ("~" in text and "~~~" in text):
        text = _blank_spans(text, _fence_spans(text))
    if _may_hold_indented_code(text):
        text = _blank_spans(text, _indented_code_spans(text))
    if ("%" in text and "%%" in text) or ("<" in text and "<!--" in text):
        spans = _code_and_comment_spans(text)
        text = _blank_spans(text, [(s, e) for s, e, kind in spans if comments or kind == "`"])
    elif "`" in text:
        text = _blank_spans(text, _inline_code_spans(text))
    return text


def comment_spans(text: str) -> list[tuple[int, int]]:
    """The ``%%Obsidian comments%%`` of ``text`` as :func:`mask_code` finds them (never
    inside code; one left open runs to the end, as in Obsidian): what the renderer drops."""
    if "%%" not in text:
        return []
    if ("`" in text and "```" in text) or ("~" in text and "~~~" in text):
        text = _blank_spans(text, _fence_spans(text))
    if _may_hold_indented_code(text):
        text = _blank_spans(text, _indented_code_spans(text))
    return [(s, e) for s, e, kind in _code_and_comment_spans(text) if kind == "%"]


# A line indented four spaces or a tab, with something on it, after an empty line: where an
# indented code block may begin (fenced code, already blanked, has nothing on its lines).
# Its literal start lets the regex engine skip to each "\n\n": 1-2 % of a note's parse,
# where a search that also allowed blanks on the empty line cost 30 %.
_INDENTED_AFTER_EMPTY_RE = re.compile(r"\n\n(?: {4}|\t)[ \t]*\S")


def _may_hold_indented_code(text: str) -> bool:
    """Whether an indented code block may begin in ``text`` (asked first: most notes have
    none). A blank line holding spaces before the block is not noticed: the block's links
    count, as they did before."""
    if text.startswith(("    ", "\t")) and text.split("\n", 1)[0].strip():
        return True
    return _INDENTED_AFTER_EMPTY_RE.search(text) is not None


_LIST_ITEM_RE = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def _indented_code_spans(text: str) -> list[tuple[int, int]]:
    """CommonMark's indented code blocks: lines indented four spaces (or a tab) that follow
    a blank line, outside a list (there the indent continues the item), running on over
    blank lines to the last indented line."""
    spans: list[tuple[int, int]] = []
    prev_blank, in_list = True, False
    code_start = code_end = -1
    pos = 0
    for line in text.split("\n"):
        end = pos + len(line)
        if not line.strip():
            prev_blank = True
        else:
            indented = line.startswith(("    ", "\t"))
            if code_start >= 0 and not indented:
                spans.append((code_start, code_end))
                code_start = -1
            if code_start >= 0:
                code_end = end
            elif indented:
                if prev_blank and not in_list:
                    code_start, code_end = pos, end
            elif _LIST_ITEM_RE.match(line):
                in_list = True
            elif prev_blank or line.lstrip().startswith("#"):
                in_list = False  # a new paragraph or a heading ends the list
            prev_blank = False
        pos = end + 1
    if code_start >= 0:
        spans.append((code_start, code_end))
    return spans


def _runs_by_length(text: str) -> tuple[list[tuple[int, int]], dict[int, list[int]]]:
    """The runs of backticks of ``text`` (spans), and for each length the indexes of the
    runs that long, in order."""
    runs = [m.span() for m in _BACKTICKS_RE.finditer(text)] if "`" in text else []
    by_length: dict[int, list[int]] = {}
    for i, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(i)
    return runs, by_length


def _closing_run(
    runs: list[tuple[int, int]], by_length: dict[int, list[int]], i: int
) -> tuple[int, int]:
    """(k, closer): run ``i`` opens code with its last k backticks, for the largest k some
    later run is exactly k long, and the first such run closes it; (0, -1) when none can.
    Every length is tried once per run: linear over a text."""
    start, end = runs[i]
    for k in range(end - start, 0, -1):
        later = by_length.get(k)
        if later is not None and later[-1] > i:
            return k, later[bisect_right(later, i)]
    return 0, -1


def _code_and_comment_spans(text: str) -> list[tuple[int, int, str]]:
    """Inline code (kind "`"), ``%%`` comments ("%") and HTML comments ("<"), read left to
    right as Obsidian reads them: what opens first wins, so a ``%%`` inside inline code is
    code, and a backtick inside a comment is comment. An unclosed comment runs to the end
    (Obsidian hides the rest of the note). Linear: every search starts where the last
    stopped."""
    runs, by_length = _runs_by_length(text)
    find, size, count = text.find, len(text), len(runs)
    spans: list[tuple[int, int, str]] = []
    pos = ri = 0
    pct, html = find("%%"), find("<!--")
    while True:
        if 0 <= pct < pos:
            pct = find("%%", pos)
        if 0 <= html < pos:
            html = find("<!--", pos)
        while ri < count and runs[ri][0] < pos:
            ri += 1
        run = runs[ri][0] if ri < count else -1
        first = min((p for p in (pct, html, run) if p >= 0), default=-1)
        if first < 0:
            return spans
        if first == pct:
            close = find("%%", pct + 2)
            pos = size if close < 0 else close + 2
            spans.append((pct, pos, "%"))
        elif first == html:
            close = find("-->", html + 4)
            pos = size if close < 0 else close + 3
            spans.append((html, pos, "<"))
        else:
            k, closer = _closing_run(runs, by_length, ri)
            if closer < 0:
                ri += 1
                continue
            pos = runs[closer][1]
            spans.append((runs[ri][1] - k, pos, "`"))


def _inline_code_spans(text: str) -> list[tuple[int, int]]:
    """The spans ``re.sub(r"(`+)(?!`)(.+?)(?<!`)\\1(?!`)", …, flags=re.S)`` would replace,
    found in linear time: that regex retries at every backtick of a run, and scans to the
    end of the text for each opener that never closes (quadratic in both).

    What the regex does, said plainly: at each run of backticks, the opener is the run's
    last k backticks for the largest k such that some later run is exactly k long; it
    closes at the first such run, and the search goes on after it. A run no later run
    can close is left as it is."""
    runs, by_length = _runs_by_length(text)
    if len(runs) < 2:
        return []
    spans: list[tuple[int, int]] = []
    i, count = 0, len(runs)
    while i < count:
        k, closer = _closing_run(runs, by_length, i)
        if closer < 0:
            i += 1
            continue
        spans.append((runs[i][1] - k, runs[closer][1]))
        i = closer + 1
    return spans
