"""Dataview's value semantics, where they differ from Bases' JavaScript-like ones.

The values are the engine's (:mod:`anthology.query.values`): ``None``, ``bool``, numbers,
``str``, ``list``, mappings (objects: ``dict`` or the lazy page objects of :mod:`.fields`),
:class:`~anthology.query.values.Date`, :class:`~anthology.query.values.Duration`,
:class:`~anthology.query.values.Link`; plus :class:`Lambda` (``(x) => …``) and
:class:`ExternalLink` (``elink()``). What Dataview defines differently from Bases
(``src/data-model/value.ts``, ``src/expression/binaryop.ts``) is here:

- **ordering is total** (``Values.compareValue``): ``null`` before everything, then values of
  different types ordered by their type's *name* (``array`` < ``boolean`` < ``date`` < … <
  ``string``), text by the locale's collation (``"a" < "B"``), lists element by element;
  ``=`` is "compares equal" (so ``"5" = 5`` is false, and ``null <= date(today)`` is true);
- **truthiness**: a link is truthy, NaN is truthy (``!= 0``), empty lists/objects falsy;
- **text of a value** (``string()``, ``"a" + x``): dates ``MMMM dd, yyyy`` (``h:mm a -
  MMMM dd, yyyy`` with a time), durations as Luxon's ``toHuman`` after normalising
  (``1 month, 2 days``), links as ``[[path|name]]`` Markdown, null as ``-``.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from ..values import Date, Duration, Link, number_text

DAY_MS = 86_400_000
# Luxon's "casual" conversion matrix (a month is 30 days, a year 365): what durations of
# months and of days compare by, and how ``dur.days`` converts.
_UNIT_MS = {
    "years": 365 * DAY_MS, "months": 30 * DAY_MS, "weeks": 7 * DAY_MS, "days": DAY_MS,
    "hours": 3_600_000, "minutes": 60_000, "seconds": 1000, "milliseconds": 1,
}  # fmt: skip
UNITS = tuple(_UNIT_MS)
_MATRIX: dict[str, dict[str, float]] = {
    "years": {"months": 12, "weeks": 52, "days": 365},
    "months": {"weeks": 4, "days": 30},
    "weeks": {"days": 7},
}
for _big in UNITS:
    for _small in UNITS[UNITS.index(_big) + 1 :]:
        _MATRIX.setdefault(_big, {}).setdefault(_small, _UNIT_MS[_big] / _UNIT_MS[_small])


class Lambda:
    """A function value: ``(x, y) => expr``, called by the library with evaluated arguments."""

    __slots__ = ("call", "params")

    def __init__(self, params: list[str], call: Callable[[list[Any]], Any]) -> None:
        self.params = params
        self.call = call

    def __repr__(self) -> str:
        return f"Lambda({', '.join(self.params)})"


class ExternalLink(str):
    """``elink(url, display)``: Markdown text ``[display](url)`` (how Dataview's widget
    writes itself), so it renders as a link wherever text renders as Markdown; its
    ``typeof`` is ``"widget"`` as in Dataview."""

    url: str
    label: str

    def __new__(cls, url: str, label: str | None = None) -> ExternalLink:
        shown = label if label is not None else url
        self = super().__new__(cls, f"[{shown}]({url})")
        self.url, self.label = url, shown
        return self


# ---------------------------------------------------------------- types and truth
_TYPE_OF: dict[type, str] = {}


def dv_type(v: Any) -> str:
    """Dataview's ``typeof``: null, boolean, number, string, date, duration, link, array,
    object, function, widget."""
    try:
        return _TYPE_OF[type(v)]
    except KeyError:
        name = _type_of(v)
        _TYPE_OF[type(v)] = name  # a type's name depends on its class alone
        return name


def _type_of(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, ExternalLink):
        return "widget"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, Date):
        return "date"
    if isinstance(v, Duration):
        return "duration"
    if isinstance(v, Link):
        return "link"
    if isinstance(v, Lambda):
        return "function"
    if isinstance(v, Mapping):
        return "object"
    return "widget"


def truthy(v: Any) -> bool:
    if v is None or v is False:
        return False
    if v is True:
        return True
    if isinstance(v, int | float):
        return v != 0
    if isinstance(v, str | list):
        return len(v) > 0
    if isinstance(v, Link):
        return bool(v.path or v.target)
    if isinstance(v, Date):
        return v.ms != 0
    if isinstance(v, Duration):
        return duration_ms(v) != 0
    if isinstance(v, Mapping):
        return len(v) > 0
    return True


# ---------------------------------------------------------------- ordering
def locale_key(s: str) -> tuple[str, str]:
    """A key that orders text about as JavaScript's ``localeCompare`` does (ICU's root
    collation): accents and case count only to break ties (lower case first), punctuation
    before digits before letters."""
    return _short_key(s) if len(s) <= 200 else _locale_key(s)


@functools.lru_cache(maxsize=65_536)
def _short_key(s: str) -> tuple[str, str]:  # names, titles, statuses: the same ones again
    return _locale_key(s)


def _locale_key(s: str) -> tuple[str, str]:
    folded = unicodedata.normalize("NFKD", s.casefold())
    base = "".join(c if c.isalnum() else "\x01" + c for c in folded if not unicodedata.combining(c))
    return base, s.swapcase()


_TYPE_RANK = {name: i for i, name in enumerate(
    ("array", "boolean", "date", "duration", "function", "link", "number", "object",
     "string", "widget"))}  # fmt: skip


def sort_key(v: Any) -> tuple:
    """A key ordering values as ``Values.compareValue`` does (see the module's doc)."""
    t = dv_type(v)
    if t == "null":
        return (-1,)
    rank = _TYPE_RANK[t]
    if t == "number":
        return (rank, v if not math.isnan(v) else math.inf)
    if t == "string":
        return (rank, locale_key(v))
    if t == "boolean":
        return (rank, int(v))
    if t == "date":
        return (rank, v.ms)
    if t == "duration":
        return (rank, duration_ms(v))
    if t == "link":
        kind = "block" if (v.subpath or "").startswith("^") else "header" if v.subpath else "file"
        return (rank, locale_key(v.key), kind, v.subpath is not None,
                locale_key(v.subpath or ""))  # fmt: skip
    if t == "array":
        return (rank, tuple(sort_key(x) for x in v))
    if t == "object":
        identity = getattr(v, "dv_identity", None)
        if identity is not None:  # a note's page or file object: the note it is
            return (rank, 0, identity())
        keys = sorted(v.keys())
        return (rank, 1, tuple(locale_key(k) for k in keys),
                tuple(sort_key(v[k]) for k in keys))  # fmt: skip
    if t == "widget":
        return (rank, locale_key(str(v)))
    return (rank,)


def compare(a: Any, b: Any) -> int:
    if a is b:
        return 0
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is str:
            ka, kb = locale_key(a), locale_key(b)
            return (ka > kb) - (ka < kb)
        if ta is int or ta is float:
            return (a > b) - (a < b)
        if ta is Date:
            return (a.at > b.at) - (a.at < b.at)
    elif a is None:
        return -1
    elif b is None:
        return 1
    ka, kb = sort_key(a), sort_key(b)
    return (ka > kb) - (ka < kb)


def equals(a: Any, b: Any) -> bool:
    return compare(a, b) == 0


# ---------------------------------------------------------------- durations
def duration_ms(d: Duration) -> float:
    """Milliseconds as Luxon's ``valueOf`` counts them (a month 30 days, a year 365)."""
    sign = -1 if d.months < 0 else 1
    years, months = divmod(abs(d.months), 12)
    return sign * (years * _UNIT_MS["years"] + months * _UNIT_MS["months"]) + d.ms


def _values_of(d: Duration) -> dict[str, float]:
    return {"months": d.months, "milliseconds": d.ms}


def _normalize_values(vals: dict[str, float]) -> None:
    """Luxon's ``normalizeValues``: overflow rolled up to the next unit present, then the
    fractions pushed down."""
    total = sum(vals[k] * _UNIT_MS[k] for k in vals)
    factor = -1 if total < 0 else 1
    previous: str | None = None
    for unit in reversed(UNITS):
        if unit not in vals:
            continue
        if previous is not None:
            prev_val = vals[previous] * factor
            conv = _MATRIX[unit][previous]
            roll = math.floor(prev_val / conv)
            vals[unit] += roll * factor
            vals[previous] -= roll * conv * factor
        previous = unit
    previous = None
    for unit in UNITS:
        if unit not in vals:
            continue
        if previous is not None:
            fraction = math.fmod(vals[previous], 1)
            vals[previous] -= fraction
            vals[unit] += fraction * _MATRIX[previous][unit]
        previous = unit


def shift_to(d: Duration, units: list[str]) -> dict[str, float]:
    """Luxon's ``Duration.shiftTo(...units)`` (then normalised), over the casual matrix."""
    vals = _values_of(d)
    built: dict[str, float] = {}
    accumulated: dict[str, float] = {}
    last = units[-1]
    for k in UNITS:
        if k in units:
            last = k
            own = 0.0
            for ak in list(accumulated):
                own += _MATRIX[ak][k] * accumulated[ak]
                accumulated[ak] = 0
            own += vals.get(k, 0)
            i = math.trunc(own)
            built[k] = i
            accumulated[k] = (own * 1000 - i * 1000) / 1000
        elif k in vals:
            accumulated[k] = vals[k]
    for key, value in accumulated.items():
        if value:
            built[last] += value if key == last else value / _MATRIX[last][key]
    _normalize_values(built)
    return built


def duration_units(d: Duration) -> dict[str, float]:
    """The duration in every unit, normalised (Dataview's ``normalizeDuration``)."""
    return shift_to(d, list(UNITS))


def _group(n: float) -> str:
    if n == int(n):
        return f"{int(n):,}"
    return f"{round(n, 3):,}".rstrip("0").rstrip(".")


def duration_human(d: Duration) -> str:
    """``3 days, 2 hours``: Luxon's ``toHuman`` of the normalised duration, zeros left out."""
    parts = []
    for unit, n in duration_units(d).items():
        if n:
            name = unit[:-1] if abs(n) == 1 else unit
            parts.append(f"{_group(n)} {name}")
    return ", ".join(parts)


def duration_from_units(**units: float) -> Duration:
    months = units.get("years", 0) * 12 + units.get("months", 0)
    ms = sum(units.get(k, 0) * _UNIT_MS[k] for k in ("weeks", "days", "hours", "minutes",
                                                     "seconds", "milliseconds"))  # fmt: skip
    return Duration(round(months), ms)


def date_diff(a: Date, b: Date) -> Duration:
    """``a - b`` as Luxon's ``diff`` in calendar years and months, then the rest in time."""
    if a.at < b.at:
        neg = date_diff(b, a)
        return Duration(-neg.months, -neg.ms)
    months = (a.at.year - b.at.year) * 12 + (a.at.month - b.at.month)
    while months > 0 and add_months(b.at, months) > a.at:
        months -= 1
    rest = a.at - add_months(b.at, months)
    return Duration(months, rest.total_seconds() * 1000)


def add_months(at: dt.datetime, months: int) -> dt.datetime:
    m = at.month - 1 + months
    year, month = at.year + m // 12, m % 12 + 1
    year = min(max(year, 1), 9999)
    return at.replace(year=year, month=month, day=min(at.day, calendar.monthrange(year, month)[1]))


# ---------------------------------------------------------------- dates
_MONTHS = [calendar.month_name[i] for i in range(1, 13)]
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
DATE_FORMAT = "MMMM dd, yyyy"  # Dataview's defaults (settings.ts)
DATETIME_FORMAT = "h:mm a - MMMM dd, yyyy"


def _tz_offset(at: dt.datetime) -> str:
    off = at.astimezone().utcoffset() or dt.timedelta(0)
    mins = int(off.total_seconds() // 60)
    return f"{'+' if mins >= 0 else '-'}{abs(mins) // 60:02d}:{abs(mins) % 60:02d}"


def _luxon_token(at: dt.datetime, tok: str) -> str | None:
    c, n = tok[0], len(tok)
    h12 = at.hour % 12 or 12
    iso = at.isocalendar()
    simple: dict[str, Callable[[], str]] = {
        "y": lambda: f"{at.year:0{n}d}" if n != 2 else f"{at.year % 100:02d}",
        "M": lambda: (f"{at.month:0{n}d}" if n <= 2 else
                      _MONTHS[at.month - 1][: 3 if n == 3 else None] if n <= 4 else
                      _MONTHS[at.month - 1][0]),
        "L": lambda: _luxon_token(at, "M" * n) or "",
        "d": lambda: f"{at.day:0{n}d}",
        "E": lambda: (str(at.isoweekday()) if n == 1 else
                      _WEEKDAYS[at.weekday()][: 3 if n == 3 else None] if n <= 4 else
                      _WEEKDAYS[at.weekday()][0]),
        "c": lambda: _luxon_token(at, "E" * n) or "",
        "H": lambda: f"{at.hour:0{n}d}",
        "h": lambda: f"{h12:0{n}d}",
        "m": lambda: f"{at.minute:0{n}d}",
        "s": lambda: f"{at.second:0{n}d}",
        "S": lambda: f"{at.microsecond // 1000:03d}" if n >= 3 else str(at.microsecond // 1000),
        "u": lambda: f"{at.microsecond // 1000:03d}",
        "a": lambda: "AM" if at.hour < 12 else "PM",
        "q": lambda: f"{(at.month - 1) // 3 + 1:0{n}d}",
        "W": lambda: f"{iso[1]:0{n}d}",
        "k": lambda: f"{iso[0]:0{n}d}" if n != 2 else f"{iso[0] % 100:02d}",
        "o": lambda: f"{at.timetuple().tm_yday:0{n}d}",
        "Z": lambda: _tz_offset(at) if n != 2 else _tz_offset(at).replace(":", ""),
        "X": lambda: str(int(at.timestamp())),
        "x": lambda: str(int(at.timestamp() * 1000)),
        "D": lambda: (f"{at.month}/{at.day}/{at.year}" if n == 1 else
                      f"{_MONTHS[at.month - 1][:3]} {at.day}, {at.year}" if n == 2 else
                      f"{_MONTHS[at.month - 1]} {at.day}, {at.year}" if n == 3 else
                      f"{_WEEKDAYS[at.weekday()]}, {_MONTHS[at.month - 1]} {at.day}, {at.year}"),
        "t": lambda: (f"{h12}:{at.minute:02d} {'AM' if at.hour < 12 else 'PM'}" if n == 1 else
                      f"{h12}:{at.minute:02d}:{at.second:02d} "
                      f"{'AM' if at.hour < 12 else 'PM'}"),
        "T": lambda: (f"{at.hour:02d}:{at.minute:02d}" if n == 1 else
                      f"{at.hour:02d}:{at.minute:02d}:{at.second:02d}"),
        "f": lambda: f"{_luxon_token(at, 'D' * n)}, {_luxon_token(at, 't')}",
        "F": lambda: f"{_luxon_token(at, 'D' * n)}, {_luxon_token(at, 'tt')}",
    }  # fmt: skip
    if c == "y" and n == 1:
        return str(at.year)
    fn = simple.get(c)
    return fn() if fn is not None else None


def luxon_format(d: Date, fmt: str) -> str:
    """``d`` written with Luxon's format tokens (``yyyy-MM-dd``, ``MMMM dd, yyyy``,
    ``h:mm a``, ``'literal'``), in English."""
    at = d.at
    out: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c == "'":
            end = fmt.find("'", i + 1)
            end = len(fmt) if end < 0 else end
            out.append(fmt[i + 1 : end] if end > i + 1 else "'")
            i = end + 1
            continue
        j = i
        while j < len(fmt) and fmt[j] == c:
            j += 1
        tok = fmt[i:j]
        shown = _luxon_token(at, tok) if c.isalpha() else None
        out.append(shown if shown is not None else tok)
        i = j
    return "".join(out)


def date_text(d: Date) -> str:
    """A date as Dataview shows it by default: ``December 05, 2026``, or with its time
    ``1:07 PM - December 05, 2026`` when it has one."""
    at = d.at
    plain = at.hour == 0 and at.minute == 0 and at.second == 0
    return luxon_format(d, DATE_FORMAT if plain else DATETIME_FORMAT)


# ---------------------------------------------------------------- text of a value
NULL_TEXT = "-"  # Dataview's "render null as" ("\-": Markdown for a dash)


def link_title(link: Link) -> str:
    path = link.path if link.path is not None else link.target
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def link_markdown(link: Link) -> str:
    path = (link.path if link.path is not None else link.target).replace("|", "\\|")
    inner = path + (f"#{link.subpath}" if link.subpath else "")
    shown = link.display or link_title(link) + (
        f" > {link.subpath.lstrip('^')}" if link.subpath else ""
    )
    return f"{'!' if link.embed else ''}[[{inner}|{shown}]]"


def to_string(v: Any, nested: bool = False) -> str:
    """``Values.toString``: what ``string(x)`` and ``"text" + x`` make of a value."""
    if v is None:
        return NULL_TEXT
    if isinstance(v, str):
        return v
    if isinstance(v, bool | int | float):
        return number_text(v)
    if isinstance(v, Link):
        return link_markdown(v)
    if isinstance(v, Date):
        return date_text(v)
    if isinstance(v, Duration):
        return duration_human(v)
    if isinstance(v, list):
        body = ", ".join(to_string(x, True) for x in v)
        return f"[{body}]" if nested else body
    if isinstance(v, Lambda):
        return "<function>"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{k}: {to_string(x, True)}" for k, x in v.items()) + " }"
    return str(v)


def display_text(v: Any) -> str:
    """A value as Dataview shows it in plain text: null ``-``, a link its name (or display
    text), a date ``December 05, 2026``, a duration ``3 days, 2 hours``, a list its
    elements joined by commas."""
    if isinstance(v, Link):
        return v.display or link_title(v) + (f" > {v.subpath.lstrip('^')}" if v.subpath else "")
    if isinstance(v, list):
        return ", ".join(display_text(x) for x in v)
    if isinstance(v, ExternalLink):
        return v.label
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{k}: {display_text(x)}" for k, x in v.items()) + " }"
    if type(v).__name__ == "CellError":
        return str(v)
    return to_string(v)


def strip_markdown(text: str) -> str:
    """``display()``'s text: links as their names, emphasis and code marks dropped."""
    text = re.sub(r"\[\[([^\]|]*?)\]\]", r"\1", text)
    text = re.sub(r"\[\[[^\]]*?\|([^\]]*?)\]\]", r"\1", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"(\*\*|__|\*|_|~~|==|`)(.+?)\1", r"\2", text)
    return re.sub(r"^#{1,6}\s+", "", text)
