"""Find Path (Go › Find Path…, Ctrl+Shift+P; a node's "Path to…"): how are A and B related?

Two fields that match entries as the quick switcher does (:func:`anthology.vault.rank`),
a "typed relations only" switch, and the k shortest paths (k ≤ 5) of
:class:`anthology.graph.paths.PathFinder` listed shortest first as chains
("SOTA-050 —introduced by→ LIT-008 ←paper— NOTE-011"). The chosen path is highlighted on
the graph (``pathChosen``) and its entries are links (``entryActivated``). "No path" is
said plainly.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from anthology.graph.paths import MAX_PATHS, LinkPath, PathFinder, format_path, no_path_text
from anthology.ui.common.list_keys import ArrowKeysToList
from anthology.vault import EntryRef, display_labels, rank
from anthology.vault.render.safe_text import MAX_SHOWN_CHARS, plain_text, tooltip_html

ROLE_ID = Qt.ItemDataRole.UserRole


class EntryField(QWidget):
    """A line to type in and the entries it matches, best first (the quick switcher's
    matching); ``chosen()`` is the current row's id."""

    changed = Signal()

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.input = QLineEdit()
        self.input.setObjectName(f"{name}Input")
        self.input.setPlaceholderText("Type an id, a title or an alias…")
        self.list = QListWidget()
        self.list.setObjectName(f"{name}List")
        self.list.setMaximumHeight(120)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.input)
        lay.addWidget(self.list)
        ArrowKeysToList(self.input, self.list)
        self.input.textChanged.connect(self._filter)
        self.list.currentRowChanged.connect(lambda _r: self.changed.emit())
        self._items: list[EntryRef] = []
        self._names: list[list[str]] = []

    def set_entries(self, items: list[EntryRef], names: list[list[str]]) -> None:
        self._items, self._names = items, names
        self._filter(self.input.text())

    def _filter(self, text: str) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        refs = rank(text, self._items, self._names, limit=50) if text.strip() else []
        for ref, label in zip(refs, display_labels(refs), strict=True):
            item = QListWidgetItem(plain_text(label, MAX_SHOWN_CHARS))
            item.setData(ROLE_ID, ref.id)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        self.list.blockSignals(False)
        self.changed.emit()

    def choose(self, entry_id: str, label: str) -> None:
        """Put ``entry_id`` in the field as if typed and picked."""
        self.input.blockSignals(True)
        self.input.setText(label)
        self.input.blockSignals(False)
        self.list.blockSignals(True)
        self.list.clear()
        item = QListWidgetItem(plain_text(label, MAX_SHOWN_CHARS))
        item.setData(ROLE_ID, entry_id)
        self.list.addItem(item)
        self.list.setCurrentRow(0)
        self.list.blockSignals(False)
        self.changed.emit()

    def chosen(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else item.data(ROLE_ID)


class PathFinderDialog(QDialog):
    """See the module docstring. ``finder`` gives the current graph's path finder (the
    graph view's, built once per graph)."""

    pathChosen = Signal(object)  # LinkPath | None
    entryActivated = Signal(str)

    def __init__(self, finder: Callable[[], PathFinder | None], parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("pathFinder")
        self.setWindowTitle("Find path between entries")
        self.setModal(False)
        self.resize(620, 560)
        self._finder = finder
        self._paths: list[LinkPath] = []
        self._labels: dict[str, str] = {}
        self._full: dict[str, str] = {}
        self.source = EntryField("pathFrom")
        self.target = EntryField("pathTo")
        self.typed_only = QCheckBox("Typed relations only")
        self.typed_only.setObjectName("typedOnly")
        self.typed_only.setToolTip("Walk only links made by a relation property, not body links")
        self.k_spin = QSpinBox()
        self.k_spin.setObjectName("pathCount")
        self.k_spin.setRange(1, MAX_PATHS)
        self.k_spin.setValue(3)
        self.k_spin.setPrefix("up to ")
        self.k_spin.setSuffix(" paths")
        self.results = QListWidget()
        self.results.setObjectName("pathList")
        self.results.setWordWrap(True)
        self.status = QLabel("")
        self.status.setObjectName("pathStatus")
        self.status.setWordWrap(True)
        self.chain = QLabel("")
        self.chain.setObjectName("pathChain")
        self.chain.setWordWrap(True)
        self.chain.setTextFormat(Qt.TextFormat.RichText)
        flags = Qt.TextInteractionFlag
        self.chain.setTextInteractionFlags(
            flags.LinksAccessibleByMouse | flags.LinksAccessibleByKeyboard
        )
        self.chain.linkActivated.connect(self._on_link)

        form = QFormLayout()
        form.addRow("From", self.source)
        form.addRow("To", self.target)
        options = QHBoxLayout()
        options.addWidget(self.typed_only)
        options.addStretch(1)
        options.addWidget(self.k_spin)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addLayout(options)
        lay.addWidget(self.status)
        lay.addWidget(self.results, 1)
        lay.addWidget(self.chain)

        self.source.changed.connect(self.find)
        self.target.changed.connect(self.find)
        self.typed_only.toggled.connect(self.find)
        self.k_spin.valueChanged.connect(self.find)
        self.results.currentRowChanged.connect(self._on_row)

    def set_entries(self, entries: list[tuple[EntryRef, list[str]]]) -> None:
        refs = [ref for ref, _ in entries]
        names = [[ref.id, ref.title, *aliases] for ref, aliases in entries]
        full = display_labels(refs)
        self._full = dict(zip((r.id for r in refs), full, strict=True))
        # in a chain an entry with an id of its own reads as that id (SOTA-050), one without
        # as its title (with its folder where titles repeat); the list rows say the rest
        self._labels = {
            r.id: label if r.has_path_id else r.id for r, label in zip(refs, full, strict=True)
        }
        self.source.set_entries(refs, names)
        self.target.set_entries(refs, names)

    def label(self, entry_id: str) -> str:
        return self._labels.get(entry_id, entry_id)

    def open_between(self, a: str | None = None, b: str | None = None) -> None:
        """Show the dialog with ``a`` (and ``b``) already chosen; the other field focused."""
        for field, entry_id in ((self.source, a), (self.target, b)):
            if entry_id is not None:
                field.choose(entry_id, self._full.get(entry_id, entry_id))
        self.show()
        self.raise_()
        (self.target if a is not None and b is None else self.source).input.setFocus()
        self.find()

    def paths(self) -> list[LinkPath]:
        return list(self._paths)

    def find(self) -> None:
        """Ask for the paths between the two chosen entries and list them."""
        a, b = self.source.chosen(), self.target.chosen()
        self.results.blockSignals(True)
        self.results.clear()
        self.results.blockSignals(False)
        self._paths = []
        self.chain.setText("")
        finder = self._finder()
        if a is None or b is None or finder is None:
            self.status.setText("Choose two entries." if finder is not None else
                                "The graph is not loaded yet.")  # fmt: skip
            self.pathChosen.emit(None)
            return
        if a == b:
            self.status.setText("Choose two different entries.")
            self.pathChosen.emit(None)
            return
        typed = self.typed_only.isChecked()
        self._paths = finder.paths(a, b, k=self.k_spin.value(), typed_only=typed)
        if not self._paths:
            self.status.setText(no_path_text(self.label(a), self.label(b), typed))
            self.pathChosen.emit(None)
            return
        n = len(self._paths)
        self.status.setText(f"{n} path{'s' if n > 1 else ''}, shortest first:")
        for p in self._paths:
            item = QListWidgetItem(
                f"{len(p)} hop{'s' if len(p) > 1 else ''}: {format_path(p, self.label)}"
            )
            item.setToolTip(tooltip_html("\n".join(self._full.get(k, k) for k in p.nodes)))
            self.results.addItem(item)
        self.results.setCurrentRow(0)

    def _on_row(self, row: int) -> None:
        if not 0 <= row < len(self._paths):
            return
        path = self._paths[row]
        parts = [self._link(path.nodes[0])]
        for hop in path.hops:
            arrow = f" —{hop.label}→ " if hop.forward else f" ←{hop.label}— "
            parts += [escape(arrow), self._link(hop.target)]
        self.chain.setText("".join(parts))
        self.pathChosen.emit(path)

    def _link(self, entry_id: str) -> str:
        return (
            f'<a href="entry:{escape(entry_id, quote=True)}" '
            f'title="{escape(self._full.get(entry_id, entry_id), quote=True)}">'
            f"{escape(self.label(entry_id))}</a>"
        )

    def _on_link(self, href: str) -> None:
        if href.startswith("entry:"):
            self.entryActivated.emit(href[len("entry:") :])
