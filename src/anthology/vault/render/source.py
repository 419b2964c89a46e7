"""The source pass: before python-markdown sees an entry, the spans it must not touch
(fences, math, wikilinks and embeds, comments, block ids, tags, dangerous raw elements)
become finished HTML in its stash; nested lists are re-indented to its rule."""

from __future__ import annotations

import bisect
import re
from html import escape

import markdown
from markdown.preprocessors import Preprocessor

from ..links import (
    BLOCK_ID_RE,
    MDLINK_RE,
    TAG_RE,
    URL_RE,
    WIKILINK_RE,
    comment_spans,
    mask_code,
)
from . import mathtex
from .blocks import fenced_html, math_html
from .context import (
    MAX_BRACKETS_PER_PARAGRAPH,
    RenderContext,
)
from .embeds import wikilink_html

_FENCE_OPEN_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^`\n]*?)[ \t]*$")
_RAW_TAG_RE = re.compile(r"</?[a-zA-Z][^>\n]*>")
# Raw elements removed with their content before python-markdown splits them into pieces.
_DANGEROUS_OPEN_RE = re.compile(
    r"<(script|style|iframe|object|embed|noscript|template|textarea|select|svg|math|form|"
    r"applet|frameset|title)\b[^>]*>",
    re.I,
)


# ---------------------------------------------------------------------- source pass
def _find_fences(text: str) -> list[tuple[int, int, str, str, str]]:
    """(start, end, prefix, info, code) of each fenced block, including those in quotes."""
    found = []
    pos = 0
    open_: tuple[int, str, str, str] | None = None  # start, fence, prefix, info
    code: list[str] = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        stripped = body.lstrip(" >")
        prefix = body[: len(body) - len(stripped)]
        if open_ is None:
            m = _FENCE_OPEN_RE.match(stripped)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                open_ = (pos, m.group(1), prefix, m.group(2))
                code = []
        else:
            m = _FENCE_OPEN_RE.match(stripped)
            fence = open_[1]
            if m and not m.group(2) and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                found.append((open_[0], pos + len(body), open_[2], open_[3], "\n".join(code)))
                open_ = None
            else:
                pfx = open_[2]
                if body.startswith(pfx):
                    code.append(body[len(pfx) :])
                elif ">" in pfx:
                    code.append(re.sub(r"^[ >]*> ?", "", body))
                else:
                    code.append(body)
        pos += len(line)
    if open_ is not None:
        found.append((open_[0], len(text), open_[2], open_[3], "\n".join(code)))
    return found


_LIST_ITEM_RE = re.compile(r"^( *)([-*+]|\d{1,9}[.)])( {1,4}|$)")


def _normalise_list_indent(lines: list[str]) -> list[str]:
    """Re-indent nested lists by python-markdown's rule (4 spaces a level).

    Obsidian and CommonMark nest an item indented to its parent's content column (2 spaces
    under "- ", 3 under "1. ") and let a list start right under a paragraph line;
    python-markdown wants 4 spaces and a blank line, and would otherwise flatten them.
    """
    stack: list[int] = []  # content column of each open list item
    out: list[str] = []
    prev_blank, prev_text = True, False  # previous line: blank / paragraph text
    for line in lines:
        if not line.strip():
            out.append(line)
            prev_blank, prev_text = True, False
            continue
        indent = len(line) - len(line.lstrip(" "))
        m = _LIST_ITEM_RE.match(line)
        if m and (stack or indent < 4):
            while stack and indent < stack[-1]:
                stack.pop()
            if not stack and prev_text and m.group(2) in ("-", "*", "+", "1.", "1)"):
                out.append("")  # a list may interrupt a paragraph
            out.append(" " * (4 * len(stack)) + line[indent:])
            stack.append(indent + len(m.group(2)) + max(1, len(m.group(3))))
            prev_blank, prev_text = False, False
            continue
        if stack and indent > 0:
            while stack and indent < stack[-1]:
                stack.pop()
            out.append(" " * (4 * len(stack)) + line[indent:] if stack else line)
        else:
            if prev_blank and indent == 0:
                stack = []  # the list has ended
            out.append(line)
        prev_blank, prev_text = False, not stack
    return out


def _dangerous_elements(text: str) -> list[tuple[int, int]]:
    """(start, end) of each raw ``<script>…</script>``-like element, in linear time.

    What ``<(name)…>.*?</\1>`` would find, without its lazy ``.*?`` rescanning the rest of
    the text from every unclosed ``<svg>`` (20k of them took 8–11 s): each search
    for a closing tag starts where the last one ended, and a name found unclosed once is
    never searched for again.
    """
    found: list[tuple[int, int]] = []
    unclosed: set[str] = set()
    pos = 0
    while True:
        m = _DANGEROUS_OPEN_RE.search(text, pos)
        if m is None:
            return found
        name = m.group(1).lower()
        if name in unclosed:
            pos = m.end()
            continue
        close = re.compile(rf"</{name}\s*>", re.I).search(text, m.end())
        if close is None:
            unclosed.add(name)
            pos = m.end()
            continue
        found.append((m.start(), close.end()))
        pos = close.end()


_TAG_EDGE_RE = re.compile(r"<(?=[A-Za-z/!?])|>")
# More tag starts than this that another "<" interrupts, and they are shown as text: each
# sends python-markdown's HTML parser to the end of the text (80 KB of "<a<a<a…": 3.9 s).
MAX_UNCLOSED_TAGS = 50


def _unclosed_tag_starts(masked: str) -> list[int]:
    """Where a ``<`` starts a tag that another ``<`` interrupts before any ``>``: never a
    tag (CommonMark shows it as text), and python-markdown's HTML parser looks for its end
    through the rest of the text, quadratic in them. One pass."""
    found: list[int] = []
    pending = -1
    for m in _TAG_EDGE_RE.finditer(masked):
        if m.group() == ">":
            pending = -1
        else:
            if pending >= 0:
                found.append(pending)
            pending = m.start()
    return found


# The brackets of such a paragraph become two private-use characters the entry does not
# use, put back after python-markdown: escaping them (``\[``) made each one an inline
# placeholder that rebuilds the paragraph's string, quadratic again (10⁶ unclosed ``[[``,
# cut to 100,000 characters: 21 s).
_PRIVATE_USE = (
    range(0xF8FF, 0xDFFF, -1),
    range(0xFFFFD, 0xEFFFF, -1),
    range(0x10FFFD, 0xFFFFF, -1),
)


def _stand_ins(text: str) -> tuple[str, str] | None:
    """Two private-use characters absent from ``text`` (stand-ins for ``[`` and ``]``), or
    None when it holds all 137,000 of them."""
    free = (c for r in _PRIVATE_USE for cp in r if (c := chr(cp)) not in text)
    pair = (next(free, None), next(free, None))
    return None if pair[1] is None else pair  # type: ignore[return-value]


def _defuse_brackets(text: str, ctx: RenderContext) -> str:
    """Take the brackets of paragraphs that hold hundreds of them out of python-markdown's
    sight (links there are lost): stand-ins, put back by :func:`markdown_to_html`."""
    paragraphs = re.split(r"(\n[ \t>]*\n)", text)
    pair = _stand_ins(text)
    opening, closing = pair or ("[", "]")
    stand_in = {"[": opening, "]": closing, "\\[": opening, "\\]": closing}  # \[ shows as [
    hit = False
    for i in range(0, len(paragraphs), 2):
        if paragraphs[i].count("[") > MAX_BRACKETS_PER_PARAGRAPH:
            if pair is None:  # escaped: slow (quadratic), and only past the body's length cap
                paragraphs[i] = re.sub(r"(?<!\\)([\[\]])", r"\\\1", paragraphs[i])
            else:
                paragraphs[i] = re.sub(r"\\?[\[\]]", lambda m: stand_in[m[0]], paragraphs[i])
            hit = True
    if hit and pair is not None:
        ctx.stand_ins.update({opening: "[", closing: "]"})
    if hit:
        ctx.problems.append("a paragraph with hundreds of brackets is shown without links")
    return "".join(paragraphs)


class TrustedStash:
    """Our own HTML goes through python-markdown's stash, marked trusted: the sanitiser
    cleans only what the entry's author wrote, never the renderer's markup."""

    md: markdown.Markdown  # set by the python-markdown processor this is mixed into

    def __init__(self, md: markdown.Markdown, ctx: RenderContext, trusted: set[int]) -> None:
        super().__init__(md)  # type: ignore[call-arg]  # the processor's, next in the MRO
        self.ctx = ctx
        self.trusted = trusted

    def stash(self, html: str) -> str:
        placeholder = self.md.htmlStash.store(html)
        self.trusted.add(self.md.htmlStash.html_counter - 1)
        return placeholder


class SourcePreprocessor(TrustedStash, Preprocessor):
    def _block(self, html: str, prefix: str) -> str:
        """A placeholder on a paragraph of its own, for a span that starts mid-line."""
        ph = self.stash(html)
        return f"\n\n{prefix}{ph}\n\n"

    def _block_lines(self, html: str, prefix: str) -> str:
        """The same for a span of whole lines (a fence), inside a quote or list if it was."""
        quote_pfx = prefix.rstrip() if ">" in prefix else ""
        return f"{quote_pfx}\n{prefix}{self.stash(html)}\n{quote_pfx}"

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        ctx = self.ctx
        spans: list[tuple[int, int, str]] = []
        starts: list[int] = []  # taken spans, sorted and disjoint
        ends: list[int] = []

        def free(s: int, e: int) -> bool:
            i = bisect.bisect_right(starts, s)
            if i and ends[i - 1] > s:
                return False
            return i == len(starts) or starts[i] >= e

        def add(s: int, e: int, html: str) -> None:
            i = bisect.bisect_right(starts, s)
            starts.insert(i, s)
            ends.insert(i, e)
            spans.append((s, e, html))

        for start, end, prefix, info, code in _find_fences(text):
            lang = info.split()[0].lower() if info.split() else ""
            add(start, end, self._block_lines(fenced_html(ctx, lang, code), prefix))

        for start, end in comment_spans(text):  # never inside code; an open one runs on
            if free(start, end):
                add(start, end, "")
        if "`=" in text or "`$=" in text:  # Dataview's inline queries (not in fences)
            from .dataview import INLINE_RE, inline_query_html

            for m in INLINE_RE.finditer(text):
                if free(m.start(), m.end()):
                    add(m.start(), m.end(), self.stash(inline_query_html(ctx, m[1], m[2])))
        masked = mask_code(text)
        # (skipped when there are hundreds: the scan would turn quadratic; the sanitiser
        # still drops the tags, only their text would show)
        if "<" in masked:
            for start, end in _dangerous_elements(masked):
                if free(start, end):
                    add(start, end, "")
            unclosed = _unclosed_tag_starts(masked)
            # a stand-in, not "&lt;": python-markdown makes each entity an inline
            # placeholder, quadratic again
            pair = _stand_ins(text) if len(unclosed) > MAX_UNCLOSED_TAGS else None
            if pair is not None:
                ctx.stand_ins[pair[0]] = "&lt;"
                for start in unclosed:
                    if free(start, start + 1):
                        add(start, start + 1, pair[0])

        def line_bounds(s: int, e: int) -> tuple[str, bool]:
            ls = text.rfind("\n", 0, s) + 1
            le = text.find("\n", e)
            le = len(text) if le == -1 else le
            before, after = text[ls:s], text[e:le]
            alone = not before.strip(" >") and not after.strip()
            return before, alone

        if "$" in masked:
            for m in mathtex.DISPLAY_MATH_RE.finditer(masked):
                if not free(m.start(), m.end()):
                    continue
                before, alone = line_bounds(m.start(), m.end())
                tex = text[m.start(1) : m.end(1)]
                if ">" in before:  # display math inside a callout: drop the quote markers
                    tex = re.sub(r"(?m)^[ >]*> ?", "", tex)
                html = math_html(ctx, tex, True, alone)
                # Indented (inside a list item): a paragraph break would end the list.
                if alone and ">" not in before and not before:
                    add(m.start(), m.end(), self._block(html, before))
                else:
                    add(m.start(), m.end(), self.stash(html))
        if "[[" in masked:
            for m in WIKILINK_RE.finditer(masked):
                if not free(m.start(), m.end()) or masked[m.start() - 1 : m.start()] == "\\":
                    continue  # taken, or escaped: \[[x]] is text
                html, is_block = wikilink_html(ctx, text[m.start(2) : m.end(2)], m.group(1) == "!")
                before, alone = line_bounds(m.start(), m.end())
                if is_block and alone and ">" not in before:
                    add(m.start(), m.end(), self._block(html, before))
                else:
                    add(m.start(), m.end(), self.stash(html))
        if "$" in masked:
            for m in mathtex.INLINE_MATH_RE.finditer(masked):
                if free(m.start(), m.end()):
                    add(
                        m.start(),
                        m.end(),
                        self.stash(math_html(ctx, text[m.start(1) : m.end(1)], False, False)),
                    )
        if "^" in masked:
            for m in BLOCK_ID_RE.finditer(masked):
                if free(m.start(), m.end()):
                    add(
                        m.start(),
                        m.end(),
                        self.stash(f'<a name="^{escape(m.group(1))}">&#8203;</a>'),
                    )
        if "#" in masked:
            blocked = [
                (m.start(), m.end())
                for rx in (URL_RE, MDLINK_RE, _RAW_TAG_RE)
                for m in rx.finditer(masked)
            ]
            for m in TAG_RE.finditer(masked):
                s, e = m.start(), m.end()
                if not free(s, e) or any(a <= s < b for a, b in blocked):
                    continue
                tag = m.group(1).strip("/")
                if tag:
                    add(s, e, self.stash(ctx.tag_html(tag)))
        if spans:
            spans.sort()
            out: list[str] = []
            pos = 0
            for s, e, html in spans:
                out.append(text[pos:s])
                out.append(html)
                pos = e
            out.append(text[pos:])
            text = "".join(out)
        if text.count("[") > MAX_BRACKETS_PER_PARAGRAPH:
            text = _defuse_brackets(text, ctx)
        return _normalise_list_indent(text.split("\n"))
