"""The file explorer (left dock, Ctrl+Shift+E): the vault's folders and entries as a tree.

Entries are shown by their labels (:func:`anthology.vault.display_labels`: the title, or
``ID — Title`` where the id says something), folders first, then entries, each in natural
order (``Note 2`` before ``Note 10``), every folder with the number of entries under it.
Attachments are listed only when asked (View › Show Attachments in the panel's menu).

The tree is built in one pass from two questions to the index (every entry, every
attachment path): a :class:`QStandardItemModel` of about one item a file, under a
:class:`QSortFilterProxyModel` whose recursive filtering keeps the folders of a match
visible. 10,000 entries build in a fraction of a second and filter as the reader types.

What the reader opened and closed is theirs: the expanded folders (by path) and the
attachments switch are handed to the window (:attr:`FileExplorer.viewChanged`), which keeps
them in the vault's user state (``explorer.view``).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from anthology.ui.new_tab_clicks import NewTabClicks
from anthology.vault import EntryRef, display_labels
from anthology.vault.render.safe_text import plain_text

ROLE_KIND = Qt.ItemDataRole.UserRole + 1  # "folder", "entry" or "attachment"
ROLE_KEY = Qt.ItemDataRole.UserRole + 2  # an entry's id; a folder's or attachment's path
ROLE_MATCH = Qt.ItemDataRole.UserRole + 3  # the casefolded text the filter looks in
FOLDER, ENTRY, ATTACHMENT = "folder", "entry", "attachment"
FILTER_DELAY_MS = 120
_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key reading runs of digits as numbers: ``Note 2`` before ``Note 10``."""
    return tuple(int(p) if p.isdigit() else p for p in _DIGITS.split(text.casefold()))


class _Folder:
    """A folder while the tree is built: its subfolders, entries and attachments."""

    __slots__ = ("attachments", "entries", "folders")

    def __init__(self) -> None:
        self.folders: dict[str, _Folder] = {}
        self.entries: list[EntryRef] = []
        self.attachments: list[str] = []

    def folder(self, path: str) -> _Folder:
        node = self
        for part in path.split("/") if path else ():
            node = node.folders.setdefault(part, _Folder())
        return node


class ExplorerFilter(QSortFilterProxyModel):
    """Hides attachments unless asked; with a query, keeps the rows whose text holds every
    word of it (and, through recursive filtering, the folders above them)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self.show_attachments = False
        self.words: list[str] = []

    def set_query(self, query: str) -> None:
        self.beginFilterChange()
        self.words = query.casefold().split()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_show_attachments(self, show: bool) -> None:
        self.beginFilterChange()
        self.show_attachments = show
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, row: int, parent: QModelIndex) -> bool:
        index = self.sourceModel().index(row, 0, parent)
        kind = index.data(ROLE_KIND)
        if kind == ATTACHMENT and not self.show_attachments:
            return False
        if not self.words:
            return True
        text = index.data(ROLE_MATCH) or ""
        return all(w in text for w in self.words)


class _MutedDelegate(QStyledItemDelegate):
    """Folder counts and attachments in the theme's muted colour (it follows the theme)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        super().initStyleOption(option, index)
        if index.column() == 1 or index.data(ROLE_KIND) == ATTACHMENT:
            muted = option.palette.color(QPalette.ColorRole.PlaceholderText)
            option.palette.setColor(QPalette.ColorRole.Text, muted)


class FileExplorer(QWidget):
    """The explorer panel: a filter box, a tree, a switch for attachments."""

    entryActivated = Signal(str)
    entryActivatedNewTab = Signal(str)
    attachmentActivated = Signal(str)  # vault-relative path
    viewChanged = Signal(dict)  # what the user state keeps (see view_state)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fileExplorer")
        self.box = QLineEdit()
        self.box.setObjectName("explorerFilter")
        self.box.setPlaceholderText("Filter files…")
        self.box.setClearButtonEnabled(True)
        self.attachments_button = QToolButton()
        self.attachments_button.setObjectName("explorerAttachments")
        # a standard icon: an emoji has no glyph in many systems' fonts
        self.attachments_button.setIcon(
            self.style().standardIcon(QStyle.StandardPixmap.SP_FileIcon)
        )
        self.attachments_button.setCheckable(True)
        self.attachments_button.setToolTip("Show attachments (images, PDFs, …) beside entries")
        self.collapse_button = QToolButton()
        self.collapse_button.setText("⊟")
        self.collapse_button.setToolTip("Collapse all folders")
        self.collapse_button.clicked.connect(self.collapse_all)

        self.model = QStandardItemModel(self)
        self.proxy = ExplorerFilter(self)
        self.proxy.setSourceModel(self.model)
        self.tree = QTreeView()
        self.tree.setObjectName("explorerTree")
        self.tree.setModel(self.proxy)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)  # lays out 10,000 rows without measuring each
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setIndentation(14)
        self.tree.setItemDelegate(_MutedDelegate(self.tree))
        self.tree.header().setStretchLastSection(False)
        self.tree.clicked.connect(self._open)
        self.tree.activated.connect(self._open)
        self.tree.expanded.connect(lambda i: self._on_expansion(i, True))
        self.tree.collapsed.connect(lambda i: self._on_expansion(i, False))
        NewTabClicks(self.tree, self._open_new_tab)

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.box, 1)
        row.addWidget(self.attachments_button)
        row.addWidget(self.collapse_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.addLayout(row)
        layout.addWidget(self.tree)

        self._by_id: dict[str, QStandardItem] = {}
        self._by_folder: dict[str, QStandardItem] = {}
        self.expanded: set[str] = set()  # folder paths the reader opened
        self._applying = False  # expansions made by the filter or a rebuild are not the reader's
        self._current: str | None = None
        self._timer = QTimer(self, singleShot=True, interval=FILTER_DELAY_MS)
        self._timer.timeout.connect(self.apply_filter)
        self.box.textChanged.connect(lambda _t: self._timer.start())
        self.attachments_button.toggled.connect(self._on_attachments_toggled)

    # -- building -----------------------------------------------------------------------------
    def set_entries(self, refs: list[EntryRef], attachments: list[str]) -> None:
        """Build the tree of ``refs`` and ``attachments`` (vault-relative paths), keeping
        the expanded folders, the filter and the current entry."""
        root = _Folder()
        for r in refs:
            root.folder(posixpath.dirname(r.path)).entries.append(r)
        for path in attachments:
            root.folder(posixpath.dirname(path)).attachments.append(path)
        self._applying = True
        try:
            self.model.clear()
            self.model.setColumnCount(2)
            self._by_id.clear()
            self._by_folder.clear()
            self._fill(self.model.invisibleRootItem(), root, "")
            header = self.tree.header()  # its sections are new: the modes are set again
            header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
            header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
            self.proxy.set_query(self.box.text())
            self._restore_expansion()
        finally:
            self._applying = False
        if self._current:
            self.reveal(self._current)

    def _fill(self, parent: QStandardItem, folder: _Folder, path: str) -> int:
        """Add ``folder``'s rows under ``parent``; returns how many entries it holds."""
        total = len(folder.entries)
        rows: list[list[QStandardItem]] = []
        for name in sorted(folder.folders, key=natural_key):
            sub_path = f"{path}/{name}" if path else name
            item = QStandardItem(name)
            item.setData(FOLDER, ROLE_KIND)
            item.setData(sub_path, ROLE_KEY)
            item.setData(name.casefold(), ROLE_MATCH)
            item.setToolTip(plain_text(sub_path, 300))
            count = self._fill(item, folder.folders[name], sub_path)
            total += count
            number = QStandardItem(str(count))
            number.setData(FOLDER, ROLE_KIND)
            number.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self._by_folder[sub_path] = item
            rows.append([item, number])
        labels = display_labels(folder.entries)
        for label, r in sorted(zip(labels, folder.entries, strict=True),
                               key=lambda p: natural_key(p[0])):  # fmt: skip
            shown = plain_text(label, 200)
            item = QStandardItem(shown)
            item.setData(ENTRY, ROLE_KIND)
            item.setData(r.id, ROLE_KEY)
            item.setData(f"{shown} {posixpath.basename(r.path)}".casefold(), ROLE_MATCH)
            item.setToolTip(plain_text(r.path, 300))
            self._by_id[r.id] = item
            rows.append([item])
        for a in sorted(folder.attachments, key=lambda p: natural_key(posixpath.basename(p))):
            name = plain_text(posixpath.basename(a), 200)
            item = QStandardItem(name)
            item.setData(ATTACHMENT, ROLE_KIND)
            item.setData(a, ROLE_KEY)
            item.setData(name.casefold(), ROLE_MATCH)
            item.setToolTip(plain_text(a, 300))
            rows.append([item])
        for row in rows:
            parent.appendRow(row)
        return total

    # -- what the reader does -----------------------------------------------------------------
    def _open(self, index: QModelIndex) -> None:
        index = index.siblingAtColumn(0)
        kind, key = index.data(ROLE_KIND), index.data(ROLE_KEY)
        if kind == ENTRY:
            self.entryActivated.emit(key)
        elif kind == ATTACHMENT:
            self.attachmentActivated.emit(key)
        elif kind == FOLDER:
            self.tree.setExpanded(index, not self.tree.isExpanded(index))

    def _open_new_tab(self, index: QModelIndex) -> None:
        index = index.siblingAtColumn(0)
        if index.data(ROLE_KIND) == ENTRY:
            self.entryActivatedNewTab.emit(index.data(ROLE_KEY))

    def _on_expansion(self, index: QModelIndex, opened: bool) -> None:
        if self._applying or self.proxy.words:
            return  # a filter's or a rebuild's, not the reader's
        path = index.siblingAtColumn(0).data(ROLE_KEY)
        if index.data(ROLE_KIND) != FOLDER or not path:
            return
        if opened:
            self.expanded.add(path)
        else:
            self.expanded.discard(path)
        self.viewChanged.emit(self.view_state())

    def _on_attachments_toggled(self, show: bool) -> None:
        self.proxy.set_show_attachments(show)
        self._after_filter()
        self.viewChanged.emit(self.view_state())

    def apply_filter(self) -> None:
        """Filter by the box's text now (it runs by itself shortly after typing)."""
        self._timer.stop()
        self.proxy.set_query(self.box.text())
        self._after_filter()

    def _after_filter(self) -> None:
        self._applying = True
        try:
            if self.proxy.words:
                self.tree.expandAll()  # every match in view, its folders open
            else:
                self.tree.collapseAll()
                self._restore_expansion()
        finally:
            self._applying = False
        if self._current and not self.proxy.words:
            self.reveal(self._current)

    def collapse_all(self) -> None:
        self.tree.collapseAll()
        if not self.proxy.words:
            self.expanded.clear()
            self.viewChanged.emit(self.view_state())

    def _restore_expansion(self) -> None:
        applying, self._applying = self._applying, True
        try:
            for path in sorted(self.expanded):
                item = self._by_folder.get(path)
                if item is not None:
                    self.tree.setExpanded(self.proxy.mapFromSource(item.index()), True)
        finally:
            self._applying = applying

    def reveal(self, entry_id: str) -> bool:
        """Select ``entry_id``'s row and scroll to it, opening its folders (the explorer
        follows the reader's navigation); False if it is not listed (filtered out)."""
        self._current = entry_id
        item = self._by_id.get(entry_id)
        if item is None:
            self.tree.clearSelection()
            return False
        index = self.proxy.mapFromSource(item.index())
        if not index.isValid():
            return False
        parent = index.parent()
        while parent.isValid():  # the reader's now: kept open, as Obsidian's reveal does
            if not self.tree.isExpanded(parent):
                self.tree.setExpanded(parent, True)
            parent = parent.parent()
        self.tree.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.tree.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        return True

    # -- state --------------------------------------------------------------------------------
    def view_state(self) -> dict[str, Any]:
        return {"expanded": sorted(self.expanded), "attachments": self.proxy.show_attachments}

    def restore_view_state(self, data: object) -> None:
        """What :meth:`view_state` gave, from the user state (before :meth:`set_entries`)."""
        data = data if isinstance(data, dict) else {}
        expanded = data.get("expanded")
        paths = expanded if isinstance(expanded, list) else []
        self.expanded = {p for p in paths if isinstance(p, str)}
        show = bool(data.get("attachments", False))
        self.attachments_button.blockSignals(True)
        self.attachments_button.setChecked(show)
        self.attachments_button.blockSignals(False)
        self.proxy.set_show_attachments(show)
        self._applying = True
        try:
            self.tree.collapseAll()
            self._restore_expansion()
        finally:
            self._applying = False

    def clear(self) -> None:
        self._current = None
        self.model.clear()
        self._by_id.clear()
        self._by_folder.clear()

    # What a test asks.
    def visible_labels(self) -> list[str]:
        """The text of every row in view (inside expanded folders), in order."""
        out: list[str] = []

        def walk(parent: QModelIndex) -> None:
            for r in range(self.proxy.rowCount(parent)):
                index = self.proxy.index(r, 0, parent)
                out.append(index.data())
                if self.tree.isExpanded(index):
                    walk(index)

        walk(QModelIndex())
        return out

    def index_of(self, entry_id: str) -> QModelIndex:
        item = self._by_id.get(entry_id)
        return self.proxy.mapFromSource(item.index()) if item is not None else QModelIndex()

    def folder_index(self, path: str) -> QModelIndex:
        item = self._by_folder.get(path)
        return self.proxy.mapFromSource(item.index()) if item is not None else QModelIndex()

    def current_id(self) -> str | None:
        index = self.tree.currentIndex().siblingAtColumn(0)
        return index.data(ROLE_KEY) if index.data(ROLE_KIND) == ENTRY else None
