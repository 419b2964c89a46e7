"""A callout's frame, one copy for Obsidian's ``> [!kind]`` callouts (markdown_ext) and the
Admonition plugin's ```` ```ad-kind ```` blocks (blocks.py): a table with a coloured bar,
as Qt draws no div borders, a title that may fold, and a cell for the body."""

from __future__ import annotations

import xml.etree.ElementTree as etree

from .context import RenderContext
from .theme import callout_style


def callout_shell(
    parent: etree.Element | None, ctx: RenderContext, kind: str, title: str, fold: str
) -> tuple[etree.Element, etree.Element, bool]:
    """(table, body cell, collapsed) of a callout of ``kind`` titled ``title`` (no title
    line when empty), appended to ``parent`` when given. ``fold``: ``""`` not foldable,
    ``"+"`` foldable and open, ``"-"`` foldable and closed — as written; the reader may
    have flipped it (``ctx.folds`` holds the callout's number)."""
    kind, accent, bg, icon = callout_style(ctx.palette, kind)
    attrs = {
        "class": f"callout callout-{kind}",
        "width": "100%",
        "cellspacing": "0",
        "cellpadding": "0",
        "style": "margin-top: 8px; margin-bottom: 14px;",
    }
    table = (
        etree.Element("table", attrs)
        if parent is None
        else etree.SubElement(parent, "table", attrs)
    )
    tr = etree.SubElement(table, "tr")
    bar = etree.SubElement(tr, "td", {"class": "bar", "width": "4", "bgcolor": accent})
    bar.text = "\u200a"
    cell = etree.SubElement(tr, "td", {"bgcolor": bg, "style": "padding: 8px 14px;"})
    style = f"color: {accent}; font-weight: bold; text-decoration: none;"
    collapsed = False
    if fold:  # foldable: "-" starts closed, "+" open; the reader may flip it
        number = ctx.budget.callouts
        ctx.budget.callouts += 1
        collapsed = (fold == "-") != (number in ctx.folds)
    if title or fold:
        head = etree.SubElement(
            cell, "p", {"class": "callout-title", "style": "margin-top: 2px; margin-bottom: 4px;"}
        )
        if fold:
            span = etree.SubElement(
                head, "a", {"href": f"fold:{number}", "class": "fold", "style": style}
            )
            span.set("title", "Show" if collapsed else "Hide")
            span.text = f"{'▸' if collapsed else '▾'} {icon}  {title}"
        else:
            span = etree.SubElement(head, "span", {"style": style})
            span.text = f"{icon}  {title}"
    return table, cell, collapsed
