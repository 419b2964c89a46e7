"""Dataview drawn in place: ```` ```dataview ```` blocks and inline `` `= expr` `` queries.

A block is parsed and run by the DQL engine (:mod:`anthology.query.dataview`) over the rows
the index holds (:func:`anthology.vault.query_rows.dataset`), within the same budget as a
base (:data:`~.bases.RENDER_STEPS`, :data:`~.bases.RENDER_SECONDS`), and drawn as Dataview
draws it: a TABLE as a table (its id column the notes' links), a LIST as a bulleted list, a
TASK as the tasks under the notes they stand in (their children nested, their text as
Markdown), a CALENDAR as month grids. Past :data:`PAGE_ROWS` rows the results come in
pages: ``dataview-page:K:N`` links, the reader's choice kept with the page (``q K:N`` in
the render's ``folds``).

``dataviewjs`` blocks and `` `$= …` `` inline queries run JavaScript, which Anthology never
runs: they stay code, with one line that says so. Bad input (a syntax error, an unknown
function, a runaway query) shows Dataview's kind of error in place of the results, and the
page goes on. A render that ran a query is never carried across a refresh (freshness.py).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from html import escape
from typing import Any

from anthology.query.bases import CellError
from anthology.query.rows import Budget, Dataset, FileRow
from anthology.query.values import Date, Duration, FileValue, Link, QueryError

from ..model import EntryRef
from .bases import RENDER_SECONDS, RENDER_STEPS, image_value_html, link_html, row_link
from .blocks import code_html
from .context import MAX_TABLE_COLUMNS, RenderContext, quote_all

PAGE_ROWS = 1000
MAX_QUERIES_PER_RENDER = 40  # blocks and inline queries a page evaluates; the rest say so
MAX_CELL_ITEMS = 20  # items of a list value drawn in a cell
MAX_MONTHS = 12  # month grids a CALENDAR draws (the newest); the rest are counted
MAX_MARKUP_CELLS = 2000  # cells whose text is drawn as Markdown; past it as plain text
INLINE_RE = re.compile(r"(?<!`)`(\$?=)[ \t]*([^`\n]+?)[ \t]*`(?!`)")
_MARKUP_RE = re.compile(r"\[\[|\*|_|`|~~|==|\$|\[[^\]]*\]\(")


# ---------------------------------------------------------------- entry points
def dataview_block_html(ctx: RenderContext, _lang: str, code: str) -> str:
    """A ```` ```dataview ```` block: its query's results, or why there are none."""
    from anthology.query.dataview import parse_query, run_query

    number = _query_number(ctx)
    if number is None:
        return _too_many(ctx)
    page = _page_of(ctx, number)
    data = _dataset(ctx)
    if data is None:
        return ctx.notice("⊞ This Dataview query is answered from the vault's index, which "
                          "this page was rendered without.", block=True)  # fmt: skip
    try:
        query = parse_query(code)
        result = run_query(
            query,
            data,
            this_path=ctx.source_path,
            budget=Budget(max_steps=RENDER_STEPS, seconds=RENDER_SECONDS),
            limit_rows=(page + 1) * PAGE_ROWS,
        )
    except QueryError as exc:
        ctx.problems.append(f"dataview query: {exc}")
        return _error(ctx, str(exc))
    return result_html(ctx, result, data, number=number, page=page)


def dataviewjs_block_html(ctx: RenderContext, lang: str, code: str) -> str:
    """A ```` ```dataviewjs ```` block: its source, under one line saying why."""
    return (
        f'<p class="dataview-js" style="color: {ctx.palette.muted}; font-size: small; '
        'margin-bottom: 2px;">ⓘ A DataviewJS query runs JavaScript, which Anthology never '
        "runs: its source is shown.</p>" + code_html(ctx, code, "javascript")
    )


def inline_query_html(ctx: RenderContext, prefix: str, expr: str) -> str:
    """An inline query: `` `= expr` `` its value, `` `$= js` `` its code and a note."""
    p = ctx.palette
    if prefix == "$=":
        return (f'<code style="background-color: {p.inline_code_bg};">$= {escape(expr)}</code>'
                f'<span style="color: {p.muted}; font-size: small;"> (JavaScript: not run)'
                "</span>")  # fmt: skip
    from anthology.query.dataview import evaluate_inline

    if _query_number(ctx) is None:
        return f'<code style="background-color: {p.inline_code_bg};">= {escape(expr)}</code>'
    data = _dataset(ctx)
    if data is None:
        return f'<code style="background-color: {p.inline_code_bg};">= {escape(expr)}</code>'
    try:
        value = evaluate_inline(expr, data, ctx.source_path,
                                Budget(max_steps=RENDER_STEPS // 10, seconds=1.0))  # fmt: skip
    except QueryError as exc:
        ctx.problems.append(f"dataview inline query = {expr}: {exc}")
        return (f'<span style="color: {p.error};" title="{escape(str(exc))}">'
                f"⚠ Dataview: {escape(str(exc))}</span>")  # fmt: skip
    shown = value_html(ctx, value, data, in_table=False)
    return f'<span class="dataview-inline">{shown or escape(_null_text())}</span>'


# ---------------------------------------------------------------- the render's state
def _query_number(ctx: RenderContext) -> int | None:
    """This query's number in the page (0, 1, …), or None past the page's allowance. A
    render that ran a query is never carried across a refresh (freshness.py)."""
    done = sum(1 for k in ctx.budget.lookups if k[0] == "query")
    if done >= MAX_QUERIES_PER_RENDER:
        ctx.budget.cut("dataview", f"only the first {MAX_QUERIES_PER_RENDER} Dataview "
                       "queries of a page are evaluated")  # fmt: skip
        return None
    ctx.budget.lookups[("query", f"dataview {done}", ctx.source_path)] = None
    return done


def _page_of(ctx: RenderContext, number: int) -> int:
    for key in ctx.folds:
        if isinstance(key, str) and key.startswith(f"q{number}:"):
            tail = key.split(":", 1)[1]
            if tail.isdigit():
                return int(tail)
    return 0


def _dataset(ctx: RenderContext) -> Dataset | None:
    from ..query_rows import dataset, index_of

    index = index_of(ctx.resolver)
    return dataset(index) if index is not None else None


def _too_many(ctx: RenderContext) -> str:
    return ctx.notice(f"⊞ Dataview query not evaluated: a page evaluates its first "
                      f"{MAX_QUERIES_PER_RENDER}.", block=True)  # fmt: skip


def _error(ctx: RenderContext, message: str) -> str:
    p = ctx.palette
    return (f'<table class="dataview-error" width="100%" cellpadding="6" cellspacing="0" '
            f'style="background-color: {p.box_bg}; margin-bottom: 6px;"><tr><td>'
            f'<span style="color: {p.error};">Dataview: {escape(message)}</span>'
            "</td></tr></table>")  # fmt: skip


def _null_text() -> str:
    return "-"  # Dataview's default "render null as" (its setting is "\-", Markdown for -)


# ---------------------------------------------------------------- values
def value_html(ctx: RenderContext, v: Any, data: Dataset, *, in_table: bool = True) -> str:
    """One value as Dataview draws it: links as links, lists as bullets (in a table cell)
    or commas (inline), dates and durations in Dataview's format, text as Markdown."""
    from anthology.query.dataview import display_text

    if v is None:
        return escape(_null_text()) if in_table else ""
    if isinstance(v, CellError):
        return f'<span style="color: {ctx.palette.error};">⚠ {escape(v.message)}</span>'
    if isinstance(v, Link):
        if v.target.rsplit(".", 1)[-1].lower() in ("png", "jpg", "jpeg", "gif", "webp", "svg") \
                and v.path:  # fmt: skip
            return image_value_html(ctx, v, data)
        return link_html(ctx, v, data)
    if isinstance(v, FileValue):
        return row_link(ctx, v.row)
    if isinstance(v, list):
        items = [value_html(ctx, x, data, in_table=in_table) for x in v[:MAX_CELL_ITEMS]]
        more = len(v) - MAX_CELL_ITEMS
        if not in_table:
            return ", ".join(items) + (f" … (+{more:,})" if more > 0 else "")
        if not items:
            return ""
        tail = f"<li>… {more:,} more</li>" if more > 0 else ""
        return ('<ul style="margin-top: 0; margin-bottom: 0; margin-left: 14px; '
                '-qt-list-indent: 0;">' + "".join(f"<li>{x}</li>" for x in items) + tail
                + "</ul>")  # fmt: skip
    if isinstance(v, dict):
        parts = [f"<b>{escape(str(k))}</b>: {value_html(ctx, x, data, in_table=False)}"
                 for k, x in list(v.items())[:MAX_CELL_ITEMS]]  # fmt: skip
        return "<br/>".join(parts)
    if isinstance(v, str):
        return _markdown_text(ctx, v)
    if isinstance(v, bool | int | float | Date | Duration):
        return escape(display_text(v))
    return escape(display_text(v))


def _markdown_text(ctx: RenderContext, text: str) -> str:
    """A text value as Dataview shows it: its Markdown rendered (a ``[[link]]`` in a field
    is a link) within the page's render; plain when it holds no markup, or past the first
    :data:`MAX_MARKUP_CELLS` such cells of the page (a render each: bounded work)."""
    if not _MARKUP_RE.search(text) or ctx.render_body is None:
        return escape(text)
    if ctx.budget.markup_cells >= MAX_MARKUP_CELLS:
        ctx.budget.cut("dataview markup", f"query cells past the first {MAX_MARKUP_CELLS:,} "
                       "with Markdown are drawn as plain text")  # fmt: skip
        return escape(text)
    ctx.budget.markup_cells += 1
    html = ctx.render_body(text, ctx.child(ctx.entry_id, ctx.source_path)).strip()
    return _unwrap_paragraph(html)


def _unwrap_paragraph(html: str) -> str:
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        return html[3:-4]
    return html


# ---------------------------------------------------------------- results
def result_html(ctx: RenderContext, result: Any, data: Dataset, *, number: int = 0,
                page: int = 0) -> str:  # fmt: skip
    """A :class:`~anthology.query.dataview.result.DqlResult` as HTML (rows of ``page``)."""
    p = ctx.palette
    draw: dict[str, Callable[[], str]] = {
        "table": lambda: _table_html(ctx, result, data, page),
        "list": lambda: _list_html(ctx, result, data, page),
        "task": lambda: _tasks_html(ctx, result, data),
        "calendar": lambda: _calendar_html(ctx, result, data),
    }
    warnings = "".join(
        f'<p style="color: {p.muted}; font-size: small; margin: 0;">ⓘ {escape(w)}</p>'
        for w in result.warnings
    )
    if not result.total:
        body = f'<p style="color: {p.muted};">Dataview: No results to show for {result.type} ' \
               "query.</p>"  # fmt: skip
    else:
        body = draw[result.type]()
    pages = _pages_html(ctx, result, number, page) if result.type in ("table", "list") else ""
    return f'<div class="dataview">{warnings}{body}{pages}</div>'


def _page_rows(result: Any, page: int) -> list[list[Any]]:
    start = page * PAGE_ROWS
    return result.rows[start : start + PAGE_ROWS]


def _pages_html(ctx: RenderContext, result: Any, number: int, page: int) -> str:
    if result.total <= PAGE_ROWS:
        return ""
    p = ctx.palette
    count = (result.total + PAGE_ROWS - 1) // PAGE_ROWS
    shown = sorted({0, count - 1, *range(max(0, page - 3), min(count, page + 4))})
    links: list[str] = []
    last = -1
    for n in shown:
        if n > last + 1:
            links.append("…")
        href = f"dataview-page:{number}:{n}"
        links.append(f"<b>{n + 1}</b>" if n == page else
                     f'<a href="{href}" style="color: {p.link};">{n + 1}</a>')  # fmt: skip
        last = n
    start = page * PAGE_ROWS
    end = min(result.total, start + PAGE_ROWS)
    return (f'<p style="color: {p.muted}; font-size: small;">Rows {start + 1:,}–{end:,} of '
            f"{result.total:,} · page {' '.join(links)}</p>")  # fmt: skip


def _id_html(ctx: RenderContext, v: Any, data: Dataset) -> str:
    return value_html(ctx, v, data, in_table=False) or escape(_null_text())


def _table_html(ctx: RenderContext, result: Any, data: Dataset, page: int) -> str:
    p = ctx.palette
    headers = result.headers[:MAX_TABLE_COLUMNS]
    count = f" ({result.total:,})" if result.id_column and headers else ""
    head = "".join(
        f'<th align="left">{escape(h)}{count if i == 0 else ""}</th>' for i, h in enumerate(headers)
    )
    rows = []
    for row in _page_rows(result, page):
        cells = [
            _id_html(ctx, v, data) if (i == 0 and result.id_column) else value_html(ctx, v, data)
            for i, v in enumerate(row[: len(headers)])
        ]
        rows.append("<tr>" + "".join(f'<td valign="top">{c}</td>' for c in cells) + "</tr>")
    return (f'<table class="dataview" width="100%" cellspacing="0" cellpadding="4" border="1" '
            f'style="border-color: {p.box_border}; border-style: solid; margin-bottom: 4px;">'
            f'<tr style="background-color: {p.box_bg};">{head}</tr>'
            f'{"".join(rows)}</table>')  # fmt: skip


def _list_html(ctx: RenderContext, result: Any, data: Dataset, page: int) -> str:
    items = []
    for row in _page_rows(result, page):
        if len(row) >= 2:
            value = value_html(ctx, row[1], data, in_table=False)
            items.append(f"<li>{_id_html(ctx, row[0], data)}: {value}</li>")
        elif row:
            items.append(f"<li>{value_html(ctx, row[0], data, in_table=False)}</li>")
    return f'<ul class="dataview">{"".join(items)}</ul>'


def _tasks_html(ctx: RenderContext, result: Any, data: Dataset) -> str:
    """The tasks, under the note (or group) they belong to; each note's tasks rendered as
    that note's Markdown (a task's ``[[link]]`` resolves from where it is written)."""
    out: list[str] = []
    shown = 0
    for group in result.tasks:
        if shown >= PAGE_ROWS:
            break
        key = group.key
        label = _id_html(ctx, key, data)
        count = _count(group.tasks)
        out.append(f'<p style="margin-bottom: 2px;"><b>{label}</b> '
                   f'<span style="color: {ctx.palette.muted};">({count})</span></p>')  # fmt: skip
        by_path: dict[str, list[str]] = {}
        for task in group.tasks:
            if shown >= PAGE_ROWS:
                break
            shown += _count((task,))
            by_path.setdefault(task.path, []).extend(_task_lines(task, 0))
        for path, lines in by_path.items():
            row = data.by_path.get(path)
            out.append(_markdown_block(ctx, row, "\n".join(lines)))
    rest = result.total - shown
    if rest > 0:
        out.append(f'<p style="color: {ctx.palette.muted}; font-size: small;">{shown:,} of '
                   f"{result.total:,} tasks shown; the rest with "
                   "<code>anthology query</code>.</p>")  # fmt: skip
    return "".join(out)


def _count(tasks: Any) -> int:
    return sum(1 + _count(t.children) for t in tasks)


def _task_lines(task: Any, depth: int) -> list[str]:
    pad = "    " * min(depth, 8)
    box = f"[{task.status}] " if task.status is not None else ""
    text = task.text.replace("\n", " ")
    lines = [f"{pad}- {box}{text}"]
    for child in task.children:
        lines += _task_lines(child, depth + 1)
    return lines


def _markdown_block(ctx: RenderContext, row: FileRow | None, markdown: str) -> str:
    if ctx.render_body is None:
        return f"<pre>{escape(markdown)}</pre>"
    if row is not None and row.entry_id is not None:
        child = ctx.child(row.entry_id, row.path)
    else:
        child = ctx.child(ctx.entry_id, ctx.source_path)
    return ctx.render_body(markdown, child)


def _calendar_html(ctx: RenderContext, result: Any, data: Dataset) -> str:
    """Month grids (Monday first), the newest :data:`MAX_MONTHS` months that hold a result;
    a day with notes is shaded, each note a dot linking to it."""
    p = ctx.palette
    months: dict[tuple[int, int], dict[int, list[Link]]] = {}
    for day in result.days:
        at = day.day.at
        months.setdefault((at.year, at.month), {}).setdefault(at.day, []).append(day.link)
    keys = sorted(months, reverse=True)
    out = []
    for year, month in keys[:MAX_MONTHS]:
        days = months[(year, month)]
        head = "".join(f'<th align="center" style="color: {p.muted};">{d}</th>'
                       for d in ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"))  # fmt: skip
        weeks = []
        for week in calendar.Calendar(firstweekday=0).monthdayscalendar(year, month):
            cells = []
            for d in week:
                if d == 0:
                    cells.append("<td></td>")
                    continue
                notes = days.get(d, [])
                dots = " ".join(
                    f'<a href="{_link_href(ctx, link, data)}" title="{escape(_link_label(link))}" '
                    f'style="color: {p.link}; text-decoration: none;">●</a>'
                    for link in notes[:6]
                ) + (f" +{len(notes) - 6}" if len(notes) > 6 else "")
                shade = f' style="background-color: {p.box_bg};"' if notes else ""
                cells.append(f'<td align="center" valign="top"{shade}>{d}<br/>{dots}</td>')
            weeks.append("<tr>" + "".join(cells) + "</tr>")
        out.append(
            f'<p style="margin-bottom: 2px;"><b>{calendar.month_name[month]} {year}</b> '
            f'<span style="color: {p.muted};">({sum(len(v) for v in days.values())})</span></p>'
            f'<table class="dataview-calendar" cellspacing="0" cellpadding="4" border="1" '
            f'style="border-color: {p.box_border}; border-style: solid; margin-bottom: 6px;">'
            f"<tr>{head}</tr>{''.join(weeks)}</table>"
        )
    if len(keys) > MAX_MONTHS:
        out.append(f'<p style="color: {p.muted}; font-size: small;">{len(keys) - MAX_MONTHS} '
                   "earlier months with results are not drawn.</p>")  # fmt: skip
    return "".join(out)


def _link_label(link: Link) -> str:
    return link.display or link.target.rsplit("/", 1)[-1].removesuffix(".md")


def _link_href(ctx: RenderContext, link: Link, data: Dataset) -> str:
    row = data.by_path.get(link.path) if link.path else None
    if row is None or row.entry_id is None:
        return escape(f"unresolved:{quote_all(link.target)}")
    return escape(ctx.entry_href(EntryRef(row.entry_id, "", row.path)))
