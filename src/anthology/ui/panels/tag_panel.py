"""The tag pane (View › Tags): the vault's tags as a nested tree with counts; a click
runs the ``tag:`` search. The tree is :func:`anthology.vault.tags.tag_tree`'s; this draws it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from anthology.vault.render.safe_text import plain_text, tooltip_html
from anthology.vault.tags import TagNode

ROLE_TAG = Qt.ItemDataRole.UserRole


class TagPanel(QWidget):
    tagActivated = Signal(str)  # the whole tag ("ml/attention")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tagPanel")
        self.summary = QLabel("")
        self.summary.setObjectName("panelTitle")
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        # the name takes the width, the count only its own (a default first column cut
        # every tag to "#attentio…" however wide the pane)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemClicked.connect(self._activate)
        self.tree.itemActivated.connect(self._activate)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree)

    def set_tags(self, roots: list[TagNode]) -> None:
        expanded = {i.data(0, ROLE_TAG) for i in self._items() if i.isExpanded()}
        self.tree.clear()

        def add(parent: QTreeWidgetItem | QTreeWidget, node: TagNode) -> None:
            # drawn as plain text; the tooltip (rich text) escaped
            name = f"#{node.name}" if parent is self.tree else node.name
            item = QTreeWidgetItem(parent, [plain_text(name, 200), f"{node.count:,}"])
            item.setData(0, ROLE_TAG, node.path)
            item.setToolTip(0, tooltip_html(f"#{node.path}: {node.count} entries"))
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight)
            for child in node.children:
                add(item, child)
            if node.path in expanded:
                item.setExpanded(True)

        for node in roots:
            add(self.tree, node)
        self.tree.resizeColumnToContents(1)
        n = len(roots)
        self.summary.setText(f"{n} tag{'s' if n != 1 else ''}" if n else "No tags")

    def _items(self) -> list[QTreeWidgetItem]:
        out: list[QTreeWidgetItem] = []
        root = self.tree.invisibleRootItem()
        stack = [root.child(i) for i in range(root.childCount())]
        while stack:
            item = stack.pop()
            if item is None:  # Qt's "no item"; never within childCount(), but typed so
                continue
            out.append(item)
            stack += [item.child(k) for k in range(item.childCount())]
        return out

    def _activate(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        tag = item.data(0, ROLE_TAG)
        if tag:
            self.tagActivated.emit(tag)

    def tags(self) -> dict[str, int]:
        """Whole tag → count, every level (what a test or a screen reader asks)."""
        return {i.data(0, ROLE_TAG): int(i.text(1).replace(",", "")) for i in self._items()}

    def item_for(self, tag: str) -> QTreeWidgetItem | None:
        return next((i for i in self._items() if i.data(0, ROLE_TAG) == tag), None)
