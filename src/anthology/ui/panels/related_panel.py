"""The Related entries dock: the entries most alike in words to the one read, those it does
not link to yet first, then those already linked, each with the shared words that explain
it (:meth:`anthology.vault.VaultIndex.related`, see :mod:`anthology.vault.related`).

Asked off the GUI thread (:meth:`RelatedPanel.ask_for`: a worker with a reader of its own,
interrupted when another entry is opened); a click opens a row's entry, Ctrl+click or a
middle-click opens it in a new tab, as the backlinks panel does. When there are none, the
panel says why (too few words, only template text, only common words).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFont, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidgetItem,
    QWidget,
)

from anthology.tasks import TaskState
from anthology.ui.common.task_runner import TaskRunner
from anthology.ui.panels.entry_tree_panel import ROLE_ID, EntryTreePanel, children, top_items
from anthology.vault import display_labels
from anthology.vault.related import RelatedEntries, RelatedEntry
from anthology.vault.render.safe_text import plain_text, tooltip_html

ROLE_TERMS = Qt.ItemDataRole.UserRole + 1  # the shared words that explain a row
NOT_LINKED = "Not linked yet"
LINKED = "Already linked"
FINDING = "Finding related entries…"
Ask = Callable[[str], RelatedEntries | None]
Index = QModelIndex | QPersistentModelIndex


def ask_related(
    _state: TaskState, entry_id: str, ask: Ask
) -> tuple[str, RelatedEntries | None, str]:
    """``ask(entry_id)`` on a runner's thread; touches no widget. (entry id, answer, what
    went wrong: "" when nothing did)."""
    try:
        return entry_id, ask(entry_id), ""
    except sqlite3.OperationalError as exc:  # interrupted (superseded), or a closed index
        return entry_id, None, str(exc)
    except Exception as exc:  # a replaced index: said in the panel, the app goes on
        return entry_id, None, f"{type(exc).__name__}: {exc}"


class TermsDelegate(QStyledItemDelegate):
    """An entry row in two lines: its label, then the shared words in the muted colour."""

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        size = super().sizeHint(option, index)
        if index.data(ROLE_TERMS):
            return QSize(size.width(), size.height() + option.fontMetrics.lineSpacing() + 2)
        return size

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        terms = index.data(ROLE_TERMS)
        if not terms:
            super().paint(painter, option, index)
            return
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        self.initStyleOption(option, index)
        text, option.text = option.text, ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, widget)
        rect = option.rect.adjusted(4, 2, -4, -2)
        line = option.fontMetrics.lineSpacing()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        pal = option.palette
        painter.save()
        painter.setFont(option.font)
        painter.setPen(pal.color(QPalette.ColorRole.HighlightedText if selected
                                 else QPalette.ColorRole.Text))  # fmt: skip
        first = QRect(rect.left(), rect.top(), rect.width(), line)
        painter.drawText(first, Qt.AlignmentFlag.AlignVCenter,
                         option.fontMetrics.elidedText(text, Qt.TextElideMode.ElideRight,
                                                       rect.width()))  # fmt: skip
        small = QFont(option.font)
        small.setPointSizeF(max(6.0, option.font.pointSizeF() * 0.9))
        painter.setFont(small)
        if not selected:
            painter.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
        second = QRect(rect.left() + 8, rect.top() + line + 1, rect.width() - 8, line)
        shown = painter.fontMetrics().elidedText(terms, Qt.TextElideMode.ElideRight,
                                                 second.width())  # fmt: skip
        painter.drawText(second, Qt.AlignmentFlag.AlignVCenter, shown)
        painter.restore()


class RelatedPanel(EntryTreePanel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Related entries", "relatedPanel", parent)
        # why there are none, or what of the entry's own words was left out
        self.status.setObjectName("relatedStatus")
        self.tree.setIndentation(10)
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(False)
        self.tree.setItemDelegate(TermsDelegate(self.tree))
        self.entry_id: str | None = None
        self.shown: RelatedEntries | None = None
        self._runner = TaskRunner(self)
        self._runner.done.connect(self._on_found)

    # -- asking --------------------------------------------------------------------------
    def ask_for(self, entry_id: str, ask: Ask, cancel: Callable[[], None] | None = None) -> None:
        """Ask ``ask(entry_id)`` off the GUI thread and show the answer when it comes,
        unless another entry was asked for meanwhile; ``cancel`` stops a superseded one."""
        if entry_id == self.entry_id and self.shown is not None:
            return
        self._runner.cancel()
        self.entry_id = entry_id
        self.shown = None
        self.tree.clear()
        self.title.setText("Related entries")
        self._say(FINDING)
        state = self._runner.start(ask_related, entry_id, ask)
        if cancel is not None:
            state.when_cancelled(cancel)

    def forget(self) -> None:
        """What is shown is stale (the index changed, or the vault closed): asked again
        at the next :meth:`ask_for`."""
        self._runner.cancel()
        self.shown = None

    def stop(self) -> None:
        """Let a question running end (before the index it reads is closed)."""
        self._runner.stop()
        self.shown = None

    def clear(self) -> None:
        self.forget()
        self.entry_id = None
        self.tree.clear()
        self.title.setText("Related entries")
        self._say("")

    @property
    def busy(self) -> bool:
        return self._runner.busy

    def _on_found(self, found: tuple[str, RelatedEntries | None, str]) -> None:
        entry_id, related, problem = found
        if entry_id != self.entry_id:
            return  # an answer for an entry left meanwhile
        if related is None:
            self.shown = None
            self._say("Could not find related entries" + (f": {problem}" if problem else "."))
            return
        self.show_related(related)

    # -- showing -------------------------------------------------------------------------
    def show_related(self, related: RelatedEntries) -> None:
        """Show ``related``: its two groups, each row's entry and shared words."""
        self.shown = related
        self.entry_id = related.entry_id
        self.tree.clear()
        self.title.setText(f"Related to {plain_text(related.entry_id, 120)}")
        bold = QFont(self.tree.font())
        bold.setBold(True)
        for name, rows in ((NOT_LINKED, related.unlinked), (LINKED, related.linked)):
            if not rows:
                continue
            group = QTreeWidgetItem([f"{name} ({len(rows)})"])
            group.setFont(0, bold)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.tree.addTopLevelItem(group)
            for row, label in zip(rows, display_labels([r.ref for r in rows]), strict=True):
                group.addChild(self._row(row, label))
            group.setExpanded(True)
        lines = [] if related.unlinked or related.linked else [related.reason]
        lines += [f"Left out: {note}." for note in related.notes]
        if related.terms:
            lines.append("Its words asked: " + ", ".join(related.terms))
        self._say("\n".join(line for line in lines if line))

    @staticmethod
    def _row(row: RelatedEntry, label: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([plain_text(label, 300)])
        item.setData(0, ROLE_ID, row.ref.id)
        terms = " · ".join(plain_text(t, 60) for t in row.terms)
        item.setData(0, ROLE_TERMS, terms)
        item.setToolTip(0, tooltip_html(f"{row.ref.label}\n{row.ref.path}\nShares: {terms}"))
        return item

    # What a test or a screen reader asks.
    def groups(self) -> dict[str, list[tuple[str, str]]]:
        """Group title → (entry id, shared words) of each row, in order."""
        return {group.text(0): [(row.data(0, ROLE_ID), row.data(0, ROLE_TERMS))
                                for row in children(group)]
                for group in top_items(self.tree)}  # fmt: skip

    def item_for(self, entry_id: str) -> QTreeWidgetItem | None:
        rows = (row for group in top_items(self.tree) for row in children(group))
        return next((row for row in rows if row.data(0, ROLE_ID) == entry_id), None)
