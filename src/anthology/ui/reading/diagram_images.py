"""Mermaid diagrams on a page (``<img src="mermaid:…">``, see
:mod:`anthology.vault.render.mermaid`): drawn off the GUI thread, shown as they come.

A page names its diagrams; the view shows a "Drawing diagram…" placeholder for each one not
drawn yet and asks a :class:`DiagramDrawer`, which draws them one after another on a
:class:`~anthology.ui.common.task_runner.TaskRunner` (each in the drawing process, at most
:data:`~anthology.vault.render.mermaid.DRAW_TIMEOUT` seconds) and says ``arrived(key,
outcome)`` on the GUI thread for each. The view then swaps the picture in
(:func:`diagram_image`) or, for a diagram that cannot be drawn, writes its source and the
reason where the placeholder was (:func:`replace_pictures`). Cancelling the drawer (the
reader left the entry) kills a drawing under way.
"""

from __future__ import annotations

from typing import Any, cast

from PySide6.QtCore import QObject, QPointF, QSize, Qt, QThread, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QTextCursor, QTextDocument, QTextLine

from anthology.tasks import TaskState
from anthology.ui.common.task_runner import TaskRunner
from anthology.vault.render import mermaid
from anthology.vault.render.mermaid import Diagram, Drawn, NodeLink, Outcome
from anthology.vault.render.theme import palette


def diagram_image(drawn: Drawn, column: float, dpr: float) -> QImage | None:
    """The drawn diagram at its laid-out size, never wider than ``column`` px, with
    ``dpr`` device pixels per px (scaled down smoothly from the drawing when smaller)."""
    image = QImage.fromData(drawn.png)
    if image.isNull():
        return None
    width, _height = mermaid.display_size(drawn, column)
    target = max(1, round(width * dpr))
    if image.width() > target:
        image = image.scaledToWidth(target, Qt.TransformationMode.SmoothTransformation)
    image.setDevicePixelRatio(image.width() / width)
    return image


def drawing_placeholder(theme: str, font: QFont, dpr: float) -> QImage:
    """What stands for a diagram being drawn: a low box saying so."""
    pal = palette(theme)
    size = QSize(240, 56)
    image = QImage(size * dpr, QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(dpr)
    image.fill(QColor(pal.box_bg))
    painter = QPainter(image)
    painter.setPen(QColor(pal.box_border))
    painter.drawRect(0, 0, size.width() - 1, size.height() - 1)
    small = QFont(font)
    small.setPointSizeF(9)
    painter.setFont(small)
    painter.setPen(QColor(pal.muted))
    painter.drawText(0, 0, size.width(), size.height(), int(Qt.AlignmentFlag.AlignCenter),
                     "Drawing diagram…")  # fmt: skip
    painter.end()
    return image


def picture_positions(doc: QTextDocument, key: str) -> list[int]:
    """Where the pictures named ``key`` are in ``doc`` (one character each)."""
    found: list[int] = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            fmt = frag.charFormat()
            if fmt.isImageFormat() and fmt.toImageFormat().name() == key:
                found.extend(range(frag.position(), frag.position() + frag.length()))
            it += 1
        block = block.next()
    return found


def replace_pictures(doc: QTextDocument, key: str, html: str) -> int:
    """Write ``html`` where each picture named ``key`` is; how many were replaced."""
    positions = picture_positions(doc, key)
    for at in reversed(positions):
        cursor = QTextCursor(doc)
        cursor.setPosition(at)
        cursor.setPosition(at + 1, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertHtml(html)
    return len(positions)


def picture_at(doc: QTextDocument, point: QPointF) -> tuple[str, QPointF] | None:
    """The picture of ``doc`` under ``point`` (document coordinates): its name and where
    in it, as fractions of its width and height; None off any picture."""
    layout = doc.documentLayout()
    hit = layout.hitTest(point, Qt.HitTestAccuracy.FuzzyHit)
    if hit < 0:
        return None
    last = doc.characterCount() - 1
    for at in (hit, hit - 1):
        if not 0 <= at < last:
            continue
        cursor = QTextCursor(doc)
        cursor.setPosition(at + 1)
        fmt = cursor.charFormat()
        if not fmt.isImageFormat():
            continue
        name = fmt.toImageFormat().name()
        image = doc.resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
        if not isinstance(image, QImage) or image.isNull():
            continue
        width = image.width() / image.devicePixelRatio()
        height = image.height() / image.devicePixelRatio()
        block = doc.findBlock(at)
        text_layout = block.layout()
        rel = at - block.position()
        line = text_layout.lineForTextPosition(rel)
        if not line.isValid():
            continue
        origin = layout.blockBoundingRect(block).topLeft()
        left = origin.x() + line_x(line, rel)
        # the picture stands on the line's baseline
        top = origin.y() + line.y() + line.ascent() - height
        fx, fy = (point.x() - left) / width, (point.y() - top) / height
        if 0 <= fx <= 1 and 0 <= fy <= 1:
            return name, QPointF(fx, fy)
    return None


def line_x(line: QTextLine, rel: int) -> float:
    """Where character ``rel`` of its block starts on ``line`` (PySide gives the x, and
    the cursor position with it)."""
    x = cast(Any, line.cursorToX(rel))
    return float(x[0] if isinstance(x, tuple) else x)


def link_in(drawn: Drawn, where: QPointF) -> NodeLink | None:
    return next((link for link in drawn.links if link.contains(where.x(), where.y())), None)


def _draw_all(state: TaskState, diagrams: list[tuple[str, Diagram]]) -> None:
    """On a worker: each diagram in turn, handed over as it is drawn."""
    for key, diagram in diagrams:
        state.check()
        state.set_partial((key, mermaid.draw(diagram, state)))


class DiagramDrawer(QObject):
    """Draws the diagrams a view asks for, one batch at a time, in the order asked."""

    arrived = Signal(str, object)  # key, Drawn | Failed

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # low priority: the page's text is laid out and painted first
        self._runner = TaskRunner(self, priority=QThread.Priority.LowPriority)
        self._runner.partial.connect(self._on_partial)
        self._runner.finished.connect(self._next)
        self._runner.error.connect(self._on_error)
        self._wanted: dict[str, Diagram] = {}  # asked for, not sent yet
        self._sent: set[str] = set()  # in the batch being drawn
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)  # the asks of one page go as one batch
        self._timer.timeout.connect(self._next)

    @property
    def busy(self) -> bool:
        """Diagrams asked for have not all come yet."""
        return bool(self._wanted or self._sent)

    def want(self, key: str, diagram: Diagram) -> None:
        if key in self._sent or key in self._wanted:
            return
        self._wanted[key] = diagram
        self._timer.start()

    def cancel(self) -> None:
        """Forget what is asked and stop the drawing under way (its process is killed)."""
        self._wanted.clear()
        self._sent.clear()
        self._timer.stop()
        self._runner.cancel()

    def _next(self) -> None:
        if self._runner.busy or not self._wanted:
            return
        batch = list(self._wanted.items())
        self._wanted.clear()
        self._sent = {key for key, _ in batch}
        self._runner.start(_draw_all, batch)

    def _on_error(self, _exc: object) -> None:
        self._sent.clear()  # a bug in drawing: those diagrams stay placeholders

    def _on_partial(self, answer: object) -> None:
        key, outcome = cast(tuple[str, Outcome], answer)
        self._sent.discard(key)
        self.arrived.emit(key, outcome)


def outcome_of(resources: dict[str, bytes], key: str) -> tuple[Diagram | None, Outcome | None]:
    """The diagram a page names by ``key`` and what is known of it without drawing."""
    data = resources.get(key)
    diagram = Diagram.from_bytes(data) if data is not None else None
    return diagram, (mermaid.cached(diagram) if diagram is not None else None)
