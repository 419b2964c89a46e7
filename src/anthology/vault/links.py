"""The link grammar of an Obsidian-flavoured vault, shared by the indexer and the renderer.

One place knows what a link looks like, so the graph the index builds and the anchors the
entry pane draws always agree. Supported forms::

    [[target]]  [[target|alias]]  [[target#Heading]]  [[target#^block-id]]  ![[embed]]
    [[target\\|alias]]            (escaped pipe, as Obsidian writes it inside tables)
    [text](relative/path.md)     (URL-encoded; <angle brackets> allowed; #fragment allowed)

Links inside fenced, indented and inline code, HTML comments and ``%%Obsidian comments%%``
do not count: :func:`mask_code` blanks those spans out (keeping offsets and line numbers)
before any link or tag is looked for. :func:`match_heading` is the one rule for which heading
a ``#Heading`` names (the index's warnings, embeds, the pane's scrolling).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

WIKILINK_RE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
# The same, starting on the literal "[[": 15× faster to scan (the "!" is checked by hand).
_WIKILINK_SCAN_RE = re.compile(r"\[\[([^\[\]\n]+)\]\]")
# [text](target "title") — the target may be <wrapped in angle brackets>.
MDLINK_RE = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*(<[^>\n]+>|[^()\s]+(?:\([^()\s]*\)[^()\s]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BACKTICKS_RE = re.compile(r"`+")
URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s<>()\]]+")
# A #tag: letters, digits, _ - / ; not all digits; not preceded by a word char, '/', '&' or
# another '#', so headings ("# Title"), URLs' fragments and HTML entities (&#123;) are not tags.
TAG_RE = re.compile(r"(?<![\w/&#\[\]\\])#((?:[^\W\d]|[_\-/])[\w\-/]*|\d+[^\W\d][\w\-/]*)", re.U)
_TAG_SCAN_RE = re.compile(r"#((?:[^\W\d]|[_\-/])[\w\-/]*|\d+[^\W\d][\w\-/]*)", re.U)

# Obsidian's "Accepted file formats" besides Markdown: only these make a link an attachment
# by its name alone. Any other dot is part of a note's name (``[[file.name]]`` is
# ``file.name.md``); a file of another kind is still found if the vault holds it (see
# resolve.Resolver).
ATTACHMENT_EXTENSIONS = frozenset(
    ["avif", "bmp", "gif", "jpeg", "jpg", "png", "svg", "webp",  # images
     "flac", "m4a", "mp3", "ogg", "wav", "webm", "3gp",  # audio
     "mkv", "mov", "mp4", "ogv",  # video
     "pdf", "canvas", "base"]
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Link:
    """One link found in a text.

    ``target`` is what names the destination (an entry name, a path, or "" for a link to a
    heading of the same entry); ``heading`` / ``block`` the fragment; ``alias`` the text
    shown. ``start``/``end`` are offsets in the text scanned, ``line`` is 1-based.
    """

    target: str
    alias: str | None
    heading: str | None
    block: str | None
    embed: bool
    markdown: bool  # [text](path.md) rather than [[wikilink]]
    start: int
    end: int
    line: int

    @property
    def is_attachment(self) -> bool:
        return is_attachment(self.target)


def is_attachment(target: str) -> bool:
    """A link to a file that is not Markdown (an image, a PDF…): not an entry."""
    dot = target.rfind(".")
    if dot < 0 or "/" in target[dot:]:
        return False
    return target[dot + 1 :].lower() in ATTACHMENT_EXTENSIONS


def split_wikilink(inner: str) -> tuple[str, str | None, str | None, str | None]:
    """Split the inside of ``[[…]]`` into (target, heading, block, alias).

    The alias follows the first ``|`` (or ``\\|``, the escaped pipe used inside tables).
    """
    alias: str | None = None
    bar = inner.find("|")
    if bar >= 0:
        alias = inner[bar + 1 :].strip() or None
        inner = inner[: bar - 1] if bar and inner[bar - 1] == "\\" else inner[:bar]
    target, heading, block = inner, None, None
    if "#" in inner:
        target, frag = inner.split("#", 1)
        frag = frag.strip()
        if frag.startswith("^"):
            block = frag[1:] or None
        else:
            heading = frag or None
    target = target.strip()
    if target.endswith("\\"):  # an escaped pipe split the wrong way round
        target = target[:-1].rstrip()
    return target, heading, block, alias


def split_markdown_target(raw: str) -> tuple[str, str | None, str | None] | None:
    """Decode the target of ``[text](raw)``; ``None`` for URLs and other schemes."""
    if raw.startswith("<") and raw.endswith(">"):
        raw = raw[1:-1]
    if not raw or _SCHEME_RE.match(raw) or raw.startswith("//"):
        return None
    path, _, frag = raw.partition("#")
    path = unquote(path)
    frag = unquote(frag).strip()
    heading = block = None
    if frag.startswith("^"):
        block = frag[1:] or None
    elif frag:
        heading = frag
    return path, heading, block


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


def mask_code(text: str) -> str:
    """Blank fenced, indented and inline code and comments, keeping every offset and newline."""
    # Each substring test looks for its first character alone first: that search is a
    # memchr, 20× faster than a search for the whole string through text without it.
    if ("`" in text and "```" in text) or ("~" in text and "~~~" in text):
        text = _blank_spans(text, _fence_spans(text))
    if _may_hold_indented_code(text):
        text = _blank_spans(text, _indented_code_spans(text))
    if ("%" in text and "%%" in text) or ("<" in text and "<!--" in text):
        text = _blank_spans(text, [(s, e) for s, e, _kind in _code_and_comment_spans(text)])
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


def _code_and_comment_spans(text: str) -> list[tuple[int, int, str]]:
    """Inline code (kind "`"), ``%%`` comments ("%") and HTML comments ("<"), read left to
    right as Obsidian reads them: what opens first wins, so a ``%%`` inside inline code is
    code, and a backtick inside a comment is comment. An unclosed comment runs to the end
    (Obsidian hides the rest of the note). Linear: every search starts where the last
    stopped."""
    runs = [m.span() for m in _BACKTICKS_RE.finditer(text)] if "`" in text else []
    by_length: dict[int, list[int]] = {}  # run length → indexes of the runs that long
    for i, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(i)
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
            start, end = runs[ri]
            closer = -1
            for k in range(end - start, 0, -1):
                later = by_length.get(k)
                if later is not None and later[-1] > ri:
                    closer = later[bisect_right(later, ri)]
                    break
            if closer < 0:
                ri += 1
                continue
            pos = runs[closer][1]
            spans.append((end - k, pos, "`"))


def _inline_code_spans(text: str) -> list[tuple[int, int]]:
    """The spans ``re.sub(r"(`+)(?!`)(.+?)(?<!`)\\1(?!`)", …, flags=re.S)`` would replace,
    found in linear time: that regex retries at every backtick of a run, and scans to the
    end of the text for each opener that never closes (quadratic in both).

    What the regex does, said plainly: at each run of backticks, the opener is the run's
    last k backticks for the largest k such that some later run is exactly k long; it
    closes at the first such run, and the search goes on after it. A run no later run
    can close is left as it is."""
    runs = [m.span() for m in _BACKTICKS_RE.finditer(text)]
    if len(runs) < 2:
        return []
    by_length: dict[int, list[int]] = {}  # run length → indexes of the runs that long
    for i, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(i)
    spans: list[tuple[int, int]] = []
    i, count = 0, len(runs)
    while i < count:
        start, end = runs[i]
        closer = -1
        for k in range(end - start, 0, -1):  # every run is tried once: linear in all
            later = by_length.get(k)
            if later is not None and later[-1] > i:
                closer = later[bisect_right(later, i)]
                break
        if closer < 0:
            i += 1
            continue
        spans.append((end - k, runs[closer][1]))
        i = closer + 1
    return spans


def iter_links(text: str, *, masked: str | None = None, first_line: int = 1) -> Iterator[Link]:
    """Every wikilink and relative Markdown link in ``text``, in order of appearance.

    ``masked`` may pass a :func:`mask_code` result already computed; ``first_line`` is the
    line number of the text's first line in its file (after front matter, say).
    """
    for found in find_links(text, masked=masked, first_line=first_line):
        yield Link(*found)


def find_links(
    text: str, *, masked: str | None = None, first_line: int = 1
) -> list[tuple[str, str | None, str | None, str | None, bool, bool, int, int, int]]:
    """What :func:`iter_links` yields, as plain tuples in :class:`Link`'s field order (the
    indexer's hot path: no object per link)."""
    if masked is None:
        masked = mask_code(text)
    # "(" first: a one-character search (memchr) rules out most notes' Markdown links fast.
    has_markdown = "(" in masked and "](" in masked
    if not has_markdown and "[[" not in masked:
        return []
    found: list = []
    line, pos = first_line, 0
    count = text.count
    for m in _WIKILINK_SCAN_RE.finditer(masked):
        inner = m[1]
        if "|" in inner or "#" in inner or "\\" in inner:
            target, heading, block, alias = split_wikilink(inner)
        else:  # the usual [[name]]: what split_wikilink gives, without the call
            target, heading, block, alias = inner.strip(), None, None, None
        # [[|alias]] and [[|]] are links (to nothing), as Obsidian records them
        if target or heading or block or "|" in inner:
            start, end = m.span()
            if start and masked[start - 1] == "\\":
                continue  # \[[x]]: escaped, text
            embed = start > 0 and masked[start - 1] == "!"
            if embed:
                start -= 1
            line += count("\n", pos, start)
            pos = start
            found.append((target, alias, heading, block, embed, False, start, end, line))
    if has_markdown:
        wiki_spans = [(f[6], f[7]) for f in found]
        markdown: list = []
        for m in MDLINK_RE.finditer(masked):
            if any(s <= m.start() < e for s, e in wiki_spans):
                continue
            parts = split_markdown_target(m.group(3))
            if parts is None:
                continue
            path, heading, block = parts
            if path or heading or block:
                alias = m.group(2).strip() or None
                markdown.append((path, alias, heading, block, m.group(1) == "!", True, m.start(),
                                 m.end()))  # fmt: skip
        if markdown:  # interleave, then number the lines again in order of appearance
            merged = sorted([f[:8] for f in found] + markdown, key=lambda f: f[6])
            found = []
            line, pos = first_line, 0
            for f in merged:
                line += count("\n", pos, f[6])
                pos = f[6]
                found.append((*f, line))
    return found


class _LastBefore:
    """Where ``needle`` last occurs in a text, ending at or before a position, for
    positions asked in increasing order.

    Each question searches back only to the previous one, so all of them together read
    the text once: a search back to the line start per ``#tag`` is quadratic on one long
    line of tags."""

    __slots__ = ("_back", "_last", "_needle", "_pos", "_rfind")

    def __init__(self, text: str, needle: str) -> None:
        self._rfind = text.rfind
        self._needle = needle
        self._back = len(needle) - 1  # an occurrence ending past the last position asked
        self._pos = 0
        self._last = -1

    def at(self, pos: int) -> int:
        found = self._rfind(self._needle, max(0, self._pos - self._back), pos)
        self._pos = pos
        if found >= 0:
            self._last = found
        return self._last


# How far into its line a tag is still checked by searching back to the line start.
_NEAR = 512


def iter_tags(masked: str) -> Iterator[str]:
    """``#tags`` in already-masked body text, without the ``#``; links and URLs excluded.

    A ``#word`` is a tag unless it is inside a word, after a ``[[`` or ``](`` its line has
    not closed yet, or in a token (since the last blank) holding ``://``."""
    # What _TAG_SCAN_RE.finditer finds, tried only at each '#' found by str.find (memchr):
    # the regex engine steps through the note a character at a time to find them.
    find, rfind, match = masked.find, masked.rfind, _TAG_SCAN_RE.match
    pos = find("#")
    line_from = line_start = 0  # where the last search for a newline began; what it found
    far: tuple[_LastBefore, ...] | None = None
    while pos >= 0:
        m = match(masked, pos)
        if m is None:
            pos = find("#", pos + 1)
            continue
        start, pos = m.start(), find("#", m.end())
        if start and (masked[start - 1].isalnum() or masked[start - 1] in "_/&#[]\\"):
            continue  # inside a word, or escaped (\#word)
        newline = rfind("\n", line_from, start)  # back to the previous tag only
        line_from = start
        if newline >= 0:
            line_start = newline + 1
        if start - line_start <= _NEAR:  # the usual tag: a short search back
            opened = rfind("[[", line_start, start)
            if opened >= 0 and find("]]", opened, start) < 0:
                continue  # inside [[…
            opened = rfind("](", line_start, start)
            if opened >= 0 and find(")", opened, start) < 0:
                continue  # inside ](…
            if "://" in masked[rfind(" ", line_start, start) + 1 or line_start : start]:
                continue  # part of a URL
        else:  # far into a long line: searching back to its start per tag is quadratic
            if far is None:
                far = tuple(_LastBefore(masked, s) for s in ("[[", "]]", "](", ")", " ", "://"))
            wiki_open, wiki_close, md_open, md_close, blank, url = far
            opened = wiki_open.at(start)
            if opened >= line_start and wiki_close.at(start) < opened:
                continue
            opened = md_open.at(start)
            if opened >= line_start and md_close.at(start) < opened:
                continue
            if url.at(start) >= max(line_start, blank.at(start) + 1):
                continue
        tag = m.group(1).strip("/")
        if tag:
            yield tag


# -- headings and blocks a link's fragment names ---------------------------------------------
# What Obsidian keeps of a heading when it matches a link's "#Heading": letters, digits,
# "_" and "-"; every other run of characters (punctuation, the #|^:%[] a link cannot hold,
# blanks) is one space. Compared case-insensitively.
_HEADING_NOISE_RE = re.compile(r"[^\w\-]+")


def heading_key(heading: str) -> str:
    """The form under which a heading and a link's ``#Heading`` are compared:
    ``What is the Obsidian Hub?`` and ``what is the obsidian hub`` have one key."""
    key = " ".join(_HEADING_NOISE_RE.sub(" ", heading).split()).casefold()
    return key or " ".join(heading.split()).casefold()  # all symbols (emoji): as written


def match_heading(headings: list[str], wanted: str) -> int | None:
    """The index in ``headings`` of the one ``wanted`` names, as Obsidian finds it: the
    first whose :func:`heading_key` is the same. ``A#B`` (a heading under a heading) names
    its last part."""
    want = heading_key(wanted.rsplit("#", 1)[-1])
    if not want:
        return None
    for i, heading in enumerate(headings):
        if heading_key(heading) == want:
            return i
    return None


# A block id ends its line: " ^id" (letters, digits, dashes), or "^id" alone on a line.
_BLOCK_ID_RE = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9\-_]+)[ \t]*$", re.M)


def block_ids(masked: str) -> set[str]:
    """The block ids (``^id``) of already-masked text, lower-cased (Obsidian matches them
    case-insensitively)."""
    if "^" not in masked:
        return set()
    return {m.group(1).lower() for m in _BLOCK_ID_RE.finditer(masked)}
