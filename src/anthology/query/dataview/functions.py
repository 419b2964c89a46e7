"""Dataview's function library (``src/expression/functions.ts``; reference page
*Functions*): every function that needs no JavaScript, with Dataview's dispatch.

A function has variants by the types of its arguments (``"*"`` any type) and may be
*vectorized* over some arguments: called with a list there, it is called once per element
and answers the list (``lower(["A", "B"]) = ["a", "b"]``). Arguments matching no variant
raise Dataview's "No implementation of 'f' found for arguments: …". Every element a
function visits is a step of the query's budget; lists and texts it builds are capped.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from ..env import MAX_REGEX_SUBJECT, make_regex
from ..rows import MAX_LIST, MAX_TEXT
from ..values import Date, Duration, EvalError, Link, QueryError, number_text
from .evaluate import Context, binary, check_size, index, js_number
from .parse import DATE_SHORTHANDS, DURATION_RE, parse_date_text, parse_duration_text
from .values import (
    ExternalLink,
    Lambda,
    compare,
    dv_type,
    equals,
    luxon_format,
    shift_to,
    sort_key,
    strip_markdown,
    to_string,
    truthy,
)

Impl = Callable[..., Any]


class Fn:
    """A function with typed variants and vectorized arguments (Dataview's
    ``FunctionBuilder``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.variants: list[tuple[tuple[str, ...] | None, Impl]] = []
        self.vectorized: dict[int, tuple[int, ...]] = {}
        self._chosen: dict[tuple[str, ...], Impl] = {}

    def add(self, *types: str) -> Callable[[Impl], Impl]:
        def deco(impl: Impl) -> Impl:
            self.variants.append((types, impl))
            return impl

        return deco

    def on(self, types: tuple[str, ...], impl: Impl) -> Fn:
        self.variants.append((types, impl))
        return self

    def vararg(self, impl: Impl) -> Fn:
        self.variants.append((None, impl))
        return self

    def vectorize(self, count: int, *positions: int) -> Fn:
        self.vectorized[count] = positions
        return self

    def __call__(self, ctx: Context, *args: Any) -> Any:
        types = tuple(dv_type(a) for a in args)
        impl = self._chosen.get(types)
        if impl is not None:
            return impl(ctx, *args)
        positions = [p for p in self.vectorized.get(len(args), ()) if types[p] == "array"]
        if positions:
            n = min(len(args[p]) for p in positions)
            ctx.budget.tick(n)
            return [self(ctx, *(a[i] if k in positions else a for k, a in enumerate(args)))
                    for i in range(n)]  # fmt: skip
        for want, impl in self.variants:
            if want is None or (
                len(want) == len(types)
                and all(w in ("*", t) for w, t in zip(want, types, strict=True))
            ):
                self._chosen[types] = impl  # the same types choose the same variant
                return impl(ctx, *args)
        raise EvalError(
            f"No implementation of '{self.name}' found for arguments: {', '.join(types)}"
        )


def _null(ctx: Context, *args: Any) -> None:
    return None


def _fn(name: str) -> Fn:
    return Fn(name)


def _call(f: Lambda, *args: Any) -> Any:
    return f.call(list(args))


# ---------------------------------------------------------------- constructors
def _object(ctx: Context, *args: Any) -> dict[str, Any]:
    if len(args) % 2:
        raise EvalError("object() requires an even number of arguments")
    out: dict[str, Any] = {}
    for i in range(0, len(args), 2):
        if not isinstance(args[i], str):
            raise EvalError("keys should be of type string for object(key1, value1, ...)")
        out[args[i]] = args[i + 1]
    return out


def _date_text(s: str, ctx: Context) -> Date | None:
    s = s.strip()
    if s in DATE_SHORTHANDS:
        return ctx.date_shorthand(s)
    return parse_date_text(s, strict=False)


def _date_link(ctx: Context, link: Link) -> Any:
    for text in (link.display, link.target):
        if text:
            found = parse_date_text(text, strict=False)
            if found is not None:
                return found
    page = ctx.page_of(link)
    return page.day() if page is not None else None


_FORMAT_TOKENS = {
    "yyyy": r"(?P<y>\d{4})", "yy": r"(?P<yy>\d{2})", "MM": r"(?P<M>\d{2})", "M": r"(?P<M>\d{1,2})",
    "dd": r"(?P<d>\d{2})", "d": r"(?P<d>\d{1,2})", "HH": r"(?P<H>\d{2})", "H": r"(?P<H>\d{1,2})",
    "hh": r"(?P<h>\d{2})", "h": r"(?P<h>\d{1,2})", "mm": r"(?P<m>\d{2})", "m": r"(?P<m>\d{1,2})",
    "ss": r"(?P<s>\d{2})", "s": r"(?P<s>\d{1,2})", "SSS": r"(?P<S>\d{3})",
             "a": r"(?P<a>AM|PM|am|pm)",
    "MMMM": r"(?P<MMMM>[A-Za-z]+)", "MMM": r"(?P<MMM>[A-Za-z]{3})",
    "EEEE": r"[A-Za-z]+", "EEE": r"[A-Za-z]{3}",
}  # fmt: skip
_MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december"]  # fmt: skip


def _date_format(ctx: Context, text: str, fmt: str) -> Date:
    """``date(text, format)``: Luxon's ``fromFormat`` for its common tokens."""
    if fmt in ("x", "X"):
        m = re.search(r"-?\d+(?:\.\d+)?", text)
        if not m:
            raise EvalError(f"Not a number for format ({fmt}): {text}")
        ms = float(m.group(0)) * (1000 if fmt == "X" else 1)
        try:
            return Date(dt.datetime.fromtimestamp(ms / 1000), True)
        except (OverflowError, OSError, ValueError):
            raise EvalError(f"{text} is out of the range of dates") from None
    pattern, i = "", 0
    while i < len(fmt):
        if fmt[i] == "'":
            end = fmt.find("'", i + 1)
            end = len(fmt) if end < 0 else end
            pattern += re.escape(fmt[i + 1 : end])
            i = end + 1
            continue
        j = i
        while j < len(fmt) and fmt[j] == fmt[i]:
            j += 1
        tok = fmt[i:j]
        pattern += _FORMAT_TOKENS.get(tok, re.escape(tok))
        i = j
    try:
        m = re.fullmatch(pattern, text.strip())
    except re.error:
        m = None
    if not m:
        raise EvalError(f"Can't handle format ({fmt}) on date string ({text})")
    g = {k: v for k, v in m.groupdict().items() if v is not None}
    year = int(g["y"]) if "y" in g else 2000 + int(g["yy"]) if "yy" in g else ctx.now.year
    month = int(g.get("M", 1))
    for key in ("MMMM", "MMM"):
        if key in g:
            names = [n[: len(g[key])] if key == "MMM" else n for n in _MONTH_NAMES]
            if g[key].lower() not in names:
                raise EvalError(f"Can't handle format ({fmt}) on date string ({text})")
            month = names.index(g[key].lower()) + 1
    hour = int(g.get("H", g.get("h", 0)))
    if "a" in g and "h" in g:
        hour = hour % 12 + (12 if g["a"].lower() == "pm" else 0)
    try:
        at = dt.datetime(year, month, int(g.get("d", 1)), hour, int(g.get("m", 0)),
                         int(g.get("s", 0)), int(g.get("S", 0)) * 1000)  # fmt: skip
    except ValueError as exc:
        raise EvalError(f"Can't handle format ({fmt}) on date string ({text}): {exc}") from None
    return Date(at, any(k in g for k in ("H", "h", "m", "s")))


def _link(ctx: Context, target: Any, display: Any = None, embed: Any = False) -> Any:
    if isinstance(target, Link):
        return Link(target.target, display, target.path, target.subpath, target.embed)
    made = ctx.normalize(target)
    return Link(made.target, display, made.path, None, bool(embed))


def _embed(ctx: Context, link: Link, on: bool = True) -> Link:
    return Link(link.target, link.display, link.path, link.subpath, on)


_NUMBER_RE = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def _number(ctx: Context, s: str) -> Any:
    m = _NUMBER_RE.search(s)
    return js_number(float(m.group(0))) if m else None


_CURRENCY = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "CNY": "CN¥",
             "CAD": "CA$", "AUD": "A$", "KRW": "₩", "BRL": "R$", "MXN": "MX$", "ILS": "₪",
             "NZD": "NZ$", "HKD": "HK$", "TWD": "NT$", "VND": "₫", "PHP": "₱"}  # fmt: skip


def _currency(ctx: Context, n: float, code: str = "USD") -> str:
    """``Intl.NumberFormat("en-US", {style: "currency"})``."""
    code = code.upper()
    if not re.fullmatch(r"[A-Z]{3}", code):
        raise EvalError(f"Invalid currency code : {code}")
    digits = 0 if code in ("JPY", "KRW", "VND") else 2
    body = f"{_round_half(abs(n), digits):,.{digits}f}"
    symbol = _CURRENCY.get(code, code + "\u00a0")
    return f"{'-' if n < 0 else ''}{symbol}{body}"


def _round_half(n: float, digits: int) -> float:
    return float(Decimal(n).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def _round(ctx: Context, n: float, digits: Any = None) -> Any:
    if not math.isfinite(n):
        return n
    if digits is None or digits <= 0:
        return js_number(float(math.floor(n + 0.5)))
    return js_number(_round_half(n, min(int(digits), 100)))


# ---------------------------------------------------------------- numbers and lists
def _minmax(sign: int) -> Fn:
    name = "min" if sign < 0 else "max"
    f = _fn(name)

    def pick(ctx: Context, a: Any, b: Any) -> Any:
        c = compare(a, b)
        return (a if c <= 0 else b) if sign < 0 else (a if c > 0 else b)

    f.on(("*", "null"), lambda ctx, a, _n: a).on(("null", "*"), lambda ctx, _n, a: a)
    f.on(("*", "*"), pick)
    f.on(("array",), lambda ctx, a: f(ctx, *a))

    def many(ctx: Context, *args: Any) -> Any:
        if not args:
            return None
        ctx.budget.tick(len(args))
        best = args[0]
        for x in args[1:]:
            best = f(ctx, best, x)
        return best

    return f.vararg(many)


def _reduce_op(ctx: Context, items: list[Any], op: str) -> Any:
    if not items:
        return None
    if op not in ("+", "-", "*", "/", "&", "|"):
        raise EvalError("reduce(array, op) supports '+', '-', '/', '*', '&', and '|'")
    ctx.budget.tick(len(items))
    value = items[0]
    for x in items[1:]:
        value = check_size(binary(op, value, x))
    return value


def _reduce_fn(ctx: Context, items: list[Any], f: Lambda) -> Any:
    if not items:
        return None
    value = items[0]
    tick = ctx.budget.tick
    for x in items[1:]:
        tick()
        if x is not None:
            value = check_size(f.call([value, x]))
    return value


def _by(sign: int) -> Callable[[Context, list[Any], Lambda], Any]:
    def by(ctx: Context, items: list[Any], f: Lambda) -> Any:
        if not items:
            return None
        mapped = [(v, f.call([v])) for v in items]
        mapped = [p for p in mapped if p[1] is not None]
        if not mapped:
            return items[0]
        best = mapped[0]
        for p in mapped[1:]:
            c = compare(best[1], p[1])
            if (sign < 0 and c > 0) or (sign > 0 and c <= 0):
                best = p
        return best[0]

    return by


def _contains(kind: str) -> Fn:
    f = _fn(kind)

    def in_list(ctx: Context, items: list[Any], x: Any) -> bool:
        ctx.budget.tick(len(items))
        if kind == "econtains":
            return any(equals(x, e) for e in items)
        return any(f(ctx, e, x) for e in items)

    def in_text(ctx: Context, hay: str, needle: str) -> bool:
        if kind == "icontains":
            return needle.lower() in hay.lower()
        return needle in hay

    f.on(("array", "*"), in_list).on(("string", "string"), in_text)
    f.on(("object", "string"), lambda ctx, obj, key: key in obj)
    f.on(("*", "*"), lambda ctx, a, b: equals(a, b))
    return f.vectorize(2, 1)


def _containsword(ctx: Context, hay: str, needle: str) -> bool:
    return re.search(r"\b" + re.escape(needle) + r"\b", hay, re.I) is not None


def _extract(ctx: Context, *args: Any) -> Any:
    if not args:
        raise EvalError("extract(object, key1, ...) requires at least 1 argument")
    obj = args[0]
    if isinstance(obj, list):
        return [_extract(ctx, v, *args[1:]) for v in obj]
    out = {}
    for key in args[1:]:
        if not isinstance(key, str):
            raise EvalError("extract(object, key1, ...) must be called with string keys")
        out[key] = index(obj, key, ctx)
    return out


def _sort(ctx: Context, items: list[Any], key: Lambda | None = None) -> list[Any]:
    ctx.budget.tick(len(items) * max(1, int(math.log2(len(items) + 1))))
    if key is None:
        return sorted(items, key=sort_key)
    return [v for _k, v in sorted(((sort_key(key.call([v])), v) for v in items),
                                  key=lambda p: p[0])]  # fmt: skip


def _flat(ctx: Context, items: list[Any], depth: float = 1) -> list[Any]:
    out: list[Any] = []

    def walk(xs: list[Any], d: float) -> None:
        for x in xs:
            if isinstance(x, list) and d > 0:
                walk(x, d - 1)
            else:
                out.append(x)
                if len(out) > MAX_LIST:
                    raise EvalError(f"a list of more than {MAX_LIST:,} elements")
        ctx.budget.tick(len(xs))

    walk(items, min(depth, 64))
    return out


def _slice(ctx: Context, items: list[Any], start: float = 0, end: Any = None) -> list[Any]:
    return items[int(start) : None if end is None else int(end)]


def _unique(ctx: Context, items: list[Any]) -> list[Any]:
    ctx.budget.tick(len(items))
    seen: set[Any] = set()
    out = []
    for v in items:
        k = sort_key(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def _each(name: str, impl: Callable[[Context, list[Any], Lambda], Any]) -> Fn:
    f = _fn(name)
    f.on(("array", "function"), impl)
    return f.on(("null", "*"), _null)


def _filter(ctx: Context, items: list[Any], f: Lambda) -> list[Any]:
    return [v for v in items if truthy(f.call([v]))]


def _map(ctx: Context, items: list[Any], f: Lambda) -> list[Any]:
    return [f.call([v]) for v in items]


def _quantifier(name: str, test: Callable[[list[bool]], bool]) -> Fn:
    f = _fn(name)
    f.on(("array",), lambda ctx, a: (ctx.budget.tick(len(a)), test([truthy(v) for v in a]))[1])
    f.on(("array", "function"), lambda ctx, a, fn: test([truthy(fn.call([v])) for v in a]))
    return f.vararg(lambda ctx, *args: test([truthy(v) for v in args]))


def _join(ctx: Context, items: list[Any], sep: str = ", ") -> str:
    ctx.budget.tick(len(items))
    return check_size(sep.join(to_string(v) for v in items))


# ---------------------------------------------------------------- text
def _regex(pattern: str, subject: str) -> Any:
    if len(subject) > MAX_REGEX_SUBJECT:
        raise EvalError(f"a regular expression over a text of more than "
                        f"{MAX_REGEX_SUBJECT:,} characters")  # fmt: skip
    try:
        return make_regex(pattern, "").compiled
    except QueryError as exc:
        raise EvalError(str(exc)) from None


def _regexmatch(ctx: Context, pattern: str, s: str) -> bool:
    if not pattern.startswith("^") and not pattern.endswith("$"):
        pattern = "^" + pattern + "$"
    return _regex(pattern, s).search(s) is not None


def _js_replacement(rep: str) -> Callable[[re.Match[str]], str]:
    def expand(m: re.Match[str]) -> str:
        def one(t: re.Match[str]) -> str:
            tok = t.group(1)
            if tok == "$":
                return "$"
            if tok == "&":
                return m.group(0)
            n = int(tok)
            return (m.group(n) or "") if n <= (m.re.groups or 0) else t.group(0)

        return re.sub(r"\$(\$|&|\d{1,2})", one, rep)

    return expand


def _regexreplace(ctx: Context, s: str, pattern: str, rep: str) -> str:
    return check_size(_regex(pattern, s).sub(_js_replacement(rep), s))


def _replace(ctx: Context, s: str, pattern: str, rep: str) -> str:
    if pattern == "":
        return check_size(rep.join(s))
    return check_size(s.replace(pattern, rep))


def _split(ctx: Context, s: str, sep: str, limit: Any = None) -> list[str]:
    regex = _regex(sep, s)
    parts: list[str] = []
    pos = 0
    for m in regex.finditer(s):
        if m.end() == m.start() and (m.start() == 0 or m.start() == len(s)):
            continue
        parts.append(s[pos : m.start()])
        parts += [g or "" for g in m.groups()]
        pos = m.end()
        if len(parts) > MAX_LIST:
            raise EvalError(f"a list of more than {MAX_LIST:,} elements")
    parts.append(s[pos:])
    ctx.budget.tick(len(parts))
    return parts if limit is None else parts[: max(0, int(limit))]


def _pad(left: bool) -> Callable[..., str]:
    def pad(ctx: Context, s: str, length: float, padding: str = " ") -> str:
        n = int(length)
        if n > MAX_TEXT:
            raise EvalError(f"a text of more than {MAX_TEXT:,} characters")
        if n <= len(s) or not padding:
            return s
        fill = (padding * ((n - len(s)) // len(padding) + 1))[: n - len(s)]
        return fill + s if left else s + fill

    return pad


def _substring(ctx: Context, s: str, start: float, end: Any = None) -> str:
    a = max(0, min(len(s), int(start))) if not math.isnan(start) else 0
    b = len(s) if end is None else max(0, min(len(s), int(end)))
    a, b = min(a, b), max(a, b)
    return s[a:b]


def _truncate(ctx: Context, s: str, length: float, suffix: str = "...") -> str:
    n = int(length)
    if len(s) > n - len(suffix):
        return s[: max(0, n - len(suffix))] + suffix
    return s


def _display(ctx: Context, v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, list):
        return ", ".join(_display(ctx, x) for x in v)
    if isinstance(v, ExternalLink):
        return v.label
    if isinstance(v, str):
        return strip_markdown(v)
    if isinstance(v, Link):
        if v.display:
            return _display(ctx, v.display)
        return re.sub(r"\[\[.*\|(.*)\]\]", r"\1", to_string(v))
    return to_string(v)


def _cyrb53(text: str, seed: int = 0) -> int:
    def imul(a: int, b: int) -> int:
        return (a * b) & 0xFFFFFFFF

    h1, h2 = (0xDEADBEEF ^ seed) & 0xFFFFFFFF, (0x41C6CE57 ^ seed) & 0xFFFFFFFF
    for unit in text.encode("utf-16-le").hex(" ", 2).split():  # UTF-16 code units, as JS
        ch = int(unit[2:] + unit[:2], 16)
        h1 = imul(h1 ^ ch, 2654435761)
        h2 = imul(h2 ^ ch, 1597334677)
    h1 = imul(h1 ^ (h1 >> 16), 2246822507)
    h1 ^= imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = imul(h2 ^ (h2 >> 16), 2246822507)
    h2 ^= imul(h1 ^ (h1 >> 13), 3266489909)
    return 4294967296 * (2097151 & h2) + (h1 & 0xFFFFFFFF)


def _durationformat(ctx: Context, d: Duration, fmt: str) -> str:
    """Luxon's ``Duration.toFormat``: ``y M w d h m s S`` padded to the token's length,
    ``'quoted'`` text as written."""
    fields = {"y": "years", "M": "months", "w": "weeks", "d": "days", "h": "hours",
              "m": "minutes", "s": "seconds", "S": "milliseconds"}  # fmt: skip
    tokens: list[tuple[bool, str]] = []
    i = 0
    while i < len(fmt):
        if fmt[i] == "'":
            end = fmt.find("'", i + 1)
            end = len(fmt) if end < 0 else end
            tokens.append((True, fmt[i + 1 : end]))
            i = end + 1
            continue
        j = i
        while j < len(fmt) and fmt[j] == fmt[i]:
            j += 1
        tokens.append((False, fmt[i:j]))
        i = j
    units = [fields[t[0]] for lit, t in tokens if not lit and t[0] in fields]
    order = ["years", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds"]
    values = shift_to(d, sorted(set(units), key=order.index)) if units else {}
    out = []
    for lit, t in tokens:
        if lit or t[0] not in fields:
            out.append(t)
            continue
        n = math.floor(values[fields[t[0]]] + 1e-9)
        out.append(f"{'-' if n < 0 else ''}{abs(n):0{len(t)}d}")
    return "".join(out)


def _meta(ctx: Context, link: Link) -> dict[str, Any]:
    sub = link.subpath
    return {
        "display": link.display, "embed": link.embed,
        "path": link.path if link.path is not None else link.target,
        "subpath": sub.lstrip("^") if sub else None,
        "type": "block" if sub and sub.startswith("^") else "header" if sub else "file",
    }  # fmt: skip


def _striptime(ctx: Context, d: Date) -> Date:
    return Date(d.at.replace(hour=0, minute=0, second=0, microsecond=0), False)


# ---------------------------------------------------------------- the table
def _build() -> dict[str, Any]:
    F: dict[str, Any] = {}
    F["object"] = _object
    F["list"] = F["array"] = lambda ctx, *a: list(a)
    F["date"] = (_fn("date").on(("string",), lambda ctx, s: _date_text(s, ctx))
                 .on(("date",), lambda ctx, d: d).on(("link",), _date_link)
                 .on(("string", "string"), lambda ctx, s, f: _date_format(ctx, s, f))
                 .on(("null", "string"), _null).on(("null",), _null).vectorize(1, 0))  # fmt: skip
    F["dur"] = (_fn("dur").on(("string",), lambda ctx, s: parse_duration_text(s.strip())
                              if DURATION_RE.fullmatch(s.strip()) else None)
                .on(("duration",), lambda ctx, d: d).on(("null",), _null)
                .vectorize(1, 0))  # fmt: skip
    F["number"] = (_fn("number").on(("number",), lambda ctx, n: n).on(("string",), _number)
                   .on(("null",), _null).vectorize(1, 0))  # fmt: skip
    F["string"] = _fn("string").on(("*",), lambda ctx, v: to_string(v))
    F["link"] = (_fn("link").on(("string",), _link).on(("link",), lambda ctx, lk: lk)
                 .on(("null",), _null).vectorize(1, 0)
                 .on(("string", "string"), _link)
                 .on(("string", "string", "boolean"), _link)
                 .on(("link", "string"), _link).on(("null", "*"), _null)
                 .on(("*", "null"), lambda ctx, t, _n: F["link"](ctx, t))
                 .vectorize(2, 0, 1))  # fmt: skip
    F["embed"] = (_fn("embed").on(("link",), _embed).vectorize(1, 0)
                  .on(("link", "boolean"), _embed).on(("null",), _null)
                  .on(("null", "*"), _null).on(("*", "null"), _null)
                  .vectorize(2, 0, 1))  # fmt: skip
    F["elink"] = (_fn("elink").on(("string", "string"), lambda ctx, u, d: ExternalLink(u, d))
                  .on(("string", "null"), lambda ctx, u, _n: ExternalLink(u))
                  .on(("null", "*"), _null).vectorize(2, 0)
                  .on(("string",), lambda ctx, u: ExternalLink(u)).on(("null",), _null)
                  .vectorize(1, 0))  # fmt: skip
    F["typeof"] = _fn("typeof").on(("*",), lambda ctx, v: dv_type(v))
    for name, op in (("trunc", math.trunc), ("floor", math.floor), ("ceil", math.ceil)):
        F[name] = (_fn(name).on(("number",), lambda ctx, n, op=op: n if not math.isfinite(n)
                                else js_number(float(op(n))))
                   .on(("null",), _null).vectorize(1, 0))  # fmt: skip
    F["round"] = (_fn("round").on(("number",), _round).on(("null",), _null).vectorize(1, 0)
                  .on(("number", "number"), _round).on(("number", "null"), _round)
                  .on(("null", "*"), _null).vectorize(2, 0))  # fmt: skip
    F["min"], F["max"] = _minmax(-1), _minmax(1)
    F["reduce"] = (_fn("reduce").on(("array", "string"), _reduce_op)
                   .on(("array", "function"), _reduce_fn).on(("null", "*"), _null)
                   .on(("*", "null"), _null).vectorize(2, 1))  # fmt: skip
    F["sum"] = (_fn("sum").on(("array",), lambda ctx, a: _reduce_op(ctx, a, "+"))
                .on(("*",), lambda ctx, e: e))  # fmt: skip
    F["product"] = (_fn("product").on(("array",), lambda ctx, a: _reduce_op(ctx, a, "*"))
                    .on(("*",), lambda ctx, e: e))  # fmt: skip

    def average(ctx: Context, a: list[Any]) -> Any:
        total = _reduce_op(ctx, a, "+") if a else None
        return None if total is None else binary("/", total, len(a))

    F["average"] = _fn("average").on(("array",), average).on(("*",), lambda ctx, e: e)
    F["minby"] = (_fn("minby").on(("array", "function"), _by(-1))
                  .on(("null", "function"), _null))  # fmt: skip
    F["maxby"] = (_fn("maxby").on(("array", "function"), _by(1))
                  .on(("null", "function"), _null))  # fmt: skip
    for name in ("contains", "icontains", "econtains"):
        F[name] = _contains(name)
    F["containsword"] = (_fn("containsword").on(("string", "string"), _containsword)
                         .on(("null", "*"), _null).on(("*", "null"), _null)
                         .vectorize(2, 0, 1))  # fmt: skip
    F["extract"] = _extract
    F["sort"] = (_fn("sort").on(("array",), _sort).on(("array", "function"), _sort)
                 .on(("*",), lambda ctx, e: e))  # fmt: skip
    F["reverse"] = (_fn("reverse").on(("array",), lambda ctx, a: a[::-1])
                    .on(("string",), lambda ctx, s: s[::-1])
                    .on(("*",), lambda ctx, e: e))  # fmt: skip
    F["length"] = (_fn("length").on(("array",), lambda ctx, a: len(a))
                   .on(("object",), lambda ctx, o: len(o)).on(("string",), lambda ctx, s: len(s))
                   .on(("null",), lambda ctx, _n: 0))  # fmt: skip
    F["nonnull"] = (_fn("nonnull").on(("array",), lambda ctx, a: [v for v in a if v is not None])
                    .vararg(lambda ctx, *a: [v for v in a if v is not None]))  # fmt: skip
    F["firstvalue"] = (_fn("firstvalue").on(("array",), lambda ctx, a: next(
        (v for v in a if v is not None), None)).on(("null",), _null))  # fmt: skip
    F["all"] = _quantifier("all", all)
    F["any"] = _quantifier("any", any)
    F["none"] = _quantifier("none", lambda xs: not any(xs))
    F["join"] = (_fn("join").on(("array", "string"), _join)
                 .on(("array", "null"), lambda ctx, a, _n: _join(ctx, a))
                 .on(("*", "string"), lambda ctx, e, _s: to_string(e))
                 .on(("array",), _join).on(("*",), lambda ctx, e: to_string(e))
                 .vectorize(2, 1))  # fmt: skip
    F["filter"] = _each("filter", _filter)
    F["map"] = _each("map", _map)
    F["unique"] = _fn("unique").on(("array",), _unique).on(("null",), _null)
    F["nonnull"] = F["nonnull"]
    F["meta"] = _fn("meta").on(("link",), _meta)
    F["flat"] = (_fn("flat").on(("array",), _flat).on(("array", "number"), _flat)
                 .on(("null",), _null))  # fmt: skip
    F["slice"] = (_fn("slice").on(("array",), _slice).on(("array", "number"), _slice)
                  .on(("array", "number", "number"), _slice).on(("null",), _null))  # fmt: skip
    F["regextest"] = (_fn("regextest").on(("string", "string"),
                                          lambda ctx, p, s: _regex(p, s).search(s) is not None)
                      .on(("null", "*"), lambda ctx, *a: False)
                      .on(("*", "null"), lambda ctx, *a: False).vectorize(2, 0, 1))  # fmt: skip
    F["regexmatch"] = (_fn("regexmatch").on(("string", "string"), _regexmatch)
                       .on(("null", "*"), lambda ctx, *a: False)
                       .on(("*", "null"), lambda ctx, *a: False).vectorize(2, 0, 1))  # fmt: skip
    for name, impl3 in (("regexreplace", _regexreplace), ("replace", _replace)):
        F[name] = (_fn(name).on(("string", "string", "string"), impl3)
                   .on(("null", "*", "*"), _null).on(("*", "null", "*"), _null)
                   .on(("*", "*", "null"), _null).vectorize(3, 0, 1, 2))  # fmt: skip
    F["lower"] = (_fn("lower").on(("string",), lambda ctx, s: s.lower()).on(("null",), _null)
                  .vectorize(1, 0))  # fmt: skip
    F["upper"] = (_fn("upper").on(("string",), lambda ctx, s: s.upper()).on(("null",), _null)
                  .vectorize(1, 0))  # fmt: skip
    F["split"] = (_fn("split").on(("string", "string"), _split)
                  .on(("string", "string", "number"), _split)
                  .on(("null", "*"), _null).on(("*", "null"), _null)
                  .on(("*", "*", "null"), _null).on(("*", "null", "*"), _null)
                  .on(("null", "*", "*"), _null))  # fmt: skip
    for name, test in (("startswith", str.startswith), ("endswith", str.endswith)):
        F[name] = (_fn(name).on(("string", "string"), lambda ctx, s, x, t=test: t(s, x))
                   .on(("null", "*"), _null).on(("*", "null"), _null)
                   .vectorize(2, 0, 1))  # fmt: skip
    for name, impl in (("padleft", _pad(True)), ("padright", _pad(False)),
                       ("substring", _substring), ("truncate", _truncate)):  # fmt: skip
        third = "string" if name != "substring" else "number"
        F[name] = (_fn(name).on(("string", "number"), impl).on(("string", "number", third), impl)
                   .on(("null", "*"), _null).on(("*", "null"), _null)
                   .on(("null", "*", "*"), _null).on(("*", "null", "*"), _null)
                   .on(("*", "*", "null"), _null).vectorize(2, 0, 1)
                   .vectorize(3, 0, 1, 2))  # fmt: skip
    F["default"] = (_fn("default").on(("*", "*"), lambda ctx, v, d: d if v is None else v)
                    .vectorize(2, 0, 1))  # fmt: skip
    F["ldefault"] = _fn("ldefault").on(("*", "*"), lambda ctx, v, d: d if v is None else v)
    F["display"] = _fn("display").on(("*",), _display)
    F["choice"] = (_fn("choice").on(("*", "*", "*"), lambda ctx, b, x, y: x if truthy(b) else y)
                   .vectorize(3, 0))  # fmt: skip
    F["hash"] = (_fn("hash").on(("string", "number"), lambda ctx, s, v: _cyrb53(s, int(v)))
                 .on(("string", "string"), lambda ctx, s, t: _cyrb53(s + t))
                 .on(("string", "string",
                 "number"), lambda ctx, s, t, v: _cyrb53(s + t, int(v))))  # fmt: skip
    F["striptime"] = (_fn("striptime").on(("date",), _striptime).on(("null",), _null)
                      .vectorize(1, 0))  # fmt: skip
    F["dateformat"] = (_fn("dateformat").on(("date",
                       "string"), lambda ctx, d, f: luxon_format(d, f))
                       .on(("null", "string"), _null).vectorize(2, 0))  # fmt: skip
    F["durationformat"] = (_fn("durationformat").on(("duration", "string"), _durationformat)
                           .on(("null", "string"), _null).vectorize(2, 0))  # fmt: skip
    F["currencyformat"] = (_fn("currencyformat").on(("number", "string"), _currency)
                           .on(("null", "string"), _null).on(("number",), _currency)
                           .on(("null",), _null).vectorize(2, 0))  # fmt: skip
    F["localtime"] = (_fn("localtime").on(("date",), lambda ctx, d: d).on(("null",), _null)
                      .vectorize(1, 0))  # fmt: skip
    return F


FUNCTIONS: dict[str, Any] = _build()
__all__ = ["FUNCTIONS", "Fn", "number_text"]
