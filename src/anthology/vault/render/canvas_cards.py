"""A card's content as the entry renderer makes it: a text card's Markdown, or the note a
file card names (its body, or the heading or block its ``subpath`` names), as one HTML
document in the theme's style sheet with the images it asks for (``math:`` formulas…).
A card is drawn small, so at most :data:`CARD_RENDER_CHARS` of it are rendered: a 10 MB
card costs the same as a long one."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import cast

from ..model import Entry, EntryLookup, EntryRef
from .context import RenderContext
from .embeds import block_of, section_of
from .entry import RenderedEntry, page
from .markdown_ext import markdown_to_html
from .theme import palette

CARD_RENDER_CHARS = 20_000


class _Page:  # what render.entry.page reads of an entry
    def __init__(self, entry_id: str) -> None:
        self.id = entry_id


def card_html(
    text: str,
    lookup: EntryLookup,
    *,
    entry_id: str,
    source_path: str,
    theme: str = "light",
    vault_root: Path | None = None,
) -> RenderedEntry:
    """``text`` (Markdown written in the entry ``entry_id`` at ``source_path``: the canvas,
    or the note a file card shows) rendered as a page; never raises."""
    # depth 1: a card is drawn as an embed is (no fold markers before its headings)
    ctx = RenderContext(entry_id=entry_id, source_path=source_path, resolver=lookup,
                        palette=palette(theme), vault_root=vault_root, depth=1)  # fmt: skip
    tail = ""
    if len(text) > CARD_RENDER_CHARS:
        cut = text.rfind("\n", 0, CARD_RENDER_CHARS)
        text = text[: cut if cut > CARD_RENDER_CHARS // 2 else CARD_RENDER_CHARS]
        tail = ctx.notice("✂ the rest of this card is not drawn", block=True)
    try:
        body = markdown_to_html(text, ctx)
    except RecursionError:
        ctx.problems.append("card nested too deeply to render; shown as text")
        body = f"<pre>{escape(text)}</pre>"
    except Exception as exc:  # a bug in an extension must not blank the board
        ctx.problems.append(f"card could not be rendered: {type(exc).__name__}")
        body = f"<pre>{escape(text)}</pre>"
    return page(ctx, cast(Entry, _Page(entry_id)), f'<div class="body">{body}</div>{tail}')


def file_card_source(
    lookup: EntryLookup, file: str, subpath: str | None, canvas_path: str
) -> tuple[EntryRef | None, str | None]:
    """The note a file card names and the Markdown it shows (its body, or the section or
    block of ``subpath``): ``(ref, text)``; ``(None, None)`` when the file is no note of
    the vault; ``(ref, None)`` when its body cannot be read."""
    try:
        ref = lookup.resolve(file, canvas_path)
    except Exception:
        return None, None
    if ref is None:
        return None, None
    try:
        body = lookup.embed_body(ref.id)
    except Exception:
        body = None
    if body is None:
        return ref, None
    if subpath and subpath.startswith("#^"):
        body = block_of(body, subpath[2:])
    elif subpath:
        body = section_of(body, subpath[1:])
    return ref, body
