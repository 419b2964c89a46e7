"""The shapes' geometry, once for both painters (the tab's QPainter and the SVG picture):
a diamond's corners, an arrowhead's strokes, where each line of a text sits, the font a
family number names. Clean shapes, not Excalidraw's hand-drawn (rough.js) strokes."""

from __future__ import annotations

import math

from .scene import Shape

# Excalidraw's font families: 1 Virgil, 2 Helvetica, 3 Cascadia, 4 Local (system), 5
# Excalifont, 6 Nunito, 7 Lilita One, 8 Comic Shanns, 9 Liberation Sans. None is bundled:
# each is drawn in the closest font the system has (a hand-drawn one as a rounded sans).
FONT_FAMILIES = {
    1: "Comic Sans MS, Comic Neue, Segoe Print, sans-serif",
    2: "Helvetica, Arial, Liberation Sans, sans-serif",
    3: "Cascadia Code, Consolas, DejaVu Sans Mono, monospace",
    4: "sans-serif",
    5: "Comic Sans MS, Comic Neue, Segoe Print, sans-serif",
    6: "Nunito, Segoe UI, Helvetica, Arial, sans-serif",
    7: "Lilita One, Arial Black, sans-serif",
    8: "Comic Shanns, Comic Sans MS, monospace",
    9: "Liberation Sans, Arial, Helvetica, sans-serif",
}
MONOSPACE = {3, 8}


def font_family(family: int) -> str:
    return FONT_FAMILIES.get(family, "sans-serif")


def diamond(s: Shape) -> list[tuple[float, float]]:
    """The four corners: top, right, bottom, left."""
    cx, cy = s.x + s.width / 2, s.y + s.height / 2
    return [(cx, s.y), (s.x + s.width, cy), (cx, s.y + s.height), (s.x, cy)]


def corner_radius(s: Shape) -> float:
    """Excalidraw's adaptive radius of a rounded rectangle: a quarter of its shorter side,
    at most 32."""
    return min(32.0, min(s.width, s.height) / 4) if s.rounded else 0.0


def absolute_points(s: Shape) -> list[tuple[float, float]]:
    return [(s.x + px, s.y + py) for px, py in s.points]


def arrowhead(
    points: list[tuple[float, float]], at_end: bool, kind: str, width: float
) -> tuple[list[tuple[float, float]], bool] | None:
    """The polyline of an arrowhead at one end of ``points`` and whether it is closed (a
    triangle, filled); None when the line is too short to point anywhere."""
    if len(points) < 2:
        return None
    tip, before = (points[-1], points[-2]) if at_end else (points[0], points[1])
    dx, dy = tip[0] - before[0], tip[1] - before[1]
    length = math.hypot(dx, dy)
    if length < 1e-6:
        return None
    size = min(30.0, max(10.0, 4 * width), length * 0.75)
    ux, uy = dx / length, dy / length
    if kind == "bar":
        nx, ny = -uy * size / 2, ux * size / 2
        return [(tip[0] + nx, tip[1] + ny), (tip[0] - nx, tip[1] - ny)], False
    if kind in ("dot", "circle", "circle_outline"):
        r = size / 4
        ring = [(tip[0] + r * math.cos(a * math.pi / 8), tip[1] + r * math.sin(a * math.pi / 8))
                for a in range(17)]  # fmt: skip
        return ring, kind != "circle_outline"
    spread = math.radians(25 if kind == "arrow" else 30)
    wings = []
    for sign in (1, -1):
        a = math.atan2(uy, ux) + math.pi + sign * spread
        wings.append((tip[0] + size * math.cos(a), tip[1] + size * math.sin(a)))
    if kind in ("triangle", "triangle_outline"):
        return [wings[0], tip, wings[1], wings[0]], kind == "triangle"
    return [wings[0], tip, wings[1]], False


def text_lines(s: Shape) -> list[tuple[float, float, str]]:
    """Each line of a text element: (x of its anchor, y of its baseline, the line); the
    anchor is its left, centre or right as ``s.text_align`` says."""
    lines = s.text.split("\n")
    step = s.font_size * s.line_height
    total = step * len(lines)
    top = s.y
    if s.vertical_align == "middle":
        top = s.y + (s.height - total) / 2
    elif s.vertical_align == "bottom":
        top = s.y + s.height - total
    x = {"left": s.x, "center": s.x + s.width / 2, "right": s.x + s.width}[s.text_align]
    # a line's glyphs sit in the middle of its box: the baseline ~0.35 em below the middle
    return [(x, top + i * step + step / 2 + 0.35 * s.font_size, line)
            for i, line in enumerate(lines)]  # fmt: skip


def dashes(s: Shape) -> tuple[float, float] | None:
    """(dash, gap) of a dashed or dotted stroke, in drawing units; None: solid."""
    if s.stroke_style == "dashed":
        return 8.0 + s.stroke_width, 8.0 + s.stroke_width
    if s.stroke_style == "dotted":
        return 1.5, 6.0 + s.stroke_width
    return None


def freedraw_width(s: Shape) -> float:
    """A freehand stroke drawn as a line: about as thick as Excalidraw's pen draws it."""
    return max(1.0, s.stroke_width * 1.75)
