"""The graph follows the reader (issue 14): the current node stays on screen, the view comes
back on relaunch, the toolbar says what is shown, the legend is beside the plot, the keys
walk the links, arrowheads touch their node, and export writes the whole graph."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QRectF, QSettings, Qt
from PySide6.QtGui import QImage

from anthology.ui.graph.graph_camera import bulk_box
from anthology.ui.graph.graph_view import GraphView
from anthology.vault.graph_data import GraphData

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from synthetic_vault import generate_personal

pytestmark = pytest.mark.qt_log_ignore(
    "This plugin does not support propagateSizeHints",
    "This plugin does not support raise",
    "This plugin does not support grabbing the keyboard",
)

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def view(make_view):
    return make_view(900, 650)


def grid_graph(side: int = 12, spacing: float = 50.0):
    """A side×side lattice (each node linked right and down), far corners far apart."""
    n = side * side
    edges = [(i, i + 1) for i in range(n) if (i + 1) % side]
    edges += [(i, i + side) for i in range(n - side)]
    ids = [f"Note {i}" for i in range(n)]
    g = GraphData(
        ids=ids,
        titles=[f"A note called number {i} with a long title" for i in range(n)],
        kinds=[""] * n,
        tags=[[] for _ in range(n)],
        edges=np.asarray(edges, dtype=np.int64),
        relations=[None] * len(edges),
    )
    pos = {k: ((i % side) * spacing, (i // side) * spacing) for i, k in enumerate(ids)}
    return g, pos


def inside_viewport(v: GraphView, entry_id: str) -> bool:
    p = v.node_viewport_pos(entry_id)
    return p is not None and v.view.viewport().rect().contains(p)


# ---- following ------------------------------------------------------------------------------
def test_navigation_glides_to_the_current_node_keeping_the_zoom(qtbot, view):
    g, pos = grid_graph()
    view.set_graph(g, pos, "v")
    view.set_paused(True)
    view.vb.setRange(QRectF(-50, -50, 200, 200), padding=0)  # close up on one corner
    zoom = view.vb.width() / view.vb.viewRect().width()  # px per layout unit
    far = g.ids[-1]
    assert not inside_viewport(view, far)
    view.set_current(far)
    assert view.camera.gliding()  # an animation, not a jump
    qtbot.waitUntil(lambda: not view.camera.gliding(), timeout=3000)
    assert inside_viewport(view, far)
    p = view.node_viewport_pos(far)
    r = view.view.viewport().rect()
    assert abs(p.x() - r.center().x()) < r.width() * 0.1
    assert abs(p.y() - r.center().y()) < r.height() * 0.1
    assert view.vb.width() / view.vb.viewRect().width() == pytest.approx(zoom, rel=1e-6)
    # a node already well in view: the view stays put
    before = view.vb.viewRect()
    neighbour = g.ids[-2]
    view.set_current(neighbour)
    assert not view.camera.gliding() and view.vb.viewRect() == before


def test_the_local_graph_fits_its_neighbourhood(qtbot, view):
    g, pos = grid_graph()
    view.set_graph(g, pos, "v")
    view.vb.setRange(QRectF(-50, -50, 100, 100), padding=0)
    view.set_current("Note 77")
    with qtbot.waitSignal(view.layoutSettled, timeout=20000):
        view.set_local(True)  # a local simulation runs; when it cools the view is fitted
    assert set(view.shown_ids()) == {"Note 77", "Note 76", "Note 78", "Note 65", "Note 89"}
    qtbot.waitUntil(
        lambda: (
            not view.camera.gliding() and all(inside_viewport(view, k) for k in view.shown_ids())
        ),
        timeout=3000,
    )


def test_fit_ignores_a_far_outlier(qtbot, view):
    rng = np.random.default_rng(1)
    n = 200
    g = GraphData(
        ids=[f"N{i}" for i in range(n)],
        titles=[f"N{i}" for i in range(n)],
        kinds=[""] * n,
        tags=[[] for _ in range(n)],
        edges=np.zeros((0, 2), dtype=np.int64),
        relations=[],
    )
    pos = {f"N{i}": tuple(rng.uniform(-100, 100, 2)) for i in range(n - 1)}
    pos[f"N{n - 1}"] = (50_000.0, 50_000.0)  # one far orphan
    view.set_graph(g, pos, "v")
    view.set_paused(True)
    view.fit()
    r = view.vb.viewRect()
    assert r.width() < 600 and r.height() < 600  # the bulk fills the view (not 50,000)
    assert not inside_viewport(view, f"N{n - 1}")
    assert inside_viewport(view, "N0")
    # the box: every ordinary node inside, the outlier out
    x0, y0, x1, y1 = bulk_box(np.array(list(pos.values())))
    assert x1 < 1000 and y1 < 1000 and x0 <= -90 and y0 <= -90


# ---- the main window: launch, relaunch, vault switch ---------------------------------------
@pytest.fixture
def vaults(tmp_path):
    a = generate_personal(tmp_path / "Vault A", n=120, seed=3)
    b = generate_personal(tmp_path / "Vault B", n=60, seed=4)
    return a, b


def make_window(qtbot, vault: Path, tmp_path: Path):
    from anthology.ui.window.main_window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(vault, db=tmp_path / f"{vault.name}.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.resize(1300, 850)
    win.show()
    qtbot.waitUntil(lambda: win.settled and not win.indexing, timeout=30000)
    qtbot.waitUntil(lambda: win.graph is not None and len(win.graph.shown_ids()) > 0, timeout=20000)
    return win


def test_launch_shows_the_current_entrys_local_graph_and_says_so(qtbot, vaults, tmp_path):
    win = make_window(qtbot, vaults[0], tmp_path)
    graph = win.graph
    current = win.current_id()
    assert current is not None and graph.current_id() == current
    assert graph.is_local() and graph.toolbar_mode() == "local"
    assert graph.action_depth.isVisible()
    assert current in graph.shown_ids() and len(graph.shown_ids()) < 120
    qtbot.waitUntil(lambda: not graph.camera.gliding(), timeout=3000)
    assert inside_viewport(graph, current)
    graph.action_global.trigger()
    assert not graph.is_local() and graph.toolbar_mode() == "global"
    assert not graph.action_depth.isVisible()
    assert len(graph.shown_ids()) >= 120
    graph.action_local.trigger()
    assert graph.toolbar_mode() == "local" and len(graph.shown_ids()) < 120
    win.close()


def test_relaunch_restores_the_view_with_the_current_node_on_screen(qtbot, vaults, tmp_path):
    win = make_window(qtbot, vaults[0], tmp_path)
    graph = win.graph
    graph.set_local(False)
    graph.set_paused(True)
    current = win.current_id()
    qtbot.waitUntil(lambda: not graph.camera.gliding(), timeout=3000)
    p = graph.node_viewport_pos(current)
    # the reader zooms in around the current node
    x, y = graph.scene.dpos[graph.shown_ids().index(current)]
    graph.vb.setRange(QRectF(x - 90, y - 60, 180, 120), padding=0)
    saved = graph.vb.viewRect()
    win.close()

    again = make_window(qtbot, vaults[0], tmp_path)
    g2 = again.graph
    assert again.current_id() == current
    assert not g2.is_local() and g2.toolbar_mode() == "global"
    qtbot.waitUntil(lambda: not g2.camera.gliding(), timeout=3000)
    r = g2.vb.viewRect()
    assert r.width() == pytest.approx(saved.width(), rel=0.35)  # the zoom came back
    assert abs(r.center().x() - saved.center().x()) < saved.width() * 0.5
    assert inside_viewport(g2, current)
    assert p is not None
    again.close()


def test_a_vault_switch_clears_the_node_search_and_the_view(qtbot, vaults, tmp_path):
    win = make_window(qtbot, vaults[0], tmp_path)
    graph = win.graph
    graph.set_local(False)
    graph.set_search(graph.scene.data.titles[0])
    assert graph.search_matches()
    graph.vb.setRange(QRectF(10_000, 10_000, 50, 50), padding=0)  # nothing in view
    win.open_vault(vaults[1])
    qtbot.waitUntil(lambda: not win.indexing and not win.surroundings.pending, timeout=30000)
    qtbot.waitUntil(lambda: win.graph.current_id() is not None, timeout=20000)
    assert graph.search_edit.text() == "" and graph.search_matches() == []
    assert graph.highlighted_ids() == set()
    qtbot.waitUntil(lambda: not graph.camera.gliding(), timeout=3000)
    # the new vault's view is its own (here: its first, fitted on the current entry)
    assert inside_viewport(graph, win.current_id())
    assert graph.vb.viewRect().left() < 5_000
    win.close()


# ---- toolbar, legend, marks -------------------------------------------------------------------
def test_legend_is_an_opaque_strip_beside_the_plot(qtbot, view):
    g, pos = grid_graph()
    view.set_graph(g, pos, "v")
    view.set_current("Note 3")
    view.set_current("Note 4")
    view.pin("Note 5", 100.0, 0.0)
    view.set_search("number 7")
    assert view.legend.isVisible()
    plot = view.view.geometry()
    legend = view.legend.geometry()
    assert not plot.intersects(legend)  # never over a node
    assert legend.height() < 0.15 * view.height()
    img = view.legend.grab().toImage()
    assert img.pixelColor(img.width() - 3, img.height() // 2).alpha() == 255
    assert {"current", "visited", "pinned", "match"} <= set(view.legend.entries())


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_matches_pins_current_and_trail_have_their_own_marks(qtbot, view, theme):
    view.set_theme(theme)
    g, pos = grid_graph(4)
    view.set_graph(g, pos, "v")
    view.set_current("Note 1")
    view.set_current("Note 2")
    view.pin("Note 3", 150.0, 0.0)
    view.set_search("number 5")
    marks = {}
    for m in view.scene.marks:
        colour = view.scene.mark_rgba(m)[:3]
        marks.setdefault(view.shown_ids()[m.node], []).append((colour, m.symbol, m.width))
    current, trail, pin, match = (
        marks["Note 2"][0],
        marks["Note 1"][0],
        marks["Note 3"][0],
        marks["Note 5"][0],
    )
    assert len({current, trail, pin, match}) == 4
    assert len({current[0], pin[0], match[0]}) == 3  # three colours
    assert pin[1] != match[1]  # and the pin another shape
    assert current[2] >= 2 * trail[2]  # the current ring thick, the trail's thin (and faded)


# ---- arrows ------------------------------------------------------------------------------------
def test_arrowheads_end_at_the_target_nodes_rim(qtbot, view):
    g, pos = grid_graph(5, spacing=80.0)
    view.set_graph(g, pos, "v")
    view.set_paused(True)
    view.set_setting("arrows", True)
    for zoom_rect in (QRectF(-40, -40, 400, 400), QRectF(-20, -20, 150, 150)):
        view.vb.setRange(zoom_rect, padding=0)
        view.view.viewport().repaint()
        tr = view.nodes.deviceTransform_()
        heads, ends = view.edges.arrow_heads(tr)
        assert len(heads) == len(g.edges)
        centres = np.array(
            [
                [view.node_viewport_pos(view.shown_ids()[k]).x() for k in ends],
                [view.node_viewport_pos(view.shown_ids()[k]).y() for k in ends],
            ]
        ).T
        tips = heads[:, 0]
        dist = np.hypot(*(tips - centres).T)
        radius = view.scene.sizes[ends] / 2
        assert np.allclose(dist, radius, atol=1.5)  # on the rim, not off in space
        # the head points at the node: its base is farther from the centre than its tip
        base = (heads[:, 1] + heads[:, 2]) / 2
        assert (np.hypot(*(base - centres).T) > dist).all()
    small = view.edges.arrow_size(0.5)
    assert view.edges.arrow_size(4.0) > small  # heads grow with the zoom


# ---- keys --------------------------------------------------------------------------------------
def test_keys_move_the_focus_along_links_open_and_clear(qtbot, view):
    g, pos = grid_graph(5, spacing=80.0)
    view.set_graph(g, pos, "v")
    view.set_paused(True)
    view.fit()
    view.set_current("Note 12")  # the middle of the lattice
    canvas = view.view
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_Right)
    assert view.focused_id() == "Note 12"  # the first arrow lands on the current entry
    qtbot.keyClick(canvas, Qt.Key.Key_Right)
    assert view.focused_id() == "Note 13"
    assert view.highlighted_ids() == {"Note 13", "Note 12", "Note 14", "Note 8", "Note 18"}
    qtbot.keyClick(canvas, Qt.Key.Key_Left)
    assert view.focused_id() == "Note 12"
    # layout y points up, the screen's down: Up goes to the node drawn above
    qtbot.keyClick(canvas, Qt.Key.Key_Up)
    up = view.focused_id()
    p_up, p_12 = view.node_viewport_pos(up), view.node_viewport_pos("Note 12")
    assert up in {"Note 7", "Note 17"} and p_up.y() < p_12.y()
    qtbot.keyClick(canvas, Qt.Key.Key_Down)
    assert view.focused_id() == "Note 12"
    # Tab cycles the neighbours of where it started, then comes round again
    seen = []
    for _ in range(4):
        qtbot.keyClick(canvas, Qt.Key.Key_Tab)
        seen.append(view.focused_id())
    assert set(seen) == {"Note 7", "Note 11", "Note 13", "Note 17"}
    qtbot.keyClick(canvas, Qt.Key.Key_Tab)
    assert view.focused_id() == seen[0]
    qtbot.keyClick(canvas, Qt.Key.Key_Backtab)
    assert view.focused_id() == seen[-1]
    with qtbot.waitSignal(view.entryActivated) as opened:
        qtbot.keyClick(canvas, Qt.Key.Key_Return)
    assert opened.args == [seen[-1]]
    qtbot.keyClick(canvas, Qt.Key.Key_Escape)
    assert view.focused_id() is None and view.highlighted_ids() == set()


# ---- export ------------------------------------------------------------------------------------
def test_svg_export_has_every_shown_node_not_just_the_viewport(qtbot, view, tmp_path):
    g, pos = grid_graph()
    view.set_graph(g, pos, "v")
    view.set_paused(True)
    view.vb.setRange(QRectF(-20, -20, 80, 80), padding=0)  # a handful of nodes in view
    view.view.viewport().repaint()
    on_screen = [k for k in view.shown_ids() if inside_viewport(view, k)]
    assert len(on_screen) < 20
    svg = tmp_path / "graph.svg"
    assert view.export_svg(str(svg)) == 144
    root = ET.parse(svg).getroot()
    circles = [c for c in root.iter(f"{SVG}circle") if c.get("class") == "node"]
    assert len(circles) == len(view.shown_ids()) == 144
    assert {c.get("data-id") for c in circles} == set(view.shown_ids())
    w, h = float(root.get("width")), float(root.get("height"))
    for c in circles:  # every node inside the picture
        assert 0 < float(c.get("cx")) < w and 0 < float(c.get("cy")) < h
    # a filter hides nodes: the export follows what is shown
    view.set_setting("orphans", False)
    view.set_local(True)
    view.set_current("Note 0")
    view.export_svg(str(svg))
    circles = [c for c in ET.parse(svg).getroot().iter(f"{SVG}circle") if c.get("class") == "node"]
    assert {c.get("data-id") for c in circles} == {"Note 0", "Note 1", "Note 12"}


def test_png_export_at_a_chosen_width(qtbot, view, tmp_path):
    g, pos = grid_graph()
    view.set_graph(g, pos, "v")
    view.set_paused(True)
    view.vb.setRange(QRectF(-20, -20, 80, 80), padding=0)
    png = tmp_path / "graph.png"
    w, h = view.export_png(str(png), 1600)
    img = QImage(str(png))
    assert (img.width(), img.height()) == (w, h) == (1600, h)
    assert 1400 < h < 1800  # a square lattice: a square picture
    # every node, on screen or not, is painted where the picture puts it
    from anthology.graph.drawing import frame

    _scale, _w, _h, xy = frame(view.drawing(), 1600)
    bg = img.pixelColor(2, 2)
    for x, y in xy.tolist():
        assert img.pixelColor(round(x), round(y)) != bg, (x, y)
