"""Page preview: the target of a hovered link (a node, a backlink), rendered, in a popover.

Hovering an internal link for :data:`DELAY_MS` (at once with Ctrl held) shows a frameless,
scrollable popover with the target as the entry pane renders it (title, a line of its
properties, then the linked heading's section, the linked block, or the body; math
typeset): :func:`anthology.vault.render.previews.render_preview`, cached per (entry,
fragment, theme) and rendered on a :class:`TaskRunner` when not cached yet, asking a
:class:`~anthology.vault.shared_reader.SharedReader` (never the window's index, whose lock
the GUI thread takes and which closing the vault closes). The popover
stays while the pointer is on the link or on it, and goes :data:`HIDE_MS` after the
pointer has left both. A click on a link inside it navigates (the window follows it).

The popover is a tool-tip window: it never takes the focus from the pane being read.
"""

from __future__ import annotations

import html
import sqlite3
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

from PySide6.QtCore import QByteArray, QEvent, QObject, QPoint, QRect, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QCursor,
    QEnterEvent,
    QGuiApplication,
    QImage,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QFrame, QTextBrowser, QToolTip, QVBoxLayout, QWidget

from anthology.tasks import TaskState
from anthology.ui.common.math_images import svg_image
from anthology.ui.common.task_runner import TaskRunner
from anthology.ui.reading.diagram_images import (
    DiagramDrawer,
    diagram_image,
    drawing_placeholder,
    outcome_of,
    picture_positions,
    replace_pictures,
)
from anthology.ui.reading.vault_images import load_vault_image, placeholder
from anthology.vault import Entry, EntryLookup
from anthology.vault.related import RelatedEntries
from anthology.vault.render import RenderedEntry, find_heading
from anthology.vault.render.mermaid import Drawn, Failed, failure_html
from anthology.vault.render.previews import cached_preview, render_preview
from anthology.vault.render.related_html import related_section_html
from anthology.vault.render.theme import palette
from anthology.vault.shared_reader import Lend, SharedReader, lend

DELAY_MS = 400  # hover this long over a link before its preview shows
HIDE_MS = 300  # the popover goes this long after the pointer left the link and it
SIZE = (480, 380)  # the popover's largest size (px); a longer page scrolls
MIN_HEIGHT = 80


def _render(
    _state: TaskState,
    entry: Entry,
    lend: Lend,
    fragment: str,
    theme: str,
) -> tuple[tuple[str, str, str], RenderedEntry]:
    """On the runner's thread: pure Python, no widget touched; ``lend()`` is the lookup
    the render asks, held while it renders."""
    with lend() as lookup:
        return (entry.id, fragment, theme), render_preview(
            entry, lookup, fragment=fragment, theme=theme
        )


# What the preview asks for its related entries' section: (ask, interrupt) of a reader of
# the index of the section's own, so that a section superseded (another link hovered, the
# preview hidden) is interrupted without touching the renders' reader; None: no section.
RelatedAsker = Callable[[], tuple[Callable[[str], "RelatedEntries | None"],
                                  Callable[[], None]] | None]  # fmt: skip


def _related(
    _state: TaskState, entry_id: str, ask: Callable[[str], RelatedEntries | None], theme: str
) -> tuple[str, str]:
    """On a runner's thread: the related entries' section of ``entry_id`` ("" for none)."""
    try:
        found = ask(entry_id)
    except sqlite3.Error:  # interrupted (superseded), or the index closed: no section
        return entry_id, ""
    return entry_id, related_section_html(found, palette(theme)) if found else ""


class PreviewBrowser(QTextBrowser):
    """The popover's page: serves the render's formulas and the vault's pictures
    (:mod:`anthology.ui.reading.vault_images`), loads nothing else."""

    linkActivated = Signal(str, str)  # entry id, heading ("" for none)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pagePreviewBrowser")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.rendered: RenderedEntry | None = None
        self.vault_root: Path | None = None  # where its pictures are read (resolved)
        self.anchorClicked.connect(self._on_anchor)
        self._diagrams = DiagramDrawer(self)  # its Mermaid diagrams not drawn before
        self._diagrams.arrived.connect(self._on_diagram)

    def show_rendered(
        self, rendered: RenderedEntry, fragment: str, vault_root: Path | None = None
    ) -> None:
        self._diagrams.cancel()
        self.rendered = rendered
        self.vault_root = Path(vault_root).resolve() if vault_root is not None else None
        pal = palette(rendered.theme)
        self.setStyleSheet(
            f"QTextBrowser#pagePreviewBrowser {{ background-color: {pal.background};"
            f" color: {pal.text}; }}"
        )
        self.document().setDocumentMargin(14)
        self.setHtml(rendered.html)
        self.verticalScrollBar().setValue(0)
        if fragment and not fragment.startswith("^"):
            anchor = find_heading(rendered.headings, fragment)
            if anchor and f'<a name="{html.escape(anchor)}"' in rendered.html:
                self.scrollToAnchor(anchor)

    def add_section(self, section_html: str) -> None:
        """Append ``section_html`` (escaped by its maker) at the end of the page shown."""
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertHtml(section_html)

    def loadResource(self, type_: int, url: QUrl | str) -> object:
        """Our formulas, and the vault's pictures as the pane loads them; never None: Qt
        would read the name as a file of the working folder itself (``./vault:pic.png``)."""
        if int(type_) != int(QTextDocument.ResourceType.ImageResource):
            return QByteArray()
        key = url.toString() if isinstance(url, QUrl) else url
        scheme = key.partition(":")[0].lower()
        image: QImage | None = None
        data = self.rendered.resources.get(key) if self.rendered is not None else None
        if data is not None and scheme in ("math", "figure"):
            image = svg_image(key, data, max(2.0, self.devicePixelRatioF()))
        elif scheme == "mermaid" and self.rendered is not None:
            diagram, outcome = outcome_of(self.rendered.resources, key)
            dpr = max(2.0, self.devicePixelRatioF())
            if isinstance(outcome, Drawn):
                image = diagram_image(outcome, self._column(), dpr)
            elif isinstance(outcome, Failed):
                image = placeholder(self.rendered.theme, self.font(), False)
            elif diagram is not None:
                self._diagrams.want(key, diagram)
                return drawing_placeholder(self.rendered.theme, self.font(), dpr)
        elif scheme == "vault":
            column = max(200, SIZE[0] - 2 * self.document().documentMargin() - 24)
            rel = unquote(key.partition(":")[2].partition("#")[0])
            dpr = max(2.0, self.devicePixelRatioF())
            image = load_vault_image(self.vault_root, rel, int(column), dpr)
        if image is None or image.isNull():
            theme = self.rendered.theme if self.rendered is not None else "light"
            image = placeholder(theme, self.font(), scheme == "vault")
        return image

    def _column(self) -> int:
        return int(max(200, SIZE[0] - 2 * self.document().documentMargin() - 24))

    def _on_diagram(self, key: str, outcome: object) -> None:
        """A diagram drawn for the page shown: put in where its placeholder is (or its
        source and why it could not be drawn, as in the pane)."""
        if self.rendered is None or key not in self.rendered.resources:
            return
        doc = self.document()
        diagram, _known = outcome_of(self.rendered.resources, key)
        if isinstance(outcome, Failed) and diagram is not None:
            pal = palette(self.rendered.theme)
            replace_pictures(doc, key, failure_html(pal, diagram.source, outcome.reason))
            return
        if not isinstance(outcome, Drawn):
            return
        image = diagram_image(outcome, self._column(), max(2.0, self.devicePixelRatioF()))
        if image is None:
            return
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(key), image)
        for at in picture_positions(doc, key):
            doc.markContentsDirty(at, 1)

    def _on_anchor(self, url: QUrl) -> None:
        raw = bytes(url.toEncoded().data()).decode("ascii", "replace")
        scheme, _sep, rest = raw.partition(":")
        if scheme.lower() == "entry":
            path, _h, frag = rest.partition("#")
            self.linkActivated.emit(unquote(path), unquote(frag))


class PagePreview(QFrame):
    """The popover: a frame around a :class:`PreviewBrowser`; says when the pointer comes
    and goes (the controller keeps it while the pointer is on it)."""

    entered = Signal()
    left = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.ToolTip | Qt.WindowType.FramelessWindowHint)
        self.setObjectName("pagePreview")
        self.setFrameShape(QFrame.Shape.Box)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.browser = PreviewBrowser(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(1, 1, 1, 1)
        layout.addWidget(self.browser)
        self.resize(*SIZE)
        self.shown_for: tuple[str, str] | None = None  # (entry id, fragment)

    def enterEvent(self, event: QEnterEvent) -> None:
        self.entered.emit()
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self.left.emit()
        super().leaveEvent(event)

    def text(self) -> str:
        """What the popover shows, as plain text (for tests and screen readers)."""
        return self.browser.toPlainText()


class PreviewController(QObject):
    """When to show the popover and what in it: hover timing, rendering, dismissal."""

    linkActivated = Signal(str, str)  # a link clicked inside the popover
    shown = Signal()  # a preview is on screen: a tooltip would cover it

    def __init__(
        self,
        parent: QWidget,
        entry_of: Callable[[str], Entry | None],
        resolver_of: Callable[[], EntryLookup | None],
        theme_of: Callable[[], str],
        vault_root_of: Callable[[], Path | None] = lambda: None,
        reader_of: Callable[[], SharedReader | None] = lambda: None,
        related_of: RelatedAsker = lambda: None,
    ) -> None:
        """``reader_of()``: what the render off the GUI thread asks (a reader of the index
        ``resolver_of()`` returns); None: the resolver itself (one safe to share).
        ``related_of()``: how the related entries' section is asked (see
        :data:`RelatedAsker`); None, the default: the preview has no such section."""
        super().__init__(parent)
        self._entry_of, self._resolver_of, self._theme_of = entry_of, resolver_of, theme_of
        self._vault_root_of = vault_root_of  # where the previewed pictures are read
        self._reader_of = reader_of
        self._related_of = related_of
        self.popup = PagePreview(parent)
        self.popup.entered.connect(self._hide_timer_stop)
        self.popup.left.connect(self.leave)
        self.popup.browser.linkActivated.connect(self._on_link)
        self._wanted: tuple[str, str] | None = None  # what the pointer is over
        self._at = QPoint()
        self._show_timer = QTimer(self, singleShot=True, interval=DELAY_MS)
        self._show_timer.timeout.connect(self._show_wanted)
        self._hide_timer = QTimer(self, singleShot=True, interval=HIDE_MS)
        self._hide_timer.timeout.connect(self._hide_unless_hovered)
        self._runner = TaskRunner(self)
        self._runner.done.connect(self._on_rendered)
        # The related entries' section, asked once the preview is shown and added under it
        # when found: the preview waits for nothing.
        self._related = TaskRunner(self)
        self._related.done.connect(self._on_related)

    # -- the pointer ---------------------------------------------------------------------
    def hover(self, entry_id: str, fragment: str = "", *, immediate: bool = False) -> None:
        """The pointer is over a link to ``entry_id`` (``fragment``: its heading or
        ``^block``): show its preview after the delay, or now (``immediate``: Ctrl held)."""
        if not entry_id:
            self.leave()
            return
        self._hide_timer.stop()
        self._at = QCursor.pos()
        wanted = (entry_id, fragment)
        if self.popup.isVisible() and self.popup.shown_for == wanted:
            return
        self._wanted = wanted
        if immediate:
            self._show_timer.stop()
            self._show_wanted()
        else:
            self._show_timer.start()

    def leave(self) -> None:
        """The pointer left the link (or the popover): hide soon, unless it comes back."""
        self._show_timer.stop()
        self._wanted = None
        self._runner.cancel()
        if self.popup.isVisible():
            self._hide_timer.start()

    def hide(self) -> None:
        self._show_timer.stop()
        self._hide_timer.stop()
        self._runner.cancel()
        self._related.cancel()
        self._wanted = None
        self.popup.hide()
        self.popup.shown_for = None

    @property
    def visible(self) -> bool:
        return self.popup.isVisible()

    def _hide_timer_stop(self) -> None:
        self._hide_timer.stop()

    def _hide_unless_hovered(self) -> None:
        if self.popup.isVisible() and self.popup.underMouse():
            return
        if self._wanted is None:
            self.popup.hide()
            self.popup.shown_for = None

    # -- rendering -----------------------------------------------------------------------
    def _show_wanted(self) -> None:
        wanted, resolver = self._wanted, self._resolver_of()
        if wanted is None or resolver is None:
            return
        entry_id, fragment = wanted
        try:
            entry = self._entry_of(entry_id)
        except Exception:  # a closed or replaced index: no preview
            entry = None
        if entry is None:
            return
        theme = self._theme_of()
        rendered = cached_preview(entry, resolver, fragment=fragment, theme=theme)
        if rendered is not None:
            self._present(wanted, rendered)
        else:
            self._runner.start(_render, entry, lend(resolver, self._reader_of()), fragment,
                               theme)  # fmt: skip

    def _on_rendered(self, result: tuple[tuple[str, str, str], RenderedEntry]) -> None:
        (entry_id, fragment, _theme), rendered = result
        if (
            self._wanted is not None
            and self._wanted[0] in (entry_id, rendered.entry_id)
            and (self._wanted[1] == fragment)
        ):
            self._present(self._wanted, rendered)

    def _present(self, wanted: tuple[str, str], rendered: RenderedEntry) -> None:
        popup = self.popup
        popup.resize(*SIZE)
        popup.browser.show_rendered(rendered, wanted[1], self._vault_root_of())
        # as high as the page, up to SIZE: a short section gets a short popover (measured
        # on a copy: the browser lays its own out at its viewport's width, not yet final)
        measure = popup.browser.document().clone(popup)
        measure.setTextWidth(SIZE[0] - 2 - popup.browser.verticalScrollBar().sizeHint().width())
        height = min(SIZE[1], max(MIN_HEIGHT, int(measure.size().height()) + 6))
        measure.deleteLater()
        popup.resize(SIZE[0], height)
        popup.shown_for = wanted
        popup.move(self._place(self._at))
        QToolTip.hideText()  # the preview says more than the tooltip, and it covered it
        popup.show()
        popup.raise_()
        self.shown.emit()
        asker = self._related_of()
        if asker is not None:
            ask, interrupt = asker
            state = self._related.start(_related, rendered.entry_id or wanted[0], ask,
                                        rendered.theme)  # fmt: skip
            state.when_cancelled(interrupt)

    def stop_related(self) -> None:
        """Let a section's question running end (interrupted): before its reader closes."""
        self._related.stop()

    def _on_related(self, found: tuple[str, str]) -> None:
        entry_id, section = found
        shown = self.popup.shown_for
        if section and self.popup.isVisible() and shown is not None:
            rendered = self.popup.browser.rendered
            if entry_id in (shown[0], rendered.entry_id if rendered else None):
                self.popup.browser.add_section(section)

    def _place(self, at: QPoint) -> QPoint:
        """Below and right of the pointer, kept on its screen (above or left when there
        is no room)."""
        screen = QGuiApplication.screenAt(at) or QGuiApplication.primaryScreen()
        area = screen.availableGeometry() if screen is not None else QRect(0, 0, 4000, 4000)
        w, h = self.popup.width(), self.popup.height()
        x, y = at.x() + 14, at.y() + 18
        if x + w > area.right():
            x = max(area.left(), at.x() - w - 14)
        if y + h > area.bottom():
            y = max(area.top(), at.y() - h - 12)
        return QPoint(x, y)

    def _on_link(self, entry_id: str, fragment: str) -> None:
        self.hide()
        self.linkActivated.emit(entry_id, fragment)
