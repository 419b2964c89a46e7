"""The pages of PDFs an entry embeds (``<img src="pdf:…">``, see
:mod:`anthology.vault.render.pdf_embed`), drawn off the GUI thread for a widget showing the
render.

Asked for a page (:meth:`PdfPictures.picture`, from ``loadResource`` during the layout), it
answers at once with a blank page of the size the page will have — a few kilobytes, drawn
at a quarter of a pixel per pixel, so the layout is final and nothing jumps — and queues
the drawing. A :class:`~anthology.ui.common.task_runner.TaskRunner` draws the queued pages
one at a time (PDFium is serialised anyway: :data:`anthology.vault.pdf.PDFIUM_LOCK`);
each drawn page is handed to the widget by :attr:`PdfPictures.drawn` (its source and the
picture), which swaps it in (same size: no new layout) and kept in a small cache bounded
by bytes, so a revisit has it at once. The widget's next page replaces the queue
(:meth:`PdfPictures.refill`): pages of an entry left are not drawn.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen

from anthology.tasks import TaskState
from anthology.ui.common.task_runner import TaskRunner
from anthology.vault.pdf import PageImage, PdfError, render_page
from anthology.vault.render.pdf_embed import parse_page_source

EMBED_PAGE_PIXELS = 6_000_000  # one embedded page drawn: 24 MB at most (a Letter page
# 760 px wide at 2x is 3 M px)
CACHE_BYTES = 96 * 1024 * 1024  # drawn pages kept across revisits
MAX_PAGE_HEIGHT = 2000  # px: a page taller than this (at the column's width) is narrower
_PLACEHOLDER_RATIO = 0.25  # pixels per logical pixel of the blank page shown meanwhile
_PENDING = "anthology-pdf-pending"  # QImage text key marking a blank page


def page_box(size: tuple[float, float], column: int, height: int | None) -> tuple[int, int]:
    """The logical size (px) of a page of ``size`` points shown in a ``column`` px wide:
    the column's width, or ``height`` px high (``#height=``), never wider than the column
    nor taller than :data:`MAX_PAGE_HEIGHT`."""
    w, h = max(1.0, size[0]), max(1.0, size[1])
    width = float(column)
    if height:
        width = min(width, height * w / h)
    width = min(width, MAX_PAGE_HEIGHT * w / h)
    return max(16, round(width)), max(16, round(width * h / w))


def blank_page(box: tuple[int, int]) -> QImage:
    """A white page with a grey frame, ``box`` logical px, at a quarter of the pixels."""
    ratio = _PLACEHOLDER_RATIO
    image = QImage(
        QSize(max(4, round(box[0] * ratio)), max(4, round(box[1] * ratio))),
        QImage.Format.Format_RGB32,
    )
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    painter.setPen(QPen(QColor("#c8c8c8"), 1))
    painter.drawRect(0, 0, image.width() - 1, image.height() - 1)
    painter.end()
    image.setDevicePixelRatio(image.width() / box[0])
    image.setText(_PENDING, "1")
    return image


def is_pending(image: QImage) -> bool:
    """Whether ``image`` is a blank page still to be drawn."""
    return image.text(_PENDING) == "1"


def page_picture(page: PageImage, box: tuple[int, int]) -> QImage:
    """A drawn page as a picture ``box`` logical px wide (its pixel ratio set so)."""
    image = QImage(
        bytes(page.rgba), page.width, page.height, page.width * 4, QImage.Format.Format_RGBA8888
    ).copy()  # its own pixels: the buffer goes with the worker's answer
    image.setDevicePixelRatio(page.width / box[0])
    return image


def _draw(
    state: TaskState, source: str, root: Path, rel: str, index: int, width_px: int
) -> tuple[str, int, object]:
    """On a worker: page ``index`` of ``rel`` drawn ``width_px`` wide (cancellable between
    strips), or the reason it could not be."""
    try:
        page: object = render_page(
            root, rel, index, width_px, max_pixels=EMBED_PAGE_PIXELS, check=state.check
        )
    except PdfError as exc:
        page = str(exc)
    return source, width_px, page


class PdfPictures(QObject):
    """Embedded PDF pages for one widget (see the module docstring)."""

    drawn = Signal(str, QImage)  # the picture's source, the drawn page

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._queue: OrderedDict[str, tuple[Path, str, int, int, tuple[int, int]]] = OrderedDict()
        self._cache: OrderedDict[tuple[str, int], QImage] = OrderedDict()
        self._cache_bytes = 0
        self._boxes: dict[tuple[str, int], tuple[int, int]] = {}  # job → its logical size
        self._runner = TaskRunner(self)
        self._runner.done.connect(self._on_drawn)
        self._runner.error.connect(self._on_error)
        self._running: str | None = None
        # every page asked for, as last asked (a page kept and shown again is redrawn so)
        self._asked: dict[str, tuple[Path, str, int, int, tuple[int, int]]] = {}

    @property
    def busy(self) -> bool:
        return bool(self._queue) or self._running is not None

    def picture(self, source: str, root: Path | None, column: int, dpr: float) -> QImage | None:
        """The picture for ``source`` (a ``pdf:`` source) in a ``column`` px wide: the
        drawn page when it is kept, else a blank page of its size (the drawing queued).
        None when ``source`` names no page."""
        parsed = parse_page_source(source)
        if parsed is None or root is None:
            return None
        rel, page, size, height = parsed
        box = page_box(size, column, height)
        width_px = max(1, round(box[0] * dpr))
        kept = self._cache.get((source, width_px))
        if kept is not None:
            self._cache.move_to_end((source, width_px))
            return kept
        self._asked[source] = self._queue[source] = (root, rel, page - 1, width_px, box)
        self._pump()
        return blank_page(box)

    def refill(self, shown: dict[str, QImage]) -> None:
        """The widget now shows a page whose pictures are ``shown``: only its blank pages
        are drawn from now on (those of a page left are dropped from the queue), and those
        drawn meanwhile are handed over at once."""
        pending = {k for k, image in shown.items() if k.startswith("pdf:") and is_pending(image)}
        for key in [k for k in self._queue if k not in pending]:
            del self._queue[key]
        for key in pending:
            job = self._asked.get(key)
            if job is None:
                continue
            hit = self._cache.get((key, job[3]))
            if hit is not None:
                self.drawn.emit(key, hit)
            elif key not in self._queue and key != self._running:
                self._queue[key] = job
        self._pump()

    def cancel(self) -> None:
        """Draw nothing more (the widget closes or reads another vault)."""
        self._queue.clear()
        self._asked.clear()
        self._runner.cancel()
        self._running = None

    def _pump(self) -> None:
        if self._running is not None or not self._queue:
            return
        source, (root, rel, index, width_px, box) = self._queue.popitem(last=False)
        self._running = source
        self._boxes[(source, width_px)] = box
        self._runner.start(_draw, source, root, rel, index, width_px)

    def _on_drawn(self, answer: tuple[str, int, object]) -> None:
        source, width_px, page = answer
        self._running = None
        box = self._boxes.pop((source, width_px), None)
        if isinstance(page, PageImage) and box is not None:
            image = page_picture(page, box)
            self._keep((source, width_px), image)
            self.drawn.emit(source, image)
        elif box is not None:  # the file changed since the render: say so on the page
            self.drawn.emit(source, _failed_page(box, str(page)))
        self._pump()

    def _on_error(self, _exc: object) -> None:  # a bug in the drawing: the next page
        self._running = None
        self._pump()

    def _keep(self, key: tuple[str, int], image: QImage) -> None:
        self._cache[key] = image
        self._cache_bytes += image.sizeInBytes()
        while self._cache_bytes > CACHE_BYTES and len(self._cache) > 1:
            _old, dropped = self._cache.popitem(last=False)
            self._cache_bytes -= dropped.sizeInBytes()


def _failed_page(box: tuple[int, int], reason: str) -> QImage:
    """A page that could not be drawn after all: its frame and the reason."""
    image = QImage(QSize(box[0], box[1]), QImage.Format.Format_RGB32)
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    painter.setPen(QColor("#a33"))
    painter.drawRect(0, 0, box[0] - 1, box[1] - 1)
    painter.drawText(
        image.rect().adjusted(12, 12, -12, -12),
        int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap),
        f"This page could not be drawn: {reason}",
    )
    painter.end()
    return image
