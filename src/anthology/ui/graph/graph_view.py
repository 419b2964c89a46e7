"""The graph view: a force-directed map of the vault's entries, navigated by clicking.

Layers (see :mod:`anthology.ui.graph.graph_items`): one edge item with an image cache, one
scatter item for every node, an overlay scatter for the highlighted neighbourhood / search
hits, one ring scatter for the current entry, the visited trail and pins, and one label item.
The simulation runs in :class:`anthology.ui.graph.layout_worker.LayoutThread`.

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

What to show is the Qt-free model's (:mod:`anthology.graph`): filters, neighbourhoods,
node matching in search's query language, colour groups, the labels' text, paths, data
export; initial positions are :mod:`anthology.layout.placement`'s. The view keeps the
widgets and the drawing, and hands the layers their data in one call (``_set_layers``).

Paths and selection: ``path_finder()`` (the graph's :class:`~anthology.graph.PathFinder`,
built once per graph), ``show_path(path | None)``, ``shown_path()``, ``highlighted_edges()``,
``pathRequested`` (str: a node's "Path to…"); Shift+click builds ``selection()``
(``set_selection``, ``toggle_selected``), ``show_selection_neighbourhood(ids=None)``.
Data export: ``export_graphml(path)``, ``export_json(path)`` (what the filters leave).

Also: ``set_local(bool)``, ``set_depth(1..3)``, ``show_local_graph(id)``, ``set_search(text)``,
``set_paused(bool)``, ``fit()``, ``pin(id, x, y)`` / ``unpin(id)``, ``set_setting(key, value)``
(keys: :data:`anthology.ui.graph.graph_controls.DEFAULTS`), and for tests and hosts
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
import math
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QScrollArea,
    QSpinBox,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

from anthology.graph.drawing import Drawing, Rgba, finite_positions
from anthology.graph.export import write_graphml, write_node_link_json
from anthology.graph.groups import (
    base_mode,
    colour_nodes,
    groups_from_settings,
    migrate_settings,
)
from anthology.graph.model import (
    Filters,
    ShownGraph,
    ShownGraphs,
    adjacency,
    match_nodes,
    node_titles,
    sanitize_graph,
)
from anthology.graph.paths import LinkPath, PathFinder
from anthology.layout.force_layout import ForceParams
from anthology.layout.placement import place_missing
from anthology.palette import THEMES as PALETTE_THEMES
from anthology.palette import theme as palette_theme
from anthology.ui.common.theme import css_colour, qcolor
from anthology.ui.graph.graph_camera import GLIDE_MS, GraphCamera
from anthology.ui.graph.graph_controls import MENTION, GraphControls, clean_settings, defaults
from anthology.ui.graph.graph_items import (
    EdgeLayer,
    LabelLayer,
    NodeLayer,
    PassiveScatter,
    device_coords,
)
from anthology.ui.graph.graph_keys import GraphKeys
from anthology.ui.graph.graph_legend import GraphLegend
from anthology.ui.graph.layout_worker import LayoutSpec, LayoutThread
from anthology.user_state import GRAPH_CAMERA, GRAPH_VIEW, clean_camera
from anthology.vault import GraphData
from anthology.vault.render.safe_text import plain_text, tooltip_html

__all__ = ["GraphView", "sanitize_graph"]

TRAIL_LENGTH = 12
POSITION_LIMIT = 1.0e6


def _graph_theme(name: str) -> dict[str, Any]:
    """The graph's colours of a theme (from :mod:`anthology.palette`), as Qt takes them."""
    g = palette_theme(name).graph
    return {
        "background": g.background,
        **{k: qcolor(getattr(g, k)) for k in ("text", "node", "ghost", "mention", "accent",
                                               "trail", "pin", "search")},
        "legend_bg": css_colour(g.legend_bg),
        "palette": list(g.groups),
    }  # fmt: skip


THEMES = {name: _graph_theme(name) for name in PALETTE_THEMES}


def _clean_positions(arr: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Non-finite rows replaced by ``fallback`` (or the centroid), everything clamped."""
    arr = np.array(arr, dtype=np.float64, copy=True)
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        fb = fallback[bad] if len(fallback) == len(arr) else np.full((bad.sum(), 2), np.nan)
        fb_bad = ~np.isfinite(fb).all(axis=1)
        if fb_bad.any():
            good = arr[~bad]
            fb[fb_bad] = good.mean(axis=0) if len(good) else 0.0
        arr[bad] = fb
    np.clip(arr, -POSITION_LIMIT, POSITION_LIMIT, out=arr)
    return arr


LABEL_CHARS = 28
# hold_layout's hold lasts until the panes are painted: a hub's take ~50 ms at 10,000 entries
RELEASE_MS = 80


def _elide(text: str, limit: int = LABEL_CHARS) -> str:
    """Long titles make unreadable labels: cut at a word boundary and add an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-–—") + "…"


def _stop_quietly(worker: LayoutThread) -> None:
    with contextlib.suppress(RuntimeError):  # the C++ object may already be gone at exit
        worker.stop()


def _rgba(c: QColor) -> Rgba:
    """``c`` as the drawing's plain (r, g, b, a)."""
    return (c.red(), c.green(), c.blue(), c.alpha())


@dataclass
class LayerData:
    """Everything the layers draw, from the model (:mod:`anthology.graph`) and the style:
    handed over in one call (:meth:`GraphView._set_layers`)."""

    pos: np.ndarray  # (k, 2) layout coordinates of the shown nodes
    edges: np.ndarray  # (m, 2) indices into pos
    sizes: np.ndarray  # (k,) pixel diameters
    brushes: np.ndarray  # (k,) node fills: QBrush objects, from a small table
    edge_group: np.ndarray  # (m,) index into edge_colours (0: untyped)
    edge_colours: list[QColor]
    labels: list[str]  # (k,) label texts
    label_rank: np.ndarray  # (k,) shown degree: hubs are labelled first
    relations: np.ndarray  # (m,) relation names (object array; None: a mention), close zoom


class SettingsStore(Protocol):
    """Where the view's settings persist (a vault's :class:`~anthology.user_state.UserState`)."""

    def get(
        self, key: str, default: Any = None, *, clean: Callable[[Any], Any] | None = None
    ) -> Any: ...

    def put(self, key: str, value: Any) -> None: ...


# ---------------------------------------------------------------------------------------
class GraphView(QWidget):
    """The graph of the vault's entries; see the module docstring for the API."""

    entryActivated = Signal(str)
    entryActivatedNewTab = Signal(str)  # a node middle-clicked or Ctrl+clicked, or the menu's
    pathRequested = Signal(str)  # the node menu's "Path to…": the window asks for the other end
    layoutSettled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphView")
        # Where this vault's settings persist: its user state, handed over by the window.
        self._store: SettingsStore | None = None
        self._theme = "dark"
        self._vault_key: str | None = None
        self._settings = defaults()
        self._data = sanitize_graph(GraphData([], [], [], [], np.zeros((0, 2)), []))
        self._index: dict[str, int] = {}
        self._gpos = np.zeros((0, 2))
        self._current: str | None = None
        self._local_centre: str | None = None
        self._trail: list[str] = []
        self._pins: dict[str, tuple[float, float]] = {}
        self._shown = np.zeros(0, dtype=np.int64)
        self._sub_edges = np.zeros((0, 2), dtype=np.int64)
        self._sub_edge_ids = np.zeros(0, dtype=np.int64)
        self._dpos = np.zeros((0, 2))
        self._sizes = np.zeros(0)
        self._base_sizes = np.zeros(0)
        self._zoom_step = 0
        self._brush_idx = np.zeros(0, dtype=np.int64)
        self._csr_made: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._shown_graphs = ShownGraphs()  # the last local graphs, found again on a revisit
        self._release_timer = QTimer(self)  # see hold_layout
        self._release_timer.setSingleShot(True)
        self._release_timer.setInterval(RELEASE_MS)
        self._release_timer.timeout.connect(self._release_layout)
        self._hover = -1
        self._highlight = np.zeros(0, dtype=np.int64)
        self._search = ""
        self._search_hits = np.zeros(0, dtype=np.int64)
        self._generation = 0
        self._tooltip = ""
        self._relation_names: list[str] = []
        self._shut = False
        self._worker: LayoutThread | None = None
        self._dragging = -1
        self._changed = False
        self._shown_graph = ShownGraph(
            np.zeros(0, np.int64), np.zeros((0, 2), np.int64), np.zeros(0, np.int64)
        )
        self._selection: list[str] = []  # Shift+clicked nodes (ids), in the order chosen
        self._selection_centres: list[str] = []  # the local graph of a selection, when shown
        self._paths: PathFinder | None = None
        self._path: LinkPath | None = None  # the path highlighted on the graph
        self._groups: list[tuple[str, QColor]] = []
        self._style_cache: dict[tuple, Any] = {}  # (maker, rgba, width) → QBrush / QPen
        self._brush_arr = np.empty(0, dtype=object)
        self._relations_arr = np.empty(0, dtype=object)
        self._brush_table: list[QColor] = []
        self._edge_colours: list[QColor] = []
        self._edge_group = np.zeros(0, dtype=np.int64)
        self._rel_group_full = np.zeros(0, dtype=np.int64)
        self._mark_spots: list = []
        self._legend_marks: tuple = ()
        # where the view looked, per mode ("global" / "local"), for the vault's user state;
        # the first rebuild after a vault opens shows the stored view instead of a fit
        self._views: dict[str, Any] = {}
        self._restore_pending = False
        self._follow_on_settle = False  # the next cooled simulation brings the reader back

        self._awaiting_paint = False
        self._frame_timer = QTimer(self)
        self._frame_timer.setSingleShot(True)
        self._frame_timer.setInterval(200)
        self._frame_timer.timeout.connect(self._frame_done)
        self._zoom_timer = QTimer(self)
        self._zoom_timer.setSingleShot(True)
        self._zoom_timer.setInterval(150)
        self._zoom_timer.timeout.connect(self._apply_zoom_step)
        self.keys = GraphKeys(self)  # the keyboard focus (arrows, Tab, Enter, Esc)
        self._build_ui()
        self._apply_theme()
        self._save_timer = QTimer(self)
        self._save_timer.setSingleShot(True)
        self._save_timer.setInterval(400)
        self._save_timer.timeout.connect(self._save_settings)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    # ---- UI --------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        self.toolbar = QToolBar("Graph", self)
        self.toolbar.setObjectName("graphToolbar")
        # Two buttons, the one that is on shown pressed: a single "Local graph" toggle next
        # to "depth 1" read as the mode even while the global graph was shown (issue 14).
        self.action_global = QAction("Global", self)
        self.action_global.setObjectName("actionGlobal")
        self.action_global.setCheckable(True)
        self.action_global.setChecked(True)
        self.action_global.setToolTip("Show every entry of the vault")
        self.action_global.triggered.connect(lambda: self.set_local(False))
        self.toolbar.addAction(self.action_global)
        self.action_local = QAction("Local", self)
        self.action_local.setObjectName("actionLocal")
        self.action_local.setCheckable(True)
        self.action_local.setToolTip("Show only the current entry's neighbourhood")
        self.action_local.toggled.connect(self.set_local)
        self.toolbar.addAction(self.action_local)
        self.depth_spin = QSpinBox()
        self.depth_spin.setObjectName("depthSpin")
        self.depth_spin.setRange(1, 3)
        self.depth_spin.setPrefix("depth ")
        self.depth_spin.setToolTip("Local graph depth: links away from the current entry")
        self.depth_spin.valueChanged.connect(self.set_depth)
        self.action_depth = self.toolbar.addWidget(self.depth_spin)
        self.action_depth.setVisible(False)  # a depth only means something for local
        self.toolbar.addSeparator()
        self.search_edit = QLineEdit()
        self.search_edit.setObjectName("graphSearch")
        self.search_edit.setPlaceholderText("Search nodes…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setMinimumWidth(90)
        self.search_edit.textChanged.connect(self.set_search)
        self.action_pause = QAction("Pause", self)
        self.action_pause.setObjectName("actionPause")
        self.action_pause.setCheckable(True)
        self.action_pause.setToolTip("Pause the simulation")
        self.action_pause.toggled.connect(self.set_paused)
        self.toolbar.addAction(self.action_pause)
        self.action_fit = QAction("Fit", self)
        self.action_fit.setObjectName("actionFit")
        self.action_fit.triggered.connect(self.fit)
        self.toolbar.addAction(self.action_fit)
        self.action_png = QAction("Export PNG…", self)
        self.action_png.setObjectName("actionExportPng")
        self.action_png.triggered.connect(lambda: self._export_dialog("png"))
        self.action_svg = QAction("Export SVG…", self)
        self.action_svg.setObjectName("actionExportSvg")
        self.action_svg.triggered.connect(lambda: self._export_dialog("svg"))
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
        self.action_graphml = QAction("Export GraphML…", self)
        self.action_graphml.setObjectName("actionExportGraphml")
        self.action_graphml.triggered.connect(lambda: self._export_data_dialog("graphml"))
        self.action_json = QAction("Export JSON (node-link)…", self)
        self.action_json.setObjectName("actionExportJson")
        self.action_json.triggered.connect(lambda: self._export_data_dialog("json"))
        export_menu.addAction(self.action_graphml)
        export_menu.addAction(self.action_json)
        export_btn.setMenu(export_menu)
        self.toolbar.addWidget(export_btn)
        self.controls_button = QToolButton()
        self.controls_button.setObjectName("controlsButton")
        self.controls_button.setText("Controls")
        self.controls_button.setCheckable(True)
        self.controls_button.toggled.connect(self._toggle_controls)
        self.toolbar.addWidget(self.controls_button)

        self.view = pg.GraphicsView(self, background=THEMES["dark"]["background"])
        self.view.setObjectName("graphCanvas")
        self.view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.vb = pg.ViewBox(enableMenu=False, lockAspect=True)
        self.vb.setMouseEnabled(True, True)
        self.vb.disableAutoRange()
        self.view.setCentralItem(self.vb)
        self.camera = GraphCamera(self.vb, self)
        self.edges = EdgeLayer()
        self.edges.setZValue(0)
        self.nodes = NodeLayer()
        self.nodes.setZValue(1)
        self.overlay = PassiveScatter(pxMode=True, antialias=True, pen=None)
        self.overlay.setZValue(2)
        self.marks = PassiveScatter(pxMode=True, antialias=True, brush=None)
        self.marks.setZValue(3)
        self.labels = LabelLayer()
        self.labels.setZValue(4)
        self.labels.painted = self._on_painted  # the top layer: the frame is on screen
        for item in (self.edges, self.nodes, self.overlay, self.marks, self.labels):
            self.vb.addItem(item, ignoreBounds=True)
        self.nodes.nodeClicked.connect(self._on_node_clicked)
        self.nodes.nodeShiftClicked.connect(self._on_node_shift_clicked)
        self.nodes.nodeClickedNewTab.connect(self._on_node_clicked_new_tab)
        self.nodes.nodeDoubleClicked.connect(self._on_node_double_clicked)
        self.nodes.nodeHovered.connect(self._on_node_hovered)
        self.nodes.nodeDragged.connect(self._on_node_dragged)
        self.nodes.nodeContextMenu.connect(self._on_context_menu)
        self.view.installEventFilter(self)
        self.vb.sigTransformChanged.connect(self._on_view_changed)

        self.legend = GraphLegend(self)  # a strip under the plot, not over it
        self.empty_label = QLabel("No entries to show", self.view)
        self.empty_label.setObjectName("graphEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)

        self.controls = GraphControls()
        self.controls.settingsChanged.connect(self._on_setting_changed)
        self.controls_area = QScrollArea()
        self.controls_area.setObjectName("graphControlsArea")
        self.controls_area.setWidgetResizable(True)
        self.controls_area.setWidget(self.controls)
        self.controls_area.setFixedWidth(260)
        self.controls_area.setVisible(False)

        plot = QVBoxLayout()
        plot.setContentsMargins(0, 0, 0, 0)
        plot.setSpacing(0)
        plot.addWidget(self.view, 1)
        plot.addWidget(self.legend)
        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        body.addLayout(plot, 1)
        body.addWidget(self.controls_area)
        # The node search sits at the end of the toolbar row when the pane is wide enough,
        # else on a row of its own under it (the window's default width left the graph
        # pane ~450 px: the toolbar pushed Fit, Export and Controls into its » menu).
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

    SEARCH_ROOM = 160  # the search field's width beside the toolbar, when it goes there

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

    def eventFilter(self, obj, event) -> bool:
        if obj is self.view:
            et = event.type()
            if et == event.Type.Resize:
                self._place_overlays()
            elif et == event.Type.KeyPress and self._key(event):
                return True
        return super().eventFilter(obj, event)

    def keyPressEvent(self, event) -> None:
        if not self._key(event):
            super().keyPressEvent(event)

    def _key(self, event) -> bool:
        """The graph's keys (see :mod:`anthology.ui.graph.graph_keys`).  True when handled."""
        return self.keys.handle(event)

    # what the keys need (indices into the shown nodes) ------------------------------------
    def key_device_positions(self) -> np.ndarray:
        tr = self.nodes.deviceTransform_()
        if tr is None:
            return self._dpos * np.array([1.0, -1.0])  # y up in the layout, down on screen
        return device_coords(tr, self._dpos)

    @property
    def _csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The shown graph's adjacency (:func:`adjacency`), made on first use: hover and
        the arrow keys need it, a click that rebuilds the local graph does not (4-8 ms at
        10,000 nodes)."""
        if self._csr_made is None:
            self._csr_made = adjacency(len(self._shown), self._sub_edges)
        return self._csr_made

    def key_neighbours(self, j: int) -> np.ndarray:
        indptr, nbr, _eid = self._csr
        return nbr[indptr[j] : indptr[j + 1]] if 0 <= j < len(self._shown) else nbr[:0]

    def key_start(self) -> int:
        """The current entry if shown, else the node nearest the middle of the view."""
        if self._current is not None and self._current in self._index:
            hit = np.flatnonzero(self._shown == self._index[self._current])
            if len(hit):
                return int(hit[0])
        if len(self._dpos) == 0:
            return -1
        cx, cy = self.camera.centre()
        return int(np.argmin(np.hypot(self._dpos[:, 0] - cx, self._dpos[:, 1] - cy)))

    def key_focus(self, j: int) -> None:
        entry_id = self._id_of(j)
        self.hover(entry_id)
        self._reveal(entry_id)

    def key_open(self, j: int) -> None:
        self._on_node_clicked(j)

    def key_clear(self) -> bool:
        """Esc with no keyboard focus clears, one per press, the most recent thing laid
        over the graph: a shown path, then the Shift+click selection, then the node search."""
        if self._path is not None:
            self.show_path(None)
            return True
        if self._selection:
            self._selection.clear()
            self._update_marks()
            return True
        if self.search_edit.text():
            self.set_search("")
            return True
        return False

    def focused_id(self) -> str | None:
        """The node the keyboard focus is on (None: none)."""
        return self._id_of(self.keys.focus)

    def key_pan_zoom(self, event) -> bool:
        """Shift+arrows pan, +/− zoom, 0/Home fits.  True when handled."""
        key = event.key()
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down) and not shift:
            return False
        self.camera.stop()
        rect = self.vb.viewRect()
        step_x, step_y = rect.width() * 0.1, rect.height() * 0.1
        if key == Qt.Key.Key_Left:
            self.vb.translateBy(x=-step_x, y=0)
        elif key == Qt.Key.Key_Right:
            self.vb.translateBy(x=step_x, y=0)
        elif key == Qt.Key.Key_Up:
            self.vb.translateBy(x=0, y=step_y)
        elif key == Qt.Key.Key_Down:
            self.vb.translateBy(x=0, y=-step_y)
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.vb.scaleBy((1 / 1.25, 1 / 1.25))
        elif key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
            self.vb.scaleBy((1.25, 1.25))
        elif key in (Qt.Key.Key_0, Qt.Key.Key_Home):
            self.fit()
        else:
            return False
        return True

    def _place_overlays(self) -> None:
        self.empty_label.setGeometry(0, 0, self.view.width(), self.view.height())

    def _toggle_controls(self, on: bool) -> None:
        self.controls_area.setVisible(on)
        if self._settings.get("controls_open") != on:
            self._settings["controls_open"] = on
            self._schedule_save()

    # ---- public API ------------------------------------------------------------------------
    def set_graph(
        self,
        data: GraphData,
        positions: Mapping[str, Sequence[float]] | None = None,  # (x, y, …): a Position too
        vault_key: str = "",
        *,
        pinned: Iterable[str] = (),
        store: SettingsStore | None = None,
    ) -> None:
        """Replace the graph.  Positions of nodes already shown are kept (so a live reload
        only settles what changed), then ``positions`` fill in, and the ids in ``pinned``
        among them are pinned there; new nodes start beside their neighbours.  A new
        ``vault_key`` loads that vault's settings from ``store`` and refits the view."""
        if self._shut:
            return
        new_vault = vault_key != self._vault_key
        if new_vault:
            if self._vault_key is not None:
                self._save_settings()
            self._vault_key = vault_key
            self._store = store
            self._load_settings()
            self._load_views()
            self._pins.clear()
            self._trail.clear()
            self._selection.clear()  # a selection, like a search, belongs to its vault
            self._selection_centres = []
            self._current = self._local_centre = None
            # a node search belongs to the vault it was typed in: left, it greyed out the
            # whole new graph (issue 14)
            self._search = ""
            self._search_hits = np.zeros(0, dtype=np.int64)
            self.search_edit.blockSignals(True)
            self.search_edit.clear()
            self.search_edit.blockSignals(False)
        elif store is not None:
            self._store = store  # the same vault opened again
        old_ids, old_pos = self._data.ids, self._gpos
        old_edges = (
            {(old_ids[a], old_ids[b]) for a, b in self._data.edges.tolist()}
            if not new_vault and len(self._data.edges) < 200_000
            else None
        )
        data = sanitize_graph(data)
        n = data.n
        index = data.index_of()
        pos = np.full((n, 2), np.nan)
        if positions:
            for node_id, xy in positions.items():
                i = index.get(node_id)
                if i is None:
                    continue
                with contextlib.suppress(TypeError, ValueError, IndexError):
                    pos[i] = (float(xy[0]), float(xy[1]))
        if not new_vault and len(old_ids):
            old_index = {k: j for j, k in enumerate(old_ids)}
            keep = [(i, old_index[k]) for i, k in enumerate(data.ids) if k in old_index]
            if keep:
                ii, jj = np.array(keep).T
                fresh = np.isfinite(old_pos[jj]).all(axis=1)
                pos[ii[fresh]] = old_pos[jj[fresh]]
        pos[~np.isfinite(pos).all(axis=1)] = np.nan
        np.clip(pos, -POSITION_LIMIT, POSITION_LIMIT, out=pos)
        self._changed = bool(
            (~np.isfinite(pos).all(axis=1)).any()
            or (
                old_edges is not None
                and {(data.ids[a], data.ids[b]) for a, b in data.edges.tolist()} != old_edges
            )
        )
        self._data = data
        self._relations_arr = np.empty(len(data.relations), dtype=object)
        # indexed per local graph, not looped; drawn on the edges as they read (no bidi)
        self._relations_arr[:] = [plain_text(r) if r else r for r in data.relations]
        self._index = index
        self._gpos = pos
        self._pins = {k: v for k, v in self._pins.items() if k in index}
        for node_id in pinned:
            i = index.get(node_id)
            if i is not None and np.isfinite(pos[i]).all():
                self._pins[node_id] = (float(pos[i, 0]), float(pos[i, 1]))
        self._trail = [k for k in self._trail if k in index]
        if self._current not in index:
            self._current = None
        if self._local_centre not in index:
            self._local_centre = self._current
        rels = [r for r, _ in Counter(r for r in data.relations if r).most_common()]
        self._relation_names = rels
        lookup: dict[str | None, int] = {r: 1 + j for j, r in enumerate(rels)}
        self._rel_group_full = np.fromiter(
            (lookup.get(r, 0) for r in data.relations), np.int64, len(data.relations)
        )
        self._paths = None  # the path finder's graphs belong to the old data
        self._path = None
        self._selection = [k for k in self._selection if k in index]
        self._selection_centres = [k for k in self._selection_centres if k in index]
        # the filter lists every kind, "(none)" included (kind_order leaves it out: it
        # orders the colours, and an entry without a kind has the default colour)
        kinds = [
            k for k, _ in Counter(
                k for k, g in zip(data.kinds, data.ghost, strict=True) if not g
            ).most_common()
        ]  # fmt: skip
        self.controls.set_available(kinds, [MENTION, *rels])
        self.controls.set_colour_mode_in_effect(base_mode(data, self._settings["color_by"]))
        self._rebuild(refit=new_vault or not len(old_ids))

    def set_current(self, entry_id: str | None) -> None:
        """Follow the entry pane: ring the node, extend the trail, recentre or rebuild."""
        if self._shut:
            return
        if entry_id is not None and entry_id not in self._index:
            entry_id = None
        self._current = entry_id
        if entry_id is not None:
            if entry_id in self._trail:
                self._trail.remove(entry_id)
            self._trail.append(entry_id)
            del self._trail[:-TRAIL_LENGTH]
        if self._settings["local"]:
            if entry_id != self._local_centre or self._restore_pending or self._selection_centres:
                self._local_centre = entry_id
                self._selection_centres = []  # the local graph follows the reader again
                self._rebuild(refit=True)
            else:
                self._update_marks()
                self._reveal(entry_id)
        else:
            self._update_marks()
            self._reveal(entry_id)

    def hold_layout(self) -> None:
        """The simulation stands still while the window opens an entry (it would compete
        for the GIL with the pane, the backlinks and this view's rebuild), and goes on
        once the panes are painted (the window's repaint may wait a few ms for the
        platform's update timer, so not at the next event-loop turn): the new local
        graph's first frame is its start positions, and it moves from there."""
        if self._worker is not None and not self._shut:
            self._worker.hold()
            self._release_timer.start()

    def _release_layout(self) -> None:
        if self._worker is not None and not self._shut:
            self._worker.release()

    def current_id(self) -> str | None:
        return self._current

    def trail(self) -> list[str]:
        return list(self._trail)

    def positions(self) -> dict[str, tuple[float, float]]:
        """Global layout coordinates of every placed node (for the index to persist)."""
        out: dict[str, tuple[float, float]] = {}
        ok = np.isfinite(self._gpos).all(axis=1)
        for i in np.flatnonzero(ok).tolist():
            out[self._data.ids[i]] = (float(self._gpos[i, 0]), float(self._gpos[i, 1]))
        return out

    def set_theme(self, theme: str) -> None:
        if theme not in THEMES:
            raise ValueError(f"unknown theme {theme!r}")
        self._theme = theme
        self._apply_theme()
        self._restyle()

    def theme(self) -> str:
        return self._theme

    def shutdown(self) -> None:
        """Stop the layout thread (idempotent); settings are saved."""
        if self._shut:
            return
        self._shut = True
        with contextlib.suppress(RuntimeError):
            self._save_timer.stop()
            self.edges.cache.timer.stop()
            self.nodes.cache.timer.stop()
            self.edges.cache.cancel()
            self.nodes.cache.cancel()
            self.edges.cache.settle_timer.stop()
            self.nodes.cache.settle_timer.stop()
            self._zoom_timer.stop()
            self._release_timer.stop()
            self._frame_timer.stop()
        if self._vault_key is not None:
            self._save_settings()
        if self._worker is not None:
            self._worker.stop()  # late queued frames are dropped by _on_frame (_shut)

    def worker(self) -> LayoutThread | None:
        return self._worker

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    # mode, search, pause --------------------------------------------------------------------
    def set_local(self, local: bool) -> None:
        local = bool(local)
        if self.action_local.isChecked() != local:
            self.action_local.setChecked(local)  # re-enters through toggled
            return
        self._show_mode(local)
        if self._settings["local"] == local:
            return
        self._remember_view()
        self._settings["local"] = local
        if local and self._local_centre is None:
            self._local_centre = self._current
        self._schedule_save()
        self._rebuild(refit=True)

    def _show_mode(self, local: bool) -> None:
        """The toolbar says the mode that is on: one of Global / Local pressed, the depth
        only beside Local."""
        for action, on in ((self.action_global, not local), (self.action_local, local)):
            if action.isChecked() != on:
                action.blockSignals(True)
                action.setChecked(on)
                action.blockSignals(False)
        self.action_depth.setVisible(local)

    def toolbar_mode(self) -> str:
        """ "local" or "global": what the toolbar shows as on (tests compare it with what is
        drawn)."""
        g, loc = self.action_global.isChecked(), self.action_local.isChecked()
        return "local" if loc and not g else "global" if g and not loc else "?"

    def is_local(self) -> bool:
        return bool(self._settings["local"])

    def set_depth(self, depth: int) -> None:
        depth = max(1, min(3, int(depth)))
        if self.depth_spin.value() != depth:
            self.depth_spin.setValue(depth)  # re-enters through valueChanged
            return
        if self._settings["depth"] == depth:
            return
        self._settings["depth"] = depth
        self._schedule_save()
        if self._settings["local"]:
            self._rebuild(refit=True)

    def show_local_graph(self, entry_id: str) -> None:
        if entry_id in self._index:
            self._local_centre = entry_id
            self._selection_centres = []
            if self._settings["local"]:
                self._rebuild(refit=True)
            else:
                self.set_local(True)

    def _local_centres(self) -> list[str]:
        """What the local graph is the neighbourhood of: a selection's nodes when its
        neighbourhood was asked for, else the one centre (the current entry)."""
        if self._selection_centres:
            return list(self._selection_centres)
        return [self._local_centre] if self._local_centre else []

    # selection (Shift+click) and its neighbourhood -------------------------------------------
    def selection(self) -> list[str]:
        return list(self._selection)

    def set_selection(self, ids: Iterable[str]) -> None:
        self._selection = [k for k in dict.fromkeys(ids) if k in self._index]
        self._update_marks()

    def toggle_selected(self, entry_id: str) -> None:
        if entry_id in self._selection:
            self._selection.remove(entry_id)
        elif entry_id in self._index:
            self._selection.append(entry_id)
        self._update_marks()

    def show_selection_neighbourhood(self, ids: Iterable[str] | None = None) -> None:
        """The local graph of several nodes at once: everything within the depth of any of
        them (the selection, by default)."""
        centres = [k for k in (self._selection if ids is None else ids) if k in self._index]
        if not centres:
            return
        self._selection_centres = centres
        if self._settings["local"]:
            self._rebuild(refit=True)
        else:
            self.set_local(True)

    # paths ----------------------------------------------------------------------------------
    def path_finder(self) -> PathFinder:
        """The shortest-path model of the loaded graph (its networkx graphs built once)."""
        if self._paths is None:
            self._paths = PathFinder(self._data)
        return self._paths

    def show_path(self, path: LinkPath | None) -> None:
        """Highlight ``path`` on the graph (its nodes and links, the rest dimmed); None
        clears. A path's nodes hidden by the local graph bring the global graph back."""
        self._path = path if path is not None and len(path.nodes) > 1 else None
        if self._path is not None and any(
            self._shown_graph.local(self._index.get(k, -1)) < 0 for k in self._path.nodes
        ):
            self.set_local(False)
        self._apply_highlight()
        if self._path is not None:
            self._reveal(self._path.nodes[0])

    def shown_path(self) -> LinkPath | None:
        return self._path

    def palette_actions(self) -> list[QAction]:
        """The graph's commands for the window's command palette."""
        return [self.action_local, self.action_pause, self.action_fit, self.action_png,
                self.action_svg, self.action_graphml, self.action_json]  # fmt: skip

    def set_search(self, text: str) -> None:
        if self.search_edit.text() != text:
            self.search_edit.setText(text)  # re-enters through textChanged
            return
        self._search = text.strip().lower()
        self._compute_search()
        self._apply_highlight()

    def search_matches(self) -> list[str]:
        return [self._data.ids[self._shown[i]] for i in self._search_hits.tolist()]

    def set_paused(self, paused: bool) -> None:
        if self.action_pause.isChecked() != bool(paused):
            self.action_pause.setChecked(bool(paused))
            return
        if self._worker is not None:
            self._worker.set_paused(bool(paused))

    def fit(self, animate: bool = False) -> None:
        """Show the bulk of the shown nodes (far outliers may stay outside: see
        :func:`anthology.ui.graph.graph_camera.bulk_box`)."""
        self.camera.fit(self._dpos, animate=animate)

    # settings -------------------------------------------------------------------------------
    def settings(self) -> dict:
        return dict(self._settings)

    def set_setting(self, key: str, value) -> None:
        """Change one setting as the controls panel would."""
        self.controls.set_value(key, value)

    def _on_setting_changed(self, key: str) -> None:
        values = self.controls.values()
        values["local"] = self._settings["local"]
        values["depth"] = self._settings["depth"]
        values["controls_open"] = self._settings["controls_open"]
        self._settings = values
        self._schedule_save()
        if key in ("center", "repel", "link_strength", "link_distance"):
            self._follow_on_settle = True
            if self._worker is not None:
                self._worker.set_params(self._force_params(), reheat=0.3)
        elif key in ("hidden_kinds", "tags", "hidden_relations", "orphans", "ghosts"):
            self._rebuild(refit=False)
        else:
            if key == "color_by":
                mode = base_mode(self._data, str(self._settings["color_by"]))
                self.controls.set_colour_mode_in_effect(mode)
            self._restyle()

    def _schedule_save(self) -> None:
        if not self._shut:
            self._save_timer.start()

    def detach_store(self) -> None:
        """Save the settings into the vault's store and let go of it (it is being closed)."""
        self._save_timer.stop()
        self._save_settings()
        self._store = None

    def _load_settings(self) -> None:
        store = self._store
        stored = store.get(GRAPH_VIEW, clean=clean_settings) if store is not None else None
        values = defaults()
        if isinstance(stored, dict):
            # a ";"-separated group query of before becomes ordered groups (graph.groups)
            stored = migrate_settings(stored, THEMES[self._theme]["palette"])
            values.update({k: v for k, v in stored.items() if k in values})
        elif self._store is not None:
            # a vault's first graph is the current entry's neighbourhood (issue 14): the
            # global graph of a big vault says little until it has been arranged
            values["local"] = True
        self._settings = values
        self.controls.set_values(values)
        self.controls_button.blockSignals(True)
        self.controls_button.setChecked(bool(values["controls_open"]))
        self.controls_button.blockSignals(False)
        self._show_mode(bool(values["local"]))
        self.controls_area.setVisible(bool(values["controls_open"]))
        self.depth_spin.blockSignals(True)
        self.depth_spin.setValue(int(values["depth"]))
        self.depth_spin.blockSignals(False)

    def _save_settings(self) -> None:
        if self._vault_key is not None and self._store is not None:
            self._store.put(GRAPH_VIEW, self._settings)
            self._remember_view()
            self._store.put(GRAPH_CAMERA, dict(self._views))

    # the camera's state per vault and mode -----------------------------------------------
    def _mode(self) -> str:
        return "local" if self._settings["local"] else "global"

    def _load_views(self) -> None:
        store = self._store
        stored = store.get(GRAPH_CAMERA, clean=clean_camera) if store is not None else None
        self._views = dict(stored) if isinstance(stored, dict) else {}
        self._restore_pending = True
        self.camera.stop()

    def _remember_view(self) -> None:
        """Keep where the current mode looks (not while a restore is still to come, nor for
        an empty graph: neither is a view the reader chose)."""
        if self._restore_pending or len(self._shown) == 0:
            return
        state = self.camera.state()
        if state is not None:
            self._views[self._mode()] = state

    def view_state(self) -> dict[str, Any]:
        """Where the view looks, per mode (what the user state keeps)."""
        self._remember_view()
        return dict(self._views)

    def _force_params(self) -> ForceParams:
        st = self._settings
        ls = st["link_strength"]
        return ForceParams(
            gravity=float(st["center"]),
            repel_strength=float(st["repel"]),
            link_distance=float(st["link_distance"]),
            link_strength=None if ls is None else float(ls),
        )

    # ---- the displayed graph --------------------------------------------------------------
    def _rebuild(self, refit: bool) -> None:
        if self._shut:
            return
        local = bool(self._settings["local"])
        centres = [self._index[k] for k in self._local_centres() if k in self._index]
        sg = self._shown_graphs.get(
            self._data,
            Filters.from_settings(self._settings),
            centres if local else None,
            int(self._settings["depth"]),
        )
        shown, sub, eidx, remap = sg.nodes, sg.edges, sg.edge_ids, sg.remap
        self._shown_graph = sg
        self._shown = shown
        self._sub_edges = sub
        self._sub_edge_ids = eidx
        self._csr_made = None  # made when hover or the keys first ask (not on a click)
        self._hover = -1
        self.nodes._hover = -1
        self.keys.reset()
        self._highlight = np.zeros(0, dtype=np.int64)
        self._tooltip = ""
        self.nodes.setToolTip("")

        start = self._gpos[shown] if len(shown) else np.zeros((0, 2))
        known = np.isfinite(start).all(axis=1)
        start = place_missing(start, sub, float(self._settings["link_distance"]))
        pin_list = []
        for k, (x, y) in self._pins.items():
            j = remap[self._index[k]]
            if j >= 0:
                start[j] = (x, y)
                pin_list.append((int(j), float(x), float(y)))
        self._dpos = start
        if not local and len(shown):
            self._gpos[shown] = start

        if len(shown) == 0:
            alpha = 0.0
        elif local:
            alpha = 0.6
        elif not known.any():
            alpha = 1.0
        elif not known.all() or self._changed:
            # a live reload: settle what changed, gently when little did
            alpha = float(np.clip(0.1 + (~known).mean() * 2.0, 0.1, 0.3))
        else:
            alpha = 0.0
        self._changed = False
        self._generation += 1
        self._base_sizes = np.zeros(0)  # no zoom restyle while the graph is swapped
        if refit:
            self._refit(local, bool(centres))
            self._follow_on_settle = True
        self._restyle(rebuild=True)
        worker = self._start_worker()
        if alpha > 0:
            self.edges.cache.expect_motion()
            self.nodes.cache.expect_motion()
        worker.load(
            self._generation,
            LayoutSpec(
                n=len(shown),
                edges=sub.copy(),
                positions=start.copy(),
                params=self._force_params(),
                alpha=alpha,
                pins=tuple(pin_list),
            ),
        )
        self.empty_label.setText(
            "Open an entry to see its local graph"
            if local and not centres and self._data.n
            else "No entries to show"
        )
        self.empty_label.setVisible(len(shown) == 0)

    def _refit(self, local: bool, has_centre: bool) -> None:
        """After a rebuild: the stored view of this mode if one is waiting (a relaunch),
        else a fit; either way the current node ends up on screen."""
        if self._restore_pending and (has_centre or not local):
            self._restore_pending = False
            if self.camera.restore(self._views.get(self._mode())):
                self._reveal(self._current, animate=False)
                return
        self.fit(animate=local and self.isVisible())

    def _start_worker(self) -> LayoutThread:
        if self._worker is None:
            self._worker = LayoutThread(max_fps=30.0)
            self._worker.frame.connect(self._on_frame)
            self._worker.settled.connect(self._on_settled)
            self._worker.failed.connect(self._on_worker_failed)
            self._worker.start()
            # a view dropped without shutdown() must not leave its thread running
            weakref.finalize(self, _stop_quietly, self._worker)
            if self.action_pause.isChecked():
                self._worker.set_paused(True)
        return self._worker

    def _on_frame(self, generation: int, arr) -> None:
        shown = False
        try:
            if self._shut or generation != self._generation:
                return
            arr = np.asarray(arr, dtype=np.float64)
            if arr.shape != self._dpos.shape:
                return
            arr = _clean_positions(arr, self._dpos)
            if self._dragging >= 0:
                arr[self._dragging] = self._dpos[self._dragging]
            self._set_display_positions(arr)
            shown = self.view.isVisible()
        finally:
            if shown:
                # the next frame is asked for once this one has been painted (or after
                # 200 ms), so the frame rate adapts to what the GUI can draw
                self._awaiting_paint = True
                self._frame_timer.start()
            else:
                self._frame_done()

    def _frame_done(self) -> None:
        self._awaiting_paint = False
        self._frame_timer.stop()
        if self._worker is not None and not self._shut:
            self._worker.frame_consumed()

    def _on_painted(self) -> None:
        if self._awaiting_paint:
            self._frame_done()

    def _on_settled(self, generation: int) -> None:
        if not self._shut and generation == self._generation:
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
        if self._settings["local"] and len(self._dpos):
            r = self.vb.viewRect()
            x, y = self._dpos[:, 0], self._dpos[:, 1]
            inside = (x >= r.left()) & (x <= r.right()) & (y >= r.top()) & (y <= r.bottom())
            if not inside.all():
                self.fit(animate=True)
                return
        self._reveal(self._current)

    def _on_worker_failed(self, message: str) -> None:
        self.setToolTip(f"Layout stopped: {message}")

    def _set_display_positions(self, pos: np.ndarray) -> None:
        self._dpos = pos
        if not self._settings["local"] and len(self._shown):
            self._gpos[self._shown] = pos
        self.nodes.set_positions(pos)
        self.edges.set_positions(pos)
        self.labels.set_positions(pos)
        if len(self._highlight):
            self.overlay.setData(
                pos=pos[self._highlight],
                size=self._sizes[self._highlight],
                brush=self._brush_arr[self._brush_idx[self._highlight]],
            )  # its pen (none) is set once: a pen= per call was a new sprite key each frame
        self._update_marks()

    # ---- styling ----------------------------------------------------------------------------
    def _apply_theme(self) -> None:
        t = THEMES[self._theme]
        self.view.setBackground(t["background"])
        fg = t["text"].name()
        self.empty_label.setStyleSheet(f"color: {fg}; background: transparent;")
        self._update_legend()

    def _node_colours(self) -> tuple[list[QColor], np.ndarray]:
        """(colour table, colour index per shown node): the model's colouring
        (:func:`anthology.graph.groups.colour_nodes`) in Qt's colours."""
        t = THEMES[self._theme]
        c = colour_nodes(
            self._data,
            self._shown_graph,
            str(self._settings["color_by"]),
            groups_from_settings(self._settings),
            t["palette"],
            str(self._settings.get("group_query", "")),
        )
        self._groups = [(name, QColor(col)) for name, col in zip(c.names, c.colours, strict=True)]
        table = [QColor(t["node"]), QColor(t["ghost"]), *(QColor(col) for col in c.colours)]
        return table, c.index

    def _match(self, query: str) -> np.ndarray:
        """Shown-node indices matching ``query``, in search's query language."""
        return match_nodes(self._data, query, self._shown)

    def _label_texts(self) -> list[str]:
        """The shown nodes' label strings (full: placement and elision are the view's):
        titles, the folder added where two shown titles are equal; or the ids."""
        d, by = self._data, self._settings["label_by"]

        def make() -> list[str]:
            shown = self._shown.tolist()
            texts = [d.ids[i] for i in shown] if by != "title" else node_titles(d, shown)
            return [plain_text(t) for t in texts]  # no bidi override turns a label round

        return self._shown_graphs.derived(self._shown_graph, "labels", by, make)

    def _edge_groups(self) -> tuple[list[QColor], np.ndarray, list[str]]:
        t = THEMES[self._theme]
        names = self._relation_names
        palette = t["palette"]
        colours = [QColor(t["mention"])]
        for j in range(len(names)):
            c = QColor(palette[(j + 3) % len(palette)])
            c.setAlpha(130)
            colours.append(c)
        group = self._rel_group_full[self._sub_edge_ids]
        return colours, group, names

    def _restyle(self, rebuild: bool = False) -> None:
        """Recompute sizes, colours and labels of the shown graph and push them to the items."""
        st = self._settings
        shown = self._shown
        deg = (
            np.bincount(self._sub_edges.ravel(), minlength=len(shown))
            if len(self._sub_edges)
            else np.zeros(len(shown), dtype=np.int64)
        )
        base = deg  # degree in the shown graph (what the user sees linked)
        raw = np.clip(6.0 + 2.0 * np.sqrt(base), 6.0, 36.0) * float(st["node_size"])
        self._base_sizes = np.round(raw * 2.0) / 2.0  # few distinct sprites
        self._zoom_step = self._current_zoom_step()
        sizes = np.round(self._base_sizes * self._zoom_factor(self._zoom_step) * 2.0) / 2.0
        self._sizes = sizes
        table, idx = self._node_colours()
        self._brush_table = table
        # the same QBrush for the same colour from one graph to the next (see _styled)
        self._brush_arr = np.empty(len(table), dtype=object)  # node k's: _brush_arr[idx[k]]
        self._brush_arr[:] = [self._styled(pg.mkBrush, c) for c in table]
        self._brush_idx = idx
        colours, group, _names = self._edge_groups()
        self._edge_colours = colours
        self._edge_group = group
        self._set_layers(
            LayerData(
                pos=self._dpos,
                edges=self._sub_edges,
                sizes=sizes,
                brushes=self._brush_arr[idx],
                edge_group=group,
                edge_colours=colours,
                labels=self._label_texts(),  # full: the layer elides them only zoomed out
                label_rank=base,
                relations=self._relations_arr[self._sub_edge_ids],
            )
        )
        self._compute_search()
        self._apply_highlight()
        self._update_legend()

    def _set_layers(self, ld: LayerData) -> None:
        """Hand every layer its data in one call (as pyqtgraph's CustomGraphItem.setData
        takes positions, adjacency, sizes, brushes and texts together)."""
        st, t = self._settings, THEMES[self._theme]
        radius = ld.sizes / 2.0
        styles = None
        if len(self._brush_idx) == len(ld.sizes):  # colour index × half-pixel size
            styles = self._brush_idx * 8192 + np.rint(ld.sizes * 2.0).astype(np.int64)
        self.nodes.set_nodes(ld.pos, ld.sizes, ld.brushes, styles)
        self.edges.set_graph(ld.edges, ld.edge_group, ld.edge_colours)
        self.edges.set_style(float(st["link_width"]), bool(st["arrows"]), radius)
        self.edges.set_positions(ld.pos)
        self.labels.set_graph(ld.labels, ld.label_rank, radius, elide=_elide)
        self.labels.set_relations(ld.edges, ld.relations, ld.edge_group, ld.edge_colours)
        self.labels.set_style(t["text"], float(st["text_fade"]), QColor(t["background"]))
        self.labels.set_positions(ld.pos)

    # nodes grow (gently) with the zoom, in quantised steps so the sprite atlas stays small
    ZOOM_STEP = 2**0.25

    def _current_zoom_step(self) -> int:
        rect = self.vb.viewRect()
        w = self.vb.width()
        if rect.width() <= 0 or w <= 0:
            return 0
        z = w / rect.width()  # px per layout unit
        if not math.isfinite(z) or z <= 0:
            return 0
        return round(math.log(z, self.ZOOM_STEP))

    def _zoom_factor(self, step: int) -> float:
        # zoomed far out (a big vault's overview) nodes shrink to dots, so that thousands of
        # them show the graph's shape instead of covering each other
        z = self.ZOOM_STEP**step
        return float(np.clip(z, 0.05, 2.0) ** 0.5)

    def _on_view_changed(self, *_args) -> None:
        # applied once the zoom gesture pauses: a size change re-renders every sprite
        if not self._shut:
            self._zoom_timer.start()
            if not self.camera.gliding() and not self._restore_pending:
                self._schedule_save()  # the view is part of the vault's user state

    def _apply_zoom_step(self) -> None:
        step = self._current_zoom_step()
        if (
            step == self._zoom_step
            or len(self._base_sizes) == 0
            or len(self._base_sizes) != len(self._dpos)
        ):
            return
        f_old = self._zoom_factor(self._zoom_step)
        self._zoom_step = step
        f = self._zoom_factor(step)
        if f == f_old:
            return
        self._sizes = np.round(self._base_sizes * f * 2.0) / 2.0
        self.nodes.set_sizes(self._sizes)
        self.edges.set_style(
            float(self._settings["link_width"]), bool(self._settings["arrows"]), self._sizes / 2
        )
        self.labels.set_radius(self._sizes / 2)
        if len(self._highlight):
            self.overlay.setSize(self._sizes[self._highlight])
        self._update_marks()

    def _compute_search(self) -> None:
        self._search_hits = self._match(self._search) if self._search else np.zeros(0, np.int64)

    def _apply_highlight(self) -> None:
        """Hover (neighbourhood) wins over search; everything else is dimmed."""
        t = THEMES[self._theme]
        if self._hover >= 0:
            h = self._hover
            indptr, nbr, eid = self._csr
            hl = np.unique(np.concatenate([[h], nbr[indptr[h] : indptr[h + 1]]]))
            inc = np.unique(eid[indptr[h] : indptr[h + 1]])
            self._highlight = hl.astype(np.int64)
            self.nodes.setOpacity(0.18)
            self.edges.set_highlight(inc, 0.12, t["accent"])
            self.labels.set_forced(self._highlight, 0.15)
        elif self._path is not None:
            hl, inc = self._path_items(self._path)
            self._highlight = hl
            self.nodes.setOpacity(0.18)
            self.edges.set_highlight(inc, 0.12, t["accent"])
            self.labels.set_forced(self._highlight, 0.15)
        elif self._search:
            self._highlight = self._search_hits
            self.nodes.setOpacity(0.18)
            self.edges.set_highlight(None, 0.25, t["accent"])
            self.labels.set_forced(self._highlight[:60], 0.2)
        else:
            self._highlight = np.zeros(0, dtype=np.int64)
            self.nodes.setOpacity(1.0)
            self.edges.set_highlight(None, 1.0, t["accent"])
            self.labels.set_forced(None, 1.0)
        if len(self._highlight):
            hl = self._highlight
            self.overlay.setData(
                pos=self._dpos[hl],
                size=self._sizes[hl],
                brush=self._brush_arr[self._brush_idx[hl]],
            )
        else:
            self.overlay.clear()
        self.overlay.setVisible(len(self._highlight) > 0)
        self._update_marks()

    def _path_items(self, path: LinkPath) -> tuple[np.ndarray, np.ndarray]:
        """(shown node indices, shown edge indices) of ``path``'s entries and links."""
        sg = self._shown_graph
        nodes = [sg.local(self._index.get(k, -1)) for k in path.nodes]
        hl = np.array(sorted({j for j in nodes if j >= 0}), dtype=np.int64)
        local = {k: sg.local(self._index.get(k, -1)) for k in path.nodes}
        # the links each hop went over, as they are written (not their reverse, if any)
        want = {(local[a], local[b]) for a, b in path.edges()}
        inc = [k for k, (a, b) in enumerate(self._sub_edges.tolist()) if (a, b) in want]
        return hl, np.asarray(inc, dtype=np.int64)

    def highlighted_edges(self) -> list[tuple[str, str]]:
        """The shown links drawn at full strength (a hovered node's or a shown path's)."""
        if self._path is not None and self._hover < 0:
            _hl, inc = self._path_items(self._path)
        else:
            return []
        ids, shown = self._data.ids, self._shown
        return [(ids[shown[a]], ids[shown[b]]) for a, b in self._sub_edges[inc].tolist()]

    def _update_marks(self) -> None:
        """Rings: current entry (accent, thick), visited trail (fading), pins, search hits."""
        t = THEMES[self._theme]
        kinds = (self._current is not None, len(self._trail) > 1, bool(self._pins),
                 bool(self._search))  # fmt: skip
        if kinds != self._legend_marks:  # the legend lists the marks in use
            self._legend_marks = kinds
            self._update_legend()
        remap = (
            {self._data.ids[i]: j for j, i in enumerate(self._shown.tolist())}
            if (len(self._shown) < 5000)
            else None
        )

        def local_index(entry_id: str) -> int:
            if remap is not None:
                return remap.get(entry_id, -1)
            i = self._index.get(entry_id)
            if i is None:
                return -1
            j = np.searchsorted(self._shown, i)
            return int(j) if j < len(self._shown) and self._shown[j] == i else -1

        # Each mark its own colour *and* shape, so they read apart in both themes and where
        # they meet on one node: a search match a double-width ring close to the node, a
        # pin a square, the trail a thin ring fading with age, the current entry a thick
        # ring furthest out.  (Matches and pins once shared one orange ring: issue 14.)
        spots: list[tuple[int, QColor, float, float, str]] = []  # index, colour, width,
        if self._search and self._hover < 0:  # extra size, symbol
            for j in self._search_hits[:500].tolist():
                spots.append((j, t["search"], 2.5, 5.0, "o"))
        for k in self._selection:  # Shift+click selection: a wide ring in the text colour
            j = local_index(k)
            if j >= 0:
                spots.append((j, t["text"], 2.0, 14.0, "o"))
        for k in self._pins:
            j = local_index(k)
            if j >= 0:
                spots.append((j, t["pin"], 2.0, 8.0, "s"))
        trail = [k for k in self._trail if k != self._current]
        for age, k in enumerate(reversed(trail)):
            j = local_index(k)
            if j >= 0:
                c = QColor(t["trail"])
                c.setAlphaF(max(0.25, 0.75 - 0.06 * age))
                spots.append((j, c, 1.5, 10.0, "o"))
        if self._current is not None:
            j = local_index(self._current)
            if j >= 0:
                spots.append((j, t["accent"], 3.0, 12.0, "o"))
        if not spots or len(self._dpos) == 0:
            self.marks.clear()
            self.marks.setVisible(False)
            self._mark_spots = []
            return
        self.marks.setVisible(True)
        self._mark_spots = spots
        idx = np.array([s[0] for s in spots], dtype=np.int64)
        self.marks.setData(
            pos=self._dpos[idx],
            size=[float(self._sizes[j] + s[3]) for j, s in zip(idx.tolist(), spots, strict=True)],
            pen=[self._styled(pg.mkPen, s[1], s[2]) for s in spots],
            symbol=[s[4] for s in spots],
        )  # the brush (none) set once: new pens and brushes per call were new sprite keys

    def _styled(self, make, colour: QColor, width: float | None = None):
        """One QBrush or QPen (``make``: pg.mkBrush / pg.mkPen) per colour and width, kept:
        the layers' sprite atlases key on its identity, and a fresh one per node or mark
        per update grew them on every navigation."""
        key = (make, QColor(colour).rgba(), width)
        style = self._style_cache.get(key)
        if style is None:
            style = make(colour) if width is None else make(colour, width=width)
            self._style_cache[key] = style
        return style

    def _update_legend(self) -> None:
        t = THEMES[self._theme]
        groups = list(self._groups[:12])
        colours = self._edge_colours
        g = self._edge_group  # small codes (0: mentions): counted, not np.unique's sort
        present = set(np.flatnonzero(np.bincount(g)).tolist()) if len(g) else set()
        relations = [
            (name, colours[j + 1])
            for j, name in enumerate(self._relation_names[:8])
            if (j + 1) in present and j + 1 < len(colours)
        ]
        if (groups or relations) and (0 in present):
            relations.append((MENTION, t["mention"]))
        marks = []
        if self._current is not None:
            marks.append(("current", t["accent"]))
        if len(self._trail) > 1:
            marks.append(("trail", t["trail"]))
        if self._pins:
            marks.append(("pin", t["pin"]))
        if self._search:
            marks.append(("match", t["search"]))
        self.legend.set_colours(t["background"], t["text"].name())
        self.legend.set_entries(groups, relations, marks)
        # shown whenever the setting is on, empty or not: a strip coming and going would
        # resize the plot (and its zoom) under the reader's eyes
        self.legend.setVisible(bool(self._settings.get("legend", True)))

    # ---- interaction ------------------------------------------------------------------------
    def _id_of(self, j: int) -> str | None:
        if 0 <= j < len(self._shown):
            return self._data.ids[int(self._shown[j])]
        return None

    def _on_node_clicked(self, j: int) -> None:
        entry_id = self._id_of(j)
        if entry_id is not None and not self._data.ghost[self._shown[j]]:
            self.entryActivated.emit(entry_id)

    def _on_node_shift_clicked(self, j: int) -> None:
        entry_id = self._id_of(j)
        if entry_id is not None:
            self.toggle_selected(entry_id)

    def _on_node_clicked_new_tab(self, j: int) -> None:
        entry_id = self._id_of(j)
        if entry_id is not None and not self._data.ghost[self._shown[j]]:
            self.entryActivatedNewTab.emit(entry_id)

    def _on_node_double_clicked(self, j: int) -> None:
        entry_id = self._id_of(j)
        if entry_id is not None:
            self.unpin(entry_id)

    def _on_node_hovered(self, j: int) -> None:
        if j >= len(self._shown):
            j = -1
        self._hover = j
        entry_id = self._id_of(j)
        if entry_id is None:
            self._tooltip = ""
        else:
            i = int(self._shown[j])
            title = self._data.titles[i]
            self._tooltip = entry_id if title == entry_id else f"{entry_id} — {title}"
        # Titles are vault text: Qt would take "<img src=…>" in one as rich text and load it.
        self.nodes.setToolTip(tooltip_html(self._tooltip) if self._tooltip else "")
        self._apply_highlight()

    def hover(self, entry_id: str | None) -> None:
        """Highlight ``entry_id``'s neighbourhood as a hover would (None clears)."""
        j = -1
        if entry_id is not None and entry_id in self._index:
            hit = np.flatnonzero(self._shown == self._index[entry_id])
            j = int(hit[0]) if len(hit) else -1
        self.nodes._hover = j
        self._on_node_hovered(j)

    def highlighted_ids(self) -> set[str]:
        """Ids drawn at full strength by the hover (the node and its neighbours), else
        the search hits; empty when nothing is highlighted."""
        return {self._data.ids[int(self._shown[j])] for j in self._highlight.tolist()}

    def hovered_id(self) -> str | None:
        return self._id_of(self._hover)

    def tooltip_text(self) -> str:
        return self._tooltip

    def _on_node_dragged(self, j: int, x: float, y: float, phase: str) -> None:
        entry_id = self._id_of(j)
        if entry_id is None or not (math.isfinite(x) and math.isfinite(y)):
            return
        self._dragging = -1 if phase == "finish" else j
        self.pin(entry_id, x, y)

    def pin(self, entry_id: str, x: float, y: float) -> None:
        """Fix ``entry_id`` at ``(x, y)`` (a drag does this) and reheat the simulation."""
        i = self._index.get(entry_id)
        if i is None:
            return
        x = float(np.clip(x, -POSITION_LIMIT, POSITION_LIMIT))
        y = float(np.clip(y, -POSITION_LIMIT, POSITION_LIMIT))
        self._pins[entry_id] = (x, y)
        if not self._settings["local"]:
            self._gpos[i] = (x, y)
        hit = np.flatnonzero(self._shown == i)
        if len(hit):
            j = int(hit[0])
            pos = self._dpos.copy()
            pos[j] = (x, y)
            self._set_display_positions(pos)
            if self._worker is not None:
                self._worker.pin(j, x, y, reheat=0.3)

    def unpin(self, entry_id: str) -> None:
        if self._pins.pop(entry_id, None) is None:
            return
        i = self._index.get(entry_id)
        hit = np.flatnonzero(self._shown == i) if i is not None else np.zeros(0, np.int64)
        if len(hit) and self._worker is not None:
            self._worker.unpin(int(hit[0]), reheat=0.3)
        self._update_marks()

    def pinned_ids(self) -> list[str]:
        return sorted(self._pins)

    def _on_context_menu(self, j: int, screen_pos: QPoint) -> None:
        entry_id = self._id_of(j)
        if entry_id is not None:
            self.node_menu(entry_id).popup(screen_pos)

    def node_menu(self, entry_id: str) -> QMenu:
        """The right-click menu of a node: Open, Open in new tab, Show local graph, Unpin,
        Copy id; then Path to…, Neighbourhood of selection, Select / Deselect."""
        menu = QMenu(self)
        menu.setObjectName("graphNodeMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        ghost = self._data.ghost[self._index[entry_id]] if entry_id in self._index else True
        a = menu.addAction("Open", lambda: self.entryActivated.emit(entry_id))
        a.setObjectName("menuOpen")
        a.setEnabled(not ghost)
        a = menu.addAction("Open in new tab", lambda: self.entryActivatedNewTab.emit(entry_id))
        a.setObjectName("menuOpenNewTab")
        a.setEnabled(not ghost)
        a = menu.addAction("Show local graph", lambda: self.show_local_graph(entry_id))
        a.setObjectName("menuLocal")
        a = menu.addAction("Unpin", lambda: self.unpin(entry_id))
        a.setObjectName("menuUnpin")
        a.setEnabled(entry_id in self._pins)
        a = menu.addAction("Copy id", lambda: QGuiApplication.clipboard().setText(entry_id))
        a.setObjectName("menuCopy")
        a.setShortcut(QKeySequence.StandardKey.Copy)
        menu.addSeparator()
        a = menu.addAction("Path to…", lambda: self.pathRequested.emit(entry_id))
        a.setObjectName("menuPathTo")
        a.setEnabled(not ghost)
        sel = self._selection if entry_id in self._selection else [*self._selection, entry_id]
        a = menu.addAction(
            f"Neighbourhood of selection ({len(sel)})",
            lambda: self.show_selection_neighbourhood(sel),
        )
        a.setObjectName("menuSelectionNeighbourhood")
        a.setEnabled(len(sel) > 1)
        a = menu.addAction(
            "Deselect" if entry_id in self._selection else "Select (Shift+click)",
            lambda: self.toggle_selected(entry_id),
        )
        a.setObjectName("menuSelect")
        return menu

    def _reveal(self, entry_id: str | None, animate: bool = True) -> None:
        """Glide (keeping the zoom) so ``entry_id`` is well inside the view."""
        if entry_id is None or entry_id not in self._index:
            return
        hit = np.flatnonzero(self._shown == self._index[entry_id])
        if not len(hit):
            return
        x, y = self._dpos[int(hit[0])]
        self.camera.reveal(float(x), float(y), animate)

    # geometry helpers (tests, hosts) ---------------------------------------------------------
    def node_scene_pos(self, entry_id: str) -> QPointF | None:
        i = self._index.get(entry_id)
        if i is None:
            return None
        hit = np.flatnonzero(self._shown == i)
        if not len(hit):
            return None
        x, y = self._dpos[int(hit[0])]
        return self.vb.mapViewToScene(QPointF(float(x), float(y)))

    def node_viewport_pos(self, entry_id: str) -> QPoint | None:
        """Where ``entry_id`` is drawn, in ``self.view.viewport()`` coordinates."""
        sp = self.node_scene_pos(entry_id)
        return None if sp is None else self.view.mapFromScene(sp)

    def shown_ids(self) -> list[str]:
        return [self._data.ids[i] for i in self._shown.tolist()]

    def shown_edges(self) -> list[tuple[str, str]]:
        ids = self._data.ids
        return [(ids[self._shown[a]], ids[self._shown[b]]) for a, b in self._sub_edges.tolist()]

    def labelled_ids(self) -> list[str]:
        """Ids whose labels the last paint drew."""
        return [self._id_of(j) or "" for j in self.labels.shown]

    # ---- export -------------------------------------------------------------------------------
    def _export_dialog(self, kind: str) -> None:
        filt = "PNG image (*.png)" if kind == "png" else "SVG image (*.svg)"
        path, _ = QFileDialog.getSaveFileName(
            self, f"Export graph as {kind.upper()}", f"graph.{kind}", filt
        )
        if path:
            (self.export_png if kind == "png" else self.export_svg)(path)

    def _export_data_dialog(self, kind: str) -> None:
        filt = "GraphML (*.graphml)" if kind == "graphml" else "JSON (*.json)"
        path, _ = QFileDialog.getSaveFileName(
            self, f"Export the shown graph as {kind.upper()}", f"graph.{kind}", filt
        )
        if path:
            try:
                (self.export_graphml if kind == "graphml" else self.export_json)(path)
            except OSError as exc:
                QMessageBox.warning(self, "Export", f"Could not write {path}: {exc}")

    def export_graphml(self, path: str) -> int:
        """The shown graph (what the filters and the local graph leave) as GraphML; the
        number of nodes written."""
        return write_graphml(self._data, self._shown_graph, path)

    def export_json(self, path: str) -> int:
        """The shown graph as node-link JSON; the number of nodes written."""
        return write_node_link_json(self._data, self._shown_graph, path)

    def drawing(self) -> Drawing:
        """A plain snapshot of every node and edge shown (after the filters and the mode):
        what the PNG and SVG exports paint, whatever the zoom, caches or hover."""
        t = THEMES[self.theme()]
        n = len(self._shown)
        ids = self.shown_ids()
        base = self._base_sizes if len(self._base_sizes) == n else np.full(n, 8.0)
        table = self._brush_table or [QColor(t["node"])]
        fill = [_rgba(table[int(k) % len(table)]) for k in self._brush_idx.tolist()]
        if len(fill) != n:
            fill = [_rgba(QColor(t["node"]))] * n
        edges = np.asarray(self._sub_edges, dtype=np.int64).reshape(-1, 2)
        degree = np.bincount(edges.ravel(), minlength=n) if len(edges) else np.zeros(n, int)
        labels = self._label_texts()
        colours = list(self._edge_colours) or [QColor(t["mention"])]
        return Drawing(
            ids=ids,
            titles=[plain_text(self._data.titles[i]) for i in self._shown.tolist()],
            labels=labels if len(labels) == n else list(ids),
            pos=finite_positions(self._dpos),
            radius=np.asarray(base, dtype=np.float64) / 2.0,
            fill=fill,
            degree=degree,
            edges=edges,
            edge_group=np.asarray(self._edge_group, dtype=np.int64),
            edge_colours=[_rgba(c) for c in colours],
            edge_width=float(self.settings().get("link_width", 1.0)),
            arrows=bool(self.settings().get("arrows", False)),
            background=_rgba(QColor(t["background"])),
            text=_rgba(QColor(t["text"])),
            title=self._vault_key or "graph",
            rings=[
                (j, _rgba(c), w, extra, sym)
                for j, c, w, extra, sym in self._mark_spots
                if 0 <= j < n
            ],
        )

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
