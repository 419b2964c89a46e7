"""A ``.base`` file (help page *Bases syntax*) and one of its views evaluated to a table.

:func:`load_base` checks the file's structure (loaded from YAML by the caller, through the
project's safe loader) and compiles its expressions once; :func:`run_view` evaluates a view
over a :class:`~anthology.query.rows.Dataset` into a :class:`ViewResult`: columns, rows
(each with the file it is), groups and summaries, the same for the entry pane, a tab and
``anthology query``. Nothing here knows HTML or Qt.

Keys the help does not list but real files carry are read too: ``columnSize`` (column
widths), ``image``/``cardSize``/``imageFit``/``imageAspectRatio`` (cards), the older
``sort: - column:`` and ``display:`` names. A view of another type (``map``, a plugin's) is
shown as a table, saying so.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from anthology.gc_pause import with_gc_paused

from .env import Compiled, Context, Env
from .expr import compile_expression, compile_node, formula_refs, parse
from .functions import file_field
from .rows import Budget, Dataset, FileRow
from .values import (
    Date,
    Duration,
    EvalError,
    QueryError,
    display,
    hash_key,
    is_empty,
    sort_key,
    to_number,
    truthy,
)

LAYOUTS = ("table", "cards", "list")
MAX_VIEWS = 200
MAX_COLUMNS = 64
MAX_FORMULAS = 500
MAX_FILTER_NODES = 2_000


@dataclass(frozen=True)
class CellError:
    """A value that could not be computed: shown in its cell, the rest of the row stands."""

    message: str

    def __str__(self) -> str:
        return f"⚠ {self.message}"


# ---------------------------------------------------------------- the file's structure
Filter = Callable[[Env], bool]


@dataclass
class View:
    name: str
    type: str
    filter: Filter | None = None
    order: list[str] = field(default_factory=list)
    sort: list[tuple[str, bool]] = field(default_factory=list)  # (property, descending)
    group: tuple[str, bool] | None = None
    limit: int | None = None
    summaries: dict[str, str] = field(default_factory=dict)  # property → summary name
    column_size: dict[str, int] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # the older ``display:`` names
    image: str | None = None
    card_size: int | None = None
    problems: list[str] = field(default_factory=list)


@dataclass
class Base:
    filter: Filter | None
    formulas: dict[str, Compiled]
    formula_errors: dict[str, str]
    labels: dict[str, str]  # property id → display name
    summaries: dict[str, Compiled]  # custom summaries, over ``values``
    views: list[View]
    problems: list[str] = field(default_factory=list)

    def view(self, name: str | None) -> View:
        if not name:
            return self.views[0]
        for pick in (lambda v: v.name == name, lambda v: v.name.lower() == name.lower()):
            found = next((v for v in self.views if pick(v)), None)
            if found is not None:
                return found
        names = ", ".join(f"“{v.name}”" for v in self.views)
        raise QueryError(f"this base has no view named “{name}” (its views: {names})")


def property_id(name: Any) -> str:
    """``author`` → ``note.author``; ``file.name``, ``formula.x``, ``note.x`` as they are."""
    text = str(name).strip()
    if text.startswith(("file.", "formula.", "note.")):
        return text
    return f"note.{text}"


def _filter(spec: Any, where: str, count: list[int]) -> Filter:
    """A filter statement (text) or an ``and``/``or``/``not`` object of them, compiled."""
    count[0] += 1
    if count[0] > MAX_FILTER_NODES:
        raise QueryError(f"{where}: more than {MAX_FILTER_NODES:,} filter statements")
    if isinstance(spec, bool):
        return lambda env: spec
    if isinstance(spec, str | int | float):
        fn = compile_expression(str(spec))

        def test(env: Env) -> bool:
            try:
                return truthy(fn(env))
            except EvalError:
                return False  # a row whose value cannot be computed is not shown

        return test
    if isinstance(spec, dict):
        keys = [k for k in spec if k in ("and", "or", "not")]
        if len(keys) != 1 or len(spec) != 1:
            raise QueryError(f"{where}: a filter group holds one of and, or, not "
                             f"(found {', '.join(map(str, spec)) or 'nothing'})")  # fmt: skip
        key = keys[0]
        items = spec[key]
        if items is None:
            items = []
        if not isinstance(items, list):
            items = [items]
        parts = [_filter(item, where, count) for item in items]
        if key == "and":
            return lambda env: all(p(env) for p in parts)
        if key == "or":
            return lambda env: any(p(env) for p in parts)
        return lambda env: not any(p(env) for p in parts)
    raise QueryError(f"{where}: a filter must be text or an and/or/not group, "
                     f"not {type(spec).__name__}")  # fmt: skip


def _cycles(refs: dict[str, set[str]]) -> dict[str, str]:
    """Each formula on a cycle of references → the message naming the cycle."""
    errors: dict[str, str] = {}
    state: dict[str, int] = {}  # 1 on the path, 2 done
    for start in refs:
        if state.get(start):
            continue
        stack: list[tuple[str, list[str]]] = [(start, sorted(refs.get(start, ())))]
        path = [start]
        state[start] = 1
        while stack:
            node, todo = stack[-1]
            if not todo:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            nxt = todo.pop()
            if nxt not in refs:
                continue
            if state.get(nxt) == 1:
                cycle = [*path[path.index(nxt) :], nxt]
                message = "formula cycle: " + " → ".join(f"formula.{n}" for n in cycle)
                for n in cycle:
                    errors.setdefault(n, message)
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, sorted(refs.get(nxt, ()))))
    return errors


def _int_or_none(v: Any) -> int | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        n = float(v)
    except (TypeError, ValueError):
        return None
    return int(n) if math.isfinite(n) else None


def load_base(data: Any) -> Base:
    """The base a loaded ``.base`` document describes; :class:`QueryError` for one that is
    not a base at all (a list, a filter of the wrong shape, a bad expression in a filter).
    A formula that does not parse is kept as an error shown in its column."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise QueryError(f"a base is a set of keys (filters, formulas, views…), "
                         f"not a {type(data).__name__}")  # fmt: skip
    problems: list[str] = []
    known = {"filters", "formulas", "properties", "summaries", "views", "display"}
    for key in data:
        if key not in known:
            problems.append(f"unknown key “{key}” ignored")
    count = [0]
    base_filter = _filter(data["filters"], "filters", count) if data.get("filters") else None

    raw_formulas = data.get("formulas") or {}
    if not isinstance(raw_formulas, dict):
        raise QueryError("formulas must be a set of name: expression")
    if len(raw_formulas) > MAX_FORMULAS:
        raise QueryError(f"more than {MAX_FORMULAS} formulas")
    formulas: dict[str, Compiled] = {}
    errors: dict[str, str] = {}
    refs: dict[str, set[str]] = {}
    for name, text in raw_formulas.items():
        name = str(name)
        try:
            node = parse(str(text) if not isinstance(text, str) else text)
            refs[name] = formula_refs(node) - {"*"}
            formulas[name] = compile_node(node)
        except QueryError as exc:
            errors[name] = f"formula.{name}: {exc}"
            problems.append(errors[name])
    for name, message in _cycles(refs).items():
        errors[name] = message
        formulas.pop(name, None)
    problems += sorted({m for n, m in errors.items() if m.startswith("formula cycle")})

    labels: dict[str, str] = {}
    props = data.get("properties") or {}
    if isinstance(props, dict):
        for pid, conf in props.items():
            if isinstance(conf, dict):
                label = conf.get("displayName", conf.get("display"))
                if label is not None:
                    labels[property_id(pid)] = str(label)

    shown = data.get("display")  # the first Bases' display names: property → name
    if isinstance(shown, dict):
        for pid, label in shown.items():
            if label is not None:
                labels.setdefault(property_id(pid), str(label))

    summaries: dict[str, Compiled] = {}
    raw_summaries = data.get("summaries") or {}
    if isinstance(raw_summaries, dict):
        for name, text in raw_summaries.items():
            try:
                summaries[str(name)] = compile_expression(str(text))
            except QueryError as exc:
                problems.append(f"summary {name}: {exc}")

    raw_views = data.get("views")
    if raw_views is None:
        raw_views = []
    if not isinstance(raw_views, list):
        raise QueryError("views must be a list")
    if len(raw_views) > MAX_VIEWS:
        raise QueryError(f"more than {MAX_VIEWS} views")
    views = [_view(v, i, count) for i, v in enumerate(raw_views)]
    if not views:
        views = [View(name="Table", type="table")]
    return Base(base_filter, formulas, errors, labels, summaries, views, problems)


def _view(spec: Any, i: int, count: list[int]) -> View:
    if not isinstance(spec, dict):
        raise QueryError(f"view {i + 1} is not a set of keys")
    name = str(spec.get("name") or f"View {i + 1}")
    view = View(name=name, type=str(spec.get("type") or "table"))
    if spec.get("filters"):
        view.filter = _filter(spec["filters"], f"view “{name}” filters", count)
    order = spec.get("order") or []
    if isinstance(order, list):
        view.order = [property_id(p) for p in order if p is not None][:MAX_COLUMNS]
        if len(order) > MAX_COLUMNS:
            view.problems.append(f"only the first {MAX_COLUMNS} columns are shown")
    sort = spec.get("sort") or []
    for s in sort if isinstance(sort, list) else [sort]:
        if isinstance(s, dict) and (s.get("property") or s.get("column")):
            prop = property_id(s.get("property") or s.get("column"))
            view.sort.append((prop, str(s.get("direction", "ASC")).upper() == "DESC"))
        elif isinstance(s, str):
            view.sort.append((property_id(s), False))
    group = spec.get("groupBy")
    if isinstance(group, dict) and group.get("property"):
        view.group = (property_id(group["property"]),
                      str(group.get("direction", "ASC")).upper() == "DESC")  # fmt: skip
    elif isinstance(group, str) and group:
        view.group = (property_id(group), False)
    if spec.get("limit") is not None:
        limit = _int_or_none(spec.get("limit"))
        if limit is None or limit < 0:
            view.problems.append(f"limit “{spec.get('limit')}” is not a number: ignored")
        else:
            view.limit = limit
    summaries = spec.get("summaries") or {}
    if isinstance(summaries, dict):
        view.summaries = {property_id(k): str(v) for k, v in summaries.items() if v}
    sizes = spec.get("columnSize") or {}
    if isinstance(sizes, dict):
        view.column_size = {property_id(k): n for k, v in sizes.items()
                            if (n := _int_or_none(v)) is not None and n > 0}  # fmt: skip
    shown = spec.get("display") or {}
    if isinstance(shown, dict):
        view.labels = {property_id(k): str(v) for k, v in shown.items() if v is not None}
    if spec.get("image"):
        view.image = property_id(spec["image"])
    view.card_size = _int_or_none(spec.get("cardSize"))
    return view


# ---------------------------------------------------------------- the result
@dataclass
class Column:
    id: str
    label: str
    width: int | None = None


@dataclass
class ResultRow:
    file: FileRow
    cells: list[Any]
    image: Any = None


@dataclass
class Group:
    value: Any  # None: the rows without a value (or the one group of an ungrouped view)
    label: str
    rows: list[ResultRow]
    summaries: dict[str, Any] = field(default_factory=dict)


@dataclass
class ViewResult:
    view: str
    views: list[str]
    type: str  # as written
    layout: str  # table, cards or list: how it is drawn
    columns: list[Column]
    groups: list[Group]
    summaries: dict[str, Any]  # column id → the summary over every row shown
    summary_names: dict[str, str]
    total: int  # rows that passed the filters (before the limit)
    grouped: bool
    notices: list[str] = field(default_factory=list)
    image: str | None = None
    card_size: int | None = None
    steps: int = 0

    @property
    def rows(self) -> list[ResultRow]:
        return [r for g in self.groups for r in g.rows]


def default_label(pid: str) -> str:
    if pid == "file.name":
        return "file name"
    return pid.split(".", 1)[1] if pid.startswith(("note.", "formula.")) else pid


def getter(pid: str) -> Callable[[Env], Any]:
    """The value of property ``pid`` for an env's row (errors as :class:`CellError`)."""
    kind, _, name = pid.partition(".")
    if kind == "file":

        def get(env: Env) -> Any:
            assert env.row is not None
            return file_field(env, env.row, name)
    elif kind == "formula":

        def get(env: Env) -> Any:
            return env.formula(name)
    else:

        def get(env: Env) -> Any:
            return env.properties().get(name)

    def safe(env: Env) -> Any:
        try:
            return get(env)
        except EvalError as exc:
            return CellError(str(exc))

    return safe


# ---------------------------------------------------------------- summaries
def _nums(values: list[Any]) -> list[float]:
    out = []
    for v in values:
        if is_empty(v) or isinstance(v, CellError | bool):
            continue
        n = to_number(v)
        if not math.isnan(n):
            out.append(n)
    return out


def _dates(values: list[Any]) -> list[Date]:
    return [v for v in values if isinstance(v, Date)]


def _num_or_none(n: float | None) -> Any:
    if n is None:
        return None
    return int(n) if float(n).is_integer() else round(n, 10)


def _range(values: list[Any]) -> Any:
    dates = _dates(values)
    if dates:
        return Duration(0, max(d.ms for d in dates) - min(d.ms for d in dates))
    nums = _nums(values)
    return _num_or_none(max(nums) - min(nums)) if nums else None


BUILTIN_SUMMARIES: dict[str, Callable[[list[Any]], Any]] = {
    "Average": lambda vs: _num_or_none(statistics.fmean(n)) if (n := _nums(vs)) else None,
    "Min": lambda vs: _num_or_none(min(n)) if (n := _nums(vs)) else None,
    "Max": lambda vs: _num_or_none(max(n)) if (n := _nums(vs)) else None,
    "Sum": lambda vs: _num_or_none(math.fsum(_nums(vs))),
    "Range": _range,
    "Median": lambda vs: _num_or_none(statistics.median(n)) if (n := _nums(vs)) else None,
    "Stddev": lambda vs: _num_or_none(statistics.pstdev(n)) if (n := _nums(vs)) else None,
    "Earliest": lambda vs: min(d, key=lambda x: x.ms) if (d := _dates(vs)) else None,
    "Latest": lambda vs: max(d, key=lambda x: x.ms) if (d := _dates(vs)) else None,
    "Checked": lambda vs: sum(1 for v in vs if v is True),
    "Unchecked": lambda vs: sum(1 for v in vs if v is False),
    "Empty": lambda vs: sum(1 for v in vs if is_empty(v)),
    "Filled": lambda vs: sum(1 for v in vs if not is_empty(v)),
    "Unique": lambda vs: len({_hashable(v) for v in vs if not is_empty(v)}),
}
_SUMMARY_NAMES = {k.lower(): k for k in BUILTIN_SUMMARIES}


def _hashable(v: Any) -> Any:
    key = hash_key(v)
    try:
        hash(key)
    except TypeError:
        return repr(key)
    return key


def summarise(name: str, values: list[Any], base: Base, ctx: Context) -> Any:
    if name in base.summaries:
        env = Env(ctx, None, {"values": values})
        try:
            return base.summaries[name](env)
        except EvalError as exc:
            return CellError(str(exc))
    builtin = BUILTIN_SUMMARIES.get(name) or BUILTIN_SUMMARIES.get(
        _SUMMARY_NAMES.get(name.lower(), "")
    )
    if builtin is None:
        return CellError(f"unknown summary “{name}”")
    return builtin(values)


# ---------------------------------------------------------------- evaluation
@with_gc_paused
def run_view(
    base: Base,
    dataset: Dataset,
    view_name: str | None = None,
    *,
    this: FileRow | None = None,
    budget: Budget | None = None,
    link_source: str = "",
) -> ViewResult:
    """Evaluate one view (the first when ``view_name`` is None) over ``dataset``.

    ``this`` is the base file when the base is opened, or the note that embeds it.
    Raises :class:`QueryError` (bad view name, budget spent)."""
    view = base.view(view_name)
    budget = budget or Budget()
    ctx = Context(dataset, budget, this, base.formulas, base.formula_errors, link_source)
    notices = list(base.problems) + list(view.problems)
    layout = view.type if view.type in LAYOUTS else "table"
    if layout != view.type:
        notices.append(f"a “{view.type}” view is shown as a table (Anthology draws tables, "
                       "cards and lists)")  # fmt: skip

    tests = [f for f in (base.filter, view.filter) if f is not None]
    matched: list[Env] = []
    tick = budget.tick
    for row in dataset.rows:
        tick()
        env = Env(ctx, row)
        if all(t(env) for t in tests):
            matched.append(env)

    columns_ids = view.order or ["file.name"]
    labels = {**base.labels, **view.labels}
    columns = [Column(pid, labels.get(pid, default_label(pid)), view.column_size.get(pid))
               for pid in columns_ids]  # fmt: skip

    for pid, desc in reversed(view.sort):
        get = getter(pid)
        keyed = [(get(env), env) for env in matched]
        tick(len(keyed))
        keyed.sort(key=_pair_key(desc), reverse=desc)
        matched = [env for _v, env in keyed]
    total = len(matched)
    if view.limit is not None:
        matched = matched[: view.limit]

    getters = [getter(c.id) for c in columns]
    image = getter(view.image) if view.image else None
    rows: list[tuple[Env, ResultRow]] = []
    for env in matched:
        tick(len(getters))
        assert env.row is not None
        rows.append((env, ResultRow(env.row, [g(env) for g in getters],
                                    image(env) if image else None)))  # fmt: skip

    groups: list[Group]
    if view.group is not None:
        gpid, gdesc = view.group
        gget = getter(gpid)
        buckets: dict[Any, tuple[Any, list[tuple[Env, ResultRow]]]] = {}
        for env, r in rows:
            value = gget(env)
            key = _hashable(value) if not is_empty(value) else None
            buckets.setdefault(key, (value if key is not None else None, []))[1].append((env, r))
        ordered = sorted(buckets.values(), key=lambda b: _order_key(b[0], gdesc), reverse=gdesc)
        groups = [Group(value, display(value) if value is not None else "No value",
                        [r for _e, r in members]) for value, members in ordered]  # fmt: skip
    else:
        groups = [Group(None, "", [r for _e, r in rows])]

    index = {c.id: i for i, c in enumerate(columns)}
    overall: dict[str, Any] = {}
    for pid, name in view.summaries.items():
        col = index.get(pid)
        if col is not None:
            values = [r.cells[col] for g in groups for r in g.rows]
        else:  # a summary of a property not shown: computed from the rows all the same
            get = getter(pid)
            values = [get(env) for env, _r in rows]
        overall[pid] = summarise(name, values, base, ctx)
        if view.group is not None:
            for g in groups:
                if col is not None:
                    g.summaries[pid] = summarise(name, [r.cells[col] for r in g.rows], base, ctx)
    return ViewResult(
        view=view.name,
        views=[v.name for v in base.views],
        type=view.type,
        layout=layout,
        columns=columns,
        groups=groups,
        summaries=overall,
        summary_names=dict(view.summaries),
        total=total,
        grouped=view.group is not None,
        notices=notices,
        image=view.image,
        card_size=view.card_size,
        steps=budget.steps,
    )


def _pair_key(desc: bool) -> Callable[[tuple[Any, Env]], tuple]:
    return lambda pair: _order_key(pair[0], desc)


def _order_key(value: Any, desc: bool) -> tuple:
    """Sort key putting empty values (and errors) last in either direction."""
    empty = is_empty(value) or isinstance(value, CellError)
    return (int(empty) ^ int(desc), sort_key(value) if not empty else (0,))


def resort(result: ViewResult, column: int, descending: bool) -> ViewResult:
    """The same result sorted by one of its columns (a click on a header): the rows of each
    group reordered, nothing evaluated again, the file never written."""
    groups = [
        Group(
            g.value,
            g.label,
            sorted(
                g.rows, key=lambda r: _order_key(r.cells[column], descending), reverse=descending
            ),
            g.summaries,
        )
        for g in result.groups
    ]
    return ViewResult(**{**result.__dict__, "groups": groups})
