"""Excalidraw drawings in a page: the picture an entry page of the plugin's Markdown shows
first (:func:`drawing_page_html`), and ``![[drawing]]`` / ``![[drawing.excalidraw]]`` /
``![[drawing.excalidraw.md|400]]`` drawn in place at the size written
(:func:`drawing_embed_html`). The picture is an SVG of the drawing's model
(:mod:`anthology.vault.drawing`) as a ``figure:`` resource: the pane draws it crisp and
fitted to the text column, exports inline it; a click on it opens the drawing in a tab
(pan, zoom). A drawing that cannot be drawn is a notice saying why, in place."""

from __future__ import annotations

import hashlib
import re
from html import escape
from pathlib import Path
from urllib.parse import quote

from ..drawing.load import INLINE, load_drawing
from ..drawing.scene import DrawingError
from ..drawing.svg import PADDING, drawing_svg
from .context import RenderContext

_SIZE_RE = re.compile(r"(\d{1,5})(?:x(\d{1,5}))?")


def _vault_rel(ctx: RenderContext, path: str | Path | None) -> str | None:
    if path is None:
        return None
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    if ctx.vault_root is None:
        return None
    try:
        return p.resolve().relative_to(ctx.vault_root.resolve()).as_posix()
    except (ValueError, OSError):
        return None


def _size(alias: str | None) -> tuple[float | None, float | None]:
    m = _SIZE_RE.fullmatch(alias.strip()) if alias else None
    if m is None:
        return None, None
    return float(m.group(1)), float(m.group(2)) if m.group(2) else None


def drawing_picture_html(ctx: RenderContext, rel: str, alias: str | None = None) -> str:
    """The drawing of the vault file ``rel`` as a picture linked to its tab, at the width
    ``alias`` writes (``400``, ``400x300``: as Obsidian sizes an embed), else its own size
    fitted to the column; or a notice saying why it is not drawn."""
    name = rel.rsplit("/", 1)[-1]
    p = ctx.palette
    # the tab opens a drawing by its name (ui/reading/drawing_view.py ``opens``): one named
    # otherwise (front matter "excalidraw-plugin" alone) is drawn here, not linked
    tab = rel.lower().endswith((".excalidraw", ".excalidraw.md"))
    href = "vault:" + quote(rel, safe="/")
    open_link = (f'<a href="{escape(href)}" style="color: {p.link}; text-decoration: none;">'
                 f"{escape(name)}</a>") if tab else escape(name)  # fmt: skip
    if ctx.vault_root is None:
        return ctx.notice(f"✎ Drawing {open_link}", block=True)

    def find(target: str) -> str | None:
        try:
            return _vault_rel(ctx, ctx.resolver.attachment(target, rel))
        except Exception:  # the resolver is the lead's; a picture is not worth a page
            return None

    try:
        drawing = load_drawing(ctx.vault_root, rel, INLINE, find_file=find)
    except DrawingError as exc:
        ctx.problems.append(f"drawing not drawn: {rel}: {exc}")
        return ctx.notice(
            f"⚠ The drawing {open_link} is not drawn here: {escape(str(exc))}.", error=True,
            block=True,
        )  # fmt: skip
    width, height = _size(alias)
    shown_w, shown_h = drawing.width + 2 * PADDING, drawing.height + 2 * PADDING
    if width and height and shown_h * width / shown_w > height:
        width = height * shown_w / shown_h  # fits the box written
    svg = drawing_svg(drawing, dark=ctx.palette.name == "dark", width=width)
    key = "figure:drawing-" + hashlib.sha1(svg).hexdigest()[:20]
    ctx.resources[key] = svg
    notes = "".join(
        f'<p style="color: {p.muted}; font-size: small; margin-top: 0;">{escape(n)}</p>'
        for n in drawing.notices
    )
    refused = sorted({pic.refused for pic in drawing.images.values() if pic.refused})
    if refused:
        ctx.problems.extend(f"drawing {rel}: picture not shown: {r}" for r in refused)
    img = f'<img src="{escape(key)}" alt="{escape(name)}" />'
    return (
        '<p class="drawing" style="margin-top: 8px; margin-bottom: 2px; line-height: 100%;">'
        + (f'<a href="{escape(href)}">{img}</a>' if tab else img)
        + "</p>"
        f'<p class="drawing-caption" style="color: {p.muted}; font-size: small; margin-top: 0;">'
        f"✎ {open_link} · {drawing.elements:,} elements"
        + (" · click to pan and zoom" if tab else "")
        + f"</p>{notes}"
    )


def drawing_page_html(ctx: RenderContext) -> str:
    """What an entry page of the plugin's Markdown shows first: its drawing."""
    return drawing_picture_html(ctx, ctx.source_path)


def drawing_file_embed(
    ctx: RenderContext, target: str, alias: str | None, _frag: str | None
) -> str:
    """``![[drawing.excalidraw]]``: the JSON file drawn in place (``ATTACHMENT_EMBEDS``)."""
    try:
        path = ctx.resolver.attachment(target, ctx.source_path)
    except Exception as exc:  # the resolver is the lead's; never let it break a page
        ctx.problems.append(f"attachment lookup failed for {target}: {exc}")
        path = None
    rel = _vault_rel(ctx, path)
    if rel is None:
        ctx.problems.append(f"missing drawing: {target}")
        return ctx.notice(f"⊘ Missing drawing: “{escape(target)}”", error=True, block=True)
    return drawing_picture_html(ctx, rel, alias)
