"""The graph's legend: an opaque strip below the plot, never over a node.

It used to be a half-transparent label drawn over the nodes in the plot's corner, which at
900×650 covered 60 % of the graph's height (issue 14). Now it is a row of the view's layout
under the canvas: the plot shrinks by the strip's height instead of being covered. The
entries flow in a line (wrapping when the window is narrow); the ▾ button folds the strip
to one line, so a long list of groups never eats the graph either.

Entries: the node groups (a dot in their colour), the link relations (a bar in theirs),
and the marks the view draws on nodes (current entry, visited trail, pinned, search match),
each in the shape and colour the plot uses (:mod:`anthology.ui.graph.graph_view` ``_update_marks``).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton

from anthology.vault.shown import plain_text

__all__ = ["MARK_GLYPHS", "GraphLegend"]

# the marks' legend glyphs; the plot draws the same shapes (circle rings, a square for a pin)
MARK_GLYPHS = {"current": "◉", "trail": "○", "pin": "□", "match": "◎", "canvas": "◇"}
MARK_NAMES = {"current": "current", "trail": "visited", "pin": "pinned", "match": "match",
              "canvas": "canvas"}  # fmt: skip


class GraphLegend(QFrame):
    """The strip; :meth:`set_entries` fills it, :meth:`set_colours` themes it."""

    collapsedChanged = Signal(bool)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("graphLegend")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAutoFillBackground(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 2, 6, 2)
        lay.setSpacing(4)
        self.toggle = QToolButton(self)
        self.toggle.setObjectName("legendToggle")
        self.toggle.setAutoRaise(True)
        self.toggle.setCheckable(True)
        self.toggle.setToolTip("Fold or unfold the legend")
        self.toggle.toggled.connect(self._on_toggled)
        self.text = QLabel(self)
        self.text.setObjectName("graphLegendText")
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        lay.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignTop)
        lay.addWidget(self.text, 1)
        self._items: list[str] = []
        self._names: list[str] = []
        self._fg = "#202020"
        self._on_toggled(False)

    # ---- content ---------------------------------------------------------------------------
    def set_colours(self, background: str, foreground: str) -> None:
        """Opaque: the strip's background is the plot's (without its alpha)."""
        bg = QColor(background)
        bg.setAlpha(255)
        fg = QColor(foreground)
        self._fg = fg.name()
        line = f"rgba({fg.red()}, {fg.green()}, {fg.blue()}, 60)"
        sheet = (
            f"QFrame#graphLegend {{ background: {bg.name()}; border-top: 1px solid {line}; }} "
            f"QLabel {{ color: {self._fg}; }} "
            f"QToolButton {{ color: {self._fg}; border: none; }}"
        )
        # asked on every local graph shown: a style sheet set again (even the same one)
        # re-polishes the strip and its children, and the label lays its text out again
        if sheet != self.styleSheet():
            self.setStyleSheet(sheet)
            self._render()

    def set_entries(
        self,
        groups: list[tuple[str, QColor]],
        relations: list[tuple[str, QColor]],
        marks: list[tuple[str, QColor]],
    ) -> None:
        """Node groups (dots), link relations (bars), marks (their glyphs): name, colour."""
        items = [_item("●", c, name) for name, c in groups]
        items += [_item("━", c, name) for name, c in relations]
        items += [_item(MARK_GLYPHS[key], c, MARK_NAMES[key]) for key, c in marks]
        self._items = items
        self._names = (
            [n for n, _ in groups] + [n for n, _ in relations] + [MARK_NAMES[k] for k, _ in marks]
        )
        self._render()

    def entries(self) -> list[str]:
        """The entries' names as shown (tests)."""
        return list(self._names)

    def collapsed(self) -> bool:
        return self.toggle.isChecked()

    # ---- drawing ---------------------------------------------------------------------------
    def _on_toggled(self, collapsed: bool) -> None:
        self.toggle.setText("▸" if collapsed else "▾")
        self.text.setWordWrap(not collapsed)
        self._render()
        self.collapsedChanged.emit(collapsed)

    def _render(self) -> None:
        items = self._items
        if self.collapsed() and len(items) > 6:
            items = [*items[:6], f"… {len(self._items) - 6} more"]
        sep = "&nbsp;&nbsp;&nbsp; "  # a breakable space between entries, none inside one
        text = f'<span style="font-size:10px; color:{self._fg}">{sep.join(items)}</span>'
        if text != self.text.text():  # the same legend from one local graph to the next
            self.text.setText(text)


def _item(glyph: str, colour: QColor, name: str) -> str:
    return (
        f'<span style="color:{QColor(colour).name()}">{glyph}</span>'
        f"&nbsp;{escape(plain_text(name, 80)).replace(' ', '&nbsp;')}"
    )
