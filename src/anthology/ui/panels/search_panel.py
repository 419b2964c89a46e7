"""Full-text search (Ctrl+Shift+F): FTS5 with snippets and tag:/kind:/status: filters.

The count above the results is the true total; results come a page (:data:`PAGE`) at a
time, a "Show more" row at the end of the list bringing the next. Each row is as tall as its
wrapped snippet at the list's width (asked again when the panel is resized)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from anthology.session.backlinks import snippet_html
from anthology.ui.common.list_keys import ArrowKeysToList
from anthology.ui.common.new_tab_clicks import NewTabClicks
from anthology.vault import QueryTooLarge, SearchHit, display_labels
from anthology.vault.render.safe_text import MAX_SHOWN_CHARS, html_text, tooltip_html

ROLE_ID = Qt.ItemDataRole.UserRole
PAGE = 50  # results shown at first, and added by each "Show more"
MORE = "\x00more"  # the id of the "Show more" row


class SearchPanel(QWidget):
    entryActivated = Signal(str)
    entryActivatedNewTab = Signal(str)  # a result Ctrl+clicked or middle-clicked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.box = QLineEdit()
        self.box.setObjectName("searchBox")
        self.box.setPlaceholderText("Search…  tag:x  kind:practice  status:active  -word")
        self.box.setClearButtonEnabled(True)
        self.summary = QLabel("")
        self.summary.setObjectName("panelTitle")
        self.results = QListWidget()
        self.results.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.box)
        layout.addWidget(self.summary)
        layout.addWidget(self.results)
        # Search while typing, but not on every keystroke of a fast typist.
        self._timer = QTimer(self, singleShot=True, interval=120)
        self._timer.timeout.connect(self.run_search)
        self.box.textChanged.connect(lambda _t: self._timer.start())
        self.box.returnPressed.connect(self._enter)
        self.results.itemActivated.connect(self._open)
        self.results.itemClicked.connect(self._open)
        ArrowKeysToList(self.box, self.results)
        NewTabClicks(self.results, self._open_new_tab)
        self._search: Callable[..., list[SearchHit]] | None = None
        self._total: Callable[[str], int] | None = None
        self._query = ""  # the query whose results are shown
        self._shown = 0  # results shown of it
        self._count = 0  # results it has in all
        self.theme = "light"  # the snippets' link and mark colours

    def set_theme(self, theme: str) -> None:
        self.theme = theme
        if self.box.text().strip():
            self.run_search()

    def set_search_function(
        self,
        fn: Callable[..., list[SearchHit]] | None,
        total: Callable[[str], int] | None = None,
    ) -> None:
        """``fn(query, limit=…, offset=…)`` answers a page of results (``fn(query)`` the
        first, when it takes no paging); ``total(query)`` counts them all."""
        self._search, self._total = fn, total

    def search(self, query: str) -> None:
        """Put ``query`` in the box and show its results now."""
        self.box.setText(query)
        self._timer.stop()
        self.run_search()

    def run_search(self) -> None:
        query = self.box.text().strip()
        self.results.clear()
        self._query, self._shown, self._count = query, 0, 0
        if not query or self._search is None:
            self.summary.setText("")
            return
        try:
            hits = self._page(query, 0)
            self._count = self._total(query) if self._total is not None else len(hits)
        except QueryTooLarge as exc:  # said where the count of results goes
            self.summary.setText(str(exc).capitalize())
            return
        self._count = max(self._count, len(hits))
        self.summary.setText(f"{self._count:,} result{'s' if self._count != 1 else ''}")
        self._add(hits)
        if hits:
            self.results.setCurrentRow(0)

    def _page(self, query: str, offset: int) -> list[SearchHit]:
        assert self._search is not None
        if self._total is None:  # a plain search function: one page, as it answers
            return self._search(query) if offset == 0 else []
        return self._search(query, limit=PAGE, offset=offset)

    def show_more(self) -> None:
        """The next page of results, after those shown."""
        if not self._query or self._shown >= self._count:
            return
        last = self.results.count() - 1
        if last >= 0 and self.results.item(last).data(ROLE_ID) == MORE:
            self.results.takeItem(last)
        try:
            hits = self._page(self._query, self._shown)
        except QueryTooLarge:
            return
        if not hits:  # the index changed meanwhile: what is shown is all there is
            self._count = self._shown
            return
        self._add(hits)

    def _add(self, hits: list[SearchHit]) -> None:
        labels = display_labels([hit.entry for hit in hits])
        for hit, entry_label in zip(hits, labels, strict=True):
            item = QListWidgetItem()
            item.setData(ROLE_ID, hit.entry.id)
            item.setToolTip(tooltip_html(hit.entry.path))
            snippet = snippet_html(hit.snippet, theme=self.theme)  # the line as it reads
            self._add_row(
                item,
                f"<b>{html_text(entry_label, limit=MAX_SHOWN_CHARS)}</b><br>"
                f"<span style='font-size:small'>{snippet}</span>",
            )
        self._shown += len(hits)
        if self._shown < self._count:
            more = QListWidgetItem()
            more.setData(ROLE_ID, MORE)
            left = self._count - self._shown
            self._add_row(more, f"<i>Show {min(PAGE, left):,} more of {left:,}…</i>")

    def _add_row(self, item: QListWidgetItem, html: str) -> None:
        label = QLabel(html)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setContentsMargins(4, 3, 4, 5)
        label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.results.addItem(item)
        self.results.setItemWidget(item, label)
        item.setSizeHint(self._row_size(label))

    def _row_size(self, label: QLabel) -> QSize:
        """The row's size at the list's width: the whole wrapped snippet (a label's own
        size hint, asked before it has a width, cut rows to half a line)."""
        width = max(80, self.results.viewport().width())
        return QSize(width, label.heightForWidth(width))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        for i in range(self.results.count()):
            item = self.results.item(i)
            label = self.results.itemWidget(item)
            if isinstance(label, QLabel):
                item.setSizeHint(self._row_size(label))

    def _enter(self) -> None:
        self._timer.stop()
        self.run_search()
        item = self.results.currentItem()
        if item is not None:
            self._open(item)

    def _open(self, item: QListWidgetItem) -> None:
        if item.data(ROLE_ID) == MORE:
            self.show_more()
        else:
            self.entryActivated.emit(item.data(ROLE_ID))

    def _open_new_tab(self, index: QModelIndex) -> None:
        if index.data(ROLE_ID) != MORE:
            self.entryActivatedNewTab.emit(index.data(ROLE_ID))

    def result_ids(self) -> list[str]:
        """The ids of the results shown (not the "Show more" row)."""
        ids = (self.results.item(i).data(ROLE_ID) for i in range(self.results.count()))
        return [i for i in ids if i != MORE]

    @property
    def total(self) -> int:
        """How many results the query has in all."""
        return self._count
