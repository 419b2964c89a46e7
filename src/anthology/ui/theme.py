"""Light and dark themes for the whole window: a Fusion palette plus a small stylesheet.

The entry pane and the graph view get the theme name too and restyle their own content.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from anthology.paths import resource

THEMES = ("light", "dark")

_COLOURS = {
    "light": {
        "window": "#f6f5f2", "base": "#ffffff", "alt": "#f0eee9", "text": "#1f2328",
        "muted": "#6a6f76", "button": "#eceae4", "highlight": "#3b6fd8", "link": "#2f5fbf",
        "border": "#d8d5cc",
    },
    "dark": {
        "window": "#1e1f22", "base": "#25262a", "alt": "#2b2d31", "text": "#dcdde0",
        "muted": "#9a9ca3", "button": "#2f3136", "highlight": "#5b8def", "link": "#8ab4f8",
        "border": "#3a3c42",
    },
}  # fmt: skip


def colours(theme: str) -> dict[str, str]:
    return _COLOURS["dark" if theme == "dark" else "light"]


def palette(theme: str) -> QPalette:
    c = colours(theme)
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: c["window"],
        QPalette.ColorRole.WindowText: c["text"],
        QPalette.ColorRole.Base: c["base"],
        QPalette.ColorRole.AlternateBase: c["alt"],
        QPalette.ColorRole.Text: c["text"],
        QPalette.ColorRole.Button: c["button"],
        QPalette.ColorRole.ButtonText: c["text"],
        QPalette.ColorRole.ToolTipBase: c["base"],
        QPalette.ColorRole.ToolTipText: c["text"],
        QPalette.ColorRole.PlaceholderText: c["muted"],
        QPalette.ColorRole.Highlight: c["highlight"],
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: c["link"],
        QPalette.ColorRole.LinkVisited: c["link"],
        QPalette.ColorRole.Mid: c["border"],
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                 QPalette.ColorRole.ButtonText):  # fmt: skip
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(c["muted"]))
    return p


def apply_theme(app: QApplication, theme: str) -> None:
    """Fusion everywhere, so both themes look the same on every platform."""
    app.setStyle("Fusion")
    app.setPalette(palette(theme))
    qss = resource("app.qss")
    text = qss.read_text(encoding="utf-8") if qss.is_file() else ""
    for key, value in colours(theme).items():
        text = text.replace(f"@{key}", value)
    app.setStyleSheet(text)
