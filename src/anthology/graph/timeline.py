"""Entries on a timeline, free of Qt: the dates read from a property, the layout (x from the
date, rows so that entries of one time do not overlap) and the arcs of typed relations.

The reader picks a date property (``year``, ``date``, ``created``… or the file's dates
:data:`MTIME` / :data:`CTIME`, as Bases names them); :func:`date_keys` offers the ones the
vault has. :func:`parse_date` reads a value as written in front matter:

- a year (``2017``, ``-44``: astronomical years, 0 is 1 BC), a year and month
  (``2017-03``), a day (``2017-03-05``, also with ``/`` or ``.``), a date and time
  (``2017-03-05T10:20``, ``2017-03-05 10:20:30Z``: the time as written, offset ignored);
- a day that is not in its month (``2024-02-30``) is placed at its month, and says so;
- years before -9999 or after 9999 are refused: a number that large is an id or a
  ``yyyymmdd`` far more often than a year, and one such value would squeeze every other
  entry into a point;
- a list: its earliest date (``year: [2017, 2019]``); a mapping, ``true``, text: no date.

:func:`build_timeline` lays out the entries that the graph's filters
(:class:`~anthology.graph.model.Filters`) and a query in search's language
(:func:`~anthology.graph.model.match_nodes`) keep. x is the date as a fractional year; the
span is cut into :data:`COLUMNS` columns and the entries of one column are stacked in rows,
oldest at the bottom; a column of more than :data:`MAX_ROWS` wraps into sub-columns inside
its width (10,000 entries of one day make a block, not a tower of 10,000). Everything is one
sort and linear passes: no stall at any size.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anthology.graph.model import Filters, match_nodes, per_data, visible
from anthology.vault.graph_data import GraphData

__all__ = [
    "COLUMNS",
    "CTIME",
    "MAX_ROWS",
    "MTIME",
    "DateError",
    "Timeline",
    "When",
    "build_timeline",
    "date_keys",
    "default_key",
    "key_label",
    "parse_date",
    "tick_label",
]

MTIME = "file.mtime"  # the file's last modification (Bases' name)
CTIME = "file.ctime"  # the file's status change time (the closest to "created" POSIX keeps)
FILE_KEYS = (MTIME, CTIME)
MIN_YEAR, MAX_YEAR = -9999, 9999
COLUMNS = 120  # the span is cut in this many columns (a marker's width at a fitted view)
MAX_ROWS = 40  # a column taller than this wraps into sub-columns
MIN_COLUMN = 1.0 / 366.0  # a column is at least a day wide
ARC_POINTS = 17  # points along each arc's curve
MAX_ARCS = 50_000  # beyond this many typed relations among the shown entries, the first ones
# keys offered when their values are plain years (a bare number is a date only by its name)
_DATE_NAME = re.compile(r"year|date|day|time|created|modified|updated|published|born|died",
                        re.I)  # fmt: skip
PREFERRED = ("year", "date", "created")

_DATE_RE = re.compile(
    r"([+-]?\d{1,6})(?:[-/.](\d{1,2})(?:[-/.](\d{1,2})"
    r"(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(?:Z|[+-]\d{2}:?\d{2})?)?)?)?"
)


class DateError(ValueError):
    """A value that is not a date; its message says why, in a line for the reader."""


@dataclass(frozen=True)
class When:
    """A date as the timeline places it: ``x`` a fractional year (2017.5 is mid-2017; a
    year alone is placed mid-year, a month mid-month), ``text`` as it is shown, ``note``
    why it was placed other than as written ("" when it was not)."""

    x: float
    text: str
    precision: str  # "year" | "month" | "day" | "time"
    note: str = ""


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_BEFORE = tuple(sum(_MONTH_DAYS[:m]) for m in range(12))  # days before each month


def _days_in(year: int, month: int) -> int:
    return 29 if month == 2 and _leap(year) else _MONTH_DAYS[month - 1]


def _x(year: int, month: int | None = None, day: float | None = None) -> float:
    """The fractional year of a year (its middle), a month (its middle) or a day (from
    1.0 at its start; fractions are the time of day)."""
    length = 366.0 if _leap(year) else 365.0
    if month is None:
        return year + 0.5
    before = _BEFORE[month - 1] + (1 if month > 2 and _leap(year) else 0)
    if day is None:
        return year + (before + _days_in(year, month) / 2.0) / length
    return year + (before + day - 1.0) / length


def _year(text: str, raw: object) -> int:
    year = int(text)
    if year < MIN_YEAR:
        raise DateError(f"{raw} is before the year {MIN_YEAR}")
    if year > MAX_YEAR:
        raise DateError(f"{raw} is after the year {MAX_YEAR}")
    return year


def _parse_text(value: str) -> When:
    text = value.strip()
    m = _DATE_RE.fullmatch(text)
    if m is None:
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise DateError(f"“{shown}” is not a date")
    y, mo, d, hh, mm, ss = m.groups()
    year = _year(y, text)
    if mo is None:
        return When(_x(year), str(year), "year")
    month = int(mo)
    if not 1 <= month <= 12:
        raise DateError(f"{text}: there is no month {month}")
    if d is None:
        return When(_x(year, month), f"{year}-{month:02d}", "month")
    day = int(d)
    if not 1 <= day <= _days_in(year, month):
        note = f"{text} is not a day of its month: placed at the month"
        return When(_x(year, month), f"{year}-{month:02d}", "month", note)
    if hh is None:
        return When(_x(year, month, day + 0.5), f"{year}-{month:02d}-{day:02d}", "day")
    hour, minute, second = int(hh), int(mm), int(ss or 0)
    if hour > 23 or minute > 59 or second > 60:
        note = f"{text}: the time is not a time of day; placed at the day"
        return When(_x(year, month, day + 0.5), f"{year}-{month:02d}-{day:02d}", "day", note)
    frac = (hour * 3600 + minute * 60 + second) / 86400.0
    shown = f"{year}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}"
    return When(_x(year, month, day + frac), shown, "time")


@functools.lru_cache(maxsize=1 << 16)
def _scalar(value: int | float | str) -> When | str:
    """A number or a text as a :class:`When`, or why it is not one. Cached: a vault's
    entries share their dates (10,000 daily notes over ten years are 3,650 days; their
    years, ten values), and the picker and the layout read the same values again."""
    try:
        if isinstance(value, int):
            year = _year(str(value), value)
            return When(_x(year), str(year), "year")
        if isinstance(value, float):
            if not math.isfinite(value) or not value.is_integer():
                raise DateError(f"{value} is not a year")
            year = _year(str(int(value)), value)
            return When(_x(year), str(year), "year")
        return _parse_text(value)
    except DateError as exc:
        return str(exc)


def parse_date(value: Any) -> When:
    """``value`` (a front matter value) as a :class:`When`; :class:`DateError` when it is
    none (see the module docstring for what is read)."""
    if isinstance(value, bool) or value is None:
        raise DateError(f"{str(value).lower() if value is not None else 'null'} is not a date")
    if isinstance(value, int | float | str):
        read = _scalar(value)
        if isinstance(read, str):
            raise DateError(read)
        return read
    if isinstance(value, list):
        found: list[When] = []
        first_error: DateError | None = None
        for item in value[:100]:  # a list of a thousand dates is not a date
            if isinstance(item, list | dict):
                continue
            try:
                found.append(parse_date(item))
            except DateError as exc:
                first_error = first_error or exc
        if found:
            earliest = min(found, key=lambda w: w.x)
            note = earliest.note or ("a list of dates: placed at the earliest"
                                     if len(found) > 1 else "")  # fmt: skip
            return When(earliest.x, earliest.text, earliest.precision, note)
        if first_error is not None:
            raise first_error
        raise DateError("an empty list is not a date")
    raise DateError("a group of values is not a date")


def tick_label(x: float, spacing: float) -> str:
    """The axis's label at fractional year ``x`` when ticks are ``spacing`` years apart:
    the year, then the month, the day, the time as the reader zooms in."""
    year = math.floor(x + 1e-9)
    if spacing >= 0.999:
        return str(year)
    length = 366.0 if _leap(year) else 365.0
    days = (x - year) * length  # days since the year began
    month = 1
    while month < 12 and days >= _BEFORE[month] + (1 if month >= 2 and _leap(year) else 0):
        month += 1
    before = _BEFORE[month - 1] + (1 if month > 2 and _leap(year) else 0)
    if spacing >= 28 / 366.0:
        return f"{year}-{month:02d}"
    day_f = days - before
    day = min(int(day_f + 1e-6) + 1, _days_in(year, month))
    if spacing >= 0.9 / 366.0:
        return f"{year}-{month:02d}-{day:02d}"
    minutes = round((day_f - (day - 1)) * 1440)
    return f"{month:02d}-{day:02d} {minutes // 60 % 24:02d}:{minutes % 60:02d}"


def file_when(ns: int) -> When:
    """A file time (nanoseconds since 1970, UTC) as a :class:`When`."""
    t = _dt.datetime.fromtimestamp(ns / 1e9, tz=_dt.UTC)
    frac = (t.hour * 3600 + t.minute * 60 + t.second) / 86400.0
    return When(_x(t.year, t.month, t.day + frac), t.strftime("%Y-%m-%d %H:%M"), "time")


def _value(props: Mapping[str, Any], key: str) -> tuple[bool, Any]:
    """(has it, value) of ``key`` in ``props``, any case (as the query language reads)."""
    if key in props:
        return True, props[key]
    low = key.lower()
    for k, v in props.items():
        if str(k).lower() == low:
            return True, v
    return False, None


def date_keys(data: GraphData, with_files: bool = True) -> list[tuple[str, int]]:
    """The date-like properties of the vault's entries, with how many entries have a date
    in each, most first (:data:`PREFERRED` first among equals), then the file's dates.

    A key is offered when one of its values is a date with a month (``2024-03-05``), or
    when its name says date (``year``, ``published``…) and one of its values is a year: a
    bare number is a date only by its name (``pages: 12``)."""
    return list(per_data(data, "timeline date keys", with_files,
                         lambda: _date_keys(data, with_files)))  # fmt: skip


def _maybe_date(value: Any) -> bool:
    """Whether ``value`` may be a date at all: a number, a text that starts as one, a list
    (titles, tags and links are turned away without a parse)."""
    if isinstance(value, str):
        head = value.lstrip()[:1]
        return head.isdigit() or head in "+-"
    if isinstance(value, list):
        return bool(value) and _maybe_date(value[0])
    return isinstance(value, int | float) and not isinstance(value, bool)


# a key none of whose first values is a date is not read further (a vault's ``tags``,
# ``aliases``, titles: 10,000 of each, parsed for nothing)
GIVE_UP_AFTER = 200


def _date_keys(data: GraphData, with_files: bool) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    named: dict[str, bool] = {}
    misses: dict[str, int] = {}
    ghost = data.ghost
    for i, props in enumerate(data.properties):
        if ghost[i]:
            continue
        for k, v in props.items():
            key = str(k)
            if misses.get(key, 0) >= GIVE_UP_AFTER and key not in counts:
                continue
            try:
                if not _maybe_date(v):
                    raise DateError("")
                when = parse_date(v)
            except DateError:
                misses[key] = misses.get(key, 0) + 1
                continue
            if when.precision == "year":
                ok = named.get(key)
                if ok is None:
                    ok = named[key] = bool(_DATE_NAME.search(key))
                if not ok and key not in counts:
                    continue
            counts[key] = counts.get(key, 0) + 1
    rank = {k: i for i, k in enumerate(PREFERRED)}
    out = sorted(counts.items(), key=lambda kv: (-kv[1], rank.get(kv[0].lower(), 99), kv[0]))
    if with_files:
        n = int((~ghost).sum()) if len(ghost) else 0
        out += [(MTIME, n), (CTIME, n)]
    return out


def default_key(keys: Sequence[tuple[str, int]]) -> str:
    """The property a timeline opens on: ``year``, ``date`` or ``created`` when the vault
    has it, else its most used date property, else the file's modification time."""
    names = [k for k, _n in keys]
    lows = {k.lower(): k for k in names}
    for want in PREFERRED:
        if want in lows:
            return lows[want]
    props = [k for k in names if k not in FILE_KEYS]
    return props[0] if props else MTIME


def key_label(key: str) -> str:
    """How the reader reads a key's name in the picker."""
    if key == MTIME:
        return "File modified"
    if key == CTIME:
        return "File changed (ctime)"
    return key


@dataclass
class Timeline:
    """What the timeline shows, in date order (``nodes`` index the :class:`GraphData`)."""

    key: str
    nodes: np.ndarray  # (n,) node indices, oldest first
    x: np.ndarray  # (n,) where each is drawn: the date's fractional year (see module doc)
    row: np.ndarray  # (n,) its row in its column, 0 at the bottom
    when: list[When]
    arcs: np.ndarray  # (k, 2) positions in ``nodes`` (source, target) of typed relations
    relations: list[str]  # per arc
    matched: int = 0  # entries the filters and the query keep
    undated: int = 0  # …of which without the property
    refused: list[tuple[str, str]] = field(default_factory=list)  # (id, why), the first few
    refused_count: int = 0
    adjusted: list[tuple[str, str]] = field(default_factory=list)  # (id, note), the first few
    adjusted_count: int = 0
    column: float = MIN_COLUMN  # the width of a column, in years
    message: str = ""  # the empty state's text (when nothing is placed)

    @property
    def n(self) -> int:
        return len(self.nodes)

    def arc_curves(self, points: int = ARC_POINTS) -> tuple[np.ndarray, np.ndarray]:
        """Each arc as a curve of ``points`` points, (xs, ys) of shape (k, points): a
        quadratic Bézier from the source to the target, bowed above them by more the
        further apart they are (in columns), so arcs of one column do not hide each other."""
        k = len(self.arcs)
        if k == 0:
            return np.zeros((0, points)), np.zeros((0, points))
        s, t = self.arcs[:, 0], self.arcs[:, 1]
        x0, y0 = self.x[s], self.row[s].astype(np.float64)
        x2, y2 = self.x[t], self.row[t].astype(np.float64)
        apart = np.abs(x2 - x0) / max(self.column, 1e-12)
        # within one column an arc bows sideways (over it, it would be a line on the stack)
        near = apart < 0.5
        x1 = (x0 + x2) / 2.0 + np.where(near, 0.8 * self.column, 0.0)
        over = np.maximum(y0, y2) + 1.0 + 0.35 * np.minimum(apart, MAX_ROWS)
        y1 = np.where(near, (y0 + y2) / 2.0, over)
        u = np.linspace(0.0, 1.0, points)[None, :]
        a, b, c = (1 - u) ** 2, 2 * (1 - u) * u, u**2
        xs = a * x0[:, None] + b * x1[:, None] + c * x2[:, None]
        ys = a * y0[:, None] + b * y1[:, None] + c * y2[:, None]
        return xs, ys


KEEP_EXAMPLES = 20  # refused and adjusted values kept to show (all are counted)


def build_timeline(
    data: GraphData,
    key: str,
    *,
    query: str = "",
    filters: Filters | None = None,
    file_dates: Mapping[str, tuple[int, int]] | None = None,
) -> Timeline:
    """The timeline of ``data``'s entries by ``key`` (a property, or :data:`MTIME` /
    :data:`CTIME` read from ``file_dates``: id → (ctime_ns, mtime_ns)), of the entries
    ``filters`` and ``query`` keep; typed relations between them (not the ones the filters
    hide) become arcs. Its ``message`` says why when nothing is placed."""
    filters = filters or Filters()
    keep, emask = visible(data, filters)
    cand = np.flatnonzero(keep)
    if query.strip():
        cand = cand[match_nodes(data, query, cand)]
    nodes: list[int] = []
    whens: list[When] = []
    undated = 0
    refused: list[tuple[str, str]] = []
    adjusted: list[tuple[str, str]] = []
    refused_count = adjusted_count = 0
    file_slot = {CTIME: 0, MTIME: 1}.get(key)
    for i in cand.tolist():
        if file_slot is not None:
            times = (file_dates or {}).get(data.ids[i])
            if times is None:
                undated += 1
                continue
            when = file_when(times[file_slot])
        else:
            has, value = _value(data.properties[i], key)
            if not has:
                undated += 1
                continue
            try:
                when = parse_date(value)
            except DateError as exc:
                refused_count += 1
                if len(refused) < KEEP_EXAMPLES:
                    refused.append((data.ids[i], str(exc)))
                continue
        if when.note:
            adjusted_count += 1
            if len(adjusted) < KEEP_EXAMPLES:
                adjusted.append((data.ids[i], when.note))
        nodes.append(i)
        whens.append(when)
    t = _layout(data, key, np.asarray(nodes, dtype=np.int64), whens, emask)
    t.matched, t.undated = len(cand), undated
    t.refused, t.refused_count = refused, refused_count
    t.adjusted, t.adjusted_count = adjusted, adjusted_count
    if t.n == 0:
        t.message = _empty_message(data, key, query, len(cand), refused_count)
    return t


def _layout(
    data: GraphData, key: str, nodes: np.ndarray, whens: list[When], emask: np.ndarray
) -> Timeline:
    n = len(nodes)
    xs = np.fromiter((w.x for w in whens), np.float64, n)
    # oldest first; entries of one date in the graph's order (the index gives it by id)
    order = np.lexsort((nodes, xs)) if n else np.zeros(0, dtype=np.int64)
    nodes, xs = nodes[order], xs[order]
    whens = [whens[j] for j in order.tolist()]
    span = float(xs[-1] - xs[0]) if n else 0.0
    if n >= 50:  # a few far dates (a history note's -49) do not widen every column
        lo, hi = np.percentile(xs, [1.0, 99.0])
        span = float(hi - lo) or span
    column = max(span / COLUMNS, MIN_COLUMN)
    col = np.floor((xs - (xs[0] if n else 0.0)) / column).astype(np.int64)
    # rank within the column: the columns are runs of the sorted array
    starts = np.flatnonzero(np.r_[True, col[1:] != col[:-1]]) if n else np.zeros(0, np.int64)
    sizes = np.diff(np.r_[starts, n])
    rank = np.arange(n) - np.repeat(starts, sizes)
    row = rank % MAX_ROWS
    sub = rank // MAX_ROWS
    subs = np.repeat((sizes + MAX_ROWS - 1) // MAX_ROWS, sizes)  # sub-columns of its column
    x = xs + sub * (column / np.maximum(subs, 1))
    arcs, relations = _arcs(data, nodes, emask)
    return Timeline(key, nodes, x, row.astype(np.int64), whens, arcs, relations, column=column)


def _arcs(data: GraphData, nodes: np.ndarray, emask: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """The typed relations between placed entries, as positions in ``nodes``."""
    e = data.edges
    if len(e) == 0 or len(nodes) == 0:
        return np.zeros((0, 2), dtype=np.int64), []
    where = np.full(data.n, -1, dtype=np.int64)
    where[nodes] = np.arange(len(nodes))
    typed = per_data(data, "typed edges", 0, lambda: np.fromiter(
        (r is not None for r in data.relations), bool, len(e)))  # fmt: skip
    ok = emask & typed & (where[e[:, 0]] >= 0) & (where[e[:, 1]] >= 0)
    idx = np.flatnonzero(ok)[:MAX_ARCS]
    arcs = np.column_stack([where[e[idx, 0]], where[e[idx, 1]]]).astype(np.int64)
    return arcs.reshape(-1, 2), [str(data.relations[k]) for k in idx.tolist()]


def _empty_message(data: GraphData, key: str, query: str, matched: int, refused: int) -> str:
    others = [k for k, _n in date_keys(data) if k != key][:6]
    pick = ("Pick another date property: " + ", ".join(key_label(k) for k in others) + "."
            if others else "Pick another date property.")  # fmt: skip
    if data.n == 0:
        return "The vault has no entries yet."
    if matched == 0:
        what = f"“{query.strip()}”" if query.strip() else "the graph's filters"
        return f"No entry matches {what}. Clear the query or the filters to see entries."
    if refused:
        return (f"None of the {matched} entries has a date the timeline can read in "
                f"“{key_label(key)}” ({refused} values are not dates). {pick}")  # fmt: skip
    return f"No entry has “{key_label(key)}”. {pick}"
