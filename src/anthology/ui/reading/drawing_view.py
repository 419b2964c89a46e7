"""A drawing in a tab: an Excalidraw file (``*.excalidraw``, the plugin's
``*.excalidraw.md``) drawn from the core's model (:mod:`anthology.vault.drawing`), with
pan (drag, wheel, arrow keys), zoom (Ctrl+wheel, +/-) and fit (0, and on open).

The file is read and decoded off the GUI thread (a :class:`TaskRunner`, cancelled when
another drawing is opened or the tab closes), with the tab's budget
(:data:`~anthology.vault.drawing.load.TAB`: 20,000 shapes; the rest counted and said in a
notice strip). The shapes are recorded once, on that worker, into the :class:`QPicture`
tiles of a grid (:func:`record_tiles`); the view keeps an image of what it showed and a
margin around it, so a pan is a blit, and a pan past the margin draws only the strip it
uncovers, replaying the tiles there.

Colours: the drawing's own on its own background; in the dark theme, as Excalidraw's dark
mode shows them (``invert(93%) hue-rotate(180deg)``, what the Obsidian plugin does when
Obsidian is dark): a hue keeps its hue, light and dark swap. Pictures keep theirs.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import cast

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QFontMetricsF,
    QIcon,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPaintEvent,
    QPen,
    QPicture,
    QPolygonF,
    QRegion,
    QTextDocument,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import QWidget

from anthology.tasks import TaskState
from anthology.ui.common.document import DocumentKind, OpenVault, register
from anthology.ui.common.task_runner import TaskRunner
from anthology.ui.reading.vault_images import vault_file
from anthology.vault.drawing import geometry as geo
from anthology.vault.drawing.load import TAB, load_drawing
from anthology.vault.drawing.scene import Drawing, DrawingError, Paint, Shape, themed
from anthology.vault.drawing.svg import HATCH_ALPHA, drawing_svg
from anthology.vault.model import EntryLookup
from anthology.vault.render.reading import ReadingStyle
from anthology.vault.render.theme import palette
from anthology.vault.shared_reader import lend

KIND = "drawing"
TILE_SHAPES = 40  # shapes per tile, on average: the grid's size follows the drawing's
MAX_TILES_A_SIDE = 32
MIN_SCALE, MAX_SCALE = 0.01, 30.0
FIT_MARGIN = 24  # px around a fitted drawing
MAX_WHOLE_PIXELS = 24_000_000  # device pixels of an image of the whole drawing (96 MB)


def opens(rel: str) -> bool:
    return rel.endswith((".excalidraw", ".excalidraw.md"))


Tiles = list[tuple[QRectF, QPicture]]


def record_tiles(drawing: Drawing, dark: bool, state: TaskState | None = None) -> Tiles:
    """The shapes recorded into the pictures of a grid of tiles over the drawing: each
    shape in every tile it touches, in drawing order, so a tile replayed clipped to itself
    draws its part of the drawing whole and in order, and a frame replays only the tiles
    it sees (a pan that uncovers a strip: the shapes of that strip, not of the drawing).
    QPicture is painted on any thread (Qt's rule for QImage, QPicture, QPrinter): this
    runs on the worker that loaded the drawing."""
    shapes = drawing.shapes
    if not shapes:
        return []
    left, top, right, bottom = drawing.bounds
    side = max(1, min(MAX_TILES_A_SIDE, math.ceil(math.sqrt(len(shapes) / TILE_SHAPES))))
    tw, th = (right - left) / side, (bottom - top) / side
    members: list[list[int]] = [[] for _ in range(side * side)]
    for i, shape in enumerate(shapes):
        b = shape.bounds()
        c0 = max(0, min(side - 1, int((b[0] - left) / tw)))
        c1 = max(0, min(side - 1, int((b[2] - left) / tw)))
        r0 = max(0, min(side - 1, int((b[1] - top) / th)))
        r1 = max(0, min(side - 1, int((b[3] - top) / th)))
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                members[r * side + c].append(i)
    painter = ShapePainter(drawing, dark)
    tiles: Tiles = []
    for k, indices in enumerate(members):
        if state is not None and not k % 16:
            state.check()
        if not indices:
            continue
        r, c = divmod(k, side)
        # the outer tiles reach past the drawing's bounds: nothing is clipped off its edge
        x0 = left + c * tw if c else -1e9
        y0 = top + r * th if r else -1e9
        x1 = left + (c + 1) * tw if c < side - 1 else 1e9
        y1 = top + (r + 1) * th if r < side - 1 else 1e9
        picture = QPicture()
        p = QPainter(picture)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for i in indices:
            painter.paint(p, shapes[i])
        p.end()
        tiles.append((QRectF(QPointF(x0, y0), QPointF(x1, y1)), picture))
    return tiles


def _record(state: TaskState, drawing: Drawing, dark: bool) -> tuple[Drawing, bool, Tiles]:
    return drawing, dark, record_tiles(drawing, dark, state)


def _load(
    state: TaskState, root: Path, rel: str, lender: MaybeLend, dark: bool
) -> tuple[Drawing, bool, Tiles]:
    """On a runner's thread: the drawing, its pictures found by name as the index resolves
    a link (the lookup lent for the time of the load: see vault.shared_reader.lend), and
    its tiles recorded."""
    drawing = _load_drawing(state, root, rel, lender)
    return drawing, dark, record_tiles(drawing, dark, state)


def _load_drawing(state: TaskState, root: Path, rel: str, lender: MaybeLend) -> Drawing:
    with lender() as lookup:
        if lookup is None:  # no index (a vault not yet read): paths as written
            return load_drawing(root, rel, TAB, state=state)

        def find(target: str) -> str | None:
            try:
                path = lookup.attachment(target, rel)
                return Path(path).resolve().relative_to(root).as_posix() if path else None
            except (ValueError, OSError):
                return None

        return load_drawing(root, rel, TAB, find_file=find, state=state)


# what a load asks for the pictures a drawing names: a lent index, or None (no index)
MaybeLend = Callable[[], contextlib.AbstractContextManager[EntryLookup | None]]


def _no_lookup() -> contextlib.AbstractContextManager[EntryLookup | None]:
    return contextlib.nullcontext(None)


def _colour(paint: Paint | None, opacity: float) -> QColor | None:
    if paint is None:
        return None
    colour = QColor(paint[0])
    if not colour.isValid():
        return None
    colour.setAlphaF(max(0.0, min(1.0, paint[1] * opacity)))
    return colour


@functools.cache
def _installed_families() -> frozenset[str]:
    return frozenset(QFontDatabase.families())


class ShapePainter:
    """Paints the model's shapes with a QPainter, with the geometry the SVG uses."""

    def __init__(self, drawing: Drawing, dark: bool) -> None:
        self.drawing = drawing
        self.dark = dark
        self._fonts: dict[tuple[int, float], tuple[QFont, QFontMetricsF]] = {}
        self._images: dict[str, QImage | None] = {}

    def font(self, family: int, size: float) -> tuple[QFont, QFontMetricsF]:
        key = (family, size)
        hit = self._fonts.get(key)
        if hit is None:
            font = QFont()
            # only the families the system has: asked for one it lacks, fontconfig picks
            # whatever it likes (a calligraphic italic for "Comic Sans MS")
            names = [f.strip() for f in geo.font_family(family).split(",")]
            present = [n for n in names if n in _installed_families()]
            if present:
                font.setFamilies(present)
            font.setStyleHint(QFont.StyleHint.Monospace if family in geo.MONOSPACE
                              else QFont.StyleHint.SansSerif)  # fmt: skip
            font.setPixelSize(max(1, round(size)))
            hit = self._fonts[key] = (font, QFontMetricsF(font))
        return hit

    def image(self, file_id: str | None) -> QImage | None:
        if file_id is None:
            return None
        if file_id not in self._images:
            picture = self.drawing.images.get(file_id)
            image = QImage.fromData(picture.data) if picture and picture.data else None
            self._images[file_id] = image if image is not None and not image.isNull() else None
        return self._images[file_id]

    def outline(self, s: Shape) -> QPainterPath:
        """A freehand stroke's outline, filled rather than stroked: stroking hundreds of
        wide, antialiased polylines was 3/5 of a 2,000-element frame; filling their
        outlines (made once, here) costs a quarter of that."""
        pts = geo.absolute_points(s)
        path = QPainterPath()
        if not pts:
            return path
        path.moveTo(*pts[0])
        for x, y in pts[1:] or pts[:1]:
            path.lineTo(x, y)
        stroker = QPainterPathStroker()
        stroker.setWidth(geo.freedraw_width(s))
        stroker.setCapStyle(Qt.PenCapStyle.RoundCap)
        stroker.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        return stroker.createStroke(path).simplified()

    def paint(self, p: QPainter, s: Shape) -> None:
        stroke = _colour(themed(s.stroke, self.dark), s.opacity)
        # hachure, cross-hatch, zigzag: a light wash of their colour, as in the page's SVG
        # (Qt's hatch brushes are aligned to the device, not the drawing: they swam under
        # a pan of the cached image)
        wash = 1.0 if s.fill_style == "solid" else HATCH_ALPHA
        fill = _colour(themed(s.fill, self.dark), s.opacity * wash)
        pen = QPen(Qt.PenStyle.NoPen)
        if stroke is not None and s.stroke_width > 0:
            pen = QPen(stroke, s.stroke_width)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            if dash := geo.dashes(s):
                pen.setDashPattern([dash[0] / s.stroke_width, dash[1] / s.stroke_width])
        brush = QBrush(fill) if fill is not None else QBrush()
        rotated = bool(s.angle)
        if rotated:
            left, top, right, bottom = s.bounds()
            cx, cy = (left + right) / 2, (top + bottom) / 2
            p.save()
            p.translate(cx, cy)
            p.rotate(math.degrees(s.angle))
            p.translate(-cx, -cy)
        kind = s.kind
        box = QRectF(s.x, s.y, s.width, s.height)
        if kind in ("rectangle", "frame"):
            if kind == "frame":
                p.setPen(QPen(_colour(themed(("#bbbbbb", 1.0), self.dark), 1.0) or QColor(), 1))
                p.setBrush(QBrush())
                p.drawRect(box)
                if s.name:
                    font, _m = self.font(2, 14)
                    p.setFont(font)
                    p.setPen(_colour(themed(("#888888", 1.0), self.dark), 1.0) or QColor())
                    p.drawText(QPointF(s.x, s.y - 6), s.name)
            else:
                p.setPen(pen)
                p.setBrush(brush)
                r = geo.corner_radius(s)
                p.drawRoundedRect(box, r, r) if r else p.drawRect(box)
        elif kind == "ellipse":
            p.setPen(pen)
            p.setBrush(brush)
            p.drawEllipse(box)
        elif kind == "diamond":
            p.setPen(pen)
            p.setBrush(brush)
            p.drawPolygon(QPolygonF([QPointF(x, y) for x, y in geo.diamond(s)]))
        elif kind == "freedraw":
            if stroke is not None:
                p.fillPath(self.outline(s), stroke)
        elif kind in ("line", "arrow"):
            pts = geo.absolute_points(s)
            p.setPen(pen)
            closed = kind == "line" and len(pts) > 2 and pts[0] == pts[-1] and fill is not None
            p.setBrush(brush if closed else QBrush())
            poly = QPolygonF([QPointF(x, y) for x, y in pts])
            p.drawPolygon(poly) if closed else p.drawPolyline(poly)
            for at_end, head in ((False, s.start_arrow), (True, s.end_arrow)):
                made = geo.arrowhead(pts, at_end, head, s.stroke_width) if head else None
                if made is None:
                    continue
                hp, filled = made
                solid = QPen(pen)
                solid.setStyle(Qt.PenStyle.SolidLine)
                p.setPen(solid)
                p.setBrush(QBrush(stroke) if filled and stroke is not None else QBrush())
                head_poly = QPolygonF([QPointF(x, y) for x, y in hp])
                p.drawPolygon(head_poly) if filled else p.drawPolyline(head_poly)
        elif kind == "text" and stroke is not None:
            font, metrics = self.font(s.font_family, s.font_size)
            p.setFont(font)
            p.setPen(stroke)
            for x, y, line in geo.text_lines(s):
                if not line.strip():
                    continue
                w = metrics.horizontalAdvance(line)
                dx = {"left": 0.0, "center": -w / 2, "right": -w}[s.text_align]
                p.drawText(QPointF(x + dx, y), line)
        elif kind == "image":
            image = self.image(s.image)
            if image is not None:
                p.drawImage(box, image)
            else:
                picture = self.drawing.images.get(s.image or "")
                why = (
                    picture.refused
                    if picture is not None and picture.refused
                    else "picture missing"
                )
                muted = _colour(themed(("#888888", 1.0), self.dark), 1.0) or QColor()
                dashed = QPen(muted, 1, Qt.PenStyle.DashLine)
                p.setPen(dashed)
                p.setBrush(QBrush())
                p.drawRect(box)
                font, _m = self.font(2, 12)
                p.setFont(font)
                p.drawText(box.adjusted(6, 4, -4, -4), int(Qt.TextFlag.TextWordWrap), f"▣ {why}")
        if rotated:
            p.restore()


def _minus(a: QRectF, b: QRectF) -> list[QRectF]:
    """``a`` without ``b``: at most four bands (above, below, left, right of ``b``)."""
    b = a.intersected(b)
    if b.isEmpty():
        return [a]
    bands = [
        QRectF(a.left(), a.top(), a.width(), b.top() - a.top()),
        QRectF(a.left(), b.bottom(), a.width(), a.bottom() - b.bottom()),
        QRectF(a.left(), b.top(), b.left() - a.left(), b.height()),
        QRectF(b.right(), b.top(), a.right() - b.right(), b.height()),
    ]
    return [r for r in bands if r.width() > 0 and r.height() > 0]


@dataclass(frozen=True)
class _Frame:
    """The drawing as last drawn: an image of the view and a margin around it, at
    ``scale``, the drawing's origin at ``offset`` (widget coordinates) when it was drawn."""

    image: QImage
    scale: float
    offset: QPointF
    area: QRectF  # what the image shows, in widget coordinates when drawn
    whole: bool  # it shows the whole drawing: good for any pan at this scale
    size: QSize


class DrawingView(QWidget):
    """The drawing tab (see the module docstring); a :class:`DocumentView`."""

    kind = KIND
    loaded = Signal(str)  # the vault-relative path, once drawn (or its message shown)
    recorded = Signal()  # the drawing's tiles are ready (on open, after a theme change)

    def __init__(self) -> None:
        super().__init__()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(200, 150)
        self._root: Path | None = None
        self._vault: OpenVault | None = None
        self._ref: str | None = None
        self._theme = "light"
        self.drawing: Drawing | None = None
        self.message = ""  # shown instead of a drawing (loading, or why not)
        self._tiles: Tiles = []
        self._scale = 1.0
        self._offset = QPointF(0, 0)  # where the drawing's (0, 0) is on the widget
        self._drag: QPointF | None = None
        self._fitted = True  # a fitted view fits again when the tab is resized
        self._found = -1
        self._cache: _Frame | None = None
        self._sharpen = QTimer(self)  # a sharp frame once zooming rests
        self._sharpen.setSingleShot(True)
        self._sharpen.setInterval(120)
        self._sharpen.timeout.connect(self._resharpen)
        self._runner = TaskRunner(self)
        self._runner.done.connect(self._on_loaded)
        self._runner.error.connect(self._on_failed)

    # ---------------------------------------------------------------- DocumentView
    def widget(self) -> QWidget:
        return self

    def document_id(self) -> str | None:
        return self._ref

    def open_document(self, ref: str) -> bool:
        if self._root is None or vault_file(self._root, ref) is None:
            return False
        if not (self._root / ref).is_file():
            return False
        self._ref = ref
        self.drawing, self._tiles, self._found, self._cache = None, [], -1, None
        self.message = "Loading the drawing…"
        lookup = self._vault.lookup if self._vault is not None else None
        reader = self._vault.reader if self._vault is not None else None
        lender: MaybeLend = lend(lookup, reader) if lookup is not None else _no_lookup
        self._runner.start(_load, self._root, ref, lender, self._theme == "dark")
        self.update()
        return True

    def title(self) -> str:
        name = Path(self._ref or "").name
        return name.removesuffix(".md") if name.lower().endswith(".excalidraw.md") else name

    def tooltip(self) -> str:
        return f"Drawing: {self._ref}" if self._ref else ""

    def icon(self) -> QIcon:
        return QIcon()

    def scroll_position(self) -> int:
        return 0

    def restore_scroll(self, position: int) -> None:
        self.fit()

    def scroll_to(self, anchor: str) -> bool:
        return self.find_text(anchor)

    def find_text(self, text: str, *, backward: bool = False) -> bool:
        """Centre the next text element holding ``text`` (case-insensitive)."""
        if self.drawing is None or not text:
            return False
        texts = [i for i, s in enumerate(self.drawing.shapes)
                 if s.kind == "text" and text.lower() in s.text.lower()]  # fmt: skip
        if not texts:
            return False
        later = [i for i in texts if (i < self._found if backward else i > self._found)]
        self._found = (later[-1] if backward else later[0]) if later else (
            texts[-1] if backward else texts[0])  # fmt: skip
        left, top, right, bottom = self.drawing.shapes[self._found].bounds()
        self._centre_on(QPointF((left + right) / 2, (top + bottom) / 2))
        return True

    def printable(self) -> QTextDocument | None:
        html = self.export_html()
        if html is None or self.drawing is None:
            return None
        from anthology.ui.reading.vault_images import svg_picture

        doc = QTextDocument()
        image = svg_picture(drawing_svg(self.drawing, width=640), 640, 2.0, trusted=True)
        if image is not None:
            doc.addResource(QTextDocument.ResourceType.ImageResource, "drawing:print", image)
        doc.setHtml(f'<p><img src="drawing:print" width="640" /></p><p>{escape(self.title())}</p>')
        return doc

    def export_html(self) -> str | None:
        if self.drawing is None:
            return None
        svg = drawing_svg(self.drawing, dark=False).decode("utf-8")
        svg = svg.replace("<svg ", '<svg style="max-width: 100%; height: auto;" ', 1)
        return (
            f'<!DOCTYPE html><html><head><meta charset="utf-8" /><title>{escape(self.title())}'
            f'</title></head><body style="margin: 20px;">{svg}</body></html>'
        )

    def set_theme(self, theme: str) -> None:
        """Restyle: the tiles are recorded again in the theme's colours on the worker; the
        old ones are shown until then."""
        if theme != self._theme:
            self._theme = theme
            if self.drawing is not None:
                self._runner.start(_record, self.drawing, theme == "dark")
            self.redraw()

    def set_reading(self, style: ReadingStyle, *, readable: bool = True, width: int = 760) -> None:
        pass  # a drawing keeps its own type sizes

    def attach_vault(self, vault: OpenVault) -> None:
        self._vault = vault
        self._root = vault.root.resolve()

    def shutdown(self) -> None:
        self._runner.shutdown()

    # ---------------------------------------------------------------- loading
    def _on_loaded(self, result: object) -> None:
        assert isinstance(result, tuple)
        drawing, dark, tiles = cast(tuple[Drawing, bool, Tiles], result)
        first = drawing is not self.drawing
        self.drawing, self.message, self._tiles = drawing, "", tiles
        if dark != (self._theme == "dark"):  # the theme changed meanwhile: once more
            self._runner.start(_record, drawing, self._theme == "dark")
        self.redraw()
        if first:
            self.fit()
            self.loaded.emit(self._ref or "")
        self.recorded.emit()

    def _on_failed(self, exc: object) -> None:
        reason = str(exc) if isinstance(exc, DrawingError) else f"{type(exc).__name__}: {exc}"
        self.drawing, self._tiles, self._cache = None, [], None
        self.message = f"This drawing cannot be shown: it {reason}." if isinstance(
            exc, DrawingError) else f"This drawing cannot be shown ({reason})."  # fmt: skip
        self.update()
        self.loaded.emit(self._ref or "")

    # ---------------------------------------------------------------- view
    def transform(self) -> QTransform:
        return QTransform(self._scale, 0, 0, self._scale, self._offset.x(), self._offset.y())

    @property
    def scale(self) -> float:
        return self._scale

    def fit(self) -> None:
        """The whole drawing in the tab (never magnified past 2×)."""
        self._fitted = True
        if self.drawing is None:
            self.update()
            return
        left, top, right, bottom = self.drawing.bounds
        w, h = max(right - left, 1.0), max(bottom - top, 1.0)
        avail_w = max(1.0, self.width() - 2 * FIT_MARGIN)
        avail_h = max(1.0, self.height() - 2 * FIT_MARGIN - self._strip_height())
        self._scale = max(MIN_SCALE, min(2.0, avail_w / w, avail_h / h))
        cx, cy = (left + right) / 2, (top + bottom) / 2
        mid_y = (self.height() + self._strip_height()) / 2
        self._offset = QPointF(self.width() / 2 - cx * self._scale, mid_y - cy * self._scale)
        self.update()

    def zoom(self, factor: float, around: QPointF | None = None) -> None:
        at = around if around is not None else QPointF(self.width() / 2, self.height() / 2)
        new = max(MIN_SCALE, min(MAX_SCALE, self._scale * factor))
        # the drawing's point under ``at`` stays under it
        px = (at.x() - self._offset.x()) / self._scale
        py = (at.y() - self._offset.y()) / self._scale
        self._scale = new
        self._offset = QPointF(at.x() - px * new, at.y() - py * new)
        self._fitted = False
        self.update()

    def pan(self, dx: float, dy: float) -> None:
        # whole pixels: the cached image is then blitted, and kept, without resampling
        self._offset += QPointF(round(dx), round(dy))
        self._fitted = False
        self.update()

    def _centre_on(self, point: QPointF) -> None:
        self._offset = QPointF(self.width() / 2 - point.x() * self._scale,
                               self.height() / 2 - point.y() * self._scale)  # fmt: skip
        self._fitted = False
        self.update()

    def _strip_height(self) -> int:
        return 26 if self.drawing is not None and self.drawing.notices else 0

    # ---------------------------------------------------------------- painting
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        self.paint_frame(p)
        p.end()

    def paint_frame(self, p: QPainter) -> int:
        """Paint the view as it stands; the number of tiles replayed for it (0: the frame
        came from the cached image)."""
        pal = palette(self._theme)
        drawing = self.drawing
        dark = self._theme == "dark"
        background = _colour(themed(drawing.background, dark), 1.0) if drawing else None
        p.fillRect(self.rect(), background or QColor(pal.background))
        if drawing is None:
            p.setPen(QColor(pal.muted))
            flags = int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap)
            p.drawText(self.rect().adjusted(24, 24, -24, -24), flags, self.message)
            return 0
        replayed = 0
        cache = self._cache
        if cache is None or not self._cache_covers():
            if cache is not None and cache.scale != self._scale:
                # zooming: the last image, scaled, until the wheel rests (then sharp)
                self._draw_cache_scaled(p, cache)
                self._sharpen.start()
            else:
                replayed = self._render_cache()
                cache = self._cache
        if cache is not None and cache.scale == self._scale:
            p.drawImage(cache.area.topLeft() + (self._offset - cache.offset), cache.image)
        if drawing.notices:
            strip = QRectF(0, 0, self.width(), self._strip_height())
            p.fillRect(strip, QColor(pal.box_bg))
            p.setPen(QColor(pal.error))
            p.drawText(strip.adjusted(10, 0, -10, 0), int(Qt.AlignmentFlag.AlignVCenter),
                       "⚠ " + " ".join(drawing.notices))  # fmt: skip
        return replayed

    def _cache_covers(self) -> bool:
        """The cached image, drawn where the view now puts it, covers the whole view."""
        cache = self._cache
        if cache is None or cache.scale != self._scale or cache.size != self.size():
            return False
        if cache.whole:
            return True
        return cache.area.translated(self._offset - cache.offset).contains(QRectF(self.rect()))

    def _render_cache(self) -> int:
        """Draw the drawing into an image: all of it when it is at most 2 views wide and
        high at this scale (no pan needs another), else the view and a margin of a quarter
        of a view around it (a pan within the margin is then one blit). A pan past the margin
        keeps what the last image showed and draws only what it did not (clipped): the
        tiles replayed for it are returned."""
        assert self.drawing is not None
        dpr = max(1.0, self.devicePixelRatioF())
        margin = round(max(self.width(), self.height()) / 4)
        transform = self.transform()
        left, top, right, bottom = self.drawing.bounds
        drawn = transform.mapRect(QRectF(left, top, right - left, bottom - top))
        whole = (drawn.width() <= 2 * self.width() and drawn.height() <= 2 * self.height()
                 and drawn.width() * drawn.height() * dpr * dpr <= MAX_WHOLE_PIXELS)  # fmt: skip
        area = (drawn.adjusted(-2, -2, 2, 2) if whole
                else QRectF(self.rect()).adjusted(-margin, -margin, margin, margin))  # fmt: skip
        old = self._cache
        reuse = (old is not None and not whole and not old.whole and old.scale == self._scale
                 and old.size == self.size())  # fmt: skip
        if reuse:
            assert old is not None
            # along an axis the last image still covers, keep its place; along one the view
            # has just left, step it half a margin that way: the strip to draw is then
            # half a margin wide (a pan is steps of a few pixels), not an L round the view
            moved = old.area.translated(self._offset - old.offset)
            view = QRectF(self.rect())
            step = margin / 2
            lo, hi = moved.left(), moved.right()
            if lo <= view.left() and hi >= view.right():
                area.moveLeft(lo)
            elif lo - step <= view.left() <= lo and hi - step >= view.right():
                area.moveLeft(lo - step)
            elif hi <= view.right() <= hi + step and lo + step <= view.left():
                area.moveLeft(lo + step)
            lo, hi = moved.top(), moved.bottom()
            if lo <= view.top() and hi >= view.bottom():
                area.moveTop(lo)
            elif lo - step <= view.top() <= lo and hi - step >= view.bottom():
                area.moveTop(lo - step)
            elif hi <= view.bottom() <= hi + step and lo + step <= view.top():
                area.moveTop(lo + step)
        image = QImage(max(1, round(area.width() * dpr)), max(1, round(area.height() * dpr)),
                       QImage.Format.Format_ARGB32_Premultiplied)  # fmt: skip
        image.setDevicePixelRatio(dpr)
        todo = [QRectF(0, 0, area.width(), area.height())]  # image coordinates
        kept = QRectF()
        if reuse:
            assert old is not None
            kept = old.area.translated(self._offset - old.offset).translated(-area.topLeft())
        clip: QRegion | None = None
        if kept.intersects(todo[0]):
            assert old is not None
            p = QPainter(image)
            # copied as it is (its clear pixels too), then only the rest cleared: no fill
            # of the whole image first (a fifth of the cost of a pan past the margin)
            p.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
            p.drawImage(kept.topLeft(), old.image)
            clip = QRegion(todo[0].toAlignedRect()).subtracted(QRegion(kept.toAlignedRect()))
            todo = _minus(todo[0], kept)
            for band in todo:
                p.fillRect(band, Qt.GlobalColor.transparent)
            p.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
        else:
            image.fill(Qt.GlobalColor.transparent)
            p = QPainter(image)
        transform = transform * QTransform.fromTranslate(-area.left(), -area.top())
        inverse, _ok = transform.inverted()
        seen = [inverse.mapRect(r) for r in todo]
        replayed = 0
        if clip is not None:
            p.setClipRegion(clip)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setTransform(transform)
        for bounds, picture in self._tiles:
            if any(bounds.intersects(r) for r in seen):
                p.save()
                p.setClipRect(bounds, Qt.ClipOperation.IntersectClip)
                p.drawPicture(0, 0, picture)
                p.restore()
                replayed += 1
        p.end()
        self._cache = _Frame(image, self._scale, QPointF(self._offset), area, whole, self.size())
        return replayed

    def _draw_cache_scaled(self, p: QPainter, cache: _Frame) -> None:
        """The cached image where the new scale puts it (blurred until sharpened)."""
        factor = self._scale / cache.scale
        # a widget point q of the old frame is the drawing point (q - o_c) / s_c: now at
        # (q - o_c) * factor + o
        at = (cache.area.topLeft() - cache.offset) * factor + self._offset
        target = QRectF(at.x(), at.y(), cache.area.width() * factor, cache.area.height() * factor)
        p.drawImage(target, cache.image)

    def _resharpen(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        """Draw the drawing anew at the next frame (a zoom has settled, the looks changed)."""
        self._sharpen.stop()
        self._cache = None
        self.update()

    # ---------------------------------------------------------------- input
    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._fitted:
            self.fit()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() in (Qt.MouseButton.LeftButton, Qt.MouseButton.MiddleButton):
            self._drag = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag is not None:
            delta = event.position() - self._drag
            self._drag = event.position()
            self.pan(delta.x(), delta.y())
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._drag = None
        self.unsetCursor()
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.fit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        delta = event.angleDelta()
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom(1.0015 ** delta.y(), event.position())
        elif event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.pan(delta.y() / 2, 0)
        else:
            self.pan(delta.x() / 2, delta.y() / 2)
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(1.25)
        elif key == Qt.Key.Key_Minus:
            self.zoom(0.8)
        elif key == Qt.Key.Key_0:
            self.fit()
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down):
            step = 60.0
            dx = {Qt.Key.Key_Left: step, Qt.Key.Key_Right: -step}.get(Qt.Key(key), 0.0)
            dy = {Qt.Key.Key_Up: step, Qt.Key.Key_Down: -step}.get(Qt.Key(key), 0.0)
            self.pan(dx, dy)
        else:
            super().keyPressEvent(event)


def _exists(vault: OpenVault, ref: str) -> bool:
    return vault_file(vault.root.resolve(), ref) is not None and (vault.root / ref).is_file()


register(DocumentKind(KIND, DrawingView, _exists, "Drawing", opens=opens))
