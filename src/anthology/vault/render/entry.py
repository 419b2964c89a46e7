"""An entry as one HTML document for Qt's QTextBrowser: header, Properties box, body."""

from __future__ import annotations

import hashlib
import itertools
import re
import string
from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from pathlib import Path

from ..excalidraw_md import is_drawing_note, reader_text
from ..links import match_heading
from ..lru import LockedLru
from ..model import CITED_BY_SHOWN as CITED_BY_SHOWN  # kept there: the ladder's too
from ..model import Entry, EntryLookup, is_path_id
from ..obsidian_settings import settings_of
from .base_cost import query_cost
from .context import RenderContext, quote_all
from .markdown_ext import markdown_to_html
from .properties import byline_html, properties_html, property_rows, tag_chips
from .theme import palette

MAX_BODY_CHARS = 100_000
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
    # what the render asked the index, and the answers (RenderBudget.lookups)
    lookups: dict[tuple[str, str, str], str | None] = field(default_factory=dict)
    code_blocks: list[str] = field(default_factory=list)  # the text each copy:N link copies


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


def minutes_to_read(entry: Entry) -> int:
    try:
        return max(1, int(entry.reading_minutes or 1))
    except (TypeError, ValueError):
        return 1


def breadcrumb_html(entry: Entry, muted: str) -> str:
    """Where the note is, above its title (as Quartz's breadcrumbs and Obsidian's inline
    title say it): each folder of its path a ``folder:`` link (the explorer opens it), and
    the file's name when the title does not already say it. "" for a note at the top of
    the vault whose title is its file name."""
    parts = entry.path.split("/")
    folders, name = parts[:-1], parts[-1]
    stem = name[:-3] if name.lower().endswith(".md") else name
    # the title line says "ID: Title" for a note with an id of its own, "Title" otherwise
    said = (entry.title,) if is_path_id(entry.id, entry.path) else (entry.title, entry.id)
    shown_name = stem not in said
    if not folders and not shown_name:
        return ""
    crumbs = [
        f'<a href="folder:{quote_all("/".join(folders[: i + 1]))}" class="crumb" '
        f'style="color: {muted}; text-decoration: none;">{escape(folder)}</a>'
        for i, folder in enumerate(folders)
    ]
    if shown_name:
        crumbs.append(f'<span style="color: {muted};">{escape(name)}</span>')
    sep = f'<span style="color: {muted};">&#160;›&#160;</span>'
    return (
        f'<p class="breadcrumb" style="font-size: small; margin-top: 0; margin-bottom: 2px;">'
        f"{sep.join(crumbs)}</p>"
    )


def _title_html(entry: Entry) -> str:
    title = entry.title or entry.id
    if entry.title and entry.title != entry.id and not is_path_id(entry.id, entry.path):
        return f'<h1 class="title">{escape(entry.id)}: {escape(title)}</h1>'
    return f'<h1 class="title">{escape(title)}</h1>'


_TEXT_RE = re.compile(r">([^<]{120,})")
# a run of characters, an entity (&lt;) counting as one: "<a<a<a…" is all entities
_LONG_RUN_RE = re.compile(r"(?:[^\s<>&]|&#?\w{1,12};){120,}")
_CHAR_RE = re.compile(r"&#?\w{1,12};|.", re.S)


def break_long_runs(html: str) -> str:
    """Let Qt wrap 100,000-character "words": its line breaker is quadratic on them."""

    def split(run: re.Match[str]) -> str:
        chars = _CHAR_RE.findall(run.group(0))
        return "\u200b".join("".join(chars[i : i + 60]) for i in range(0, len(chars), 60))

    def text(m: re.Match[str]) -> str:
        return ">" + _LONG_RUN_RE.sub(split, m.group(1))

    return _TEXT_RE.sub(text, html)


# ------------------------------------------------------------------ render
_cache: LockedLru[RenderedEntry] = LockedLru(CACHE_SIZE)


def clear_render_cache() -> None:
    _cache.clear()


def render_cache() -> LockedLru[RenderedEntry]:
    """The cache of entry pages (for freshness.carry_renders)."""
    return _cache


def render_key(resolver: EntryLookup) -> Hashable:
    """Which index, in which state, a render's links were resolved against: part of every
    render cache key. A lookup lent to a worker (:class:`~anthology.vault.shared_reader.
    LentLookup`) names the window's index, so a render made off the GUI thread is found by
    the pane as one made on it; any other resolver is itself and its ``generation``."""
    key = getattr(resolver, "render_key", None)
    if key is not None:
        return key
    return (id(resolver), getattr(resolver, "generation", None))


_KEYED_ITEMS = 1000


def _keyed(value: object) -> object:
    """``value`` as the cache key holds it: a dict or list of more than :data:`_KEYED_ITEMS`
    items by its length and first items (what the page shows of it, and its count). The
    rest cannot change without the file changing, and its mtime is in the key too: the
    repr of 100k front-matter keys cost the GUI thread 18 ms a look-up."""
    if isinstance(value, dict) and len(value) > _KEYED_ITEMS:
        return len(value), list(itertools.islice(value.items(), _KEYED_ITEMS))
    if isinstance(value, list | tuple) and len(value) > _KEYED_ITEMS:
        return len(value), value[:_KEYED_ITEMS]
    return value


def _cache_key(
    entry: Entry,
    resolver: EntryLookup,
    theme: str,
    vault_root: Path | None,
    folds: frozenset[int | str] = frozenset(),
) -> tuple:
    digest = hashlib.sha1(entry.body.encode("utf-8", "surrogatepass")).hexdigest()
    meta = repr(
        (
            entry.title,
            entry.kind,
            entry.status,
            _keyed(entry.tags),
            _keyed(entry.properties),
            _keyed(entry.inline_fields),
            _keyed(entry.relations),
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
        render_key(resolver),
        str(vault_root) if vault_root else None,
        tuple(sorted(folds, key=str)),
        settings_of(vault_root),  # Obsidian's settings that change how a page reads
    )


def cached_render(
    entry: Entry,
    resolver: EntryLookup,
    *,
    theme: str = "light",
    vault_root: Path | None = None,
    folds: frozenset[int | str] = frozenset(),
) -> RenderedEntry | None:
    """The cached render :func:`render_entry` would return, or None (nothing is rendered)."""
    vault_root = vault_root_of(resolver, vault_root)
    return _cache.peek(_cache_key(entry, resolver, theme, vault_root, folds))


def render_size(entry: Entry) -> int:
    """About how much rendering ``entry`` costs, in characters of body: its body and, ten
    each, its properties, relations and tags (a note of 100k front-matter keys and a line
    of body is a long render too). The pane renders past a size off the GUI thread."""
    extra = len(entry.properties or {}) + len(entry.relations) + len(entry.tags)
    extra += len(entry.inline_fields or {})
    body = entry.body or ""
    # a drawing (its own page, or embedded) is read from its file and drawn: off the GUI
    # thread like a long body (a drawing of 2,000 elements is ~1.5 MB of JSON)
    drawings = body.count(".excalidraw") + is_drawing_note(entry.path, entry.properties)
    return len(body) + 10 * extra + 100_000 * drawings + query_cost(body)


def pending_html(entry: Entry, *, theme: str = "light") -> str:
    """What the pane shows while a long entry renders in the background: title, a line."""
    pal = palette(theme)
    return (
        '<html><head><meta charset="utf-8" />'
        f"<style>{stylesheet(pal.name)}</style></head><body>"
        f"{break_long_runs(_title_html(entry))}"
        f'<p class="rendering" style="color: {pal.muted};">Rendering…</p></body></html>'
    )


def render_entry(
    entry: Entry,
    resolver: EntryLookup,
    *,
    theme: str = "light",
    vault_root: Path | None = None,
    folds: frozenset[int | str] = frozenset(),
) -> RenderedEntry:
    """The entry as a complete HTML document, cached (LRU by id, mtime, theme, contents).

    Never raises on bad content: what cannot be rendered is shown as a visible notice and
    listed in ``problems``. ``vault_root`` (else ``resolver.vault_root`` / ``resolver.root``
    when the resolver has one) makes image sources vault-relative (``vault:img/a.png``).
    ``folds`` are the foldable callouts (``> [!faq]-`` / ``+``, numbered in reading order)
    the reader has opened or closed: their title is a ``fold:N`` link that flips them; and
    the headings the reader folded (``"hN"``: the entry's Nth heading, a ``fold:hN`` link
    beside it), whose sections are left out.
    """
    vault_root = vault_root_of(resolver, vault_root)
    key = _cache_key(entry, resolver, theme, vault_root, folds)
    return _cache.get_or_make(key, lambda: _render(entry, resolver, theme, vault_root, folds))


def _render(
    entry: Entry,
    resolver: EntryLookup,
    theme: str,
    vault_root: Path | None,
    folds: frozenset[int | str] = frozenset(),
) -> RenderedEntry:
    pal = palette(theme)
    ctx = RenderContext(
        entry_id=entry.id,
        source_path=entry.path,
        resolver=resolver,
        palette=pal,
        vault_root=vault_root,
        folds=folds,
    )
    head: list[str] = [
        breadcrumb_html(entry, pal.muted),
        _title_html(entry),
        byline_html(entry.properties or {}, pal),
    ]
    aliases = [str(a) for a in (entry.aliases or []) if str(a).strip()]
    if aliases:
        head.append(
            f'<p class="aliases" style="color: {pal.muted}; margin-top: 0;">Also called '
            + ", ".join(f"<i>{escape(a)}</i>" for a in aliases)
            + "</p>"
        )
    meta = [f'<span style="color: {pal.muted};">{minutes_to_read(entry)} min read</span>']
    props = entry.properties or {}
    boxed = props.get("tags", props.get("tag")) or []
    boxed = {str(t).lstrip("#") for t in (boxed if isinstance(boxed, list | tuple) else [boxed])}
    loose = [t for t in entry.tags if t not in boxed]  # body #tags: not in the box below
    if loose:
        meta.append(tag_chips(loose, pal))
    head.append(f'<p class="meta">{"&#160;&#160;·&#160;&#160;".join(meta)}</p>')
    try:
        head.append(properties_html(property_rows(entry, ctx), pal))
    except Exception as exc:  # odd YAML values must not cost the reader the page
        ctx.problems.append(f"properties could not be shown: {exc}")
        head.append(
            ctx.notice(f"Properties could not be shown: {escape(str(exc))}", error=True, block=True)
        )

    body = entry.body or ""
    notices: list[str] = []
    drawing = ""
    if is_drawing_note(entry.path, entry.properties):  # the plugin's: its drawing first
        from .drawings import drawing_page_html  # (the drawing model: only when met)

        drawing = drawing_page_html(ctx)
        body = reader_text(body)  # then the reader's notes and the drawing's text
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
    if ctx.budget.cuts:  # work budgets (context.MAX_*): say what is not shown in full
        what = "; ".join(ctx.budget.cuts.values())
        ctx.problems.append(f"rendering cut short: {what}")
        notices.append(ctx.notice(f"⚠ Rendering was cut short: {escape(what)}.", block=True))
    body_html = break_long_runs(body_html)
    tail = notices[:1] if len(notices) and "✂" in notices[0] else []
    return page(
        ctx,
        entry,
        f"{break_long_runs(''.join(head))}{''.join(notices)}"
        f'<div class="body">{drawing}{body_html}</div>{"".join(tail)}',
    )


_PICTURE = 'src="vault:'  # (of an <img>: links to files have an href)
_PICTURE_LINE = '<p style="line-height: 100%;">'


def picture_lines(body: str) -> str:
    """Paragraphs that hold a picture of the vault laid out at line height 100 %: the
    page's 150 % is of the tallest thing on the line, and left a blank half a picture
    high under every picture (145 px under a 289 px one). Linear: one pass over the
    paragraphs."""
    if _PICTURE not in body:
        return body
    parts = body.split("<p>")
    for i in range(1, len(parts)):
        part = parts[i]
        end = part.find("</p>")
        at = part.find(_PICTURE, 0, end if end >= 0 else len(part))
        parts[i] = (_PICTURE_LINE if at >= 0 else "<p>") + part
    return parts[0] + "".join(parts[1:])


# a typeset formula followed by punctuation: a word joiner between them, or Qt's line
# breaker may put the comma or full stop at the start of the next line
_MATH_THEN_PUNCTUATION_RE = re.compile(r'(<img src="math:[^>]{0,4000}>)(?=[.,;:!?)\]…’”»])')


def page(ctx: RenderContext, entry: Entry, body: str) -> RenderedEntry:
    """A whole document of ``body`` in the theme's style sheet, with the formulas,
    headings and problems ``ctx`` gathered while rendering it (an entry, a preview)."""
    pal = ctx.palette
    body = picture_lines(body)
    if 'src="math:' in body:
        body = _MATH_THEN_PUNCTUATION_RE.sub("\\1\u2060", body)
    html = (
        '<html><head><meta charset="utf-8" />'
        f"<style>{stylesheet(pal.name)}</style></head><body>{body}</body></html>"
    )
    return RenderedEntry(
        html=html,
        resources=dict(ctx.resources),
        headings=list(ctx.headings),
        problems=list(ctx.problems),
        entry_id=entry.id,
        theme=pal.name,
        lookups=dict(ctx.budget.lookups),
        code_blocks=list(ctx.budget.code_blocks),
    )


def vault_root_of(resolver: EntryLookup, vault_root: Path | None = None) -> Path | None:
    """``vault_root``, or the folder the resolver knows (an index's), or None."""
    if vault_root is None:
        root = getattr(resolver, "vault_root", None) or getattr(resolver, "root", None)
        vault_root = Path(root) if isinstance(root, str | Path) else None
    return vault_root


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
    hit = match_heading([heading for _level, heading, _anchor in headings], want)
    if hit is not None:  # as Obsidian matches a link's #Heading (links.match_heading)
        return headings[hit][2]
    slug = slugify_unicode(want, "-")
    squashed = re.sub(r"\W+", "", low)
    for _level, heading, anchor in headings:
        if slugify_unicode(heading, "-") == slug or re.sub(r"\W+", "", heading.lower()) == squashed:
            return anchor
    return None
