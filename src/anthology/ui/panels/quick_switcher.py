"""The quick switcher (Ctrl+O): type a few letters of an id, title or alias, press Enter.
With nothing typed it lists the entries opened last first (the vault's recent entries)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout

from anthology.ui.common.list_keys import ArrowKeysToList
from anthology.vault import EntryRef, display_labels, rank
from anthology.vault.render.safe_text import MAX_SHOWN_CHARS, plain_text, tooltip_html

ROLE_ID = Qt.ItemDataRole.UserRole


class QuickSwitcher(QDialog):
    entryChosen = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("quickSwitcher")
        self.setWindowTitle("Go to entry")
        self.setModal(True)
        self.resize(560, 420)
        self.input = QLineEdit()
        self.input.setPlaceholderText("Type an id, a title or an alias…")
        self.list = QListWidget()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.input)
        layout.addWidget(self.list)
        self.input.textChanged.connect(self._filter)
        self.input.returnPressed.connect(self._choose)
        self.list.itemActivated.connect(self._choose)
        ArrowKeysToList(self.input, self.list)
        self._entries: list[tuple[EntryRef, list[str]]] = []
        self._items: list[EntryRef] = []
        self._names: list[list[str]] = []
        self._made = True  # _items and _names are made of _entries
        self._recent: list[str] = []  # entry ids, the last opened first

    def set_entries(self, entries: list[tuple[EntryRef, list[str]]]) -> None:
        """The entries to offer. What is matched is made when the switcher is next
        opened (or now, if it is open): a start at 100,000 entries made it for nothing."""
        self._entries = entries
        self._items, self._names = [], []
        self._made = False
        if self.isVisible():
            self._filter(self.input.text())

    def _lists(self) -> tuple[list[EntryRef], list[list[str]]]:
        if not self._made:
            self._items = [ref for ref, _ in self._entries]
            self._names = [[ref.id, ref.title, *aliases] for ref, aliases in self._entries]
            self._made = True
        return self._items, self._names

    def set_recent(self, ids: list[str]) -> None:
        """The entries opened last (first the latest): listed first for an empty query."""
        self._recent = list(ids)

    def open_switcher(self) -> None:
        self.input.clear()
        self._filter("")
        self.show()
        self.raise_()
        self.input.setFocus()

    def _filter(self, text: str) -> None:
        self.list.clear()
        items, names = self._lists()
        refs = rank(text, items, names, limit=100)
        if not text.strip() and self._recent:  # nothing typed: where the reader was, first
            by_id = {ref.id: ref for ref in items}
            recent = [by_id[i] for i in self._recent if i in by_id]
            seen = {ref.id for ref in recent}
            refs = (recent + [ref for ref in refs if ref.id not in seen])[:100]
        for ref, label in zip(refs, display_labels(refs), strict=True):
            # Item text is drawn as plain text; the tooltip would be read as rich text.
            item = QListWidgetItem(plain_text(label, MAX_SHOWN_CHARS))
            item.setData(ROLE_ID, ref.id)
            item.setToolTip(tooltip_html(ref.path))
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    def _choose(self, *_args) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        self.accept()
        self.entryChosen.emit(item.data(ROLE_ID))

    def visible_ids(self) -> list[str]:
        return [self.list.item(i).data(ROLE_ID) for i in range(self.list.count())]
