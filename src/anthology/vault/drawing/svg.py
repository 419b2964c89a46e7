"""A drawing as an SVG picture (for a page: an embed, an exported file), drawn from the
same :class:`~.scene.Drawing` and geometry as the tab. What Qt's SVG renderer (SVG Tiny
1.2) draws: no patterns, no filters, no CSS. Hachure fills are drawn as a light wash of
their colour. Every string written comes from the model, escaped; every colour is one the
model checked."""

from __future__ import annotations

import base64
import math
from html import escape

from .geometry import (
    absolute_points,
    arrowhead,
    corner_radius,
    dashes,
    diamond,
    font_family,
    freedraw_width,
    text_lines,
)
from .scene import Drawing, Paint, Shape, themed

PADDING = 10.0
MAX_NATURAL_WIDTH = 1600.0  # px: a huge drawing is declared this wide, scaled down
HATCH_ALPHA = 0.35  # a hachure fill's wash


def _num(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") if math.isfinite(v) else "0"


def _paint(attr: str, paint: Paint | None) -> str:
    if paint is None:
        return f' {attr}="none"'
    colour, alpha = paint
    out = f' {attr}="{escape(colour)}"'
    if alpha < 1:
        out += f' {attr}-opacity="{_num(alpha)}"'
    return out


def _mime(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"BM"):
        return "image/bmp"
    return None


def _points(pts: list[tuple[float, float]]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in pts)


def shape_svg(s: Shape, drawing: Drawing, dark: bool) -> str:
    stroke = themed(s.stroke, dark)
    fill = themed(s.fill, dark)
    if fill is not None and s.fill_style != "solid":
        fill = (fill[0], fill[1] * HATCH_ALPHA)
    width = s.stroke_width
    dash = dashes(s)
    line = _paint("stroke", stroke) + f' stroke-width="{_num(width)}"'
    if dash:
        line += f' stroke-dasharray="{_num(dash[0])} {_num(dash[1])}"'
    kind = s.kind
    if kind == "rectangle" or kind == "frame":
        r = corner_radius(s)
        rx = f' rx="{_num(r)}" ry="{_num(r)}"' if r else ""
        if kind == "frame":
            line = _paint("stroke", themed(("#bbbbbb", 1.0), dark)) + ' stroke-width="1"'
            fill = None
        body = (f'<rect x="{_num(s.x)}" y="{_num(s.y)}" width="{_num(s.width)}" '
                f'height="{_num(s.height)}"{rx}{_paint("fill", fill)}{line}/>')  # fmt: skip
        if kind == "frame" and s.name:
            colour = themed(("#888888", 1.0), dark)
            body += (f'<text x="{_num(s.x)}" y="{_num(s.y - 6)}" font-size="14" '
                     f'font-family="sans-serif"{_paint("fill", colour)}>'
                     f"{escape(s.name)}</text>")  # fmt: skip
    elif kind == "ellipse":
        body = (f'<ellipse cx="{_num(s.x + s.width / 2)}" cy="{_num(s.y + s.height / 2)}" '
                f'rx="{_num(s.width / 2)}" ry="{_num(s.height / 2)}"'
                f'{_paint("fill", fill)}{line}/>')  # fmt: skip
    elif kind == "diamond":
        body = f'<polygon points="{_points(diamond(s))}"{_paint("fill", fill)}{line}/>'
    elif kind in ("line", "arrow"):
        pts = absolute_points(s)
        closed = kind == "line" and len(pts) > 2 and pts[0] == pts[-1] and fill is not None
        tag = "polygon" if closed else "polyline"
        body = (f'<{tag} points="{_points(pts)}"{_paint("fill", fill if closed else None)}'
                f'{line} stroke-linejoin="round" stroke-linecap="round"/>')  # fmt: skip
        for at_end, head in ((False, s.start_arrow), (True, s.end_arrow)):
            if head is None:
                continue
            made = arrowhead(pts, at_end, head, width)
            if made is not None:
                hp, filled = made
                body += (f'<polyline points="{_points(hp)}"'
                         f'{_paint("fill", stroke if filled else None)}'
                         f'{_paint("stroke", stroke)} stroke-width="{_num(width)}" '
                         'stroke-linejoin="round" stroke-linecap="round"/>')  # fmt: skip
    elif kind == "freedraw":
        body = (f'<polyline points="{_points(absolute_points(s))}" fill="none"'
                f'{_paint("stroke", stroke)} stroke-width="{_num(freedraw_width(s))}" '
                'stroke-linejoin="round" stroke-linecap="round"/>')  # fmt: skip
    elif kind == "text":
        anchor = {"left": "start", "center": "middle", "right": "end"}[s.text_align]
        family = escape(font_family(s.font_family))
        body = "".join(
            f'<text x="{_num(x)}" y="{_num(y)}" font-size="{_num(s.font_size)}" '
            f'font-family="{family}" text-anchor="{anchor}"{_paint("fill", stroke)} '
            f'xml:space="preserve">{escape(text)}</text>'
            for x, y, text in text_lines(s)
            if text.strip()
        )
    elif kind == "image":
        picture = drawing.images.get(s.image or "")
        data = picture.data if picture is not None else None
        mime = _mime(data) if data else None
        if data and mime:
            uri = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
            body = (f'<image x="{_num(s.x)}" y="{_num(s.y)}" width="{_num(s.width)}" '
                    f'height="{_num(s.height)}" preserveAspectRatio="none" '
                    f'xlink:href="{uri}"/>')  # fmt: skip
        else:
            why = picture.refused if picture is not None and picture.refused else "picture missing"
            muted = themed(("#888888", 1.0), dark)
            body = (f'<rect x="{_num(s.x)}" y="{_num(s.y)}" width="{_num(s.width)}" '
                    f'height="{_num(s.height)}" fill="none"{_paint("stroke", muted)} '
                    f'stroke-width="1" stroke-dasharray="4 4"/>'
                    f'<text x="{_num(s.x + 6)}" y="{_num(s.y + 18)}" font-size="12" '
                    f'font-family="sans-serif"{_paint("fill", muted)}>'
                    f"▣ {escape(why[:80])}</text>")  # fmt: skip
    else:
        return ""
    attrs = ""
    if s.opacity < 1:
        attrs += f' opacity="{_num(s.opacity)}"'
    if s.angle:
        left, top, right, bottom = s.bounds()
        cx, cy = _num((left + right) / 2), _num((top + bottom) / 2)
        attrs += f' transform="rotate({_num(math.degrees(s.angle))} {cx} {cy})"'
    return f"<g{attrs}>{body}</g>" if attrs else body


def drawing_svg(drawing: Drawing, *, dark: bool = False, width: float | None = None) -> bytes:
    """The drawing as an SVG document, ``width`` px wide (None: its own size, at most
    :data:`MAX_NATURAL_WIDTH`), its colours as the dark or light window shows them."""
    left, top, right, bottom = drawing.bounds
    vw, vh = right - left + 2 * PADDING, bottom - top + 2 * PADDING
    shown = width if width else min(vw, MAX_NATURAL_WIDTH)
    shown_h = shown * vh / vw
    background = themed(drawing.background, dark)
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'version="1.1" width="{_num(shown)}" height="{_num(shown_h)}" '
        f'viewBox="{_num(left - PADDING)} {_num(top - PADDING)} {_num(vw)} {_num(vh)}">'
    ]
    if background is not None:
        parts.append(
            f'<rect x="{_num(left - PADDING)}" y="{_num(top - PADDING)}" width="{_num(vw)}" '
            f'height="{_num(vh)}"{_paint("fill", background)}/>'
        )
    parts.extend(shape_svg(s, drawing, dark) for s in drawing.shapes)
    parts.append("</svg>")
    return "".join(parts).encode("utf-8")
