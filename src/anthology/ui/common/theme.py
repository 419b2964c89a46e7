"""Light and dark themes for the whole window: a Fusion palette plus a small stylesheet,
from the colours of :mod:`anthology.palette`, and the signal the widgets follow.

The window owns one :class:`ThemeController`; the entry pane, the graph and an open demo are
connected to its ``themeChanged`` and restyle their own content from the same palette.
"""

from __future__ import annotations

from dataclasses import asdict

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from anthology.palette import THEMES, theme
from anthology.paths import resource

__all__ = ["THEMES", "ThemeController", "apply_theme", "css_colour", "palette", "qcolor"]


def qcolor(colour: str) -> QColor:
    """A palette colour, ``#rrggbb`` or ``#rrggbbaa``, as a QColor (Qt reads ``#aarrggbb``)."""
    if len(colour) == 9:
        c = QColor(colour[:7])
        c.setAlpha(int(colour[7:], 16))
        return c
    return QColor(colour)


def css_colour(colour: str) -> str:
    """A palette colour for a Qt stylesheet (``rgba(…)`` when it is translucent)."""
    if len(colour) == 9:
        c = qcolor(colour)
        return f"rgba({c.red()},{c.green()},{c.blue()},{c.alpha()})"
    return colour


def colours(name: str) -> dict[str, str]:
    """The window's colours by name, as ``resources/app.qss`` spells them (``@name``)."""
    return asdict(theme(name).window)


def palette(name: str) -> QPalette:
    c = theme(name).window
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: c.window,
        QPalette.ColorRole.WindowText: c.text,
        QPalette.ColorRole.Base: c.base,
        QPalette.ColorRole.AlternateBase: c.alt,
        QPalette.ColorRole.Text: c.text,
        QPalette.ColorRole.Button: c.button,
        QPalette.ColorRole.ButtonText: c.text,
        QPalette.ColorRole.ToolTipBase: c.base,
        QPalette.ColorRole.ToolTipText: c.text,
        QPalette.ColorRole.PlaceholderText: c.muted,
        QPalette.ColorRole.Highlight: c.highlight,
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: c.link,
        QPalette.ColorRole.LinkVisited: c.link,
        QPalette.ColorRole.Mid: c.border,
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                 QPalette.ColorRole.ButtonText):  # fmt: skip
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(c.muted))
    return p


def apply_theme(app: QApplication, name: str) -> None:
    """Fusion everywhere, so both themes look the same on every platform."""
    app.setStyle("Fusion")
    app.setPalette(palette(name))
    qss = resource("app.qss")
    text = qss.read_text(encoding="utf-8") if qss.is_file() else ""
    for key, value in colours(name).items():
        text = text.replace(f"@{key}", value)
    app.setStyleSheet(text)


class ThemeController(QObject):
    """The window's theme: :meth:`set_theme` styles the application and tells every widget
    that follows ``themeChanged`` (the entry pane, the graph, a demo)."""

    themeChanged = Signal(str)

    def __init__(self, parent: QObject | None = None, name: str = "light") -> None:
        super().__init__(parent)
        self.theme = name if name in THEMES else "light"

    def set_theme(self, name: str) -> None:
        self.theme = "dark" if name == "dark" else "light"
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, self.theme)
        self.themeChanged.emit(self.theme)

    def follow(self, set_theme) -> None:
        """Connect a widget's ``set_theme`` and give it the current theme now."""
        self.themeChanged.connect(set_theme)
        set_theme(self.theme)
