"""The collapsible settings panel of the graph view (forces, display, filters, groups).

:class:`GraphControls` only edits a plain ``dict`` of settings (see
:data:`anthology.graph.settings.DEFAULTS`) and
emits ``settingsChanged(key)``; the view applies them and persists them per vault.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QColorDialog,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSlider,
    QToolBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from anthology.graph.settings import DEFAULTS, RANGES, defaults
from anthology.vault.shown import plain_text

# slider name → (min, max, steps) mapping floats onto the int slider range
_STEPS = {"center": 100, "repel": 150, "link_strength": 100, "link_distance": 245,
          "node_size": 54, "link_width": 37, "text_fade": 79}  # fmt: skip
_SLIDERS: dict[str, tuple[float, float, int]] = {k: (*RANGES[k], _STEPS[k]) for k in RANGES}
_LABELS = {
    "center": "Centre force",
    "repel": "Repel force",
    "link_strength": "Link strength",
    "link_distance": "Link distance",
    "node_size": "Node size",
    "link_width": "Link thickness",
    "text_fade": "Text fade threshold",
}


_COLOUR_BY = (
    ("Auto", "auto"),
    ("Kind", "kind"),
    ("Top folder", "folder"),
    ("First tag", "tag"),
    ("Communities (Louvain)", "community"),
)
# "New group" prefills the query in the language search uses (anthology.vault.query)
_GROUP_KINDS = (
    ("Folder", "folder:"),
    ("Tag", "tag:"),
    ("Property", "[key:value]"),
    ("Query", ""),
)
# the colours new groups start with, before the reader picks one
_PICK_DEFAULTS = ("#e06c75", "#61afef", "#98c379", "#e5c07b", "#c678dd", "#56b6c2",
                  "#d19a66", "#be5046")  # fmt: skip


class _GroupRow(QWidget):
    """One group: its query, its colour (a button opening a colour dialog), ↑ ↓ ✕."""

    edited = Signal(int, str)
    colourAsked = Signal(int)
    moved = Signal(int, int)
    removed = Signal(int)

    def __init__(self, k: int, query: str, colour: str) -> None:
        super().__init__()
        self.setObjectName(f"groupRow{k}")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.colour_button = QToolButton()
        self.colour_button.setObjectName("groupColour")
        self.colour_button.setToolTip("Choose the group's colour")
        self.colour_button.clicked.connect(lambda: self.colourAsked.emit(k))
        self.set_colour(colour)
        lay.addWidget(self.colour_button)
        self.edit = QLineEdit(query)
        self.edit.setMinimumWidth(60)
        self.edit.setObjectName("groupQuery")
        self.edit.setPlaceholderText("folder:x, tag:x, [key:value] or words")
        self.edit.editingFinished.connect(lambda: self.edited.emit(k, self.edit.text().strip()))
        lay.addWidget(self.edit, 1)
        for text, tip, slot in (
            ("↑", "Move up (earlier groups win)", lambda: self.moved.emit(k, -1)),
            ("↓", "Move down", lambda: self.moved.emit(k, 1)),
            ("✕", "Remove the group", lambda: self.removed.emit(k)),
        ):
            b = QToolButton()
            b.setText(text)
            b.setToolTip(tip)
            b.setAutoRaise(True)
            b.setFixedWidth(18)
            b.clicked.connect(slot)
            lay.addWidget(b)

    def set_colour(self, colour: str) -> None:
        self.colour = colour
        self.colour_button.setStyleSheet(
            f"background: {QColor(colour).name()}; border-radius: 7px; min-width: 14px; "
            "max-width: 14px; min-height: 14px; max-height: 14px;"
        )


class GraphControls(QWidget):
    """Forces, display, filters and groups; ``values()`` is the whole state.

    The pages' widgets are made when the panel is first shown (:meth:`ensure_built`): the
    state lives in ``values()``, the kinds and relations offered and the colouring in
    effect are kept until then. Made with the graph view, their ~40 widgets took 20-30 ms
    of the start's turn that makes the view (under the window's style sheet), for a panel
    most readers never open."""

    settingsChanged = Signal(str)  # the key that changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphControls")
        self._values = defaults()
        self._sliders: dict[str, QSlider] = {}
        self._updating = False
        self._group_rows: list[_GroupRow] = []
        self._available: tuple[list[str], list[str]] = ([], [])  # kinds, relations
        self._mode_in_effect = ""  # what "Auto" colours by
        self.toolbox: QToolBox | None = None  # (the pages, once made)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.setMinimumWidth(220)

    def ensure_built(self) -> None:
        """Make the pages (once), showing the values and lists kept meanwhile."""
        if self.toolbox is not None:
            return
        box = QToolBox(self)
        box.setObjectName("graphControlsToolBox")
        box.addItem(self._forces_page(), "Forces")
        box.addItem(self._display_page(), "Display")
        box.addItem(self._filters_page(), "Filters")
        box.addItem(self._groups_page(), "Groups")
        self.toolbox = box
        layout = self.layout()
        assert layout is not None
        layout.addWidget(box)
        self._show_values()
        self._show_available()
        self._show_mode()

    def showEvent(self, event) -> None:
        self.ensure_built()
        super().showEvent(event)

    # ---- pages ---------------------------------------------------------------------------
    def _slider(self, form: QFormLayout, key: str) -> None:
        steps = _SLIDERS[key][2]
        s = QSlider(Qt.Orientation.Horizontal)
        s.setObjectName(f"slider_{key}")
        s.setRange(0, steps)
        s.setValue(self._to_int(key, self._values[key]))
        s.valueChanged.connect(lambda v, k=key: self._slider_moved(k, v))
        self._sliders[key] = s
        form.addRow(_LABELS[key], s)

    def _forces_page(self) -> QWidget:
        w = QWidget()
        form = QFormLayout(w)
        for key in ("center", "repel", "link_strength", "link_distance"):
            self._slider(form, key)
        return w

    def _display_page(self) -> QWidget:
        w = QWidget()
        form = QFormLayout(w)
        for key in ("node_size", "link_width", "text_fade"):
            self._slider(form, key)
        self.arrows = QCheckBox("Arrows")
        self.arrows.setObjectName("arrowsCheck")
        self.arrows.toggled.connect(lambda v: self._set("arrows", bool(v)))
        form.addRow(self.arrows)
        self.legend = QCheckBox("Legend")
        self.legend.setObjectName("legendCheck")
        self.legend.toggled.connect(lambda v: self._set("legend", bool(v)))
        form.addRow(self.legend)
        self.label_by = QComboBox()
        self.label_by.setObjectName("labelByCombo")
        self.label_by.addItem("Title", "title")
        self.label_by.addItem("ID", "id")
        self.label_by.currentIndexChanged.connect(
            lambda _i: self._set("label_by", self.label_by.currentData())
        )
        form.addRow("Labels", self.label_by)
        return w

    def _filters_page(self) -> QWidget:
        w = QWidget()
        lay = QVBoxLayout(w)
        lay.addWidget(QLabel("Kinds"))
        self.kinds = QListWidget()
        self.kinds.setObjectName("kindsList")
        self.kinds.setMaximumHeight(110)
        self.kinds.itemChanged.connect(lambda _it: self._lists_changed("hidden_kinds"))
        lay.addWidget(self.kinds)
        lay.addWidget(QLabel("Relations"))
        self.relations = QListWidget()
        self.relations.setObjectName("relationsList")
        self.relations.setMaximumHeight(130)
        self.relations.itemChanged.connect(lambda _it: self._lists_changed("hidden_relations"))
        lay.addWidget(self.relations)
        self.tags = QLineEdit()
        self.tags.setObjectName("tagsFilter")
        self.tags.setPlaceholderText("Only tags (comma-separated)")
        self.tags.editingFinished.connect(lambda: self._set("tags", self.tags.text()))
        lay.addWidget(self.tags)
        self.orphans = QCheckBox("Orphans")
        self.orphans.setObjectName("orphansCheck")
        self.orphans.toggled.connect(lambda v: self._set("orphans", bool(v)))
        lay.addWidget(self.orphans)
        self.ghosts = QCheckBox("Unresolved links")
        self.ghosts.setObjectName("ghostsCheck")
        self.ghosts.toggled.connect(lambda v: self._set("ghosts", bool(v)))
        lay.addWidget(self.ghosts)
        lay.addStretch(1)
        return w

    def _groups_page(self) -> QWidget:
        w = QWidget()
        lay = QVBoxLayout(w)
        form = QFormLayout()
        self.color_by = QComboBox()
        self.color_by.setObjectName("colorByCombo")
        for label, value in _COLOUR_BY:
            self.color_by.addItem(label, value)
        self.color_by.currentIndexChanged.connect(
            lambda _i: self._set("color_by", self.color_by.currentData())
        )
        form.addRow("Colour by", self.color_by)
        lay.addLayout(form)
        self.color_in_effect = QLabel("")
        self.color_in_effect.setObjectName("colourInEffect")
        self.color_in_effect.setEnabled(False)  # muted: it explains, it is not a control
        self.color_in_effect.setWordWrap(True)
        lay.addWidget(self.color_in_effect)
        note = QLabel("Groups: the first that matches a node colours it")
        note.setWordWrap(True)
        lay.addWidget(note)
        self.groups_box = QWidget()
        self.groups_box.setObjectName("groupsBox")
        self.groups_layout = QVBoxLayout(self.groups_box)
        self.groups_layout.setContentsMargins(0, 0, 0, 0)
        self.groups_layout.setSpacing(2)
        lay.addWidget(self.groups_box)
        add = QHBoxLayout()
        self.group_kind = QComboBox()
        self.group_kind.setObjectName("groupKindCombo")
        self.group_kind.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        for label, prefix in _GROUP_KINDS:
            self.group_kind.addItem(label, prefix)
        add.addWidget(self.group_kind)
        self.add_group_button = QPushButton("New")
        self.add_group_button.setToolTip("Add a group of this sort (its query is typed after)")
        self.add_group_button.setObjectName("addGroupButton")
        self.add_group_button.clicked.connect(
            lambda: self.add_group(str(self.group_kind.currentData()))
        )
        add.addWidget(self.add_group_button)
        lay.addLayout(add)
        lay.addStretch(1)
        return w

    # ---- groups --------------------------------------------------------------------------
    def add_group(self, query: str = "", colour: str | None = None) -> None:
        """Append a group (a query of the search language and a colour) and let the reader
        type its query; it counts once its query is not empty."""
        groups = list(self._values["groups"])
        colour = colour or _PICK_DEFAULTS[len(groups) % len(_PICK_DEFAULTS)]
        groups.append({"query": query, "color": colour})
        self._values["groups"] = groups
        self.ensure_built()
        self._rebuild_group_rows()
        row = self._group_rows[-1]
        row.edit.setFocus()
        row.edit.setCursorPosition(len(query))
        if query.strip() and not query.endswith(":") and not query.startswith("["):
            self.settingsChanged.emit("groups")

    def group_rows(self) -> list[_GroupRow]:
        return list(self._group_rows)

    def _rebuild_group_rows(self) -> None:
        if self.toolbox is None:
            return  # (made with the pages)
        for row in self._group_rows:
            self.groups_layout.removeWidget(row)
            row.deleteLater()
        self._group_rows = []
        for k, g in enumerate(self._values["groups"]):
            row = _GroupRow(k, str(g.get("query", "")), str(g.get("color") or "#888888"))
            row.edited.connect(self._group_edited)
            row.colourAsked.connect(self._pick_colour)
            row.moved.connect(self._move_group)
            row.removed.connect(self._remove_group)
            self.groups_layout.addWidget(row)
            self._group_rows.append(row)

    def _group_edited(self, k: int, text: str) -> None:
        groups = [dict(g) for g in self._values["groups"]]
        if 0 <= k < len(groups) and groups[k].get("query") != text:
            groups[k]["query"] = text
            self._set("groups", groups)

    def _pick_colour(self, k: int) -> None:
        groups = [dict(g) for g in self._values["groups"]]
        if not 0 <= k < len(groups):
            return
        chosen = QColorDialog.getColor(QColor(groups[k].get("color") or "#888888"), self,
                                       "Group colour")  # fmt: skip
        if chosen.isValid():
            self.set_group_colour(k, chosen.name())

    def set_group_colour(self, k: int, colour: str) -> None:
        groups = [dict(g) for g in self._values["groups"]]
        if 0 <= k < len(groups):
            groups[k]["color"] = colour
            self._values["groups"] = groups
            if k < len(self._group_rows):
                self._group_rows[k].set_colour(colour)
            self.settingsChanged.emit("groups")

    def _move_group(self, k: int, step: int) -> None:
        groups = [dict(g) for g in self._values["groups"]]
        j = k + step
        if 0 <= k < len(groups) and 0 <= j < len(groups):
            groups[k], groups[j] = groups[j], groups[k]
            self._values["groups"] = groups
            self._rebuild_group_rows()
            self.settingsChanged.emit("groups")

    def _remove_group(self, k: int) -> None:
        groups = [dict(g) for g in self._values["groups"]]
        if 0 <= k < len(groups):
            del groups[k]
            self._values["groups"] = groups
            self._rebuild_group_rows()
            self.settingsChanged.emit("groups")

    def set_colour_mode_in_effect(self, mode: str) -> None:
        """Say what "Auto" colours by in this vault (kind, or top folder without kinds)."""
        self._mode_in_effect = mode
        self._show_mode()

    def _show_mode(self) -> None:
        if self.toolbox is None:
            return
        mode = self._mode_in_effect
        names = {"kind": "kind", "folder": "top folder"}
        self.color_in_effect.setText(
            f"Auto colours this vault by {names.get(mode, mode)}."
            if mode and self._values["color_by"] == "auto" else ""
        )  # fmt: skip

    # ---- values --------------------------------------------------------------------------
    def _to_int(self, key: str, value: float | None) -> int:
        lo, hi, steps = _SLIDERS[key]
        if value is None:  # "auto" link strength sits at 1.0
            value = 1.0
        return min(steps, max(0, round((float(value) - lo) / (hi - lo) * steps)))

    def _from_int(self, key: str, v: int) -> float:
        lo, hi, steps = _SLIDERS[key]
        return round(lo + (hi - lo) * v / steps, 6)

    def _slider_moved(self, key: str, v: int) -> None:
        self._set(key, self._from_int(key, v))

    def _set(self, key: str, value: Any) -> None:
        if self._updating or self._values.get(key) == value:
            return
        self._values[key] = value
        self.settingsChanged.emit(key)

    def _checked_off(self, lw: QListWidget) -> list[str]:
        return sorted(
            lw.item(r).data(Qt.ItemDataRole.UserRole)
            for r in range(lw.count())
            if lw.item(r).checkState() != Qt.CheckState.Checked
        )

    def _lists_changed(self, key: str) -> None:
        lw = self.kinds if key == "hidden_kinds" else self.relations
        self._set(key, self._checked_off(lw))

    def values(self) -> dict[str, Any]:
        return copy.deepcopy(self._values)

    def set_values(self, values: dict[str, Any]) -> None:
        """Show ``values`` without emitting ``settingsChanged``."""
        for key, default in DEFAULTS.items():
            self._values[key] = copy.deepcopy(values.get(key, default))
        self._show_values()

    def _show_values(self) -> None:
        if self.toolbox is None:
            return
        self._updating = True
        try:
            for key, s in self._sliders.items():
                s.setValue(self._to_int(key, self._values[key]))
            self.arrows.setChecked(bool(self._values["arrows"]))
            self.legend.setChecked(bool(self._values["legend"]))
            self.orphans.setChecked(bool(self._values["orphans"]))
            self.ghosts.setChecked(bool(self._values["ghosts"]))
            self.tags.setText(str(self._values["tags"]))
            self._rebuild_group_rows()
            self.label_by.setCurrentIndex(max(0, self.label_by.findData(self._values["label_by"])))
            self.color_by.setCurrentIndex(max(0, self.color_by.findData(self._values["color_by"])))
            self._sync_list(self.kinds, self._values["hidden_kinds"])
            self._sync_list(self.relations, self._values["hidden_relations"])
        finally:
            self._updating = False

    def set_value(self, key: str, value: Any) -> None:
        """Change one setting as a user would (emits ``settingsChanged``)."""
        values = self.values()
        values[key] = value
        self.set_values(values)
        self.settingsChanged.emit(key)

    def _sync_list(self, lw: QListWidget, hidden: list[str]) -> None:
        for r in range(lw.count()):
            it = lw.item(r)
            off = it.data(Qt.ItemDataRole.UserRole) in hidden
            it.setCheckState(Qt.CheckState.Unchecked if off else Qt.CheckState.Checked)

    def set_available(self, kinds: list[str], relations: list[str]) -> None:
        """The kinds and relations present in the vault (the filter check lists)."""
        self._available = (list(kinds), list(relations))
        self._show_available()

    def _show_available(self) -> None:
        if self.toolbox is None:
            return
        kinds, relations = self._available
        self._updating = True
        try:
            for lw, names, key in (
                (self.kinds, kinds, "hidden_kinds"),
                (self.relations, relations, "hidden_relations"),
            ):
                lw.clear()
                for name in names:
                    it = QListWidgetItem(plain_text(name, 200) or "(none)")
                    it.setData(Qt.ItemDataRole.UserRole, name)
                    it.setFlags(it.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    off = name in self._values[key]
                    it.setCheckState(Qt.CheckState.Unchecked if off else Qt.CheckState.Checked)
                    lw.addItem(it)
        finally:
            self._updating = False


class ControlsOverlay(QScrollArea):
    """The controls panel drawn over the graph's top right, as Obsidian draws its graph's:
    as a column beside the plot it left a 454 px side pane a 190 px graph and made 403 px
    its least width (the entry could not be given room). As tall as its content (scrolling
    past the graph's height), never wider than the graph less a margin; placed again when
    a section opens or closes."""

    WIDTH = 260  # px, room allowing

    def __init__(self, controls: QWidget, view: QWidget) -> None:
        super().__init__(view)
        self.setObjectName("graphControlsArea")
        self.setWidgetResizable(True)
        self.setWidget(controls)
        self.setAutoFillBackground(True)
        self.setVisible(False)
        self._controls, self._view = controls, view
        self._relayout = _OnLayout(self, self.place)  # a section opened or closed
        controls.installEventFilter(self._relayout)

    def place(self) -> None:
        view = self._view
        width = max(120, min(self.WIDTH, view.width() - 40))
        height = max(60, min(self._controls.sizeHint().height() + 4, view.height() - 16))
        self.setGeometry(view.width() - width - 8, 8, width, height)
        self.raise_()


class _OnLayout(QObject):
    """Calls ``then`` (at the next turn) when the widget it watches lays itself out again
    (an event filter of its own: QScrollArea's own filter of its widget must stay as is)."""

    def __init__(self, parent: QObject, then: Callable[[], None]) -> None:
        super().__init__(parent)
        self._then = then

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            QTimer.singleShot(0, self._then)
        return False
