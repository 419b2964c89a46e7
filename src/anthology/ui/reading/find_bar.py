"""Find in the current note (Ctrl+F): a bar over the document with the count of matches,
next and previous (Enter, Shift+Enter, F3, Shift+F3), every match highlighted; Esc closes.

The bar finds in whatever the active tab shows, through :class:`Findable` (the entry page
answers it; a kind of document that does not is searched with ``find_text`` alone, one match
at a time). It finds what is shown: the text as laid out, plain (regex characters are
characters), case-insensitive. A search result opened from the search panel opens the bar
on its words, at the first match (:meth:`FindBar.open_on`).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from anthology.ui.common.document import DocumentView

MAX_MATCHES = 10_000  # counted and highlighted; past it the count says "10,000+"


@runtime_checkable
class Findable(Protocol):
    """A document view the bar can count and highlight matches in."""

    def find_all(self, text: str, limit: int = MAX_MATCHES) -> int:
        """Highlight every match of ``text`` (none: clear); how many there are."""
        ...

    def find_step(self, backward: bool = False) -> int:
        """Select the next (previous) match and show it; its number from 0 (-1: none).
        The first step goes to the first match from where the reader is."""
        ...


def _button(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    return button


class FindBar(QWidget):
    """The find bar; :meth:`attach` the view it finds in (the active tab's)."""

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("findBar")
        self.box = QLineEdit()
        self.box.setObjectName("findBox")
        self.box.setPlaceholderText("Find in note…")
        self.box.setClearButtonEnabled(True)
        self.count = QLabel("")
        self.count.setObjectName("findCount")
        self.count.setMinimumWidth(90)
        self.previous = _button("▲", "Previous match (Shift+Enter, Shift+F3)")
        self.next = _button("▼", "Next match (Enter, F3)")
        self.close_button = _button("✕", "Close (Esc)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.addWidget(self.box, 1)
        layout.addWidget(self.count)
        for button in (self.previous, self.next, self.close_button):
            layout.addWidget(button)
        self.previous.clicked.connect(lambda: self.step(backward=True))
        self.next.clicked.connect(lambda: self.step())
        self.close_button.clicked.connect(self.close_bar)
        self.box.installEventFilter(self)
        # find while typing, not on every keystroke of a fast typist
        self._timer = QTimer(self, singleShot=True, interval=80)
        self._timer.timeout.connect(self.refind)
        self.box.textChanged.connect(lambda _t: self._timer.start())
        self._view: DocumentView | None = None
        self._total = 0
        self._at = -1
        self.hide()

    # -- what it finds in ------------------------------------------------------------------
    def attach(self, view: DocumentView | None) -> None:
        """Find in ``view`` from now on (the matches in the view left are cleared)."""
        if view is self._view:
            return
        if isinstance(self._view, Findable):
            self._view.find_all("")
        self._view = view
        if self.isVisible():
            self.refind()

    def open_bar(self, text: str | None = None) -> None:
        """Show the bar (Ctrl+F), its box focused and selected; ``text`` put in it."""
        if text is not None:
            self.box.setText(text)
        self.show()
        self.box.setFocus()
        self.box.selectAll()
        self._timer.stop()
        self.refind()

    def open_on(self, candidates: list[str]) -> None:
        """Show the bar on the first of ``candidates`` the document holds (a search
        result: the words sought as a phrase, else each alone), its first match selected."""
        self.show()
        self._timer.stop()
        for text in candidates:
            self.box.setText(text)
            self._timer.stop()
            self.refind()
            if self._total != 0:
                break
        self.step()

    def close_bar(self) -> None:
        self.hide()
        if isinstance(self._view, Findable):
            self._view.find_all("")
        self.closed.emit()

    # -- finding ---------------------------------------------------------------------------
    def refind(self) -> None:
        """Count and highlight the matches of the box's text anew (the text or the
        document changed)."""
        text = self.box.text()
        view = self._view
        self._at = -1
        if isinstance(view, Findable):
            self._total = view.find_all(text)
        else:
            self._total = -1 if text and view is not None else 0  # unknown: step by step
        self._show_count()

    def step(self, backward: bool = False) -> None:
        """The next (previous) match (Enter, Shift+Enter, F3, Shift+F3)."""
        view, text = self._view, self.box.text()
        if view is None or not text:
            return
        if isinstance(view, Findable):
            if self._total == 0:
                return
            self._at = view.find_step(backward)
        elif not view.find_text(text, backward=backward):
            self._at = -2  # no further match in this direction
        self._show_count()

    def _show_count(self) -> None:
        text = self.box.text()
        total = self._total
        if not text:
            shown = ""
        elif total == 0 or self._at == -2:
            shown = "No matches"
        elif total < 0:
            shown = ""
        else:
            many = f"{MAX_MATCHES:,}+" if total >= MAX_MATCHES else f"{total:,}"
            shown = f"{self._at + 1:,} of {many}" if self._at >= 0 else f"{many} found"
        self.count.setText(shown)
        self.box.setProperty("nothing", bool(text) and (total == 0 or self._at == -2))

    @property
    def total(self) -> int:
        return self._total

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.box and isinstance(event, QKeyEvent) and event.type() == event.Type.KeyPress:
            key, mods = event.key(), event.modifiers()
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if self._timer.isActive():  # typed, not yet found
                    self._timer.stop()
                    self.refind()
                self.step(backward=bool(mods & Qt.KeyboardModifier.ShiftModifier))
                return True
            if key == Qt.Key.Key_Escape:
                self.close_bar()
                return True
        return super().eventFilter(obj, event)
