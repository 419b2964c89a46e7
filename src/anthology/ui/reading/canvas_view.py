"""The canvas tab: a ``.canvas`` of the vault drawn as its board (a kind of document, see
:mod:`anthology.ui.common.document`).

The board is :class:`anthology.vault.canvas.geometry.Board` (the model the embed draws from
too), painted with QPainter in one widget: each frame asks the board for what its view
holds (numpy culling) and draws it at the level of detail the zoom allows — far out,
coloured shapes; then titles; close, each card's content: a text card's Markdown and a file
card's note (or the heading or block its ``subpath`` names) rendered by the entry renderer
into a QTextDocument, a picture, a link card's host and URL (nothing fetched). Cards are
rendered a few at a time after the frame that first needs them (a budget per tick), so a
board of 1,000 cards paints at once and fills in.

Keys and mouse: drag or wheel to pan (a trackpad's two fingers too), Ctrl+wheel or +/- to
zoom, 0 to fit (as on open), arrows to pan. A click on a file card opens its note (Ctrl or
the middle button: in a new tab), on a link card or a link in a card follows it as the entry
pane does (``http(s)``/``mailto`` to the system browser, nothing else). The file is watched:
an edit made elsewhere redraws the board where the reader was. The file is never written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import (
    QEvent,
    QFileSystemWatcher,
    QPointF,
    QRectF,
    QSize,
    QSizeF,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QDesktopServices,
    QFont,
    QIcon,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QPixmap,
    QPolygonF,
    QResizeEvent,
    QTextDocument,
    QWheelEvent,
)
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from anthology.ui.common.document import DocumentKind, OpenVault, kind_for_file, register
from anthology.ui.reading.canvas_paint import PAD, CanvasPainting, Card
from anthology.ui.reading.vault_images import load_vault_image, svg_picture
from anthology.vault.canvas.geometry import FULL, Board, detail
from anthology.vault.canvas.model import Canvas, Node
from anthology.vault.canvas.read import load_canvas
from anthology.vault.files import vault_file
from anthology.vault.links import is_attachment
from anthology.vault.model import EntryRef
from anthology.vault.render.canvas_cards import card_html, file_card_source
from anthology.vault.render.reading import ReadingStyle
from anthology.vault.render.safe_text import plain_text
from anthology.vault.render.theme import palette

KIND = "canvas"
MIN_SCALE, MAX_SCALE = 0.02, 4.0
ZOOM_STEP = 1.25
PAN_STEP = 80  # px, an arrow key
DRAG_SLOP = 4  # px a press may move and still be a click
RENDER_BUDGET_S = 0.03  # card contents rendered per tick at most this long
_HALF = 2**24  # the history's board coordinates are kept offset by this (see scroll_position)
CACHE_MARGIN = 0.25  # of the view's width and height, drawn beyond it on each side
SHARP_MS = 150  # after the last zoom step, the board is drawn sharp again
_EXTERNAL = ("http", "https", "mailto")
_SRC_RE = re.compile(r'<img[^>]*\bsrc="([^"]+)"')


class CanvasView(CanvasPainting):
    """A canvas board in a tab (a :class:`~anthology.ui.common.document.DocumentView`)."""

    kind = KIND
    # entry id, heading ("" : none), new tab: a file card or a link in a card was clicked
    entryRequested = Signal(str, str, bool)
    # a kind of document, its vault path, new tab (a file card naming a PDF, a canvas…)
    documentRequested = Signal(str, str, bool)
    reloaded = Signal()  # the file changed on disk and the board was read again
    # the pointer is over a file card naming a note: entry id, heading or "^block", Ctrl
    # held (the window previews it as it previews a link in a page); then left it
    linkHovered = Signal(str, str, bool)
    linkLeft = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("canvasView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setMinimumSize(QSize(120, 80))
        self.open_external: Callable[[QUrl], object] = QDesktopServices.openUrl
        self._vault: OpenVault | None = None
        self._ref: str | None = None
        self.canvas = Canvas()
        self.board = Board(self.canvas)
        self.scale = 1.0
        self.origin = QPointF(0.0, 0.0)  # the board point at the widget's top left
        self._theme = "light"
        self._font_px = 15.0
        self._cards: dict[int, Card] = {}
        self._wanted: list[int] = []  # cards to render, nearest the view first
        self._backgrounds: dict[str, QImage | None] = {}
        self._press: QPointF | None = None
        self._hovered = ("", "")  # the note (and heading) of the file card pointed at
        self._hover_refs: dict[str, EntryRef | None] = {}
        self._dragged = False
        self._fitted = False
        self._fitted_view: tuple[float, QPointF] | None = None  # as fit() left it
        self._version = 0  # what the board shows changed (file, theme, cards laid out)
        self._cache: QPixmap | None = None
        self._cache_key: tuple = ()
        self._cache_origin = QPointF()
        self._cache_scale = 1.0
        self._o, self._s = QPointF(), 1.0  # the frame of the picture being drawn
        self._pens: dict[tuple[str, float], QPen] = {}
        self._fills: dict[tuple[str, int], QColor] = {}
        self._art: list[tuple[QPainterPath, list[QPolygonF], str]] | None = None
        self._sharp_timer = QTimer(self, singleShot=True, interval=SHARP_MS)
        self._sharp_timer.timeout.connect(self.update)
        self._render_timer = QTimer(self, singleShot=True, interval=0)
        self._render_timer.timeout.connect(self._render_some)
        self._reload_timer = QTimer(self, singleShot=True, interval=150)
        self._reload_timer.timeout.connect(self.reload)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(lambda _path: self._reload_timer.start())
        # What was wrong with the file: a notice over the board, every problem in its tooltip.
        self.notice = QLabel(self)
        self.notice.setObjectName("canvasNotice")
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.notice, 0, Qt.AlignmentFlag.AlignTop)
        layout.addStretch(1)

    # -- the DocumentView protocol ---------------------------------------------------------
    def widget(self) -> QWidget:
        return self

    def document_id(self) -> str | None:
        return self._ref

    def open_document(self, ref: str) -> bool:
        if self._vault is None or not ref.lower().endswith(".canvas"):
            return False
        root = self._vault.root
        if vault_file(root, ref) is None or not (root / ref).is_file():
            return False
        if self._ref is not None and self._watcher.files():
            self._watcher.removePaths(self._watcher.files())
        self._ref = ref
        self._fitted = False
        self._load()
        self._watcher.addPath(str(root / ref))
        return True

    def title(self) -> str:
        return Path(self._ref or "").stem

    def tooltip(self) -> str:
        return f"Canvas\n{self._ref or ''}"

    def icon(self) -> QIcon:
        return QIcon()

    def scroll_position(self) -> int:
        """Where the reader is, as the history keeps it (an int): the board point in the
        middle of the view (25 bits each, the board's ±10,000,000 fit) and the zoom (as a
        power of 1.01, 10 bits); 0 for a view not moved since it was fitted."""
        if self._ref is None or self._fitted_view == (self.scale, self.origin):
            return 0
        c = self.to_board(QPointF(self.width() / 2, self.height() / 2))
        x = min(max(round(c.x()), -_HALF), _HALF - 1) + _HALF
        y = min(max(round(c.y()), -_HALF), _HALF - 1) + _HALF
        z = min(max(round(math.log(self.scale) / math.log(1.01)), -512), 511) + 512
        return (z << 50) | (x << 25) | y

    def restore_scroll(self, position: int) -> None:
        """Back where :meth:`scroll_position` said (0: fitted)."""
        if position <= 0:
            return
        z, x, y = position >> 50, (position >> 25) & (2**25 - 1), position & (2**25 - 1)
        self.scale = max(MIN_SCALE, min(MAX_SCALE, 1.01 ** (z - 512)))
        cx, cy = x - _HALF, y - _HALF
        self.origin = QPointF(
            cx - self.width() / 2 / self.scale, cy - self.height() / 2 / self.scale
        )
        self._fitted = True
        self._sharp_timer.stop()
        self.update()

    def scroll_to(self, anchor: str) -> bool:
        """Show the node whose id is ``anchor``."""
        node = self.canvas.node(anchor)
        if node is None:
            return False
        self.centre_on(node)
        return True

    def find_text(self, text: str, *, backward: bool = False) -> bool:
        """Centre the next card (after the one in the middle) whose text holds ``text``."""
        needle = text.casefold()
        if not needle:
            return False
        nodes = self.canvas.nodes
        hits = [
            i
            for i, n in enumerate(nodes)
            if needle in (n.text or n.title() or n.url or n.label).casefold()
        ]
        if not hits:
            return False
        here = self._centre_node()
        if backward:
            nxt = next((i for i in reversed(hits) if i < here), hits[-1])
        else:
            nxt = next((i for i in hits if i > here), hits[0])
        self.centre_on(nodes[nxt])
        return True

    def printable(self) -> QTextDocument | None:
        return None

    def export_html(self) -> str | None:
        return None

    def set_theme(self, theme: str) -> None:
        if theme != self._theme:
            self._theme = theme
            self._cards.clear()
            self._art = None
            self._version += 1
            self.update()

    def set_reading(self, style: ReadingStyle, *, readable: bool = True, width: int = 760) -> None:
        self._font_px = max(8.0, style.font_size * 96 / 72)
        self._cards.clear()
        self._version += 1
        self.update()

    def attach_vault(self, vault: OpenVault) -> None:
        self._vault = vault
        self._cards.clear()
        self._version += 1
        self._backgrounds.clear()

    def shutdown(self) -> None:
        self._render_timer.stop()
        self._reload_timer.stop()
        if self._watcher.files():
            self._watcher.removePaths(self._watcher.files())

    # -- the board -------------------------------------------------------------------------
    def _load(self) -> None:
        assert self._vault is not None and self._ref is not None
        self.canvas = load_canvas(self._vault.root, self._ref)
        self.board = Board(self.canvas)
        self._hover_refs.clear()
        self._cards.clear()
        self._art = None
        self._version += 1
        self._backgrounds.clear()
        problems = self.canvas.problems
        if problems:
            first = problems[0]
            where = f"{first.where}: " if first.where else ""
            more = f"  (and {len(problems) - 1} more: see the tooltip)" if len(problems) > 1 else ""
            self.notice.setText(plain_text(f"⚠ {where}{first.message}{more}", 400))
            self.notice.setToolTip(
                "\n".join(
                    plain_text((f"{p.where}: " if p.where else "") + p.message, 300)
                    for p in problems[:50]
                )
            )
            pal = palette(self._theme)
            fg, bg = (
                (pal.error, pal.error_bg) if first.severity == "error" else (pal.text, pal.box_bg)
            )
            self.notice.setStyleSheet(
                f"QLabel#canvasNotice {{ color: {fg}; background: {bg}; "
                "padding: 6px; border-radius: 4px; }"
            )
            self.notice.show()
        else:
            self.notice.hide()
        if not self._fitted and self.width() > 0:
            self.fit()
        self.update()

    def reload(self) -> None:
        """Read the file again (changed on disk), keeping where the reader is."""
        if self._vault is None or self._ref is None:
            return
        path = str(self._vault.root / self._ref)
        if path not in self._watcher.files() and Path(path).exists():
            self._watcher.addPath(path)  # an editor that replaces the file: watch the new one
        self._load()
        self.reloaded.emit()

    def fit(self) -> None:
        """The whole board in view (an empty one at scale 1)."""
        x, y, w, h = self.board.bounds()
        vw, vh = max(1, self.width()), max(1, self.height())
        if w <= 0 or h <= 0:
            self.scale = 1.0
            self.origin = QPointF(x - vw / 2, y - vh / 2)
        else:
            margin = 40.0
            self.scale = max(MIN_SCALE, min(1.0, (vw - 2 * margin) / w, (vh - 2 * margin) / h))
            self.origin = QPointF(x + w / 2 - vw / 2 / self.scale, y + h / 2 - vh / 2 / self.scale)
        self._fitted = True
        self._fitted_view = (self.scale, QPointF(self.origin))
        self._sharp_timer.stop()  # a jump, not a gesture: drawn sharp at once
        self.update()

    def centre_on(self, node: Node) -> None:
        cx, cy = node.centre
        self._sharp_timer.stop()
        self.scale = max(self.scale, 0.6)
        self.origin = QPointF(
            cx - self.width() / 2 / self.scale, cy - self.height() / 2 / self.scale
        )
        self.update()

    def _centre_node(self) -> int:
        c = self.to_board(QPointF(self.width() / 2, self.height() / 2))
        return self.board.node_at(c.x(), c.y())

    def to_board(self, p: QPointF) -> QPointF:
        return QPointF(p.x() / self.scale + self.origin.x(), p.y() / self.scale + self.origin.y())

    def to_view(self, x: float, y: float) -> QPointF:
        return QPointF((x - self.origin.x()) * self.scale, (y - self.origin.y()) * self.scale)

    def zoom(self, factor: float, at: QPointF | None = None) -> None:
        """Zoom by ``factor`` keeping the board point under ``at`` (default: the middle)."""
        at = at if at is not None else QPointF(self.width() / 2, self.height() / 2)
        fixed = self.to_board(at)
        self.scale = max(MIN_SCALE, min(MAX_SCALE, self.scale * factor))
        self.origin = QPointF(fixed.x() - at.x() / self.scale, fixed.y() - at.y() / self.scale)
        self._sharp_timer.start()  # scaled blits until the zoom stops
        self.update()

    def pan(self, dx: float, dy: float) -> None:
        """Move the board ``dx``, ``dy`` screen pixels (the content follows the hand)."""
        self.origin = QPointF(self.origin.x() - dx / self.scale, self.origin.y() - dy / self.scale)
        self.update()

    def visible_rect(self) -> QRectF:
        return QRectF(
            self.origin.x(), self.origin.y(), self.width() / self.scale, self.height() / self.scale
        )

    # -- painting --------------------------------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._fitted and self._ref is not None:
            self.fit()

    def paintEvent(self, event: QPaintEvent) -> None:
        """The board from a picture of it a little larger than the view: a pan blits it, a
        zoom under way scales it, and it is drawn again (sharp) when the view leaves it,
        the zoom stops or what it shows changed. Drawing 1,500 curves takes longer than a
        frame; blitting them does not."""
        pal = palette(self._theme)
        p = QPainter(self)
        p.fillRect(self.rect(), QColor(pal.background))
        if not self.canvas.nodes:
            p.setPen(QColor(pal.muted))
            p.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter,
                "An empty canvas" if not self.canvas.problems else "Nothing to draw",
            )
            p.end()
            return
        key = (self._version, self._theme, self.width(), self.height())
        same = self._cache is not None and self._cache_key == key
        fits = same and self._cache_scale == self.scale and self._cache_covers()
        if not fits and not (same and self._sharp_timer.isActive()):  # else: scaled, zooming
            self._render_cache(key)
        cache = self._cache
        assert cache is not None
        k = self.scale / self._cache_scale
        dpr = cache.devicePixelRatio()
        tl = self.to_view(self._cache_origin.x(), self._cache_origin.y())
        size = QSizeF(cache.width() / dpr * k, cache.height() / dpr * k)
        if k != 1.0:
            p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        p.drawPixmap(QRectF(tl, size), cache, QRectF(cache.rect()))
        p.end()

    def _cache_covers(self) -> bool:
        c = self._cache
        if c is None:
            return False
        dpr = c.devicePixelRatio()
        have = QRectF(
            self._cache_origin,
            QSizeF(c.width() / dpr / self._cache_scale, c.height() / dpr / self._cache_scale),
        )
        return have.contains(self.visible_rect())

    def _render_cache(self, key: tuple) -> None:
        pal = palette(self._theme)
        dpr = self.devicePixelRatioF()
        mx, my = CACHE_MARGIN * self.width(), CACHE_MARGIN * self.height()
        w, h = self.width() + 2 * mx, self.height() + 2 * my
        cache = QPixmap(max(1, round(w * dpr)), max(1, round(h * dpr)))
        cache.setDevicePixelRatio(dpr)
        cache.fill(QColor(pal.background))
        origin = QPointF(self.origin.x() - mx / self.scale, self.origin.y() - my / self.scale)
        p = QPainter(cache)
        wanted = self._paint_board(p, origin, self.scale, w, h)
        p.end()
        self._cache, self._cache_key = cache, key
        self._cache_origin, self._cache_scale = origin, self.scale
        if wanted:
            centre = self.to_board(QPointF(self.width() / 2, self.height() / 2))
            wanted.sort(key=lambda i: _dist2(self.board.nodes[i].centre, centre))
            self._wanted = wanted
            self._render_timer.start()

    def _render_some(self) -> None:
        import time

        end = time.perf_counter() + RENDER_BUDGET_S
        done = False
        while self._wanted and time.perf_counter() < end:
            i = self._wanted.pop(0)
            if i not in self._cards and i < len(self.board.nodes):
                self._cards[i] = self._make_card(self.board.nodes[i])
                self._version += 1
                done = True
        if self._wanted:
            self._render_timer.start()
        if done:
            self.update()

    def render_visible(self) -> int:
        """Render every card the view shows close up now (tests, the benchmark); how many."""
        self._sharp_timer.stop()
        self.repaint()
        n = 0
        while self._wanted:
            i = self._wanted.pop(0)
            if i not in self._cards:
                self._cards[i] = self._make_card(self.board.nodes[i])
                self._version += 1
                n += 1
        self.repaint()
        return n

    def _document(self, html: str, resources: dict[str, bytes], width: float) -> QTextDocument:
        doc = QTextDocument(self)
        font = QFont(self.font())
        font.setPixelSize(max(1, round(self._font_px)))
        doc.setDefaultFont(font)
        doc.setDocumentMargin(0)
        root = self._vault.root if self._vault else None
        for src in set(_SRC_RE.findall(html)):
            image: QImage | None = None
            if src in resources:  # ours: formulas, figures
                image = svg_picture(resources[src], int(width), 2.0, trusted=True, fit=True)
            elif src.startswith("vault:"):
                from urllib.parse import unquote

                image = load_vault_image(root, unquote(src[len("vault:") :]), int(width), 2.0)
            if image is not None and not image.isNull():
                doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(src), image)
        doc.setHtml(html)
        # the page's ground is the card's (its colour shows through, as in Obsidian)
        frame = doc.rootFrame().frameFormat()
        frame.setBackground(QBrush(Qt.BrushStyle.NoBrush))
        doc.rootFrame().setFrameFormat(frame)
        doc.setTextWidth(max(20.0, width))
        return doc

    def _make_card(self, node: Node) -> Card:
        vault = self._vault
        width = node.width - 2 * PAD
        if vault is None:
            return Card()
        lookup, root, path = vault.lookup, vault.root, self._ref or ""
        if node.type == "text":
            page = card_html(
                node.text,
                lookup,
                entry_id=path,
                source_path=path,
                theme=self._theme,
                vault_root=root,
            )
            return Card(self._document(page.html, page.resources, width))
        if node.type == "file" and node.file is not None:
            name = Path(node.file).name + (node.subpath or "")
            if is_attachment(node.file) and not node.file.lower().endswith(".pdf"):
                image = load_vault_image(root, node.file, int(node.width), 2.0)
                if image is not None:
                    return Card(image=image, heading=name)
                return self._note_card(
                    f"⊘ {node.file}\nnot found in the vault, or not a picture",
                    width,
                    name,
                    error=True,
                )
            ref, body = file_card_source(lookup, node.file, node.subpath, path)
            if ref is None:
                if (root / node.file).is_file() and vault_file(root, node.file) is not None:
                    return self._note_card(f"▤ {node.file}", width, name)  # a PDF, a canvas…
                return self._note_card(
                    f"⊘ {node.file}\nnot found in the vault", width, name, error=True
                )
            if body is None:
                return self._note_card(
                    f"{ref.short_label}: its text cannot be read", width, name, error=True
                )
            page = card_html(
                body,
                lookup,
                entry_id=ref.id,
                source_path=ref.path,
                theme=self._theme,
                vault_root=root,
            )
            card = Card(self._document(page.html, page.resources, width), heading=name)
            card.target = ref.id
            return card
        return Card()

    def _note_card(self, text: str, width: float, heading: str, *, error: bool = False) -> Card:
        pal = palette(self._theme)
        doc = QTextDocument(self)
        font = QFont(self.font())
        font.setPixelSize(max(1, round(self._font_px)))
        doc.setDefaultFont(font)
        doc.setDocumentMargin(0)
        doc.setDefaultStyleSheet(f"p {{ color: {pal.error if error else pal.muted}; }}")
        doc.setHtml("".join(f"<p>{_escape(line)}</p>" for line in text.splitlines()))
        doc.setTextWidth(max(20.0, width))
        return Card(doc, heading=heading)

    # -- the mouse and the keys ----------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() in (Qt.MouseButton.LeftButton, Qt.MouseButton.MiddleButton):
            self._press = event.position()
            self._dragged = False
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._press is not None and event.buttons() & (
            Qt.MouseButton.LeftButton | Qt.MouseButton.MiddleButton
        ):
            delta = event.position() - self._press
            if self._dragged or abs(delta.x()) + abs(delta.y()) > DRAG_SLOP:
                self._dragged = True
                self.setCursor(Qt.CursorShape.ClosedHandCursor)
                self.pan(delta.x(), delta.y())
                self._press = event.position()
            return
        i = self.board.node_at(*_xy(self.to_board(event.position())))
        node = self.board.nodes[i] if i >= 0 else None
        clickable = node is not None and (
            (node.type == "file" and node.file is not None) or (node.type == "link" and node.url)
        )
        if clickable:
            self.setCursor(Qt.CursorShape.PointingHandCursor)
            self.setToolTip(plain_text(node.file or node.url, 300) if node else "")
        else:
            self.unsetCursor()
            self.setToolTip("")
        self._hover(node if clickable else None, event)

    def _hover(self, node: Node | None, event: QMouseEvent) -> None:
        """Say when the pointer comes onto a file card naming a note, and when it leaves."""
        target = ""
        if node is not None and node.type == "file" and node.file and self._vault is not None:
            ref = self._hover_refs.get(node.file)
            if node.file not in self._hover_refs:
                ref, _ = file_card_source(self._vault.lookup, node.file, None, self._ref or "")
                self._hover_refs[node.file] = ref
            target = ref.id if ref is not None else ""
        wanted = (target, (node.subpath or "").lstrip("#") if target and node else "")
        if wanted == self._hovered:
            return
        self._hovered = wanted
        if target:
            ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            self.linkHovered.emit(*wanted, ctrl)
        else:
            self.linkLeft.emit()

    def leaveEvent(self, event: QEvent) -> None:
        if self._hovered[0]:
            self._hovered = ("", "")
            self.linkLeft.emit()
        super().leaveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._press is None:
            super().mouseReleaseEvent(event)
            return
        self._press = None
        self.unsetCursor()
        if self._dragged:
            self._dragged = False
            return
        new_tab = event.button() == Qt.MouseButton.MiddleButton or bool(
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
        )
        self.click_at(event.position(), new_tab=new_tab)

    def click_at(self, pos: QPointF, *, new_tab: bool = False) -> bool:
        """What a click at ``pos`` (widget pixels) does: open a file card's note or document,
        follow a link card or a link in a card; False when nothing is there to follow."""
        at = self.to_board(pos)
        i = self.board.node_at(at.x(), at.y())
        if i < 0:
            return False
        node = self.board.nodes[i]
        card = self._cards.get(i)
        if card is not None and card.doc is not None and detail(self.scale) == FULL:
            href = card.doc.documentLayout().anchorAt(
                QPointF(at.x() - node.x - PAD, at.y() - node.y - PAD)
            )
            if href and self._follow(href, new_tab):
                return True
        if node.type == "link" and node.url:
            return self._follow(node.url, new_tab)
        if node.type != "file" or node.file is None or self._vault is None:
            return False
        heading = (node.subpath or "").lstrip("#")
        if (kind := kind_for_file(node.file)) is not None:
            self.documentRequested.emit(kind.name, node.file, new_tab)
            return True
        ref, _ = file_card_source(self._vault.lookup, node.file, None, self._ref or "")
        if ref is None:
            return False
        self.entryRequested.emit(ref.id, "" if heading.startswith("^") else heading, new_tab)
        return True

    def _follow(self, href: str, new_tab: bool) -> bool:
        url = QUrl(href)
        scheme = url.scheme().lower()
        if scheme == "entry":
            from urllib.parse import unquote

            rest = href[len("entry:") :]
            target, _, frag = rest.partition("#")
            self.entryRequested.emit(unquote(target), unquote(frag), new_tab)
            return True
        if scheme in _EXTERNAL:
            self.open_external(url)
            return True
        if scheme == "vault":
            from urllib.parse import unquote

            rel = unquote(href[len("vault:") :])
            if (kind := kind_for_file(rel)) is not None:
                self.documentRequested.emit(kind.name, rel, new_tab)
                return True
        return False  # anything else (javascript:, file:, …) is not followed

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = event.angleDelta().y() / 120 or event.pixelDelta().y() / 50
            self.zoom(ZOOM_STEP**steps, event.position())
        else:
            pixels = event.pixelDelta()
            if not pixels.isNull():  # a trackpad: the content follows the fingers
                self.pan(pixels.x(), pixels.y())
            else:
                angle = event.angleDelta()
                self.pan(angle.x() / 2, angle.y() / 2)
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(ZOOM_STEP)
        elif key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
            self.zoom(1 / ZOOM_STEP)
        elif key == Qt.Key.Key_0:
            self.fit()
        elif key == Qt.Key.Key_Left:
            self.pan(PAN_STEP, 0)
        elif key == Qt.Key.Key_Right:
            self.pan(-PAN_STEP, 0)
        elif key == Qt.Key.Key_Up:
            self.pan(0, PAN_STEP)
        elif key == Qt.Key.Key_Down:
            self.pan(0, -PAN_STEP)
        else:
            super().keyPressEvent(event)
            return
        event.accept()


def _dist2(a: tuple[float, float], b: QPointF) -> float:
    return (a[0] - b.x()) ** 2 + (a[1] - b.y()) ** 2


def _xy(p: QPointF) -> tuple[float, float]:
    return (p.x(), p.y())


def _escape(text: str) -> str:
    from html import escape

    return escape(text)


def canvas_exists(vault: OpenVault, ref: str) -> bool:
    return (
        ref.lower().endswith(".canvas")
        and vault_file(vault.root, ref) is not None
        and (vault.root / ref).is_file()
    )


register(
    DocumentKind(
        KIND,
        CanvasView,
        canvas_exists,
        "Canvas",
        opens=lambda rel: rel.endswith(".canvas"),
        shows_entries=True,  # a canvas entry opens as its board
    )
)
