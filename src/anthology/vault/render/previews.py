"""The hover card of an ``entry:`` link, a body as a short plain-text excerpt, and the page
preview (:func:`render_preview`): a link's target rendered as the pane renders it, the
linked section or block only when the link names one."""

from __future__ import annotations

import hashlib
import re
from html import escape
from pathlib import Path

from anthology.palette import EntryColours

from ..excalidraw_md import is_drawing_note, reader_text
from ..links import WIKILINK_RE, split_wikilink
from ..lru import LockedLru
from ..model import Entry, EntryLookup
from .context import RenderContext
from .drawings import drawing_page_html
from .embeds import block_of, section_of
from .entry import (
    RenderedEntry,
    break_long_runs,
    minutes_to_read,
    page,
    render_key,
    vault_root_of,
)
from .markdown_ext import markdown_to_html
from .safe_text import html_text, plain_text
from .theme import palette

_STRIP_RES = [
    (re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M), " "),
    (re.compile(r"\$\$.+?\$\$", re.S), " [formula] "),
    (re.compile(r"!\[\[[^\]]*\]\]"), ""),
    (re.compile(r"\[\[([^\]|#]*)(?:#[^\]|]*)?\|([^\]]*)\]\]"), r"\2"),
    (re.compile(r"\[\[([^\]|#]*)(?:#([^\]|]*))?\]\]"), r"\1"),
    (re.compile(r"!\[[^\]]*\]\([^)]*\)"), ""),
    (re.compile(r"\[([^\]]*)\]\([^)]*\)"), r"\1"),
    (re.compile(r"<[^>]+>"), ""),
    (re.compile(r"%%.*?%%", re.S), ""),
    (
        re.compile(r"^\s*(#{1,6}|>\s*\[![^\]]*\][+-]?|>|[-*+]\s+\[[ xX]\]|[-*+]|\d+[.)])\s*", re.M),
        "",
    ),
    (re.compile(r"[*_`~=]{1,3}"), ""),
]


def plain_excerpt(body: str, limit: int = 320) -> str:
    text = body[: limit * 8]
    for rx, repl in _STRIP_RES:
        text = rx.sub(repl, text)
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def preview_html(entry: Entry, *, theme: str = "light") -> str:
    """A hover card for an ``entry:`` link: title, kind/status, the first lines of the body."""
    pal = palette(theme)
    label = html_text(
        entry.id if entry.title in ("", entry.id) else f"{entry.id} — {entry.title}", limit=300
    )
    facts = [f for f in (entry.kind, entry.status.capitalize() if entry.status else "") if f]
    facts.append(f"{minutes_to_read(entry)} min read")
    body = entry.body or ""
    if is_drawing_note(entry.path, entry.properties):  # its text, not its data
        body = reader_text(body)
    excerpt = plain_excerpt(body)
    return (
        f'<div style="max-width: 420px;"><p style="margin: 0;"><b>{label}</b></p>'
        f'<p style="color: {pal.muted}; margin: 2px 0 6px 0;">{escape(" · ".join(facts))}</p>'
        f'<p style="margin: 0;">{escape(excerpt) if excerpt else "<i>(empty)</i>"}</p></div>'
    )


# ------------------------------------------------------------------ page preview
PREVIEW_BODY_CHARS = 30_000  # a preview of a long entry shows its head (or the section)
PREVIEW_CACHE_SIZE = 128
_preview_cache: LockedLru[RenderedEntry] = LockedLru(PREVIEW_CACHE_SIZE)


def _link_texts(text: str) -> str:
    """``[[LIT-008]]`` as ``LIT-008``, ``[[a|b]]`` as ``b``: a property's links read as
    their text in the one-line summary (it showed the raw brackets)."""

    def text_of(m: re.Match[str]) -> str:
        target, heading, _block, alias = split_wikilink(m.group(2))
        return alias or target or heading or m.group(2)

    return WIKILINK_RE.sub(text_of, text)


def _summary_html(entry: Entry, pal: EntryColours) -> str:
    """One muted line under the title: kind, status, a few properties, tags, reading time."""
    facts = [f for f in (entry.kind, entry.status.capitalize() if entry.status else "") if f]
    props = entry.properties or {}
    for key in ("authors", "author", "year", "date", "source"):
        value = props.get(key)
        if isinstance(value, list | tuple):
            value = ", ".join(str(v) for v in value[:3]) + (" …" if len(value) > 3 else "")
        if value not in (None, "") and not isinstance(value, dict):
            facts.append(plain_text(_link_texts(str(value)), 80))
    facts.append(f"{minutes_to_read(entry)} min read")
    tags = " ".join(f"#{t}" for t in list(entry.tags)[:6])
    line = escape(" · ".join(facts))
    if tags:
        line += f"<br/>{escape(plain_text(tags, 200))}"
    return f'<p class="summary" style="color: {pal.muted}; margin-top: 0;">{line}</p>'


def _preview_key(entry: Entry, fragment: str, theme: str, resolver: EntryLookup) -> tuple:
    digest = hashlib.sha1((entry.body or "").encode("utf-8", "surrogatepass")).hexdigest()
    return (entry.id, entry.mtime, digest, fragment, theme, render_key(resolver))


def cached_preview(
    entry: Entry, resolver: EntryLookup, *, fragment: str = "", theme: str = "light"
) -> RenderedEntry | None:
    """What :func:`render_preview` would return if it has rendered it already, else None."""
    return _preview_cache.peek(_preview_key(entry, fragment, theme, resolver))


def render_preview(
    entry: Entry,
    resolver: EntryLookup,
    *,
    fragment: str = "",
    theme: str = "light",
    vault_root: Path | None = None,
) -> RenderedEntry:
    """The page preview of a link to ``entry`` (``fragment``: the heading or ``^block`` it
    names): the title, a line of its properties, then the linked section (the heading with
    what is under it), the block, or the body: rendered as the entry pane renders it (math
    typeset, links live), cached per (entry, fragment, theme). ``headings`` of the result
    has the anchor of the section's heading first. Never raises on bad content."""
    key = _preview_key(entry, fragment, theme, resolver)
    return _preview_cache.get_or_make(
        key, lambda: _render_preview(entry, resolver, fragment, theme, vault_root)
    )


def clear_preview_cache() -> None:
    _preview_cache.clear()


def preview_cache() -> LockedLru[RenderedEntry]:
    """The cache of page previews (for freshness.carry_renders)."""
    return _preview_cache


def _render_preview(
    entry: Entry, resolver: EntryLookup, fragment: str, theme: str, vault_root: Path | None
) -> RenderedEntry:
    pal = palette(theme)
    vault_root = vault_root_of(resolver, vault_root)
    ctx = RenderContext(entry_id=entry.id, source_path=entry.path, resolver=resolver,
                        palette=pal, vault_root=vault_root)  # fmt: skip
    body = entry.body or ""
    fragment = fragment.strip()
    drawing = ""
    if is_drawing_note(entry.path, entry.properties):  # the drawing, then its text
        drawing = drawing_page_html(ctx) if not fragment else ""
        body = reader_text(body)
    part = ""
    if fragment.startswith("^"):
        part = block_of(body, fragment[1:])
    elif fragment:
        part = section_of(body, fragment)
    if part and not part.startswith("*(no "):
        body = part
    notice = ""
    if len(body) > PREVIEW_BODY_CHARS:
        cut = body.rfind("\n", 0, PREVIEW_BODY_CHARS)
        body = body[: cut if cut > PREVIEW_BODY_CHARS // 2 else PREVIEW_BODY_CHARS]
        notice = f'<p style="color: {pal.muted};"><i>… the rest is in the entry</i></p>'
    try:
        body_html = markdown_to_html(body, ctx)
    except Exception as exc:  # a preview must never fail: the text, as text
        ctx.problems.append(f"preview failed: {type(exc).__name__}: {exc}")
        body_html = f"<pre>{escape(body)}</pre>"
    if ctx.budget.cuts:  # as the pane says it (nesting flattened, formulas as TeX…)
        what = escape("; ".join(ctx.budget.cuts.values()))
        notice += f'<p style="color: {pal.muted};"><i>Shown in part: {what}.</i></p>'
    title = html_text(entry.title or entry.id, limit=300)
    return page(
        ctx,
        entry,
        f'<h2 class="title" style="margin-top: 0;">{title}</h2>{_summary_html(entry, pal)}'
        f'<div class="body">{drawing}{break_long_runs(body_html)}</div>{notice}',
    )
