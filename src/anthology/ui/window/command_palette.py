"""The command palette (Ctrl+P, as Obsidian's): every action of the window by name.

Type a few letters (matched as the quick switcher matches names, :func:`anthology.vault.rank`),
Enter runs the chosen action. Actions are read from the window when the palette opens, so
what is disabled at that moment is left out and menu texts need no second list.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout

from anthology.ui.common.list_keys import ArrowKeysToList
from anthology.vault import rank

ROLE_INDEX = Qt.ItemDataRole.UserRole
PALETTE_PLACE = "palettePlace"  # an action's property: its menu ("View › Theme"), or "Graph"


def action_name(action: QAction) -> str:
    """What the palette lists: the menu text without its mnemonic ``&``."""
    text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
    return " ".join(text.split())


def shown_name(action: QAction) -> str:
    """The name with where it lives ("View › Theme: Dark"): "Dark", "Fit" or "Local" alone
    said nothing of what they act on."""
    place = action.property(PALETTE_PLACE)
    return f"{place}: {action_name(action)}" if place else action_name(action)


class CommandPalette(QDialog):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("commandPalette")
        self.setWindowTitle("Command palette")
        self.setModal(True)
        self.resize(520, 400)
        self.input = QLineEdit()
        self.input.setObjectName("paletteInput")
        self.input.setPlaceholderText("Type a command…")
        self.list = QListWidget()
        self.list.setObjectName("paletteList")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 8)
        lay.addWidget(self.input)
        lay.addWidget(self.list)
        ArrowKeysToList(self.input, self.list)
        self.input.textChanged.connect(self._filter)
        self.input.returnPressed.connect(self._run)
        self.list.itemActivated.connect(self._run)
        self._actions: list[QAction] = []

    def set_actions(self, actions: list[QAction]) -> None:
        """The commands to offer: enabled, named, each once (by name)."""
        seen: dict[str, QAction] = {}
        for a in actions:
            name = action_name(a)
            if name and a.isEnabled() and not a.isSeparator() and a.menu() is None:
                seen.setdefault(name.casefold(), a)
        self._actions = sorted(seen.values(), key=lambda a: action_name(a).casefold())
        self._filter(self.input.text())

    def open_palette(self, actions: list[QAction]) -> None:
        self.input.clear()
        self.set_actions(actions)
        self.show()
        self.raise_()
        self.input.setFocus()

    def _filter(self, text: str) -> None:
        self.list.clear()
        names = [[action_name(a).rstrip("…"), shown_name(a).rstrip("…")] for a in self._actions]
        index = list(range(len(self._actions)))
        for i in rank(text, index, names, limit=200):
            a = self._actions[i]
            keys = a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            item = QListWidgetItem(shown_name(a) + (f"    {keys}" if keys else ""))
            item.setData(ROLE_INDEX, i)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    def names(self) -> list[str]:
        """The listed commands' names, in order (for tests and hosts)."""
        return [action_name(self._actions[self.list.item(r).data(ROLE_INDEX)])
                for r in range(self.list.count())]  # fmt: skip

    def _run(self, *_args) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        action = self._actions[item.data(ROLE_INDEX)]
        self.accept()
        action.trigger()
