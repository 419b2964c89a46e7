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
from dataclasses import dataclass, field

from PySide6.QtCore import (
    QAbstractItemModel,
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

from anthology.tasks import TaskState
from anthology.ui.new_tab_clicks import NewTabClicks
from anthology.ui.task_runner import TaskRunner
from anthology.vault import (
    MATCH_END,
    MATCH_START,
    BacklinksView,
    LinkRow,
    SearchHit,
    display_labels,
)
from anthology.vault.render.safe_text import MAX_SHOWN_CHARS, html_text, plain_text, tooltip_html

ROLE_ID = Qt.ItemDataRole.UserRole
ROLE_MORE = Qt.ItemDataRole.UserRole + 1  # on a "Show more" row: its group's index
ROLE_HTML = Qt.ItemDataRole.UserRole + 2  # on a link row: its two lines, escaped rich text
PAGE = 100
MENTIONS = "mentions"
UNLINKED = "Unlinked mentions"
NO_BACKLINKS = "No backlinks"
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


def highlight_link(context: str, text: str, alias: str | None) -> str:
    """The context line as HTML (escaped), with the link itself in bold."""
    escaped = html_text(context, MAX_SHOWN_CHARS)
    for needle in (f"[[{text}", alias or "", text):
        needle = html_text(needle)
        if needle and needle in escaped:
            start = escaped.index(needle)
            if needle.startswith("[["):
                end = escaped.find("]]", start)
                end = end + 2 if end >= 0 else start + len(needle)
            else:
                end = start + len(needle)
            return f"{escaped[:start]}<b>{escaped[start:end]}</b>{escaped[end:]}"
    return escaped


def snippet_text(snippet: str) -> str:
    """A search snippet as one plain line, its match markers removed."""
    return " ".join(snippet.replace(MATCH_START, "").replace(MATCH_END, "").split())


def snippet_html(snippet: str) -> str:
    """A search snippet as HTML: the text escaped, each match in bold."""
    out = (
        html_text(" ".join(snippet.split()), MAX_SHOWN_CHARS)
        .replace(MATCH_START, "<b>")
        .replace(MATCH_END, "</b>")
    )
    return out + "</b>" * (out.count("<b>") - out.count("</b>"))  # a cut inside a match


def _find_mentions(
    _state: TaskState, entry_id: str, search: Callable[[str], list[SearchHit]]
) -> tuple[str, list[SearchHit]]:
    """``search(entry_id)`` on the runner's thread; touches no widget."""
    try:
        return entry_id, search(entry_id)
    except Exception:  # a closed or replaced index: the mentions are simply not shown
        return entry_id, []


# Entries linking here are counted up to this many (a hub's 100,000 took 0.2 s to count;
# to 10,000, 18 ms): the title says "1,000+" past it. See VaultIndex.backlink_groups.
SOURCES_SHOWN = 1_000
# A group's links likewise (a hub's 750,000 mentions took 60 ms): "mentions (50,000+)",
# paged on until a page comes back short. See VaultIndex.backlink_groups(count_cap=…).
COUNT_SHOWN = 50_000


@dataclass
class _Group:
    title: str
    relation: str | None = None
    count: int = 0  # links under it; only these groups page
    paged: bool = False
    rows: list[_Row] = field(default_factory=list)
    wanted: bool = False  # the reader asked for the next page (clicked or scrolled to it)
    open_ended: bool = False  # counted only up to COUNT_SHOWN: more than ``count``

    @property
    def left(self) -> int:
        if not self.paged:
            return 0
        return PAGE if self.open_ended else self.count - len(self.rows)


class _Row:
    """A row: the source's label over its context line (a link's, or an unlinked
    mention's snippet). Its strings are made when first asked: a page holds 100 rows, a
    screen shows some twenty."""

    __slots__ = ("_context", "_context_of", "_html", "_label", "_muted", "_source", "_tooltip",
                 "entry_id")  # fmt: skip

    def __init__(
        self,
        source: LinkRow | SearchHit,
        muted: str,
        context_of: Callable[[LinkRow], str] | None = None,
        label: str | None = None,
    ) -> None:
        ref = source.source if isinstance(source, LinkRow) else source.entry
        self.entry_id = ref.id
        # As display_labels gives it over the row's page; alone, the source's own.
        self._label = ref.short_label if label is None else label
        self._source, self._muted, self._context_of = source, muted, context_of
        self._context: str | None = None
        self._html: str | None = None
        self._tooltip: str | None = None

    @property
    def context(self) -> str:
        """A link's context line: as it came, or cut from its source when first shown (a
        page of 100 links read 100 bodies to show twenty)."""
        if self._context is None:
            src = self._source
            assert isinstance(src, LinkRow)
            found = src.context
            if not found and src.span is not None and self._context_of is not None:
                try:
                    found = self._context_of(src)
                except Exception:  # a closed or replaced index: the line is left out
                    found = ""
            self._context = found
        return self._context

    def _label_context(self) -> tuple[str, str]:
        src = self._source
        if isinstance(src, LinkRow):
            return self._label, " ".join(self.context.split())
        return self._label, snippet_text(src.snippet)

    @property
    def html(self) -> str:
        """Escaped rich text: the label in bold, a line break, the muted context line."""
        if self._html is None:
            src = self._source
            if isinstance(src, LinkRow):
                label, context = self._label, highlight_link(self.context, src.text, src.alias)
            else:
                label, context = self._label, snippet_html(src.snippet)
            self._html = (
                f"<b>{html_text(label, MAX_SHOWN_CHARS)}</b><br>"
                f"<span style='color:{self._muted}'>{context}</span>"
            )
        return self._html

    @property
    def text(self) -> str:
        """The same as plain text (a screen reader, DisplayRole)."""
        label, context = self._label_context()
        return f"{plain_text(label, MAX_SHOWN_CHARS)}\n{plain_text(context, 500)}"

    @property
    def tooltip(self) -> str:
        # Qt would read a tooltip that looks like HTML as HTML: give it escaped text only.
        if self._tooltip is None:
            label, context = self._label_context()
            self._tooltip = tooltip_html(f"{label}\n{context}")
        return self._tooltip


class BacklinksModel(QAbstractItemModel):
    """Groups (top level) → the rows fetched so far, then a "Show more" row while some are
    left. A group's next page is fetched only when the reader asks (the "Show more" row
    clicked or scrolled into view): ``canFetchMore`` says so only then, because QTreeView
    re-lays out after every insertion and fetches every expanded parent that can fetch more
    — ungated, a hub's 750,000 mentions would all be loaded, a page per layout."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.groups: list[_Group] = []
        self.muted = "#808080"
        self._page: Callable[[str | None, int, int], list[LinkRow]] = lambda r, o, n: []
        self._context_of: Callable[[LinkRow], str] | None = None

    def reset(
        self,
        groups: list[_Group],
        page: Callable[[str | None, int, int], list[LinkRow]],
        muted: str,
        context_of: Callable[[LinkRow], str] | None = None,
    ) -> None:
        self.beginResetModel()
        self.groups, self._page, self.muted = groups, page, muted
        self._context_of = context_of
        for group in groups:
            if group.paged:
                self._append(group)  # the first page of each group, as the panel opens
        self.endResetModel()

    def _rows(self, links: list[LinkRow]) -> list[_Row]:
        labels = display_labels([link.source for link in links])  # told apart per page
        return [
            _Row(link, self.muted, self._context_of, label)
            for link, label in zip(links, labels, strict=True)
        ]

    def _append(self, group: _Group) -> None:
        links = self._page(group.relation, len(group.rows), PAGE) if group.left > 0 else []
        group.rows.extend(self._rows(links))
        if not links or (group.open_ended and len(links) < PAGE):
            group.count = len(group.rows)  # the index changed under us: stop asking
            group.open_ended = False

    def remove_groups(self, keep: Callable[[_Group], bool]) -> None:
        for i in reversed(range(len(self.groups))):
            if not keep(self.groups[i]):
                self.beginRemoveRows(QModelIndex(), i, i)
                del self.groups[i]
                self.endRemoveRows()

    def add_group(self, group: _Group) -> QModelIndex:
        n = len(self.groups)
        self.beginInsertRows(QModelIndex(), n, n)
        self.groups.append(group)
        self.endInsertRows()
        return self.index(n, 0)

    def group_of(self, index: Index) -> _Group | None:
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
    # index, flags and rowCount are asked for every row at each layout: kept short.
    def index(self, row: int, column: int = 0, parent: Index = _ROOT) -> QModelIndex:
        if column != 0 or row < 0 or row >= self.rowCount(parent):
            return QModelIndex()
        return self.createIndex(row, 0, _TOP if not parent.isValid() else parent.row() + 1)

    def parent(self, index: Index = _ROOT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid() or index.internalId() == _TOP:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, _TOP)

    def rowCount(self, parent: Index = _ROOT) -> int:
        if not parent.isValid():
            return len(self.groups)
        if parent.internalId() != _TOP or parent.row() >= len(self.groups):
            return 0
        group = self.groups[parent.row()]
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
        shown = len(group.rows)
        links = self._page(group.relation, shown, PAGE)
        if group.open_ended:  # how many there are is not known: a short page is the last
            last = len(links) < PAGE
        else:
            last = shown + len(links) >= group.count or not links
        if last:
            group.open_ended = False
            # The "Show more" row goes first, while the model still has it; a short page
            # (the index changed under us) ends the group too.
            self.beginRemoveRows(parent, shown, shown)
            group.count = shown
            self.endRemoveRows()
        if links:
            # The new rows go before the "Show more" row, which stays last.
            self.beginInsertRows(parent, shown, shown + len(links) - 1)
            group.rows.extend(self._rows(links))
            if last:
                group.count = len(group.rows)
            self.endInsertRows()
        if not last:
            more = self.index(len(group.rows), 0, parent)
            self.dataChanged.emit(more, more)  # its "(N not shown)"

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return _NO_FLAGS
        if index.internalId() != _TOP:
            return _ROW_FLAGS  # a row: never has children, so the view need not ask
        group = self.groups[index.row()] if index.row() < len(self.groups) else None
        return _GROUP_FLAGS if group is not None and (group.paged or group.rows) else _NO_FLAGS

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
            if role == Qt.ItemDataRole.DisplayRole:
                return item.text
            if role == Qt.ItemDataRole.ToolTipRole:
                return item.tooltip
            return None
        if row == len(group.rows) and group.left > 0:  # the "Show more" row
            if role == Qt.ItemDataRole.DisplayRole:
                left = group.left
                if group.open_ended:
                    return f"Show {PAGE} more"
                return f"Show {min(left, PAGE)} more ({left} not shown)"
            if role == ROLE_MORE:
                return k
            if role == Qt.ItemDataRole.ToolTipRole:
                return MORE_TIP
        return None


class _InertDocument(QTextDocument):
    """Paints a row's escaped rich text; loads nothing, whatever a string might ask."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.asked: list[str] = []  # resources refused (none, with escaped text)

    def loadResource(self, type: int, name: QUrl) -> object:
        self.asked.append(name.toString())
        return None


class RowDelegate(QStyledItemDelegate):
    """Paints a link row's two unwrapped lines (source, then context), clipped at the
    panel's edge: rows stay one height, and the whole context is in the tooltip. Group
    titles and "Show more" rows are plain text, painted as any item."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = _InertDocument(self)
        self.doc.setDocumentMargin(0)
        self.doc.setDefaultTextOption(QTextOption(Qt.AlignmentFlag.AlignLeft))
        option = self.doc.defaultTextOption()
        option.setWrapMode(QTextOption.WrapMode.NoWrap)
        self.doc.setDefaultTextOption(option)

    def row_height(self, option: QStyleOptionViewItem) -> int:
        return 2 * option.fontMetrics.lineSpacing() + _PAD[1] + _PAD[3] + 6

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        if index.data(ROLE_HTML) is None:
            return super().sizeHint(option, index)
        return QSize(0, self.row_height(option))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        html = index.data(ROLE_HTML)
        if html is None:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""  # the background, focus and selection only: the lines are ours
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        self.doc.setDefaultFont(opt.font)
        self.doc.setHtml(html)
        rect = opt.rect.adjusted(_PAD[0], _PAD[1], -_PAD[2], -_PAD[3])
        context = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(role))
        context.clip = QRect(0, 0, rect.width(), rect.height()).toRectF()
        painter.save()
        painter.translate(rect.topLeft())
        painter.setClipRect(QRect(0, 0, rect.width(), rect.height()))
        self.doc.documentLayout().draw(painter, context)
        painter.restore()


def _no_page(relation: str | None, offset: int, limit: int) -> list[LinkRow]:
    return []


class BacklinksPanel(QWidget):
    entryActivated = Signal(str)
    entryActivatedNewTab = Signal(str)  # a row Ctrl+clicked or middle-clicked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("backlinksPanel")
        self.title = QLabel("Backlinks")
        self.title.setObjectName("panelTitle")
        self.model = BacklinksModel(self)
        self.delegate = RowDelegate(self)
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

    def show_backlinks(
        self, view: BacklinksView | None, unlinked: list[SearchHit] | None = None
    ) -> None:
        """Show the backlinks of ``view`` (the index's :class:`BacklinksView` of an entry)
        a page at a time; None: no entry. A row whose link came without its context line
        asks ``view.context`` for it when the row is first shown.

        ``unlinked``: the unlinked mentions, or None when they come later through
        :meth:`show_unlinked` (they are searched off the GUI thread)."""
        entry_id = view.entry_id if view is not None else None
        groups = view.groups if view is not None else []
        sources = view.sources if view is not None else 0
        page = view.page if view is not None else _no_page
        context_of = view.context if view is not None else None
        self._mentions.cancel()
        self._entry_id = entry_id
        self._fetched_at = None
        many = f"{SOURCES_SHOWN:,}+" if sources > SOURCES_SHOWN else f"{sources:,}"
        self.title.setText(f"Backlinks · {many}" if entry_id else "Backlinks")
        shown: list[_Group] = []
        for relation, count in groups:
            # A group's title is drawn as plain text; the relation is a front-matter key,
            # cut and rid of bidi controls all the same.
            name = plain_text(relation, 200) if relation is not None else MENTIONS
            if count > COUNT_SHOWN:
                shown.append(_Group(f"{name} ({COUNT_SHOWN:,}+)", relation, count, paged=True,
                                    open_ended=True))  # fmt: skip
            else:
                shown.append(_Group(f"{name} ({count:,})", relation, count, paged=True))
        if not groups and entry_id:
            shown.append(_Group(NO_BACKLINKS))
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        self.model.reset(shown, page, muted, context_of)
        for i in range(len(shown)):
            self.tree.expand(self.model.index(i, 0))
        if unlinked is not None:
            self.show_unlinked(entry_id, unlinked)

    def show_unlinked(self, entry_id: str | None, hits: list[SearchHit]) -> bool:
        """Fill the collapsed "Unlinked mentions" group of ``entry_id`` with ``hits``; a
        result for another entry than the one shown (it came too late) is dropped."""
        if entry_id != self._entry_id or entry_id is None:
            return False
        self.model.remove_groups(
            lambda g: not (g.title.startswith(UNLINKED) or (hits and g.title == NO_BACKLINKS))
        )
        if hits:
            labels = display_labels([hit.entry for hit in hits])
            rows = [
                _Row(hit, self.model.muted, label=label)
                for hit, label in zip(hits, labels, strict=True)
            ]
            group = self.model.add_group(_Group(f"{UNLINKED} ({len(hits)})", rows=rows))
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
        is superseded, e.g. by interrupting its SQLite connection."""
        state = self._mentions.start(_find_mentions, entry_id, search)
        if cancel is not None:
            state.when_cancelled(cancel)

    @property
    def finding_unlinked(self) -> bool:
        """Whether a search for unlinked mentions is still running or queued."""
        return self._mentions.busy

    def wait_unlinked(self) -> None:
        """Stop waiting for any unlinked mentions and let their search end (before the
        index it reads is closed)."""
        self._mentions.stop()

    def _on_unlinked(self, found: tuple[str, list[SearchHit]]) -> None:
        self.show_unlinked(*found)

    def clear(self) -> None:
        """Show nothing, and forget where pages came from (the vault is closing)."""
        self.show_backlinks(None, [])

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
