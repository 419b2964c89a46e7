"""A cached start hands what it loaded to the views a piece per event-loop turn (issue 35):
the graph's load, nodes, edges, labels and layout; a big explorer folder's rows a slice at
a time. What the reader sees once it is done must be what one turn made."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

import anthology.ui.graph.graph_view as graph_view_module
from anthology.ui.graph.edge_layer import EdgeLayer
from anthology.ui.graph.graph_view import GraphView
from anthology.ui.graph.node_layer import NodeLayer
from anthology.ui.graph.viewport_cache import ViewportCache
from anthology.ui.panels import file_explorer
from anthology.ui.panels.file_explorer import FileExplorer
from anthology.vault import EntryRef, GraphData

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from synthetic_graph import power_law_graph

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def _graph(n: int) -> GraphData:
    edges = np.asarray(power_law_graph(n, 3 * n, seed=7), dtype=np.int64).reshape(-1, 2)
    kinds = ["literature", "practice", "note"]
    return GraphData(
        ids=[f"E{i}" for i in range(n)],
        titles=[f"Title {i}" for i in range(n)],
        kinds=[kinds[i % 3] for i in range(n)],
        tags=[[] for _ in range(n)],
        edges=edges,
        relations=["cites" if k % 5 == 0 else None for k in range(len(edges))],
    )


def _places(g: GraphData) -> dict[str, tuple[float, float]]:
    side = int(np.ceil(np.sqrt(g.n)))
    return {k: ((i % side) * 30.0, (i // side) * 30.0) for i, k in enumerate(g.ids)}


def _view(qtbot) -> GraphView:
    view = GraphView()
    qtbot.addWidget(view)
    view.resize(600, 450)
    view.show()
    view.set_paused(True)  # the picture stays where it was given
    return view


def _picture(view: GraphView) -> dict:
    """What the items draw: nodes (where, how big, which colour), edges, labels."""
    data = view.nodes.data
    return {
        "shown": view.shown_ids(),
        "xy": np.column_stack([data["x"], data["y"]]).round(6).tolist(),
        "size": data["size"].tolist(),
        "colour": [QColor(b.color()).name() for b in data["brush"]],
        "edges": view.edges._edges.tolist(),
        "labels": list(view.labels._text),
        "legend": [
            [(name, c.name()) for name, c in part]
            for part in view.painter.legend_entries(view.scene)
        ],
    }


def test_a_graph_given_in_pieces_draws_what_one_turn_drew(qtbot) -> None:
    g = _graph(400)
    whole, pieces = _view(qtbot), _view(qtbot)
    whole.set_graph(g, _places(g), "v", current="E0")
    steps = pieces.graph_steps(g, _places(g), "v", current="E0")
    assert len(steps) >= 4  # load, nodes, edges, labels, layout
    steps[0]()
    # between pieces the node layer still draws the graph before: its input is ignored
    pieces._on_node_hovered(0)
    assert pieces.tooltip_text() == "" and pieces.scene.hover == -1
    for step in steps[1:]:
        qtbot.wait(1)
        step()
    assert pieces.current_id() == whole.current_id() == "E0"
    assert _picture(pieces) == _picture(whole)
    assert [pieces.scene.id_of(j) for j in pieces.labels.shown] == whole.labelled_ids()
    pieces._on_node_hovered(0)  # done: the reader's again
    assert pieces.tooltip_text().startswith("E")


def test_the_nodes_reach_their_layer_in_three_pieces_the_old_ones_shown_till_then(
    qtbot,
) -> None:
    """Giving 100,000 nodes to their layer took 20-30 ms in one piece: their record, their
    sprites and the layer's update are a piece each; until the last the layer shows the
    nodes it had, and a rebuild meanwhile leaves the older pieces nothing to do."""
    g = _graph(300)
    view = _view(qtbot)
    view.set_graph(g, _places(g), "v", current="E0")
    before = view.nodes.data
    steps = view.graph_steps(g, _places(g), "v", current="E7")
    steps[0]()  # the scene's load
    steps[1]()  # framed and styled
    for piece in steps[2:4]:
        piece()
        assert view.nodes.data is before  # the record, the sprites: not given yet
    steps[4]()
    assert view.nodes.data is not before and len(view.nodes.data) == len(view.shown_ids())
    # pieces of a rebuild overtaken by another do nothing
    stale = view.graph_steps(g, _places(g), "v", current="E3")
    stale[0]()
    stale[1]()
    stale[2]()  # its nodes' first piece ran...
    view.show_local_graph("E5")  # ...then the reader asked for another graph
    drawn, data = _picture(view), view.nodes.data
    for step in stale[3:]:
        step()
    assert view.nodes.data is data and _picture(view) == drawn


def test_a_switch_to_a_big_global_graph_draws_in_pieces_what_one_turn_drew(
    qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past STEPPED_REBUILD_NODES, a rebuild (the switch from the local graph to the global
    one) gives the items their part a piece per turn: the turn of the switch leaves the
    labels to come, and once the pieces are done the picture is the one-turn rebuild's."""
    g = _graph(300)
    small, big = _view(qtbot), _view(qtbot)
    for view in (small, big):
        view.set_graph(g, _places(g), "v", current="E0")
        view.set_local(True)
    monkeypatch.setattr(graph_view_module, "STEPPED_REBUILD_NODES", 100)
    big.set_local(False)
    assert big.scene.generation != big._drawn  # the items have not all been given it yet
    monkeypatch.setattr(graph_view_module, "STEPPED_REBUILD_NODES", 10_000)
    small.set_local(False)  # one turn, as before
    qtbot.waitUntil(lambda: big._drawn == big.scene.generation, timeout=5000)
    assert len(big.shown_ids()) == 300
    assert _picture(big) == _picture(small)


def test_a_click_between_the_pieces_draws_at_once_and_the_rest_do_nothing(qtbot) -> None:
    g = _graph(300)
    view, other = _view(qtbot), _view(qtbot)
    steps = view.graph_steps(g, _places(g), "v", current="E0")
    steps[0]()
    view.show_local_graph("E7")  # the reader asked for another graph meanwhile
    drawn = _picture(view)
    assert drawn["shown"] and "E7" in drawn["shown"] and len(drawn["xy"]) == len(drawn["shown"])
    generation = view.scene.generation
    for step in steps[1:]:
        step()
    assert view.scene.generation == generation and _picture(view) == drawn
    other.set_graph(g, _places(g), "v", current="E0")
    other.show_local_graph("E7")
    assert drawn == _picture(other)


def test_a_live_paint_of_a_big_graph_draws_a_bounded_sample(qtbot, monkeypatch) -> None:
    """Past LIVE_SAMPLE edges a moving frame measures only a fixed sample of them (1.5
    million edges took 0.3-0.5 s a live paint); once still, every edge is drawn."""
    monkeypatch.setattr(EdgeLayer, "LIVE_SAMPLE", 600)
    monkeypatch.setattr(EdgeLayer, "LIVE_MAX_EDGES", 150)
    g = _graph(1500)  # 4,500 edges
    view = GraphView()
    qtbot.addWidget(view)
    view.resize(600, 450)
    view.show()
    view.set_graph(g, None, "v")  # a fresh layout: its frames are painted live
    qtbot.waitUntil(lambda: view.edges.stats.get("decimated", 0) >= 2, timeout=20000)
    assert 0 < view.edges.stats["live_edges"] <= 150
    view.set_paused(True)


def _refs(folder: str, n: int) -> list[EntryRef]:
    # titles in an order natural sort changes: "Note 2" before "Note 10"
    return [EntryRef(f"{folder}/Note {i}", f"Note {i}", f"{folder}/Note {i}.md")
            for i in range(n, 0, -1)]  # fmt: skip


def _explorer(qtbot, refs: list[EntryRef]) -> FileExplorer:
    explorer = FileExplorer()
    qtbot.addWidget(explorer)
    explorer.resize(300, 500)
    explorer.show()
    explorer.set_entries(refs, [])
    return explorer


def _slices(qtbot, explorer: FileExplorer, entry: str) -> int:
    """Follow ``entry``; the turns its folder's rows took to make until it was revealed."""
    made = []
    real = file_explorer.Node.kid_steps

    def counted(node, chunk=1 << 30):
        for step in real(node, chunk):
            made.append(1)
            yield step

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(file_explorer.Node, "kid_steps", counted)
        explorer.follow(entry)
        qtbot.waitUntil(lambda: explorer.current_id() == entry, timeout=10000)
    return len(made)


def test_a_big_folder_is_made_a_slice_a_turn_and_shows_the_same_rows(qtbot) -> None:
    big = file_explorer.BIG_FOLDER + 500
    refs = [*_refs("inbox", 3), *_refs("papers", big)]
    sliced = _explorer(qtbot, refs)
    assert _slices(qtbot, sliced, "papers/Note 7") > 3
    whole = _explorer(qtbot, refs)
    whole.reveal("papers/Note 7")  # at once, as a reveal asked by code is
    assert sliced.visible_labels() == whole.visible_labels()
    shown = sliced.visible_labels()
    assert shown.index("Note 2") < shown.index("Note 10")
    # the folder stays open: a new listing reopens it once its rows are made again
    assert "papers" in sliced.expanded
    sliced.set_entries(refs, [])
    qtbot.waitUntil(lambda: sliced.visible_labels() == whole.visible_labels(), timeout=10000)


def test_a_restored_explorer_reopens_its_folders_and_selects_the_entry_after_the_slices(
    qtbot, monkeypatch
) -> None:
    """At a start the entries' folders are looked up MAP_CHUNK entries a turn (not in the
    turn that builds the tree), the big folder's rows are made a slice a turn, and then
    the folders the reader had open are open again, the entry shown selected and in view;
    entries stay leaves (Qt's own flags: enabled, selectable, never an arrow)."""
    monkeypatch.setattr(file_explorer, "MAP_CHUNK", 200)
    refs = [*_refs("inbox", 3), *_refs("papers", file_explorer.BIG_FOLDER + 300),
            *_refs("papers/old", 4)]  # fmt: skip
    explorer = FileExplorer()
    qtbot.addWidget(explorer)
    explorer.resize(300, 500)
    explorer.show()
    explorer.restore_view_state({"expanded": ["papers", "papers/old"]})
    mapped = []
    real = file_explorer.FileExplorer._map_next

    def counted(self, steps):
        mapped.append(1)
        real(self, steps)

    monkeypatch.setattr(file_explorer.FileExplorer, "_map_next", counted)
    explorer.set_entries(refs, [])
    assert explorer.files.folder_of is None  # not in this turn
    explorer.follow("papers/Note 1500")
    qtbot.waitUntil(lambda: explorer.current_id() == "papers/Note 1500", timeout=10000)
    assert len(mapped) >= len(refs) // 200  # a slice a turn, not all at once for the reveal
    tree = explorer.tree
    papers, old = explorer.folder_index("papers"), explorer.folder_index("papers/old")
    assert tree.isExpanded(papers) and tree.isExpanded(old)
    assert not tree.isExpanded(explorer.folder_index("inbox"))
    assert explorer.expanded == {"papers", "papers/old"}  # the reader's, unchanged
    rows = tree.selectionModel().selectedRows()
    assert [explorer.node_at(r).key for r in rows] == ["papers/Note 1500"]
    assert tree.viewport().rect().intersects(tree.visualRect(rows[0]))  # brought into view
    entry = explorer.index_of("papers/Note 1500")
    assert not explorer.model.hasChildren(entry) and explorer.model.hasChildren(papers)
    flags = entry.flags()
    assert flags & Qt.ItemFlag.ItemIsSelectable and flags & Qt.ItemFlag.ItemIsEnabled
    assert not flags & Qt.ItemFlag.ItemIsEditable
    labels = explorer.visible_labels()  # the subfolder first, then the entries in order
    assert (
        labels.index("old")
        < labels.index("Note 1")
        < labels.index("Note 2")
        < labels.index("Note 10")
    )


def test_the_slices_grow_with_the_folder_not_their_size(qtbot) -> None:
    """Twice the entries, more slices, not bigger ones: each of the five passes over the
    folder (labels, their duplicates, labels told apart, sort keys, rows) takes at most
    FOLDER_CHUNK entries a slice."""
    chunk = file_explorer.FOLDER_CHUNK
    base = file_explorer.BIG_FOLDER + 1
    small = _slices(qtbot, _explorer(qtbot, _refs("f", base)), "f/Note 1")
    large = _slices(qtbot, _explorer(qtbot, _refs("f", 2 * base)), "f/Note 1")
    assert small >= 5 * -(-base // chunk) and large >= 5 * -(-2 * base // chunk) > small


def test_asking_for_the_views_leaves_the_collector_on(index) -> None:
    """The views' loader holds automatic collections while it asks (their walks of what it
    made froze the window), then freezes what it made and turns the collector on again."""
    from anthology.graph.model import Filters
    from anthology.tasks import TaskState
    from anthology.ui.window.views_loader import load_views

    assert gc.isenabled()
    gc.unfreeze()
    data = load_views(TaskState(), index, None, Filters.from_settings({}), True, None, 1)
    try:
        assert data.graph.n > 0 and data.switcher_items
        assert gc.isenabled() and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def _still_view(qtbot, g: GraphData) -> GraphView:
    view = _view(qtbot)
    view.set_setting("local", False)
    view.set_graph(g, _places(g), "v")
    view.set_local(False)
    view.fit()
    return view


def _nodes_picture(qtbot, view: GraphView):
    """The viewport as painted once the node layer's image is done (and nothing else)."""
    for layer in (view.edges, view.labels, view.marks, view.overlay):
        layer.setVisible(False)
    cache = view.nodes.cache
    view.nodes.update()
    qtbot.waitUntil(lambda: cache.image is not None and not cache.busy, timeout=20_000)
    qtbot.wait(20)
    return view.view.viewport().grab().toImage()


def test_a_big_node_layer_is_drawn_in_slices_and_looks_the_same(qtbot, monkeypatch) -> None:
    """Past PROGRESSIVE_NODES the node layer's image is drawn BAND_NODES nodes a step,
    slices between event-loop turns (100,000 sprites took 20-70 ms in one turn, the global
    graph's first paint): every node is drawn, the picture pixel for pixel one render's."""
    g = _graph(1200)
    whole = _still_view(qtbot, g)
    one = _nodes_picture(qtbot, whole)
    assert whole.nodes.cache.stats["progressive"] == 0  # small: rendered at once
    monkeypatch.setattr(NodeLayer, "PROGRESSIVE_NODES", 100)
    monkeypatch.setattr(NodeLayer, "BAND_NODES", 150)  # eight steps
    steps = []
    real = NodeLayer._render_steps

    def counted(layer, *args):
        for step in real(layer, *args):
            steps.append(1)
            yield step

    monkeypatch.setattr(NodeLayer, "_render_steps", counted)
    banded = _still_view(qtbot, g)
    picture = _nodes_picture(qtbot, banded)
    stats = banded.nodes.cache.stats
    assert stats["progressive"] >= 1 and stats["slices"] >= 1 and len(steps) >= 8
    assert len(banded.shown_ids()) == len(whole.shown_ids()) == g.n
    assert picture.size() == one.size() and picture == one
    assert _colours(picture) > 2  # and it is not blank: the nodes are there
    # a later render of the same graph (new sizes, a layout come to rest) goes at once:
    # the nodes are never blanked while it is drawn
    done = stats["progressive"]
    monkeypatch.setattr(ViewportCache, "ANIMATING_S", 0.0)  # a still picture, not a frame
    banded.nodes.set_sizes(banded.scene.sizes)
    again = banded.view.viewport().grab().toImage()
    assert stats["progressive"] == done and _colours(again) > 2


def _colours(image) -> int:
    """How many colours a grid of the image's pixels shows (1: blank)."""
    return len({image.pixel(x, y) for x in range(0, image.width(), 7)
                for y in range(0, image.height(), 7)})  # fmt: skip
