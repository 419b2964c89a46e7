"""Every match of a text in a laid-out page, highlighted, and one of them selected: what the
find bar (ui/reading/find_bar.py) asks of a page that is a Qt text document (the entry page;
any text view may use it). Plain text, any case; the highlights are the view's extra
selections, so the page itself is never changed."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit

Colours = Callable[[], tuple[QColor, QColor]]  # (every match, the one selected)


class TextMatches:
    """The matches of the text sought in ``edit``'s document (see the module's doc)."""

    def __init__(self, edit: QTextEdit, colours: Colours) -> None:
        self.edit = edit
        self.colours = colours
        self.spans: list[tuple[int, int]] = []  # (start, end) of each match
        self.at = -1  # the one selected (-1: none yet)

    def find_all(self, text: str, limit: int = 10_000) -> int:
        """Highlight every match of ``text`` (up to ``limit``); how many. "" clears."""
        self.spans, self.at = [], -1
        doc = self.edit.document()
        if text:
            cursor = QTextCursor(doc)
            while len(self.spans) < limit:
                cursor = doc.find(text, cursor)
                if cursor.isNull():
                    break
                self.spans.append((cursor.selectionStart(), cursor.selectionEnd()))
        self.paint()
        return len(self.spans)

    def step(self, backward: bool = False) -> int:
        """Select the next (previous) match and scroll it into view; the first step goes
        to the first match from the top of the view. Its number from 0; -1: none."""
        edit, spans = self.edit, self.spans
        if not spans:
            return -1
        if self.at < 0:
            top = edit.cursorForPosition(edit.viewport().rect().topLeft()).position()
            after = next((i for i, (a, _b) in enumerate(spans) if a >= top), 0)
            self.at = (after - 1) % len(spans) if backward else after
        else:
            self.at = (self.at + (-1 if backward else 1)) % len(spans)
        start, end = spans[self.at]
        # the caret at the match, not a selection: the view draws its own selection
        # (grey while the find box has the focus) over the match's colour
        cursor = QTextCursor(edit.document())
        for position in (end, start):  # its end in view, then its start
            cursor.setPosition(position)
            edit.setTextCursor(cursor)
            edit.ensureCursorVisible()
        self.paint()
        return self.at

    def current(self) -> str:
        """The text of the match selected ("" for none)."""
        if not 0 <= self.at < len(self.spans):
            return ""
        start, end = self.spans[self.at]
        cursor = QTextCursor(self.edit.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        return cursor.selectedText()

    def paint(self) -> None:
        every, selected = self.colours()
        doc = self.edit.document()
        found: list[QTextEdit.ExtraSelection] = []
        for i, (start, end) in enumerate(self.spans):
            sel = QTextEdit.ExtraSelection()
            cursor = QTextCursor(doc)
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cursor
            fmt = QTextCharFormat()
            fmt.setBackground(selected if i == self.at else every)
            if i == self.at:
                fmt.setForeground(QColor("#ffffff"))
            sel.format = fmt
            found.append(sel)
        self.edit.setExtraSelections(found)
