"""The ring around the pane the keyboard was moved to (F6, Shift+F6).

A frame drawn over the window, around the pane, only while the keyboard is there by F6: a
style sheet ring (``QTreeView:focus { border… }``) made every focus change restyle and
repaint the graph or the backlinks, and a click there then waited for that repaint before
the entry was painted (click to painted entry 7 → 20–29 ms at 10,000 entries)."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QApplication, QWidget

RING_PX = 2


class FocusRing(QWidget):
    """Shown around a pane by :meth:`around`; gone as soon as the focus leaves it."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setObjectName("focusRing")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.colour = QColor("#3b6fd8")
        self.target: QWidget | None = None
        self.hide()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)

    def around(self, widget: QWidget) -> None:
        """Draw the ring around ``widget`` (the pane the keyboard is now in)."""
        window = self.parentWidget()
        if window is None:
            return
        self.target = widget
        top_left = widget.mapTo(window, widget.rect().topLeft())
        self.setGeometry(QRect(top_left, widget.size()))
        self.raise_()
        self.show()

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        target = self.target
        if not self.isVisible() or target is None:
            return
        if new is None or not (new is target or target.isAncestorOf(new)):
            self.hide()  # the keyboard left the pane (a click elsewhere, Tab out of it)
            self.target = None

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(QPen(self.colour, RING_PX))
        painter.drawRect(self.rect().adjusted(1, 1, -1, -1))
        painter.end()
