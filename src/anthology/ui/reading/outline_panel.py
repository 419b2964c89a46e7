"""The outline (left dock): the active entry's headings as a tree, nested by level.

It reads the headings the renderer found (:attr:`RenderedEntry.headings`: level, text,
anchor) once the pane shows a page, and follows the pane: a click on a heading scrolls the
pane there (:meth:`EntryPane.scroll_to_heading`), and the heading whose section is at the
top of the pane is highlighted as the reader scrolls. Where each heading stands in the laid
out page is measured once per page and width (its block carries the heading's ``<a name>``;
past the renderer's anchor budget the text tells it), not at every scroll step.
"""

from __future__ import annotations

import bisect
import html

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from anthology.session.pages import heading_key
from anthology.ui.reading.entry_pane import EntryPane
from anthology.vault.render import RenderedEntry
from anthology.vault.render.safe_text import plain_text, tooltip_html

ROLE_ANCHOR = Qt.ItemDataRole.UserRole
MAX_OUTLINE_HEADINGS = 2000  # a generated file with 50,000 headings is not an outline
FOLLOW_DELAY_MS = 30  # scroll steps coalesced before the highlight moves
READING_LINE_PX = 24  # a heading at least this close below the pane's top counts as reached
READING_LINE_SHARE = 0.25  # …or within the top quarter of the view: where the reader reads


def _key(text: str) -> str:
    return heading_key(text)  # the block's fold marker left out


def heading_tops(pane: EntryPane, headings: list[tuple[int, str, str]]) -> list[int]:
    """The y of each heading's block in ``pane``'s laid-out page (-1 where none is found),
    matched in order: by the block's anchor, else by its text."""
    doc = pane.document()
    layout = doc.documentLayout()
    blocks: list[tuple[set[str], str, int]] = []  # (anchor names, text key, top)
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().headingLevel():
            names: set[str] = set()
            it = block.begin()
            while not it.atEnd():
                names.update(it.fragment().charFormat().anchorNames())
                it += 1
            blocks.append((names, _key(block.text()), int(layout.blockBoundingRect(block).top())))
        block = block.next()
    tops: list[int] = []
    j = 0
    for _level, text, anchor in headings:
        key = _key(text)
        for k in range(j, len(blocks)):
            names, block_key, top = blocks[k]
            if anchor in names or (not names and block_key == key):
                tops.append(top)
                j = k + 1
                break
        else:
            tops.append(-1)
    return tops


class OutlinePanel(QWidget):
    """Headings of the pane it follows (:meth:`follow`); ``headingActivated(anchor)``."""

    headingActivated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outlinePanel")
        self.tree = QTreeWidget()
        self.tree.setObjectName("outlineTree")
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setIndentation(12)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.itemClicked.connect(self._on_clicked)
        self.tree.itemActivated.connect(self._on_clicked)
        self.empty = QLabel("No headings in this entry")
        self.empty.setObjectName("panelTitle")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.addWidget(self.tree)
        layout.addWidget(self.empty)
        self.empty.hide()
        self._pane: EntryPane | None = None
        self._rendered: RenderedEntry | None = None
        self._items: list[QTreeWidgetItem] = []  # in document order
        self._tops: list[int] | None = None  # measured lazily, for one page at one width
        self._tops_for: tuple[int, int] = (0, 0)  # (page id, document width) measured
        self._timer = QTimer(self, singleShot=True, interval=FOLLOW_DELAY_MS)
        self._timer.timeout.connect(self.update_current)

    # -- following a pane ---------------------------------------------------------------------
    def follow(self, pane: EntryPane | None) -> None:
        """Show ``pane``'s headings and track its scrolling (the active tab's pane)."""
        if pane is not self._pane:
            if self._pane is not None:
                try:
                    self._pane.renderFinished.disconnect(self._on_render_finished)
                    self._pane.verticalScrollBar().valueChanged.disconnect(self._timer.start)
                except (RuntimeError, TypeError):  # the pane was deleted meanwhile
                    pass
            self._pane = pane
            if pane is not None:
                pane.renderFinished.connect(self._on_render_finished)
                pane.verticalScrollBar().valueChanged.connect(self._timer.start)
        self.refresh()

    def _on_render_finished(self, _entry_id: str) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Rebuild from the followed pane's page (after a render, a tab switch)."""
        rendered = self._pane.rendered if self._pane is not None else None
        if rendered is self._rendered and rendered is not None and self._items:
            self._timer.start()
            return
        self._rendered = rendered
        self._tops = None
        self.tree.clear()
        self._items = []
        headings = rendered.headings[:MAX_OUTLINE_HEADINGS] if rendered else []
        stack: list[tuple[int, QTreeWidgetItem]] = []  # (level, item) of open parents
        for level, text, anchor in headings:
            while stack and stack[-1][0] >= level:
                stack.pop()
            label = plain_text(html.unescape(text), 200) or "(untitled)"
            item = QTreeWidgetItem([label])
            item.setData(0, ROLE_ANCHOR, anchor or text)
            item.setToolTip(0, tooltip_html(label))
            if stack:
                stack[-1][1].addChild(item)
            else:
                self.tree.addTopLevelItem(item)
            stack.append((level, item))
            self._items.append(item)
        self.tree.expandAll()
        self.tree.setVisible(bool(self._items))
        self.empty.setVisible(not self._items and rendered is not None)
        self._timer.start()  # the highlight: measured once the page is painted

    def headings(self) -> list[str]:
        """The headings listed, in document order (what a test reads)."""
        return [item.text(0) for item in self._items]

    def item(self, text: str) -> QTreeWidgetItem | None:
        return next((i for i in self._items if i.text(0) == text), None)

    # -- clicks and the reading position ------------------------------------------------------
    def _on_clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        anchor = item.data(0, ROLE_ANCHOR)
        if anchor:
            self.headingActivated.emit(str(anchor))
            self.update_current()

    def _measured_tops(self) -> list[int]:
        pane, rendered = self._pane, self._rendered
        if pane is None or rendered is None:
            return []
        key = (id(rendered), int(pane.document().size().width()))
        if self._tops is None or self._tops_for != key:
            self._tops = heading_tops(pane, rendered.headings[: len(self._items)])
            self._tops_for = key
        return self._tops

    def current_heading(self) -> str | None:
        """The heading whose section holds the top of the pane's view, if any."""
        item = self._current_item()
        return item.text(0) if item is not None else None

    def _current_item(self) -> QTreeWidgetItem | None:
        if self._pane is None or not self._items:
            return None
        tops = self._measured_tops()
        bar = self._pane.verticalScrollBar()
        view = self._pane.viewport().height()
        # The reading line: a quarter down the view (the top edge lagged a section behind
        # what the reader reads); at the end of the page, its bottom (the last sections
        # can never reach the top).
        y = bar.value() + max(READING_LINE_PX, int(view * READING_LINE_SHARE))
        if bar.maximum() > 0 and bar.value() >= bar.maximum():
            y = bar.value() + view
        found = [(top, i) for i, top in enumerate(tops) if top >= 0]
        at = bisect.bisect_right([t for t, _ in found], y) - 1
        return self._items[found[at][1]] if at >= 0 else None

    def update_current(self) -> None:
        """Highlight the heading under the reading position (and keep it in view)."""
        item = self._current_item()
        if item is None:
            self.tree.clearSelection()
            return
        if self.tree.currentItem() is not item or not item.isSelected():
            self.tree.setCurrentItem(item)
            self.tree.scrollToItem(item)
