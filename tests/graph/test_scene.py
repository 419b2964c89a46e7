"""The graph's scene and settings, without a display: what the view is told to draw.

Positions kept over a live reload, pins, the trail, local graphs, sizes per zoom step, the
highlight (hover, path, search), the marks and their colours, labels, the export's Drawing,
and the settings schema (validation, migration, what a vault opens with)."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

import anthology.graph.scene as scene_module
from anthology.graph.model import Filters, per_data
from anthology.graph.paths import Hop, LinkPath
from anthology.graph.scene import (
    POSITION_LIMIT,
    TRAIL_LENGTH,
    GraphScene,
    LabelRank,
    elide,
    rgba,
)
from anthology.graph.scene_prep import prepare_scene
from anthology.graph.settings import (
    DEFAULTS,
    MENTION,
    clean_settings,
    defaults,
    settings_from_store,
)
from anthology.palette import theme
from anthology.vault import GraphData


def star(n: int = 6, relations: list[str | None] | None = None) -> GraphData:
    """E0 a hub linked to E1..E(n-1); E(n-1) also to E(n-2)."""
    edges = [(0, k) for k in range(1, n)] + [(n - 1, n - 2)]
    rels = relations if relations is not None else [None] * len(edges)
    return GraphData(
        ids=[f"E{k}" for k in range(n)],
        titles=[f"Title {k}" for k in range(n)],
        kinds=[""] * n,
        tags=[[] for _ in range(n)],
        edges=edges,
        relations=rels,
        paths=[f"E{k}.md" for k in range(n)],
    )


def grid(g: GraphData) -> dict[str, tuple[float, float]]:
    return {k: (float(10 * j), float(-5 * j)) for j, k in enumerate(g.ids)}


def walk(*ids: str) -> LinkPath:
    """A path along ``ids``; each link as written in the star (from E0, or E5 → E4)."""
    hops = tuple(Hop(a, b, None, a == "E0") for a, b in itertools.pairwise(ids))
    return LinkPath(ids, hops)


def loaded(g: GraphData | None = None, positions=None, **settings) -> GraphScene:
    g = g or star()
    s = GraphScene()
    s.settings.update(settings)
    s.load(g, grid(g) if positions is None else positions, (), keep=False)
    s.rebuild()
    s.restyle(0)
    return s


# ---- loading and positions -------------------------------------------------------------------
def test_a_live_reload_keeps_known_positions_and_settles_only_what_changed() -> None:
    g = star()
    s = loaded(g)
    assert s.rebuild().alpha == 0.0  # every position known, nothing changed: no simulation
    s.set_display_positions(s.dpos + 3.0)  # the simulation moved the nodes
    moved = s.positions()
    # the same vault read again with one more entry: the others stay where they were
    bigger = star(7)
    s.load(bigger, grid(g), (), keep=True)
    start = s.rebuild()
    for k, xy in moved.items():
        assert s.positions()[k] == pytest.approx(xy)
    assert 0.1 <= start.alpha <= 0.3  # a gentle settle, not a fresh layout
    assert np.isfinite(s.dpos).all()  # the new node placed beside its neighbours


def test_a_reload_that_only_moves_nodes_in_the_order_does_not_settle_again() -> None:
    """A note with no links removed (the others' places in the arrays shift): the links
    between the rest are the same, so nothing moves; one of them rewired (as many links,
    another pair) is a change, settled gently."""
    g = GraphData(
        ids=["A", "Alone", "B", "C"], titles=["A", "Alone", "B", "C"], kinds=[""] * 4,
        tags=[[]] * 4, edges=[(0, 2), (2, 3)], relations=[None, None],
        paths=["A.md", "Alone.md", "B.md", "C.md"],
    )  # fmt: skip
    s = loaded(g)
    s.set_display_positions(s.dpos + 2.0)
    before = s.positions()
    fewer = GraphData(
        ids=["A", "B", "C"], titles=["A", "B", "C"], kinds=[""] * 3, tags=[[]] * 3,
        edges=[(1, 2), (0, 1)], relations=[None, None], paths=["A.md", "B.md", "C.md"],
    )  # fmt: skip
    s.load(fewer, None, (), keep=True)
    assert s.rebuild().alpha == 0.0
    assert s.positions() == {k: pytest.approx(v) for k, v in before.items() if k != "Alone"}
    rewired = GraphData(
        ids=["A", "B", "C"], titles=["A", "B", "C"], kinds=[""] * 3, tags=[[]] * 3,
        edges=[(0, 1), (0, 2)], relations=[None, None], paths=["A.md", "B.md", "C.md"],
    )  # fmt: skip
    s.load(rewired, None, (), keep=True)
    assert 0.1 <= s.rebuild().alpha <= 0.3


def test_a_graph_past_the_settle_limit_is_placed_not_moved_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past SETTLE_LIMIT nodes shown (a hub's local graph of 100,000 notes), an edit that
    adds a link, a new note, or a local graph whose nodes all have places does not start a
    layout: every frame of one held the window ~0.1 s there, for seconds. The new note is
    placed beside its neighbours; below the limit the same reload settles gently."""
    monkeypatch.setattr(scene_module, "SETTLE_LIMIT", 5)
    g = star()
    s = loaded(g)
    before = s.positions()
    bigger = star(7)  # one more note, linked to the hub: 7 nodes shown
    s.load(bigger, None, (), keep=True)
    start = s.rebuild()
    assert start.alpha == 0.0
    for k, xy in before.items():
        assert s.positions()[k] == pytest.approx(xy)
    assert np.isfinite(s.dpos).all()  # the new note placed, beside the hub
    s.settings["local"] = True
    s.follow("E0")  # the hub's local graph: all of it, every node placed
    assert s.rebuild().alpha == 0.0
    monkeypatch.setattr(scene_module, "SETTLE_LIMIT", 100)
    s.settings["local"] = False
    s.load(star(8), None, (), keep=True)
    assert 0.1 <= s.rebuild().alpha <= 0.3  # small: settled gently, as before


def test_a_local_graph_of_most_of_the_vault_keeps_its_places_once_cooled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hub's local graph past SETTLE_LIMIT, laid out from nothing (no global layout
    yet), gives its places to its nodes once it cools: they are saved, and the next start
    draws it there without a layout. A small local graph keeps its places to itself."""
    for limit, kept in ((4, True), (100, False)):
        monkeypatch.setattr(scene_module, "SETTLE_LIMIT", limit)
        s = GraphScene()
        s.settings.update(local=True, depth=1)
        s.load(star(), None, (), keep=False)
        s.follow("E0")
        assert s.rebuild().alpha == (1.0 if kept else 0.6)  # no places: laid out (afresh)
        s.set_display_positions(np.arange(12, dtype=float).reshape(6, 2))  # where it cooled
        s.layout_cooled()
        assert bool(s.positions()) is kept
        if kept:
            again = GraphScene()
            again.settings.update(local=True, depth=1)
            again.load(star(), s.positions(), (), keep=False)
            again.follow("E0")
            assert again.rebuild().alpha == 0.0  # the next start: drawn where it was


def test_a_reload_under_a_local_graph_starts_it_where_it_was_shown() -> None:
    """The local graph is laid out apart from the global one; reloaded (an edit that
    adds a link), its nodes stay where they were shown, not at their global places, and
    the new neighbour is placed beside them; the same graph again does not move at all."""
    g = star()
    s = loaded(g, local=True, depth=1)
    s.follow("E5")
    s.rebuild()
    assert set(s.shown_ids()) == {"E0", "E4", "E5"}
    s.set_display_positions(s.dpos * 0.5 + 40.0)  # the local layout moved them
    shown = drawn(s)
    assert all(shown[k] != grid(g)[k] for k in shown)

    more = GraphData(  # E5 now links to E3 too
        ids=g.ids, titles=g.titles, kinds=g.kinds, tags=g.tags, paths=g.paths,
        edges=[*g.edges.tolist(), (5, 3)], relations=[*g.relations, None],
    )  # fmt: skip
    s.load(more, None, (), keep=True)
    start = s.rebuild()
    assert set(s.shown_ids()) == {"E0", "E3", "E4", "E5"}
    for k, xy in shown.items():
        assert drawn(s)[k] == pytest.approx(xy)
    assert np.isfinite(s.dpos).all() and 0.1 <= start.alpha <= 0.3  # settled gently

    s.set_display_positions(s.dpos + 1.0)
    again = drawn(s)
    s.load(more, None, (), keep=True)  # the same graph read again (a title edited)
    assert s.rebuild().alpha == 0.0 and drawn(s) == again

    s.follow("E1")  # another centre: laid out from the global places, as a click does
    s.rebuild()
    assert drawn(s)["E1"] == pytest.approx(grid(g)["E1"])


def drawn(s: GraphScene) -> dict[str, tuple[float, float]]:
    """Where the shown nodes are drawn (the local graph's own places)."""
    return {k: (x, y) for k, (x, y) in zip(s.shown_ids(), s.dpos.tolist(), strict=True)}


def test_a_new_graph_without_positions_is_laid_out_from_scratch_and_bad_positions_skipped() -> None:
    g = star()
    s = GraphScene()
    s.load(g, {"E1": (float("nan"), 0.0), "E2": "garbage", "E3": (1e300, 0.0)}, (), keep=False)
    start = s.rebuild()
    assert np.isfinite(start.positions).all()
    assert tuple(s.gpos[s.index["E3"]]) == (POSITION_LIMIT, 0.0)  # clamped, not dropped
    assert start.alpha == 0.3  # one node known: most of it settles, not from scratch
    fresh = GraphScene()
    fresh.load(g, None, (), keep=False)
    assert fresh.rebuild().alpha == 1.0  # nothing known: a full layout


def test_positions_put_in_the_graphs_order_off_the_gui_thread_load_as_the_mapping_does() -> None:
    """The window's loader hands the saved positions over as an array in the graph's
    order (place_array, on its thread); the scene draws them where the mapping put them,
    a node without one (or one gone from the vault) laid out as before."""
    from anthology.graph.model import place_array

    g = star()
    places = {k: xy for k, xy in grid(g).items() if k != "E3"} | {"Gone": (5.0, 5.0)}
    arr = place_array(g, places)
    assert arr.shape == (g.n, 2) and np.isnan(arr[g.index_of()["E3"]]).all()
    by_map, by_array = GraphScene(), GraphScene()
    by_map.load(g, places, ("E1",), keep=False)
    by_array.load(g, arr, ("E1",), keep=False)
    assert np.array_equal(by_map.gpos, by_array.gpos, equal_nan=True)
    assert by_map.pins == by_array.pins == {"E1": (10.0, -5.0)}
    assert np.array_equal(by_map.rebuild().positions, by_array.rebuild().positions)


def test_pins_hold_their_place_and_reach_the_simulation() -> None:
    g = star()
    s = GraphScene()
    s.load(g, grid(g), ["E3", "nope"], keep=False)
    start = s.rebuild()
    j = s.local_index("E3")
    assert s.pins == {"E3": grid(g)["E3"]}
    assert (j, *grid(g)["E3"]) in start.pins
    assert s.pin("E1", 5e9, -5e9) == s.local_index("E1")
    assert s.pins["E1"] == (POSITION_LIMIT, -POSITION_LIMIT)  # clamped
    assert s.position_of("E1") == (POSITION_LIMIT, -POSITION_LIMIT)
    assert s.unpin("E1") == s.local_index("E1") and "E1" not in s.pins
    assert s.unpin("E1") is None  # not pinned any more
    assert s.pin("nope", 0.0, 0.0) is None


def test_simulation_frames_are_cleaned_and_stale_ones_dropped() -> None:
    s = loaded()
    before = s.dpos.copy()
    bad = before.copy()
    bad[0] = np.nan
    bad[2] = (np.inf, 3.0)
    pos = s.frame(s.generation, bad)
    assert pos is not None and np.isfinite(pos).all()
    assert pos[0] == pytest.approx(before[0])  # the last good position
    assert s.frame(s.generation, np.zeros((2, 2))) is None  # wrong shape
    assert s.frame(s.generation - 1, before + 5) is None  # an older graph's
    s.dragging = 1
    held = s.frame(s.generation, before + 7)
    assert held is not None and held[1] == pytest.approx(before[1])  # under the pointer
    assert held[2] == pytest.approx(before[2] + 7)


# ---- following the reader, local graphs ------------------------------------------------------
def test_the_trail_follows_the_reader_and_is_marked() -> None:
    s = loaded()
    for k in ("E1", "E2", "E1", "E4"):
        s.follow(k)
    assert s.current == "E4"
    assert s.trail == ["E2", "E1", "E4"]
    marked = {s.shown_ids()[m.node]: m for m in s.update_marks()}
    assert set(marked) == {"E1", "E2", "E4"}
    assert marked["E4"].role == "accent" and marked["E1"].role == "trail"
    # the older a visit, the fainter its ring
    assert marked["E2"].alpha is not None and marked["E1"].alpha is not None
    assert marked["E2"].alpha < marked["E1"].alpha
    s.follow("nope")
    assert s.current is None
    g = star(30)
    s = loaded(g)
    for k in g.ids:
        s.follow(k)
    assert len(s.trail) == TRAIL_LENGTH and s.trail[-1] == g.ids[-1]


def test_the_local_graph_follows_the_current_entry_and_a_selection() -> None:
    s = loaded(local=True, depth=1)
    assert s.follow("E1") is True  # a new centre: rebuild
    s.rebuild()
    assert set(s.shown_ids()) == {"E0", "E1"}
    assert s.follow("E1") is False  # the same centre: only the marks change
    s.set_selection(["E2", "E5", "nope", "E2"])
    assert s.selection == ["E2", "E5"]
    s.selection_centres = list(s.selection)
    s.rebuild()
    assert set(s.shown_ids()) == {"E0", "E2", "E4", "E5"}
    assert s.follow("E1") is True  # the reader moves on: the local graph follows again
    assert s.selection_centres == []


# ---- sizes, colours, labels ------------------------------------------------------------------
def test_hubs_are_biggest_and_sizes_follow_the_zoom_in_quantised_steps() -> None:
    s = loaded()
    hub = s.local_index("E0")
    assert s.sizes[hub] == s.sizes.max()
    assert np.all(np.round(s.sizes * 2) == s.sizes * 2)  # half pixels: few sprites
    base = s.sizes.copy()
    assert s.zoom_to(4) is True
    assert s.sizes[hub] > base[hub]
    assert s.zoom_to(4) is False  # the same step: nothing to redo
    far = s.zoom_factor(-40)
    assert far == pytest.approx(0.05**0.5)  # far out nodes shrink to dots, not to nothing
    assert s.zoom_step_of(0.0) == 0 and s.zoom_step_of(float("nan")) == 0
    assert s.zoom_step_of(2.0) == 4  # 2 px per unit: four quarter-octave steps


def test_colour_groups_and_edge_colours_come_from_the_theme() -> None:
    g = star(relations=["see also", "see also", None, None, None, "cites"])
    s = loaded(g, groups=[{"query": "E1", "color": "#123456"}])
    j = s.local_index("E1")
    assert s.node_colours[s.colour_index[j]] == "#123456"
    assert ("E1", "#123456") in s.groups
    colours = s.edge_colours()
    assert colours[0] == rgba(theme("dark").graph.mention)  # the mentions
    assert len(colours) == 3 and all(c[3] == 130 for c in colours[1:])  # two relations
    names = [name for name, _ in s.legend_relations()]
    assert names == ["see also", "cites", MENTION]


def test_labels_are_titles_or_ids_and_long_ones_are_elided() -> None:
    s = loaded()
    assert s.label_texts()[s.local_index("E2")] == "Title 2"
    s.settings["label_by"] = "id"
    assert s.label_texts()[s.local_index("E2")] == "E2"
    assert elide("Short title") == "Short title"
    long = "On Layer Normalization in the Transformer Architecture"
    assert elide(long) == "On Layer Normalization in…" and len(elide(long)) <= 28


def test_labels_come_hubs_first_fade_in_with_zoom_and_a_highlight_goes_before_all() -> None:
    degree = np.array([40, 1, 1, 0, 2, 1] + [1] * 20)
    rank = LabelRank(degree)
    n = len(degree)
    everything = np.ones(n, dtype=bool)
    far = rank.choose(everything, zoom=0.01, threshold=1.3, forced=np.zeros(0, np.int64))
    assert far.nodes.tolist() == [0]  # zoomed far out: only the hub, a landmark
    near = rank.choose(everything, zoom=50.0, threshold=1.3, forced=np.zeros(0, np.int64))
    assert near.nodes[0] == 0 and near.nodes[1] == 4  # then by degree
    assert set(near.nodes.tolist()) == set(range(n)) and near.full.all()
    hover = rank.choose(everything, zoom=0.01, threshold=1.3, forced=np.array([3, 99]))
    assert hover.nodes.tolist()[:2] == [3, 0] and hover.forced[0]  # 99 is not a node
    hidden = everything.copy()
    hidden[0] = False  # off screen
    assert 0 not in rank.choose(hidden, 50.0, 1.3, np.zeros(0, np.int64)).nodes
    assert (rank.alpha(0.5, 1.3) <= rank.alpha(2.0, 1.3)).all()  # more with the zoom


# ---- highlight and marks ---------------------------------------------------------------------
def test_hover_wins_over_a_path_and_a_path_over_the_search() -> None:
    s = loaded()
    s.set_search("title 3")
    h = s.update_highlight()
    assert h.kind == "search" and s.search_matches() == ["E3"]
    path = walk("E1", "E0", "E2")
    assert s.set_path(path) is False  # every node shown
    h = s.update_highlight()
    assert h.kind == "path" and s.highlighted_ids() == {"E0", "E1", "E2"}
    assert sorted(map(sorted, s.highlighted_edges())) == [["E0", "E1"], ["E0", "E2"]]
    assert s.set_hover(s.local_index("E5")) == "E5 — Title 5"
    h = s.update_highlight()
    assert h.kind == "hover" and s.highlighted_ids() == {"E5", "E0", "E4"}
    assert s.highlighted_edges() == []  # while hovering the path's links are not drawn strong
    s.set_hover(-1)
    s.set_path(None)
    s.set_search("")
    assert s.update_highlight().kind == "" and s.highlighted_ids() == set()


def test_a_path_through_hidden_nodes_asks_for_the_global_graph() -> None:
    s = loaded(local=True)
    s.follow("E1")
    s.rebuild()
    assert s.set_path(walk("E1", "E0", "E5")) is True


@pytest.mark.parametrize("name", ["dark", "light"])
def test_every_mark_has_its_own_colour_or_shape_in_both_themes(name: str) -> None:
    s = loaded()
    s.theme = name
    s.follow("E1")
    s.follow("E2")
    s.pin("E3", 1.0, 1.0)
    s.set_search("title 5")
    s.toggle_selected("E4")
    marks = {s.shown_ids()[m.node]: m for m in s.update_marks()}
    current, trail, pin, match, chosen = (marks[k] for k in ("E2", "E1", "E3", "E5", "E4"))
    colours = {s.mark_rgba(m)[:3] for m in (current, pin, match, chosen)}
    assert len(colours) == 4
    assert pin.symbol == "s" and match.symbol == "o"
    assert current.width >= 2 * trail.width
    assert s.legend_marks() == ["current", "trail", "pin", "match"]


# ---- the export's snapshot -------------------------------------------------------------------
def test_the_drawing_is_what_is_shown_with_the_theme_colours() -> None:
    s = loaded(arrows=True, link_width=2.0)
    s.follow("E1")
    s.update_marks()
    d = s.drawing("vault")
    assert d.ids == s.shown_ids() and d.title == "vault"
    assert d.labels[0] == "Title 0" and d.arrows and d.edge_width == 2.0
    assert d.background == rgba(theme("dark").graph.background)
    assert d.degree[s.local_index("E0")] == 5
    assert [r[0] for r in d.rings] == [s.local_index("E1")]
    assert len(d.fill) == len(d.ids) and np.isfinite(d.pos).all()


def test_colours_that_are_not_colours_are_grey() -> None:
    assert rgba("#102030") == (16, 32, 48, 255)
    assert rgba("#10203080") == (16, 32, 48, 128)
    assert rgba("#abc") == (170, 187, 204, 255)
    assert rgba("red") == rgba("#zzzzzz") == (136, 136, 136, 255)


# ---- settings --------------------------------------------------------------------------------
def test_saved_settings_are_cleaned_value_by_value() -> None:
    cleaned = clean_settings(
        {
            "repel": "strong",
            "link_distance": 1e300,
            "depth": 7,
            "arrows": 1,
            "label_by": "id",
            "hidden_kinds": ["a", 3],
            "groups": [{"query": "tag:x", "color": "#fff"}, {"query": 5}, "junk"],
            "unknown": 1,
        }
    )
    assert "repel" not in cleaned and "link_distance" not in cleaned and "depth" not in cleaned
    assert "arrows" not in cleaned and "hidden_kinds" not in cleaned
    assert cleaned["label_by"] == "id"
    assert cleaned["groups"] == [{"query": "tag:x", "color": "#fff"}]
    with pytest.raises(TypeError):
        clean_settings(["not", "a", "mapping"])


def test_a_vault_opens_with_its_settings_migrated_or_else_the_local_graph() -> None:
    palette = ["#111111", "#222222"]
    first = settings_from_store(None, palette, first_open=True)
    assert first["local"] is True  # a vault's first graph is the current entry's neighbourhood
    assert settings_from_store(None, palette, first_open=False)["local"] is False
    old = settings_from_store(
        {"group_query": "tag:a; folder:B", "color_by": "query", "depth": 2}, palette, True
    )
    assert old["groups"] == [
        {"query": "tag:a", "color": "#111111"},
        {"query": "folder:B", "color": "#222222"},
    ]
    assert old["color_by"] == "auto" and old["depth"] == 2 and old["local"] is False
    assert defaults() == DEFAULTS and defaults() is not DEFAULTS
    assert Filters.from_settings({}) == Filters.from_settings(DEFAULTS)


def test_a_canvas_is_drawn_with_a_shape_of_its_own() -> None:
    """A canvas (an entry of kind ``canvas``, issue 32) has a diamond around its node, in the
    legend too, and in the exported picture; a graph without canvases has none."""
    g = star()
    g.kinds[3] = "canvas"
    g.paths[3] = "Boards/E3.canvas"
    s = loaded(g)
    diamonds = [m for m in s.update_marks() if m.symbol == "d"]
    assert [s.shown_ids()[m.node] for m in diamonds] == ["E3"]
    assert s.legend_marks() == ["canvas"]
    s.follow("E3")  # the current entry's ring still goes round it, over the diamond
    s.update_marks()
    assert [m.symbol for m in s.marks_of("E3")] == ["d", "o"]
    rings = s.drawing("vault").rings
    assert [r[4] for r in rings] == ["d", "o"]
    plain = loaded()
    assert [m for m in plain.update_marks() if m.symbol == "d"] == []
    assert "canvas" not in plain.legend_marks()


def test_what_the_views_loader_prepares_is_what_the_scene_would_make() -> None:
    """prepare_scene (the views' loader, issue 35) makes the shown entry's local graph,
    its labels and the relations' codes beforehand; the scene's load and rebuild find
    them made (the same objects) and show what it would have made itself."""
    rels = ["cites", None, "cites", "\u202eevil", None, None]
    fresh = loaded(star(relations=rels), local=True)
    fresh.follow("E5")
    fresh.rebuild()
    fresh.restyle(0)

    g = dataclasses.replace(star(relations=rels), clean=True)  # the index's: used as it is
    prepare_scene(g, Filters.from_settings({}), local=True, centre="E5", depth=1)
    made = per_data(g, "local", (Filters.from_settings({}).key(), (5,), 1), lambda: None)
    assert made is not None
    s = GraphScene()
    s.settings.update(local=True)
    s.load(g, grid(g), (), keep=False)
    s.follow("E5")
    s.rebuild()
    s.restyle(0)
    assert s.shown_graph is made  # found, not made again
    assert s.shown_ids() == fresh.shown_ids() == ["E0", "E4", "E5"]
    assert s.label_texts() == fresh.label_texts()
    assert s.relation_names == fresh.relation_names == ["cites", "\u202eevil"]
    drawn = s.relations().tolist()
    assert drawn == fresh.relations().tolist() and "evil" in drawn
    assert not any("\u202e" in (r or "") for r in drawn)  # drawn as plain text
    assert s.edge_group.tolist() == fresh.edge_group.tolist()
    assert s.kinds() == fresh.kinds()


@pytest.mark.parametrize("local_at_start", [False, True])
def test_the_global_graphs_labels_are_made_by_the_views_loader_and_read_as_made(
    local_at_start: bool,
) -> None:
    """Whether the global or the local graph is shown at start, prepare_scene makes the
    global graph and its labels (every node's title, the folder added where two are equal:
    85 + 58 ms of the GUI thread at 100,000 entries, at start or on the switch); the scene
    takes them instead of making them, and they read the same."""
    g = dataclasses.replace(star(), titles=["Same", "Same", "B", "C", "D", "E"], clean=True)
    fresh = loaded(dataclasses.replace(g), local=False)
    filters = Filters.from_settings({})
    prepare_scene(g, filters, local=local_at_start, centre="E5")
    made = per_data(g, "global-titles", 0, lambda: None)
    assert made is not None and len(made[1]) == g.n
    s = GraphScene()
    s.settings.update(local=False)
    s.load(g, grid(g), (), keep=False)
    s.rebuild()
    s.restyle(0)
    assert s.shown_graph is made[0]  # the global graph the loader made
    labels = s.label_texts()
    assert labels == fresh.label_texts() and labels == list(made[1])
    assert labels[0] != labels[1] and labels[0].startswith("Same")  # told apart
    assert per_data(g, "global-titles", 0, lambda: None) is None  # taken, not kept twice
