"""Bases drawn in place: ```` ```base ```` blocks, ``![[X.base]]`` and ``![[X.base#View]]``.

The view is evaluated (:func:`anthology.query.bases.run_view`) over the rows the index holds
(:func:`anthology.vault.query_rows.dataset`) within a budget (:data:`RENDER_STEPS`,
:data:`RENDER_SECONDS`), and drawn as HTML the entry pane shows: a table (a grouped one with
its summaries), cards (a grid), or a list; cells link to their notes. Past
:data:`PAGE_ROWS` rows the rest is counted, not drawn (a tab of the base pages through
them). Bad input (not YAML, an alias bomb, a formula cycle, a budget spent) shows a notice
in place of the results, and the page goes on.

A page holding a base renders off the GUI thread (:func:`query_cost` makes it a long one for
:func:`anthology.vault.render.entry.render_size`), and a render that ran a query records it,
so a refresh of the index never carries it forward as still true: the results update when
the notes they read change.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any

from anthology.query.bases import Base, CellError, ViewResult, run_view
from anthology.query.rows import Budget, Dataset, FileRow
from anthology.query.values import (
    Date,
    FileValue,
    Html,
    Icon,
    Image,
    Link,
    QueryError,
    display,
)

from ..model import EntryRef
from .context import MAX_TABLE_COLUMNS, RenderContext
from .urls import attachment_src, image_html

PAGE_ROWS = 1000
RENDER_STEPS = 20_000_000  # a view over 100,000 notes takes about 1,000,000
RENDER_SECONDS = 5.0  # off the GUI thread; only a runaway query meets it
MAX_BASES_PER_RENDER = 20
MAX_LIST_ITEMS = 20  # items of a list value drawn in a cell
from .base_cost import query_cost  # noqa: E402,F401  (what a page with bases weighs)


# ---------------------------------------------------------------- entry points
def base_block_html(ctx: RenderContext, _lang: str, code: str) -> str:
    """A ```` ```base ```` block: the base written inline, its first view."""
    return _render(ctx, lambda: code, None, "base block")


def base_embed_html(ctx: RenderContext, target: str, alias: str | None, frag: str | None) -> str:
    """``![[X.base]]`` (its first view) or ``![[X.base#View]]``."""
    path = None
    try:
        path = ctx.attachment(target)
    except Exception as exc:  # the lookup is the index's; never break the page
        ctx.problems.append(f"base lookup failed for {target}: {exc}")
    if path is None:
        ctx.problems.append(f"missing base: {target}")
        return ctx.notice(f"⊘ Missing base: “{escape(target)}”", error=True, block=True)
    root = ctx.vault_root
    try:
        rel = Path(path).resolve().relative_to(root.resolve()).as_posix() if root else None
    except ValueError:
        rel = None
    if rel is None or root is None:
        return ctx.notice(f"⊘ Refused: “{escape(target)}” lies outside the vault", error=True,
                          block=True)  # fmt: skip

    def text() -> str:
        from ..query_rows import read_base_file

        return read_base_file(root, rel)

    return _render(ctx, text, frag, target, base_path=rel)


def _render(ctx: RenderContext, text: Any, view: str | None, what: str,
            base_path: str | None = None) -> str:  # fmt: skip
    from ..query_rows import dataset, index_of, load_base_text

    # A render that ran a query is never carried across a refresh (freshness.py): its
    # rows may have changed with any note.
    ctx.budget.lookups[("query", what, ctx.source_path)] = None
    done = sum(1 for k in ctx.budget.lookups if k[0] == "query")
    if done > MAX_BASES_PER_RENDER:
        ctx.budget.cut("bases", f"only the first {MAX_BASES_PER_RENDER} bases are evaluated")
        return ctx.notice(f"⊞ {escape(what)} (not evaluated: too many bases on one page)",
                          block=True)  # fmt: skip
    index = index_of(ctx.resolver)
    if index is None:
        return ctx.notice("⊞ This base is answered from the vault's index, which this page "
                          "was rendered without.", block=True)  # fmt: skip
    try:
        base = load_base_text(text())
        data = dataset(index)
        this = data.by_path.get(ctx.source_path)
        budget = Budget(max_steps=RENDER_STEPS, seconds=RENDER_SECONDS)
        result = run_view(base, data, view, this=this, link_source=ctx.source_path, budget=budget)
    except QueryError as exc:
        ctx.problems.append(f"base {what}: {exc}")
        return ctx.notice(f"⊞ Base error ({escape(what)}): {escape(str(exc))}", error=True,
                          block=True)  # fmt: skip
    return result_html(ctx, result, data, base, title=base_path)


# ---------------------------------------------------------------- drawing
def value_html(ctx: RenderContext, v: Any, data: Dataset) -> str:
    """One value in a cell: links as links, lists as comma-separated items."""
    p = ctx.palette
    if v is None:
        return ""
    if isinstance(v, CellError):
        return f'<span style="color: {p.error};">⚠ {escape(v.message)}</span>'
    if isinstance(v, Link):
        return link_html(ctx, v, data)
    if isinstance(v, FileValue):
        return row_link(ctx, v.row)
    if isinstance(v, list):
        shown = [value_html(ctx, x, data) for x in v[:MAX_LIST_ITEMS]]
        more = f" … (+{len(v) - MAX_LIST_ITEMS})" if len(v) > MAX_LIST_ITEMS else ""
        return ", ".join(shown) + more
    if isinstance(v, bool):
        return "☑" if v else "☐"
    if isinstance(v, Image):
        return image_value_html(ctx, v.src, data)
    if isinstance(v, Html | Icon | Date):
        return escape(display(v))
    return escape(display(v))


def link_html(ctx: RenderContext, link: Link, data: Dataset) -> str:
    shown = escape(link.display if link.display is not None else link.target)
    if link.target.startswith(("http://", "https://")):
        return f'<a href="{escape(link.target)}" style="color: {ctx.palette.external};">{shown}</a>'
    row = data.by_path.get(link.path) if link.path else None
    if row is None:
        return ctx.unresolved_link(link.target, shown)
    if link.display is None:
        return row_link(ctx, row)
    return row_link(ctx, row, shown)


def row_link(ctx: RenderContext, row: FileRow, shown_html: str | None = None) -> str:
    """A link to the file a row is: its note (``entry:``), or the attachment itself."""
    label = (
        shown_html
        if shown_html is not None
        else escape(row.basename if row.ext == "md" else row.name)
    )
    if row.entry_id is not None:
        return ctx.internal_link(EntryRef(row.entry_id, "", row.path), label, None)
    src, _ = attachment_src(ctx, row.path)
    if src is None:
        return label
    return f'<a href="{escape(src)}" style="color: {ctx.palette.link};">{label}</a>'


def image_value_html(ctx: RenderContext, v: Any, data: Dataset) -> str:
    if isinstance(v, Image):
        v = v.src
    if isinstance(v, list):
        v = v[0] if v else None
    if isinstance(v, FileValue):
        v = v.row.path
    if isinstance(v, Link):
        v = v.path or v.target
    if not isinstance(v, str) or not v:
        return ""
    if re.fullmatch(r"#[0-9a-fA-F]{3,8}", v):  # a colour: the card's cover is that colour
        return f'<table width="100%" cellspacing="0"><tr><td bgcolor="{v}" height="60">' \
               f"&#160;</td></tr></table>"  # fmt: skip
    if v.startswith(("http://", "https://")):
        return ctx.notice(f"▣ Remote image not loaded: {escape(v)}")
    if v.startswith("[[") and v.endswith("]]"):
        v = v[2:-2].split("|", 1)[0]
    if v.rsplit(".", 1)[-1].lower() not in ("png", "jpg", "jpeg", "gif", "webp", "svg", "bmp"):
        return ""
    return image_html(ctx, v, v.rsplit("/", 1)[-1], "240")


def _summary_text(ctx: RenderContext, name: str, v: Any, data: Dataset) -> str:
    return (f'<span style="color: {ctx.palette.muted};">{escape(name)}</span> '
            f"{value_html(ctx, v, data)}")  # fmt: skip


def result_html(
    ctx: RenderContext,
    result: ViewResult,
    data: Dataset,
    base: Base,
    title: str | None = None,
    *,
    page: int = 0,
    controls: bool = False,
    sorted_by: tuple[int, bool] | None = None,
) -> str:
    """The view as HTML, rows ``page * PAGE_ROWS`` onwards (at most :data:`PAGE_ROWS`).

    With ``controls`` (a base open in its tab) the headers are ``base-sort:N`` links (the
    column ``sorted_by`` marked ▲/▼) and the pages ``base-page:N`` links."""
    p = ctx.palette
    views = " · ".join(
        f"<b>{escape(v)}</b>" if v == result.view else escape(v) for v in result.views
    )
    head = (f'<p class="base-head" style="color: {p.muted}; font-size: small; '
            f'margin-bottom: 2px;">⊞ {escape(title) + " — " if title else ""}{views} '
            f"· {result.total:,} result{'s' * (result.total != 1)}</p>")  # fmt: skip
    notes = "".join(
        f'<p style="color: {p.muted}; font-size: small; margin: 0;">ⓘ {escape(n)}</p>'
        for n in result.notices
    )
    columns = result.columns[:MAX_TABLE_COLUMNS]
    start = page * PAGE_ROWS
    end = start + PAGE_ROWS
    seen = 0
    body: list[str] = []
    drawn = 0
    for group in result.groups:
        rows = group.rows[max(0, start - seen) : max(0, end - seen)]
        seen += len(group.rows)
        if not rows:
            continue
        drawn += len(rows)
        body.append(_group_html(ctx, result, group, rows, columns, data))
    if result.layout == "table":
        header = "".join(
            f'<th align="left"{f" width={c.width}" if c.width else ""}>'
            f"{_header_html(ctx, i, c.label, controls, sorted_by)}</th>"
            for i, c in enumerate(columns)
        )
        summary = ""
        if result.summaries:
            cells = "".join(
                "<td>"
                + _summary_text(ctx, result.summary_names[c.id], result.summaries[c.id], data)
                + "</td>"
                if c.id in result.summaries
                else "<td></td>"
                for c in columns
            )
            summary = f'<tr style="background-color: {p.box_bg};">{cells}</tr>'
        html = (f'<table class="base" width="100%" cellspacing="0" cellpadding="4" border="1" '
                f'style="border-color: {p.box_border}; border-style: solid; margin-bottom: 4px;">'
                f'<tr style="background-color: {p.box_bg};">{header}</tr>{"".join(body)}'
                f"{summary}</table>")  # fmt: skip
    else:
        html = "".join(body)
    rest = len(result.rows) - end
    more = ""
    if controls and (rest > 0 or start):
        pages = (len(result.rows) + PAGE_ROWS - 1) // PAGE_ROWS
        links = " ".join(
            f"<b>{n + 1}</b>" if n == page else
            f'<a href="base-page:{n}" style="color: {p.link};">{n + 1}</a>'
            for n in range(pages)
        )  # fmt: skip
        more = (
            f'<p style="color: {p.muted}; font-size: small;">Rows {start + 1:,}–'
            f"{start + drawn:,} of {len(result.rows):,} · page {links}</p>"
        )
    elif rest > 0 or start:
        more = (f'<p style="color: {p.muted}; font-size: small;">Rows {start + 1:,}–'
                f"{start + drawn:,} of {len(result.rows):,}"
                + (f"; {rest:,} more: open the base to page through them" if rest > 0 else "")
                + "</p>")  # fmt: skip
    if not result.rows:
        html = f'<p style="color: {p.muted};">No results.</p>'
    return f'<div class="base">{head}{notes}{html}{more}</div>'


def _header_html(
    ctx: RenderContext, i: int, label: str, controls: bool, sorted_by: tuple[int, bool] | None
) -> str:
    if not controls:
        return escape(label)
    mark = ""
    if sorted_by is not None and sorted_by[0] == i:
        mark = " ▼" if sorted_by[1] else " ▲"
    return (
        f'<a href="base-sort:{i}" style="color: {ctx.palette.text}; text-decoration: none;">'
        f"{escape(label)}{mark}</a>"
    )


def _group_html(ctx: RenderContext, result: ViewResult, group: Any, rows: list[Any],
                columns: list[Any], data: Dataset) -> str:  # fmt: skip
    p = ctx.palette
    label = ""
    if result.grouped:
        sums = " · ".join(
            _summary_text(ctx, result.summary_names[k], v, data) for k, v in group.summaries.items()
        )
        label = f"<b>{escape(group.label)}</b> ({len(group.rows):,})" + (
            f" — {sums}" if sums else ""
        )
    if result.layout == "table":
        out = []
        if label:
            out.append(f'<tr><td colspan="{len(columns)}" style="background-color: '
                       f'{p.box_bg};">{label}</td></tr>')  # fmt: skip
        for r in rows:
            cells = []
            for c, v in zip(columns, r.cells, strict=False):
                shown = row_link(ctx, r.file) if c.id == "file.name" else value_html(ctx, v, data)
                cells.append(f"<td>{shown}</td>")
            out.append(f"<tr>{''.join(cells)}</tr>")
        return "".join(out)
    head = f'<p style="margin-bottom: 2px;">{label}</p>' if label else ""
    if result.layout == "list":
        items = []
        for r in rows:
            parts = [row_link(ctx, r.file) if c.id == "file.name" else value_html(ctx, v, data)
                     for c, v in zip(columns, r.cells, strict=False)]  # fmt: skip
            first, rest = (parts[0], [x for x in parts[1:] if x]) if parts else ("", [])
            items.append(f"<li>{first}{' — ' + ', '.join(rest) if rest else ''}</li>")
        return f"{head}<ul>{''.join(items)}</ul>"
    # cards: a grid, three to a row (four when the cards are small)
    per_row = 4 if (result.card_size or 200) < 180 else 3
    cards = []
    for r in rows:
        lines = []
        for c, v in zip(columns, r.cells, strict=False):
            if c.id == "file.name":
                lines.append(f"<p style='margin: 2px;'><b>{row_link(ctx, r.file)}</b></p>")
            elif shown := value_html(ctx, v, data):
                lines.append(f'<p style="margin: 2px; font-size: small;"><span style="color: '
                             f'{p.muted};">{escape(c.label)}</span> {shown}</p>')  # fmt: skip
        if not any(c.id == "file.name" for c in columns):
            lines.insert(0, f"<p style='margin: 2px;'><b>{row_link(ctx, r.file)}</b></p>")
        cover = image_value_html(ctx, r.image, data) if result.image else ""
        cards.append(f'<td valign="top" width="{100 // per_row}%">{cover}{"".join(lines)}</td>')
    grid = "".join(
        "<tr>" + "".join(cards[i : i + per_row]) + "</tr>" for i in range(0, len(cards), per_row)
    )
    return (f'{head}<table class="base-cards" width="100%" cellspacing="6" cellpadding="8" '
            f'border="1" style="border-color: {p.box_border}; border-style: solid;">{grid}'
            f"</table>")  # fmt: skip
