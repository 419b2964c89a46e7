"""The page preview's short section of related entries: the first few entries alike in
words that the previewed entry does not link to yet, each with the words it shares
(:mod:`anthology.vault.related`). Appended under the preview once found, so the preview
itself waits for nothing."""

from __future__ import annotations

from html import escape

from anthology.palette import EntryColours

from ..related import RelatedEntries
from .context import quote_all
from .safe_text import html_text

PREVIEW_RELATED = 3  # rows in the preview's section


def related_section_html(found: RelatedEntries, pal: EntryColours) -> str:
    """The section (HTML) for ``found``; "" when there is no entry it does not link to."""
    rows = found.unlinked[:PREVIEW_RELATED]
    if not rows:
        return ""
    items = [
        f'<a href="{escape("entry:" + quote_all(r.ref.id))}" style="color: {pal.link}; '
        f'text-decoration: none;">{html_text(r.ref.short_label, 200)}</a>'
        f' <span style="color: {pal.muted};">· {html_text(", ".join(r.terms[:3]), 200)}</span>'
        for r in rows
    ]
    return (
        f'<p class="related" style="color: {pal.muted}; margin-top: 12px;">'
        f"<b>Related, not linked yet</b><br/>" + "<br/>".join(items) + "</p>"
    )
