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
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from anthology.vault.masking import comment_spans, mask_code

__all__ = ["comment_spans", "mask_code"]  # (and the rest: what code or comment is, is masking's)

WIKILINK_RE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
# The same, starting on the literal "[[": 15× faster to scan (the "!" is checked by hand).
_WIKILINK_SCAN_RE = re.compile(r"\[\[([^\[\]\n]+)\]\]")
# [text](target "title") — the target may be <wrapped in angle brackets>.
MDLINK_RE = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*(<[^>\n]+>|[^()\s]+(?:\([^()\s]*\)[^()\s]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")
# A scheme is short: unbounded, each word start of "a.a.a…" ran to the end of the run
# looking for "://" (80 KB: 2.2 s, quadratic)
URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]{0,31}://[^\s<>()\]]+")
# A #tag: letters, digits, _ - / ; not all digits; not preceded by a word char, '/', '&' or
# another '#', so headings ("# Title"), URLs' fragments and HTML entities (&#123;) are not tags.
TAG_RE = re.compile(r"(?<![\w/&#\[\]\\])#((?:[^\W\d]|[_\-/])[\w\-/]*|\d+[^\W\d][\w\-/]*)", re.U)
_TAG_SCAN_RE = re.compile(r"#((?:[^\W\d]|[_\-/])[\w\-/]*|\d+[^\W\d][\w\-/]*)", re.U)

# Obsidian's "Accepted file formats" besides Markdown: only these make a link an attachment
# by its name alone. Any other dot is part of a note's name (``[[file.name]]`` is
# ``file.name.md``); a file of another kind is still found if the vault holds it (see
# resolve.Resolver). A ``.canvas`` is not among them: it is an entry of the index (see
# vault/canvas), which ``[[Board.canvas]]`` names as it names a note.
ATTACHMENT_EXTENSIONS = frozenset(
    ["avif", "bmp", "gif", "jpeg", "jpg", "png", "svg", "webp",  # images
     "flac", "m4a", "mp3", "ogg", "wav", "webm", "3gp",  # audio
     "mkv", "mov", "mp4", "ogv",  # video
     "pdf", "base"]
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
            before = masked[start - 1] if start else ""
            if before == "\\":
                continue  # \[[x]]: escaped, text
            embed = before == "!"
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
# A block id ending a line (or alone on one): Latin letters, digits and dashes, as
# Obsidian's "Link to blocks" allows. The index, check and the renderer read this one rule.
BLOCK_ID_RE = re.compile(r"(?:^[ \t]*|(?<=[ \t]))\^([A-Za-z0-9-]+)[ \t]*$", re.M)


def block_ids(masked: str) -> set[str]:
    """The block ids (``^id``) of already-masked text, lower-cased (Obsidian matches them
    case-insensitively)."""
    if "^" not in masked:
        return set()
    return {m.group(1).lower() for m in BLOCK_ID_RE.finditer(masked)}
