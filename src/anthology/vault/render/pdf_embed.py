"""``![[doc.pdf]]``, ``![[doc.pdf#page=3]]``, ``![[doc.pdf#height=400]]`` (and
``![](doc.pdf#page=3)``): a page of a vault PDF shown in place, as Obsidian shows it.

The render is Qt-free and may run on the GUI thread, so it draws nothing: it reads the
page count and the page's size (:func:`anthology.vault.pdf.page_info`, no page drawn, kept
per file) and writes a picture whose source names the page and its size,
``pdf:<path>#page=3&w=612&h=792[&height=400]``. A widget showing the render answers that
source with a blank page of the right size at once and the drawn page later, from a
worker (the entry pane: :mod:`anthology.ui.reading.entry_pane`). Above the page: the
file's name, "page N of M" and a link that opens the PDF in a tab at that page. A file
that is no readable PDF (damaged, encrypted, something else named .pdf) shows why in
place of the page.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import PurePosixPath
from urllib.parse import quote, unquote

from ..pdf import PdfError, page_info
from .context import RenderContext
from .urls import attachment_src

MAX_EMBED_HEIGHT = 4000  # px: a #height= past this is taken as this


def pdf_fragment(frag: str | None) -> tuple[int, int | None]:
    """(page, height) of ``page=3&height=400`` (either, both, in any order; page 1 and
    no height when absent or not numbers)."""
    page, height = 1, None
    for part in re.split(r"[&;]", frag or ""):
        name, _, value = part.partition("=")
        value = value.strip()
        if name.strip().lower() == "page" and value.isdigit():
            page = max(1, int(value))
        elif name.strip().lower() == "height" and value.isdigit() and int(value) > 0:
            height = min(int(value), MAX_EMBED_HEIGHT)
    return page, height


def page_source(rel: str, page: int, size: tuple[float, float], height: int | None) -> str:
    """The picture source of page ``page`` (1-based) of ``rel`` (vault-relative)."""
    src = f"pdf:{quote(rel, safe='/')}#page={page}&w={size[0]:g}&h={size[1]:g}"
    return src + (f"&height={height}" if height else "")


def parse_page_source(src: str) -> tuple[str, int, tuple[float, float], int | None] | None:
    """(rel, page, size in points, height) of a :func:`page_source`; None if it is none."""
    if not src.startswith("pdf:"):
        return None
    path, _, frag = src[len("pdf:") :].partition("#")
    fields = dict(part.partition("=")[::2] for part in frag.split("&"))
    try:
        size = (float(fields["w"]), float(fields["h"]))
        page = int(fields.get("page", "1"))
        height = int(fields["height"]) if fields.get("height") else None
    except (KeyError, ValueError):
        return None
    if not path or min(size) <= 0 or page < 1:
        return None
    return unquote(path), page, size, height


def pdf_embed_html(ctx: RenderContext, target: str, alias: str | None, frag: str | None) -> str:
    """A page of the PDF ``target`` (see the module docstring); block-level HTML."""
    page, height = pdf_fragment(frag)
    src, refusal = attachment_src(ctx, target)
    if src is None:
        return ctx.notice(refusal or "", error=True, block=True)
    rel = unquote(src[len("vault:") :])
    name = escape(PurePosixPath(rel).name)
    link = f'<a href="{escape(src)}#page={page}">{name}</a>'
    if ctx.vault_root is None or not ctx.take_image():
        return f"<p>▤ {link}</p>"
    try:
        info = page_info(ctx.vault_root, rel, page - 1)
    except PdfError as exc:
        ctx.problems.append(f"PDF not shown: {target}: {exc}")
        return ctx.notice(f"⚠ {link}: {escape(str(exc))}", error=True, block=True)
    p = ctx.palette
    shown = min(page, info.pages)
    beyond = ""
    if page > info.pages:
        ctx.problems.append(f"PDF page {page} asked of {target}, which has {info.pages}")
        beyond = f" (page {page} asked: there is none)"
    href = escape(f"{src}#page={shown}")
    title = escape(alias) if alias and not alias.isdigit() else name
    caption = (
        f'<p style="font-size: small; margin-top: 0; margin-bottom: 6px;">▤ '
        f'<a href="{href}">{title}</a>'
        f'<span style="color: {p.muted};"> · page {shown} of {info.pages}{beyond} · </span>'
        f'<a href="{href}">open in a tab</a></p>'
    )
    image = (
        f'<a href="{href}"><img src="{escape(page_source(rel, shown, info.size, height))}" '
        f'alt="{escape(f"page {shown} of {PurePosixPath(rel).name}")}" /></a>'
    )
    # line-height 100 %: the body's 150 % would add half the page's height below it
    return (
        f'<table class="pdf-embed" width="100%" cellspacing="0" cellpadding="8" border="1" '
        f'style="border-color: {p.box_border}; border-style: solid; margin-top: 8px; '
        f'margin-bottom: 12px;"><tr><td>{caption}'
        f'<p style="margin: 0; line-height: 100%;">{image}</p></td></tr></table>'
    )
