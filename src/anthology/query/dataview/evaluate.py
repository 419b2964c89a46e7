"""Dataview's expressions evaluated (``src/expression/context.ts`` and ``binaryop.ts``).

A value that cannot be computed for one row raises :class:`EvalError` (Dataview's per-row
error: the row is left out of a WHERE, its cell shows the message); a spent budget raises
:class:`~anthology.query.rows.BudgetExceeded`, which stops the whole query.

Null propagates as Dataview defines it: ``null.x`` and ``x[null]`` are null, ``null +
null`` is null, a date plus or minus null is null, but a number plus null is an error
("No implementation found for 'number + null'"), and ``"a" + null`` is ``"a-"``.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..rows import MAX_LIST, MAX_TEXT, Budget, Dataset
from ..values import Date, Duration, EvalError, Link, QueryError
from .fields import DvIndex, Layered, PageObject, duration_field, index_of
from .values import Lambda, add_months, compare, date_diff, dv_type, to_string, truthy

Node = tuple


class Context:
    """What one query's evaluation shares: the index, ``this``, the budget, its moment."""

    def __init__(self, dataset: Dataset, this_path: str | None, budget: Budget,
                 functions: Mapping[str, Any]) -> None:  # fmt: skip
        self.dataset = dataset
        self.ix: DvIndex = index_of(dataset)
        self.budget = budget
        self.origin = this_path or ""
        page = self.ix.page(this_path)
        self.this: Mapping[str, Any] = page if page is not None else {}
        self.globals: dict[str, Any] = {"this": self.this}
        self.now = dt.datetime.now()
        self._links: dict[Node, Link] = {}
        self.compiled: dict[int, Callable[[Mapping[str, Any]], Any]] = {}
        self.keep: list[Node] = []
        self.functions = functions  # the library (.functions), which imports this module

    def link(self, node: Node) -> Link:
        """A ``[[link]]`` written in the query, resolved from the note holding it."""
        hit = self._links.get(node)
        if hit is None:
            _, target, display, sub, embed = node
            if not target:  # [[]] and [[#heading]]: the note itself
                path = self.origin or None
                hit = Link(self.origin, display, path, sub, embed)
            else:
                hit = Link(target, display, self.ix.resolve(target, self.origin), sub, embed)
            self._links[node] = hit
        return hit

    def normalize(self, target: str) -> Link:
        """``link("x")``: the file ``x`` resolves to, or ``x`` as written."""
        path = self.ix.resolve(target, self.origin)
        return Link(path or target, None, path)

    def page_of(self, link: Link) -> PageObject | None:
        return self.ix.page(link.path)

    def date_shorthand(self, name: str) -> Date:
        now = self.now
        today = now.replace(hour=0, minute=0, second=0, microsecond=0)
        end = dt.timedelta(microseconds=-1000)
        week = today - dt.timedelta(days=today.weekday())
        month = today.replace(day=1)
        year = month.replace(month=1)
        table = {
            "now": now, "today": today, "yesterday": today - dt.timedelta(days=1),
            "tomorrow": today + dt.timedelta(days=1),
            "sow": week, "start-of-week": week,
            "eow": week + dt.timedelta(days=7) + end,
                                       "end-of-week": week + dt.timedelta(days=7) + end,
            "som": month, "start-of-month": month,
            "eom": add_months(month, 1) + end, "end-of-month": add_months(month, 1) + end,
            "soy": year, "start-of-year": year,
            "eoy": year.replace(year=year.year + 1) + end,
                                "end-of-year": year.replace(year=year.year + 1) + end,
        }  # fmt: skip
        at = table[name]
        return Date(at, at.hour != 0 or at.minute != 0 or at.second != 0)


# ---------------------------------------------------------------- binary operators
def _fail(op: str, a: Any, b: Any) -> EvalError:
    return EvalError(f"No implementation found for '{dv_type(a)} {op} {dv_type(b)}'")


def js_number(n: float) -> float | int:
    if isinstance(n, float) and n.is_integer() and abs(n) < 2**53:
        return int(n)
    return n


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def check_size(v: Any) -> Any:
    if isinstance(v, str) and len(v) > MAX_TEXT:
        raise EvalError(f"a text of more than {MAX_TEXT:,} characters")
    if isinstance(v, list) and len(v) > MAX_LIST:
        raise EvalError(f"a list of more than {MAX_LIST:,} elements")
    return v


def _scale(d: Duration, k: float) -> Duration:
    return Duration(round(d.months * k), d.ms * k)


def binary(op: str, a: Any, b: Any) -> Any:
    if op == "&":
        return truthy(a) and truthy(b)
    if op == "|":
        return truthy(a) or truthy(b)
    if op in ("=", "!=", "<", ">", "<=", ">="):
        c = compare(a, b)
        return {"=": c == 0, "!=": c != 0, "<": c < 0, ">": c > 0, "<=": c <= 0,
                ">=": c >= 0}[op]  # fmt: skip
    if _is_num(a) and _is_num(b):
        if op == "+":
            return js_number(a + b)
        if op == "-":
            return js_number(a - b)
        if op == "*":
            return js_number(a * b)
        if op == "/":
            if b == 0:
                return (
                    math.nan
                    if a == 0 or math.isnan(a)
                    else math.copysign(math.inf, a) * (1 if math.copysign(1, b) > 0 else -1)
                )
            return js_number(a / b)
        if op == "%":
            if b == 0 or math.isinf(a):
                return math.nan
            return js_number(math.fmod(a, b))
    if a is None and b is None:
        return None
    ta, tb = dv_type(a), dv_type(b)
    if op == "+":
        if ta == "string":
            return check_size(a + to_string(b))
        if tb == "string":
            return check_size(to_string(a) + b)
        if ta == "date" and tb == "duration":
            return _add(a, b, 1)
        if ta == "duration" and tb == "date":
            return _add(b, a, 1)
        if ta == "duration" and tb == "duration":
            return Duration(a.months + b.months, a.ms + b.ms)
        if ta == "array" and tb == "array":
            return check_size(a + b)
        if ta == "object" and tb == "object":
            return {**a, **b}
        if (ta, tb) in (("date", "null"), ("null", "date")):
            return None
    elif op == "-":
        if ta == "date" and tb == "date":
            return date_diff(a, b)
        if ta == "date" and tb == "duration":
            return _add(a, b, -1)
        if ta == "duration" and tb == "duration":
            return Duration(a.months - b.months, a.ms - b.ms)
        if (ta, tb) in (("date", "null"), ("null", "date")):
            return None
    elif op == "*":
        if (ta == "string" and tb == "number") or (ta == "number" and tb == "string"):
            s, n = (a, b) if ta == "string" else (b, a)
            if n < 0 or math.isnan(n):
                return ""
            if len(s) * n > MAX_TEXT:
                raise EvalError(f"a text of more than {MAX_TEXT:,} characters")
            return s * int(n)
        if ta == "duration" and tb == "number":
            return _scale(a, b)
        if ta == "number" and tb == "duration":
            return _scale(b, a)
    elif op == "/" and ta == "duration" and tb == "number":
        if b == 0:
            raise EvalError("a duration divided by zero")
        return _scale(a, 1 / b)
    raise _fail(op, a, b)


def _add(d: Date, dur: Duration, sign: int) -> Date:
    at = d.at
    try:
        if dur.months:
            at = add_months(at, sign * dur.months)
        at = at + dt.timedelta(milliseconds=sign * dur.ms)
    except OverflowError:
        raise EvalError("the date is out of range") from None
    return Date(at, d.has_time or bool(at.hour or at.minute or at.second))


# ---------------------------------------------------------------- indexing
_DATE_PARTS = {
    "year": lambda at: at.year, "month": lambda at: at.month,
    "weekyear": lambda at: at.isocalendar()[1], "week": lambda at: at.day // 7 + 1,
    "weekday": lambda at: at.isoweekday(), "day": lambda at: at.day,
    "hour": lambda at: at.hour, "minute": lambda at: at.minute,
    "second": lambda at: at.second, "millisecond": lambda at: at.microsecond // 1000,
}  # fmt: skip


def index(obj: Any, key: Any, ctx: Context) -> Any:
    if key is None:
        return None
    if not isinstance(key, str) and not _is_num(key):
        raise EvalError("Can only index with a string or number")
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        if not isinstance(key, str):
            raise EvalError('can only index into objects with strings (a.b or a["b"])')
        return obj.get(key)
    if isinstance(obj, Link):
        if not isinstance(key, str):
            raise EvalError('can only index into links with strings (a.b or a["b"])')
        page = ctx.page_of(obj)
        return None if page is None else page.get(key)
    if isinstance(obj, list):
        if _is_num(key):
            if not math.isfinite(key) or key != int(key) or not 0 <= key < len(obj):
                return None
            return obj[int(key)]
        ctx.budget.tick(len(obj))
        out = []
        for v in obj:  # "swizzling": rows.file.link is every row's file.link
            try:
                out.append(index(v, key, ctx))
            except EvalError:
                continue
        return out
    if isinstance(obj, str):
        if not _is_num(key):
            raise EvalError("string indexing requires a numeric index (string[index])")
        if not math.isfinite(key) or key != int(key) or not 0 <= key < len(obj):
            return None
        return obj[int(key)]
    if isinstance(obj, Date):
        if not isinstance(key, str):
            raise EvalError("date indexing requires a string representing the unit")
        part = _DATE_PARTS.get(key)
        return part(obj.at) if part else None
    if isinstance(obj, Duration):
        if not isinstance(key, str):
            raise EvalError("duration indexing requires a string representing the unit")
        return duration_field(obj, key)
    return None


# ---------------------------------------------------------------- evaluation
Compiled = Callable[[Mapping[str, Any]], Any]
_MISSING = object()


def evaluate(node: Node, data: Mapping[str, Any], ctx: Context) -> Any:
    """``node``'s value over one row's ``data`` (compiled once per query, then a call)."""
    fn = ctx.compiled.get(id(node))
    if fn is None:
        fn = ctx.compiled[id(node)] = compile_node(node, ctx)
        ctx.keep.append(node)  # the id stays this node's while the query runs
    try:
        return fn(data)
    except _PYTHON_ERRORS as exc:  # a value no rule above foresaw: this row's error
        raise EvalError(f"cannot compute this value ({type(exc).__name__}: {exc})") from None


_PYTHON_ERRORS = (TypeError, ValueError, OverflowError, ZeroDivisionError, ArithmeticError,
                  AttributeError, KeyError, IndexError, re.error, MemoryError)  # fmt: skip


def compile_node(node: Node, ctx: Context) -> Compiled:
    kind = node[0]
    if kind == "lit":
        value = node[1]
        return lambda data: value
    if kind == "var":
        name = node[1]
        globals_ = ctx.globals

        def var(data: Mapping[str, Any]) -> Any:
            v = data.get(name, _MISSING)
            return globals_.get(name) if v is _MISSING else v

        return var
    if kind == "index":
        return _compile_index(node, ctx)
    if kind == "bin":
        return _compile_chain(node, ctx)
    if kind == "not":
        inner = compile_node(node[1], ctx)
        return lambda data: not truthy(inner(data))
    if kind == "call":
        return _compile_call(node, ctx)
    if kind == "link":
        link = ctx.link(node)
        return lambda data: link
    if kind == "date":
        name = node[1]
        return lambda data: ctx.date_shorthand(name)
    if kind == "list":
        items = [compile_node(n, ctx) for n in node[1]]
        return lambda data: [f(data) for f in items]
    if kind == "obj":
        pairs = [(k, compile_node(n, ctx)) for k, n in node[1]]
        return lambda data: {k: f(data) for k, f in pairs}
    if kind == "lambda":
        params, body = list(node[1]), compile_node(node[2], ctx)
        tick = ctx.budget.tick

        def make(data: Mapping[str, Any]) -> Lambda:
            def run(args: list[Any]) -> Any:
                tick()
                return body(Layered(dict(zip(params, args, strict=False)), data))

            return Lambda(params, run)

        return make
    raise QueryError(f"cannot evaluate {kind}")  # pragma: no cover - the parser makes no other


def _compile_chain(node: Node, ctx: Context) -> Compiled:
    """A left-deep chain of operators (``a or b or c …``, ``1 + 2 + 3 …``) as one loop, not
    one closure per operator: a query of a thousand ``or`` does not recurse a thousand deep."""
    steps: list[tuple[str, Compiled]] = []
    while node[0] == "bin":
        steps.append((node[1], compile_node(node[3], ctx)))
        node = node[2]
    steps.reverse()
    first = compile_node(node, ctx)
    if len(steps) == 1:
        op, right = steps[0]
        if op in ("=", "!="):
            want = op == "="
            return lambda data: (compare(first(data), right(data)) == 0) is want
        fn: Compiled = lambda data: binary(op, first(data), right(data))  # noqa: E731
        return _charged(fn, ctx) if op in ("+", "*") else fn

    tick = ctx.budget.tick

    def chain(data: Mapping[str, Any]) -> Any:
        value = first(data)
        for op, right in steps:
            value = binary(op, value, right(data))
            if isinstance(value, str | list) and len(value) > 1024:
                tick(len(value) // 16)
        return value

    return chain


def _charged(fn: Compiled, ctx: Context) -> Compiled:
    """``fn``, its long texts and lists charged to the budget by their size: a query that
    builds a million-character text a hundred thousand times is stopped by its steps before
    it fills the memory."""
    tick = ctx.budget.tick

    def charged(data: Mapping[str, Any]) -> Any:
        v = fn(data)
        if isinstance(v, str | list) and len(v) > 1024:
            tick(len(v) // 16)
        return v

    return charged


def _compile_index(node: Node, ctx: Context) -> Compiled:
    obj, key_node = node[1], node[2]
    if (key_node[0] == "lit" and isinstance(key_node[1], str) and obj[0] != "var") \
            or (key_node[0] == "lit" and obj[0] == "var" and obj[1] != "row"):  # fmt: skip
        key = key_node[1]
        target = compile_node(obj, ctx)

        def member(data: Mapping[str, Any]) -> Any:
            v = target(data)
            if type(v) is dict or (isinstance(v, Mapping) and isinstance(key, str)):
                return v.get(key)
            return index(v, key, ctx)

        return member
    key_fn = compile_node(key_node, ctx)
    if obj == ("var", "row"):
        globals_ = ctx.globals

        def row(data: Mapping[str, Any]) -> Any:
            k = key_fn(data)
            if k is None:
                return None
            if not isinstance(k, str):
                raise EvalError('can only index into objects with strings (a.b or a["b"])')
            return data[k] if k in data else globals_.get(k)

        return row
    target = compile_node(obj, ctx)
    return lambda data: index(target(data), key_fn(data), ctx)


def _compile_call(node: Node, ctx: Context) -> Compiled:
    _, func, arg_nodes, _pos = node
    args = [compile_node(a, ctx) for a in arg_nodes]
    tick = ctx.budget.tick
    if func[0] == "var":
        impl = ctx.functions.get(func[1])
        if impl is None:
            name = func[1]

            def unknown(data: Mapping[str, Any]) -> Any:
                raise EvalError(f"Unrecognized function name '{name}'")

            return unknown

        def call(data: Mapping[str, Any]) -> Any:
            tick()
            return impl(ctx, *[f(data) for f in args])

        return _charged(call, ctx)
    target_fn = compile_node(func, ctx)

    def dynamic(data: Mapping[str, Any]) -> Any:
        tick()
        values = [f(data) for f in args]
        target = target_fn(data)
        if isinstance(target, Lambda):
            return target.call(values)
        if isinstance(target, str) and target in ctx.functions:
            return ctx.functions[target](ctx, *values)
        if isinstance(target, str):
            raise EvalError(f"Unrecognized function name '{target}'")
        raise EvalError(f"Cannot call type '{dv_type(target)}' as a function")

    return dynamic


def check_functions(node: Any, functions: Mapping[str, Any]) -> None:
    """Every function a query names exists (Dataview's message otherwise), checked before
    any row is read."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple) and n:
            if n[0] == "call" and isinstance(n[1], tuple) and n[1][0] == "var" \
                    and n[1][1] not in functions:  # fmt: skip
                raise QueryError(f"Unrecognized function name '{n[1][1]}'")
            stack.extend(x for x in n[1:] if isinstance(x, tuple | list))
        elif isinstance(n, list):
            stack.extend(x for x in n if isinstance(x, tuple | list))
