"""The Properties box of an entry: which properties it shows, each value as HTML (typed
relations as links, tags as chips, dates and lists readable), and the paper's byline."""

from __future__ import annotations

import datetime as _dt
import functools
import itertools
import re
from collections.abc import Callable
from html import escape
from typing import Any

from anthology.palette import EntryColours

from ..canvas.index import CANVAS_RELATION
from ..links import WIKILINK_RE, split_wikilink
from ..model import Entry, Relation
from .context import MAX_PROPERTY_ROWS, MAX_VALUE_ITEMS, RenderContext, tag_chip
from .safe_text import html_text

HIDDEN_PROPERTIES = frozenset(
    {
        "id",
        "title",
        "kind",
        "aliases",
        "alias",
        "authors",
        "author",
        "year",
        "arxiv",
        "cssclasses",
        "cssclass",
    }
)


def humanise(key: str) -> str:
    """``compared_against`` → ``Compared against``."""
    text = re.sub(r"[_\-]+", " ", key).strip()
    return text[:1].upper() + text[1:] if text else key


def _norm(name: str) -> str:
    return re.sub(r"[_\-\s]+", " ", name).strip().lower()


def _plain_value(value: Any) -> str:
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, _dt.datetime | _dt.date):
        return value.isoformat()
    if value is None:
        return ""
    return str(value)


def _more(shown: str, total: int, noun: str, pal: EntryColours) -> str:
    """``shown`` and, when ``total`` is past :data:`MAX_VALUE_ITEMS`, how many more."""
    if total <= MAX_VALUE_ITEMS:
        return shown
    more = total - MAX_VALUE_ITEMS
    return f'{shown} <span style="color: {pal.muted};">… and {more:,} more {noun}</span>'


def _format_value(key: str, value: Any, ctx: RenderContext) -> str:
    pal = ctx.palette
    if isinstance(value, list | tuple | set):
        items = list(itertools.islice(value, MAX_VALUE_ITEMS))
        parts = [_format_value(key, v, ctx) for v in items]
        return _more(", ".join(p for p in parts if p) or "—", len(value), "items", pal)
    if isinstance(value, dict):
        pairs = itertools.islice(value.items(), MAX_VALUE_ITEMS)
        shown = "; ".join(f"{escape(str(k))}: {_format_value(key, v, ctx)}" for k, v in pairs)
        return _more(shown, len(value), "keys", pal)
    text = _plain_value(value)
    if not text:
        return "—"
    if key.lower() == "status":
        return escape(text[:1].upper() + text[1:])
    if key.lower() in ("tags", "tag"):
        return escape(text)
    if re.fullmatch(r"https?://\S+", text):
        return f'<a href="{escape(text)}" style="color: {pal.external};">{escape(text)}</a>'
    if "[[" in text:
        out, pos = [], 0
        for m in WIKILINK_RE.finditer(text):
            out.append(escape(text[pos : m.start()]))
            out.append(_wikilink_value(m.group(2), ctx))
            pos = m.end()
        out.append(escape(text[pos:]))
        return "".join(out)
    return escape(text)


def _wikilink_value(inner: str, ctx: RenderContext) -> str:
    target, heading, _block, alias = split_wikilink(inner)
    ref = ctx.resolve(target)
    if ref is None:
        return ctx.unresolved_link(target, escape(alias or target))
    return ctx.internal_link(ref, escape(ref.short_label), heading)


def _relation_value(rel: Relation, ctx: RenderContext) -> str:
    if rel.other is None:
        written = rel.text
        m = WIKILINK_RE.search(written)
        target = split_wikilink(m.group(2))[0] if m else written
        return ctx.unresolved_link(target, escape(target))
    return ctx.internal_link(rel.other, escape(rel.other.short_label), None)


def tag_chips(tags: Any, pal: EntryColours) -> str:
    """The first :data:`MAX_VALUE_ITEMS` of ``tags`` as chips, then how many more."""
    tags = [t for t in tags if t is not None and str(t).strip()]
    # (tags: [null], an empty list item: no "#None" chip)
    chips = " ".join(tag_chip(str(t).lstrip("#"), pal) for t in tags[:MAX_VALUE_ITEMS])
    return _more(chips, len(tags), "tags", pal)


def _tags_value(value: Any, pal: EntryColours) -> str:
    tags = value if isinstance(value, list | tuple) else re.split(r"[,\s]+", str(value))
    return tag_chips(tags, pal)


MORE = "\0more"  # the label of the last row when properties were left out; its value: how many
GROUP = "\0group"  # the label of a row heading a group of rows (its value: the heading)


def property_rows(entry: Entry, ctx: RenderContext) -> list[tuple[str, str]]:
    """(label, value HTML) of each row of the Properties box, in order: the first
    :data:`MAX_PROPERTY_ROWS`, then ``(MORE, "N")`` when N more were left out."""
    rows: list[tuple[str, str]] = []
    hidden = 0  # rows left out: counted, never formatted

    def add(label: str, value: Callable[[], str]) -> None:
        nonlocal hidden
        if len(rows) >= MAX_PROPERTY_ROWS:
            hidden += 1
        else:
            rows.append((label, value()))

    forward: dict[str, list[Relation]] = {}
    for rel in entry.relations:
        forward.setdefault(_norm(rel.relation), []).append(rel)
    used: set[str] = set()
    for key, value in (entry.properties or {}).items():
        if key.lower() in HIDDEN_PROPERTIES:
            continue
        if len(rows) >= MAX_PROPERTY_ROWS:
            hidden += 1
            if forward:  # its relations are among the rows left out
                used.add(_norm(key))
            continue
        rels = forward.get(_norm(key))
        # A key is vault text like any value: escaped, or 3,000 nested <table> in a key
        # crash Qt's layout and a key can inject a link.
        label = html_text(humanise(key))
        if rels:
            used.add(_norm(key))
            rows.append((label, _relations_value(rels, ctx, ", ")))
        elif key.lower() in ("tags", "tag"):
            rows.append((label, _tags_value(value, ctx.palette) or "—"))
        else:
            rows.append((label, _format_value(key, value, ctx)))
    for name, rels in forward.items():
        if name not in used:
            add(
                html_text(humanise(rels[0].relation)),
                functools.partial(_relations_value, rels, ctx, ", "),
            )
    inline = entry.inline_fields or {}
    if inline:
        # Dataview's ``Key:: value`` fields, under a heading of their own: they are read
        # from the note's text, not its front matter (values with [[links]] link)
        if len(rows) < MAX_PROPERTY_ROWS:
            rows.append((GROUP, "Inline fields"))
        for key, values in inline.items():
            shown: Any = values[0] if len(values) == 1 else values
            add(html_text(humanise(key)), functools.partial(_format_value, key, shown, ctx))
    by_relation: dict[str, list[Relation]] = {}
    for rel in entry.cited_by:
        by_relation.setdefault(rel.relation, []).append(rel)
    for name in sorted(by_relation, key=str.lower):

        def links(name: str = name) -> str:
            shown = _relations_value(by_relation[name], ctx, "<br />")
            more = entry.cited_by_total.get(name, 0) - min(len(by_relation[name]), MAX_VALUE_ITEMS)
            if more > 0:  # a hub: the rest are in the backlinks panel, grouped by relation
                shown += (
                    f'<br /><span style="color: {ctx.palette.muted};">and {more:,} more, '
                    "listed under Backlinks</span>"
                )
            return shown

        # a canvas holding the entry's card is no citation: "On canvas Plan, Board"
        add("On canvas" if name == CANVAS_RELATION else f"Cited as “{escape(name)}” by", links)
    if hidden:
        rows.append((MORE, str(hidden)))
    return rows


def _relations_value(rels: list[Relation], ctx: RenderContext, sep: str) -> str:
    """The first :data:`MAX_VALUE_ITEMS` relations as links (the rest: the caller says)."""
    return sep.join(_relation_value(r, ctx) for r in rels[:MAX_VALUE_ITEMS])


def properties_html(rows: list[tuple[str, str]], pal: EntryColours) -> str:
    if not rows:
        return ""
    count = len(rows)
    cells = []
    for label, value in rows:
        if label == GROUP:
            count -= 1
            cells.append(
                f'<tr><td colspan="2" class="group" style="color: {pal.muted}; '
                f'padding: 10px 12px 2px 12px;"><i>{escape(value)}</i></td></tr>'
            )
            continue
        if label == MORE:
            count += int(value) - 1
            label = f'<span style="color: {pal.muted};">…</span>'
            value = f'<span style="color: {pal.muted};">and {int(value):,} more, not shown</span>'
        cells.append(
            f'<tr><td width="36%" valign="top" style="color: {pal.muted}; '
            f'padding: 4px 12px 4px 12px;">{label}</td>'
            f'<td valign="top" style="padding: 4px 12px 4px 4px;">{value}</td></tr>'
        )
    body = "".join(cells)
    return (
        f'<table class="properties" width="100%" cellspacing="0" cellpadding="0" border="1" '
        f'style="border-color: {pal.box_border}; border-style: solid; border-collapse: collapse; '
        f'margin-top: 10px; margin-bottom: 18px;"><tr><td bgcolor="{pal.box_bg}" '
        f'style="padding: 6px 0px 8px 0px;">'
        f'<table width="100%" cellspacing="0" cellpadding="0" border="0">'
        f'<tr><td colspan="2" style="padding: 4px 12px 8px 12px;"><b>Properties</b>'
        f'&#160;&#160;<span class="count" style="color: {pal.muted};">{count:,}</span></td></tr>'
        f"{body}</table></td></tr></table>"
    )


def byline_html(props: dict[str, Any], pal: EntryColours) -> str:
    authors = props.get("authors", props.get("author"))
    if isinstance(authors, list | tuple):
        names = [str(a) for a in authors if a]
        authors = names[0] + " et al." if len(names) > 2 else " and ".join(names)
    year = props.get("year")
    arxiv = props.get("arxiv")
    parts = []
    who = escape(str(authors)) if authors else ""
    if year not in (None, ""):
        who = f"{who} ({escape(str(year))})".strip()
    if who:
        parts.append(who)
    if arxiv not in (None, ""):
        ident = str(arxiv).strip()
        ident = re.sub(r"^(arxiv[:\-\s]*)", "", ident, flags=re.I)
        href = "https://arxiv.org/abs/" + ident
        parts.append(
            f'<a href="{escape(href)}" style="color: {pal.external};">arXiv {escape(ident)}</a>'
        )
    if not parts:
        return ""
    return f'<p class="byline" style="color: {pal.muted}; margin-top: 0;">{" — ".join(parts)}</p>'
