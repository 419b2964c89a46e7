"""The file explorer (left dock, Ctrl+Shift+E): the vault's folders and entries as a tree.

Entries are shown by their labels (:func:`anthology.vault.display_labels`: the title, or
``ID — Title`` where the id says something), folders first, then entries, each in natural
order (``Note 2`` before ``Note 10``), every folder with the number of entries under it.
Attachments are listed only when asked (View › Show Attachments in the panel's menu).

The tree is built in one pass from two questions to the index (every entry, every
attachment path) as plain Python nodes (:func:`build_tree`); :class:`ExplorerModel` is a
thin Qt face over them, asked only for the rows drawn. The filter (every word of the query
in a row's label or file name) recomputes which rows are shown in Python and keeps the
folders above a match. 10,000 entries build in a fraction of a second and filter as the
reader types.

What the reader opened and closed is theirs: the expanded folders (by path) and the
attachments switch are handed to the window (:attr:`FileExplorer.viewChanged`), which keeps
them in the vault's user state (``explorer.view``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QStyle,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from anthology.ui.common.new_tab_clicks import NewTabClicks
from anthology.vault import EntryRef
from anthology.vault.model import display_label_steps
from anthology.vault.render.safe_text import plain_text, tooltip_html

ROLE_KIND = Qt.ItemDataRole.UserRole + 1  # "folder", "entry" or "attachment"
ROLE_KEY = Qt.ItemDataRole.UserRole + 2  # an entry's id; a folder's or attachment's path
FOLDER, ENTRY, ATTACHMENT = "folder", "entry", "attachment"
FILTER_DELAY_MS = 120
REVEAL_DELAY_MS = 60  # after a navigation: the entry is painted first
# a folder of more entries than this has its rows made a slice per event-loop turn before
# the current entry in it is revealed (FOLDER_CHUNK entries a slice: ~10-25 ms)
BIG_FOLDER = 2000
FOLDER_CHUNK = 1500
MAP_CHUNK = 20_000  # entries whose folder is looked up a turn (~8 ms at 100,000 entries)
_DIGITS = re.compile(r"(\d+)")
_ROOT = QModelIndex()
# what Qt hands a model: an index, or a persistent one (a selection, a view's current)
AnyIndex = QModelIndex | QPersistentModelIndex


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key reading runs of digits as numbers: ``Note 2`` before ``Note 10``
    (text and numbers alternate, so two keys always compare like with like)."""
    folded = text.casefold()
    if not _DIGITS.search(folded):
        return (folded,)
    parts: list[Any] = _DIGITS.split(folded)
    parts[1::2] = map(int, parts[1::2])  # (a generator over every part: 3x slower)
    return tuple(parts)


class Node:
    """One row of the tree: a folder, an entry or an attachment. A folder's entries and
    attachments are made the first time they are asked for (:meth:`kids`): at 100,000
    entries making every row took 1.5 s of the GUI thread at each start, for the few
    folders a reader opens."""

    __slots__ = ("by_key", "children", "count", "key", "kind", "label", "match", "parent",
                 "pending", "row", "shown", "tip")  # fmt: skip

    def __init__(self, kind: str, key: str, label: str, parent: Node | None) -> None:
        self.kind, self.key, self.label, self.parent = kind, key, label, parent
        self.match = label.casefold()  # what the filter looks in
        # all of them, in order: a folder's subfolders, then (once made) its files
        self.children: list[Node] = []
        # those the filter lets through, in order; None: not worked out yet
        self.shown: list[Node] | None = None if kind == FOLDER else []
        self.row = 0  # in the parent's ``shown``
        self.count = 0  # entries under a folder, at any depth
        self.tip = key  # the vault-relative path
        # a folder's entries and attachments not made into rows yet
        self.pending: tuple[list[EntryRef], list[str]] | None = None
        self.by_key: dict[str, Node] | None = None  # its entries by id, once made

    def folder(self, name: str, folders: dict[str, Node]) -> Node:
        path = f"{self.key}/{name}" if self.key else name
        node = folders.get(path)
        if node is None:
            node = folders[path] = Node(FOLDER, path, name, self)
        return node

    def may_have_children(self, attachments: bool) -> bool:
        """Whether the folder has rows to show with no filter, without making them."""
        if self.children:
            return True
        if self.pending is None:
            return False
        refs, files = self.pending
        return bool(refs) or (attachments and bool(files))

    def kids(self) -> list[Node]:
        """Every row under the folder: its subfolders, entries and attachments, each in
        natural order of what is shown (made now if they were not)."""
        for _ in self.kid_steps():
            pass
        return self.children

    def kid_steps(self, chunk: int = 1 << 30) -> Iterator[None]:
        """:meth:`kids` made ``chunk`` entries a step (the explorer spreads a big folder
        over event-loop turns: 12,500 rows took ~0.2 s of one turn at 100,000 entries).
        Made meanwhile by :meth:`kids` (a view asked), the rest does nothing."""
        if self.pending is None:
            return
        pending = self.pending
        refs_here, files = pending
        labels: list[str] = []
        yield from display_label_steps(refs_here, labels, chunk)
        keys: list[tuple[Any, ...]] = []
        for c in range(0, len(labels), chunk):
            keys.extend(natural_key(label) for label in labels[c : c + chunk])
            yield
        order = sorted(range(len(labels)), key=keys.__getitem__)
        yield
        made: list[Node] = []
        by_key: dict[str, Node] = {}
        for c in range(0, len(order), chunk):
            for k in order[c : c + chunk]:
                label, r = labels[k], refs_here[k]
                entry = Node(ENTRY, r.id, plain_text(label, 200), self)
                entry.match = f"{entry.match} {posixpath.basename(r.path).casefold()}"
                entry.tip = f"{label}\n{r.path}"  # the label may be cut in a narrow dock
                made.append(entry)
                by_key[r.id] = entry
            yield
        if self.pending is not pending:  # made (or the tree replaced) meanwhile
            return
        for a in sorted(files, key=lambda p: natural_key(posixpath.basename(p))):
            made.append(Node(ATTACHMENT, a, plain_text(posixpath.basename(a), 200), self))
        self.pending = None
        self.children.extend(made)
        self.by_key = by_key


def _big(folder: Node) -> bool:
    """Whether ``folder``'s rows are still to make and too many for one turn."""
    return folder.pending is not None and len(folder.pending[0]) > BIG_FOLDER


def build_tree(refs: list[EntryRef], attachments: list[str]) -> tuple[Node, dict[str, Node]]:
    """The vault's tree (root node) and its folders by path: every folder, with its count
    of entries; a folder's own entries and attachments wait in ``pending`` until asked
    for (:meth:`Node.kids`)."""
    root = Node(FOLDER, "", "", None)
    folders: dict[str, Node] = {"": root}
    entries: dict[str, list[EntryRef]] = {}
    files: dict[str, list[str]] = {}

    def folder_of(path: str) -> Node:
        node = folders.get(path)
        if node is None:
            parent, _, name = path.rpartition("/")
            node = folder_of(parent).folder(name, folders)
        return node

    for r in refs:
        entries.setdefault(r.path.rpartition("/")[0], []).append(r)
    for a in attachments:
        files.setdefault(a.rpartition("/")[0], []).append(a)
    for path in (*entries, *files):
        folder_of(path)
    subfolders: dict[str, list[Node]] = {}
    for node in folders.values():
        if node.parent is not None:
            subfolders.setdefault(node.parent.key, []).append(node)
    for path, node in folders.items():
        node.children = sorted(subfolders.get(path, ()), key=lambda n: natural_key(n.label))
        refs_here = entries.get(path, [])
        node.pending = (refs_here, files.get(path, []))
        node.count = len(refs_here)
    for node in sorted(folders.values(), key=lambda n: -n.key.count("/") if n.key else 1):
        if node.parent is not None:  # deepest first: each adds its total to its parent
            node.parent.count += node.count
    return root, folders


class ExplorerModel(QAbstractItemModel):
    """A thin Qt face over the :class:`Node` tree: rows are asked for only when drawn.
    Filtering (attachments, a query) recomputes each folder's ``shown`` list in Python and
    resets the model: at 10,000 entries that is milliseconds, where a proxy model calling
    back into Python for every row took hundreds."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.root = Node(FOLDER, "", "", None)
        self.show_attachments = False
        self.words: list[str] = []

    def set_tree(self, root: Node) -> None:
        self.beginResetModel()
        self.root = root
        self._filter(root)
        self.endResetModel()

    def set_filter(self, words: list[str], show_attachments: bool) -> None:
        self.beginResetModel()
        self.words, self.show_attachments = words, show_attachments
        self._filter(self.root)
        self.endResetModel()

    def _filter(self, root: Node) -> None:
        """Work out which rows the filter lets through: with words, every row now (every
        folder's rows are made); without, each folder's when it is first asked for."""
        words, attachments = self.words, self.show_attachments
        if not words:
            stack = [root]
            while stack:
                node = stack.pop()
                node.shown = None
                stack.extend(c for c in node.children if c.kind == FOLDER)
            return

        def keep(node: Node) -> bool:
            if node.kind == FOLDER:
                node.shown = [c for c in node.kids() if keep(c)]
                for i, c in enumerate(node.shown):
                    c.row = i
                return bool(node.shown) or all(w in node.match for w in words)
            if node.kind == ATTACHMENT and not attachments:
                return False
            return all(w in node.match for w in words)

        keep(root)

    def shown_of(self, node: Node) -> list[Node]:
        """The rows of ``node`` the filter lets through (worked out now if not yet: with
        no filter, every folder and entry, and the attachments when they are shown)."""
        if node.shown is None:
            attachments = self.show_attachments
            node.shown = [c for c in node.kids() if c.kind != ATTACHMENT or attachments]
            for i, c in enumerate(node.shown):
                c.row = i
        return node.shown

    def visible(self, node: Node) -> bool:
        """Whether ``node`` is in the filtered tree (its folders included)."""
        while node.parent is not None:
            parent = node.parent
            shown = self.shown_of(parent)
            if node.row >= len(shown) or shown[node.row] is not node:
                return False
            node = parent
        return True

    def index_of(self, node: Node | None, column: int = 0) -> QModelIndex:
        if node is None or node.parent is None or not self.visible(node):
            return QModelIndex()
        return self.createIndex(node.row, column, node)

    @staticmethod
    def node(index: AnyIndex) -> Node | None:
        return index.internalPointer() if index.isValid() else None

    # -- QAbstractItemModel ------------------------------------------------------------------
    def index(self, row: int, column: int = 0, parent: AnyIndex = _ROOT) -> QModelIndex:
        # asked once for every row of the open folders at each layout of the tree (12,500
        # in a folder of the 100k vault): as few calls into Qt as can be
        node = parent.internalPointer() if parent.isValid() else self.root
        shown = node.shown
        if shown is None:
            shown = self.shown_of(node)
        if 0 <= row < len(shown) and 0 <= column < 2:
            return self.createIndex(row, column, shown[row])
        return QModelIndex()

    def parent(self, index: AnyIndex = _ROOT) -> QModelIndex:  # type: ignore[override]
        node = self.node(index)
        if node is None or node.parent is None or node.parent is self.root:
            return QModelIndex()
        if node.parent.parent is not None:
            self.shown_of(node.parent.parent)  # where the parent's row is worked out
        return self.createIndex(node.parent.row, 0, node.parent)

    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        if parent.column() > 0:
            return 0
        return len(self.shown_of(self.node(parent) or self.root))

    def columnCount(self, parent: AnyIndex = _ROOT) -> int:
        return 2

    def hasChildren(self, parent: AnyIndex = _ROOT) -> bool:
        # asked for every row of the open folders at each layout of the tree, with index():
        # the flags are Qt's own (enabled, selectable), for a leaf's "never has children"
        # cost two calls into Python a row where this costs one
        node = parent.internalPointer() if parent.isValid() else self.root
        if node.kind != FOLDER or parent.column() > 0:
            return False
        if node.shown is None:  # asked for every folder drawn: answered without its rows
            return node.may_have_children(self.show_attachments)
        return bool(node.shown)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        node = self.node(index)
        if node is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 1:
                return str(node.count) if node.kind == FOLDER else None
            return node.label
        if role == ROLE_KIND:
            return node.kind
        if role == ROLE_KEY:
            return node.key
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 0:
            return tooltip_html(node.tip, 300)
        if role == Qt.ItemDataRole.ForegroundRole and (
            index.column() == 1 or node.kind == ATTACHMENT
        ):
            # muted, in the theme of the moment (the application palette follows it)
            return QApplication.palette().color(QPalette.ColorRole.PlaceholderText)
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


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

        self.model = ExplorerModel(self)
        self.tree = QTreeView()
        self.tree.setObjectName("explorerTree")
        self.tree.setModel(self.model)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)  # lays out 10,000 rows without measuring each
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setIndentation(14)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # fixed, sized to the largest count (set_entries): sizing it to its contents would
        # measure every row of a folder of thousands each time one is opened
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
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

        self._folder_of: dict[str, Node] | None = {}  # entry id → its folder (None: to make)
        self._mapping: Iterator[None] = iter(())  # the steps making _folder_of
        self._by_folder: dict[str, Node] = {}
        self.expanded: set[str] = set()  # folder paths the reader opened
        self._applying = False  # expansions made by the filter or a rebuild are not the reader's
        self._current: str | None = None
        self._making: Iterator[None] | None = None  # a big folder's rows being made
        self._timer = QTimer(self, singleShot=True, interval=FILTER_DELAY_MS)
        self._reveal_timer = QTimer(self, singleShot=True, interval=REVEAL_DELAY_MS)
        self._reveal_timer.timeout.connect(self._reveal_current)
        self._timer.timeout.connect(self.apply_filter)
        self.box.textChanged.connect(lambda _t: self._timer.start())
        self.attachments_button.toggled.connect(self._on_attachments_toggled)

    # -- building -----------------------------------------------------------------------------
    def set_entries(self, refs: list[EntryRef], attachments: list[str]) -> None:
        """Build the tree of ``refs`` and ``attachments`` (vault-relative paths), keeping
        the expanded folders, the filter and the current entry."""
        root, folders = build_tree(refs, attachments)
        self._making = None  # rows being made belong to the tree replaced
        self._by_folder = {path: node for path, node in folders.items() if path}
        # each entry's folder, made a slice a turn after this one (all of it in one turn
        # took 40 ms at 100,000 entries), or the rest at once when a reveal asks first
        self._folder_of = None
        self._mapping = steps = self._map_steps(refs, folders)
        QTimer.singleShot(1, self, lambda: self._map_next(steps))
        self._applying = True
        try:
            self.model.words = self.box.text().casefold().split()
            self.model.set_tree(root)
            digits = self.tree.fontMetrics().horizontalAdvance(f"{root.count}0")
            self.tree.header().resizeSection(1, digits)
            self._after_filter()
        finally:
            self._applying = False

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
        if self._applying or self.model.words:
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
        self._refilter()
        self.viewChanged.emit(self.view_state())

    def apply_filter(self) -> None:
        """Filter by the box's text now (it runs by itself shortly after typing)."""
        self._timer.stop()
        self._refilter()

    def _refilter(self) -> None:
        self._applying = True
        try:
            words = self.box.text().casefold().split()
            self.model.set_filter(words, self.attachments_button.isChecked())
            self._after_filter()
        finally:
            self._applying = False

    def _after_filter(self) -> None:
        """Open the folders again after the model was reset: every folder of a match while
        filtering, else those the reader had open; then the current entry."""
        applying, self._applying = self._applying, True
        try:
            if self.model.words:
                self.tree.expandAll()
            else:
                self._restore_expansion()
        finally:
            self._applying = applying
        if self._current and not self.model.words:
            self._reveal_timer.start()  # once the view has its size (a new dock's grows)

    def collapse_all(self) -> None:
        self.tree.collapseAll()
        if not self.model.words:
            self.expanded.clear()
            self.viewChanged.emit(self.view_state())

    def _restore_expansion(self) -> None:
        applying, self._applying = self._applying, True
        try:
            for path in sorted(self.expanded):  # parents first
                node = self._by_folder.get(path)
                if node is not None and _big(node):  # opened once its rows are made
                    if self._making is None:
                        self._make_rows(node)
                    continue
                index = self.model.index_of(node)
                if index.isValid():
                    self.tree.setExpanded(index, True)
        finally:
            self._applying = applying

    def follow(self, entry_id: str) -> None:
        """Reveal ``entry_id`` shortly (the reader navigated there): after the entry is
        painted, so a navigation does not wait on the explorer's repaint."""
        self._current = entry_id
        self._reveal_timer.start()

    def _reveal_current(self) -> None:
        if not self._current:
            return
        if self._folder_of is None:  # the entries' folders are being looked up: after them
            self._reveal_timer.start()
            return
        folder = self._folder(self._current)
        if folder is not None and _big(folder):
            self._make_rows(folder)  # then revealed
            return
        if self._making is not None:
            return  # revealed once the rows being made are in
        self.reveal(self._current)

    def _make_rows(self, folder: Node) -> None:
        """Make a big folder's rows a slice per event-loop turn, then open the folders the
        reader had open and reveal the current entry (a newer tree or reveal drops the
        slices left)."""
        steps = folder.kid_steps(FOLDER_CHUNK)
        self._making = steps

        def step() -> None:
            if self._making is not steps:
                return
            try:
                next(steps)
            except StopIteration:
                self._making = None
                if not self.model.words:  # the open folders laid out: a turn of their own
                    self._restore_expansion()
                QTimer.singleShot(1, self, self._reveal_current)
                return
            QTimer.singleShot(1, self, step)

        step()

    def reveal(self, entry_id: str) -> bool:
        """Select ``entry_id``'s row and scroll to it, opening its folders (the explorer
        follows the reader's navigation); False if it is not listed (filtered out)."""
        self._current = entry_id
        index = self.model.index_of(self._entry_node(entry_id))
        if not index.isValid():  # not listed, or filtered out
            self.tree.clearSelection()
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
        if not self.tree.viewport().rect().contains(self.tree.visualRect(index)):
            # out of view: brought to the middle, with what surrounds it
            self.tree.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        return True

    def reveal_folder(self, path: str) -> bool:
        """Open the folder ``path`` (and those above it), select it and bring it into view
        (a breadcrumb of the page clicked); False if the explorer does not list it."""
        index = self.folder_index(path)
        if not index.isValid():
            return False
        at = index
        while at.isValid():
            self.tree.setExpanded(at, True)
            at = at.parent()
        self.tree.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.tree.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
        return True

    # -- state --------------------------------------------------------------------------------
    def view_state(self) -> dict[str, Any]:
        return {"expanded": sorted(self.expanded), "attachments": self.model.show_attachments}

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
        self._refilter()

    def clear(self) -> None:
        self._current = None
        self.model.set_tree(Node(FOLDER, "", "", None))
        self._folder_of, self._mapping = {}, iter(())
        self._by_folder.clear()

    # What a test asks.
    def visible_labels(self) -> list[str]:
        """The text of every row in view (inside expanded folders), in order."""
        out: list[str] = []

        def walk(parent: QModelIndex) -> None:
            for r in range(self.model.rowCount(parent)):
                index = self.model.index(r, 0, parent)
                out.append(index.data())
                if self.tree.isExpanded(index):
                    walk(index)

        walk(QModelIndex())
        return out

    def index_of(self, entry_id: str) -> QModelIndex:
        return self.model.index_of(self._entry_node(entry_id))

    def _folder(self, entry_id: str) -> Node | None:
        """``entry_id``'s folder (None: not listed)."""
        return self._map_folders().get(entry_id)

    def _map_folders(self) -> dict[str, Node]:
        if self._folder_of is None:
            for _ in self._mapping:  # the slices left, now
                pass
        return self._folder_of if self._folder_of is not None else {}

    def _map_steps(self, refs: list[EntryRef], folders: dict[str, Node]) -> Iterator[None]:
        """Each entry's folder by its id, :data:`MAP_CHUNK` entries a step."""
        folder_of: dict[str, Node] = {}
        for c in range(0, len(refs), MAP_CHUNK):
            folder_of.update(
                {r.id: folders[r.path.rpartition("/")[0]] for r in refs[c : c + MAP_CHUNK]}
            )
            yield
        self._folder_of = folder_of  # (a newer tree's steps replaced these: never resumed)

    def _map_next(self, steps: Iterator[None]) -> None:
        if self._mapping is not steps or self._folder_of is not None:
            return  # a newer tree, or made meanwhile (a reveal asked)
        if next(steps, StopIteration) is not StopIteration:
            QTimer.singleShot(1, self, lambda: self._map_next(steps))

    def _entry_node(self, entry_id: str) -> Node | None:
        """``entry_id``'s row (its folder's rows made if they were not yet)."""
        folder = self._folder(entry_id)
        if folder is None:
            return None
        folder.kids()
        return folder.by_key.get(entry_id) if folder.by_key is not None else None

    def folder_index(self, path: str) -> QModelIndex:
        return self.model.index_of(self._by_folder.get(path))

    def current_id(self) -> str | None:
        index = self.tree.currentIndex().siblingAtColumn(0)
        return index.data(ROLE_KEY) if index.data(ROLE_KIND) == ENTRY else None
