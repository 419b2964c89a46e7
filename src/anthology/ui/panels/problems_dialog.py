"""The problems list: what `anthology check` finds, each row opening its entry."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QTreeWidget, QTreeWidgetItem, QVBoxLayout

from anthology.vault import Problem

ROLE_PATH = Qt.ItemDataRole.UserRole


class ProblemsDialog(QDialog):
    pathActivated = Signal(str)  # vault-relative path of the file with the problem

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("problemsDialog")
        self.setWindowTitle("Problems")
        self.resize(760, 420)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["File", "Line", "Kind", "Message"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSortingEnabled(True)
        self.tree.itemActivated.connect(self._activate)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree)

    def set_problems(self, problems: list[Problem]) -> None:
        self.tree.clear()
        for p in problems:
            item = QTreeWidgetItem(
                [p.path, str(p.line or ""), f"{p.severity}: {p.kind}", p.message]
            )
            item.setData(0, ROLE_PATH, p.path)
            self.tree.addTopLevelItem(item)
        for col in range(3):
            self.tree.resizeColumnToContents(col)
        self.setWindowTitle(f"Problems ({len(problems)})")

    def _activate(self, item: QTreeWidgetItem) -> None:
        self.pathActivated.emit(item.data(0, ROLE_PATH))
