"""What the Related and Relations docks share: a title, a muted line saying why there is
nothing (or what was left out), and a tree of entries whose rows open on a click (a new tab
on Ctrl+click or a middle click)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from anthology.ui.common.new_tab_clicks import NewTabClicks
from anthology.vault.render.safe_text import plain_text

ROLE_ID = Qt.ItemDataRole.UserRole  # the entry a row opens ("" or None: a heading row)


class EntryTreePanel(QWidget):
    entryActivated = Signal(str)
    entryActivatedNewTab = Signal(str)  # a row Ctrl+clicked or middle-clicked

    def __init__(self, title: str, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.title = QLabel(title)
        self.title.setObjectName("panelTitle")
        self.title.setWordWrap(True)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setContentsMargins(6, 0, 6, 4)
        self.status.setEnabled(False)  # drawn in the muted text colour
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.itemClicked.connect(self._open)
        self.tree.itemActivated.connect(self._open)
        NewTabClicks(self.tree, self._open_new_tab)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.status)
        layout.addWidget(self.tree, 1)

    def _say(self, text: str) -> None:
        self.status.setText(plain_text(text, 2000))
        self.status.setVisible(bool(text))

    def _open(self, item: QTreeWidgetItem) -> None:
        entry_id = item.data(0, ROLE_ID)
        if entry_id:
            self.entryActivated.emit(entry_id)

    def _open_new_tab(self, index: QModelIndex) -> None:
        entry_id = index.data(ROLE_ID)
        if entry_id:
            self.entryActivatedNewTab.emit(entry_id)


def top_items(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    """The tree's top-level items, in order."""
    return [t for i in range(tree.topLevelItemCount()) if (t := tree.topLevelItem(i)) is not None]


def children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    """``item``'s children, in order."""
    return [c for k in range(item.childCount()) if (c := item.child(k)) is not None]
