"""The function library of Bases (help page *Functions*): global functions, and methods by
the type of the value they are called on, with JavaScript's behaviour where the help defers
to it. ``filter``/``map``/``reduce`` and ``if`` take their arguments unevaluated (closures):
the list functions evaluate theirs once per element with ``value``, ``index`` and ``acc``
bound, each element a step of the query's budget.
"""

from __future__ import annotations

import datetime as dt
import html
import math
import random
import re
import statistics
from collections.abc import Callable
from typing import Any

from .env import MAX_REGEX_SUBJECT, Compiled, Env
from .rows import MAX_LIST, MAX_TEXT, FileRow
from .values import (
    Date,
    Duration,
    EvalError,
    FileValue,
    Html,
    Icon,
    Image,
    Link,
    Regex,
    date_of_ms,
    display,
    equals,
    hash_key,
    is_empty,
    parse_date,
    parse_duration,
    sort_key,
    to_number,
    truthy,
    type_name,
)

Impl = Callable[[Env, list[Any]], Any]
Method = Callable[[Env, Any, list[Any]], Any]
LazyMethod = Callable[[Env, Any, list[Compiled]], Any]


def _arg(args: list[Any], i: int, default: Any = None) -> Any:
    return args[i] if i < len(args) else default


def _text(v: Any) -> str:
    s = display(v) if not isinstance(v, str) else v
    if len(s) > MAX_TEXT:
        raise EvalError(f"a text of more than {MAX_TEXT:,} characters")
    return s


def _int(v: Any, what: str) -> int:
    n = to_number(v)
    if math.isnan(n) or math.isinf(n):
        raise EvalError(f"{what} must be a number, not “{display(v)}”")
    return int(n)


# ---------------------------------------------------------------- dates
def as_date(v: Any) -> Date:
    if isinstance(v, Date):
        return v
    if isinstance(v, str):
        d = parse_date(v)
        if d is None:
            raise EvalError(f"“{v}” is not a date (write YYYY-MM-DD or YYYY-MM-DD HH:mm:ss)")
        return d
    if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
        try:
            return date_of_ms(v)
        except (OverflowError, OSError, ValueError):
            raise EvalError(f"{display(v)} ms is out of the range of dates") from None
    raise EvalError(f"{type_name(v)} “{display(v)}” is not a date")


def as_duration(v: Any) -> Duration | None:
    if isinstance(v, Duration):
        return v
    if isinstance(v, str):
        return parse_duration(v)
    return None


_MOMENT_RE = re.compile(
    r"\[([^\]]*)\]|YYYY|YY|Q|MMMM|MMM|MM|M|Do|DDDD|DD|D|dddd|ddd|dd|d|E|WW|W|"
    r"HH|H|hh|h|kk|k|mm|m|ss|s|SSS|SS|S|A|a|X|x|ZZ|Z"
)
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]  # fmt: skip
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def moment_format(d: Date, fmt: str) -> str:
    """``d`` written with Moment.js tokens (``YYYY-MM-DD``, ``MMM Do``, ``[week] W``…)."""
    at = d.at

    def token(m: re.Match[str]) -> str:
        t = m.group(0)
        if m.group(1) is not None:
            return m.group(1)
        h12 = at.hour % 12 or 12
        offset = at.astimezone().utcoffset() or dt.timedelta(0)
        mins = int(offset.total_seconds() // 60)
        zone = f"{'+' if mins >= 0 else '-'}{abs(mins) // 60:02d}:{abs(mins) % 60:02d}"
        return {
            "YYYY": f"{at.year:04d}", "YY": f"{at.year % 100:02d}",
            "Q": str((at.month - 1) // 3 + 1),
            "MMMM": _MONTHS[at.month - 1], "MMM": _MONTHS[at.month - 1][:3],
            "MM": f"{at.month:02d}", "M": str(at.month),
            "Do": _ordinal(at.day), "DD": f"{at.day:02d}", "D": str(at.day),
            "DDDD": f"{at.timetuple().tm_yday:03d}",
            "dddd": _DAYS[at.weekday()], "ddd": _DAYS[at.weekday()][:3],
            "dd": _DAYS[at.weekday()][:2], "d": str((at.weekday() + 1) % 7),
            "E": str(at.isoweekday()), "W": str(at.isocalendar()[1]),
            "WW": f"{at.isocalendar()[1]:02d}",
            "HH": f"{at.hour:02d}", "H": str(at.hour), "hh": f"{h12:02d}", "h": str(h12),
            "kk": f"{at.hour or 24:02d}", "k": str(at.hour or 24),
            "mm": f"{at.minute:02d}", "m": str(at.minute),
            "ss": f"{at.second:02d}", "s": str(at.second),
            "SSS": f"{at.microsecond // 1000:03d}", "SS": f"{at.microsecond // 10000:02d}",
            "S": str(at.microsecond // 100000),
            "A": "AM" if at.hour < 12 else "PM", "a": "am" if at.hour < 12 else "pm",
            "X": str(int(d.ms // 1000)), "x": str(int(d.ms)),
            "Z": zone, "ZZ": zone.replace(":", ""),
        }[t]  # fmt: skip

    return _MOMENT_RE.sub(token, fmt)


def relative(d: Date, now: dt.datetime | None = None) -> str:
    """Moment's ``fromNow()``: ``a few seconds ago``, ``3 days ago``, ``in 2 months``."""
    now = now or dt.datetime.now()
    secs = (d.at - now).total_seconds()
    future, s = secs > 0, abs(secs)
    mins, hours, days = s / 60, s / 3600, s / 86400
    if s < 45:
        text = "a few seconds"
    elif s < 90:
        text = "a minute"
    elif mins < 45:
        text = f"{round(mins)} minutes"
    elif mins < 90:
        text = "an hour"
    elif hours < 22:
        text = f"{round(hours)} hours"
    elif hours < 36:
        text = "a day"
    elif days < 26:
        text = f"{round(days)} days"
    elif days < 46:
        text = "a month"
    elif days < 320:
        text = f"{round(days / 30.4)} months"
    elif days < 548:
        text = "a year"
    else:
        text = f"{round(days / 365.25)} years"
    return f"in {text}" if future else f"{text} ago"


# ---------------------------------------------------------------- arithmetic
def _check_size(v: Any) -> Any:
    if isinstance(v, str) and len(v) > MAX_TEXT:
        raise EvalError(f"a text of more than {MAX_TEXT:,} characters")
    if isinstance(v, list) and len(v) > MAX_LIST:
        raise EvalError(f"a list of more than {MAX_LIST:,} elements")
    return v


def _num(n: float) -> float | int:
    return int(n) if isinstance(n, float) and n.is_integer() and abs(n) < 2**53 else n


def arithmetic(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        if isinstance(a, Date) and (d := as_duration(b)) is not None:
            return a.add(d)
        if isinstance(b, Date) and (d := as_duration(a)) is not None:
            return b.add(d)
        if isinstance(a, Duration) and isinstance(b, Duration):
            return Duration(a.months + b.months, a.ms + b.ms)
        if isinstance(a, str) or isinstance(b, str) or isinstance(a, list | dict | Link) \
                or isinstance(b, list | dict | Link):  # fmt: skip
            return _check_size(_text(a) + _text(b))
        return _num(to_number(a) + to_number(b))
    if op == "-":
        if isinstance(a, Date):
            if isinstance(b, Date):
                return Duration(0, a.ms - b.ms)
            if (d := as_duration(b)) is not None:
                return a.add(d, -1)
        if isinstance(a, Duration) and isinstance(b, Duration):
            return Duration(a.months - b.months, a.ms - b.ms)
        return _num(to_number(a) - to_number(b))
    if op == "*":
        if isinstance(a, Duration):
            return a.scale(to_number(b))
        return _num(to_number(a) * to_number(b))
    if op == "/":
        if isinstance(a, Duration) and not isinstance(b, Duration):
            return a.scale(1 / to_number(b)) if to_number(b) else Duration(0, math.inf)
        x, y = to_number(a), to_number(b)
        if y == 0:
            return (
                math.nan
                if x == 0 or math.isnan(x)
                else math.copysign(math.inf, x) * (1 if math.copysign(1, y) > 0 else -1)
            )
        return _num(x / y)
    if op == "%":
        x, y = to_number(a), to_number(b)
        if y == 0 or math.isinf(x) or math.isnan(x) or math.isnan(y):
            return math.nan
        return _num(math.fmod(x, y))
    raise EvalError(f"unknown operator {op}")  # pragma: no cover


# ---------------------------------------------------------------- files and links
def _row_of(env: Env, v: Any) -> FileRow | None:
    """The vault file a value names: a file, a link to one, or a path."""
    if isinstance(v, FileValue):
        return v.row
    ds = env.ctx.dataset
    if isinstance(v, Link):
        return ds.by_path.get(v.path) if v.path else None
    if isinstance(v, str):
        if v in ds.by_path:
            return ds.by_path[v]
        link = env.ctx.make_link(v)
        return ds.by_path.get(link.path) if link.path else None
    return None


def _link_of(row: FileRow, display_text: str | None = None) -> Link:
    return Link(row.path[:-3] if row.ext == "md" else row.path, display_text, row.path)


def file_field(env: Env, row: FileRow, name: str) -> Any:
    if name == "name":
        return row.name
    if name == "basename":
        return row.basename
    if name == "path":
        return row.path
    if name == "folder":
        return row.folder
    if name == "ext":
        return row.ext
    if name in ("size", "mtime", "ctime"):
        if row.size is None and row.entry_id is None:
            env.ctx.dataset.stat_row(row)
        if name == "size":
            return row.size
        return env.ctx.dataset.date_of_ns(row.mtime_ns if name == "mtime" else row.ctime_ns)
    if name == "tags":
        return list(row.tags)
    if name == "links":
        seen: dict[str, Link] = {}
        for lo in row.links:
            if not lo.embed:
                seen.setdefault(lo.path or lo.target, Link(lo.target, None, lo.path))
        return list(seen.values())
    if name == "embeds":
        return [Link(lo.target, None, lo.path) for lo in row.links if lo.embed]
    if name == "backlinks":
        back = env.ctx.dataset.backlinks(row)
        env.ctx.budget.tick(len(back))
        return [_link_of(r) for r in back]
    if name == "properties":
        return dict(env.properties(row))
    if name == "file":
        return FileValue(row)
    return env.properties(row).get(name)


_DATE_FIELDS = {
    "year": lambda d: d.at.year, "month": lambda d: d.at.month, "day": lambda d: d.at.day,
    "hour": lambda d: d.at.hour, "minute": lambda d: d.at.minute,
    "second": lambda d: d.at.second, "millisecond": lambda d: d.at.microsecond // 1000,
}  # fmt: skip
_DURATION_FIELDS = {"days": 86_400_000, "hours": 3_600_000, "minutes": 60_000,
                    "seconds": 1000, "milliseconds": 1}  # fmt: skip


def get_field(env: Env, v: Any, name: str) -> Any:
    """``v.name`` (a field, not a method)."""
    if isinstance(v, FileValue):
        return file_field(env, v.row, name)
    if isinstance(v, dict):
        return v.get(name)
    if isinstance(v, str | list) and name == "length":
        return len(v)
    if isinstance(v, Date) and name in _DATE_FIELDS:
        return _DATE_FIELDS[name](v)
    if isinstance(v, Duration) and name in _DURATION_FIELDS:
        return _num(v.total_ms / _DURATION_FIELDS[name])
    if isinstance(v, Link):
        row = _row_of(env, v)
        return file_field(env, row, name) if row is not None else None
    return None


# ---------------------------------------------------------------- global functions
def _date(env: Env, args: list[Any]) -> Any:
    v = _arg(args, 0)
    return None if v is None else as_date(v)


def _duration(env: Env, args: list[Any]) -> Any:
    v = _arg(args, 0)
    d = as_duration(v)
    if d is None:
        if isinstance(v, int | float) and not isinstance(v, bool):
            return Duration(0, float(v))
        raise EvalError(f'“{display(v)}” is not a duration (write "1d", "2 hours", "1M"…)')
    return d


def _file(env: Env, args: list[Any]) -> Any:
    row = _row_of(env, _arg(args, 0))
    return FileValue(row) if row is not None else None


def _link(env: Env, args: list[Any]) -> Any:
    target, shown = _arg(args, 0), _arg(args, 1)
    shown_text = None if shown is None else display(shown)
    if isinstance(target, FileValue):
        return _link_of(target.row, shown_text)
    if isinstance(target, Link):
        return Link(target.target, shown_text or target.display, target.path)
    if target is None:
        return None
    return env.ctx.make_link(display(target), shown_text)


def _list(env: Env, args: list[Any]) -> Any:
    v = _arg(args, 0)
    if isinstance(v, list):
        return v
    return [] if v is None else [v]


def _numbers(args: list[Any]) -> list[float]:
    flat = [x for a in args for x in (a if isinstance(a, list) else [a])]
    return [to_number(x) for x in flat]


def _max(env: Env, args: list[Any]) -> Any:
    nums = _numbers(args)
    if any(math.isnan(n) for n in nums):
        return math.nan
    return _num(max(nums)) if nums else -math.inf


def _min(env: Env, args: list[Any]) -> Any:
    nums = _numbers(args)
    if any(math.isnan(n) for n in nums):
        return math.nan
    return _num(min(nums)) if nums else math.inf


def _number(env: Env, args: list[Any]) -> Any:
    v = _arg(args, 0)
    n = to_number(v)
    if math.isnan(n) and isinstance(v, str):
        raise EvalError(f"“{v}” is not a number")
    return _num(n)


def _now(env: Env, args: list[Any]) -> Any:
    return Date(dt.datetime.now().replace(microsecond=0), True)


def _today(env: Env, args: list[Any]) -> Any:
    return Date(dt.datetime.combine(dt.date.today(), dt.time()), False)


def _image(env: Env, args: list[Any]) -> Any:
    return Image(_arg(args, 0))


def _if(env: Env, fns: list[Compiled]) -> Any:
    if not 2 <= len(fns) <= 3:
        raise EvalError("if() takes a condition, a result and an optional other result")
    if truthy(fns[0](env)):
        return fns[1](env)
    return fns[2](env) if len(fns) > 2 else None


GLOBALS: dict[str, Impl] = {
    "escapeHTML": lambda env, a: html.escape(_text(_arg(a, 0, ""))),
    "date": _date,
    "duration": _duration,
    "file": _file,
    "html": lambda env, a: Html(_text(_arg(a, 0, ""))),
    "image": _image,
    "icon": lambda env, a: Icon(display(_arg(a, 0, ""))),
    "link": _link,
    "list": _list,
    "max": _max,
    "min": _min,
    "now": _now,
    "number": _number,
    "today": _today,
    "random": lambda env, a: random.random(),
}
LAZY_GLOBALS: dict[str, Callable[[Env, list[Compiled]], Any]] = {"if": _if}


def _as_method(name: str) -> Impl:
    """An early Bases global function (``contains(list, x)``, ``taggedWith(file.file, t)``)
    as the method it became, called on its first argument."""
    return lambda env, a: call_method(env, _arg(a, 0), name, a[1:])


# The first Bases (Obsidian 1.9 early access) wrote these as global functions; files made
# then still hold them (kepano's Shows.base: ``not(empty(note.last))``).
GLOBALS.update({
    "not": lambda env, a: not truthy(_arg(a, 0)),
    "empty": lambda env, a: is_empty(_arg(a, 0)),
    "contains": _as_method("contains"),
    "containsAny": _as_method("containsAny"),
    "containsAll": _as_method("containsAll"),
    "startsWith": _as_method("startsWith"),
    "endsWith": _as_method("endsWith"),
    "taggedWith": _as_method("hasTag"),
    "linksTo": _as_method("hasLink"),
    "inFolder": _as_method("inFolder"),
})  # fmt: skip


# ---------------------------------------------------------------- methods by type
def _contains_text(s: str, v: Any) -> bool:
    return display(v) in s


def _replace(env: Env, s: str, args: list[Any]) -> str:
    pattern, repl = _arg(args, 0), _text(_arg(args, 1, ""))
    if isinstance(pattern, Regex):
        if len(s) > MAX_REGEX_SUBJECT:
            raise EvalError(f"a regular expression over a text of more than "
                            f"{MAX_REGEX_SUBJECT:,} characters")  # fmt: skip
        py_repl = re.sub(r"\$(\d+|&)", lambda m: "\\g<0>" if m.group(1) == "&"
                         else f"\\g<{m.group(1)}>", repl.replace("\\", "\\\\"))  # fmt: skip
        count = 0 if "g" in pattern.flags else 1
        try:
            return _check_size(pattern.compiled.sub(py_repl, s, count=count))
        except (re.error, IndexError) as exc:
            raise EvalError(f"replace(): {exc}") from None
    return _check_size(s.replace(display(pattern), repl))


def _split(env: Env, s: str, args: list[Any]) -> list[str]:
    sep, n = _arg(args, 0), _arg(args, 1)
    if isinstance(sep, Regex):
        if len(s) > MAX_REGEX_SUBJECT:
            raise EvalError("a regular expression over a text that long")
        parts = sep.compiled.split(s)
    else:
        text = display(sep)
        parts = list(s) if text == "" else s.split(text)
    if len(parts) > MAX_LIST:
        raise EvalError(f"a list of more than {MAX_LIST:,} elements")
    env.ctx.budget.tick(len(parts))
    return parts[: _int(n, "split()'s limit")] if n is not None else parts


def _slice(seq: Any, args: list[Any]) -> Any:
    n = len(seq)
    start = _int(_arg(args, 0, 0), "slice()'s start")
    end = _int(_arg(args, 1), "slice()'s end") if _arg(args, 1) is not None else n
    return seq[slice(start, end)]


def _repeat(env: Env, s: str, args: list[Any]) -> str:
    count = _int(_arg(args, 0, 0), "repeat()'s count")
    if count < 0:
        raise EvalError("repeat() count must not be negative")
    if len(s) * count > MAX_TEXT:
        raise EvalError(f"a text of more than {MAX_TEXT:,} characters")
    return s * count


STRING: dict[str, Method] = {
    "contains": lambda env, s, a: _contains_text(s, _arg(a, 0, "")),
    "containsAll": lambda env, s, a: all(_contains_text(s, v) for v in a),
    "containsAny": lambda env, s, a: any(_contains_text(s, v) for v in a),
    "endsWith": lambda env, s, a: s.endswith(display(_arg(a, 0, ""))),
    "startsWith": lambda env, s, a: s.startswith(display(_arg(a, 0, ""))),
    "isEmpty": lambda env, s, a: len(s) == 0,
    "lower": lambda env, s, a: s.lower(),
    "upper": lambda env, s, a: s.upper(),
    "replace": _replace,
    "repeat": _repeat,
    "reverse": lambda env, s, a: s[::-1],
    "slice": lambda env, s, a: _slice(s, a),
    "split": _split,
    "title": lambda env, s, a: re.sub(r"\b\w", lambda m: m.group(0).upper(), s),
    "trim": lambda env, s, a: s.strip(),
}


def _round(env: Env, n: Any, args: list[Any]) -> Any:
    x = to_number(n)
    digits = _int(_arg(args, 0, 0), "round()'s digits")
    if math.isnan(x) or math.isinf(x):
        return x
    scale = 10 ** max(-300, min(digits, 300))
    return _num(math.floor(x * scale + 0.5) / scale)  # JavaScript's Math.round: half up


def _to_fixed(env: Env, n: Any, args: list[Any]) -> str:
    digits = _int(_arg(args, 0, 0), "toFixed()'s precision")
    if not 0 <= digits <= 100:
        raise EvalError("toFixed() precision must be between 0 and 100")
    x = to_number(n)
    return f"{x:.{digits}f}" if math.isfinite(x) else display(x)


NUMBER: dict[str, Method] = {
    "abs": lambda env, n, a: _num(abs(to_number(n))),
    "ceil": lambda env, n, a: (
        _num(float(math.ceil(to_number(n)))) if math.isfinite(to_number(n)) else to_number(n)
    ),
    "floor": lambda env, n, a: (
        _num(float(math.floor(to_number(n)))) if math.isfinite(to_number(n)) else to_number(n)
    ),
    "isEmpty": lambda env, n, a: False,
    "round": _round,
    "toFixed": _to_fixed,
}


def _list_contains(items: list[Any], v: Any) -> bool:
    return any(equals(x, v) for x in items)


def _flat(env: Env, items: list[Any], args: list[Any]) -> list[Any]:
    out: list[Any] = []
    for x in items:
        if isinstance(x, list):
            out.extend(x)
        else:
            out.append(x)
        if len(out) > MAX_LIST:
            raise EvalError(f"a list of more than {MAX_LIST:,} elements")
    env.ctx.budget.tick(len(out))
    return out


def _unique(env: Env, items: list[Any], args: list[Any]) -> list[Any]:
    seen: set[Any] = set()
    out: list[Any] = []
    env.ctx.budget.tick(len(items))
    for x in items:
        try:
            k = hash_key(x)
            if k in seen:
                continue
            seen.add(k)
        except TypeError:
            if _list_contains(out, x):
                continue
        out.append(x)
    return out


def _numeric(items: list[Any]) -> list[float]:
    return [to_number(x) for x in items if not is_empty(x) and not math.isnan(to_number(x))]


LIST: dict[str, Method] = {
    "contains": lambda env, items, a: _list_contains(items, _arg(a, 0)),
    "containsAll": lambda env, items, a: all(_list_contains(items, v) for v in a),
    "containsAny": lambda env, items, a: any(_list_contains(items, v) for v in a),
    "flat": _flat,
    "isEmpty": lambda env, items, a: len(items) == 0,
    "join": lambda env, items, a: _check_size(
        display(_arg(a, 0, ",")).join(display(x) for x in items)
    ),
    "reverse": lambda env, items, a: items[::-1],
    "slice": lambda env, items, a: _slice(items, a),
    "sort": lambda env, items, a: sorted(items, key=sort_key),
    "unique": _unique,
    # not in the help's list but in its summary example (values.mean()) and used so
    "mean": lambda env, items, a: _num(statistics.fmean(v)) if (v := _numeric(items)) else None,
    "sum": lambda env, items, a: _num(math.fsum(_numeric(items))),
    "min": lambda env, items, a: _num(min(v)) if (v := _numeric(items)) else None,
    "max": lambda env, items, a: _num(max(v)) if (v := _numeric(items)) else None,
}


def _each(env: Env, items: Any, fns: list[Compiled], name: str) -> tuple[list[Any], Compiled]:
    if len(fns) < 1:
        raise EvalError(f"{name}() needs an expression")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise EvalError(f"{name}() is a function of a list, not of a {type_name(items)}")
    return items, fns[0]


def _bound(env: Env, **names: Any) -> Env:
    local = dict(env.locals) if env.locals else {}
    local.update(names)
    return env.child(local)


def _filter(env: Env, items: Any, fns: list[Compiled]) -> list[Any]:
    items, fn = _each(env, items, fns, "filter")
    tick = env.ctx.budget.tick
    out = []
    for i, v in enumerate(items):
        tick()
        if truthy(fn(_bound(env, value=v, index=i))):
            out.append(v)
    return out


def _map(env: Env, items: Any, fns: list[Compiled]) -> list[Any]:
    items, fn = _each(env, items, fns, "map")
    tick = env.ctx.budget.tick
    out = []
    for i, v in enumerate(items):
        tick()
        out.append(fn(_bound(env, value=v, index=i)))
    return out


def _reduce(env: Env, items: Any, fns: list[Compiled]) -> Any:
    items, fn = _each(env, items, fns, "reduce")
    acc = fns[1](env) if len(fns) > 1 else None
    tick = env.ctx.budget.tick
    for i, v in enumerate(items):
        tick()
        acc = _check_size(fn(_bound(env, value=v, index=i, acc=acc)))
    return acc


LAZY_METHODS: dict[str, LazyMethod] = {"filter": _filter, "map": _map, "reduce": _reduce}


def _format(env: Env, d: Date, args: list[Any]) -> str:
    fmt = _arg(args, 0, "YYYY-MM-DD")
    if not isinstance(fmt, str) or len(fmt) > 200:
        raise EvalError("format() takes a Moment.js format of at most 200 characters")
    return moment_format(d, fmt)


DATE: dict[str, Method] = {
    "date": lambda env, d, a: Date(dt.datetime.combine(d.at.date(), dt.time()), False),
    "format": _format,
    "time": lambda env, d, a: d.at.strftime("%H:%M:%S"),
    "relative": lambda env, d, a: relative(d),
    "isEmpty": lambda env, d, a: False,
}


def _links_to(env: Env, link: Link, args: list[Any]) -> bool:
    row = _row_of(env, link)
    return row is not None and _has_link(env, row, _arg(args, 0))


LINK: dict[str, Method] = {
    "asFile": lambda env, link, a: FileValue(r) if (r := _row_of(env, link)) else None,
    "linksTo": _links_to,
}


def _has_link(env: Env, row: FileRow, other: Any) -> bool:
    target = _row_of(env, other)
    if target is not None:
        return any(lo.path == target.path for lo in row.links)
    text = (other.target if isinstance(other, Link) else display(other)).lower()
    return any(lo.path is None and lo.target.lower() == text for lo in row.links)


def _has_tag(env: Env, row: FileRow, args: list[Any]) -> bool:
    wanted = [display(a).lstrip("#").lower() for a in args]
    for tag in row.tags:
        t = tag.lower()
        if any(t == w or t.startswith(w + "/") for w in wanted if w):
            return True
    return False


def _in_folder(env: Env, row: FileRow, args: list[Any]) -> bool:
    folder = display(_arg(args, 0, "")).strip("/")
    return not folder or row.path.startswith(folder + "/")


FILE: dict[str, Method] = {
    "asLink": lambda env, f, a: _link_of(f.row, None if _arg(a, 0) is None else display(a[0])),
    "hasLink": lambda env, f, a: _has_link(env, f.row, _arg(a, 0)),
    "hasProperty": lambda env, f, a: display(_arg(a, 0, "")) in f.row.front_matter(),
    "hasTag": lambda env, f, a: _has_tag(env, f.row, a),
    "inFolder": lambda env, f, a: _in_folder(env, f.row, a),
    "linksTo": lambda env, f, a: _has_link(env, f.row, _arg(a, 0)),
    "isEmpty": lambda env, f, a: False,
}

OBJECT: dict[str, Method] = {
    "isEmpty": lambda env, o, a: len(o) == 0,
    "keys": lambda env, o, a: list(o.keys()),
    "values": lambda env, o, a: list(o.values()),
}


def _matches(env: Env, r: Regex, args: list[Any]) -> bool:
    s = _text(_arg(args, 0, ""))
    if len(s) > MAX_REGEX_SUBJECT:
        raise EvalError(f"matches() over a text of more than {MAX_REGEX_SUBJECT:,} characters")
    return r.compiled.search(s) is not None


REGEX: dict[str, Method] = {"matches": _matches}

ANY: dict[str, Method] = {
    "isTruthy": lambda env, v, a: truthy(v),
    "isType": lambda env, v, a: (
        type_name(v) == display(_arg(a, 0, "")).lower()
        or (display(_arg(a, 0, "")).lower() == "array" and isinstance(v, list))
    ),
    "toString": lambda env, v, a: display(v),
    "isEmpty": lambda env, v, a: is_empty(v),
}

_BY_TYPE: dict[type, dict[str, Method]] = {
    str: STRING, int: NUMBER, float: NUMBER, list: LIST, dict: OBJECT, Date: DATE,
    Link: LINK, FileValue: FILE, Regex: REGEX,
}  # fmt: skip
ALL_METHODS = {*STRING, *NUMBER, *LIST, *LAZY_METHODS, *DATE, *LINK, *FILE, *OBJECT, *REGEX,
               *ANY}  # fmt: skip


def call_method(env: Env, recv: Any, name: str, args: list[Any]) -> Any:
    table = _BY_TYPE.get(type(recv)) if not isinstance(recv, bool) else None
    fn = table.get(name) if table else None
    if fn is not None:
        return fn(env, recv, args)
    if isinstance(recv, Link) and name in STRING:  # a link read as its text
        return STRING[name](env, recv.path or recv.target, args)
    if name in ANY:
        return ANY[name](env, recv, args)
    if recv is None:
        if name.startswith("contains") or name in ("startsWith", "endsWith", "hasTag",
                                                   "hasLink", "matches"):  # fmt: skip
            return False
        return None  # a missing property: its formula is empty, not an error
    raise EvalError(f"{name}() is not a function of a {type_name(recv)}")
