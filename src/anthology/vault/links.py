"""The link grammar of an Obsidian-flavoured vault, shared by the indexer and the renderer.

One place knows what a link looks like, so the graph the index builds and the anchors the
entry pane draws always agree. Supported forms::

    [[target]]  [[target|alias]]  [[target#Heading]]  [[target#^block-id]]  ![[embed]]
    [[target\\|alias]]            (escaped pipe, as Obsidian writes it inside tables)
    [text](relative/path.md)     (URL-encoded; <angle brackets> allowed; #fragment allowed)

Links inside fenced code, inline code, HTML comments and ``%%Obsidian comments%%`` do not
count: :func:`mask_code` blanks those spans out (keeping offsets and line numbers) before
any link or tag is looked for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

WIKILINK_RE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
# [text](target "title") — the target may be <wrapped in angle brackets>.
MDLINK_RE = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*(<[^>\n]+>|[^()\s]+(?:\([^()\s]*\)[^()\s]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE_RE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_OBSIDIAN_COMMENT_RE = re.compile(r"%%.*?(?:%%|\Z)", re.S)
URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s<>()\]]+")
# A #tag: letters, digits, _ - / ; not all digits; not preceded by a word char, '/', '&' or
# another '#', so headings ("# Title"), URLs' fragments and HTML entities (&#123;) are not tags.
TAG_RE = re.compile(r"(?<![\w/&#\[\]])#((?:[^\W\d]|[_\-/])[\w\-/]*|\d+[^\W\d][\w\-/]*)", re.U)

ATTACHMENT_EXTENSIONS = frozenset(
    "png jpg jpeg gif webp svg bmp avif pdf mp3 mp4 webm ogg wav m4a mov csv canvas".split()
)


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
    name = target.rsplit("/", 1)[-1]
    if "." not in name:
        return False
    ext = name.rsplit(".", 1)[-1].lower()
    return ext != "md" and (ext in ATTACHMENT_EXTENSIONS or len(ext) <= 5 and ext.isalnum())


def split_wikilink(inner: str) -> tuple[str, str | None, str | None, str | None]:
    """Split the inside of ``[[…]]`` into (target, heading, block, alias).

    The alias follows the first ``|`` (or ``\\|``, the escaped pipe used inside tables).
    """
    alias: str | None = None
    m = re.search(r"\\?\|", inner)
    if m:
        alias = inner[m.end() :].strip() or None
        inner = inner[: m.start()]
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


def mask_code(text: str) -> str:
    """Blank fenced code, inline code and comments, keeping every offset and newline."""
    if "`" not in text and "~~~" not in text and "<!--" not in text and "%%" not in text:
        return text
    chars = list(text)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "

    # Fenced blocks, line by line: a fence closes on a fence of the same char, at least as long.
    pos = 0
    fence: str | None = None
    fence_start = 0
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip(" >")  # fences inside block quotes (callouts) count too
        m = _FENCE_RE.match(stripped)
        if fence is None:
            if m:
                fence, fence_start = m.group(1), pos
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
            blank(fence_start, pos + len(line))
            fence = None
        pos += len(line)
    if fence is not None:  # an unclosed fence runs to the end, as CommonMark says
        blank(fence_start, len(text))
    masked = "".join(chars)
    for rx in (_HTML_COMMENT_RE, _OBSIDIAN_COMMENT_RE, _INLINE_CODE_RE):
        for m in rx.finditer(masked):
            blank(m.start(), m.end())
        masked = "".join(chars)
    return masked


def _line_index(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def line_of(starts: list[int], offset: int) -> int:
    """1-based line number of ``offset`` given the line start offsets."""
    lo, hi = 0, len(starts)
    while lo < hi:
        mid = (lo + hi) // 2
        if starts[mid] <= offset:
            lo = mid + 1
        else:
            hi = mid
    return lo


def iter_links(text: str, *, masked: str | None = None, first_line: int = 1) -> Iterator[Link]:
    """Every wikilink and relative Markdown link in ``text``, in order of appearance.

    ``masked`` may pass a :func:`mask_code` result already computed; ``first_line`` is the
    line number of the text's first line in its file (after front matter, say).
    """
    if masked is None:
        masked = mask_code(text)
    if "[" not in masked:
        return
    starts = _line_index(text)
    found: list[Link] = []
    for m in WIKILINK_RE.finditer(masked):
        target, heading, block, alias = split_wikilink(text[m.start(2) : m.end(2)])
        if not target and not heading and not block:
            continue
        line = line_of(starts, m.start()) + first_line - 1
        found.append(
            Link(target, alias, heading, block, m.group(1) == "!", False, m.start(), m.end(), line)
        )
    if "](" in masked:
        wiki_spans = [(lk.start, lk.end) for lk in found]
        for m in MDLINK_RE.finditer(masked):
            if any(s <= m.start() < e for s, e in wiki_spans):
                continue
            parts = split_markdown_target(text[m.start(3) : m.end(3)])
            if parts is None:
                continue
            path, heading, block = parts
            if not path and not heading and not block:
                continue
            line = line_of(starts, m.start()) + first_line - 1
            alias = text[m.start(2) : m.end(2)].strip() or None
            found.append(
                Link(path, alias, heading, block, m.group(1) == "!", True, m.start(), m.end(), line)
            )
        found.sort(key=lambda lk: lk.start)
    yield from found


def iter_tags(masked: str) -> Iterator[str]:
    """``#tags`` in already-masked body text, without the ``#``; links and URLs excluded."""
    if "#" not in masked:
        return
    text = URL_RE.sub(lambda m: " " * len(m.group()), masked)
    text = WIKILINK_RE.sub(lambda m: " " * len(m.group()), text)
    text = MDLINK_RE.sub(lambda m: " " * len(m.group()), text)
    for m in TAG_RE.finditer(text):
        tag = m.group(1).strip("/")
        if tag:
            yield tag
