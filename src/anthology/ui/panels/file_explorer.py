"""The file explorer (left dock, Ctrl+Shift+E): the vault's folders and entries as a tree.

What it lists and in which order, and what the filter lets through, is worked out without
Qt (:mod:`anthology.vault.file_tree`: folders first, then entries by label in natural
order, every folder with the number of entries under it). This is its Qt face: the rows
are a :class:`QTreeWidget`'s items, held and laid out by Qt, so opening a folder of 12,500
entries calls no Python per row (a Python model was asked ``index()`` and
``hasChildren()`` for every row of the open folders at each layout: 90-250 ms a turn at
100,000 entries). Items are made only for the folders the reader opened (or a reveal or
the filter shows), a big folder's a slice per event-loop turn (:data:`FOLDER_CHUNK`
rows), and added at once. What a row looks like beyond its text — the tooltip, the muted
colour of the counts and attachments in the theme of the moment — is asked of Python only
for the rows painted or pointed at (:class:`_RowLook`).

What the reader opened and closed is theirs: the expanded folders (by path) and the
attachments switch are handed to the window (:attr:`FileExplorer.viewChanged`), which keeps
them in the vault's user state (``explorer.view``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QHelpEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from anthology.ui.common.new_tab_clicks import NewTabClicks
from anthology.ui.common.step_queue import later
from anthology.vault import EntryRef
from anthology.vault.file_tree import (
    ATTACHMENT,
    ENTRY,
    FOLDER,
    FileTree,
    Node,
    build_tree,
    natural_key,
)
from anthology.vault.render.safe_text import tooltip_html

__all__ = ["ATTACHMENT", "ENTRY", "FOLDER", "FileExplorer", "Node", "build_tree", "natural_key"]

FILTER_DELAY_MS = 120
REVEAL_DELAY_MS = 60  # after a navigation: the entry is painted first
# a folder of more rows than this has them made a slice per event-loop turn (FOLDER_CHUNK
# rows a slice: ~10-25 ms), before it shows them or the current entry in it is revealed
BIG_FOLDER = 2000
FOLDER_CHUNK = 1500
MAP_CHUNK = 20_000  # entries whose folder is looked up a turn (~8 ms at 100,000 entries)
# an item's type says its kind (kept by Qt in the item: no Python data per row)
_TYPES = {FOLDER: QTreeWidgetItem.ItemType.UserType + 1,
          ENTRY: QTreeWidgetItem.ItemType.UserType + 2,
          ATTACHMENT: QTreeWidgetItem.ItemType.UserType + 3}  # fmt: skip
_ATTACHMENT_TYPE = int(_TYPES[ATTACHMENT])
_SHOW = QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator
_WHEN_CHILDREN = QTreeWidgetItem.ChildIndicatorPolicy.DontShowIndicatorWhenChildless
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
# what Qt hands a delegate: an index, or a persistent one
AnyIndex = QModelIndex | QPersistentModelIndex


class _RowLook(QStyledItemDelegate):
    """What a row shows beyond its text, asked only for the rows painted or pointed at:
    the counts and attachments muted in the theme of the moment (the application palette
    follows it), the tooltip (label and path, the label perhaps cut in a narrow dock)."""

    def __init__(self, explorer: FileExplorer) -> None:
        super().__init__(explorer)
        self._explorer = explorer

    def initStyleOption(self, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        super().initStyleOption(option, index)
        explorer = self._explorer
        if index.column() == 1 or (
            explorer.files.attachments
            and (item := explorer.tree.itemFromIndex(index)) is not None
            and item.type() == _ATTACHMENT_TYPE
        ):
            palette = QPalette(option.palette)
            muted = QApplication.palette().color(QPalette.ColorRole.PlaceholderText)
            palette.setColor(QPalette.ColorRole.Text, muted)
            option.palette = palette

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: AnyIndex,
    ) -> bool:
        if event.type() == QEvent.Type.ToolTip and index.column() == 0:
            node = self._explorer.node_at(index)
            if node is not None:
                QToolTip.showText(event.globalPos(), tooltip_html(node.tip, 300), view)
                return True
        return super().helpEvent(event, view, option, index)


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

        self.files = FileTree()  # what is listed, and what the filter lets through
        self.tree = QTreeWidget()
        self.tree.setObjectName("explorerTree")
        self.tree.setColumnCount(2)
        self.model: QAbstractItemModel = self.tree.model()
        self.tree.setItemDelegate(_RowLook(self))
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
        self.tree.clicked.connect(self._activate)
        self.tree.activated.connect(self._activate)
        self.tree.itemExpanded.connect(self._on_expanded)
        self.tree.itemCollapsed.connect(self._on_collapsed)
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

        # the items made, and the node each shows (the key keeps the item's wrapper alive:
        # the tree hands the same one back)
        self._node_of: dict[QTreeWidgetItem, Node] = {}
        self._item_of: dict[Node, QTreeWidgetItem] = {}  # folders' items
        self._filled: set[Node] = set()  # folders whose rows are items
        self._queue: list[Node] = []  # big folders whose rows are made a slice a turn
        self._steps: Iterator[None] | None = None  # the slices of the first of them
        self._stepping = False  # a step is scheduled
        # what waits for the slices: the current entry's reveal, a breadcrumb's folder
        self._after_slices: dict[str, Callable[[], object]] = {}
        self._mapping: Iterator[None] = iter(())  # the steps making files.folder_of
        self.expanded: set[str] = set()  # folder paths the reader opened
        self._applying = False  # expansions made by the filter or a rebuild are not the reader's
        self._current: str | None = None
        self._timer = QTimer(self, singleShot=True, interval=FILTER_DELAY_MS)
        self._reveal_timer = QTimer(self, singleShot=True, interval=REVEAL_DELAY_MS)
        self._reveal_timer.timeout.connect(self._reveal_current)
        self._timer.timeout.connect(self.apply_filter)
        self.box.textChanged.connect(lambda _t: self._timer.start())
        self.attachments_button.toggled.connect(self._on_attachments_toggled)

    def _later(self, step: Callable[[], object]) -> None:
        """Run ``step`` in a coming pass of the event loop: every slice of the explorer's
        work (the entries' folders looked up, a big folder's rows made, the reveal after
        them) takes its turn in the window's one queue (:mod:`.step_queue`) with the
        other views' pieces (its own timer fired in the same pass as theirs)."""
        later(step, self)

    # -- building -----------------------------------------------------------------------------
    def set_entries(self, refs: list[EntryRef], attachments: list[str]) -> None:
        """List ``refs`` and ``attachments`` (vault-relative paths), keeping the expanded
        folders, the filter and the current entry."""
        self.files = files = FileTree(refs, attachments)
        # each entry's folder, made a slice a turn after this one (all of it in one turn
        # took 40 ms at 100,000 entries), or the rest at once when a reveal asks first
        self._mapping = steps = files.map_steps(MAP_CHUNK)
        self._later(lambda: self._map_next(steps))
        self._rebuild()
        digits = self.tree.fontMetrics().horizontalAdvance(f"{files.root.count}0")
        self.tree.header().resizeSection(1, digits)
        self._after_filter()

    def _rebuild(self) -> None:
        """Items again for the filter of the moment: the top rows, then the folders the
        reader had open (every folder of a match while filtering), each as it is made."""
        self._queue.clear()
        self._steps = None
        self._after_slices.clear()
        self.tree.clear()
        self._node_of.clear()
        self._item_of.clear()
        self._filled.clear()
        self.files.set_filter(
            self.box.text().casefold().split(), self.attachments_button.isChecked()
        )
        self._fill_now(self.files.root)

    def _make_items(self, nodes: list[Node]) -> list[QTreeWidgetItem]:
        """Items for ``nodes`` (a folder's with its count, muted and right-aligned by the
        delegate; an arrow while its own rows are not made, if it has some)."""
        items: list[QTreeWidgetItem] = []
        node_of = self._node_of
        entry, attachment = _TYPES[ENTRY], _TYPES[ATTACHMENT]
        for node in nodes:
            kind = node.kind
            if kind == ENTRY:
                item = QTreeWidgetItem([node.label], entry)
            elif kind == FOLDER:
                item = QTreeWidgetItem([node.label, str(node.count)], _TYPES[FOLDER])
                item.setTextAlignment(1, _RIGHT)
                if self.files.may_have_rows(node):
                    item.setChildIndicatorPolicy(_SHOW)
                self._item_of[node] = item
            else:
                item = QTreeWidgetItem([node.label], attachment)
            node_of[item] = node
            items.append(item)
        return items

    def _fill_steps(self, folder: Node, chunk: int) -> Iterator[None]:
        """Make ``folder``'s rows into items, ``chunk`` rows a step (its nodes first, if
        they are not made), added to its item at once; then open its subfolders the reader
        had open (every one while filtering)."""
        if folder.pending is not None:
            yield from folder.kid_steps(chunk)
        shown = self.files.shown_of(folder)
        made: list[QTreeWidgetItem] = []
        for c in range(0, len(shown), chunk):
            if c:
                yield
            made.extend(self._make_items(shown[c : c + chunk]))
        self._filled.add(folder)
        if folder.parent is None:
            self.tree.addTopLevelItems(made)
        else:
            item = self._item_of[folder]
            item.addChildren(made)
            item.setChildIndicatorPolicy(_WHEN_CHILDREN)
        self._open_subfolders(folder)

    def _open_subfolders(self, folder: Node) -> None:
        words, expanded = self.files.words, self.expanded
        applying, self._applying = self._applying, True
        try:
            for node in self.files.shown_of(folder):
                if node.kind != FOLDER:
                    break  # folders come first
                if words or node.key in expanded:
                    self._item_of[node].setExpanded(True)  # its rows made as it opens
        finally:
            self._applying = applying

    def _fill_now(self, folder: Node) -> None:
        """Make ``folder``'s rows now (those being made a slice a turn: the rest now)."""
        if folder in self._filled:
            return
        if self._queue and self._queue[0] is folder and self._steps is not None:
            steps, self._steps = self._steps, None
            self._queue.pop(0)
        else:
            if folder in self._queue:
                self._queue.remove(folder)
            steps = self._fill_steps(folder, 1 << 30)
        for _ in steps:
            pass
        if self._queue:
            self._kick()

    def _open_folder(self, folder: Node) -> None:
        """Make an opened folder's rows: now, or a slice a turn when they are many."""
        if folder in self._filled or folder in self._queue:
            return
        if self.files.rows_to_make(folder) > BIG_FOLDER:
            self._queue.append(folder)
            self._kick()
        else:
            self._fill_now(folder)

    def _kick(self) -> None:
        if not self._stepping:
            self._stepping = True
            self._later(self._step)

    def _step(self) -> None:
        """One slice of the first big folder's rows; when none is left, the reveal that
        waited for them, in a turn of its own."""
        self._stepping = False
        if not self._queue:
            return
        if self._steps is None:
            self._steps = self._fill_steps(self._queue[0], FOLDER_CHUNK)
        steps = self._steps
        if next(steps, StopIteration) is StopIteration and self._steps is steps:
            self._steps = None
            self._queue.pop(0)
        if self._queue:
            self._kick()
        else:
            for after in self._after_slices.values():
                self._later(after)
            self._after_slices.clear()

    # -- what the reader does -----------------------------------------------------------------
    def node_at(self, index: AnyIndex) -> Node | None:
        """The folder, entry or attachment a row of the tree shows."""
        if not index.isValid():
            return None
        item = self.tree.itemFromIndex(index)  # (the row's item, whichever column)
        return self._node_of.get(item) if item is not None else None

    def _activate(self, index: QModelIndex) -> None:
        node = self.node_at(index)
        if node is None:
            return
        if node.kind == ENTRY:
            self.entryActivated.emit(node.key)
        elif node.kind == ATTACHMENT:
            self.attachmentActivated.emit(node.key)
        else:
            index = index.siblingAtColumn(0)
            self.tree.setExpanded(index, not self.tree.isExpanded(index))

    def _open_new_tab(self, index: QModelIndex) -> None:
        node = self.node_at(index)
        if node is not None and node.kind == ENTRY:
            self.entryActivatedNewTab.emit(node.key)

    def _on_expanded(self, item: QTreeWidgetItem) -> None:
        node = self._node_of.get(item)
        if node is None or node.kind != FOLDER:
            return  # (expandAll marks every row expanded, entries too)
        self._open_folder(node)
        self._note_expansion(node, True)

    def _on_collapsed(self, item: QTreeWidgetItem) -> None:
        node = self._node_of.get(item)
        if node is not None and node.kind == FOLDER:
            self._note_expansion(node, False)

    def _note_expansion(self, folder: Node, opened: bool) -> None:
        if self._applying or self.files.words:
            return  # a filter's or a rebuild's, not the reader's
        if opened:
            self.expanded.add(folder.key)
        else:
            self.expanded.discard(folder.key)
        self.viewChanged.emit(self.view_state())

    def _on_attachments_toggled(self, show: bool) -> None:
        self._refilter()
        self.viewChanged.emit(self.view_state())

    def apply_filter(self) -> None:
        """Filter by the box's text now (it runs by itself shortly after typing)."""
        self._timer.stop()
        self._refilter()

    def _refilter(self) -> None:
        applying, self._applying = self._applying, True
        try:
            self._rebuild()
        finally:
            self._applying = applying
        self._after_filter()

    def _after_filter(self) -> None:
        """Reveal the current entry again after the rows were made anew (not while
        filtering), once the view has its size (a new dock's grows)."""
        if self._current and not self.files.words:
            self._reveal_timer.start()

    def collapse_all(self) -> None:
        self.tree.collapseAll()
        if not self.files.words:
            self.expanded.clear()
            self.viewChanged.emit(self.view_state())

    def follow(self, entry_id: str) -> None:
        """Reveal ``entry_id`` shortly (the reader navigated there): after the entry is
        painted, so a navigation does not wait on the explorer's repaint."""
        self._current = entry_id
        self._reveal_timer.start()

    def _reveal_current(self) -> None:
        """Reveal the current entry, once its folders' rows are made: a big one's a
        slice a turn first (then this again)."""
        if not self._current:
            return
        if self.files.folder_of is None:  # the entries' folders are being looked up
            self._reveal_timer.start()
            return
        at = self.files.folder(self._current)
        for folder in [*_above(at), at] if at is not None else []:
            if self.files.words and not self.files.visible(folder):
                break  # filtered out: reveal() says so
            if folder not in self._filled and self.files.rows_to_make(folder) > BIG_FOLDER:
                self._open_folder(folder)  # then this again, for the folders under it
                break
            self._fill_now(folder)
        if self._queue:  # revealed once the rows being made are in
            self._after_slices["entry"] = self._reveal_current
            return
        self.reveal(self._current)

    def reveal(self, entry_id: str) -> bool:
        """Select ``entry_id``'s row and scroll to it, opening its folders (the explorer
        follows the reader's navigation); False if it is not listed (filtered out)."""
        self._current = entry_id
        item = self._item(self.files.entry_node(entry_id, self._mapping))
        if item is None:  # not listed, or filtered out
            self.tree.clearSelection()
            return False
        parent = item.parent()
        while parent is not None:  # the reader's now: kept open, as Obsidian's reveal does
            if not parent.isExpanded():
                parent.setExpanded(True)
            parent = parent.parent()
        self._select(item)
        if not self.tree.viewport().rect().contains(self.tree.visualItemRect(item)):
            # out of view: brought to the middle, with what surrounds it
            self.tree.scrollToItem(item, QAbstractItemView.ScrollHint.PositionAtCenter)
        return True

    def reveal_folder(self, path: str) -> bool:
        """Open the folder ``path`` (and those above it), select it and bring it into view
        (a breadcrumb of the page clicked); False if the explorer does not list it. A big
        folder above it has its rows made a slice a turn first (then this again)."""
        folder = self.files.folders.get(path) if path else None
        if folder is None or (self.files.words and not self.files.visible(folder)):
            return False
        for above in _above(folder):
            if above not in self._filled and self.files.rows_to_make(above) > BIG_FOLDER:
                self._open_folder(above)
                self._after_slices["folder"] = lambda: self.reveal_folder(path)
                return True
        item = self._item(folder)
        if item is None:
            return False
        at: QTreeWidgetItem | None = item
        while at is not None:
            at.setExpanded(True)
            at = at.parent()
        self._select(item)
        self.tree.scrollToItem(item, QAbstractItemView.ScrollHint.PositionAtTop)
        return True

    def _select(self, item: QTreeWidgetItem) -> None:
        self.tree.setCurrentItem(
            item,
            0,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )

    def _item(self, node: Node | None) -> QTreeWidgetItem | None:
        """``node``'s item, its folders' rows made now if they were not (None: not
        listed, or filtered out)."""
        if node is None or node.parent is None or not self.files.visible(node):
            return None
        for folder in _above(node):
            self._fill_now(folder)
        parent = self._item_of[node.parent] if node.parent.parent is not None else None
        return parent.child(node.row) if parent is not None else self.tree.topLevelItem(node.row)

    # -- state --------------------------------------------------------------------------------
    def view_state(self) -> dict[str, Any]:
        return {"expanded": sorted(self.expanded), "attachments": self.files.attachments}

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
        self.files = FileTree()
        self._mapping = iter(())
        self._rebuild()

    # What a test asks.
    def visible_labels(self) -> list[str]:
        """The text of every row in view (inside expanded folders), in order."""
        out: list[str] = []

        def walk(parent: QTreeWidgetItem) -> None:
            for r in range(parent.childCount()):
                item = parent.child(r)
                if item is not None:
                    out.append(item.text(0))
                    if item.isExpanded():
                        walk(item)

        walk(self.tree.invisibleRootItem())
        return out

    def index_of(self, entry_id: str) -> QModelIndex:
        item = self._item(self.files.entry_node(entry_id, self._mapping))
        return self.tree.indexFromItem(item) if item is not None else QModelIndex()

    def folder_index(self, path: str) -> QModelIndex:
        item = self._item(self.files.folders.get(path) if path else None)
        return self.tree.indexFromItem(item) if item is not None else QModelIndex()

    def _map_next(self, steps: Iterator[None]) -> None:
        if self._mapping is not steps or self.files.folder_of is not None:
            return  # a newer tree, or made meanwhile (a reveal asked)
        if next(steps, StopIteration) is not StopIteration:
            self._later(lambda: self._map_next(steps))

    def current_id(self) -> str | None:
        item = self.tree.currentItem()
        node = self._node_of.get(item) if item is not None else None
        return node.key if node is not None and node.kind == ENTRY else None


def _above(node: Node) -> list[Node]:
    """The folders above ``node``, the vault's top first."""
    out: list[Node] = []
    at = node.parent
    while at is not None:
        out.append(at)
        at = at.parent
    out.reverse()
    return out
