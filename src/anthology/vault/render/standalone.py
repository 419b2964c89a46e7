"""An entry as one self-contained HTML file: what the pane shows, for a browser or an archive.

The page is the renderer's (:class:`RenderedEntry`) at the reader's size and family
(:mod:`.reading`), with everything it refers to put inside it: typeset math and our figures
as inline ``<svg>``; Mermaid diagrams as the pane's PNG in a ``data:`` URI (drawn now if
they were not yet: :func:`.mermaid.draw`); embedded PDF pages drawn as PNGs; every other
picture the render made (``RenderedEntry.resources``: a drawing, whatever its key) as a
``data:`` URI of its PNG, JPEG, GIF or WebP bytes or of its SVG sanitised; the vault's
pictures as ``data:`` URIs (read as every vault file is read: inside the vault, regular
files only, SVGs sanitised); the stylesheet in its ``<style>``. Links into the vault
(``entry:``, ``tag:``…) mean nothing outside the app: they keep their text and lose their
target. Nothing is fetched, and nothing in the file fetches anything. Qt-free.
"""

from __future__ import annotations

import base64
import mimetypes
import re
from html import escape, unescape
from pathlib import Path
from urllib.parse import unquote

from ..files import open_regular
from . import mermaid
from .entry import RenderedEntry
from .reading import ReadingStyle, restyle
from .svg_safety import UnsafeSvg, sanitise_svg
from .theme import palette

MAX_EMBED_BYTES = 20 * 1024 * 1024  # a picture bigger than this is named, not embedded
_IMG_RE = re.compile(r"<img\b[^>]*>", re.I)
_ATTR_RE = re.compile(r'([\w-]+)="([^"]*)"')
# every link but the web's (and the page's own #anchors) is the app's: entry:, tag:,
# folder:, copy:, vault:… — plain text in an export
_APP_LINK_RE = re.compile(r'<a\b([^>]*?)href="(?!https?:|mailto:|#)[^"]*"([^>]*)>', re.I)
_XML_DECL_RE = re.compile(rb"^\s*<\?xml[^>]*\?>\s*(<!DOCTYPE[^>]*>\s*)?")
_SVG_OPEN_RE = re.compile(r"<svg\b", re.I)
_PICTURE_TYPES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".svg"}


def _inline_svg(data: bytes, attrs: dict[str, str]) -> str:
    """Our own SVG (typesetter, figure) as an element sized as the ``<img>`` it replaces."""
    text = _XML_DECL_RE.sub(b"", data).decode("utf-8", "replace")
    extra = []
    if attrs.get("width") and attrs.get("height"):  # a formula: its typeset size, on the line
        text = re.sub(r'\s(width|height)="[^"]*"', "", text, count=2)
        extra.append(f'width="{escape(attrs["width"])}" height="{escape(attrs["height"])}"')
        extra.append(f'style="{escape(attrs.get("style") or "vertical-align: middle;")}"')
    else:  # a figure: as wide as the column allows, never wider than drawn
        extra.append('style="max-width: 100%; height: auto;"')
    label = escape(unescape(attrs.get("alt", "")))
    opening = f'<svg role="img" aria-label="{label}" ' + " ".join(e for e in extra if e) + " "
    # a function, not a template: the label is TeX, full of backslashes
    return _SVG_OPEN_RE.sub(lambda _m: opening.rstrip() + " ", text, count=1)


def _picture_uri(data: bytes) -> str | None:
    """A picture the render made (any resource but our typeset math and figures) as a
    ``data:`` URI, told by its bytes; None for bytes of no picture format."""
    signatures = (
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xff\xd8\xff", "image/jpeg"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
    )
    mime = next((m for magic, m in signatures if data.startswith(magic)), None)
    if mime is None and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        mime = "image/webp"
    if mime is None and b"<svg" in data[:4096]:
        try:
            data, _removed = sanitise_svg(data)  # another helper's SVG: made from the vault
        except UnsafeSvg:
            return None
        mime = "image/svg+xml"
    if mime is None:
        return None
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _with_src(tag: str, uri: str) -> str:
    return _ATTR_RE.sub(
        lambda a: f'src="{uri}"' if a.group(1).lower() == "src" else a.group(0), tag
    )


def _vault_picture(vault_root: Path | None, rel: str) -> str | None:
    """A picture of the vault as a ``data:`` URI, or None when it cannot be read."""
    if vault_root is None or Path(rel).suffix.lower() not in _PICTURE_TYPES:
        return None
    try:
        fh, st = open_regular(vault_root, rel)
        with fh:
            if st.st_size > MAX_EMBED_BYTES:
                return None
            data = fh.readall()
    except (OSError, ValueError):
        return None
    suffix = Path(rel).suffix.lower()
    if suffix == ".svg":
        try:
            data, _removed = sanitise_svg(data)
        except UnsafeSvg:
            return None
        mime = "image/svg+xml"
    else:
        mime = mimetypes.types_map.get(suffix, "application/octet-stream")
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


# The window's controls, as the renderer writes them: fold markers, a code block's "Copy",
# a query's page links, a demo's "▶ Open" button (its table). An export shows the page,
# not the window.
_CONTROL_RES = (
    re.compile(r'<a class="copy-code" href="copy:\d+"[^>]*>[^<]*</a>'),
    re.compile(r'<a href="fold:[^"]*" class="fold"[^>]*>[^<]*</a>'),
    re.compile(r'<a href="dataview-page:[^"]*"[^>]*>[^<]*</a>'),  # a query's other pages
    re.compile(
        r'<table class="demo"[^>]*><tr><td[^>]*><a href="demo:[^"]*"[^>]*>[^<]*</a>'
        r"</td></tr></table>"
    ),
)


def without_controls(html: str) -> str:
    """``html`` (a rendered page) without the window's controls."""
    for pattern in _CONTROL_RES:
        html = pattern.sub("", html)
    return html


def _pdf_page(vault_root: Path | None, src: str) -> str | None:
    """An embedded PDF page (``pdf:`` source, see :mod:`.pdf_embed`) drawn as a PNG
    ``data:`` URI, 1,520 px wide (a 760 px column at 2x; shown at most as wide as the
    column), or None when it cannot be."""
    from ..pdf import PdfError, png_bytes, render_page  # PDFium: only when a page is met
    from .pdf_embed import parse_page_source

    parsed = parse_page_source(src)
    if vault_root is None or parsed is None:
        return None
    rel, page, _size, _height = parsed
    try:
        image = render_page(vault_root, rel, page - 1, 1520, max_pixels=4_000_000)
    except PdfError:
        return None
    return f"data:image/png;base64,{base64.b64encode(png_bytes(image)).decode('ascii')}"


def _diagram(data: bytes, theme: str) -> str:
    """A Mermaid diagram as the pane shows it (the PNG, at its laid-out size, shrunk to the
    column), drawn now if it was not yet; or its source and why it cannot be drawn."""
    diagram = mermaid.Diagram.from_bytes(data)
    if diagram is None:
        return ""
    outcome = mermaid.draw(diagram)
    if isinstance(outcome, mermaid.Failed):
        return mermaid.failure_html(palette(theme), diagram.source, outcome.reason)
    uri = "data:image/png;base64," + base64.b64encode(outcome.png).decode("ascii")
    return (
        f'<img src="{uri}" width="{round(outcome.width)}" height="{round(outcome.height)}" '
        f'alt="Mermaid diagram" style="max-width: 100%; height: auto;" />'
    )


def standalone_html(
    rendered: RenderedEntry,
    *,
    title: str,
    style: ReadingStyle | None = None,
    line_width: int | None = 760,
    vault_root: Path | None = None,
) -> str:
    """The page as one HTML file with no reference outside it. ``line_width``: the text
    column in px (None: the whole window), as the reader set it."""
    page = without_controls(restyle(rendered.html, rendered.theme, style or ReadingStyle()))

    def image(m: re.Match[str]) -> str:
        attrs = {k.lower(): v for k, v in _ATTR_RE.findall(m.group(0))}
        src = unescape(attrs.get("src", ""))
        data = rendered.resources.get(src)
        uri: str | None = None
        if data is not None and src.startswith(("math:", "figure:")):
            return _inline_svg(data, attrs)  # ours, typeset: inline, sized as on screen
        if data is not None and src.startswith(mermaid.SCHEME):
            return _diagram(data, rendered.theme)
        if src.startswith("pdf:") and (page := _pdf_page(vault_root, src)) is not None:
            alt = escape(unescape(attrs.get("alt", "")))
            height = src.rpartition("&height=")[2] if "&height=" in src else ""
            size = f"height: {int(height)}px;" if height.isdigit() else "height: auto;"
            return f'<img src="{page}" alt="{alt}" style="max-width: 100%; {size}" />'
        if data is not None:
            uri = _picture_uri(data)
        elif src.startswith("vault:"):
            uri = _vault_picture(vault_root, unquote(src[len("vault:") :]))
        if uri is not None:
            return _with_src(m.group(0), uri)
        alt = attrs.get("alt") or src.rsplit("/", 1)[-1]
        return f'<span class="missing-image">[{escape(unescape(alt))}]</span>'

    page = _IMG_RE.sub(image, page)
    page = _APP_LINK_RE.sub(lambda m: f"<a{m.group(1)}{m.group(2)}>", page)
    column = (
        f"body {{ max-width: {int(line_width)}px; margin: 20px auto 48px auto; padding: 0 24px; }}"
        if line_width
        else "body { margin: 20px 24px 48px 24px; }"
    )
    head = f"<title>{escape(title)}</title><style>{column}</style>"
    page = page.replace("<head>", "<head>" + head, 1)
    if not page.lstrip().lower().startswith("<!doctype"):
        page = "<!DOCTYPE html>\n" + page
    return page
