"""The graph view's toolbar, its Export menu and the right-click menu of a node.

:class:`GraphToolbar` makes the widgets and actions and says which mode is on; the view
connects them (it owns what they do). :func:`node_menu` builds a node's menu from the view's
public methods.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLineEdit,
    QMenu,
    QMessageBox,
    QSpinBox,
    QToolBar,
    QToolButton,
    QWidget,
    QWidgetAction,
)

from anthology.graph.scene import GraphScene

__all__ = ["GraphToolbar", "MenuHost", "export_data_dialog", "export_picture_dialog", "node_menu"]


class MenuHost(Protocol):
    """What the menus and dialogs ask of the view (a QWidget: their parent)."""

    scene: GraphScene
    entryActivated: Any  # Signal(str)
    entryActivatedNewTab: Any  # Signal(str)
    pathRequested: Any  # Signal(str)

    def show_local_graph(self, entry_id: str) -> None: ...

    def unpin(self, entry_id: str) -> None: ...

    def toggle_selected(self, entry_id: str) -> None: ...

    def show_selection_neighbourhood(self, ids: Iterable[str] | None = None) -> None: ...

    def export_png(self, path: str, width: int | None = None) -> tuple[int, int]: ...

    def export_svg(self, path: str) -> int: ...

    def export_graphml(self, path: str) -> int: ...

    def export_json(self, path: str) -> int: ...


def _parent(host: MenuHost) -> QWidget | None:
    return host if isinstance(host, QWidget) else None


def _action(
    parent: QWidget, text: str, name: str, tip: str = "", checkable: bool = False
) -> QAction:
    a = QAction(text, parent)
    a.setObjectName(name)
    a.setCheckable(checkable)
    if tip:
        a.setToolTip(tip)
    return a


class GraphToolbar(QToolBar):
    """Global / Local and the depth, the node search, Pause, Fit, Timeline, Export, Controls."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__("Graph", parent)
        self.setObjectName("graphToolbar")
        # Two buttons, the one that is on shown pressed: a single "Local graph" toggle next
        # to "depth 1" read as the mode even while the global graph was shown.
        self.action_global = _action(parent, "Global", "actionGlobal",
                                     "Show every entry of the vault", True)  # fmt: skip
        self.action_global.setChecked(True)
        self.addAction(self.action_global)
        self.action_local = _action(
            parent, "Local", "actionLocal", "Show only the current entry's neighbourhood", True
        )
        self.addAction(self.action_local)
        self.depth_spin = QSpinBox()
        self.depth_spin.setObjectName("depthSpin")
        self.depth_spin.setRange(1, 3)
        self.depth_spin.setPrefix("depth ")
        self.depth_spin.setToolTip("Local graph depth: links away from the current entry")
        self.action_depth = self.addWidget(self.depth_spin)
        self.action_depth.setVisible(False)  # a depth only means something for local
        self.addSeparator()
        self.search_edit = QLineEdit()
        self.search_edit.setObjectName("graphSearch")
        self.search_edit.setPlaceholderText("Search nodes…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setMinimumWidth(90)
        self.action_pause = _action(parent, "Pause", "actionPause", "Pause the simulation", True)
        self.addAction(self.action_pause)
        self.action_fit = _action(parent, "Fit", "actionFit")
        self.addAction(self.action_fit)
        self.action_timeline = _action(
            parent, "Timeline", "actionTimeline", "The entries by date in a tab, relations as arcs"
        )
        self.addAction(self.action_timeline)
        self.action_png = _action(parent, "Export PNG…", "actionExportPng")
        self.action_svg = _action(parent, "Export SVG…", "actionExportSvg")
        export_btn = QToolButton()
        export_btn.setObjectName("exportButton")
        export_btn.setText("Export")
        export_btn.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        export_menu = QMenu(export_btn)
        export_menu.addAction(self.action_png)
        # the PNG's width, chosen in the menu (the picture is the whole graph at that width)
        self.png_width = QSpinBox()
        self.png_width.setObjectName("pngWidth")
        self.png_width.setRange(400, 16000)
        self.png_width.setSingleStep(400)
        self.png_width.setValue(2400)
        self.png_width.setPrefix("PNG width ")
        self.png_width.setSuffix(" px")
        width_action = QWidgetAction(export_menu)
        width_action.setDefaultWidget(self.png_width)
        export_menu.addAction(width_action)
        export_menu.addAction(self.action_svg)
        export_menu.addSeparator()
        # data, not pictures: what the filters leave (graph.export)
        self.action_graphml = _action(parent, "Export GraphML…", "actionExportGraphml")
        self.action_json = _action(parent, "Export JSON (node-link)…", "actionExportJson")
        export_menu.addAction(self.action_graphml)
        export_menu.addAction(self.action_json)
        export_btn.setMenu(export_menu)
        self.addWidget(export_btn)
        self.controls_button = QToolButton()
        self.controls_button.setObjectName("controlsButton")
        self.controls_button.setText("Controls")
        self.controls_button.setCheckable(True)
        self.addWidget(self.controls_button)

    def show_mode(self, local: bool) -> None:
        """One of Global / Local pressed, the depth only beside Local."""
        for action, on in ((self.action_global, not local), (self.action_local, local)):
            if action.isChecked() != on:
                action.blockSignals(True)
                action.setChecked(on)
                action.blockSignals(False)
        self.action_depth.setVisible(local)

    def mode(self) -> str:
        """ "local" or "global": what the toolbar shows as on ("?": both or neither)."""
        g, loc = self.action_global.isChecked(), self.action_local.isChecked()
        return "local" if loc and not g else "global" if g and not loc else "?"

    def show_values(self, depth: int, controls_open: bool) -> None:
        """The depth and the Controls button as loaded, without re-entering the view."""
        for w, set_value in ((self.depth_spin, lambda: self.depth_spin.setValue(depth)),
                             (self.controls_button,
                              lambda: self.controls_button.setChecked(controls_open))):  # fmt: skip
            w.blockSignals(True)
            set_value()
            w.blockSignals(False)

    def actions_for_palette(self) -> list[QAction]:
        return [self.action_local, self.action_pause, self.action_fit, self.action_png,
                self.action_svg, self.action_graphml, self.action_json]  # fmt: skip


def export_picture_dialog(view: MenuHost, kind: str) -> None:
    filt = "PNG image (*.png)" if kind == "png" else "SVG image (*.svg)"
    path, _ = QFileDialog.getSaveFileName(
        _parent(view), f"Export graph as {kind.upper()}", f"graph.{kind}", filt
    )
    if path:
        (view.export_png if kind == "png" else view.export_svg)(path)


def export_data_dialog(view: MenuHost, kind: str) -> None:
    filt = "GraphML (*.graphml)" if kind == "graphml" else "JSON (*.json)"
    path, _ = QFileDialog.getSaveFileName(
        _parent(view), f"Export the shown graph as {kind.upper()}", f"graph.{kind}", filt
    )
    if path:
        try:
            (view.export_graphml if kind == "graphml" else view.export_json)(path)
        except OSError as exc:
            QMessageBox.warning(_parent(view), "Export", f"Could not write {path}: {exc}")


def node_menu(view: MenuHost, entry_id: str) -> QMenu:
    """The right-click menu of a node: Open, Open in new tab, Show local graph, Unpin,
    Copy id; then Path to…, Neighbourhood of selection, Select / Deselect."""
    scene = view.scene
    menu = QMenu(_parent(view))
    menu.setObjectName("graphNodeMenu")
    menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    i = scene.index.get(entry_id)
    ghost = bool(scene.data.ghost[i]) if i is not None else True
    a = menu.addAction("Open", lambda: view.entryActivated.emit(entry_id))
    a.setObjectName("menuOpen")
    a.setEnabled(not ghost)
    a = menu.addAction("Open in new tab", lambda: view.entryActivatedNewTab.emit(entry_id))
    a.setObjectName("menuOpenNewTab")
    a.setEnabled(not ghost)
    a = menu.addAction("Show local graph", lambda: view.show_local_graph(entry_id))
    a.setObjectName("menuLocal")
    a = menu.addAction("Unpin", lambda: view.unpin(entry_id))
    a.setObjectName("menuUnpin")
    a.setEnabled(entry_id in scene.pins)
    a = menu.addAction("Copy id", lambda: QGuiApplication.clipboard().setText(entry_id))
    a.setObjectName("menuCopy")
    a.setShortcut(QKeySequence.StandardKey.Copy)
    menu.addSeparator()
    a = menu.addAction("Path to…", lambda: view.pathRequested.emit(entry_id))
    a.setObjectName("menuPathTo")
    a.setEnabled(not ghost)
    selection = scene.selection
    sel = selection if entry_id in selection else [*selection, entry_id]
    a = menu.addAction(
        f"Neighbourhood of selection ({len(sel)})",
        lambda: view.show_selection_neighbourhood(sel),
    )
    a.setObjectName("menuSelectionNeighbourhood")
    a.setEnabled(len(sel) > 1)
    a = menu.addAction(
        "Deselect" if entry_id in selection else "Select (Shift+click)",
        lambda: view.toggle_selected(entry_id),
    )
    a.setObjectName("menuSelect")
    return menu
