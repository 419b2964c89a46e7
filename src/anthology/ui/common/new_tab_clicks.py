"""Ctrl+click and middle-click on a row of a list or tree: "open in a new tab".

Installed on an item view's viewport, it takes those clicks before the view sees them (so
the plain click's "open here" does not also run) and hands the clicked row to a callback.
Used by the backlinks panel, the search results and the file explorer.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QAbstractItemView

_MOUSE = (
    QEvent.Type.MouseButtonPress,
    QEvent.Type.MouseButtonRelease,
    QEvent.Type.MouseButtonDblClick,
)


def wants_new_tab(event: QMouseEvent) -> bool:
    """A middle-click, or a left click with Ctrl (Cmd on macOS) held."""
    button = event.button()
    return button == Qt.MouseButton.MiddleButton or (
        button == Qt.MouseButton.LeftButton
        and bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
    )


class NewTabClicks(QObject):
    """Route Ctrl+clicks and middle-clicks on ``view``'s rows to ``open_row(index)``."""

    def __init__(self, view: QAbstractItemView, open_row: Callable[[QModelIndex], None]) -> None:
        super().__init__(view)
        self._view = view
        self._open_row = open_row
        view.viewport().installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() not in _MOUSE or not isinstance(event, QMouseEvent):
            return False
        if not wants_new_tab(event):
            return False
        if event.type() == QEvent.Type.MouseButtonRelease:
            index = self._view.indexAt(event.position().toPoint())
            if index.isValid():
                self._open_row(index)
        return True  # the press too: no selection change, no plain "open here"
