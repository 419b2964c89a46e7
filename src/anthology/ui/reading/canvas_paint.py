"""How a canvas board is painted, as a layer of its view (:class:`CanvasPainting`, under
:class:`~anthology.ui.reading.canvas_view.CanvasView`): groups with their labels and
background pictures behind their members, edges as curves with arrowheads, colours and
labels, and each card at the level of detail the zoom allows (a shape, a title, its
content laid out). The view says what is shown and where; this layer draws it."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QTextDocument,
    QTransform,
)
from PySide6.QtWidgets import QWidget

from anthology.ui.common.document import OpenVault
from anthology.ui.reading.vault_images import load_vault_image
from anthology.vault.canvas.geometry import FULL, SHAPES, Board, colour, detail
from anthology.vault.canvas.model import Node, url_host
from anthology.vault.render.theme import palette

PAD = 12.0  # board px inside a card
AA_EDGES = 300  # at most this many curves in view are antialiased


class Card:
    """What a card shows close up: a laid-out document, or a picture."""

    def __init__(
        self,
        doc: QTextDocument | None = None,
        image: QImage | None = None,
        heading: str = "",
        target: str = "",
    ) -> None:
        self.doc = doc
        self.image = image
        self.heading = heading  # a file card: the note's title above it
        self.target = target  # a file card: the entry it opens ("" : none)


class CanvasPainting(QWidget):
    """The painting of a board (see the module's doc)."""

    # what the view that uses this layer holds
    board: Board
    _theme: str
    _font_px: float
    _o: QPointF  # the frame of the picture being drawn: its board origin and scale
    _s: float
    _cards: dict[int, Card]
    _art: list[tuple[QPainterPath, list[QPolygonF], str]] | None
    _vault: OpenVault | None
    _pens: dict[tuple[str, float], QPen]
    _fills: dict[tuple[str, int], QColor]
    _backgrounds: dict[str, QImage | None]

    def _dv(self, x: float, y: float) -> QPointF:
        """A board point in the pixels of the picture being drawn."""
        return QPointF((x - self._o.x()) * self._s, (y - self._o.y()) * self._s)

    def _paint_board(self, p: QPainter, origin: QPointF, scale: float, w: float,
                     h: float) -> list[int]:  # fmt: skip
        """Draw the board's part at ``origin`` (its top left), ``scale`` px per board px, in
        ``w`` × ``h`` px; the cards that want laying out."""
        self._o, self._s = origin, scale
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        vx, vy, vw, vh = origin.x(), origin.y(), w / scale, h / scale
        level = detail(scale)
        shown = set(self.board.visible_nodes(vx, vy, vw, vh).tolist())
        p.setTransform(QTransform(scale, 0, 0, scale, -vx * scale, -vy * scale))
        order = [i for i in self.board.order if i in shown]
        groups = [i for i in order if self.board.nodes[i].type == "group"]
        for i in groups:
            self._paint_group(p, self.board.nodes[i], level)
        self._paint_edges(p, vx, vy, vw, vh, level)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        wanted: list[int] = []
        for i in order:
            node = self.board.nodes[i]
            if node.type != "group":
                self._paint_card(p, i, node, level, wanted)
        # the titles of groups and cards, in screen pixels, readable at any zoom
        if level != SHAPES:
            p.resetTransform()
            for i in groups:
                self._paint_group_label(p, self.board.nodes[i])
            if level != FULL:
                for i in order:
                    if self.board.nodes[i].type != "group":
                        self._paint_title(p, self.board.nodes[i])
        return wanted

    def _pen(self, hex_colour: str, width: float) -> QPen:
        pen = self._pens.get((hex_colour, width))
        if pen is None:
            pen = self._pens[(hex_colour, width)] = QPen(QColor(hex_colour), width)
            pen.setCosmetic(True)  # screen pixels, whatever the zoom
        return pen

    def _fill(self, hex_colour: str, alpha: int) -> QColor:
        c = self._fills.get((hex_colour, alpha))
        if c is None:
            c = self._fills[(hex_colour, alpha)] = QColor(hex_colour)
            c.setAlpha(alpha)
        return c

    def _edge_art(self) -> list[tuple[QPainterPath, list[QPolygonF], str]]:
        """Each edge's curve and arrowheads as Qt shapes and its colour, made once a board
        and theme (not per frame: 1,500 curves took 46 ms of Python a picture)."""
        if self._art is None:
            art = []
            for shape in self.board.edges:
                path = QPainterPath(QPointF(*shape.start))
                path.cubicTo(QPointF(*shape.c1), QPointF(*shape.c2), QPointF(*shape.end))
                heads = [QPolygonF([QPointF(*pt) for pt in head]) for head in shape.heads]
                art.append((path, heads, colour(shape.edge.color, self._theme)))
            self._art = art
        return self._art

    def _paint_group(self, p: QPainter, node: Node, level: str) -> None:
        c = colour(node.color, self._theme)
        rect = QRectF(*node.rect)
        p.setPen(self._pen(c, 1.5))
        p.setBrush(self._fill(c, 22))
        p.drawRoundedRect(rect, 10, 10)
        if node.background and level != SHAPES:
            image = self._background(node.background)
            if image is not None:
                self._paint_background(p, rect, image, node.background_style)

    def _paint_background(self, p: QPainter, rect: QRectF, image: QImage, style: str) -> None:
        p.save()
        p.setClipRect(rect)
        iw, ih = image.width() / image.devicePixelRatio(), image.height() / image.devicePixelRatio()
        if style == "repeat":
            brush = QBrush(image)
            brush.setTransform(QTransform.fromTranslate(rect.x(), rect.y()))
            p.fillRect(rect, brush)
        else:
            fits = min if style == "ratio" else max  # ratio: all of it; cover: all the group
            s = fits(rect.width() / iw, rect.height() / ih)
            w, h = iw * s, ih * s
            p.drawImage(QRectF(rect.center().x() - w / 2, rect.center().y() - h / 2, w, h), image)
        p.restore()

    def _background(self, rel: str) -> QImage | None:
        if rel not in self._backgrounds:
            root = self._vault.root if self._vault else None
            self._backgrounds[rel] = load_vault_image(root, rel, 2048, 1.0)
        return self._backgrounds[rel]

    def _paint_group_label(self, p: QPainter, node: Node) -> None:
        if not node.label:
            return
        at = self._dv(node.x, node.y)
        font = QFont(self.font())
        font.setBold(True)
        p.setFont(font)
        p.setPen(QColor(colour(node.color, self._theme)))
        fm = QFontMetricsF(font)
        text = fm.elidedText(
            node.label, Qt.TextElideMode.ElideRight, max(40.0, node.width * self._s)
        )
        p.drawText(QPointF(at.x() + 2, at.y() - fm.descent() - 3), text)

    def _paint_edges(
        self, p: QPainter, vx: float, vy: float, vw: float, vh: float, level: str
    ) -> None:
        labels: list[tuple[QPointF, str, str]] = []
        visible = self.board.visible_edges(vx, vy, vw, vh).tolist()
        # Antialiased curves cost ~7x more: many of them (a board seen from afar) are drawn
        # without (1,500 curves: 250 -> 37 ms, once per sharp picture).
        p.setRenderHint(QPainter.RenderHint.Antialiasing, len(visible) <= AA_EDGES)
        art = self._edge_art()
        p.setBrush(Qt.BrushStyle.NoBrush)
        for k in visible:  # the curves, then the arrowheads: two brush changes, not 3,000
            path, _heads, c = art[k]
            p.setPen(self._pen(c, 2.0))
            p.drawPath(path)
        p.setPen(Qt.PenStyle.NoPen)
        for k in visible:
            _path, heads, c = art[k]
            if heads:
                p.setBrush(self._fill(c, 255))
                for head in heads:
                    p.drawPolygon(head)
            shape = self.board.edges[k]
            if shape.edge.label and level != SHAPES:
                labels.append((QPointF(*shape.middle), shape.edge.label, c))
        if labels:
            pal = palette(self._theme)
            p.save()
            p.resetTransform()
            fm = QFontMetricsF(self.font())
            p.setFont(self.font())
            for at, text, c in labels:
                v = self._dv(at.x(), at.y())
                text = fm.elidedText(text, Qt.TextElideMode.ElideRight, 240)
                w, h = fm.horizontalAdvance(text) + 10, fm.height() + 4
                box = QRectF(v.x() - w / 2, v.y() - h / 2, w, h)
                p.setPen(self._pen(c, 1.0))
                p.setBrush(QColor(pal.background))
                p.drawRoundedRect(box, 4, 4)
                p.setPen(QColor(pal.text))
                p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
            p.restore()

    def _paint_card(self, p: QPainter, i: int, node: Node, level: str, wanted: list[int]) -> None:
        pal = palette(self._theme)
        c = colour(node.color, self._theme)
        rect = QRectF(*node.rect)
        radius = min(8.0, node.width / 4, node.height / 4)
        p.setPen(self._pen(c, 2.0 if node.color else 1.0))
        base = QColor(pal.background)
        p.setBrush(base)
        if level == SHAPES:
            p.setBrush(self._fill(c, 90 if node.color else 40))
            p.drawRect(rect)
            return
        p.drawRoundedRect(rect, radius, radius)
        if node.color:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(self._fill(c, 28))
            p.drawRoundedRect(rect, radius, radius)
        if level != FULL:
            return
        if node.type == "link":
            self._paint_link(p, node, rect)
            return
        card = self._cards.get(i)
        if card is None:
            if node.type == "file" and node.file is None:
                self._paint_note(
                    p,
                    rect,
                    f"⊘ {node.file_written or 'no file'}\nrefused: not a file of the vault",
                    pal.error,
                )
                return
            wanted.append(i)
            self._paint_note(p, rect, node.title(), pal.muted)
            return
        p.save()
        p.setClipRect(rect.adjusted(1, 1, -1, -1))
        if card.image is not None:
            iw = card.image.width() / card.image.devicePixelRatio()
            ih = card.image.height() / card.image.devicePixelRatio()
            s = min(rect.width() / iw, rect.height() / ih)
            w, h = iw * s, ih * s
            p.drawImage(
                QRectF(rect.center().x() - w / 2, rect.center().y() - h / 2, w, h), card.image
            )
        elif card.doc is not None:
            p.translate(rect.x() + PAD, rect.y() + PAD)
            card.doc.drawContents(p, QRectF(0, 0, rect.width() - 2 * PAD, rect.height() - 2 * PAD))
        p.restore()
        if card.heading:  # a file card: the file's name above it, as Obsidian writes it
            p.save()
            p.setPen(QColor(pal.muted))
            font = QFont(self.font())
            font.setPixelSize(max(1, round(self._font_px * 0.85)))
            p.setFont(font)
            p.drawText(QPointF(rect.x() + 2, rect.y() - 6), card.heading)
            p.restore()

    def _paint_note(self, p: QPainter, rect: QRectF, text: str, fg: str) -> None:
        p.save()
        font = QFont(self.font())
        font.setPixelSize(max(1, round(self._font_px)))
        p.setFont(font)
        p.setPen(QColor(fg))
        p.drawText(
            rect.adjusted(PAD, PAD, -PAD, -PAD),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            | int(Qt.TextFlag.TextWordWrap),
            text,
        )
        p.restore()

    def _paint_link(self, p: QPainter, node: Node, rect: QRectF) -> None:
        pal = palette(self._theme)
        p.save()
        p.setClipRect(rect)
        font = QFont(self.font())
        font.setPixelSize(max(1, round(self._font_px * 1.1)))
        font.setBold(True)
        p.setFont(font)
        p.setPen(QColor(pal.text))
        inner = rect.adjusted(PAD, PAD, -PAD, -PAD)
        p.drawText(
            inner,
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop),
            f"↗ {url_host(node.url) or 'link'}",
        )
        font.setBold(False)
        font.setPixelSize(max(1, round(self._font_px * 0.9)))
        p.setFont(font)
        p.setPen(QColor(pal.external))
        p.drawText(
            inner.adjusted(0, self._font_px * 1.8, 0, 0),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            | int(Qt.TextFlag.TextWrapAnywhere),
            node.url,
        )
        p.restore()

    def _paint_title(self, p: QPainter, node: Node) -> None:
        """A card's title in screen pixels (a board too small to read its content)."""
        tl = self._dv(node.x, node.y)
        w, h = node.width * self._s, node.height * self._s
        if w < 24 or h < 10:
            return
        title = node.title()
        if not title:
            return
        pal = palette(self._theme)
        fm = QFontMetricsF(self.font())
        p.setFont(self.font())
        p.setPen(QColor(pal.text))
        text = fm.elidedText(title, Qt.TextElideMode.ElideRight, w - 8)
        p.drawText(
            QRectF(tl.x() + 4, tl.y() + 2, w - 8, h - 4),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            text,
        )

    # -- card contents, a few per tick -------------------------------------------------------
