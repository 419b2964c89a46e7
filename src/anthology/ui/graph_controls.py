"""The collapsible settings panel of the graph view (forces, display, filters, groups).

:class:`GraphControls` only edits a plain ``dict`` of settings (see :data:`DEFAULTS`) and
emits ``settingsChanged(key)``; the view applies them and persists them per vault.
"""

from __future__ import annotations

import copy
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSlider,
    QToolBox,
    QVBoxLayout,
    QWidget,
)

MENTION = "mention"  # the filter/legend name of untyped body links (relation None)

DEFAULTS: dict[str, Any] = {
    # forces (→ ForceParams)
    "center": 0.05,  # ForceParams.gravity: the pull towards the centre
    "repel": -30.0,  # ForceParams.repel_strength
    "link_strength": None,  # None: the engine's default (1 / min degree); else a float
    "link_distance": 30.0,
    # display
    "node_size": 1.0,
    "link_width": 1.0,
    "text_fade": 1.3,  # zoom at which an unlinked node's label is fully shown; hubs earlier
    "arrows": False,
    "legend": True,
    "label_by": "title",  # "title" | "id" (long titles are elided)
    # filters
    "hidden_kinds": [],
    "tags": "",  # comma-separated: show only entries with one of these tags
    "hidden_relations": [],
    "orphans": True,
    "ghosts": False,
    # groups
    "color_by": "kind",  # "kind" | "tag" | "query"
    "group_query": "",
    # mode
    "local": False,
    "depth": 1,
    "controls_open": False,
}

# slider name → (min, max, steps) mapping floats onto the int slider range
_SLIDERS: dict[str, tuple[float, float, int]] = {
    "center": (0.0, 0.5, 100),
    "repel": (-300.0, 0.0, 150),
    "link_strength": (0.0, 2.0, 100),
    "link_distance": (5.0, 250.0, 245),
    "node_size": (0.3, 3.0, 54),
    "link_width": (0.3, 4.0, 37),
    "text_fade": (0.1, 8.0, 79),
}
_LABELS = {
    "center": "Centre force",
    "repel": "Repel force",
    "link_strength": "Link strength",
    "link_distance": "Link distance",
    "node_size": "Node size",
    "link_width": "Link thickness",
    "text_fade": "Text fade threshold",
}


def defaults() -> dict[str, Any]:
    return copy.deepcopy(DEFAULTS)


class GraphControls(QWidget):
    """Forces, display, filters and groups; ``values()`` is the whole state."""

    settingsChanged = Signal(str)  # the key that changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphControls")
        self._values = defaults()
        self._sliders: dict[str, QSlider] = {}
        self._updating = False

        box = QToolBox(self)
        box.setObjectName("graphControlsToolBox")
        box.addItem(self._forces_page(), "Forces")
        box.addItem(self._display_page(), "Display")
        box.addItem(self._filters_page(), "Filters")
        box.addItem(self._groups_page(), "Groups")
        self.toolbox = box
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(box)
        self.setMinimumWidth(220)

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
        form = QFormLayout(w)
        self.color_by = QComboBox()
        self.color_by.setObjectName("colorByCombo")
        for label, value in (("Kind", "kind"), ("First tag", "tag"), ("Query", "query")):
            self.color_by.addItem(label, value)
        self.color_by.currentIndexChanged.connect(
            lambda _i: self._set("color_by", self.color_by.currentData())
        )
        form.addRow("Colour by", self.color_by)
        self.group_query = QLineEdit()
        self.group_query.setObjectName("groupQuery")
        self.group_query.setPlaceholderText("text or tag:name (one group per ';')")
        self.group_query.editingFinished.connect(
            lambda: self._set("group_query", self.group_query.text())
        )
        form.addRow("Groups", self.group_query)
        return w

    # ---- values --------------------------------------------------------------------------
    def _to_int(self, key: str, value: float | None) -> int:
        lo, hi, steps = _SLIDERS[key]
        if value is None:  # "auto" link strength sits at 1.0
            value = 1.0
        return round((float(value) - lo) / (hi - lo) * steps)

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
        self._updating = True
        try:
            for key, default in DEFAULTS.items():
                self._values[key] = copy.deepcopy(values.get(key, default))
            for key, s in self._sliders.items():
                s.setValue(self._to_int(key, self._values[key]))
            self.arrows.setChecked(bool(self._values["arrows"]))
            self.legend.setChecked(bool(self._values["legend"]))
            self.orphans.setChecked(bool(self._values["orphans"]))
            self.ghosts.setChecked(bool(self._values["ghosts"]))
            self.tags.setText(str(self._values["tags"]))
            self.group_query.setText(str(self._values["group_query"]))
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
        self._updating = True
        try:
            for lw, names, key in (
                (self.kinds, kinds, "hidden_kinds"),
                (self.relations, relations, "hidden_relations"),
            ):
                lw.clear()
                for name in names:
                    it = QListWidgetItem(name or "(none)")
                    it.setData(Qt.ItemDataRole.UserRole, name)
                    it.setFlags(it.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    off = name in self._values[key]
                    it.setCheckState(Qt.CheckState.Unchecked if off else Qt.CheckState.Checked)
                    lw.addItem(it)
        finally:
            self._updating = False
