"""A ``.base`` file open in a tab: its views, one at a time, as the entry page draws them.

A kind of document (:mod:`~anthology.ui.common.document`, ``opens`` = ``.base``): a view
switcher above the results, the results drawn by
:func:`anthology.vault.render.bases.result_html` (a table, cards or a list; cells link to
their notes), the headers sorting the rows on a click (▲/▼; the file is never written) and
the pages of 1,000 rows a click apart. The query runs on a
:class:`~anthology.ui.common.task_runner.TaskRunner` with a reader of the index (never the
GUI thread's connection), within a budget, with "Evaluating…" shown meanwhile; a newer
question cancels an older one. ``this`` is the base file itself, as in Obsidian.
"""

from __future__ import annotations

import html as html_text
from pathlib import Path
from urllib.parse import unquote

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QIcon, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from anthology.query.bases import Base, ViewResult, resort, run_view
from anthology.query.rows import Budget, Dataset
from anthology.query.values import QueryError
from anthology.tasks import TaskState
from anthology.ui.common.document import DocumentKind, OpenVault, register
from anthology.ui.common.task_runner import TaskRunner
from anthology.vault.query_rows import dataset, index_of, load_base_text, read_base_file
from anthology.vault.render.bases import result_html
from anthology.vault.render.context import RenderContext
from anthology.vault.render.entry import stylesheet
from anthology.vault.render.reading import ReadingStyle
from anthology.vault.render.theme import palette
from anthology.vault.shared_reader import Lend, lend

BASE = "base"
# A base opened on its own may work longer than one drawn inside a page.
TAB_STEPS = 20_000_000
TAB_SECONDS = 10.0


def _evaluate(
    state: TaskState, borrow: Lend, base: Base, view: str | None, ref: str
) -> tuple[ViewResult, Dataset] | QueryError:
    """On a worker: the view evaluated over the index's rows (a reader's connection)."""
    with borrow() as lookup:
        index = index_of(lookup)
        if index is None:
            return QueryError("this vault has no index to answer the base from")
        data = dataset(index)
    budget = Budget(max_steps=TAB_STEPS, seconds=TAB_SECONDS,
                    cancelled=lambda: state.is_cancelled)  # fmt: skip
    try:
        return run_view(base, data, view, this=data.by_path.get(ref), link_source=ref,
                        budget=budget), data  # fmt: skip
    except QueryError as exc:
        return exc


class BaseView(QWidget):
    """A base in a tab (see the module doc)."""

    kind = BASE
    entryLinkActivated = Signal(str, str)  # an entry id, "" (a cell's link)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vault: OpenVault | None = None
        self._ref: str | None = None
        self._base: Base | None = None
        self._result: ViewResult | None = None
        self._data: Dataset | None = None
        self._sorted: tuple[int, bool] | None = None
        self._page = 0
        self._theme = "light"
        self.views = QComboBox()
        self.views.setToolTip("The base's views")
        self.views.activated.connect(self._on_view_chosen)
        self.status = QLabel()
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._on_anchor)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("View:"))
        bar.addWidget(self.views)
        bar.addWidget(self.status, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.browser, 1)
        self._runner = TaskRunner(self)
        self._runner.done.connect(self._on_result)
        self._runner.error.connect(lambda exc: self._show_error(f"{exc}"))

    # ------------------------------------------------------------------ the protocol
    def widget(self) -> QWidget:
        return self

    def document_id(self) -> str | None:
        return self._ref

    def open_document(self, ref: str) -> bool:
        if self._vault is None:
            return False
        try:
            text = read_base_file(self._vault.root, ref)
        except QueryError:
            return False
        self._ref = ref
        self._result = None
        self.views.clear()
        try:
            self._base = load_base_text(text)
        except QueryError as exc:
            self._base = None
            self._show_error(str(exc))
            return True  # the file is there: its problem is what the tab shows
        self.views.addItems([v.name for v in self._base.views])
        self._run(None)
        return True

    def title(self) -> str:
        return Path(self._ref or "").stem

    def tooltip(self) -> str:
        return self._ref or ""

    def icon(self) -> QIcon:
        return QIcon()

    def scroll_position(self) -> int:
        return self.browser.verticalScrollBar().value()

    def restore_scroll(self, position: int) -> None:
        self.browser.verticalScrollBar().setValue(position)

    def scroll_to(self, anchor: str) -> bool:
        """``X.base#View``: that view."""
        index = self.views.findText(anchor)
        if index < 0:
            return False
        self.views.setCurrentIndex(index)
        self._run(anchor)
        return True

    def find_text(self, text: str, *, backward: bool = False) -> bool:
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        return bool(text) and self.browser.find(text, flags)

    def printable(self) -> QTextDocument | None:
        return self.browser.document().clone(self) if self._result is not None else None

    def export_html(self) -> str | None:
        return self.browser.toHtml() if self._result is not None else None

    def set_theme(self, theme: str) -> None:
        if theme in ("light", "dark") and theme != self._theme:
            self._theme = theme
            self._draw()

    def set_reading(self, style: ReadingStyle, *, readable: bool = True, width: int = 760) -> None:
        font = self.browser.font()
        font.setPointSizeF(style.font_size)
        self.browser.setFont(font)

    def attach_vault(self, vault: OpenVault) -> None:
        self._runner.cancel()
        self._vault = vault

    def shutdown(self) -> None:
        self._runner.cancel()

    # ------------------------------------------------------------------ the work
    @property
    def busy(self) -> bool:
        return self._runner.busy

    def _run(self, view: str | None) -> None:
        if self._vault is None or self._base is None or self._ref is None:
            return
        self._sorted, self._page = None, 0
        self.status.setText("Evaluating…")
        borrow = lend(self._vault.lookup, self._vault.reader)
        self._runner.start(_evaluate, borrow, self._base, view, self._ref)

    def index_changed(self) -> None:
        """The index was refreshed: the view shown is evaluated again (its file too)."""
        if self._ref is not None and self._vault is not None:
            view = self.views.currentText() or None
            if self.open_document(self._ref) and view and self.views.findText(view) >= 0:
                self.views.setCurrentIndex(self.views.findText(view))
                self._run(view)

    def _on_view_chosen(self, index: int) -> None:
        self._run(self.views.itemText(index))

    def _on_result(self, answer: object) -> None:
        if isinstance(answer, QueryError):
            self._show_error(str(answer))
            return
        assert isinstance(answer, tuple)
        self._result, self._data = answer
        self._draw()

    def _show_error(self, message: str) -> None:
        self._result = None
        pal = palette(self._theme)
        self.status.setText("")
        self.browser.setHtml(
            f"<html><head><style>{stylesheet(pal.name)}</style></head><body>"
            f'<p style="color: {pal.error};">⊞ Base error: {html_text.escape(message)}</p>'
            "</body></html>"
        )

    def _draw(self) -> None:
        result, data = self._result, self._data
        if result is None or data is None or self._base is None or self._vault is None:
            return
        pal = palette(self._theme)
        ctx = RenderContext(self._ref or "", self._ref or "", self._vault.lookup, pal,
                            vault_root=self._vault.root)  # fmt: skip
        shown = result_html(ctx, result, data, self._base, page=self._page, controls=True,
                            sorted_by=self._sorted)  # fmt: skip
        self.status.setText(f"{result.total:,} results")
        bar = self.browser.verticalScrollBar().value()
        self.browser.setHtml(
            f'<html><head><meta charset="utf-8" /><style>{stylesheet(pal.name)}</style>'
            f"</head><body>{shown}</body></html>"
        )
        self.browser.verticalScrollBar().setValue(bar)

    def sort_by(self, column: int) -> None:
        """A click on a header: that column ascending, again descending (nothing is
        evaluated again, and the file is never written)."""
        if self._result is None or not 0 <= column < len(self._result.columns):
            return
        desc = self._sorted is not None and self._sorted == (column, False)
        self._sorted = (column, desc)
        self._result = resort(self._result, column, desc)
        self._draw()

    def _on_anchor(self, url: QUrl) -> None:
        raw = bytes(url.toEncoded().data()).decode("ascii", "replace")
        scheme, _, rest = raw.partition(":")
        if scheme == "entry":
            path, _, frag = rest.partition("#")
            self.entryLinkActivated.emit(unquote(path), unquote(frag))
        elif scheme == "base-sort" and rest.isdigit():
            self.sort_by(int(rest))
        elif scheme == "base-page" and rest.isdigit():
            self._page = int(rest)
            self._draw()
            self.browser.verticalScrollBar().setValue(0)


def base_exists(vault: OpenVault, ref: str) -> bool:
    try:
        read_base_file(vault.root, ref)
    except QueryError:
        return False
    return True


register(DocumentKind(BASE, BaseView, base_exists, "Base", opens=lambda rel: rel.endswith(".base")))
