"""Up/Down typed in a search field move the selection of the list below it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit, QListWidget


class ArrowKeysToList(QObject):
    """Installed on ``field``: Up and Down step through ``target``'s rows, as in every switcher."""

    def __init__(self, field: QLineEdit, target: QListWidget) -> None:
        super().__init__(field)
        self.target = target
        field.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and self.target.count()
        ):
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                row = self.target.currentRow() + (1 if key == Qt.Key.Key_Down else -1)
                self.target.setCurrentRow(max(0, min(self.target.count() - 1, row)))
                return True
        return False
