"""The backlinks panel: who links here, grouped by relation, with the line around each link.

Typed relations come first ("introduced by", "source", …), untyped body links under
"mentions"; unlinked mentions (the title named without a link) sit in a collapsed group.
A click (or Enter) on a row navigates to its source entry. A group shows its first
:data:`PAGE` links and a "Show more" row for the next page (clicked, or scrolled into view),
so a hub with tens of thousands of backlinks opens as fast as any entry; contexts are cut
only for the rows shown.

It is a model and a view, not a widget per row: :class:`BacklinksModel` holds the groups
and the rows fetched so far (``canFetchMore``/``fetchMore``, a page at a time) and
:class:`RowDelegate` paints each row's two lines. A QLabel per row cost ~3.5 ms, 2.5 s for
the ~700 rows of a hub; painting costs only the rows on screen.

Every string from the vault (titles, ids, contexts, snippets, relation names) goes through
:mod:`anthology.vault.render.safe_text` before Qt sees it: a row is painted as rich text
and its tooltip would be read as rich text too, so a title of 3,000 nested ``<table>`` or
``<img src='/abs/…'>`` must reach Qt escaped, never as markup. The document that paints
rows also refuses to load any resource, should markup ever slip through.

Unlinked mentions can take long on a title that is a common word, so the window asks for
them off the GUI thread and hands them over later with :meth:`BacklinksPanel.show_unlinked`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QFont,
    QPainter,
    QPalette,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from anthology.session.backlinks import (
    COUNT_SHOWN,
    NO_BACKLINKS,
    PAGE,
    SOURCES_SHOWN,
    UNLINKED,
    ContextFn,
    Group,
    Kept,
    KeptViews,
    PageFn,
    Row,
    find_mentions,
    groups_of,
    no_page,
    rows_of,
    unlinked_group,
)
from anthology.ui.common.math_images import add_math
from anthology.ui.common.new_tab_clicks import NewTabClicks
from anthology.ui.common.step_queue import step_queue, when_quiet
from anthology.ui.common.task_runner import TaskRunner
from anthology.vault import BacklinksView, LinkRow, SearchHit

# What tests and benchmarks name here (they live in anthology.session.backlinks)
__all__ = ["COUNT_SHOWN", "PAGE", "SOURCES_SHOWN", "UNLINKED", "BacklinksModel", "BacklinksPanel"]

ROLE_ID = Qt.ItemDataRole.UserRole
ROLE_MORE = Qt.ItemDataRole.UserRole + 1  # on a "Show more" row: its group's index
ROLE_HTML = Qt.ItemDataRole.UserRole + 2  # on a link row: its lines, escaped rich text
ROLE_LINES = Qt.ItemDataRole.UserRole + 3  # on a link row: how many lines it has
ROLE_IMAGES = Qt.ItemDataRole.UserRole + 4  # on a link row: its formulas, key → SVG bytes
MORE_TIP = "Show the next backlinks of this group"
_TOP = 0  # internalId of a group's index; a row's is its group's position + 1
_PAD = (4, 3, 4, 5)  # left, top, right, bottom around a row's two lines, as the labels had

Index = QModelIndex | QPersistentModelIndex
_NO_FLAGS = Qt.ItemFlag.NoItemFlags
_GROUP_FLAGS = Qt.ItemFlag.ItemIsEnabled
_ROW_FLAGS = (
    Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
)
_ROOT = QModelIndex()  # the invalid index: the parent of groups

# A search for unlinked mentions starts when the panel has painted, or after this long.
UNLINKED_WAIT_MS = 250


class BacklinksModel(QAbstractItemModel):
    """Groups (top level) → the rows fetched so far, then a "Show more" row while some are
    left. A group's next page is fetched only when the reader asks (the "Show more" row
    clicked or scrolled into view): ``canFetchMore`` says so only then, because QTreeView
    re-lays out after every insertion and fetches every expanded parent that can fetch more
    — ungated, a hub's 750,000 mentions would all be loaded, a page per layout."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.groups: list[Group] = []
        self.muted = "#808080"
        self.theme = "light"
        self._page: PageFn = no_page
        self._context_of: ContextFn | None = None

    def reset(
        self,
        groups: list[Group],
        page: PageFn,
        muted: str,
        context_of: ContextFn | None = None,
    ) -> None:
        """Show ``groups``, fetching the first page of each that has none yet (a group
        shown before comes with its rows: see BacklinksPanel.show_backlinks)."""
        self.beginResetModel()
        self.groups, self._page, self.muted = groups, page, muted
        self._context_of = context_of
        for group in groups:
            if group.paged and not group.fetched:
                group.first_page(page, self._rows)  # the first page of each, as it opens
        self.endResetModel()

    def _rows(self, links: list[LinkRow]) -> list[Row]:
        return rows_of(links, self.muted, self._context_of, self.theme)

    def remove_groups(self, keep: Callable[[Group], bool]) -> None:
        for i in reversed(range(len(self.groups))):
            if not keep(self.groups[i]):
                self.beginRemoveRows(QModelIndex(), i, i)
                del self.groups[i]
                self.endRemoveRows()

    def add_group(self, group: Group) -> QModelIndex:
        n = len(self.groups)
        self.beginInsertRows(QModelIndex(), n, n)
        self.groups.append(group)
        self.endInsertRows()
        return self.index(n, 0)

    def row_at(self, index: Index) -> Row | None:
        """The link (or mention) row at ``index``; None on a group or a "Show more" row.
        What the delegate paints, asked directly: through ``data`` each role asked
        crossed from C++ to Python and back (~0.1 ms a call, several per row painted)."""
        k = index.internalId() - 1
        if 0 <= k < len(self.groups):
            rows = self.groups[k].rows
            if (r := index.row()) < len(rows):
                return rows[r]
        return None

    def group_of(self, index: Index) -> Group | None:
        if index.isValid() and index.internalId() == _TOP and index.row() < len(self.groups):
            return self.groups[index.row()]
        return None

    def request(self, group_index: Index) -> bool:
        """The reader asks for the next page of this group: fetch it."""
        group = self.group_of(group_index)
        if group is None or group.left <= 0:
            return False
        group.wanted = True
        index = self.index(group_index.row(), 0)
        if self.canFetchMore(index):
            self.fetchMore(index)
        return True

    # -- QAbstractItemModel ------------------------------------------------------------
    # index, flags and rowCount are asked for every row at each layout (~1,000 calls for a
    # hub's 7 pages): kept to the fewest calls back into Qt. An invalid index (the root) has
    # row -1 and internal id 0 (_TOP), a row's internal id is its group's position + 1.
    def index(self, row: int, column: int = 0, parent: Index = _ROOT) -> QModelIndex:
        if column or row < 0 or parent.internalId():  # a row has no children
            return QModelIndex()
        groups = self.groups
        g = parent.row()
        if g < 0:
            return self.createIndex(row, 0, _TOP) if row < len(groups) else QModelIndex()
        if g < len(groups):
            group = groups[g]
            shown = len(group.rows)
            if row < shown or (row == shown and group.left > 0):
                return self.createIndex(row, 0, g + 1)
        return QModelIndex()

    def parent(self, index: Index = _ROOT) -> QModelIndex:  # type: ignore[override]
        k = index.internalId()
        if not k:  # a group, or the root
            return QModelIndex()
        return self.createIndex(k - 1, 0, _TOP)

    def rowCount(self, parent: Index = _ROOT) -> int:
        if parent.internalId():
            return 0
        g = parent.row()
        if g < 0:
            return len(self.groups)
        if g >= len(self.groups):
            return 0
        group = self.groups[g]
        return len(group.rows) + (1 if group.left > 0 else 0)

    def columnCount(self, parent: Index = _ROOT) -> int:
        return 1

    def hasChildren(self, parent: Index = _ROOT) -> bool:
        return self.rowCount(parent) > 0

    def canFetchMore(self, parent: Index) -> bool:
        group = self.group_of(parent)
        return group is not None and group.wanted and group.left > 0

    def fetchMore(self, parent: Index) -> None:
        group = self.group_of(parent)
        if group is None or group.left <= 0:
            return
        group.wanted = False
        parent = self.index(parent.row(), 0)
        shown, fetched = len(group.rows), group.fetched
        links = self._page(group.relation, fetched, PAGE)
        last = group.is_last(links)
        if last:
            group.open_ended = False
            # The "Show more" row goes first, while the model still has it; a short page
            # (the index changed under us) ends the group too.
            self.beginRemoveRows(parent, shown, shown)
            group.count = fetched
            self.endRemoveRows()
        rows = self._rows(links)
        if rows and group.rows and group.rows[-1].joins(rows[0]):  # the last source goes on
            group.rows[-1] = group.rows[-1].joined(rows.pop(0))
            joined = self.index(shown - 1, 0, parent)
            self.dataChanged.emit(joined, joined)
        group.fetched += len(links)
        if rows:
            # The new rows go before the "Show more" row, which stays last.
            self.beginInsertRows(parent, shown, shown + len(rows) - 1)
            group.rows.extend(rows)
            if last:
                group.count = group.fetched
            self.endInsertRows()
        elif last:
            group.count = group.fetched
        if not last:
            more = self.index(len(group.rows), 0, parent)
            self.dataChanged.emit(more, more)  # its "(N not shown)"

    def flags(self, index: Index) -> Qt.ItemFlag:
        if index.internalId():
            return _ROW_FLAGS  # a row: never has children, so the view need not ask
        g = index.row()  # a group (or the root, -1)
        if 0 <= g < len(self.groups) and (self.groups[g].paged or self.groups[g].rows):
            return _GROUP_FLAGS
        return _NO_FLAGS

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        group = self.group_of(index)
        if group is not None:  # a group's title: drawn as plain text by the default delegate
            if role == Qt.ItemDataRole.DisplayRole:
                return group.title
            if role == Qt.ItemDataRole.FontRole and (group.paged or group.rows):
                font = QApplication.font()
                font.setBold(True)
                return font
            return None
        k = index.internalId() - 1
        if not 0 <= k < len(self.groups):
            return None
        group, row = self.groups[k], index.row()
        if row < len(group.rows):
            item = group.rows[row]
            if role == ROLE_ID:
                return item.entry_id
            if role == ROLE_HTML:
                return item.html
            if role == ROLE_LINES:
                return item.lines
            if role == ROLE_IMAGES:
                return item.images
            if role == Qt.ItemDataRole.DisplayRole:
                return item.text
            if role == Qt.ItemDataRole.ToolTipRole:
                return item.tooltip
            return None
        if row == len(group.rows) and group.left > 0:  # the "Show more" row
            if role == Qt.ItemDataRole.DisplayRole:
                return group.more_label
            if role == ROLE_MORE:
                return k
            if role == Qt.ItemDataRole.ToolTipRole:
                return MORE_TIP
        return None


class _Painted(NamedTuple):
    """What paints a row (kept by the row): laid out once, drawn at each paint."""

    font: QFont
    dpr: float
    doc: QTextDocument


class _InertDocument(QTextDocument):
    """Paints a row's escaped rich text; loads nothing, whatever a string might ask."""

    def __init__(self, asked: list[str] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # resources refused (none, with escaped text): shared by the delegate's documents
        self.asked: list[str] = [] if asked is None else asked

    def loadResource(self, type: int, name: QUrl | str) -> object:
        self.asked.append(name.toString() if isinstance(name, QUrl) else name)
        return None


class RowDelegate(QStyledItemDelegate):
    """Paints a link row's unwrapped lines (source, then each context line), clipped at the
    panel's edge: a row is as high as its lines, and the whole context is in the tooltip.
    Formulas are our typeset images (given to the document, never loaded). Group titles and
    "Show more" rows are plain text, painted as any item.

    Each row keeps the document that paints it (parsed and laid out once, see
    :meth:`document`): parsing a row's HTML at each paint was ~0.4 ms a row, a repaint of
    the panel 10-20 ms. The rows are asked of the model directly (:meth:`BacklinksModel.row_at`)."""

    def __init__(self, model: BacklinksModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.asked: list[str] = []  # resources any row's document was asked to load
        self._option = QTextOption(Qt.AlignmentFlag.AlignLeft)
        self._option.setWrapMode(QTextOption.WrapMode.NoWrap)
        # A group's title or a "Show more" row: one line of the view's (bold) font, as high
        # as the style makes it; measured once per font (each measure asked ~10 roles).
        self._plain_sizes: list[tuple[bool, QFont, QSize]] = []

    def document(self, row: Row, font: QFont, dpr: float) -> QTextDocument:
        """The document painting ``row`` in ``font`` at pixel ratio ``dpr``: made when the
        row is first painted (or restyled), kept by the row."""
        kept = row.doc
        if isinstance(kept, _Painted) and kept.dpr == dpr and kept.font == font:
            return kept.doc
        doc = _InertDocument(self.asked)
        doc.setDocumentMargin(0)
        doc.setDefaultTextOption(self._option)
        doc.setDefaultFont(font)
        doc.setHtml(row.html)
        if row.images:
            add_math(doc, row.images, dpr)
        row.doc = _Painted(QFont(font), dpr, doc)
        return doc

    def row_height(self, option: QStyleOptionViewItem, lines: int = 1) -> int:
        """The label's line and ``lines`` context lines (a formula stands a little taller
        than text: each context line has room for one)."""
        spacing = option.fontMetrics.lineSpacing()
        return spacing + lines * (spacing + 4) + _PAD[1] + _PAD[3] + 2

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        row = self.model.row_at(index)
        if row is not None:
            return QSize(0, self.row_height(option, row.lines))
        # The view's one column is stretched to its width (no horizontal scroll bar): only
        # the height of a title's line counts.
        group, font = index.internalId() == _TOP, option.font
        for is_group, measured, size in self._plain_sizes:
            if is_group == group and measured == font:
                return size
        size = QSize(0, super().sizeHint(option, index).height())
        if len(self._plain_sizes) >= 8:  # the font changed often (zoomed): the last ones
            del self._plain_sizes[:2]
        self._plain_sizes.append((group, QFont(font), size))
        return size

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        row = self.model.row_at(index)
        if row is None:
            super().paint(painter, option, index)
            return
        # The background, focus and selection only (a row has no text, icon, font or brush
        # of its own in the model): the lines are the row's document.
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, widget)
        doc = self.document(row, option.font, widget.devicePixelRatioF() if widget else 2.0)
        rect = option.rect.adjusted(_PAD[0], _PAD[1], -_PAD[2], -_PAD[3])
        context = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, option.palette.color(role))
        context.clip = QRect(0, 0, rect.width(), rect.height()).toRectF()
        painter.save()
        painter.translate(rect.topLeft())
        painter.setClipRect(QRect(0, 0, rect.width(), rect.height()))
        doc.documentLayout().draw(painter, context)
        painter.restore()


class BacklinksPanel(QWidget):
    entryActivated = Signal(str)
    entryActivatedNewTab = Signal(str)  # a row Ctrl+clicked or middle-clicked
    entryHovered = Signal(str)  # the pointer is on a row of this source ("": on none)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("backlinksPanel")
        self.title = QLabel("Backlinks")
        self.title.setObjectName("panelTitle")
        self.model = BacklinksModel(self)
        self.delegate = RowDelegate(self.model, self)
        self.tree = QTreeView()
        self.tree.setHeaderHidden(True)
        self.tree.setIndentation(14)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setUniformRowHeights(False)  # group titles are one line, rows two
        self.tree.setItemDelegate(self.delegate)
        self.tree.setModel(self.model)
        self.tree.activated.connect(self._activate)
        self.tree.clicked.connect(self._activate)
        NewTabClicks(self.tree, self._activate_new_tab)
        # The pointer on a row previews its source (the window shows the page preview).
        self.tree.setMouseTracking(True)
        self.tree.entered.connect(lambda index: self.entryHovered.emit(index.data(ROLE_ID) or ""))
        self.tree.viewport().installEventFilter(self)
        # Scrolling (wheel, scroll bar) a "Show more" row into view fetches its page; the
        # keyboard moving onto it does not (Enter does), nor a layout of the view.
        self.tree.verticalScrollBar().actionTriggered.connect(
            lambda _action: QTimer.singleShot(0, self._fetch_visible)
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.title)
        layout.addWidget(self.tree)
        self._entry_id: str | None = None
        # A "Show more" row replaced by its page under the pointer: the second half of a
        # double click (or click + activation) on it must not open the row now there.
        self._fetched_at: tuple[int, int, float] | None = None
        # Unlinked mentions are searched one at a time on a runner; opening another entry
        # cancels the search (its answer is dropped).
        self._mentions = TaskRunner(self)
        self._mentions.done.connect(self._on_unlinked)
        # A search asked for starts once the panel has painted the click (when its next
        # paint comes, or after UNLINKED_WAIT_MS if none does): on the worker it shared the
        # interpreter with the window's panels and their paint.
        self._unlinked_wanted: tuple[str, Callable[[str], list[SearchHit]],
                                     Callable[[], None] | None] | None = None  # fmt: skip
        self._unlinked_later = QTimer(self)
        self._unlinked_later.setSingleShot(True)
        self._unlinked_later.timeout.connect(self._start_unlinked)
        # The first pages of the views shown last, as rows (their documents laid out when
        # painted), by view: the index answers the same view for an entry until it changes
        # (VaultIndex.backlinks_view), and a reader goes back and forth between a hub and
        # its notes. Its unlinked mentions too, once found: a search each visit took a
        # worker's time (and the interpreter's) from the next click.
        self._built = KeptViews()
        self._view: BacklinksView | None = None

    def show_backlinks(
        self, view: BacklinksView | None, unlinked: list[SearchHit] | None = None
    ) -> None:
        """Show the backlinks of ``view`` (the index's :class:`BacklinksView` of an entry)
        a page at a time; None: no entry. A row whose link came without its context line
        asks ``view.context`` for it when the row is first shown.

        ``unlinked``: the unlinked mentions, or None when they come later through
        :meth:`show_unlinked` (they are searched off the GUI thread)."""
        entry_id = view.entry_id if view is not None else None
        page = view.page if view is not None else no_page
        context_of = view.context if view is not None else None
        self._mentions.cancel()
        self._unlinked_later.stop()
        self._unlinked_wanted = None
        self._entry_id = entry_id
        self._fetched_at = None
        shown, header = groups_of(view)
        self.title.setText(header.title)
        self.title.setToolTip(header.tooltip)
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        paged = [group for group in shown if group.paged]
        self._view = view
        restored = view is not None and self._built.restore(view, paged)
        self.model.reset(shown, page, muted, context_of)
        if view is not None and not restored:
            self._built.keep(view, paged)
        for i in range(len(shown)):
            self.tree.expand(self.model.index(i, 0))
        if unlinked is not None:
            self.show_unlinked(entry_id, unlinked)

    def _kept(self) -> Kept | None:
        """What is kept of the view shown, if it was shown before."""
        return self._built.get(self._view)

    def show_unlinked(self, entry_id: str | None, hits: list[SearchHit]) -> bool:
        """Fill the collapsed "Unlinked mentions" group of ``entry_id`` with ``hits``; a
        result for another entry than the one shown (it came too late) is dropped."""
        if entry_id != self._entry_id or entry_id is None:
            return False
        self.model.remove_groups(
            lambda g: not (g.title.startswith(UNLINKED) or (hits and g.title == NO_BACKLINKS))
        )
        if hits:
            group = self.model.add_group(unlinked_group(hits, self.model.muted, self.model.theme))
            self.tree.collapse(group)
        return True

    def find_unlinked(
        self,
        entry_id: str,
        search: Callable[[str], list[SearchHit]],
        cancel: Callable[[], None] | None = None,
    ) -> None:
        """Ask ``search(entry_id)`` for the unlinked mentions off the GUI thread (a title
        that is a common word can take long) and show them when they come, unless another
        entry has been shown by then. ``cancel`` (from the GUI thread) stops a search that
        is superseded, e.g. by interrupting its SQLite connection.

        Found once for a view (until the index changes: see :meth:`show_backlinks`), they
        are shown again at once when it is shown again."""
        kept = self._kept()
        if kept is not None and kept.unlinked is not None and kept.view.entry_id == entry_id:
            self.show_unlinked(entry_id, kept.unlinked)
            return
        self._mentions.cancel()
        self._unlinked_wanted = (entry_id, search, cancel)
        # hidden, the panel paints nothing: started on the next turn of the event loop
        self._unlinked_later.start(UNLINKED_WAIT_MS if self.tree.viewport().isVisible() else 0)

    def _start_unlinked(self) -> None:
        if self._unlinked_wanted is None:
            return
        if step_queue().pending():
            # the window is handing its views over in pieces (it is starting): the search's
            # Python work would halve their share of the interpreter; it waits for them
            when_quiet(self._start_unlinked, self)
            return
        wanted, self._unlinked_wanted = self._unlinked_wanted, None
        assert wanted is not None
        entry_id, search, cancel = wanted
        state = self._mentions.start(find_mentions, entry_id, search)
        if cancel is not None:
            state.when_cancelled(cancel)

    @property
    def finding_unlinked(self) -> bool:
        """Whether a search for unlinked mentions is still running or queued."""
        return self._mentions.busy or self._unlinked_wanted is not None

    def wait_unlinked(self) -> None:
        """Stop waiting for any unlinked mentions and let their search end (before the
        index it reads is closed)."""
        self._unlinked_later.stop()
        self._unlinked_wanted = None
        self._mentions.stop()

    def _on_unlinked(self, found: tuple[str, list[SearchHit]]) -> None:
        if self.show_unlinked(*found) and (kept := self._kept()) is not None:
            kept.unlinked = list(found[1])

    def clear(self) -> None:
        """Show nothing, and forget where pages came from (the vault is closing)."""
        self._built.clear()
        self.show_backlinks(None, [])

    def set_theme(self, theme: str) -> None:
        """Links, marks and code in the context lines in ``theme``'s colours."""
        self.model.theme = theme
        self.model.muted = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        self._built.clear()  # their rows are in the former colours
        for group in self.model.groups:
            for row in group.rows:
                row.restyle(self.model.muted, theme)
        self.tree.viewport().update()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.tree.viewport():
            kind = event.type()
            if kind == QEvent.Type.Paint and self._unlinked_wanted is not None:
                self._unlinked_later.start(0)  # fires once this paint (the window's) is done
            elif kind == QEvent.Type.Leave:
                self.entryHovered.emit("")
        return super().eventFilter(obj, event)

    def _fetch_visible(self) -> None:
        """Fetch the next page of each open group whose "Show more" row is in view."""
        area = self.tree.viewport().rect()
        for i, group in enumerate(self.model.groups):
            parent = self.model.index(i, 0)
            if group.left <= 0 or not self.tree.isExpanded(parent):
                continue
            rect = self.tree.visualRect(self.model.index(len(group.rows), 0, parent))
            if rect.isValid() and rect.intersects(area):
                self.model.request(parent)

    def _activate(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        at = (index.internalId(), index.row())
        fetched = self._fetched_at
        if (
            fetched is not None
            and fetched[:2] == at
            and time.monotonic() - fetched[2] < (QApplication.doubleClickInterval() / 1000)
        ):
            return  # the rest of the gesture that asked for this page
        more = index.data(ROLE_MORE)
        if more is not None:
            self.model.request(index.parent())
            self._fetched_at = (*at, time.monotonic())
            return
        entry_id = index.data(ROLE_ID)
        if entry_id:
            self.entryActivated.emit(entry_id)

    def _activate_new_tab(self, index: QModelIndex) -> None:
        if index.data(ROLE_MORE) is None and (entry_id := index.data(ROLE_ID)):
            self.entryActivatedNewTab.emit(entry_id)

    # What a test or a screen reader asks.
    def groups(self) -> dict[str, list[str]]:
        """Group title → the source ids listed under it, in order."""
        return {g.title: [row.entry_id for row in g.rows] for g in self.model.groups}

    def item_for(self, group_prefix: str, entry_id: str) -> QModelIndex | None:
        """The row of ``entry_id`` in the first group whose title starts with
        ``group_prefix`` (among the rows fetched so far), as the view's model index."""
        for i, group in enumerate(self.model.groups):
            if group.title.startswith(group_prefix):
                for k, row in enumerate(group.rows):
                    if row.entry_id == entry_id:
                        return self.model.index(k, 0, self.model.index(i, 0))
        return None
