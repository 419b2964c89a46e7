"""Find Path (Go › Find Path…, Ctrl+Shift+P; a node's "Path to…"): how are A and B related?

Two fields that match entries as the quick switcher does (:func:`anthology.vault.rank`),
a "typed relations only" switch, and the k shortest paths (k ≤ 5) of
:class:`anthology.graph.paths.PathFinder` listed shortest first as chains
("SOTA-050 —introduced by→ LIT-008 ←paper— NOTE-011"). The chosen path is highlighted on
the graph (``pathChosen``) and its entries are links (``entryActivated``). "No path" is
said plainly.

The paths are found on a :class:`~anthology.ui.common.task_runner.TaskRunner`: the first ask
builds the graph's networkx graph (seconds and hundreds of MB at 100,000 entries); a newer
ask cancels an older one. The labels of the whole vault (told apart where titles repeat)
are made there too, once per set of entries. What is shown is cut: an entry at most
:data:`LABEL_CHARS` characters in a chain, :data:`ROW_CHARS` in a list row, a relation
:data:`RELATION_CHARS` (a 100,000-character title made the dialog a million pixels wide),
and without bidi controls (:func:`anthology.vault.shown.plain_text`).
"""

from __future__ import annotations

import threading
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

from anthology.graph.paths import (
    MAX_PATHS,
    LinkPath,
    PathFinder,
    arrow,
    format_path,
    no_path_text,
)
from anthology.tasks import TaskState
from anthology.ui.common.list_keys import ArrowKeysToList
from anthology.ui.common.task_runner import TaskRunner, describe_error
from anthology.vault import EntryRef, display_labels, rank
from anthology.vault.render.safe_text import tooltip_html
from anthology.vault.shown import plain_text

ROLE_ID = Qt.ItemDataRole.UserRole
LABEL_CHARS = 80  # an entry in a chain or a status line
ROW_CHARS = 200  # an entry in a field's list (and its line)
RELATION_CHARS = 40  # a hop's relation in a chain


class VaultLabels:
    """Every entry's label, told apart where titles repeat (``full``: tooltips, fields),
    and how it reads in a chain (``chain``: its id when it has one of its own, else that
    label): ~0.7 s at 100,000 entries, made once on whichever runner asks first. The GUI
    thread only reads :attr:`value` (None until made), never waits for it."""

    def __init__(self, refs: list[EntryRef]) -> None:
        self._refs = refs
        self._lock = threading.Lock()
        self.value: tuple[dict[str, str], dict[str, str]] | None = None

    def make(self, _state: TaskState | None = None) -> VaultLabels:
        with self._lock:
            if self.value is None:
                refs = self._refs
                full = display_labels(refs)
                self.value = (
                    dict(zip((r.id for r in refs), full, strict=True)),
                    {r.id: text for r, text in zip(refs, full, strict=True) if r.has_path_id},
                )
        return self


def _find(
    state: TaskState,
    finder: PathFinder,
    labels: VaultLabels,
    asked: tuple[str, str, int, bool],
) -> tuple[tuple[str, str, int, bool], list[LinkPath]]:
    """On the runner: the paths (and, the first time, the graph they walk), and the
    labels they will be read in."""
    a, b, k, typed = asked
    paths = finder.paths(a, b, k=k, typed_only=typed, state=state)
    labels.make()
    return asked, paths


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
            item = QListWidgetItem(plain_text(label, ROW_CHARS))
            item.setData(ROLE_ID, ref.id)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        self.list.blockSignals(False)
        self.changed.emit()

    def choose(self, entry_id: str, label: str) -> None:
        """Put ``entry_id`` in the field as if typed and picked."""
        label = plain_text(label, ROW_CHARS)
        self.input.blockSignals(True)
        self.input.setText(label)
        self.input.blockSignals(False)
        self.list.blockSignals(True)
        self.list.clear()
        item = QListWidgetItem(label)
        item.setData(ROLE_ID, entry_id)
        self.list.addItem(item)
        self.list.setCurrentRow(0)
        self.list.blockSignals(False)
        self.changed.emit()

    def chosen(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else item.data(ROLE_ID)

    def relabel(self, entry_id: str, label: str) -> None:
        """Say ``entry_id``, put in by :meth:`choose`, by ``label`` (nothing else changes)."""
        item = self.list.currentItem()
        if self.list.count() != 1 or item is None or item.data(ROLE_ID) != entry_id:
            return
        label = plain_text(label, ROW_CHARS)
        self.input.blockSignals(True)
        self.input.setText(label)
        self.input.blockSignals(False)
        item.setText(label)


class PathFinderDialog(QDialog):
    """See the module docstring. ``finder`` gives the current graph's path finder (the
    graph view's, built once per graph)."""

    pathChosen = Signal(object)  # LinkPath | None
    entryActivated = Signal(str)
    searched = Signal()  # an answer is shown (paths, "no path", or why not)

    def __init__(self, finder: Callable[[], PathFinder | None], parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("pathFinder")
        self.setWindowTitle("Find path between entries")
        self.setModal(False)
        self.resize(620, 560)
        self._finder = finder
        self._paths: list[LinkPath] = []
        self._labels = VaultLabels([])
        self._asked: tuple[str, str, int, bool] | None = None  # the search running
        self._runner = TaskRunner(self)
        self._runner.done.connect(self._on_found)
        self._runner.error.connect(self._on_failed)
        self._label_runner = TaskRunner(self)
        self._label_runner.done.connect(self._on_labels)
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

        self.source.changed.connect(self.find_paths)
        self.target.changed.connect(self.find_paths)
        self.typed_only.toggled.connect(self.find_paths)
        self.k_spin.valueChanged.connect(self.find_paths)
        self.results.currentRowChanged.connect(self._on_row)

    def set_entries(self, entries: list[tuple[EntryRef, list[str]]]) -> None:
        refs = [ref for ref, _ in entries]
        names = [[ref.id, ref.title, *aliases] for ref, aliases in entries]
        # the labels of the whole vault are made on a runner (~0.7 s at 100,000 entries);
        # meanwhile an entry reads as its id
        self._labels = VaultLabels(refs)
        self._label_runner.start(self._labels.make)
        self.source.set_entries(refs, names)
        self.target.set_entries(refs, names)

    def _on_labels(self, labels: VaultLabels) -> None:
        if labels is not self._labels:
            return
        for field in (self.source, self.target):
            chosen = field.chosen()
            if chosen is not None:
                field.relabel(chosen, self.full_label(chosen))
        if self._paths:  # said again in the labels told apart
            row = self.results.currentRow()
            self._show_paths(self._paths)
            self.results.setCurrentRow(max(0, row))

    def label(self, entry_id: str) -> str:
        """How ``entry_id`` reads in a chain or a status line: an entry with an id of its
        own as that id (SOTA-050), one without as its title (with its folder where titles
        repeat), cut to :data:`LABEL_CHARS`."""
        made = self._labels.value
        return plain_text(made[1].get(entry_id, entry_id) if made else entry_id, LABEL_CHARS)

    def full_label(self, entry_id: str) -> str:
        made = self._labels.value
        return made[0].get(entry_id, entry_id) if made else entry_id

    @property
    def searching(self) -> bool:
        """Whether paths are being looked for (the answer comes with ``searched``)."""
        return self._asked is not None

    def open_between(self, a: str | None = None, b: str | None = None) -> None:
        """Show the dialog with ``a`` (and ``b``) already chosen; the other field focused."""
        for field, entry_id in ((self.source, a), (self.target, b)):
            if entry_id is not None:
                field.choose(entry_id, self.full_label(entry_id))
        self.show()
        self.raise_()
        (self.target if a is not None and b is None else self.source).input.setFocus()
        self.find_paths()

    def paths(self) -> list[LinkPath]:
        return list(self._paths)

    def find_paths(self) -> None:
        """Ask for the paths between the two chosen entries; they are listed when found
        (``searched``), a newer ask replacing an older one."""
        a, b = self.source.chosen(), self.target.chosen()
        self.results.blockSignals(True)
        self.results.clear()
        self.results.blockSignals(False)
        self._paths = []
        self._asked = None
        self._runner.cancel()
        self.chain.setText("")
        finder = self._finder()
        if a is None or b is None or finder is None:
            self._say("Choose two entries." if finder is not None else
                      "The graph is not loaded yet.")  # fmt: skip
            return
        if a == b:
            self._say("Choose two different entries.")
            return
        self._asked = (a, b, self.k_spin.value(), self.typed_only.isChecked())
        self.status.setText("Looking for paths…")
        self.pathChosen.emit(None)
        self._runner.start(_find, finder, self._labels, self._asked)

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.pathChosen.emit(None)
        self.searched.emit()

    def _on_found(self, result: tuple[tuple[str, str, int, bool], list[LinkPath]]) -> None:
        asked, paths = result
        if asked != self._asked:
            return  # an older question's answer
        self._asked = None
        a, b, _k, typed = asked
        if not paths:
            self._say(no_path_text(self.label(a), self.label(b), typed))
            return
        self._show_paths(paths)
        self.results.setCurrentRow(0)
        self.searched.emit()

    def _on_failed(self, exc: BaseException) -> None:
        self._asked = None
        self._say(f"Could not look for paths: {plain_text(describe_error(exc), 300)}")

    def _show_paths(self, paths: list[LinkPath]) -> None:
        self._paths = paths
        n = len(paths)
        self.status.setText(f"{n} path{'s' if n > 1 else ''}, shortest first:")
        self.results.blockSignals(True)
        self.results.clear()
        self.results.blockSignals(False)
        for p in paths:
            item = QListWidgetItem(
                f"{len(p)} hop{'s' if len(p) > 1 else ''}: "
                f"{format_path(p, self.label, self._relation)}"
            )
            item.setToolTip(tooltip_html("\n".join(self.full_label(k) for k in p.nodes)))
            self.results.addItem(item)

    @staticmethod
    def _relation(name: str) -> str:
        return plain_text(name, RELATION_CHARS)

    def _on_row(self, row: int) -> None:
        if not 0 <= row < len(self._paths):
            return
        path = self._paths[row]
        parts = [self._link(path.nodes[0])]
        for hop in path.hops:
            parts += [escape(arrow(hop, self._relation)), self._link(hop.target)]
        self.chain.setText("".join(parts))
        self.pathChosen.emit(path)

    def _link(self, entry_id: str) -> str:
        return (
            f'<a href="entry:{escape(entry_id, quote=True)}" '
            f'title="{escape(plain_text(self.full_label(entry_id), ROW_CHARS), quote=True)}">'
            f"{escape(self.label(entry_id))}</a>"
        )

    def _on_link(self, href: str) -> None:
        if href.startswith("entry:"):
            self.entryActivated.emit(href[len("entry:") :])
