"""An entry as one HTML document for Qt's QTextBrowser: header, Properties box, body."""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
import string
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import Any

from anthology.palette import EntryColours

from ..links import WIKILINK_RE, split_wikilink
from ..model import Entry, EntryLookup, Relation
from .markdown_ext import RenderContext, markdown_to_html, tag_chip
from .safe_text import html_text
from .theme import palette

MAX_BODY_CHARS = 100_000
MAX_QUOTE_DEPTH = 12
MAX_LIST_INDENT = 48
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
CACHE_SIZE = 64


@dataclass
class RenderedEntry:
    """What the entry pane shows: a complete document and the images it refers to."""

    html: str
    resources: dict[str, bytes] = field(default_factory=dict)  # "math:…" → SVG bytes
    headings: list[tuple[int, str, str]] = field(default_factory=list)  # (level, text, anchor)
    problems: list[str] = field(default_factory=list)
    entry_id: str = ""
    theme: str = "light"


# ------------------------------------------------------------------ stylesheet
@lru_cache(maxsize=4)
def stylesheet(theme: str) -> str:
    """``resources/entry.css`` with the theme's colours filled in (``$text``, ``$link``, …)."""
    from ...paths import resource

    try:
        template = resource("entry.css").read_text(encoding="utf-8")
    except OSError:
        return ""
    return string.Template(template).safe_substitute(vars(palette(theme)))


# ------------------------------------------------------------------ helpers
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


def _format_value(key: str, value: Any, ctx: RenderContext) -> str:
    pal = ctx.palette
    if isinstance(value, list | tuple | set):
        parts = [_format_value(key, v, ctx) for v in value]
        return ", ".join(p for p in parts if p) or "—"
    if isinstance(value, dict):
        return "; ".join(
            f"{escape(str(k))}: {_format_value(key, v, ctx)}" for k, v in value.items()
        )
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
    ref = ctx._resolve(target)
    if ref is None:
        return ctx.unresolved_link(target, escape(alias or target))
    return ctx.internal_link(ref, escape(ref.label), heading)


def _relation_value(rel: Relation, ctx: RenderContext) -> str:
    if rel.other is None:
        written = rel.text
        m = WIKILINK_RE.search(written)
        target = split_wikilink(m.group(2))[0] if m else written
        return ctx.unresolved_link(target, escape(target))
    return ctx.internal_link(rel.other, escape(rel.other.label), None)


def _tags_value(value: Any, pal: EntryColours) -> str:
    tags = value if isinstance(value, list | tuple) else re.split(r"[,\s]+", str(value))
    return " ".join(tag_chip(str(t).lstrip("#"), pal) for t in tags if str(t).strip())


def property_rows(entry: Entry, ctx: RenderContext) -> list[tuple[str, str]]:
    """(label, value HTML) of each row of the Properties box, in order."""
    rows: list[tuple[str, str]] = []
    forward: dict[str, list[Relation]] = {}
    for rel in entry.relations:
        forward.setdefault(_norm(rel.relation), []).append(rel)
    used: set[str] = set()
    for key, value in (entry.properties or {}).items():
        if key.lower() in HIDDEN_PROPERTIES:
            continue
        rels = forward.get(_norm(key))
        # A key is vault text like any value: escaped, or 3,000 nested <table> in a key
        # crash Qt's layout and a key can inject a link.
        label = html_text(humanise(key))
        if rels:
            used.add(_norm(key))
            rows.append((label, ", ".join(_relation_value(r, ctx) for r in rels)))
        elif key.lower() in ("tags", "tag"):
            rows.append((label, _tags_value(value, ctx.palette) or "—"))
        else:
            rows.append((label, _format_value(key, value, ctx)))
    for name, rels in forward.items():
        if name not in used:
            rows.append(
                (
                    html_text(humanise(rels[0].relation)),
                    ", ".join(_relation_value(r, ctx) for r in rels),
                )
            )
    by_relation: dict[str, list[Relation]] = {}
    for rel in entry.cited_by:
        by_relation.setdefault(rel.relation, []).append(rel)
    for name in sorted(by_relation, key=str.lower):
        links = "<br />".join(_relation_value(r, ctx) for r in by_relation[name])
        more = entry.cited_by_total.get(name, 0) - len(by_relation[name])
        if more > 0:  # a hub: the rest are in the backlinks panel, grouped by relation
            links += (
                f'<br /><span style="color: {ctx.palette.muted};">and {more:,} more, '
                "listed under Backlinks</span>"
            )
        rows.append((f"Cited as “{escape(name)}” by", links))
    return rows


def _properties_html(rows: list[tuple[str, str]], pal: EntryColours) -> str:
    if not rows:
        return ""
    body = "".join(
        f'<tr><td width="36%" valign="top" style="color: {pal.muted}; '
        f'padding: 4px 12px 4px 12px;">{label}</td>'
        f'<td valign="top" style="padding: 4px 12px 4px 4px;">{value}</td></tr>'
        for label, value in rows
    )
    return (
        f'<table class="properties" width="100%" cellspacing="0" cellpadding="0" border="1" '
        f'style="border-color: {pal.box_border}; border-style: solid; border-collapse: collapse; '
        f'margin-top: 10px; margin-bottom: 18px;"><tr><td bgcolor="{pal.box_bg}" '
        f'style="padding: 6px 0px 8px 0px;">'
        f'<table width="100%" cellspacing="0" cellpadding="0" border="0">'
        f'<tr><td colspan="2" style="padding: 4px 12px 8px 12px;"><b>Properties</b>'
        f'&#160;&#160;<span class="count" style="color: {pal.muted};">{len(rows)}</span></td></tr>'
        f"{body}</table></td></tr></table>"
    )


def _byline(props: dict[str, Any], pal: EntryColours) -> str:
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


def _minutes(entry: Entry) -> int:
    try:
        return max(1, int(entry.reading_minutes or 1))
    except (TypeError, ValueError):
        return 1


def _title_html(entry: Entry) -> str:
    title = entry.title or entry.id
    if entry.title and entry.title != entry.id and "/" not in entry.id and " " not in entry.id:
        return f'<h1 class="title">{escape(entry.id)}: {escape(title)}</h1>'
    return f'<h1 class="title">{escape(title)}</h1>'


def _clamp_nesting(body: str) -> tuple[str, bool]:
    """Flatten absurd nesting (10,000-deep quotes or lists) that would recurse without end."""
    if len(body) < 2 * MAX_QUOTE_DEPTH and len(body) < MAX_LIST_INDENT:
        return body, False
    changed = False
    out = []
    quote_re = re.compile(rf"^((?:[ \t]{{0,3}}>){{{MAX_QUOTE_DEPTH + 1},}})")
    list_re = re.compile(
        rf"^([ \t]{{{MAX_LIST_INDENT + 1},}})(?=(?:[-*+]|\d{{1,9}}[.)])(?:[ \t]|$))"
    )
    nested_marker_re = re.compile(r"^([ \t]*)((?:[-*+][ \t]+){8,})")
    for line in body.split("\n"):
        m = quote_re.match(line)
        if m:
            line = ">" * MAX_QUOTE_DEPTH + " " + line[m.end() :].lstrip(" >\t")
            changed = True
        m = list_re.match(line)
        if m:
            line = " " * MAX_LIST_INDENT + line[m.end() :]
            changed = True
        m = nested_marker_re.match(line)
        if m:
            line = m.group(1) + "- " + line[m.end() :]
            changed = True
        out.append(line)
    return ("\n".join(out) if changed else body), changed


_TEXT_RE = re.compile(r">([^<]{120,})")
_LONG_RUN_RE = re.compile(r"[^\s<>&]{120,}")


def _break_long_runs(html: str) -> str:
    """Let Qt wrap 100,000-character "words": its line breaker is quadratic on them."""

    def split(run: re.Match[str]) -> str:
        word = run.group(0)
        return "\u200b".join(word[i : i + 60] for i in range(0, len(word), 60))

    def text(m: re.Match[str]) -> str:
        return ">" + _LONG_RUN_RE.sub(split, m.group(1))

    return _TEXT_RE.sub(text, html)


# ------------------------------------------------------------------ render
_cache: OrderedDict[tuple, RenderedEntry] = OrderedDict()
_cache_lock = threading.Lock()


def clear_render_cache() -> None:
    with _cache_lock:
        _cache.clear()


def _cache_key(entry: Entry, resolver: EntryLookup, theme: str, vault_root: Path | None) -> tuple:
    digest = hashlib.sha1(entry.body.encode("utf-8", "surrogatepass")).hexdigest()
    meta = repr(
        (
            entry.title,
            entry.kind,
            entry.status,
            entry.tags,
            entry.properties,
            entry.relations,
            entry.cited_by,
            entry.cited_by_total,
            entry.reading_minutes,
            entry.path,
        )
    )
    return (
        entry.id,
        entry.mtime,
        theme,
        digest,
        hashlib.sha1(meta.encode("utf-8", "surrogatepass")).hexdigest(),
        id(resolver),
        getattr(resolver, "generation", None),
        str(vault_root) if vault_root else None,
    )


def cached_render(
    entry: Entry,
    resolver: EntryLookup,
    *,
    theme: str = "light",
    vault_root: Path | None = None,
) -> RenderedEntry | None:
    """The cached render :func:`render_entry` would return, or None (nothing is rendered)."""
    if vault_root is None:
        root = getattr(resolver, "vault_root", None) or getattr(resolver, "root", None)
        vault_root = Path(root) if isinstance(root, str | Path) else None
    key = _cache_key(entry, resolver, theme, vault_root)
    with _cache_lock:
        return _cache.get(key)


def pending_html(entry: Entry, *, theme: str = "light") -> str:
    """What the pane shows while a long entry renders in the background: title, a line."""
    pal = palette(theme)
    return (
        '<html><head><meta charset="utf-8" />'
        f"<style>{stylesheet(pal.name)}</style></head><body>"
        f"{_break_long_runs(_title_html(entry))}"
        f'<p class="rendering" style="color: {pal.muted};">Rendering…</p></body></html>'
    )


def render_entry(
    entry: Entry,
    resolver: EntryLookup,
    *,
    theme: str = "light",
    vault_root: Path | None = None,
) -> RenderedEntry:
    """The entry as a complete HTML document, cached (LRU by id, mtime, theme, contents).

    Never raises on bad content: what cannot be rendered is shown as a visible notice and
    listed in ``problems``. ``vault_root`` (else ``resolver.vault_root`` / ``resolver.root``
    when the resolver has one) makes image sources vault-relative (``vault:img/a.png``).
    """
    if vault_root is None:
        root = getattr(resolver, "vault_root", None) or getattr(resolver, "root", None)
        vault_root = Path(root) if isinstance(root, str | Path) else None
    key = _cache_key(entry, resolver, theme, vault_root)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    rendered = _render(entry, resolver, theme, vault_root)
    with _cache_lock:
        _cache[key] = rendered
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return rendered


def _render(
    entry: Entry, resolver: EntryLookup, theme: str, vault_root: Path | None
) -> RenderedEntry:
    pal = palette(theme)
    ctx = RenderContext(
        entry_id=entry.id,
        source_path=entry.path,
        resolver=resolver,
        palette=pal,
        vault_root=vault_root,
    )
    head: list[str] = [_title_html(entry), _byline(entry.properties or {}, pal)]
    aliases = [str(a) for a in (entry.aliases or []) if str(a).strip()]
    if aliases:
        head.append(
            f'<p class="aliases" style="color: {pal.muted}; margin-top: 0;">Also called '
            + ", ".join(f"<i>{escape(a)}</i>" for a in aliases)
            + "</p>"
        )
    meta = [f'<span style="color: {pal.muted};">{_minutes(entry)} min read</span>']
    props = entry.properties or {}
    boxed = props.get("tags", props.get("tag")) or []
    boxed = {str(t).lstrip("#") for t in (boxed if isinstance(boxed, list | tuple) else [boxed])}
    loose = [t for t in entry.tags if t not in boxed]  # body #tags: not in the box below
    if loose:
        meta.append(" ".join(tag_chip(t, pal) for t in loose))
    head.append(f'<p class="meta">{"&#160;&#160;·&#160;&#160;".join(meta)}</p>')
    try:
        head.append(_properties_html(property_rows(entry, ctx), pal))
    except Exception as exc:  # odd YAML values must not cost the reader the page
        ctx.problems.append(f"properties could not be shown: {exc}")
        head.append(
            ctx.notice(f"Properties could not be shown: {escape(str(exc))}", error=True, block=True)
        )

    body = entry.body or ""
    notices: list[str] = []
    if len(body) > MAX_BODY_CHARS:
        cut = body.rfind("\n", 0, MAX_BODY_CHARS)
        cut = cut if cut > MAX_BODY_CHARS // 2 else MAX_BODY_CHARS
        total = max(len(body), entry.body_chars or 0)  # the index reads only a huge body's head
        msg = (
            f"This entry is {total / 1e6:.1f} million characters long; "
            f"only the first {cut // 1000} thousand are shown."
        )
        ctx.problems.append(f"body truncated: {total} characters, {cut} shown")
        notices.append(ctx.notice("✂ " + msg, error=True, block=True))
        body = body[:cut]
    body, clamped = _clamp_nesting(body)
    if clamped:
        ctx.problems.append("nesting flattened: quotes or lists nested too deeply")
        notices.append(
            ctx.notice(
                "Some quotes or lists were nested too deeply and are shown flattened.", block=True
            )
        )
    try:
        body_html = markdown_to_html(body, ctx)
    except RecursionError:
        ctx.problems.append("body nested too deeply to render; shown as text")
        notices.append(
            ctx.notice(
                "This entry is nested too deeply to render; it is shown as plain text.",
                error=True,
                block=True,
            )
        )
        body_html = f"<pre>{escape(body)}</pre>"
    except Exception as exc:  # a bug in an extension must not blank the page
        ctx.problems.append(f"render failed: {type(exc).__name__}: {exc}")
        notices.append(
            ctx.notice(
                f"This entry could not be rendered ({escape(type(exc).__name__)}); "
                "it is shown as plain text.",
                error=True,
                block=True,
            )
        )
        body_html = f"<pre>{escape(body)}</pre>"
    if ctx.budget.cuts:  # work budgets (markdown_ext.MAX_*): say what is not shown in full
        what = "; ".join(ctx.budget.cuts.values())
        ctx.problems.append(f"rendering cut short: {what}")
        notices.append(ctx.notice(f"⚠ Rendering was cut short: {escape(what)}.", block=True))
    body_html = _break_long_runs(body_html)
    tail = notices[:1] if len(notices) and "✂" in notices[0] else []
    html = (
        '<html><head><meta charset="utf-8" />'
        f"<style>{stylesheet(pal.name)}</style></head>"
        f"<body>{_break_long_runs(''.join(head))}{''.join(notices)}"
        f'<div class="body">{body_html}</div>{"".join(tail)}</body></html>'
    )
    return RenderedEntry(
        html=html,
        resources=dict(ctx.resources),
        headings=list(ctx.headings),
        problems=list(ctx.problems),
        entry_id=entry.id,
        theme=pal.name,
    )


def find_heading(headings: list[tuple[int, str, str]], text: str) -> str | None:
    """The anchor of the heading ``text`` names: its text, its anchor, or their slugs."""
    from markdown.extensions.toc import slugify_unicode

    want = text.strip().lstrip("#").strip()
    if not want:
        return None
    low = want.lower()
    for _level, heading, anchor in headings:
        if heading.strip().lower() == low or anchor in (want, low):
            return anchor
    slug = slugify_unicode(want, "-")
    squashed = re.sub(r"\W+", "", low)
    for _level, heading, anchor in headings:
        if slugify_unicode(heading, "-") == slug or re.sub(r"\W+", "", heading.lower()) == squashed:
            return anchor
    return None


# ------------------------------------------------------------------ previews
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
    facts.append(f"{_minutes(entry)} min read")
    excerpt = plain_excerpt(entry.body or "")
    return (
        f'<div style="max-width: 420px;"><p style="margin: 0;"><b>{label}</b></p>'
        f'<p style="color: {pal.muted}; margin: 2px 0 6px 0;">{escape(" · ".join(facts))}</p>'
        f'<p style="margin: 0;">{escape(excerpt) if excerpt else "<i>(empty)</i>"}</p></div>'
    )
