"""Parse one Markdown entry: properties, title, aliases, tags, headings, links, reading time.

Index time never renders HTML (rendering is ~20× slower than extracting links); this module
only looks for structure. It never raises on bad content: what is wrong becomes a
:class:`ParseProblem` and the entry is kept with what could be read.
"""

from __future__ import annotations

import functools
import math
import posixpath
import re
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from anthology.vault.excalidraw_md import index_text, is_drawing_note
from anthology.vault.frontmatter import FrontMatterError, load_properties, split_front_matter
from anthology.vault.links import find_links, iter_tags, mask_code
from anthology.vault.model import ParseProblem as ParseProblem  # its importers' name
from anthology.vault.note_fields import note_fields
from anthology.vault.resolve import path_id, target_key
from anthology.vault.rows import ParsedLink

WORDS_PER_MINUTE = 200
CONTEXT_CHARS = 240
# An ATX heading: up to six '#', blanks, then the rest of the line. The closing '#'s and
# blanks are cut off by hand (see _headings): a lazy ``(.+?)[ \t#]*$`` retries the tail at
# every character, quadratic in a long run of blanks.
_HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.+)$", re.M)
# the first level-1 heading line, empty ones too ("# " or "#" alone: a template's blank title)
_H1_LINE_RE = re.compile(r"^#(?:[ \t]+([^\n]*))?$", re.M)
_TAG_KEYS = ("tags", "tag")
_ALIAS_KEYS = ("aliases", "alias")


class ParsedEntry(NamedTuple):
    """One entry as the parser reads it: what the index stores of it, and what the pane
    shows of a file read before the index exists (see :mod:`anthology.vault.first_look`)."""

    id: str  # the ``id`` property, else the path id (the index makes it unique)
    title: str
    properties: dict[str, Any]  # front matter as written
    aliases: list[str]
    tags: list[str]  # front matter's, then the body's, each once (case-insensitively)
    headings: list[tuple[int, str]]
    # Front-matter relations first, then body links in order. For the index (``for_index``)
    # a body link has no context (the index cuts it from the body) and a front-matter link
    # no offsets.
    links: list[ParsedLink]
    body: str
    body_line: int  # the file line on which ``body`` starts (1-based)
    words: int
    problems: list[ParseProblem]
    # Dataview's inline fields of the page (key as written → raw value texts, in order) and
    # its list items (see anthology.vault.note_fields): what the index keeps for queries
    fields: dict[str, list[str]] = {}  # noqa: RUF012 (never mutated: a new dict per parse)
    items: list[list[Any]] = []  # noqa: RUF012

    @property
    def kind(self) -> str:
        return _scalar(self.properties.get("kind"))

    @property
    def status(self) -> str:
        return _scalar(self.properties.get("status"))

    @property
    def reading_minutes(self) -> int:
        return reading_minutes(self.words)


# str.split()'s whitespace among ASCII characters → 0, anything else → 1.
_WORD_BITS = bytes(0 if c in b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f" else 1 for c in range(256))


def count_words(text: str) -> int:
    """``len(text.split())``: whitespace-separated words (6× cheaper than a regex, close
    enough), counted without making a string per word when the text is ASCII."""
    if text.isascii():
        # One bit per character, character i at bit 8*i of a big int: a word starts at
        # each 1 whose previous character is 0. Two big-int operations count them all,
        # 1.6× faster than bytes.count(b"x ") (a two-byte search) on a note.
        bits = int.from_bytes(text.encode("ascii").translate(_WORD_BITS), "little")
        return (bits & ~(bits << 8)).bit_count()
    return len(text.split())


def reading_minutes(words: int) -> int:
    """ "N min read" at 200 words a minute, never less than one."""
    return max(1, math.ceil(words / WORDS_PER_MINUTE))


@functools.lru_cache(maxsize=4096)  # a vault uses a handful of keys, thousands of times
def relation_name(key: str) -> str:
    """``compared_against`` → ``compared against``: a front-matter key read as a relation."""
    return re.sub(r"[_\-\s]+", " ", key).strip().lower()


def _scalar(value: Any) -> str:
    if value is None or isinstance(value, dict | list):
        return ""
    return str(value).strip()


def _string_list(value: Any) -> list[str]:
    """A property that may be a list, a string, or comma/space-separated (tags)."""
    if value is None:
        return []
    if isinstance(value, list):
        out: list[str] = []
        for item in value:
            out.extend(_comma_list(item) if isinstance(item, str) else _string_list(item))
        return out
    if isinstance(value, dict):
        return []
    return _comma_list(str(value))


def _comma_list(text: str) -> list[str]:
    """The non-blank, stripped parts of a comma-separated string."""
    if "," not in text:  # the usual single tag or alias
        text = text.strip()
        return [text] if text else []
    return [s for s in (p.strip() for p in text.split(",")) if s]


def _normalise_tag(tag: str) -> str:
    return tag.strip().lstrip("#").strip("/")


def link_context(text: str, start: int, end: int) -> str:
    """The line holding ``text[start:end]``, trimmed around the link to a readable length."""
    return link_contexts(text, [(start, end)])[0]


def link_contexts(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """:func:`link_context` of each ``(start, end)`` in ``text``, in linear time overall.

    A 1 MB line with 50,000 links is quadratic if every link searches back to its line's
    start and on to its end, and copies the whole line: so the spans are walked in order of
    start, each search for a newline starts where the last one stopped (the line's bounds
    are kept while the links stay on it), and only the part shown is copied."""
    out = [""] * len(spans)
    find, rfind, size = text.find, text.rfind, len(text)
    half = CONTEXT_CHARS // 2
    line_start = 0  # the start of the line holding ``pos``
    pos = 0  # every newline before ``pos`` is known: the last one ends before line_start
    end_from, line_end = -1, -1  # no newline in text[end_from:line_end]; line_end: one, or size
    for i in sorted(range(len(spans)), key=lambda i: spans[i][0]):
        start, end = spans[i]
        if start > pos:
            nl = rfind("\n", pos, start)
            if nl >= 0:
                line_start = nl + 1
            pos = start
        elif start < pos:  # two spans at one start are sorted together; never earlier
            line_start = rfind("\n", 0, start) + 1
            pos = start
        if not (end_from <= end <= line_end):
            line_end = find("\n", end)
            if line_end < 0:
                line_end = size
            end_from = end
        length = line_end - line_start
        if length > CONTEXT_CHARS:
            rel = start - line_start
            lo = max(0, rel - half)
            hi = min(length, lo + CONTEXT_CHARS)
            shown = _tidy_window(text[line_start + lo : line_start + hi], lo > 0, hi < length,
                                 rel - lo, min(end - line_start, hi) - lo)  # fmt: skip
            line = ("…" if lo else "") + shown + ("…" if hi < length else "")
        else:
            line = text[line_start:line_end]
        out[i] = line.strip()
    return out


# In a window cut out of a line: a "$" that closes a formula begun before the left edge (no
# blank before it, no digit or word after it), and one that opens a formula ending after the
# right edge (no blank after it).
_CLOSING_DOLLAR_RE = re.compile(r"(?<![\s\\$])\$(?![\w$])")
_OPENING_DOLLAR_RE = re.compile(r"(?<![\\$\w])\$(?![\s$])")
_EDGE_WORD = 40  # how far an edge moves to a blank rather than cut a word


def _tidy_window(shown: str, cut_left: bool, cut_right: bool, link: int, link_end: int) -> str:
    """A window cut out of a long line, its edges moved to blanks (a context read
    "…rt d$ (central limit theorem)": half a word and the end of a formula) and off
    the part of a formula the cut left (the context is rendered as Markdown: a lone "$"
    would pair with the next one); never past the link, at ``link``:``link_end`` in it.
    Bounded by the window: linear in the line overall."""
    lo, hi = 0, len(shown)
    if cut_left:
        space = shown.find(" ", 0, min(_EDGE_WORD, link))
        if space >= 0:
            lo = space + 1
        first = shown.find("$", lo, link)
        if first >= 0 and _CLOSING_DOLLAR_RE.match(shown, first):
            space = shown.find(" ", first, link)
            lo = space + 1 if space >= 0 else first + 1
    if cut_right:
        space = shown.rfind(" ", max(link_end, len(shown) - _EDGE_WORD))
        if space > 0:
            hi = space
        last = shown.rfind("$", max(lo, link_end), hi)
        if last >= 0 and shown.count("$", lo, hi) % 2 and _OPENING_DOLLAR_RE.match(shown, last):
            hi = last
    return shown[lo:hi].rstrip() if hi < len(shown) else shown[lo:hi]


def _body_link_rows(
    body: str, masked: str, first_line: int, contexts: bool = True
) -> list[ParsedLink]:
    """The body's links, with their offsets in the body and, with ``contexts``, each with
    its :func:`link_context` (else None: the index cuts it from the body it stores when a
    link is shown, rather than store it twice)."""
    names = _target_names
    # Made with tuple.__new__, a ParsedLink skips NamedTuple.__new__'s keyword handling: 2× faster.
    new = tuple.__new__
    found = find_links(body, masked=masked, first_line=first_line)
    if not contexts:  # the index's rows: the usual case, kept to one pass
        return [
            new(ParsedLink, (t, names.get(t) or target_name(t), None, 1 if e else 0,
                             1 if md else 0, line, None, a, h, b, start, end))
            for t, a, h, b, e, md, start, end, line in found
        ]  # fmt: skip
    cut = link_contexts(body, [(f[6], f[7]) for f in found])
    return [
        new(ParsedLink, (t, names.get(t) or target_name(t), None, 1 if e else 0, 1 if md else 0,
                         line, context, a, h, b, start, end))
        for (t, a, h, b, e, md, start, end, line), context in zip(found, cut, strict=True)
    ]  # fmt: skip


_target_names: dict[str, str] = {}


def target_name(text: str) -> str:
    """``links.target_name`` of a link's target text: the last segment of its key (what a
    rename touches). Memoised: hubs are linked thousands of times."""
    name = _target_names.get(text)
    if name is None:
        if len(_target_names) > 100_000:
            _target_names.clear()
        name = _target_names[text] = posixpath.basename(target_key(text))
    return name


def _headings(masked: str) -> list[tuple[int, str]]:
    """The ATX headings ``(level, text)``, looked for only where a line starts with '#'.

    The text is what ``^(#{1,6})[ \t]+(.+?)[ \t#]*$`` would capture, stripped: the line
    without its trailing blanks and '#'s (but one character at least), found in linear time.

    Candidates are found with one-character finds (memchr); a find for "\\n#" is a slow
    two-character search through the whole note."""
    out: list[tuple[int, str]] = []
    match = _HEADING_RE.match
    find = masked.find
    at = find("#")
    while at >= 0:
        if at == 0 or masked[at - 1] == "\n":
            m = match(masked, at)
            if m is not None:
                rest = m.group(2)
                text = (rest.rstrip(" \t#") or rest[:1]).strip()
                if text:
                    out.append((len(m.group(1)), text))
            at = find("\n", at)  # on to the next line: its other '#'s start no heading
            if at < 0:
                break
        at = find("#", at + 1)
    return out


def _relation_links(
    properties: dict[str, Any], yaml_text: str, for_index: bool
) -> list[ParsedLink]:
    """``[[links]]`` inside front-matter values: typed relations named after their key; the
    context of each is the key and the value, its offsets those in the value (none for the
    index)."""
    found: list[ParsedLink] = []
    new = tuple.__new__  # see _body_link_rows
    key_lines: dict[str, int] | None = None
    for key, value in properties.items():
        if isinstance(value, str):  # the usual property: no list to build
            if "[[" not in value:
                continue
            strings = [value]
        else:
            strings = [s for s in _walk_strings(value) if "[[" in s]
            if not strings:
                continue
        if key_lines is None:
            key_lines = {}
            for i, raw in enumerate(yaml_text.splitlines()):
                m = _KEY_RE.match(raw)
                if m and m.group(1) not in key_lines:
                    key_lines[m.group(1)] = i + 2  # '---' is line 1
        line = key_lines.get(key, 1)
        relation = relation_name(key)
        for s in strings:
            context = f"{key}: {s}"[:CONTEXT_CHARS]
            for target, alias, heading, block, embed, md, start, end, _ in find_links(s, masked=s):
                found.append(
                    new(ParsedLink, (target, _target_names.get(target) or target_name(target),
                                     relation, 1 if embed else 0, 1 if md else 0, line, context,
                                     alias, heading, block, None if for_index else start,
                                     None if for_index else end))
                )  # fmt: skip
    return found


_KEY_RE = re.compile(r"""^["']?([^"':#\s][^"':]*?)["']?\s*:""")


def _walk_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):  # a flat list: no call per item
            return value
        return [s for v in value for s in _walk_strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _walk_strings(v)]
    return []


def parse_entry(text: str, path: str, *, for_index: bool = False) -> ParsedEntry:
    """Parse the text of the entry at vault-relative ``path``.

    ``for_index``: links as the index stores them: a body link's context is None (the index
    cuts it from the body, see :func:`link_context`) and a front-matter link has no offsets.
    """
    problems: list[ParseProblem] = []
    split = split_front_matter(text)
    properties: dict[str, Any] = {}
    relation_links: list[ParsedLink] = []
    if split.yaml_text is not None:
        try:
            properties = load_properties(split.yaml_text)
        except FrontMatterError as exc:
            problems.append(ParseProblem("front-matter", str(exc), exc.line))
        else:
            relation_links = _relation_links(properties, split.yaml_text, for_index)
    body = split.body
    masked = mask_code(body)
    headings_of = masked
    if is_drawing_note(path, properties):
        # an Excalidraw drawing: its text elements are its words and their [[links]] its
        # links, though the plugin keeps them in a %% comment; its compressed JSON is
        # no text (see vault.excalidraw_md)
        body, data = index_text(body)
        if data is not None:
            headings_of = mask_code(body[:data])
            masked = headings_of + mask_code(body[data:].replace("%%", "  "))
        else:
            headings_of = masked = mask_code(body)

    headings = _headings(headings_of)
    entry_id = _scalar(properties.get("id")) or path_id(path)
    title = _scalar(properties.get("title"))
    if not title:
        # The first level-1 heading names the entry, unless it is empty: then the file's
        # name does, as Obsidian's inline title (a later heading is no title: six notes of
        # a real vault were all titled by their closing "# This note in GitHub").
        m = _H1_LINE_RE.search(masked)
        rest = (m.group(1) or "") if m else ""
        first_h1 = (rest.rstrip(" \t#") or rest[:1]).strip()
        title = first_h1 or PurePosixPath(path).stem

    aliases = []
    for key in _ALIAS_KEYS:
        aliases.extend(_string_list(properties.get(key)))
    tags: list[str] = []
    seen: set[str] = set()
    front_tags = [
        t for key in _TAG_KEYS for s in _string_list(properties.get(key)) for t in s.split()
    ]
    for tag in (*front_tags, *iter_tags(masked)):
        norm = _normalise_tag(tag)
        if norm:
            folded = norm.lower()
            if folded not in seen:
                seen.add(folded)
                tags.append(norm)

    links = relation_links + _body_link_rows(body, masked, split.body_line, not for_index)
    words = count_words(masked)
    dataview = note_fields(body, masked, split.body_line - 1)
    problems += [ParseProblem("dataview", note, None, "warning") for note in dataview.notes]
    return ParsedEntry(entry_id, title, properties, list(dict.fromkeys(aliases)), tags,
                       headings, links, body, split.body_line, words, problems,
                       dataview.fields, dataview.items)  # fmt: skip
