"""SVG attachments made self-contained before Qt draws them (pure Python, no Qt).

An SVG can point outside itself: ``<image xlink:href='/abs/path.png'>`` draws an outside
file, ``<use href='other.svg#x'>`` pulls another document, ``@import``/``url(…)`` in style
fetch more, ``<script>`` and ``<foreignObject>`` carry code and HTML. :func:`sanitise_svg`
keeps the drawing and drops every such reference: an ``href`` survives only when it points
inside the document (``#id``) or is an inline raster image (``data:image/png|jpeg|gif|webp``);
``url(…)`` only as ``url(#id)``. A document declaring entities (the "billion laughs") is
refused outright.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
_DROP = frozenset({"script", "foreignobject", "iframe", "object", "embed", "audio", "video"})
_SAFE_HREF_RE = re.compile(r"^\s*(#|data:image/(png|jpeg|jpg|gif|webp)[;,])", re.I)
_URL_RE = re.compile(r"url\(\s*(['\"]?)([^)'\"]*)\1\s*\)", re.I)
_IMPORT_RE = re.compile(r"@import[^;]*;?", re.I)
_ENTITY_RE = re.compile(rb"<!ENTITY", re.I)
MAX_SVG_BYTES = 20 * 1024 * 1024

ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)


_NEEDS_HREF = frozenset({"image", "use"})


def _has_safe_href(el: ET.Element) -> bool:
    hrefs = [v for k, v in el.attrib.items() if _local(k) == "href"]
    return bool(hrefs) and all(_SAFE_HREF_RE.match(v) for v in hrefs)


class UnsafeSvg(ValueError):
    """The SVG cannot be made safe (entities, not XML, too big): show no picture."""


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1].lower()


def _clean_css(text: str) -> str:
    text = _IMPORT_RE.sub("", text)

    def url(m: re.Match[str]) -> str:
        return m.group(0) if m.group(2).strip().startswith("#") else "none"

    return _URL_RE.sub(url, text)


def sanitise_svg(data: bytes) -> tuple[bytes, int]:
    """(cleaned SVG bytes, number of external references removed); raises UnsafeSvg."""
    if len(data) > MAX_SVG_BYTES:
        raise UnsafeSvg("SVG too large")
    if _ENTITY_RE.search(data):
        raise UnsafeSvg("SVG declares entities")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise UnsafeSvg(f"not valid XML: {exc}") from exc
    removed = 0
    for parent in root.iter():
        for child in list(parent):
            if not isinstance(child.tag, str) or _local(child.tag) in _DROP:
                parent.remove(child)
                removed += 1
            elif _local(child.tag) in _NEEDS_HREF and not _has_safe_href(child):
                # an <image>/<use> whose reference goes is dropped whole: Qt warns on it
                parent.remove(child)
                removed += 1
    for el in root.iter():
        if _local(el.tag) == "style" and el.text:
            cleaned = _clean_css(el.text)
            removed += cleaned != el.text
            el.text = cleaned
        for name, value in list(el.attrib.items()):
            local = _local(name)
            if (local == "href" and not _SAFE_HREF_RE.match(value)) or local.startswith("on"):
                del el.attrib[name]
                removed += 1
            elif "url(" in value.lower() or "@import" in value.lower():
                cleaned = _clean_css(value)
                removed += cleaned != value
                el.set(name, cleaned)
    return ET.tostring(root, encoding="utf-8"), removed
