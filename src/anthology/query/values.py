"""The values a query computes with, and their JavaScript-like semantics.

Bases "follows JavaScript behaviour" (help page *Functions*). Plain Python types carry the
common values, so evaluating a filter over 10,000 rows allocates little: ``None`` (null),
``bool``, ``int``/``float`` (numbers), ``str``, ``list`` and ``dict`` (objects). The rest are
small classes here: :class:`Date` (with or without a time), :class:`Duration` (``"1M"``: a
calendar month, not 30 days), :class:`Link` (a path as written, resolved to a vault file when
one exists), :class:`FileValue` (a file of the vault: a row), :class:`Regex`, and what only
renders (:class:`Html`, :class:`Image`, :class:`Icon`).

Where Bases' own value classes differ from plain JavaScript, this follows Bases (and the
README says so): an empty list or object is falsy (``[]`` is truthy in JavaScript), lists
compare equal element by element, and a link equals a file it resolves to.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
import re
from dataclasses import dataclass
from typing import Any


class QueryError(Exception):
    """A query that cannot be answered (bad syntax, unknown function, a cycle, a budget
    spent): the message is for a person and is shown in place of the results."""


class EvalError(QueryError):
    """One value that cannot be computed (a type error, a bad date): shown in its cell,
    false in a filter; the query goes on."""


# ---------------------------------------------------------------- dates and durations
@dataclass(frozen=True, slots=True)
class Date:
    """A date, or a date and time (naive, local time as Obsidian shows it)."""

    at: dt.datetime
    has_time: bool = True

    @property
    def ms(self) -> float:
        return self.at.timestamp() * 1000.0

    def add(self, d: Duration, sign: int = 1) -> Date:
        at = self.at
        if d.months:
            months = at.month - 1 + sign * d.months
            year, month = at.year + months // 12, months % 12 + 1
            if not 1 <= year <= 9999:
                raise EvalError("date out of range")
            day = min(at.day, calendar.monthrange(year, month)[1])
            at = at.replace(year=year, month=month, day=day)
        try:
            at = at + dt.timedelta(milliseconds=sign * d.ms)
        except OverflowError:
            raise EvalError("date out of range") from None
        has_time = self.has_time or bool(d.ms % 86_400_000)
        return Date(at, has_time)


_DURATION_UNITS = {
    "y": ("months", 12), "year": ("months", 12), "years": ("months", 12),
    "M": ("months", 1), "month": ("months", 1), "months": ("months", 1),
    "w": ("ms", 7 * 86_400_000), "week": ("ms", 7 * 86_400_000), "weeks": ("ms", 7 * 86_400_000),
    "d": ("ms", 86_400_000), "day": ("ms", 86_400_000), "days": ("ms", 86_400_000),
    "h": ("ms", 3_600_000), "hour": ("ms", 3_600_000), "hours": ("ms", 3_600_000),
    "m": ("ms", 60_000), "minute": ("ms", 60_000), "minutes": ("ms", 60_000),
    "s": ("ms", 1000), "second": ("ms", 1000), "seconds": ("ms", 1000),
    "ms": ("ms", 1), "millisecond": ("ms", 1), "milliseconds": ("ms", 1),
}  # fmt: skip
_DURATION_PART_RE = re.compile(r"\s*([+-]?\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*,?")


@dataclass(frozen=True, slots=True)
class Duration:
    """A span of time: whole calendar months (``"1M"``, ``"1y"``) and milliseconds."""

    months: int = 0
    ms: float = 0.0

    @property
    def total_ms(self) -> float:
        """As a number (a month counted as 30 days: only where a number is wanted)."""
        return self.ms + self.months * 30 * 86_400_000

    def scale(self, k: float) -> Duration:
        return Duration(round(self.months * k), self.ms * k)


def parse_duration(text: str) -> Duration | None:
    """``"1M"``, ``"2 hours"``, ``"1d 4h"``, ``"-3 weeks"`` as a duration; None if it is not one."""
    text = text.strip()
    if not text or len(text) > 200:
        return None
    months, ms, pos = 0, 0.0, 0
    while pos < len(text):
        m = _DURATION_PART_RE.match(text, pos)
        if not m or m.end() == pos:
            return None
        unit = _DURATION_UNITS.get(m.group(2)) or (
            _DURATION_UNITS.get(m.group(2).lower()) if len(m.group(2)) > 1 else None
        )
        if unit is None:
            return None
        n = float(m.group(1))
        if unit[0] == "months":
            months += round(n * unit[1])
        else:
            ms += n * unit[1]
        pos = m.end()
    return Duration(months, ms)


_DATE_RE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?"
    r"(Z|[+-]\d{2}:?\d{2})?)?"
)


def parse_date(text: str) -> Date | None:
    """An ISO-like date (``2025-01-01``, ``2025-01-01 12:00:00``, ``…T12:00Z``); None when
    the text is not shaped like one. Raises :class:`EvalError` for a shaped but impossible
    date (``2024-02-30``)."""
    m = _DATE_RE.fullmatch(text.strip())
    if not m:
        return None
    y, mo, d, hh, mm, ss, frac, zone = m.groups()
    try:
        at = dt.datetime(int(y), int(mo), int(d), int(hh or 0), int(mm or 0), int(ss or 0),
                         int((frac or "0").ljust(6, "0")))  # fmt: skip
    except ValueError as exc:
        raise EvalError(f"invalid date “{text.strip()}”: {exc}") from None
    if zone:  # shown in local time, as Obsidian does
        offset = (
            0
            if zone == "Z"
            else (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[-2:]))
        )
        aware = at.replace(tzinfo=dt.timezone(dt.timedelta(minutes=offset)))
        at = aware.astimezone().replace(tzinfo=None)
    return Date(at, hh is not None)


def date_of_ms(ms: float) -> Date:
    return Date(dt.datetime.fromtimestamp(ms / 1000.0), True)


# ---------------------------------------------------------------- links and files
@dataclass(frozen=True, slots=True)
class Link:
    """A link: ``target`` as written (no brackets), its display text, and the vault path it
    resolves to (None: no such file, or a URL)."""

    target: str
    display: str | None = None
    path: str | None = None
    # Dataview's links carry where in the file they point (a heading, or "^block") and
    # whether they were written as an embed (``![[…]]``); Bases' links leave both unset
    subpath: str | None = None
    embed: bool = False

    @property
    def key(self) -> str:
        """What two links are the same by: the file, else the text (help, *Bases syntax*)."""
        return self.path if self.path is not None else self.target


class FileValue:
    """A file of the vault as a value (``file``, ``this``, ``link.asFile()``)."""

    __slots__ = ("row",)

    # a :class:`~anthology.query.rows.FileRow` (rows imports this module, not the reverse)
    def __init__(self, row: Any) -> None:
        self.row = row

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FileValue) and other.row.path == self.row.path

    def __hash__(self) -> int:
        return hash(self.row.path)

    def __repr__(self) -> str:
        return f"FileValue({self.row.path!r})"


@dataclass(frozen=True, slots=True)
class Regex:
    source: str
    flags: str
    compiled: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class Html:
    html: str


@dataclass(frozen=True, slots=True)
class Image:
    src: Any  # a Link, a FileValue, a URL or a colour


@dataclass(frozen=True, slots=True)
class Icon:
    name: str


# ---------------------------------------------------------------- semantics
def type_name(v: Any) -> str:
    """The name ``isType`` compares with."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "object"
    return {
        Date: "date", Duration: "duration", Link: "link", FileValue: "file", Regex: "regexp",
        Html: "html", Image: "image", Icon: "icon",
    }.get(type(v), "unknown")  # fmt: skip


def truthy(v: Any) -> bool:
    if v is None or v is False:
        return False
    if v is True:
        return True
    if isinstance(v, int | float):
        return v != 0 and not math.isnan(v)
    if isinstance(v, str | list | dict):
        return len(v) > 0
    if isinstance(v, Duration):
        return bool(v.months or v.ms)
    return True


def is_empty(v: Any) -> bool:
    """``isEmpty()``, and the *Empty* summary: no value, or an empty text, list or object."""
    return v is None or (isinstance(v, str | list | dict) and len(v) == 0)


def to_number(v: Any) -> float:
    """JavaScript's ``Number(v)`` (NaN where it has none)."""
    if v is None:
        return 0.0
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        s = v.strip()
        if not s:
            return 0.0
        try:
            return float(s)
        except ValueError:
            return math.nan
    if isinstance(v, Date):
        return v.ms
    if isinstance(v, Duration):
        return v.total_ms
    if isinstance(v, list) and len(v) == 1:
        return to_number(v[0])
    return math.nan


def _link_file_eq(link: Link, f: FileValue) -> bool:
    return link.path is not None and link.path == f.row.path


def equals(a: Any, b: Any) -> bool:
    """``a == b``: JavaScript's loose equality for primitives; dates by instant; links and
    files by the file they name; lists element by element."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        if isinstance(a, bool) and isinstance(b, bool):
            return a is b
        return to_number(a) == to_number(b)
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, Link):
        if isinstance(b, Link):
            return a.key == b.key
        if isinstance(b, FileValue):
            return _link_file_eq(a, b)
        if isinstance(b, str):
            return b in (a.target, a.path)
        return False
    if isinstance(b, Link):
        return equals(b, a)
    if isinstance(a, FileValue) or isinstance(b, FileValue):
        if isinstance(a, FileValue) and isinstance(b, FileValue):
            return a == b
        f, o = (a, b) if isinstance(a, FileValue) else (b, a)
        return isinstance(o, str) and o == f.row.path
    if isinstance(a, Date) and isinstance(b, Date):
        return a.at == b.at
    if isinstance(a, Duration) or isinstance(b, Duration):  # a duration is its milliseconds
        return to_number(a) == to_number(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equals(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equals(a[k], b[k]) for k in a)
    if isinstance(a, str | int | float | Date) and isinstance(b, str | int | float | Date):
        if isinstance(a, Date) or isinstance(b, Date):  # a date and its text
            d, o = (a, b) if isinstance(a, Date) else (b, a)
            assert isinstance(d, Date)
            if isinstance(o, str):
                try:
                    other = parse_date(o)
                except EvalError:
                    return False
                return other is not None and other.at == d.at
            return d.ms == o
        return to_number(a) == to_number(b)
    return a is b


def compare(a: Any, b: Any) -> int | None:
    """-1, 0 or 1 for ``<``/``>``; None when the two are not ordered (JavaScript's NaN:
    every comparison false)."""
    if isinstance(a, str) and isinstance(b, str):
        return (a > b) - (a < b)
    if isinstance(a, Date) and isinstance(b, str):
        b = _date_or_none(b)
    elif isinstance(b, Date) and isinstance(a, str):
        a = _date_or_none(a)
    if a is None and b is None:
        return None
    x, y = to_number(a), to_number(b)
    if math.isnan(x) or math.isnan(y):
        return None
    return (x > y) - (x < y)


def _date_or_none(s: str) -> Date | None:
    try:
        return parse_date(s)
    except EvalError:
        return None


def sort_key(v: Any) -> tuple:
    """A key that orders mixed values as a view sorts a column: numbers and dates by value,
    text alphabetically (case-folded), booleans false first; empty values last."""
    if is_empty(v):
        return (9, 0)
    if isinstance(v, bool):
        return (0, int(v))
    if isinstance(v, int | float):
        return (1, v if not math.isnan(v) else math.inf)
    if isinstance(v, Date):
        return (1, v.ms)
    if isinstance(v, Duration):
        return (1, v.total_ms)
    if isinstance(v, list):
        return (3, tuple(sort_key(x) for x in v[:20]))
    return (2, display(v).casefold())


def hash_key(v: Any) -> Any:
    """A hashable stand-in for ``v``, equal for values :func:`equals` finds equal enough to
    be one group or one *Unique* value."""
    if isinstance(v, list):
        return ("l", tuple(hash_key(x) for x in v))
    if isinstance(v, dict):
        return ("o", tuple(sorted((k, hash_key(x)) for k, x in v.items())))
    if isinstance(v, Link):
        return ("f", v.key)
    if isinstance(v, FileValue):
        return ("f", v.row.path)
    if isinstance(v, Date):
        return ("d", v.at)
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, Duration):
        return ("t", v.total_ms)
    if isinstance(v, Regex | Html | Image | Icon):
        return repr(v)
    return v


# ---------------------------------------------------------------- display
def number_text(n: float) -> str:
    """A number as JavaScript writes it: ``3`` not ``3.0``, ``0.30000000000000004``."""
    if isinstance(n, bool):
        return "true" if n else "false"
    if isinstance(n, int):
        return str(n)
    if math.isnan(n):
        return "NaN"
    if math.isinf(n):
        return "Infinity" if n > 0 else "-Infinity"
    if n.is_integer() and abs(n) < 1e21:
        return str(int(n))
    return repr(n)


def date_text(d: Date) -> str:
    if d.has_time:
        return (
            d.at.strftime("%Y-%m-%d %H:%M")
            if not d.at.second
            else d.at.strftime("%Y-%m-%d %H:%M:%S")
        )
    return d.at.strftime("%Y-%m-%d")


def duration_text(d: Duration) -> str:
    parts = []
    if d.months:
        y, m = divmod(abs(d.months), 12)
        sign = "-" if d.months < 0 else ""
        parts += [f"{sign}{y} year{'s' * (y != 1)}"] if y else []
        parts += [f"{sign}{m} month{'s' * (m != 1)}"] if m else []
    ms = d.ms
    for unit, size in (("day", 86_400_000), ("hour", 3_600_000), ("minute", 60_000),
                       ("second", 1000)):  # fmt: skip
        n = int(abs(ms) // size)
        if n:
            parts.append(f"{'-' if ms < 0 else ''}{n} {unit}{'s' * (n != 1)}")
            ms = math.copysign(abs(ms) - n * size, ms)
    return ", ".join(parts) or "0 seconds"


def display(v: Any) -> str:
    """How a value reads in a cell, a CSV field or ``toString()``."""
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, bool | int | float):
        return number_text(v)
    if isinstance(v, Date):
        return date_text(v)
    if isinstance(v, Duration):
        return duration_text(v)
    if isinstance(v, Link):
        return v.display if v.display is not None else v.target
    if isinstance(v, FileValue):
        return v.row.basename if v.row.ext == "md" else v.row.name
    if isinstance(v, list):
        return ", ".join(display(x) for x in v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {display(x)}" for k, x in v.items()) + "}"
    if isinstance(v, Regex):
        return f"/{v.source}/{v.flags}"
    if isinstance(v, Html):
        return v.html
    if isinstance(v, Image):
        return display(v.src)
    if isinstance(v, Icon):
        return v.name
    return str(v)


def to_json(v: Any) -> Any:
    """A JSON-able form of ``v`` (for ``anthology query --format json``)."""
    if v is None or isinstance(v, str | bool | int):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else number_text(v)
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, dict):
        return {k: to_json(x) for k, x in v.items()}
    if isinstance(v, Date):
        return v.at.isoformat() if v.has_time else v.at.date().isoformat()
    if isinstance(v, Link):
        return {"link": v.target, "path": v.path, "display": v.display}
    if isinstance(v, FileValue):
        return {"file": v.row.path}
    return display(v)
