"""The graph view: a force-directed map of the vault's entries, navigated by clicking.

The view draws what its Qt-free scene says (:class:`anthology.graph.scene.GraphScene`:
positions, pins, trail, selection, the shown graph, sizes per zoom step, highlight, marks,
labels) and forwards the reader's input to it. Layers (:mod:`anthology.ui.graph.graph_paint`):
one edge item with an image cache, one scatter item for every node, an overlay scatter for
the highlighted neighbourhood / search hits, one ring scatter for the current entry, the
visited trail and pins, and one label item. The simulation runs in
:class:`anthology.ui.graph.layout_worker.LayoutThread`; the toolbar and menus are
:mod:`anthology.ui.graph.graph_menus`', the reader's input on nodes (click, hover, drag,
right-click) :mod:`anthology.ui.graph.node_input`'.

Public API (used by the main window)::

    view = GraphView()                           # objectName "graphView"
    view.entryActivated.connect(open_entry)      # str: a click on a node, or "Open"
    view.layoutSettled.connect(persist)          # the simulation cooled: save positions()
    view.set_graph(data, positions, vault_key, pinned=ids, store=state)  # replace the graph
                                                 # (live reload keeps positions)
    view.set_current(entry_id)                   # follow the entry pane (ring, trail, local graph)
    view.positions() -> dict[str, tuple[float, float]]   # global layout coordinates
    view.pinned_ids() -> list[str]               # nodes the reader dragged (saved with positions)
    view.detach_store()                          # save the settings, let go of the vault's store
    view.set_theme("dark" | "light")
    view.export_png(path); view.export_svg(path)
    view.shutdown()                              # stop the worker (also on close / aboutToQuit)

Paths and selection: ``path_finder()`` (the graph's :class:`~anthology.graph.PathFinder`,
built once per graph), ``show_path(path | None)``, ``shown_path()``, ``highlighted_edges()``,
``pathRequested`` (str: a node's "Path to…"); Shift+click builds ``selection()``
(``set_selection``, ``toggle_selected``), ``show_selection_neighbourhood(ids=None)``.
Data export: ``export_graphml(path)``, ``export_json(path)`` (what the filters leave).

Also: ``set_local(bool)``, ``set_depth(1..3)``, ``show_local_graph(id)``, ``set_search(text)``,
``set_paused(bool)``, ``fit()``, ``pin(id, x, y)`` / ``unpin(id)``, ``set_setting(key, value)``
(keys: :data:`anthology.graph.settings.DEFAULTS`), and for tests and hosts ``scene``,
``hover(id)``, ``highlighted_ids()``, ``search_matches()``, ``shown_ids()``, ``shown_edges()``,
``node_viewport_pos(id)``, ``node_menu(id)``, ``current_id()``, ``trail()``, ``pinned_ids()``.

Settings (forces, display, filters, groups, local/depth, panel open) persist per vault in the
vault's user state (``store``, a :class:`anthology.user_state.UserState`) under
:data:`~anthology.user_state.GRAPH_VIEW`; without a store they last as long as the view.
``layoutSettled`` is emitted whenever a simulation cools, local ones included; reopening with
every position known runs no simulation (and emits nothing).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from anthology.graph.drawing import Drawing
from anthology.graph.export import write_graphml, write_node_link_json
from anthology.graph.model import sanitize_graph
from anthology.graph.paths import LinkPath, PathFinder
from anthology.graph.scene import GraphScene, LayoutStart
from anthology.graph.settings import FILTER_KEYS, FORCE_KEYS
from anthology.ui.common.step_queue import later
from anthology.ui.graph.frame_pacing import FramePacing, single_shot
from anthology.ui.graph.graph_camera import GLIDE_MS, GraphCamera, left_the_view
from anthology.ui.graph.graph_controls import ControlsOverlay, GraphControls
from anthology.ui.graph.graph_keys import GraphKeys
from anthology.ui.graph.graph_legend import GraphLegend
from anthology.ui.graph.graph_menus import (
    GraphToolbar,
    export_data_dialog,
    export_picture_dialog,
    node_menu,
)
from anthology.ui.graph.graph_paint import THEMES, GraphPainter
from anthology.ui.graph.graph_store import GraphStore, SettingsStore
from anthology.ui.graph.layout_worker import LayoutSpec, LayoutThread
from anthology.ui.graph.node_input import NodeInput
from anthology.ui.graph.viewport_cache import device_coords
from anthology.vault import GraphData

__all__ = ["GraphView", "sanitize_graph"]

#: A rebuild of more nodes than this gives them to the items a piece per event-loop turn.
STEPPED_REBUILD_NODES = 20_000


# ---------------------------------------------------------------------------------------
class GraphView(QWidget):
    """The graph of the vault's entries; see the module docstring for the API."""

    entryActivated = Signal(str)
    entryActivatedNewTab = Signal(str)  # a node middle-clicked or Ctrl+clicked, or the menu's
    pathRequested = Signal(str)  # the node menu's "Path to…": the window asks for the other end
    timelineRequested = Signal()  # the toolbar's Timeline: the window opens the timeline tab
    layoutSettled = Signal()

    SEARCH_ROOM = 160  # the search field's width beside the toolbar, when it goes there

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphView")
        self.scene = GraphScene()  # what is shown, where, and how it is marked
        self._shut = False
        # the layout thread and its frames' pace
        self.pacing = FramePacing(self, self._draw_frame, self._on_settled, self._on_worker_failed)
        self._legend_marks: list[str] = []
        self._follow_on_settle = False  # the next cooled simulation brings the reader back
        self._fresh_layout = False  # the global graph is being laid out from nothing
        self._zoom_timer = single_shot(self, 150, self._apply_zoom_step)
        self._start: LayoutStart | None = None  # the last rebuild's (its layout's start)
        # a big rebuild's framing and style, left to the first of its pieces (refit, ...)
        self._styling: tuple[bool, bool, bool] | None = None
        self._rank = np.zeros(0)  # the labels' rank of the shown graph (its degrees)
        self._drawn = 0  # the scene's generation the items show
        self.keys = GraphKeys(self)  # the keyboard focus (arrows, Tab, Enter, Esc)
        self._build_ui()
        self._apply_theme()
        # where this vault's settings and camera persist: its user state, from the window
        self.store = GraphStore(
            self,
            lambda: self.scene.settings,
            lambda: self.camera.state() if len(self.scene.shown) else None,
            self._mode,
        )
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    # ---- UI --------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        tb = self.toolbar = GraphToolbar(self)
        # the toolbar's widgets under the names hosts and tests know
        self.action_global, self.action_local = tb.action_global, tb.action_local
        self.depth_spin, self.action_depth = tb.depth_spin, tb.action_depth
        self.search_edit, self.action_pause = tb.search_edit, tb.action_pause
        self.action_fit, self.action_png = tb.action_fit, tb.action_png
        self.action_svg = tb.action_svg
        self.action_graphml, self.action_json = tb.action_graphml, tb.action_json
        self.png_width, self.controls_button = tb.png_width, tb.controls_button
        tb.action_global.triggered.connect(lambda: self.set_local(False))
        tb.action_local.toggled.connect(self.set_local)
        tb.depth_spin.valueChanged.connect(self.set_depth)
        tb.search_edit.textChanged.connect(self.set_search)
        tb.action_pause.toggled.connect(self.set_paused)
        tb.action_fit.triggered.connect(self.fit)
        tb.action_timeline.triggered.connect(self.timelineRequested)
        tb.action_png.triggered.connect(lambda: export_picture_dialog(self, "png"))
        tb.action_svg.triggered.connect(lambda: export_picture_dialog(self, "svg"))
        tb.action_graphml.triggered.connect(lambda: export_data_dialog(self, "graphml"))
        tb.action_json.triggered.connect(lambda: export_data_dialog(self, "json"))
        tb.controls_button.toggled.connect(self._toggle_controls)

        self.view = pg.GraphicsView(self, background=THEMES["dark"]["background"])
        self.view.setObjectName("graphCanvas")
        self.view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.vb = pg.ViewBox(enableMenu=False, lockAspect=True)
        self.vb.setMouseEnabled(True, True)
        self.vb.disableAutoRange()
        self.view.setCentralItem(self.vb)
        self.camera = GraphCamera(self.vb, self)
        self.painter = GraphPainter(self.vb)
        self.edges, self.nodes = self.painter.edges, self.painter.nodes
        self.overlay, self.marks, self.labels = (
            self.painter.overlay, self.painter.marks, self.painter.labels
        )  # fmt: skip
        self.labels.painted = self.pacing.painted  # the top layer: the frame is on screen
        self.input = NodeInput(self)  # click, hover, drag, menu of a node
        self.vb.sigTransformChanged.connect(self._on_view_changed)

        self.legend = GraphLegend(self)  # a strip under the plot, not over it
        self.empty_label = QLabel("No entries to show", self.view)
        self.empty_label.setObjectName("graphEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)

        self.controls = GraphControls()
        self.controls.settingsChanged.connect(self._on_setting_changed)
        self.controls_area = ControlsOverlay(self.controls, self.view)  # over the graph

        plot = QVBoxLayout()
        plot.setContentsMargins(0, 0, 0, 0)
        plot.setSpacing(0)
        plot.addWidget(self.view, 1)
        plot.addWidget(self.legend)
        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        body.addLayout(plot, 1)
        # The node search sits at the end of the toolbar row when the pane is wide enough,
        # else on a row of its own under it (at the window's default width the toolbar
        # pushed Fit, Export and Controls into its » menu).
        self._top_row = QHBoxLayout()
        self._top_row.setContentsMargins(0, 0, 6, 0)
        self._top_row.setSpacing(4)
        self._top_row.addWidget(self.toolbar)
        self._search_row = QHBoxLayout()
        self._search_row.setContentsMargins(6, 0, 6, 4)
        self._place_search(narrow=False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(self._top_row)
        lay.addLayout(self._search_row)
        lay.addLayout(body, 1)
        # (filters installed once every part they touch is made)
        self.view.installEventFilter(self)

    def _place_search(self, narrow: bool) -> None:
        row, other = self._search_row, self._top_row
        if not narrow:
            row, other = other, row
        if row.indexOf(self.search_edit) >= 0:
            return
        other.removeWidget(self.search_edit)
        self.search_edit.setMaximumWidth(16777215 if narrow else 240)
        row.addWidget(self.search_edit, 1)

    def search_on_own_row(self) -> bool:
        """Whether the node search is on the row under the toolbar (a narrow pane)."""
        return self._search_row.indexOf(self.search_edit) >= 0

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_search(self.width() < self.toolbar.sizeHint().width() + self.SEARCH_ROOM)
        self.controls_area.place()

    def eventFilter(self, obj, event) -> bool:
        if obj is self.view:
            et = event.type()
            if et == event.Type.Resize:
                self.empty_label.setGeometry(0, 0, self.view.width(), self.view.height())
                self.controls_area.place()
            elif et == event.Type.KeyPress and self.keys.handle(event):
                return True
        return super().eventFilter(obj, event)

    def keyPressEvent(self, event) -> None:
        if not self.keys.handle(event):
            super().keyPressEvent(event)

    # what the keys need (indices into the shown nodes; see graph_keys.KeyHost) -------------
    def key_device_positions(self) -> np.ndarray:
        dpos = self.scene.dpos
        tr = self.nodes.deviceTransform_()
        if tr is None:
            return dpos * np.array([1.0, -1.0])  # y up in the layout, down on screen
        return device_coords(tr, dpos)

    def key_neighbours(self, j: int) -> np.ndarray:
        return self.scene.neighbours(j)

    def key_start(self) -> int:
        """The current entry if shown, else the node nearest the middle of the view."""
        j = self.scene.local_index(self.scene.current)
        return j if j >= 0 else self.scene.nearest(*self.camera.centre())

    def key_focus(self, j: int) -> None:
        entry_id = self.scene.id_of(j)
        self.hover(entry_id)
        self._reveal(entry_id)

    def key_open(self, j: int) -> None:
        self.input.clicked(j)

    def key_clear(self) -> bool:
        """Esc with no keyboard focus clears, one per press, the most recent thing laid
        over the graph: a shown path, then the Shift+click selection, then the node search."""
        if self.scene.path is not None:
            self.show_path(None)
            return True
        if self.scene.selection:
            self.set_selection(())
            return True
        if self.search_edit.text():
            self.set_search("")
            return True
        return False

    def focused_id(self) -> str | None:
        """The node the keyboard focus is on (None: none)."""
        return self.scene.id_of(self.keys.focus)

    def key_pan_zoom(self, event) -> bool:
        """Shift+arrows pan, +/− zoom, 0/Home fits.  True when handled."""
        return self.camera.key(event, self.fit)

    def _toggle_controls(self, on: bool) -> None:
        if on:
            self.controls.ensure_built()  # (its pages wait for the panel's first opening)
        self.controls_area.setVisible(on)
        self.controls_area.place()
        if self.scene.settings.get("controls_open") != on:
            self.scene.settings["controls_open"] = on
            self.store.schedule()

    # ---- public API ------------------------------------------------------------------------
    def set_graph(
        self,
        data: GraphData,
        positions: Mapping[str, Sequence[float]] | np.ndarray | None = None,
        vault_key: str = "",
        *,
        pinned: Iterable[str] = (),
        store: SettingsStore | None = None,
        current: str | None = None,
    ) -> None:
        """Replace the graph.  Positions of nodes already shown are kept (so a live reload
        only settles what changed), then ``positions`` fill in, and the ids in ``pinned``
        among them are pinned there; new nodes start beside their neighbours.  A new
        ``vault_key`` loads that vault's settings from ``store`` and refits the view.
        ``current``: the entry shown, followed as :meth:`set_current` would, in the same
        rebuild (a rebuild of the whole graph and then one around the entry took 0.3 s at
        100,000 entries). See :meth:`graph_steps` for the same in pieces."""
        for step in self.graph_steps(data, positions, vault_key, pinned=pinned, store=store,
                                     current=current):  # fmt: skip
            step()

    def graph_steps(
        self,
        data: GraphData,
        positions: Mapping[str, Sequence[float]] | np.ndarray | None = None,
        vault_key: str = "",
        *,
        pinned: Iterable[str] = (),
        store: SettingsStore | None = None,
        current: str | None = None,
    ) -> list[Callable[[], None]]:
        """:meth:`set_graph` as pieces to call in order, one per event-loop turn: the
        scene's load and rebuild (what is shown, its sizes and colours), then the items
        given the nodes, then the edges, then the labels, then the relations' names and
        the highlight, then the layout started. At 100,000
        entries they held the GUI thread 0.3–0.5 s in one turn. Until the last piece
        the node layer's input is ignored (its items still draw the graph before); a
        rebuild meanwhile (the reader opened another entry) drops the pieces left."""
        return [lambda: self._load_step(data, positions, vault_key, pinned, store, current),
                *self._draw_steps()]  # fmt: skip

    def _load_step(
        self,
        data: GraphData,
        positions: Mapping[str, Sequence[float]] | np.ndarray | None,
        vault_key: str,
        pinned: Iterable[str],
        store: SettingsStore | None,
        current: str | None,
    ) -> None:
        if self._shut:
            return
        new_vault = vault_key != self.store.vault_key
        if new_vault:
            palette = THEMES[self.scene.theme]["palette"]
            self._show_settings(self.store.open(vault_key, store, palette))
            self.camera.stop()
            self.scene.forget_vault()
            self.search_edit.blockSignals(True)
            self.search_edit.clear()
            self.search_edit.blockSignals(False)
        elif store is not None:
            self.store.store = store  # the same vault opened again
        was_empty = self.scene.load(data, positions, pinned, keep=not new_vault)
        if current is not None and current != self.scene.current:
            self.scene.follow(current, force=self.store.restore_pending)
        self.controls.set_available(self.scene.kinds(), self.scene.relation_filter_names())
        self.controls.set_colour_mode_in_effect(self.scene.colour_mode())
        self._rebuild_scene(refit=new_vault or was_empty)

    def set_current(self, entry_id: str | None) -> None:
        """Follow the entry pane: ring the node, extend the trail, recentre or rebuild."""
        if self._shut:
            return
        if self.scene.follow(entry_id, force=self.store.restore_pending):
            self._rebuild(refit=True)
        else:
            self._update_marks()
            self._reveal(self.scene.current)

    def hold_layout(self) -> None:
        """The simulation stands still while the window opens an entry (it would compete
        for the GIL with the pane, the backlinks and this view's rebuild), and goes on
        once the panes are painted (the window's repaint may wait a few ms for the
        platform's update timer, so not at the next event-loop turn): the new local
        graph's first frame is its start positions, and it moves from there."""
        self.pacing.hold()

    def current_id(self) -> str | None:
        return self.scene.current

    def trail(self) -> list[str]:
        return list(self.scene.trail)

    def positions(self) -> dict[str, tuple[float, float]]:
        """Global layout coordinates of every placed node (for the index to persist)."""
        return self.scene.positions()

    def set_theme(self, theme: str) -> None:
        if theme not in THEMES:
            raise ValueError(f"unknown theme {theme!r}")
        self.scene.theme = theme
        self._apply_theme()
        self._restyle()

    def theme(self) -> str:
        return self.scene.theme

    def shutdown(self) -> None:
        """Stop the layout thread (idempotent); settings are saved."""
        if self._shut:
            return
        self._shut = True
        self.store.close()
        with contextlib.suppress(RuntimeError):
            for cache in (self.edges.cache, self.nodes.cache):
                cache.timer.stop()
                cache.cancel()
                cache.settle_timer.stop()
            self._zoom_timer.stop()
        self.pacing.stop()  # late queued frames are dropped

    def worker(self) -> LayoutThread | None:
        return self.pacing.worker

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    # mode, search, pause --------------------------------------------------------------------
    def set_local(self, local: bool) -> None:
        local = bool(local)
        if self.action_local.isChecked() != local:
            self.action_local.setChecked(local)  # re-enters through toggled
            return
        self.toolbar.show_mode(local)
        st = self.scene.settings
        if st["local"] == local:
            return
        self.store.remember()
        st["local"] = local
        if local and self.scene.local_centre is None:
            self.scene.local_centre = self.scene.current
        self.store.schedule()
        self._rebuild(refit=True)

    def toolbar_mode(self) -> str:
        """ "local" or "global": what the toolbar shows as on (tests compare it with what is
        drawn)."""
        return self.toolbar.mode()

    def is_local(self) -> bool:
        return self.scene.local

    def set_depth(self, depth: int) -> None:
        depth = max(1, min(3, int(depth)))
        if self.depth_spin.value() != depth:
            self.depth_spin.setValue(depth)  # re-enters through valueChanged
            return
        st = self.scene.settings
        if st["depth"] == depth:
            return
        st["depth"] = depth
        self.store.schedule()
        if st["local"]:
            self._rebuild(refit=True)

    def show_local_graph(self, entry_id: str) -> None:
        if entry_id in self.scene.index:
            self.scene.local_centre = entry_id
            self.scene.selection_centres = []
            if self.scene.local:
                self._rebuild(refit=True)
            else:
                self.set_local(True)

    # selection (Shift+click) and its neighbourhood -------------------------------------------
    def selection(self) -> list[str]:
        return list(self.scene.selection)

    def set_selection(self, ids: Iterable[str]) -> None:
        self.scene.set_selection(ids)
        self._update_marks()

    def toggle_selected(self, entry_id: str) -> None:
        self.scene.toggle_selected(entry_id)
        self._update_marks()

    def show_selection_neighbourhood(self, ids: Iterable[str] | None = None) -> None:
        """The local graph of several nodes at once: everything within the depth of any of
        them (the selection, by default)."""
        scene = self.scene
        centres = [k for k in (scene.selection if ids is None else ids) if k in scene.index]
        if not centres:
            return
        scene.selection_centres = centres
        if scene.local:
            self._rebuild(refit=True)
        else:
            self.set_local(True)

    # paths ----------------------------------------------------------------------------------
    def path_finder(self) -> PathFinder:
        """The shortest-path model of the loaded graph (its networkx graphs built once)."""
        return self.scene.path_finder()

    def show_path(self, path: LinkPath | None) -> None:
        """Highlight ``path`` on the graph (its nodes and links, the rest dimmed); None
        clears. A path's nodes hidden by the local graph bring the global graph back."""
        if self.scene.set_path(path):
            self.set_local(False)
        self._apply_highlight()
        if self.scene.path is not None:
            self._reveal(self.scene.path.nodes[0])

    def shown_path(self) -> LinkPath | None:
        return self.scene.path

    def highlighted_edges(self) -> list[tuple[str, str]]:
        """The shown links drawn at full strength (a shown path's)."""
        return self.scene.highlighted_edges()

    def palette_actions(self) -> list[QAction]:
        """The graph's commands for the window's command palette."""
        return self.toolbar.actions_for_palette()

    def set_search(self, text: str) -> None:
        if self.search_edit.text() != text:
            self.search_edit.setText(text)  # re-enters through textChanged
            return
        self.scene.set_search(text)
        self._apply_highlight()

    def search_matches(self) -> list[str]:
        return self.scene.search_matches()

    def set_paused(self, paused: bool) -> None:
        if self.action_pause.isChecked() != bool(paused):
            self.action_pause.setChecked(bool(paused))
            return
        if self.pacing.worker is not None:
            self.pacing.worker.set_paused(bool(paused))

    def fit(self, animate: bool = False) -> None:
        """Show the bulk of the shown nodes (far outliers may stay outside: see
        :func:`anthology.ui.graph.graph_camera.bulk_box`)."""
        self.camera.fit(self.scene.dpos, animate=animate, margin_px=self.labels.fit_margin())

    # settings -------------------------------------------------------------------------------
    def settings(self) -> dict:
        return dict(self.scene.settings)

    def set_setting(self, key: str, value) -> None:
        """Change one setting as the controls panel would."""
        self.controls.set_value(key, value)

    def _on_setting_changed(self, key: str) -> None:
        old = self.scene.settings
        values = self.controls.values()
        for k in ("local", "depth", "controls_open"):  # the toolbar's, not the panel's
            values[k] = old[k]
        self.scene.settings = values
        self.store.schedule()
        if key in FORCE_KEYS:
            self._follow_on_settle = True
            if self.pacing.worker is not None:
                self.pacing.worker.set_params(self.scene.force_params(), reheat=0.3)
        elif key in FILTER_KEYS:
            self._rebuild(refit=False)
        else:
            if key == "color_by":
                self.controls.set_colour_mode_in_effect(self.scene.colour_mode())
            self._restyle()

    def detach_store(self) -> None:
        """Save the settings into the vault's store and let go of it (it is being closed)."""
        self.store.detach()

    def _show_settings(self, values: dict[str, Any]) -> None:
        """A vault's settings loaded: the scene takes them, the panel and toolbar show them."""
        self.scene.settings = values
        self.controls.set_values(values)
        self.toolbar.show_values(int(values["depth"]), bool(values["controls_open"]))
        self.toolbar.show_mode(bool(values["local"]))
        self.controls_area.setVisible(bool(values["controls_open"]))
        self.controls_area.place()

    # the camera's state per vault and mode -----------------------------------------------
    def _mode(self) -> str:
        return "local" if self.scene.local else "global"

    def view_state(self) -> dict[str, Any]:
        """Where the view looks, per mode (what the user state keeps)."""
        self.store.remember()
        return dict(self.store.views)

    # ---- the displayed graph --------------------------------------------------------------
    def _rebuild(self, refit: bool) -> None:
        """Rebuild the shown graph (a mode, depth, centre or filter changed): the scene's
        part now, the items' (:meth:`_draw_steps`) in this turn too for a graph of up to
        :data:`STEPPED_REBUILD_NODES` nodes, else a piece per event-loop turn (a switch to
        the global graph at 100,000 entries held the GUI thread 0.34 s in one turn). A
        rebuild meanwhile leaves the older pieces nothing to do (:meth:`_swapping`)."""
        self._rebuild_scene(refit)
        steps = self._draw_steps()
        if len(self.scene.dpos) <= STEPPED_REBUILD_NODES:
            for step in steps:
                step()
        else:  # from the next pass on (this one rebuilt the scene)
            later(lambda: self._run_steps(steps), self)

    def _run_steps(self, steps: list[Callable[[], None]]) -> None:
        if self._shut or not steps:
            return
        steps[0]()
        if len(steps) > 1:
            later(lambda: self._run_steps(steps[1:]), self)

    def _rebuild_scene(self, refit: bool) -> None:
        """The scene's part of a rebuild: what is shown, where it starts, its sizes and
        colours (:meth:`_draw_steps` gives them to the items and starts the layout)."""
        if self._shut:
            return
        scene = self.scene
        start = scene.rebuild()
        self._start = start
        self.input.reset()
        self.keys.reset()
        if refit:
            self._follow_on_settle = True
        # a global graph laid out from nothing spreads as it cools: framed again once cool
        self._fresh_layout = not scene.local and start.alpha >= 1.0
        self._styling = (refit, scene.local, start.centres > 0)  # (replaces an older one's)
        if len(scene.dpos) <= STEPPED_REBUILD_NODES:  # a big graph's: the first draw piece
            self._style_step()
        self._drawn = -1  # the items show an older graph until _draw_steps are done

    def _draw_steps(self) -> list[Callable[[], None]]:
        """Give the items the scene's rebuilt graph and start its layout: the nodes, then
        the edges, labels and legend, then the layout (each a piece of the GUI thread's
        work). Each does what is left of the latest rebuild: nothing when a rebuild
        meanwhile (a click) drew it whole."""
        nodes = self.painter.node_pieces(self.scene, lambda: not self._shut and self._swapping())
        return [self._style_step, *nodes, self._draw_edges, self._draw_labels,
                self._draw_relations, self._start_layout]  # fmt: skip

    def _style_step(self) -> None:
        """A big graph rebuilt framed and styled in a piece of its own (~35 ms at 100k)."""
        pending, self._styling = self._styling, None
        if pending is None or self._shut:
            return
        refit, local, has_centre = pending
        if refit:
            self._refit(local, has_centre)
        self._rank = self.scene.restyle(self._current_zoom_step())  # at the zoom framed

    def _draw_edges(self) -> None:
        if not self._shut and self._swapping():
            self.painter.draw_edges(self.scene)

    def _draw_labels(self) -> None:
        if not self._shut and self._swapping():
            self.painter.draw_labels(self.scene, self._rank)

    def _draw_relations(self) -> None:
        if not self._shut and self._swapping():
            self.painter.draw_relations(self.scene)
            self._update_legend()
            self._drawn = self.scene.generation

    def _start_layout(self) -> None:
        scene, start = self.scene, self._start
        if self._shut or start is None:
            return
        self._start = None  # once per rebuild
        if start.alpha > 0:
            self.edges.cache.expect_motion()
            self.nodes.cache.expect_motion()
        spec = LayoutSpec(n=len(start.positions), edges=start.edges,
                          positions=start.positions, params=scene.force_params(),
                          alpha=start.alpha, pins=start.pins)  # fmt: skip
        self.pacing.load(scene.generation, spec, paused=self.action_pause.isChecked())
        self.empty_label.setText(
            "Open an entry to see its local graph"
            if scene.local and not start.centres and scene.data.n
            else "No entries to show"
        )
        self.empty_label.setVisible(len(start.positions) == 0)

    def _swapping(self) -> bool:
        """The items still show an older graph than the scene's (a load in pieces)."""
        return self._drawn != self.scene.generation

    def _refit(self, local: bool, has_centre: bool) -> None:
        """After a rebuild: the stored view of this mode if one is waiting (a relaunch),
        else a fit; either way the current node ends up on screen."""
        if self.camera.restore(self.store.take_restore(has_centre or not local)):
            self._reveal(self.scene.current, animate=False)
            return
        self.fit(animate=local and self.isVisible())

    def _draw_frame(self, generation: int, arr) -> bool:
        """A frame of the layout drawn; whether it will be painted (the view is shown)."""
        if self._shut:
            return False
        pos = self.scene.frame(generation, arr)
        if pos is None:
            return False
        self.scene.set_display_positions(pos)
        self.painter.draw_positions(self.scene)
        self._legend_follows_marks()
        return self.view.isVisible()

    def _on_settled(self, generation: int) -> None:
        if not self._shut and generation == self.scene.generation:
            self.scene.layout_cooled()
            self._follow_after_layout()
            self.layoutSettled.emit()

    def _follow_after_layout(self) -> None:
        """A simulation (a new local graph, changed forces) moved the nodes: the local graph
        is fitted again when part of it left the view; the current node is brought back."""
        if not self._follow_on_settle or self._shut:
            return
        if self.camera.gliding():  # the fit of the new graph is still on its way: after it
            QTimer.singleShot(GLIDE_MS + 30, self._follow_after_layout)
            return
        self._follow_on_settle = False
        fresh, self._fresh_layout = self._fresh_layout, False
        if left_the_view(self.vb.viewRect(), self.scene.dpos, fresh=fresh, local=self.scene.local):
            self.fit(animate=True)
            return
        self._reveal(self.scene.current)

    def _on_worker_failed(self, message: str) -> None:
        self.setToolTip(f"Layout stopped: {message}")

    # ---- styling ----------------------------------------------------------------------------
    def _apply_theme(self) -> None:
        t = THEMES[self.scene.theme]
        self.view.setBackground(t["background"])
        fg = t["text"].name()
        self.empty_label.setStyleSheet(f"color: {fg}; background: transparent;")
        self._update_legend()

    def _restyle(self) -> None:
        """Recompute sizes, colours and labels of the shown graph and push them to the items."""
        rank = self._rank = self.scene.restyle(self._current_zoom_step())
        self.painter.draw(self.scene, rank)
        self._update_legend()
        self._drawn = self.scene.generation  # (a load's pieces left have nothing to do)

    def _current_zoom_step(self) -> int:
        rect = self.vb.viewRect()
        w = self.vb.width()
        if rect.width() <= 0 or w <= 0:
            return 0
        return self.scene.zoom_step_of(w / rect.width())  # px per layout unit

    def _on_view_changed(self, *_args) -> None:
        # applied once the zoom gesture pauses: a size change re-renders every sprite
        if not self._shut:
            self._zoom_timer.start()
            if not self.camera.gliding() and not self.store.restore_pending:
                self.store.schedule()  # the view is part of the vault's user state

    def _apply_zoom_step(self) -> None:
        if self._swapping():  # the items show an older graph: its indices
            return
        if self.scene.zoom_to(self._current_zoom_step()):
            self.painter.draw_sizes(self.scene)

    def _apply_highlight(self) -> None:
        if self._swapping():  # the items show an older graph: its indices
            return
        self.painter.draw_highlight(self.scene)
        self._legend_follows_marks()

    def _update_marks(self) -> None:
        if self._swapping():  # the items show an older graph: its indices
            return
        self.painter.draw_marks(self.scene)
        self._legend_follows_marks()

    def _legend_follows_marks(self) -> None:
        marks = self.scene.legend_marks()
        if marks != self._legend_marks:  # the legend lists the marks in use
            self._legend_marks = marks
            self._update_legend()

    def _update_legend(self) -> None:
        t = THEMES[self.scene.theme]
        self.legend.set_colours(t["background"], t["text"].name())
        self.legend.set_entries(*self.painter.legend_entries(self.scene))
        # shown whenever the setting is on, empty or not: a strip coming and going would
        # resize the plot (and its zoom) under the reader's eyes
        self.legend.setVisible(bool(self.scene.settings.get("legend", True)))

    # ---- the reader's input on nodes (ui/graph/node_input.py) ------------------------------
    def _on_node_hovered(self, j: int) -> None:
        self.input.hovered(j)

    def hover(self, entry_id: str | None) -> None:
        """Highlight ``entry_id``'s neighbourhood as a hover would (None clears)."""
        self.input.hover(entry_id)

    def drop_tooltip(self) -> None:
        """No tooltip on the hovered node (a page preview of it is shown: the tooltip
        covered it); the next hover sets one again."""
        self.nodes.setToolTip("")

    def highlighted_ids(self) -> set[str]:
        """Ids drawn at full strength by the hover (the node and its neighbours), else
        the search hits; empty when nothing is highlighted."""
        return self.scene.highlighted_ids()

    def hovered_id(self) -> str | None:
        return self.scene.id_of(self.scene.hover)

    def tooltip_text(self) -> str:
        return self.input.tooltip

    def pin(self, entry_id: str, x: float, y: float) -> None:
        """Fix ``entry_id`` at ``(x, y)`` (a drag does this) and reheat the simulation."""
        self.input.pin(entry_id, x, y)

    def unpin(self, entry_id: str) -> None:
        self.input.unpin(entry_id)

    def pinned_ids(self) -> list[str]:
        return sorted(self.scene.pins)

    def node_menu(self, entry_id: str) -> QMenu:
        """The right-click menu of a node (see :func:`graph_menus.node_menu`)."""
        return node_menu(self, entry_id)

    def _reveal(self, entry_id: str | None, animate: bool = True) -> None:
        """Glide (keeping the zoom) so ``entry_id`` is well inside the view."""
        xy = self.scene.position_of(entry_id) if entry_id is not None else None
        if xy is not None:
            self.camera.reveal(xy[0], xy[1], animate)

    # geometry helpers (tests, hosts) ---------------------------------------------------------
    def node_scene_pos(self, entry_id: str) -> QPointF | None:
        xy = self.scene.position_of(entry_id)
        return None if xy is None else self.vb.mapViewToScene(QPointF(*xy))

    def node_viewport_pos(self, entry_id: str) -> QPoint | None:
        """Where ``entry_id`` is drawn, in ``self.view.viewport()`` coordinates."""
        sp = self.node_scene_pos(entry_id)
        return None if sp is None else self.view.mapFromScene(sp)

    def shown_ids(self) -> list[str]:
        return self.scene.shown_ids()

    def shown_edges(self) -> list[tuple[str, str]]:
        return self.scene.shown_edges()

    def labelled_ids(self) -> list[str]:
        """Ids whose labels the last paint drew."""
        return [self.scene.id_of(j) or "" for j in self.labels.shown]

    # ---- export -------------------------------------------------------------------------------
    def export_graphml(self, path: str) -> int:
        """The shown graph (what the filters and the local graph leave) as GraphML; the
        number of nodes written."""
        return write_graphml(self.scene.data, self.scene.shown_graph, path)

    def export_json(self, path: str) -> int:
        """The shown graph as node-link JSON; the number of nodes written."""
        return write_node_link_json(self.scene.data, self.scene.shown_graph, path)

    def drawing(self) -> Drawing:
        """A plain snapshot of every node and edge shown (the scene's): what the PNG and
        SVG exports paint, whatever the zoom, caches or hover."""
        return self.scene.drawing(self.store.vault_key or "graph")

    def export_png(self, path: str, width: int | None = None) -> tuple[int, int]:
        """The whole shown graph (not the viewport) as a PNG ``width`` px wide (default:
        the Export menu's width); returns the image's (width, height)."""
        from anthology.ui.graph.graph_export import export_png

        return export_png(self.drawing(), path, int(width or self.png_width.value()))

    def export_svg(self, path: str) -> int:
        """The whole shown graph as SVG, every node a ``<circle class="node">``; returns the
        number of nodes written."""
        from anthology.ui.graph.graph_export import export_svg

        return export_svg(self.drawing(), path)
