"""The entry page's Mermaid diagrams, as a layer of the pane (:class:`PageDiagrams`, under
:class:`~anthology.ui.reading.entry_pane.EntryPane`, over :class:`PageLinks`): diagrams drawn
before put in at once, the others drawn off the GUI thread
(:class:`~anthology.ui.reading.diagram_images.DiagramDrawer`) and swapped in as they come, a
failed one replaced by its source and why; a node of class ``internal-link`` hit-tested on
the picture, clicked and pointed at as a link."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QImage, QMouseEvent, QTextDocument

from anthology.ui.reading.diagram_images import (
    DiagramDrawer,
    diagram_image,
    link_in,
    outcome_of,
    picture_at,
    picture_positions,
    replace_pictures,
)
from anthology.ui.reading.page_links import PageLinks
from anthology.vault import EntryLookup
from anthology.vault.render import RenderedEntry, mermaid
from anthology.vault.render.theme import palette


class PageDiagrams(PageLinks):
    """The Mermaid diagrams of a page (see the module's doc)."""

    # what the pane that uses this layer holds and answers
    _diagrams: DiagramDrawer
    _over_node: mermaid.NodeLink | None  # the linked node under the pointer
    _images: dict[str, QImage]
    _resolver: EntryLookup | None
    _theme: str

    if TYPE_CHECKING:

        def _text_width(self) -> int: ...

    def _ask_diagrams(self, rendered: RenderedEntry) -> None:
        """The page's Mermaid diagrams: those drawn before are put in at once, the rest
        are drawn off the GUI thread (:meth:`_on_diagram` puts each in as it comes)."""
        for key, diagram in mermaid.diagrams_of(rendered.resources).items():
            outcome = mermaid.cached(diagram)
            if outcome is None:
                self._diagrams.want(key, diagram)
            else:
                self._place_diagram(key, diagram, outcome)

    def _on_diagram(self, key: str, outcome: object) -> None:
        rendered = self._rendered
        if rendered is None or key not in rendered.resources:
            return  # a diagram of a page no longer shown: it is in the cache for a revisit
        diagram = mermaid.Diagram.from_bytes(rendered.resources[key])
        if diagram is not None and isinstance(outcome, mermaid.Drawn | mermaid.Failed):
            self._place_diagram(key, diagram, outcome)

    def _place_diagram(self, key: str, diagram: mermaid.Diagram, outcome: mermaid.Outcome) -> None:
        """Put a drawn diagram where its placeholder is (laying out only its blocks), or
        the diagram's source and why it could not be drawn."""
        doc = self.document()
        if isinstance(outcome, mermaid.Failed):
            html_ = mermaid.failure_html(palette(self._theme), diagram.source, outcome.reason)
            replace_pictures(doc, key, html_)
            return
        if key in self._images:
            return  # drawn when the page was laid out
        image = diagram_image(outcome, self._text_width(), max(2.0, self.devicePixelRatioF()))
        if image is None:
            return
        self._images[key] = image
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(key), image)
        for at in picture_positions(doc, key):
            doc.markContentsDirty(at, 1)

    def _draw_diagrams_now(self) -> None:
        """For paper (an export the reader asked for, or a script's): the diagrams not
        drawn yet, drawn now, each at most :data:`~anthology.vault.render.mermaid.DRAW_TIMEOUT`."""
        if self._rendered is None:
            return
        wanted = mermaid.diagrams_of(self._rendered.resources)
        if any(mermaid.cached(d) is None for d in wanted.values()):
            self._diagrams.cancel()  # drawn here now: the worker lets go of the renderer
        for key, diagram in wanted.items():
            self._place_diagram(key, diagram, mermaid.draw(diagram))

    @property
    def drawing_diagrams(self) -> bool:
        """Diagrams of the page are being drawn (or waiting to be)."""
        return self._diagrams.busy

    def _diagram_link(self, pos: QPoint) -> mermaid.NodeLink | None:
        """The linked node (``class X internal-link``) of a diagram under ``pos``."""
        if self._rendered is None or not any(
            k.startswith(mermaid.SCHEME) for k in self._rendered.resources
        ):
            return None
        point = QPointF(pos.x() + self.horizontalScrollBar().value(),
                        pos.y() + self.verticalScrollBar().value())  # fmt: skip
        hit = picture_at(self.document(), point)
        if hit is None or not hit[0].startswith(mermaid.SCHEME):
            return None
        _diagram, outcome = outcome_of(self._rendered.resources, hit[0])
        return link_in(outcome, hit[1]) if isinstance(outcome, mermaid.Drawn) else None

    def _diagram_target(self, link: mermaid.NodeLink) -> tuple[str | None, str, str]:
        """(entry id or None when unresolved, heading, the name written) of a node link."""
        name, _sep, heading = link.target.partition("#")
        name = name.strip()
        ref = None
        if self._resolver is not None and self._entry is not None and name:
            try:
                ref = self._resolver.resolve(name, self._entry.path)
            except Exception:  # a failed look-up: the node is shown as unresolved
                ref = None
        return (ref.id if ref is not None else None), heading.strip(), name

    def _follow_diagram_link(self, link: mermaid.NodeLink, new_tab: bool) -> None:
        ident, heading, name = self._diagram_target(link)
        if ident is None:
            self.unresolvedLinkActivated.emit(name)
        elif new_tab:
            self.entryLinkActivatedNewTab.emit(ident, heading)
        else:
            self.entryLinkActivated.emit(ident, heading)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        button = event.button()
        if (
            button in (Qt.MouseButton.LeftButton, Qt.MouseButton.MiddleButton)
            and (node := self._diagram_link(event.position().toPoint())) is not None
        ):
            ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            self._follow_diagram_link(node, button == Qt.MouseButton.MiddleButton or ctrl)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        super().mouseMoveEvent(event)
        node = self._diagram_link(event.position().toPoint())
        if node is not None:
            self.viewport().setCursor(Qt.CursorShape.PointingHandCursor)
            if node == self._over_node:
                return  # looked up when the pointer came onto it
            self._over_node = node
            ident, heading, _name = self._diagram_target(node)
            if ident is not None:
                self._hovered_link = (ident, heading)
                ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
                self.point_at(ident)
                self.linkHovered.emit(ident, heading, ctrl)
            elif self._hovered_link is not None:  # onto a node naming no entry
                self._hovered_link = None
                self.point_at("")
                self.linkLeft.emit()
        elif self._over_node is not None:
            self._over_node = None
            self.viewport().unsetCursor()
            if self._hovered_link is not None:
                self._hovered_link = None
                self.point_at("")
                self.linkLeft.emit()
