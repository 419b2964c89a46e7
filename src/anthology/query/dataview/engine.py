"""A DQL query run over a dataset (``src/query/engine.ts``, ``src/data-index/resolver.ts``).

The source (``FROM``) picks notes; the data commands then run in the order written over
rows ``(id, data)``: a note's row is its link and its page object, a task's row the task
over its note's fields, a ``GROUP BY`` row ``{key, rows, <name>}`` with the group's key as
its id; ``FLATTEN`` lays a name over each copy of a row. A row whose WHERE, SORT, GROUP or
FLATTEN expression fails is left out (Dataview's rule); when every row fails, the query
fails with the first messages. A column that fails shows a
:class:`~anthology.query.bases.CellError` in its cell and the row stays (Dataview would
drop the row: the error in place says more).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from anthology.gc_pause import with_gc_paused

from ..bases import CellError
from ..rows import Budget, Dataset
from ..values import Date, EvalError, Link, QueryError
from .evaluate import Context, check_functions, evaluate
from .fields import Layered, PageObject
from .functions import FUNCTIONS
from .parse import Node, Query, parse_expression
from .result import CalendarDay, DqlResult, TaskGroup, TaskRow
from .values import Lambda, compare, dv_type, sort_key, truthy

Row = tuple[Any, Mapping[str, Any]]
MAX_DEPTH_PLAIN = 4  # how deep an object in a cell is copied out of the lazy page objects


def check_query(q: Query) -> None:
    exprs: list[Any] = [f.expr for f in q.fields]
    for op in q.ops:
        if op[0] in ("where", "limit"):
            exprs.append(op[1])
        elif op[0] == "sort":
            exprs += [e for e, _d in op[1]]
        else:
            exprs.append(op[1].expr)
    for e in exprs:
        check_functions(e, FUNCTIONS)


# ---------------------------------------------------------------- sources
def _paths(source: Node, ctx: Context) -> set[str]:
    ix = ctx.ix
    kind = source[0]
    if kind == "tag":
        return set(ix.tagged(source[1]))
    if kind == "folder":
        folder = source[1].strip().strip("/")
        if not folder:
            return {r.path for r in ix.pages}
        if ix.is_folder(folder):
            return {r.path for r in ix.pages if r.path.startswith(folder + "/")}
        for candidate in (folder, folder + ".md"):
            if ix.page(candidate) is not None:
                return {candidate}
        return set()
    if kind in ("incoming", "outgoing"):
        link = ctx.link(source[1])
        if link.path is None:
            return set(ix.unresolved_inlinks(link.target)) if kind == "incoming" else set()
        if kind == "incoming":
            return set(ix.inlinks(link.path))
        page = ix.page(link.path)
        if page is None:
            return set()
        return {lo.path for lo in page.row.links if lo.path is not None and ix.page(lo.path)}
    if kind == "and":
        return _paths(source[1], ctx) & _paths(source[2], ctx)
    if kind == "or":
        return _paths(source[1], ctx) | _paths(source[2], ctx)
    if kind == "not":
        return {r.path for r in ix.pages} - _paths(source[1], ctx)
    raise QueryError(f"unknown source {kind}")  # pragma: no cover


def _pages(q: Query, ctx: Context) -> list[Row]:
    ix = ctx.ix
    if q.source is None:
        rows = ix.pages
    else:
        wanted = _paths(q.source, ctx)
        rows = [r for r in ix.pages if r.path in wanted]
    ctx.budget.tick(len(rows))
    out: list[Row] = []
    for r in rows:
        page = ix.page(r.path)
        assert page is not None
        out.append(page.as_row())
    return out


# ---------------------------------------------------------------- the data commands
def _failed(op: str, errors: list[str]) -> QueryError:
    first = "\n".join(f"- {m}" for m in errors[:3])
    return QueryError(f"Every row during operation '{op}' failed with an error; first "
                      f"{min(3, len(errors))}:\n{first}")  # fmt: skip


def _value(node: Node, data: Mapping[str, Any], ctx: Context, errors: list[str]) -> Any:
    try:
        return evaluate(node, data, ctx)
    except EvalError as exc:
        errors.append(str(exc))
        raise
    except RecursionError:
        errors.append("the expression nests too deeply")
        raise EvalError("the expression nests too deeply") from None


def execute(rows: list[Row], ops: list[Node], ctx: Context) -> tuple[list[Row], list[str]]:
    """The data commands over ``rows``; with the names the id column has taken (the
    ``GROUP BY`` names, innermost last)."""
    meaning: list[str] = []
    tick = ctx.budget.tick
    for op in ops:
        kind = op[0]
        incoming = len(rows)
        errors: list[str] = []
        if kind == "where":
            kept = []
            for row in rows:
                tick()
                try:
                    if truthy(_value(op[1], row[1], ctx, errors)):
                        kept.append(row)
                except EvalError:
                    continue
            rows = kept
        elif kind == "sort":
            keyed = []
            for row in rows:
                tick()
                try:
                    keyed.append(([_value(e, row[1], ctx, errors) for e, _d in op[1]], row))
                except EvalError:
                    continue
            tick(len(keyed) * 8)
            for n in range(len(op[1]) - 1, -1, -1):  # stable sorts, last key first
                keyed.sort(key=_nth_key(n), reverse=op[1][n][1])
            rows = [r for _k, r in keyed]
        elif kind == "limit":
            try:
                amount = evaluate(op[1], {}, ctx)
            except EvalError as exc:
                raise QueryError(f"Failed to execute 'limit' statement: {exc}") from None
            if not isinstance(amount, int | float) or isinstance(amount, bool):
                raise QueryError("Failed to execute 'limit' statement: limit should be a "
                                 f"number, but got '{dv_type(amount)}' ({amount})")  # fmt: skip
            rows = rows[: max(0, int(amount))]
        elif kind == "group":
            named = op[1]
            keyed = []
            for row in rows:
                tick()
                try:
                    keyed.append((_value(named.expr, row[1], ctx, errors), row))
                except EvalError:
                    continue
            tick(len(keyed) * 8)
            keyed.sort(key=lambda p: sort_key(p[0]))
            groups: list[tuple[Any, list[Any]]] = []
            for key, row in keyed:
                if groups and compare(groups[-1][0], key) == 0:
                    groups[-1][1].append(row[1])
                else:
                    groups.append((key, [row[1]]))
            rows = [(key, {"key": key, "rows": members, named.name: key})
                    for key, members in groups]  # fmt: skip
            meaning.append(named.name)
        elif kind == "flatten":
            named = op[1]
            out: list[Row] = []
            for row in rows:
                tick()
                try:
                    value = _value(named.expr, row[1], ctx, errors)
                except EvalError:
                    continue
                for v in value if isinstance(value, list) else [value]:
                    tick()
                    out.append((row[0], Layered({named.name: v}, row[1])))
            rows = out
            if meaning and meaning[-1] == named.name:
                meaning.pop()
        if errors and len(errors) >= incoming > 0:
            raise _failed(kind, errors)
    return rows, meaning


def _nth_key(n: int) -> Callable[[tuple[list[Any], Row]], tuple]:
    return lambda pair: sort_key(pair[0][n])


# ---------------------------------------------------------------- values handed out
def plain(v: Any, depth: int = 0) -> Any:
    """A value for the renderer: lazy page objects copied into dicts (a few levels deep;
    deeper, an empty object), functions as text."""
    if isinstance(v, list):
        if not any(isinstance(x, list | Mapping | Lambda) for x in v):
            return v
        return [plain(x, depth + 1) for x in v]
    if isinstance(v, Mapping):
        if depth >= MAX_DEPTH_PLAIN:
            return {}
        return {k: plain(x, depth + 1) for k, x in v.items()}
    if isinstance(v, Lambda):
        return "<function>"
    return v


def _cells(exprs: list[Node], data: Mapping[str, Any], ctx: Context,
           errors: list[str]) -> list[Any]:  # fmt: skip
    out: list[Any] = []
    for e in exprs:
        try:
            out.append(plain(evaluate(e, data, ctx)))
        except EvalError as exc:
            errors.append(str(exc))
            out.append(CellError(str(exc)))
    return out


def _extract(q: Query, rows: list[Row], ctx: Context, limit: int | None,
             ) -> tuple[list[list[Any]], list[str]]:  # fmt: skip
    exprs = [f.expr for f in q.fields]
    shown = rows if limit is None else rows[: max(0, limit)]
    errors: list[str] = []
    out = []
    for row_id, data in shown:
        ctx.budget.tick()
        cells = _cells(exprs, data, ctx, errors) if exprs else []
        out.append((cells, plain(row_id)))
    if exprs and shown and len(errors) >= len(shown) * len(exprs):
        raise _failed("extract", errors)
    result = []
    for cells, row_id in out:
        if q.type == "table" or exprs:
            result.append(([row_id] if q.show_id else []) + cells)
        else:
            result.append([row_id])
    return result, errors


def _shown_under(items: list[Mapping[str, Any]]) -> set[tuple[Any, Any]]:
    """Every item the result shows: its own items and all their descendants."""
    seen: set[tuple[Any, Any]] = set()
    stack = list(items)
    while stack:
        item = stack.pop()
        key = (item.get("path"), item.get("line"))
        if key not in seen:
            seen.add(key)
            stack.extend(item.get("children") or [])
    return seen


def _task_rows(items: list[Mapping[str, Any]], budget: Budget,
               shown: set[tuple[Any, Any]] | None = None) -> list[TaskRow]:  # fmt: skip
    """Dataview's ``nestItems``: an item shown under a parent in the result is not shown
    again on its own."""
    shown = _shown_under(items) if shown is None else shown
    out = []
    for item in items:
        parent = item.get("parent")
        if parent is not None and (item.get("path"), parent) in shown:
            continue
        out.append(_task_row(item, budget, 0))
    return out


def _task_row(item: Mapping[str, Any], budget: Budget, depth: int) -> TaskRow:
    budget.tick()
    children = item.get("children") or []
    return TaskRow(
        path=str(item.get("path")),
        line=int(item.get("line") or 0),
        text=str(item.get("text") or ""),
        status=item.get("status") if item.get("task") else None,
        children=tuple(_task_row(c, budget, depth + 1) for c in children) if depth < 50 else (),
    )


def _count(tasks: tuple[TaskRow, ...] | list[TaskRow]) -> int:
    return sum(1 + _count(t.children) for t in tasks)


def _tasks(q: Query, ctx: Context) -> DqlResult:
    rows: list[Row] = []
    for _id, page in _pages(q, ctx):
        assert isinstance(page, PageObject)
        page_tasks = page.task_rows()
        ctx.budget.tick(len(page_tasks))
        rows += page_tasks
    rows, meaning = execute(rows, q.ops, ctx)
    groups: list[TaskGroup] = []
    if meaning:
        for key, data in rows:
            members = _flatten_groups(data, len(meaning) - 1)
            groups.append(TaskGroup(plain(key), tuple(_task_rows(members, ctx.budget))))
    else:  # under the note each stands in, in the result's order (a new heading each time
        # a SORT moves to another note)
        items = [data for _id, data in rows]
        shown = _shown_under(items)
        runs: list[tuple[str, list[Mapping[str, Any]]]] = []
        for data in items:
            path = str(data.get("path"))
            if not runs or runs[-1][0] != path:
                runs.append((path, []))
            runs[-1][1].append(data)
        for path, members in runs:
            tasks = tuple(_task_rows(members, ctx.budget, shown))
            if tasks:
                groups.append(TaskGroup(Link(path, None, path), tasks))
    total = sum(_count(g.tasks) for g in groups)
    warnings = []
    if len(meaning) > 1:
        warnings.append("tasks grouped more than once are shown under their outermost group")
    return DqlResult("task", tasks=groups, total=total, warnings=warnings)


def _flatten_groups(data: Mapping[str, Any], levels: int) -> list[Mapping[str, Any]]:
    members = list(data.get("rows") or [])
    for _ in range(levels):
        members = [m for g in members for m in (g.get("rows") or [])]
    return members


# ---------------------------------------------------------------- entry points
@with_gc_paused
def run_query(query: Query, dataset: Dataset, *, this_path: str | None, budget: Budget,
              limit_rows: int | None = None) -> DqlResult:  # fmt: skip
    """``query`` answered over ``dataset`` from the note ``this_path`` (``this``, ``[[]]``);
    :class:`QueryError` (a budget spent included) with a message for a person."""
    check_query(query)
    ctx = Context(dataset, this_path, budget, FUNCTIONS)
    try:
        if query.type == "task":
            return _tasks(query, ctx)
        rows, meaning = execute(_pages(query, ctx), query.ops, ctx)
        if query.type == "calendar":
            return _calendar(query, rows, ctx)
        cells, errors = _extract(query, rows, ctx, limit_rows)
    except RecursionError:
        raise QueryError("the query nests too deeply to evaluate") from None
    headers: list[str] = []
    if query.type == "table":
        id_name = meaning[-1] if meaning else "File"
        headers = ([id_name] if query.show_id else []) + [f.name for f in query.fields]
    warnings = []
    if errors:
        warnings.append(f"{len(errors):,} value{'s' * (len(errors) != 1)} could not be "
                        f"computed (first: {errors[0]})")  # fmt: skip
    return DqlResult(query.type, headers=headers, rows=cells, total=len(rows),  # type: ignore[arg-type]
                     truncated=len(cells) < len(rows), id_column=query.show_id,
                     warnings=warnings)  # fmt: skip


def _calendar(q: Query, rows: list[Row], ctx: Context) -> DqlResult:
    days: list[CalendarDay] = []
    bad: list[str] = []
    expr = q.fields[0].expr
    for _id, data in rows:
        ctx.budget.tick()
        try:
            value = evaluate(expr, data, ctx)
        except EvalError as exc:
            bad.append(str(exc))
            continue
        if value is None:
            continue
        if not isinstance(value, Date):
            bad.append(f"{dv_type(value)} “{value}” is not a date")
            continue
        link = data.get("file", {}).get("link") if isinstance(data.get("file"), Mapping) else None
        days.append(CalendarDay(value, link if isinstance(link, Link) else Link("", None, None)))
    warnings = []
    if bad:
        warnings.append(f"{len(bad):,} result{'s' * (len(bad) != 1)} with no date left out "
                        f"(first: {bad[0]})")  # fmt: skip
    return DqlResult("calendar", days=days, total=len(days), warnings=warnings)


@with_gc_paused
def evaluate_inline(expr_text: str, dataset: Dataset, this_path: str | None,
                    budget: Budget) -> Any:  # fmt: skip
    """An inline query `` `= expr` ``: ``this`` is the note holding it (Dataview gives an
    inline query no other fields: ``= this.file.name``, ``= [[Other]].field``)."""
    node = parse_expression(expr_text)
    check_functions(node, FUNCTIONS)
    ctx = Context(dataset, this_path, budget, FUNCTIONS)
    try:
        return plain(evaluate(node, {}, ctx))
    except EvalError as exc:
        raise QueryError(str(exc)) from None
    except RecursionError:
        raise QueryError("the expression nests too deeply to evaluate") from None
