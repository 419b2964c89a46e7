"""An entry as one self-contained HTML file: what the pane shows, for a browser or an archive.

The page is the renderer's (:class:`RenderedEntry`) at the reader's size and family
(:mod:`.reading`), with everything it refers to put inside it: typeset math and our
figures as inline ``<svg>``, Mermaid diagrams as the pane's PNG in a ``data:`` URI (drawn
now if they were not yet: :func:`.mermaid.draw`), the vault's pictures as ``data:`` URIs
(read as every vault file is read: inside the vault, regular files only, SVGs sanitised),
the stylesheet in its ``<style>``. Links into the vault (``entry:``, ``tag:``…) mean
nothing outside the app: they keep their text and lose their target. Nothing is fetched,
and nothing in the file fetches anything. Qt-free.
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
_APP_LINK_RE = re.compile(
    r'<a\b([^>]*?)href="(?:entry|tag|demo|fold|unresolved|vault):[^"]*"([^>]*)>', re.I
)
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
    page = restyle(rendered.html, rendered.theme, style or ReadingStyle())

    def image(m: re.Match[str]) -> str:
        attrs = {k.lower(): v for k, v in _ATTR_RE.findall(m.group(0))}
        src = unescape(attrs.get("src", ""))
        data = rendered.resources.get(src)
        if data is not None and src.startswith(("math:", "figure:")):
            return _inline_svg(data, attrs)
        if data is not None and src.startswith(mermaid.SCHEME):
            return _diagram(data, rendered.theme)
        if src.startswith("vault:"):
            uri = _vault_picture(vault_root, unquote(src[len("vault:") :]))
            if uri is not None:
                return _ATTR_RE.sub(
                    lambda a: f'src="{uri}"' if a.group(1).lower() == "src" else a.group(0),
                    m.group(0),
                )
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
