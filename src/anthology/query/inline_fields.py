"""Dataview's inline fields in one line of text, as Dataview reads them.

Written from Dataview's ``src/data-import/inline-field.ts`` (MIT) and its docs
(``docs/annotation/add-metadata.md``, ``metadata-tasks.md``):

- ``[key:: value]`` and ``(key:: value)`` anywhere in a line, several on one line: the key
  runs from the bracket to the first ``::`` and holds no bracket; the value runs to the
  bracket closing it, nested brackets and ``\\``-escapes respected; a field overlapping or
  touching the one before it is dropped (Dataview's ``end < start``);
- ``Key:: value`` filling a line with no bracketed field: the key stripped of leading
  punctuation (``**``, ``> ``, ``- ``) and trailing ``_*~``` (``**Bold Field**::`` →
  ``Bold Field``), made of letters, digits, ``_``, ``/``, ``-``, blanks and emoji only;
- on tasks, the Tasks plugin's emoji dates (``📅 2024-05-01`` → ``due``).

Here, not in :mod:`anthology.vault`, because both sides read it: the index finds a
note's fields with it, and a Dataview query reads a task's fields from the task's text.
Imports nothing of the project. Linear in the line (Dataview's own loop is quadratic in a
line of ``[[[[``: each bracket searches to the end); a line longer than :data:`MAX_LINE`
holds no field (Dataview's own bail-out).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from typing import NamedTuple

MAX_LINE = 32_768  # Dataview skips longer lines ("fast bail-out for lines that are too long")


class InlineField(NamedTuple):
    key: str  # as written (a full-line key without its formatting)
    value: str  # raw text, stripped; Dataview types it when a query reads it
    start: int  # offsets in the line: the field's first character,
    value_start: int  # its value's,
    end: int  # and the one after it
    wrapping: str  # "[", "(", "" (a full-line field) or "emoji" (a task's shorthand)


_SEP_RE = re.compile(r"(?=::)")  # every "::", overlapping ones too (":::" holds two)
_BRACKET_RE = re.compile(r"[\[\]()]")
_CLOSERS = {"[": "]", "(": ")"}
_EVENT_RES = {"[": re.compile(r"\\+|[\[\]]"), "(": re.compile(r"\\+|[()]")}

# The Tasks plugin's dates, in Dataview's order (its EMOJI_REGEXES).
_DATE = r"\s*(\d{4}-\d{2}-\d{2})"
SHORTHANDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("created", re.compile("\u2795" + _DATE)),
    ("start", re.compile("\U0001f6eb" + _DATE)),
    ("scheduled", re.compile("[\u23f3\u231b]" + _DATE)),
    ("due", re.compile("(?:\U0001f4c5|\U0001f4c6|\U0001f5d3\ufe0f?)" + _DATE)),
    ("completion", re.compile("\u2705" + _DATE)),
)
# the first characters of the shorthands: a line without any holds none
_SHORTHAND_FIRST = "[\u2795\U0001f6eb\u23f3\u231b\U0001f4c5\U0001f4c6\U0001f5d3\u2705]"
SHORTHAND_CHARS_RE = re.compile(_SHORTHAND_FIRST)


def extract_inline_fields(
    line: str, *, task_fields: bool = False, source: str | None = None
) -> list[InlineField]:
    """The bracketed fields of ``line`` (and, with ``task_fields``, its emoji dates), in
    order, as Dataview's ``extractInlineFields``. ``source``: the line as written, when
    ``line`` is a copy with code blanked out (same length): fields are found in ``line``,
    their keys and values cut from ``source``."""
    src = line if source is None else source
    if len(line) > MAX_LINE:
        return []
    found: list[InlineField] = []
    if "::" in line and ("[" in line or "(" in line):
        seps = [m.start() for m in _SEP_RE.finditer(line)]
        brackets = [m.start() for m in _BRACKET_RE.finditer(line)]
        for opener in ("[", "("):
            found += _wrapped(line, src, opener, seps, brackets)
    if task_fields and not line.isascii() and SHORTHAND_CHARS_RE.search(line):
        for key, regex in SHORTHANDS:
            m = regex.search(line)
            if m is not None:
                found.append(InlineField(key, src[m.start(1) : m.end(1)], m.start(),
                                         m.start() + 1, m.end(), "emoji"))  # fmt: skip
    if len(found) < 2:
        return found
    found.sort(key=lambda f: f.start)
    kept = [found[0]]
    for f in found[1:]:
        if kept[-1].end < f.start:  # Dataview's test: a field touching the last is dropped
            kept.append(f)
    return kept


def _wrapped(
    line: str, src: str, opener: str, seps: list[int], brackets: list[int]
) -> list[InlineField]:
    """Dataview's scan for ``opener`` fields, in linear time.

    A bracket is a candidate when the first ``::`` after it comes before any other bracket
    (a key holds none); each candidate's value then ends where the bracket depth, counted
    from its value's start, first falls below zero: found for all candidates in one pass
    (a stack of the starts waiting, by depth), where Dataview scans on from each."""
    candidates: list[tuple[int, int]] = []  # (bracket, its "::")
    n_seps, n_brackets = len(seps), len(brackets)
    for i in (b for b in brackets if line[b] == opener):
        k = bisect_left(seps, i + 1)
        if k == n_seps:
            break  # no "::" after this bracket, nor after any later one
        sep = seps[k]
        nxt = bisect_right(brackets, i)
        if nxt < n_brackets and brackets[nxt] < sep:
            continue  # the key would hold a bracket
        candidates.append((i, sep))
    if not candidates:
        return []
    if len(candidates) <= _FEW and "\\" not in line:
        closes = _closes_simply(line, opener, candidates)
    else:
        closes = _closes(line, opener, candidates)
    out: list[InlineField] = []
    resume = -1
    for (i, sep), close in zip(candidates, closes, strict=True):
        if i < resume or close < 0:
            continue
        out.append(InlineField(src[i + 1 : sep].strip(), src[sep + 2 : close].strip(), i,
                               sep + 2, close + 1, opener))  # fmt: skip
        resume = close + 1
    return out


_FEW = 8  # candidates a line may have for each to search on for its closing bracket


def _closes_simply(line: str, opener: str, candidates: list[tuple[int, int]]) -> list[int]:
    """Where each candidate's value ends, for the usual line (a few fields, no escapes):
    the next closing bracket, if no opening one comes before it; else the depth pass."""
    closer = _CLOSERS[opener]
    out = []
    for _i, sep in candidates:
        close = line.find(closer, sep + 2)
        if close >= 0 and line.find(opener, sep + 2, close) >= 0:
            return _closes(line, opener, candidates)  # a nested bracket: count depths
        out.append(close)
    return out


def _closes(line: str, opener: str, candidates: list[tuple[int, int]]) -> list[int]:
    """Where each candidate's value ends (-1: never), all in one pass over the line."""
    closes = [-1] * len(candidates)
    starts = [sep + 2 for _i, sep in candidates]
    depth, waiting, q, escaped_at = 0, [], 0, -1
    waiting_depth: list[int] = []
    for m in _EVENT_RES[opener].finditer(line):
        at = m.start()
        while q < len(starts) and starts[q] <= at:
            waiting.append(q)
            waiting_depth.append(depth)
            q += 1
        token = m.group()
        if token[0] == "\\":
            if len(token) % 2:
                escaped_at = m.end()  # the character after an odd run is escaped
            continue
        if at == escaped_at:
            continue
        if token == opener:
            depth += 1
        else:
            while waiting_depth and waiting_depth[-1] == depth:
                closes[waiting.pop()] = at
                waiting_depth.pop()
            depth -= 1
    return closes


def full_line_field(line: str, source: str | None = None) -> InlineField | None:
    """``Key:: value`` filling ``line`` (stripped by the caller), as Dataview's
    ``extractFullLineField``: None when the key is not one (see the module's docstring)."""
    src = line if source is None else source
    if len(line) > MAX_LINE:
        return None
    sep = line.find("::")
    if sep < 0:
        return None
    key = _full_line_key(src[:sep].strip())
    if key is None:
        return None
    return InlineField(key, src[sep + 2 :].strip(), 0, sep + 2, len(line), "")


def _is_word(c: str) -> bool:  # JavaScript's [0-9\w\p{Letter}] (\w is ASCII there)
    return c.isalpha() or (c.isascii() and (c.isalnum() or c == "_"))


def _is_emoji(c: str) -> bool:
    """A character of an emoji sequence (what Dataview's emoji-regex matches, nearly):
    pictographs and symbols, joiners, variation selectors, skin tones, keycaps."""
    return (
        c in "\u200d\ufe0f\u20e3"
        or unicodedata.category(c) == "So"
        or ("\U0001f3fb" <= c <= "\U0001f3ff")
    )


def _is_key_char(c: str) -> bool:  # [0-9\p{Letter}\w\s_/-] or an emoji
    return _is_word(c) or c.isspace() or c in "/-" or _is_emoji(c)


# _full_line_key for an ASCII key, where no character is a letter beyond A-Z or an emoji
# (possessive: the parser Dataview uses never backtracks)
_ASCII_KEY_RE = re.compile(r"[^0-9A-Za-z_]*+([0-9A-Za-z_\s/-]*+)[_*~`]*+")


def _full_line_key(raw: str) -> str | None:
    """Dataview's FULL_LINE_KEY_PARSER: leading non-word characters dropped, then the key,
    then only ``_*~``` to the end; None when something else follows."""
    if raw.isascii():
        m = _ASCII_KEY_RE.fullmatch(raw)
        return None if m is None else m.group(1)
    i, n = 0, len(raw)
    while i < n and not _is_word(raw[i]):
        i += 1  # (an emoji first is eaten here: Dataview wants "[🎅:: …]" for that)
    start = i
    while i < n and _is_key_char(raw[i]):
        i += 1
    key = raw[start:i]
    while i < n and raw[i] in "_*~`":
        i += 1
    return key if i == n else None


def canonical_key(key: str) -> str:
    """Dataview's sanitized key: lower case, a run of blanks one ``-``, other punctuation
    dropped, emoji kept (``Basic Field`` → ``basic-field``; canonicalizeVarName)."""
    out: list[str] = []
    blank = False
    for c in key:
        if c.isspace():
            if not blank:
                out.append("-")
            blank = True
            continue
        blank = False
        if _is_word(c) or c == "-":
            out.append(c.lower())
        elif _is_emoji(c):
            out.append(c)
    return "".join(out)
