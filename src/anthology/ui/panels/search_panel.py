"""Full-text search (Ctrl+Shift+F): FTS5 with snippets and tag:/kind:/status: filters."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from anthology.session.backlinks import snippet_html
from anthology.ui.common.list_keys import ArrowKeysToList
from anthology.ui.common.new_tab_clicks import NewTabClicks
from anthology.vault import QueryTooLarge, SearchHit, display_labels
from anthology.vault.render.safe_text import MAX_SHOWN_CHARS, html_text, tooltip_html

ROLE_ID = Qt.ItemDataRole.UserRole


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
        NewTabClicks(self.results, lambda i: self.entryActivatedNewTab.emit(i.data(ROLE_ID)))
        self._search: Callable[[str], list[SearchHit]] | None = None
        self.theme = "light"  # the snippets' link and mark colours

    def set_theme(self, theme: str) -> None:
        self.theme = theme
        if self.box.text().strip():
            self.run_search()

    def set_search_function(self, fn: Callable[[str], list[SearchHit]] | None) -> None:
        self._search = fn

    def search(self, query: str) -> None:
        """Put ``query`` in the box and show its results now."""
        self.box.setText(query)
        self._timer.stop()
        self.run_search()

    def run_search(self) -> None:
        query = self.box.text().strip()
        self.results.clear()
        if not query or self._search is None:
            self.summary.setText("")
            return
        try:
            hits = self._search(query)
        except QueryTooLarge as exc:  # said where the count of results goes
            self.summary.setText(str(exc).capitalize())
            return
        self.summary.setText(f"{len(hits)} result{'s' if len(hits) != 1 else ''}")
        labels = display_labels([hit.entry for hit in hits])
        for hit, entry_label in zip(hits, labels, strict=True):
            item = QListWidgetItem()
            item.setData(ROLE_ID, hit.entry.id)
            item.setToolTip(tooltip_html(hit.entry.path))
            snippet = snippet_html(hit.snippet, theme=self.theme)  # the line as it reads
            label = QLabel(
                f"<b>{html_text(entry_label, limit=MAX_SHOWN_CHARS)}</b><br>"
                f"<span style='font-size:small'>{snippet}</span>"
            )
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setContentsMargins(4, 3, 4, 5)
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            self.results.addItem(item)
            self.results.setItemWidget(item, label)
            item.setSizeHint(label.sizeHint())
        if hits:
            self.results.setCurrentRow(0)

    def _enter(self) -> None:
        self._timer.stop()
        self.run_search()
        item = self.results.currentItem()
        if item is not None:
            self._open(item)

    def _open(self, item: QListWidgetItem) -> None:
        self.entryActivated.emit(item.data(ROLE_ID))

    def result_ids(self) -> list[str]:
        return [self.results.item(i).data(ROLE_ID) for i in range(self.results.count())]
