"""The bookmarks dock: the vault's bookmarked entries, in the order they were added.

A click opens one, Ctrl+click or a middle-click opens it in a new tab; Delete, the context
menu or the "Remove" button takes it off the list. The list lives in the vault's user
state (the window keeps it); this draws it and forwards."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from anthology.ui.common.new_tab_clicks import NewTabClicks
from anthology.vault import EntryRef, display_labels
from anthology.vault.render.safe_text import MAX_SHOWN_CHARS, plain_text, tooltip_html

ROLE_ID = Qt.ItemDataRole.UserRole


class BookmarksPanel(QWidget):
    entryActivated = Signal(str)
    entryActivatedNewTab = Signal(str)
    removeRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("bookmarksPanel")
        self.summary = QLabel("")
        self.summary.setObjectName("panelTitle")
        # wrapped: its one long line ("No bookmarks yet: …") made the dock 410 px at least,
        # and opening it pushed the entry aside
        self.summary.setWordWrap(True)
        self.list = QListWidget()
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemClicked.connect(self._open)
        self.list.itemActivated.connect(self._open)
        NewTabClicks(self.list, lambda item: self.entryActivatedNewTab.emit(item.data(ROLE_ID)))
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self._remove_current)
        QShortcut(QKeySequence.StandardKey.Delete, self.list, self._remove_current,
                  context=Qt.ShortcutContext.WidgetShortcut)  # fmt: skip
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.summary)
        layout.addWidget(self.list)
        layout.addWidget(self.remove_button)

    def set_bookmarks(self, refs: list[EntryRef]) -> None:
        self.list.clear()
        for ref, label in zip(refs, display_labels(refs), strict=True):
            item = QListWidgetItem(plain_text(label, MAX_SHOWN_CHARS))
            item.setData(ROLE_ID, ref.id)
            item.setToolTip(tooltip_html(ref.path))
            self.list.addItem(item)
        n = len(refs)
        self.summary.setText(f"{n} bookmark{'s' if n != 1 else ''}" if n else
                             "No bookmarks yet: Ctrl+D bookmarks the entry you read")  # fmt: skip
        self.remove_button.setEnabled(bool(n))

    def ids(self) -> list[str]:
        return [self.list.item(i).data(ROLE_ID) for i in range(self.list.count())]

    def _open(self, item: QListWidgetItem) -> None:
        self.entryActivated.emit(item.data(ROLE_ID))

    def _remove_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.removeRequested.emit(item.data(ROLE_ID))

    def _menu(self, at) -> None:
        item = self.list.itemAt(at)
        if item is None:
            return
        menu = QMenu(self)
        menu.addAction("Open", lambda: self.entryActivated.emit(item.data(ROLE_ID)))
        menu.addAction("Open in New Tab",
                       lambda: self.entryActivatedNewTab.emit(item.data(ROLE_ID)))  # fmt: skip
        menu.addAction("Remove Bookmark", lambda: self.removeRequested.emit(item.data(ROLE_ID)))
        menu.exec(self.list.viewport().mapToGlobal(at))
