"""A PDF of the vault in a tab: the ``pdf`` kind of document (a link to ``doc.pdf`` or
``doc.pdf#page=5`` opens it).

The pages are laid out from their sizes alone, no page drawn to lay them out: at once as
if every page had the first one's size, then corrected as the sizes are read (on a worker,
:data:`SIZES_CHUNK` at a time, between drawings: a 10,000-page PDF opens as fast as a
1-page one), one under another, centred, at a zoom (fit to the width by
default; Ctrl+wheel, + and -, 0 for the width again). Only the pages in view, and one
either side, are drawn, on a worker (:mod:`anthology.vault.pdf`: PDFium behind its one
lock, a page in strips, cancelled as soon as it scrolls out of the wanted set), the one
nearest the middle of the view first. Drawn pages are kept in a cache bounded by bytes
(:data:`CACHE_BYTES`): scrolling a 1,000-page PDF end to end keeps the memory flat. A
page not drawn yet is a white page with its number; one drawn at another zoom is shown
scaled until it is drawn anew. The page stays white in both themes; around it the
background follows the theme.

A file that is no readable PDF (damaged, truncated, password-protected, something else
named .pdf) opens as a tab saying so.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import OrderedDict
from pathlib import Path, PurePosixPath

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QIcon,
    QImage,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShortcut,
    QTextDocument,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from anthology.tasks import TaskState
from anthology.ui.common.document import DocumentKind, OpenVault, register
from anthology.ui.common.task_runner import TaskRunner
from anthology.ui.reading.vault_images import vault_file
from anthology.vault.pdf import MAX_PAGE_PIXELS, PageImage, PdfError, PdfFile
from anthology.vault.render.pdf_embed import pdf_fragment
from anthology.vault.render.reading import ReadingStyle
from anthology.vault.render.theme import palette

PDF = "pdf"  # the kind's name
GAP = 12  # px between pages and around them
CACHE_BYTES = 128 * 1024 * 1024  # drawn pages kept (a Letter page 900 px wide at 2x: 18 MB)
AHEAD = 1  # pages drawn beyond those in view, either side
MIN_ZOOM, MAX_ZOOM = 0.1, 6.0  # logical px per point
ZOOM_STEP = 1.2
# Page sizes read per step after the file opens (~20 µs a page): a 10,000-page PDF is laid
# out at once as if every page had the first one's size, and corrected as they come.
SIZES_CHUNK = 2_000
_SCROLL_UNIT = 10_000  # scroll_position: page * this + the part of the page above the view


def _open(state: TaskState, root: Path, rel: str, opened: list[PdfFile]) -> object:
    """On a worker: the PDF opened and its first page's size read, or the reason it
    cannot be. The file is put in ``opened`` at once: a view that gave up waiting closes
    it (PDFium's objects are closed under its lock, never by a collector)."""
    try:
        doc = PdfFile(root, rel)
    except PdfError as exc:
        return exc
    opened.append(doc)
    if state.is_cancelled:  # given up meanwhile: the view may not see it in ``opened``
        doc.close()
        state.check()
    try:
        return doc, doc.page_size(0)
    except PdfError as exc:
        doc.close()
        return exc


def _read_sizes(_state: TaskState, doc: PdfFile, start: int, stop: int) -> tuple[int, object]:
    """On a worker: the sizes of pages ``start`` to ``stop`` (or why they cannot be read)."""
    try:
        return start, doc.sizes(start, stop)
    except PdfError as exc:
        return start, exc


def _draw(state: TaskState, doc: PdfFile, index: int, width: int) -> tuple[int, int, object]:
    """On a worker: page ``index`` drawn ``width`` px wide, or smaller within the pixel
    budget (stops when cancelled)."""
    try:
        scale = width / max(1.0, doc.page_size(index)[0])
        page: object = doc.render(index, scale, max_pixels=MAX_PAGE_PIXELS, check=state.check)
    except PdfError as exc:
        page = exc
    return index, width, page


class _Pages(QAbstractScrollArea):
    """The pages, laid out and painted; asks its view for the pages it shows."""

    zoomed = Signal(int)  # Ctrl+wheel steps
    scrolled = Signal()

    def __init__(self, view: PdfView) -> None:
        super().__init__(view)
        self.view = view
        self.setFrameShape(QAbstractScrollArea.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.verticalScrollBar().valueChanged.connect(lambda _v: self._moved())
        self.horizontalScrollBar().valueChanged.connect(lambda _v: self.viewport().update())

    def _moved(self) -> None:
        self.viewport().update()
        self.scrolled.emit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = event.angleDelta().y() / 120
            if steps:
                self.zoomed.emit(1 if steps > 0 else -1)
            event.accept()
            return
        super().wheelEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key, bar = event.key(), self.verticalScrollBar()
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoomed.emit(1)
        elif key == Qt.Key.Key_Minus:
            self.zoomed.emit(-1)
        elif key == Qt.Key.Key_0:
            self.view.fit_width()
        elif key == Qt.Key.Key_PageDown or key == Qt.Key.Key_Space:
            bar.setValue(bar.value() + bar.pageStep())
        elif key == Qt.Key.Key_PageUp:
            bar.setValue(bar.value() - bar.pageStep())
        elif key == Qt.Key.Key_Home:
            bar.setValue(0)
        elif key == Qt.Key.Key_End:
            bar.setValue(bar.maximum())
        else:
            super().keyPressEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.view.viewport_resized()

    def paintEvent(self, event: QPaintEvent) -> None:
        self.view.paint_pages(self.viewport(), event.rect())


class PdfView(QWidget):
    """A PDF in a tab (a :class:`~anthology.ui.common.document.DocumentView`)."""

    kind = PDF
    pageChanged = Signal(int)  # the page at the top of the view (1-based)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pdfView")
        self._root: Path | None = None
        self._rel: str | None = None
        self._doc: PdfFile | None = None
        self._sizes: list[tuple[float, float]] = []
        self._sized = 0  # how many of the sizes are read (the rest: the first page's)
        self._tops: list[float] = []  # each page's top, in px at the zoom
        self._zoom = 1.0
        self._fit = True  # the zoom follows the view's width
        self._theme = "light"
        self._backdrop = QColor("#dcdcdc")
        self._problem: str | None = None  # why the file is not shown
        self._pending_page: tuple[int, float] | None = None  # where to go once open
        self._cache: OrderedDict[int, QImage] = OrderedDict()  # page → drawn picture
        self._asked: dict[int, int] = {}  # page → the width (px) its picture was asked at
        self._cache_bytes = 0
        self._drawing: tuple[int, int] | None = None  # (page, px wide) being drawn
        self._opening: list[PdfFile] = []  # the file a worker is opening (see _open)
        self._opener = TaskRunner(self)
        self._opener.done.connect(self._on_opened)
        self._sizer = TaskRunner(self)
        self._sizer.done.connect(self._on_sizes)
        self._drawer = TaskRunner(self)
        self._drawer.done.connect(self._on_drawn)
        self._drawer.error.connect(lambda _exc: self._drawn_nothing())
        self.drawn_pages = 0  # pages drawn since opened (a test counts the work)

        self._pages = _Pages(self)
        self._pages.zoomed.connect(self.zoom_by)
        self._pages.scrolled.connect(self._on_scrolled)
        bar = QHBoxLayout()
        bar.setContentsMargins(8, 4, 8, 4)
        self._page_box = QSpinBox()
        self._page_box.setRange(1, 1)
        self._page_box.setKeyboardTracking(False)
        self._page_box.setToolTip("Go to page (Ctrl+G)")
        self._page_box.valueChanged.connect(lambda n: self.go_to_page(n))
        self._count = QLabel("of 0")
        self._zoom_label = QLabel("")
        self._zoom_label.setMinimumWidth(48)
        self._zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        out = self._button("−", "Zoom out (−, Ctrl+wheel)", lambda: self.zoom_by(-1))
        into = self._button("+", "Zoom in (+, Ctrl+wheel)", lambda: self.zoom_by(1))
        fit = self._button("Fit width", "Fit the page to the width (0)", self.fit_width)
        self._name = QLabel("")
        self._name.setTextFormat(Qt.TextFormat.PlainText)
        parts: tuple[QWidget, ...] = (QLabel("Page"), self._page_box, self._count)
        for part in (*parts, out, self._zoom_label, into, fit):
            bar.addWidget(part)
            if part is self._count:
                bar.addSpacing(16)
        bar.addStretch(1)
        bar.addWidget(self._name)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self._pages, 1)
        go = QShortcut(QKeySequence("Ctrl+G"), self)
        go.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        go.activated.connect(self._ask_page)
        self.setFocusProxy(self._pages)
        self._apply_theme()

    def _button(self, text: str, tip: str, slot) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    # -- what a tab asks of its document (DocumentView) -----------------------------------
    def widget(self) -> QWidget:
        return self

    def document_id(self) -> str | None:
        return self._rel

    def open_document(self, ref: str) -> bool:
        """Open the vault's PDF ``ref`` (``doc.pdf`` or ``doc.pdf#page=5``); False when
        there is no such file in the vault. A file that cannot be read as a PDF opens too,
        its tab saying why."""
        rel, _, frag = ref.partition("#")
        page = pdf_fragment(frag)[0] if frag else None
        if rel == self._rel and self._root is not None:  # already open: go to the page
            if page is not None:
                self.go_to_page(page)
            return True
        target = vault_file(self._root, rel)
        if target is None or not target.is_file() or self._root is None:
            return False
        self._close()
        self._rel = rel
        self._name.setText(PurePosixPath(rel).name)
        self._problem = None
        self._pending_page = (page or 1, 0.0)
        self._opening = []
        self._opener.start(_open, self._root, rel, self._opening)
        self._pages.viewport().update()
        return True

    def title(self) -> str:
        return PurePosixPath(self._rel).name if self._rel else ""

    def tooltip(self) -> str:
        if not self._rel:
            return ""
        pages = f"\n{len(self._sizes)} pages" if self._doc is not None else ""
        return f"{self._rel}{pages}"

    def icon(self) -> QIcon:
        return QIcon()

    def scroll_position(self) -> int:
        """The page at the top of the view and how far into it (zoom-independent)."""
        if self._pending_page is not None:
            page, part = self._pending_page
            return (page - 1) * _SCROLL_UNIT + round(part * (_SCROLL_UNIT - 1))
        if not self._tops:
            return 0
        y = self._pages.verticalScrollBar().value() + GAP  # the gap above a page is its
        index = max(0, bisect.bisect_right(self._tops, y) - 1)
        part = (y - self._tops[index]) / max(1.0, self._page_height(index))
        return index * _SCROLL_UNIT + round(min(max(part, 0.0), 1.0) * (_SCROLL_UNIT - 1))

    def restore_scroll(self, position: int) -> None:
        page, part = divmod(max(0, int(position)), _SCROLL_UNIT)
        if self._doc is None:
            self._pending_page = (page + 1, part / _SCROLL_UNIT)
        else:
            self._show_page(page, part / _SCROLL_UNIT)

    def scroll_to(self, anchor: str) -> bool:
        """``page=5`` (or ``5``): go to page 5."""
        text = anchor.strip().lstrip("#")
        page = int(text) if text.isdigit() else pdf_fragment(text)[0]
        if not text.isdigit() and "page=" not in text.lower():
            return False
        return self.go_to_page(page)

    def find_text(self, text: str, *, backward: bool = False) -> bool:
        return False  # the viewer draws pages; their text is not searched (yet)

    def printable(self) -> QTextDocument | None:
        return None  # print the PDF itself (it is already paper)

    def export_html(self) -> str | None:
        return None

    def set_theme(self, theme: str) -> None:
        if theme in ("light", "dark"):
            self._theme = theme
            self._apply_theme()

    def set_reading(self, style: ReadingStyle, *, readable: bool = True, width: int = 760) -> None:
        pass  # the PDF has its own type; its zoom is the viewer's

    def attach_vault(self, vault: OpenVault) -> None:
        self._close()
        self._root = Path(vault.root).resolve()
        self._rel = None

    def shutdown(self) -> None:
        self._close()

    # -- the document -----------------------------------------------------------------------
    @property
    def pages(self) -> int:
        return len(self._sizes)

    @property
    def problem(self) -> str | None:
        """Why the file is not shown (None while it is, or opening)."""
        return self._problem

    @property
    def zoom(self) -> float:
        return self._zoom

    @property
    def cache_bytes(self) -> int:
        return self._cache_bytes

    @property
    def loading(self) -> bool:
        """Opening the file, or drawing a page in view."""
        return self._opener.busy or self._sizer.busy or self._drawing is not None

    def current_page(self) -> int:
        """The page at the top of the view (1-based; 0 with none)."""
        return self.scroll_position() // _SCROLL_UNIT + 1 if self._sizes else 0

    def go_to_page(self, page: int) -> bool:
        if self._doc is None:
            if self._rel is None or self._problem is not None:
                return False
            self._pending_page = (page, 0.0)
            return True
        if not 1 <= page <= len(self._sizes):
            return False
        self._show_page(page - 1, 0.0)
        return True

    def _show_page(self, index: int, part: float) -> None:
        index = min(max(0, index), len(self._sizes) - 1)
        y = self._tops[index] - GAP + part * self._page_height(index)
        # up, never down: a pixel short would be the page above's last one
        self._pages.verticalScrollBar().setValue(math.ceil(y - 1e-6))

    def _ask_page(self) -> None:
        self._page_box.setFocus()
        self._page_box.selectAll()

    def _close(self) -> None:
        self._opener.cancel()
        self._sizer.cancel()
        self._drawer.cancel()
        self._drawing = None
        self._sized = 0
        for doc in [self._doc, *self._opening]:
            if doc is not None:
                doc.close()  # a drawing under way stops at its next strip
        self._doc, self._opening = None, []
        self._sizes, self._tops = [], []
        self._pages.verticalScrollBar().setRange(0, 0)
        self._pages.horizontalScrollBar().setRange(0, 0)
        self._page_box.blockSignals(True)
        self._page_box.setRange(1, 1)
        self._page_box.blockSignals(False)
        self._count.setText("")
        self._zoom_label.setText("")
        self._cache.clear()
        self._asked.clear()
        self._cache_bytes = 0
        self.drawn_pages = 0

    def _on_opened(self, result: object) -> None:
        if not isinstance(result, tuple):
            self._problem = str(result)
            self._count.setText("")
            self._pending_page = None
            self._pages.viewport().update()
            return
        self._doc, first = result
        pages = self._doc.pages
        self._sizes = [first] * pages  # the rest read once the pages in view are drawn
        self._sized = 1
        self._page_box.blockSignals(True)
        self._page_box.setRange(1, max(1, pages))
        self._page_box.blockSignals(False)
        self._count.setText(f"of {pages}")
        self._lay_out()
        pending, self._pending_page = self._pending_page, None
        if pending is not None:
            self._show_page(pending[0] - 1, pending[1])
        self._on_scrolled()

    # -- layout -----------------------------------------------------------------------------
    def _page_height(self, index: int) -> float:
        return self._sizes[index][1] * self._zoom

    def _widest(self) -> float:
        return max((w for w, _h in self._sizes), default=612.0)

    def _lay_out(self) -> None:
        """Each page's top at the zoom (from the sizes alone), and the scroll range."""
        if self._fit:
            room = max(100, self._pages.viewport().width() - 2 * GAP)
            self._zoom = min(max(room / self._widest(), MIN_ZOOM / 10), MAX_ZOOM)
        heights = (h * self._zoom + GAP for _w, h in self._sizes)
        self._tops = [GAP + t for t in itertools.accumulate(heights, initial=0.0)][:-1]
        total = (self._tops[-1] + self._page_height(len(self._sizes) - 1)) if self._sizes else 0
        view = self._pages.viewport()
        vbar, hbar = self._pages.verticalScrollBar(), self._pages.horizontalScrollBar()
        vbar.setRange(0, max(0, round(total + GAP - view.height())))
        vbar.setPageStep(max(1, view.height()))
        vbar.setSingleStep(40)
        hbar.setRange(0, max(0, round(self._widest() * self._zoom + 2 * GAP - view.width())))
        hbar.setPageStep(max(1, view.width()))
        self._zoom_label.setText(f"{round(self._zoom * 100)}%")

    def viewport_resized(self) -> None:
        if self._sizes:
            where = self.scroll_position()
            self._lay_out()
            self.restore_scroll(where)
            self._on_scrolled()

    def zoom_by(self, steps: int) -> None:
        self.set_zoom(self._zoom * ZOOM_STEP**steps)

    def set_zoom(self, zoom: float) -> None:
        """Show the pages at ``zoom`` logical px per point, the page in view kept in view."""
        if not self._sizes:
            return
        where = self.scroll_position()
        self._fit = False
        self._zoom = min(max(zoom, MIN_ZOOM), MAX_ZOOM)
        self._lay_out()
        self.restore_scroll(where)
        self._on_scrolled()

    def fit_width(self) -> None:
        if not self._sizes:
            return
        where = self.scroll_position()
        self._fit = True
        self._lay_out()
        self.restore_scroll(where)
        self._on_scrolled()

    def visible_pages(self) -> range:
        """The pages (0-based) the view shows now."""
        if not self._tops:
            return range(0)
        y = self._pages.verticalScrollBar().value()
        bottom = y + self._pages.viewport().height()
        first = max(0, bisect.bisect_right(self._tops, y) - 1)
        if self._tops[first] + self._page_height(first) <= y:
            first += 1
        last = max(first, bisect.bisect_left(self._tops, bottom) - 1)
        return range(first, min(last, len(self._tops) - 1) + 1)

    def _page_rect(self, index: int) -> QRectF:
        w, h = self._sizes[index]
        view_w = self._pages.viewport().width()
        content_w = self._widest() * self._zoom + 2 * GAP
        left = max(GAP, (max(view_w, content_w) - w * self._zoom) / 2)
        return QRectF(
            left - self._pages.horizontalScrollBar().value(),
            self._tops[index] - self._pages.verticalScrollBar().value(),
            w * self._zoom,
            h * self._zoom,
        )

    # -- drawing ------------------------------------------------------------------------------
    def _px_width(self, index: int) -> int:
        dpr = max(1.0, self.devicePixelRatioF())
        return max(1, round(self._sizes[index][0] * self._zoom * dpr))

    def _fresh(self, index: int) -> bool:
        """Whether page ``index`` is drawn for the zoom shown (asked at the width it is
        shown at: the budget may have drawn it smaller)."""
        return index in self._cache and self._asked.get(index) == self._px_width(index)

    def _wanted(self) -> list[int]:
        """The pages to draw now: those in view from the middle out, then one either side."""
        shown = self.visible_pages()
        if not shown:
            return []
        middle = (shown.start + shown.stop - 1) / 2
        order = sorted(shown, key=lambda i: abs(i - middle))
        around = [shown.start - k for k in range(1, AHEAD + 1)]
        around += [shown.stop - 1 + k for k in range(1, AHEAD + 1)]
        order += [i for i in around if 0 <= i < len(self._sizes)]
        return order

    def _on_scrolled(self) -> None:
        page = self.current_page()
        if page and self._page_box.value() != page and not self._page_box.hasFocus():
            self._page_box.blockSignals(True)
            self._page_box.setValue(page)
            self._page_box.blockSignals(False)
        self.pageChanged.emit(page)
        self._pump()

    def _pump(self) -> None:
        """Draw the next page wanted; a page being drawn that is no longer wanted stops."""
        if self._doc is None:
            return
        wanted = self._wanted()
        if self._drawing is not None:
            index, width = self._drawing
            if index in wanted and width == self._px_width(index):
                return
            self._drawer.cancel()
            self._drawing = None
        todo = next((i for i in wanted if not self._fresh(i)), None)
        if todo is None:
            self._read_more_sizes()
            return
        width = self._px_width(todo)
        self._drawing = (todo, width)
        self._drawer.start(_draw, self._doc, todo, width)

    @property
    def sized(self) -> bool:
        """Whether every page's size is read (the layout is final)."""
        return self._sized >= len(self._sizes)

    def _read_more_sizes(self) -> None:
        """The pages in view drawn: read the next sizes (between drawings, in chunks)."""
        if self._doc is None or self.sized or self._sizer.busy:
            return
        self._sizer.start(_read_sizes, self._doc, self._sized, self._sized + SIZES_CHUNK)

    def _on_sizes(self, answer: tuple[int, object]) -> None:
        start, sizes = answer
        if not isinstance(sizes, list) or start != self._sized:
            self._sized = len(self._sizes)  # unreadable: the first page's size stands
            return
        stop = start + len(sizes)
        changed = self._sizes[start:stop] != sizes
        where = self.scroll_position()  # (on the layout shown)
        self._sizes[start:stop] = sizes
        self._sized = stop if sizes else len(self._sizes)
        if changed:  # lay out again, the reader where they were
            self._lay_out()
            self.restore_scroll(where)
            self._pages.viewport().update()
        self._pump()

    def _drawn_nothing(self) -> None:
        self._drawing = None
        self._pump()

    def _on_drawn(self, answer: tuple[int, int, object]) -> None:
        index, width, page = answer
        self._drawing = None
        if isinstance(page, PageImage) and index < len(self._sizes):
            image = QImage(
                bytes(page.rgba), page.width, page.height, page.width * 4,
                QImage.Format.Format_RGBA8888,
            ).copy()  # fmt: skip
            self._keep(index, image, width)
            self.drawn_pages += 1
            self._pages.viewport().update()
        self._pump()

    def _keep(self, index: int, image: QImage, width: int) -> None:
        old = self._cache.pop(index, None)
        if old is not None:
            self._cache_bytes -= old.sizeInBytes()
        self._cache[index] = image
        self._asked[index] = width
        self._cache_bytes += image.sizeInBytes()
        keep = set(self._wanted())
        for page in list(self._cache):
            if self._cache_bytes <= CACHE_BYTES:
                break
            if page not in keep:
                self._cache_bytes -= self._cache.pop(page).sizeInBytes()
                del self._asked[page]

    def paint_pages(self, target: QWidget, area) -> None:
        pal = palette(self._theme)
        painter = QPainter(target)
        painter.fillRect(area, self._backdrop)
        if self._doc is None:
            painter.setPen(QColor(pal.error if self._problem else pal.muted))
            font = QFont(self.font())
            font.setPointSizeF(font.pointSizeF() * 1.2)
            painter.setFont(font)
            name = PurePosixPath(self._rel).name if self._rel else ""
            text = (
                f"⚠ “{name}” cannot be shown: {self._problem}."
                if self._problem
                else (f"Opening “{name}”…" if self._rel else "")
            )
            painter.drawText(
                target.rect().adjusted(24, 24, -24, -24),
                int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap),
                text,
            )
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        for index in self.visible_pages():
            rect = self._page_rect(index)
            painter.fillRect(rect.adjusted(1, 1, 3, 3), QColor(0, 0, 0, 60))  # a shadow
            painter.fillRect(rect, QColor("#ffffff"))  # paper is white in both themes
            image = self._cache.get(index)
            if image is not None:
                painter.drawImage(rect, image)
            else:
                painter.setPen(QColor("#9a9a9a"))
                painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), f"{index + 1}")
        painter.end()

    def _apply_theme(self) -> None:
        # the bar above follows the application's theme; around the pages, a shade darker
        # than the entry pane's paper in the light theme (white pages stand out on it), the
        # pane's own background in the dark one
        pal = palette(self._theme)
        shade = QColor(pal.box_bg)
        self._backdrop = shade.darker(112) if self._theme == "light" else QColor(pal.background)
        self._pages.viewport().update()

    def sizeHint(self) -> QSize:
        return QSize(800, 600)


def _exists(vault: OpenVault, ref: str) -> bool:
    target = vault_file(Path(vault.root).resolve(), ref.partition("#")[0])
    return target is not None and target.is_file()


register(DocumentKind(PDF, PdfView, _exists, "PDF", opens=lambda rel: rel.endswith(".pdf")))
