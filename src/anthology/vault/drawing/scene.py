"""An Excalidraw scene as shapes to paint: the one model the drawing tab and the inline
picture (an SVG, :mod:`.svg`) both draw from.

:func:`scene_from_json` reads the JSON Excalidraw writes (``{"type": "excalidraw",
"elements": […], "appState": {…}, "files": {…}}``) into a :class:`Drawing`: every element
that is not deleted becomes a :class:`Shape` in the drawing's own coordinates, its colours
checked (a colour is a ``#hex`` or a CSS name, never anything an SVG could be tricked
with), its numbers finite. Unknown element types and malformed elements are skipped and
counted, never raised. Work is bounded: at most ``max_elements`` shapes (the rest counted
and said in :attr:`Drawing.notices`), and a :class:`~anthology.tasks.TaskState` may cancel.

Pictures (``image`` elements) are named by file id; :attr:`Drawing.images` says what each
is: the bytes of a ``data:`` URL the file holds, the bytes of a vault file the plugin's
``## Embedded Files`` names (read by :mod:`.load`, inside the vault only), or a refusal
(a URL, a path outside the vault), drawn as a framed box with its reason. Nothing is
ever fetched.
"""

from __future__ import annotations

import base64
import math
import re
from dataclasses import dataclass, field
from typing import Any

from anthology.tasks import TaskState

MAX_ELEMENTS = 20_000  # shapes kept for the tab; the rest are counted and said
MAX_POINTS = 5_000  # points of one line or freehand stroke
MAX_TEXT_CHARS = 10_000  # of one text element
MAX_IMAGE_BYTES = 20 * 1024 * 1024  # of one picture held in the file
KINDS = frozenset(
    ["rectangle", "ellipse", "diamond", "line", "arrow", "freedraw", "text", "image", "frame",
     "magicframe", "embeddable", "iframe"]
)  # fmt: skip

_HEX_RE = re.compile(r"#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_NAME_RE = re.compile(r"[a-zA-Z]{3,20}")
_RGB_RE = re.compile(r"rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+%?)\s*)?\)")
_DATA_URL_RE = re.compile(r"data:(image/(?:png|jpeg|jpg|gif|webp|bmp));base64,", re.I)

Paint = tuple[str, float]  # "#rrggbb" (or a CSS colour name), alpha 0…1


def parse_colour(value: object) -> Paint | None:
    """A colour Excalidraw wrote, as ``("#rrggbb", alpha)``; None: transparent or not a
    colour (an unknown word is passed on as a name: SVG and Qt both know CSS names, and a
    name cannot carry anything but letters)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if m := _HEX_RE.fullmatch(text):
        digits = m.group(1)
        if len(digits) in (3, 4):
            digits = "".join(d * 2 for d in digits)
        alpha = int(digits[6:8], 16) / 255 if len(digits) == 8 else 1.0
        return (f"#{digits[:6].lower()}", alpha) if alpha > 0 else None
    if m := _RGB_RE.fullmatch(text):
        r, g, b = (min(255, round(float(v))) for v in m.group(1, 2, 3))
        a = m.group(4)
        alpha = 1.0 if a is None else float(a[:-1]) / 100 if a.endswith("%") else float(a)
        alpha = max(0.0, min(1.0, alpha))
        return (f"#{r:02x}{g:02x}{b:02x}", alpha) if alpha > 0 else None
    if _NAME_RE.fullmatch(text) and text.lower() != "transparent":
        return (text.lower(), 1.0)
    return None


def _hue_rotated_inverse(hex6: str) -> str:
    """Excalidraw's dark mode, ``filter: invert(93%) hue-rotate(180deg)``, on one colour:
    light becomes dark, a hue stays itself (red is still red)."""
    r, g, b = (0.93 * (255 - c) + 0.07 * c for c in (int(hex6[i : i + 2], 16) for i in (1, 3, 5)))
    # the CSS filter-effects matrix of hue-rotate(180deg)
    nr = -0.574 * r + 1.430 * g + 0.144 * b
    ng = 0.426 * r + 0.430 * g + 0.144 * b
    nb = 0.426 * r + 1.430 * g - 0.856 * b
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in (nr, ng, nb))


_NAMED = {"black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#008000",
          "blue": "#0000ff", "gray": "#808080", "grey": "#808080", "yellow": "#ffff00",
          "orange": "#ffa500"}  # fmt: skip


def themed(paint: Paint | None, dark: bool) -> Paint | None:
    """``paint`` as the drawing shows it in a dark window (see :func:`_hue_rotated_inverse`)."""
    if paint is None or not dark:
        return paint
    colour = _NAMED.get(paint[0], paint[0])
    if not colour.startswith("#"):
        return paint
    return (_hue_rotated_inverse(colour), paint[1])


@dataclass(frozen=True, slots=True)
class Shape:
    """One element to paint, in the drawing's coordinates (x, y: its box's top left, before
    its rotation ``angle`` in radians about the box's centre)."""

    kind: str
    x: float
    y: float
    width: float
    height: float
    angle: float = 0.0
    stroke: Paint | None = ("#1e1e1e", 1.0)
    fill: Paint | None = None
    fill_style: str = "solid"  # solid, hachure, cross-hatch, zigzag
    stroke_width: float = 2.0
    stroke_style: str = "solid"  # solid, dashed, dotted
    opacity: float = 1.0
    rounded: bool = False
    points: tuple[tuple[float, float], ...] = ()  # lines, arrows, strokes: from (x, y)
    start_arrow: str | None = None
    end_arrow: str | None = None
    text: str = ""
    font_size: float = 20.0
    font_family: int = 1
    text_align: str = "left"
    vertical_align: str = "top"
    line_height: float = 1.25
    image: str | None = None  # the file id of a picture
    link: str | None = None
    name: str = ""  # a frame's

    def bounds(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) of what it covers, rotation included."""
        if self.points:
            xs = [self.x + px for px, _ in self.points]
            ys = [self.y + py for _, py in self.points]
            left, top, right, bottom = min(xs), min(ys), max(xs), max(ys)
        else:
            left, top = self.x, self.y
            right, bottom = self.x + self.width, self.y + self.height
        if self.angle:
            cx, cy = (left + right) / 2, (top + bottom) / 2
            half = math.hypot(right - left, bottom - top) / 2
            left, top, right, bottom = cx - half, cy - half, cx + half, cy + half
        pad = self.stroke_width
        return left - pad, top - pad, right + pad, bottom + pad


@dataclass(frozen=True, slots=True)
class Picture:
    """What an image element shows: ``data`` (the picture file's bytes) or, when there is
    none, ``refused``: why (a URL never fetched, a path outside the vault, missing)."""

    data: bytes | None = None
    refused: str = ""
    name: str = ""


@dataclass
class Drawing:
    """A drawing ready to paint, with what the reader should be told about it."""

    shapes: list[Shape] = field(default_factory=list)
    background: Paint | None = ("#ffffff", 1.0)
    images: dict[str, Picture] = field(default_factory=dict)
    elements: int = 0  # elements in the file that are not deleted
    skipped: int = 0  # elements not drawn (unknown, malformed)
    notices: list[str] = field(default_factory=list)  # one line each, for a notice
    bounds: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)
    # the JSON's "files" entries not drawn from data: URLs (the plugin's vault files)
    pending_files: dict[str, str] = field(default_factory=dict)

    @property
    def width(self) -> float:
        return self.bounds[2] - self.bounds[0]

    @property
    def height(self) -> float:
        return self.bounds[3] - self.bounds[1]

    def texts(self) -> list[str]:
        return [s.text for s in self.shapes if s.kind == "text" and s.text.strip()]


class DrawingError(ValueError):
    """The file holds no drawing that can be read (the message says why, in one line)."""


def _num(value: Any, default: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return float(value) if math.isfinite(value) else default


def _points(value: Any) -> tuple[tuple[float, float], ...]:
    if not isinstance(value, list):
        return ()
    out = []
    for p in value[:MAX_POINTS]:
        if isinstance(p, list | tuple) and len(p) >= 2:
            out.append((_num(p[0]), _num(p[1])))
    return tuple(out)


def _arrowhead(value: Any) -> str | None:
    return value if isinstance(value, str) and value.isalpha() and len(value) < 20 else None


def _word(value: Any, allowed: tuple[str, ...], default: str) -> str:
    return value if value in allowed else default


def shape_of(el: dict[str, Any]) -> Shape | None:
    """The shape of one element, or None (deleted, unknown, not an element)."""
    kind = el.get("type")
    if not isinstance(kind, str) or kind not in KINDS or el.get("isDeleted") is True:
        return None
    if kind in ("magicframe",):
        kind = "frame"
    elif kind in ("embeddable", "iframe"):
        kind = "rectangle"  # a web page's place: its frame, never its page
    text = el.get("text") if kind == "text" else ""
    text = text[:MAX_TEXT_CHARS] if isinstance(text, str) else ""
    roundness = el.get("roundness")
    link = el.get("link")
    family = el.get("fontFamily")
    file_id = el.get("fileId")
    return Shape(
        kind=kind,
        x=_num(el.get("x")),
        y=_num(el.get("y")),
        width=max(0.0, _num(el.get("width"))),
        height=max(0.0, _num(el.get("height"))),
        angle=_num(el.get("angle")),
        stroke=parse_colour(el.get("strokeColor", "#1e1e1e")),
        fill=parse_colour(el.get("backgroundColor")),
        fill_style=_word(
            el.get("fillStyle"), ("solid", "hachure", "cross-hatch", "zigzag"), "hachure"
        ),
        stroke_width=max(0.0, min(_num(el.get("strokeWidth"), 2.0), 100.0)),
        stroke_style=_word(el.get("strokeStyle"), ("solid", "dashed", "dotted"), "solid"),
        opacity=max(0.0, min(_num(el.get("opacity"), 100.0), 100.0)) / 100,
        rounded=isinstance(roundness, dict) or el.get("strokeSharpness") == "round",
        points=_points(el.get("points")) if kind in ("line", "arrow", "freedraw") else (),
        start_arrow=_arrowhead(el.get("startArrowhead")),
        end_arrow=_arrowhead(el.get("endArrowhead")),
        text=text,
        font_size=max(1.0, min(_num(el.get("fontSize"), 20.0), 1000.0)),
        font_family=int(family) if isinstance(family, int) and not isinstance(family, bool) else 1,
        text_align=_word(el.get("textAlign"), ("left", "center", "right"), "left"),
        vertical_align=_word(el.get("verticalAlign"), ("top", "middle", "bottom"), "top"),
        line_height=max(0.5, min(_num(el.get("lineHeight"), 1.25), 5.0)),
        image=file_id if kind == "image" and isinstance(file_id, str) else None,
        link=link if isinstance(link, str) and link.strip() else None,
        name=el["name"] if kind == "frame" and isinstance(el.get("name"), str) else "",
    )


def scene_from_json(
    scene: Any, *, max_elements: int = MAX_ELEMENTS, state: TaskState | None = None
) -> Drawing:
    """The drawing a parsed Excalidraw JSON holds; :class:`DrawingError` when it holds none."""
    if not isinstance(scene, dict) or not isinstance(scene.get("elements"), list):
        raise DrawingError("not an Excalidraw drawing (no list of elements)")
    drawing = Drawing()
    app = scene.get("appState")
    if isinstance(app, dict) and "viewBackgroundColor" in app:
        drawing.background = parse_colour(app.get("viewBackgroundColor"))
    elements = scene["elements"]
    shapes = drawing.shapes
    left = top = math.inf
    right = bottom = -math.inf
    for i, el in enumerate(elements):
        if state is not None and not i % 2000:
            state.check()
        if not isinstance(el, dict) or el.get("isDeleted") is True:
            continue
        drawing.elements += 1
        if len(shapes) >= max_elements:
            continue
        try:
            shape = shape_of(el)
        except (TypeError, ValueError, OverflowError):
            shape = None
        if shape is None:
            drawing.skipped += 1
            continue
        shapes.append(shape)
        b = shape.bounds()
        left, top = min(left, b[0]), min(top, b[1])
        right, bottom = max(right, b[2]), max(bottom, b[3])
    if shapes:
        drawing.bounds = (left, top, max(right, left + 1), max(bottom, top + 1))
    if drawing.elements > len(shapes) + drawing.skipped:
        drawing.notices.append(
            f"This drawing has {drawing.elements:,} elements; the first {len(shapes):,} are drawn."
        )
    files = scene.get("files")
    if isinstance(files, dict):
        for file_id, entry in files.items():
            if isinstance(file_id, str) and isinstance(entry, dict):
                drawing.images[file_id] = _picture_of(entry)
    return drawing


def _picture_of(entry: dict[str, Any]) -> Picture:
    """A picture the JSON's ``files`` holds: only a ``data:`` URL of a raster picture is
    drawn (an SVG one is not: what it might reach is not checked here); anything else
    (an http URL) is named, never fetched."""
    url = entry.get("dataURL")
    if not isinstance(url, str):
        return Picture(refused="no picture data")
    m = _DATA_URL_RE.match(url)
    if m is None:
        shown = url[:60]
        if url.startswith(("http:", "https:", "//")):
            return Picture(refused=f"a web picture, not loaded: {shown}", name=shown)
        return Picture(refused="not a picture Anthology draws", name=shown)
    payload = url[m.end() :]
    if len(payload) > MAX_IMAGE_BYTES * 4 // 3:
        return Picture(refused="picture larger than 20 MB")
    try:
        return Picture(data=base64.b64decode(payload, validate=False))
    except ValueError:
        return Picture(refused="picture data is corrupt")
