"""YAML front matter: split it from the body and load it safely.

PyYAML's C loader is used when present (about 7× faster than the pure-Python one). Loading
is *safe* (no Python objects) and *bounded*: a "billion laughs" document of nested aliases
is refused before anything walks its exponential expansion.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass
from typing import Any

import yaml

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_OPEN_RE = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n")
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)
# Every node of the loaded value counts towards this budget: front matter is a handful of
# properties, so a value that expands past it is an alias bomb, not metadata.
MAX_NODES = 20_000
MAX_ALIASES = 200


class FrontMatterError(ValueError):
    """The front matter is present but unusable; the message says why, for a person."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Split:
    yaml_text: str | None  # None: the file has no front matter
    body: str
    body_line: int  # 1-based line number where the body starts


def split_front_matter(text: str, closed_after: int = 0) -> Split:
    """Separate a leading ``---`` … ``---`` block from the body. ``closed_after``: no
    closing fence starts before this offset (known from a shorter prefix of ``text``: a
    reader of a growing text searches each part once)."""
    m = _OPEN_RE.match(text)
    if not m:
        return Split(None, text.lstrip("\ufeff"), 1)
    close = _CLOSE_RE.search(text, max(m.end(), closed_after))
    if not close:
        # An opening fence with no close is not front matter (Obsidian agrees): all body.
        return Split(None, text.lstrip("\ufeff"), 1)
    yaml_text = text[m.end() : close.start()]
    end = close.end()
    if text.startswith("\r\n", end):
        end += 2
    elif text.startswith("\n", end):
        end += 1
    body_line = text.count("\n", 0, end) + 1
    return Split(yaml_text, text[end:], body_line)


def load_properties(yaml_text: str) -> dict[str, Any]:
    """Load front matter into plain JSON-able values; raise :class:`FrontMatterError`."""
    if not yaml_text.strip():
        return {}
    if yaml_text.count("*") > MAX_ALIASES and re.search(r"(?:^|[\s\[{,])\*\w", yaml_text):
        aliases = len(re.findall(r"(?:^|[\s\[{,])\*[^\s,\]}]+", yaml_text))
        if aliases > MAX_ALIASES:
            raise FrontMatterError(f"front matter uses {aliases} YAML aliases; refused as a bomb")
    fast = fast_properties(yaml_text)
    if fast is not None:
        return fast
    try:
        value = yaml.load(yaml_text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None  # +1 for 1-based, +1 for '---'
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontMatterError(f"front matter is not valid YAML: {problem}", line) from None
    except RecursionError:
        raise FrontMatterError("front matter is nested too deeply") from None
    except Exception as exc:
        # PyYAML's constructors raise what Python raises on a value they cannot build:
        # ``2024-02-30`` (ValueError), ``!!bool maybe`` (KeyError), ``!!timestamp x``
        # (AttributeError), a 5,000-digit integer (ValueError). The file's problem, only.
        raise FrontMatterError(
            f"front matter has a value that cannot be read: {_why(exc)}"
        ) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else f"a {type(value).__name__}"
        raise FrontMatterError(f"front matter is {kind}, not a set of properties", 2)
    budget = [MAX_NODES]
    try:
        return {_key(k): _plain(v, budget) for k, v in value.items()}
    except FrontMatterError:
        raise
    except (ValueError, TypeError, RecursionError) as exc:  # str() of an odd key, say
        raise FrontMatterError(
            f"front matter has a value that cannot be read: {_why(exc)}"
        ) from None


def _why(exc: BaseException) -> str:
    """An exception in a few words, for a person: ``day is out of range for month``."""
    text = str(exc).splitlines()[0][:160] if str(exc) else ""
    if isinstance(exc, KeyError):  # PyYAML's lookup of a word it does not know
        return f"unknown value {text}"
    if isinstance(exc, ValueError) and text:
        if "integer string conversion" in text:  # "Exceeds the limit (4300 digits) for …"
            return "an integer over 4,300 digits"
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# An integer of more bits than this has more than 4,300 digits, which Python refuses to
# turn into text (sys.get_int_max_str_digits): the index could not store it. Hex and binary
# YAML integers (``0xfff…``) are built without that check.
_MAX_INT_BITS = 14_284


def _key(key: Any) -> str:
    if isinstance(key, int) and key.bit_length() > _MAX_INT_BITS:
        raise FrontMatterError("front matter has a key that is an integer over 4,300 digits")
    return str(key)


def _plain(value: Any, budget: list[int]) -> Any:
    """A JSON-able copy of ``value``, stopping once ``budget`` nodes have been visited."""
    budget[0] -= 1
    if budget[0] < 0:
        raise FrontMatterError("front matter expands to too many values (a YAML alias bomb?)")
    if isinstance(value, str | bool) or value is None:
        return value
    if isinstance(value, int):
        if value.bit_length() > _MAX_INT_BITS:
            raise FrontMatterError("front matter has an integer over 4,300 digits")
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, _dt.date | _dt.datetime | _dt.time):
        return value.isoformat()
    if isinstance(value, list | tuple | set):
        return [_plain(v, budget) for v in value]
    if isinstance(value, dict):
        return {_key(k): _plain(v, budget) for k, v in value.items()}
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


# -- the fast path ---------------------------------------------------------------------------
# Most front matter is flat ``key: value`` lines of plain scalars, quoted strings and flow
# lists. Those are read here, giving exactly what PyYAML gives (after :func:`_plain`), about
# 10× faster; anything else, or anything in doubt, returns None and goes to PyYAML.
_KEY_LINE_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*):(?: +(.*))?")
# A plain scalar that YAML reads as a string: a letter first, then word characters and a
# few safe punctuation marks; no ':' or '#' (mappings, comments), no flow indicators.
_PLAIN_RE = re.compile(r"[^\W\d_][\w .,()/'+&\-]*")
_FLOW_PLAIN_RE = re.compile(r"[^\W\d_][\w .()/'+&\-]*")
_INT_RE = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_FLOAT_RE = re.compile(r"-?(?:0|[1-9][0-9]{0,15})\.[0-9]{1,15}")
_DATE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
# One item of a flow list and its comma. A plain item is words with runs of spaces
# between them, taken possessively: a lazy ``[^,…]+?`` before `` *(,|\Z)`` retries the
# spaces after every character, quadratic in a long run of them.
_FLOW_ITEM_RE = re.compile(
    r" *(?:\"([^\"\\]*)\"|'([^']*)'|([^,\[\]{}\"'# ]++(?: ++[^,\[\]{}\"'# ]++)*+)) *(,|\Z)"
)
# What YAML refuses or treats as a line break anywhere: left to PyYAML to report.
_ODD_CHAR_RE = re.compile(
    "[^\x09\x0a\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029]"
)
_WORDS: dict[str, Any] = {"null": None, "Null": None, "NULL": None, "~": None}
for _w, _v in (("yes", True), ("no", False), ("true", True), ("false", False), ("on", True),
               ("off", False)):  # fmt: skip
    _WORDS.update({_w: _v, _w.capitalize(): _v, _w.upper(): _v})
_ODD_WORDS = {w.lower() for w in _WORDS}
_NO = object()


def _fast_scalar(v: str, plain_re: re.Pattern[str]) -> Any:
    c = v[0]
    if c == '"':
        if len(v) >= 2 and v[-1] == '"' and '"' not in v[1:-1] and "\\" not in v:
            return v[1:-1]
        return _NO
    if c == "'":
        if len(v) >= 2 and v[-1] == "'" and "'" not in v[1:-1]:
            return v[1:-1]
        return _NO
    if plain_re.fullmatch(v):
        if v in _WORDS:
            return _WORDS[v]
        return _NO if v.lower() in _ODD_WORDS else v
    if v == "~":
        return None
    if _INT_RE.fullmatch(v):
        return int(v)
    if _FLOAT_RE.fullmatch(v):
        return float(v)
    m = _DATE_RE.fullmatch(v)
    if m:
        try:
            return _dt.date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        except ValueError:
            return _NO
    return _NO


def _fast_flow_list(v: str) -> Any:
    inner = v[1:-1].strip(" ")
    if not inner:
        return []
    out: list[Any] = []
    pos, end = 0, len(inner)
    while pos < end:
        m = _FLOW_ITEM_RE.match(inner, pos)
        if m is None:
            return _NO
        dq, sq, plain, sep = m.groups()
        if dq is not None:
            out.append(dq)
        elif sq is not None:
            out.append(sq)
        else:
            item = _fast_scalar(plain, _FLOW_PLAIN_RE)
            if item is _NO:
                return _NO
            out.append(item)
        pos = m.end()
        if sep == "," and pos >= end:
            return _NO  # a trailing comma: let PyYAML decide
    return out


def _has_odd_char(text: str) -> bool:
    """Whether ``_ODD_CHAR_RE`` finds something: in ASCII text (4× faster) that is any
    character outside printable ASCII but a tab or a newline."""
    if text.isascii():
        return not text.replace("\n", "").replace("\t", "").isprintable()
    return _ODD_CHAR_RE.search(text) is not None


def fast_properties(yaml_text: str) -> dict[str, Any] | None:
    """Flat front matter read without PyYAML, or None when it is not that simple."""
    if "\t" in yaml_text or _has_odd_char(yaml_text):
        return None
    out: dict[str, Any] = {}
    for line in yaml_text.split("\n"):
        m = _KEY_LINE_RE.fullmatch(line)
        if m is None:
            stripped = line.strip(" ")
            if not stripped or stripped[0] == "#":
                continue
            return None
        key, v = m.groups()
        if key in _WORDS or key.lower() in _ODD_WORDS:
            return None  # true: → a boolean key
        v = v.strip(" ") if v else ""
        if not v:
            value = None
        elif v[0] == "[":
            if v[-1] != "]":
                return None
            value = _fast_flow_list(v)
        else:
            value = _fast_scalar(v, _PLAIN_RE)
        if value is _NO:
            return None
        out[key] = value
    return out
