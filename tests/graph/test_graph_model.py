"""The graph's model without a display: filters, groups, matching, titles, neighbourhoods,
paths and data export. Nothing here imports Qt (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from anthology.graph import (
    Filters,
    Group,
    PathFinder,
    colour_nodes,
    display_titles,
    format_path,
    match_nodes,
    neighbourhood,
    node_titles,
    shown_graph,
    visible,
)
from anthology.graph.export import write_graphml, write_node_link_json
from anthology.graph.model import stable_order
from anthology.graph.paths import no_path_text
from anthology.graph.settings import migrate_settings
from anthology.layout.placement import place_missing
from anthology.vault import GraphData, VaultIndex

ROOT = Path(__file__).resolve().parents[2]
PALETTE = ["#111111", "#222222", "#333333", "#444444", "#555555"]


def test_the_graph_model_imports_no_qt() -> None:
    code = (
        "import sys\n"
        "import anthology.graph, anthology.graph.paths, anthology.graph.groups, "
        "anthology.graph.export, anthology.graph.scene, anthology.graph.settings, "
        "anthology.layout.placement, anthology.vault.query\n"
        "print(sorted(m for m in ('PySide6', 'pyqtgraph', 'shiboken6') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": ""},
    )  # fmt: skip
    assert out.stdout.strip() == "[]"
    assert "PySide6" not in out.stdout


def vault_like(**kw) -> GraphData:
    """Shaped like an Obsidian vault: folders, no kind, equal titles in two folders."""
    paths = [
        "Guides/Introduction.md",
        "Reference/Introduction.md",
        "Guides/Linking notes.md",
        "Daily/2024-01-01.md",
        "Daily/2024-01-02.md",
        "Top note.md",
        "",  # a ghost
    ]
    ids = [p[:-3] for p in paths[:-1]] + ["?Missing"]
    titles = ["Introduction", "Introduction", "Linking notes", "2024-01-01", "2024-01-02",
              "Top note", "Missing"]  # fmt: skip
    tags = [["ml/vision"], ["ml"], ["nlp"], ["daily"], ["daily"], [], []]
    props = [{"author": "Ada"}, {"author": ["Ada", "Bob"]}, {"status": "draft"}, {}, {},
             {"published": True}, {}]  # fmt: skip
    edges = [(0, 2), (1, 2), (3, 0), (4, 3), (2, 6)]
    rels = ["see also", None, None, "previous", None]
    ghost = [False] * 6 + [True]
    base = dict(ids=ids, titles=titles, kinds=[""] * 7, tags=tags, edges=edges, relations=rels,
                ghost=np.array(ghost), paths=paths, properties=props)  # fmt: skip
    base.update(kw)
    return GraphData(**base)


# filters ---------------------------------------------------------------------------------
def test_filters_hide_ghosts_kinds_tags_relations_and_orphans() -> None:
    g = vault_like()
    keep, emask = visible(g, Filters())
    assert not keep[6] and emask.tolist() == [True, True, True, True, False]
    keep, _ = visible(g, Filters(ghosts=True))
    assert keep.all()
    keep, _ = visible(g, Filters(tags=("ml",)))  # nested: ml keeps ml/vision
    assert np.flatnonzero(keep).tolist() == [0, 1]
    _, emask = visible(g, Filters(hidden_relations=frozenset({"mention"})))
    assert emask.tolist() == [True, False, False, True, False]
    keep, _ = visible(g, Filters(orphans=False))
    assert not keep[5] and keep[:5].all()  # "Top note" links nowhere
    g2 = vault_like(kinds=["note", "note", "practice", "", "", "", "unresolved"])
    keep, _ = visible(g2, Filters(hidden_kinds=frozenset({"note"})))
    assert np.flatnonzero(keep).tolist() == [2, 3, 4, 5]
    f = Filters.from_settings({"tags": "ml, #daily", "orphans": False, "ghosts": True})
    assert f.tags == ("ml", "daily") and not f.orphans and f.ghosts


def test_shown_graph_keeps_its_edges_in_shown_indices() -> None:
    g = vault_like()
    sg = shown_graph(g, Filters(), centres=[g.ids.index("Daily/2024-01-02")], depth=1)
    shown = [g.ids[i] for i in sg.nodes]
    assert shown == ["Daily/2024-01-01", "Daily/2024-01-02"]
    assert sg.edges.tolist() == [[1, 0]] and sg.edge_ids.tolist() == [3]


def test_shown_graph_follows_the_filters_as_they_change_and_change_back() -> None:
    """What the filters keep is worked out once per graph and filters: changing them
    (and back) shows what a fresh graph would, each time, for local and whole graphs."""
    g = vault_like()
    centre = [g.ids.index("Daily/2024-01-02")]
    sequence = [Filters(), Filters(ghosts=True), Filters(tags=("ml",)),
                Filters(hidden_relations=frozenset({"mention"})), Filters(orphans=False),
                Filters(), Filters(ghosts=True)]  # fmt: skip
    for filters in sequence:
        fresh = GraphData(**{k: getattr(g, k) for k in g.__dataclass_fields__})
        for centres in (None, centre):
            got = shown_graph(g, filters, centres, depth=2)
            want = shown_graph(fresh, filters, centres, depth=2)
            assert got.nodes.tolist() == want.nodes.tolist()
            assert got.edges.tolist() == want.edges.tolist()
            assert got.edge_ids.tolist() == want.edge_ids.tolist()


def test_shown_graphs_are_found_again_until_the_graph_or_the_question_changes() -> None:
    """A local graph asked again (back to a hub) is the one made before; other filters,
    centres or depth, or a reloaded graph, make a new one equal to a fresh computation."""
    from anthology.graph import ShownGraphs

    g = vault_like()
    cache = ShownGraphs(size=2)
    a = cache.get(g, Filters(), [0], 1)
    assert cache.get(g, Filters(), [0], 1) is a
    assert cache.derived(a, "labels", "title", lambda: ["made"]) == ["made"]
    assert cache.derived(a, "labels", "title", lambda: ["again"]) == ["made"]  # kept
    b = cache.get(g, Filters(ghosts=True), [0], 1)
    assert (
        b is not a and b.nodes.tolist() == shown_graph(g, Filters(ghosts=True), [0]).nodes.tolist()
    )
    c = cache.get(g, Filters(), [0], 2)  # a third question: the oldest (a) is dropped
    assert c is not a and cache.get(g, Filters(), [0], 1) is not a
    assert cache.derived(a, "labels", "title", lambda: ["fresh"]) == ["fresh"]
    reloaded = GraphData(**{k: getattr(g, k) for k in g.__dataclass_fields__})
    d = cache.get(reloaded, Filters(), [0], 2)
    assert d is not c and d.edges.tolist() == c.edges.tolist()


# neighbourhoods ----------------------------------------------------------------------------
def test_neighbourhood_of_several_nodes_is_the_union_of_their_ego_graphs() -> None:
    rng = np.random.default_rng(3)
    edges = rng.integers(0, 120, size=(200, 2))
    edges = edges[edges[:, 0] != edges[:, 1]]
    g = nx.Graph()
    g.add_nodes_from(range(120))
    g.add_edges_from(edges.tolist())
    for centres in ([5], [5, 17], [1, 2, 99]):
        for depth in (1, 2):
            want = set().union(*(nx.ego_graph(g, c, radius=depth).nodes for c in centres))
            assert set(neighbourhood(120, edges, centres, depth).tolist()) == want


# matching = search -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> VaultIndex:
    root = tmp_path_factory.mktemp("vault")
    files = {
        "Guides/Intro ✨.md": "---\ntags: [ml/vision]\nauthor: Ada\n---\n# Intro ✨\n[[Linking]]",
        "Reference/Intro ✨.md": "---\ntags: [ml]\nauthor: [Ada, Bob]\n---\nSee [[Linking]].",
        "Guides/Linking.md": "---\ntags: [mlops]\nstatus: draft\n---\nText.",
        "Daily/2024.01.01.md": "#daily note, links [[Nowhere]]",
        "v1.2 notes.md": "---\npublished: true\n---\nplain",
    }
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    index = VaultIndex.open(root, tmp_path_factory.mktemp("db") / "index.db")
    yield index
    index.close()


@pytest.mark.parametrize(
    "query",
    ["tag:ml", "tag:ml/vision", "-tag:ml", "tag:#daily", "folder:Guides", "path:Intro",
     "[author:Ada]", "[author:bob]", "[status]", "[published:true]", "kind:note",
     "-folder:Guides tag:ml"],
)  # fmt: skip
def test_node_matching_agrees_with_search(indexed: VaultIndex, query: str) -> None:
    data = indexed.graph(ghosts=True)
    searched = {hit.entry.id for hit in indexed.search(query, limit=100)}
    matched = {data.ids[i] for i in match_nodes(data, query)} - {
        data.ids[i] for i in np.flatnonzero(data.ghost)
    }
    assert matched == searched
    if query == "tag:ml":  # nested tags: ml matches ml/vision, not mlops
        assert matched == {"Guides/Intro ✨", "Reference/Intro ✨"}


def test_free_words_match_ids_titles_and_paths() -> None:
    g = vault_like()
    assert [g.ids[i] for i in match_nodes(g, "introduction")] == g.ids[:2]
    assert [g.ids[i] for i in match_nodes(g, "introduction -reference")] == g.ids[:1]
    assert match_nodes(g, "").tolist() == []
    nodes = np.array([1, 2, 3])
    assert match_nodes(g, "tag:nlp", nodes).tolist() == [1]  # positions within `nodes`


def test_word_groups_fold_each_node_once_per_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: 20 word groups over 100,000 nodes took 5.9 s at each colouring, each node's
    id, title and path joined and folded once per group. They are folded once per graph:
    the work of 20 groups is that of one, and the answers are :func:`matches`' node by node."""
    from anthology.graph import model
    from anthology.vault.query import fold, matches, parse_query

    g = vault_like()
    queries = ["introduction", "intro -reference", "tag:nlp intro", "-tag:nlp", "zzz", "guides"]
    expected = {
        q: [i for i in range(g.n) if matches(parse_query(q), model.node_record(g, i))]
        for q in queries
    }
    folded: list[str] = []

    def counted(rec: dict) -> str:
        folded.append(rec["id"])
        return fold(" ".join(str(rec.get(k) or "") for k in ("id", "title", "path")))

    monkeypatch.setattr(model, "haystack", counted, raising=False)
    for _ in range(20):
        for q in queries:
            assert match_nodes(g, q).tolist() == expected[q]
    assert sorted(folded) == sorted(g.ids)  # each node once, whatever the groups


# groups ------------------------------------------------------------------------------------
def test_a_vault_without_kinds_is_coloured_by_top_folder() -> None:
    g = vault_like()
    sg = shown_graph(g, Filters(ghosts=True))
    c = colour_nodes(g, sg, "auto", [], PALETTE)
    assert c.mode == "folder"
    assert c.names[:2] == ["Guides", "Daily"]  # by size, then first seen
    by_id = dict(zip(g.ids, c.index.tolist(), strict=True))
    guides = by_id["Guides/Introduction"]
    assert guides == by_id["Guides/Linking notes"] != by_id["Daily/2024-01-01"]
    assert by_id["?Missing"] == 1  # ghosts keep the ghost colour
    kinds = vault_like(kinds=["note", "note", "practice", "", "", "", "unresolved"])
    assert colour_nodes(kinds, sg, "auto", [], PALETTE).mode == "kind"


def test_groups_first_match_wins_over_the_base_colouring() -> None:
    g = vault_like()
    sg = shown_graph(g, Filters())
    groups = [Group("tag:ml", "#ff0000"), Group("folder:Guides", "#00ff00"),
              Group("[author:Bob]", "#0000ff")]  # fmt: skip
    c = colour_nodes(g, sg, "folder", groups, PALETTE)
    base = len(c.names) - 3
    shown_ids = [g.ids[i] for i in sg.nodes]  # the ghost is filtered out
    by_id = dict(zip(shown_ids, c.index.tolist(), strict=True))
    assert by_id["Guides/Introduction"] == 2 + base  # tag:ml (ml/vision) before folder:
    assert by_id["Reference/Introduction"] == 2 + base  # tag:ml before [author:Bob]
    assert by_id["Guides/Linking notes"] == 2 + base + 1
    assert c.colours[-3:] == ["#ff0000", "#00ff00", "#0000ff"]
    # reordered, the folder wins
    c = colour_nodes(g, sg, "folder", [groups[1], groups[0]], PALETTE)
    by_id = dict(zip(shown_ids, c.index.tolist(), strict=True))
    assert by_id["Guides/Introduction"] == 2 + base


def test_louvain_communities_colour_two_cliques_apart_and_stay_put() -> None:
    n = 12
    edges = [(a, b) for a in range(6) for b in range(a + 1, 6)]
    edges += [(a, b) for a in range(6, 12) for b in range(a + 1, 12)] + [(0, 6)]
    g = GraphData([f"N{i}" for i in range(n)], [f"N{i}" for i in range(n)], [""] * n,
                  [[]] * n, edges, [None] * len(edges))  # fmt: skip
    sg = shown_graph(g, Filters())
    c1 = colour_nodes(g, sg, "community", [], PALETTE)
    c2 = colour_nodes(g, sg, "community", [], PALETTE)
    assert c1.index.tolist() == c2.index.tolist()
    assert len(set(c1.index[:6].tolist())) == 1 and len(set(c1.index[6:].tolist())) == 1
    assert c1.index[0] != c1.index[6] and set(c1.index.tolist()) == {2, 3}
    assert c1.names == ["Community 1 (6)", "Community 2 (6)"]


def test_saved_group_queries_become_ordered_groups() -> None:
    old = {"color_by": "query", "group_query": "tag:ml; folder:Daily", "depth": 2}
    new = migrate_settings(old, PALETTE)
    assert new["groups"] == [{"query": "tag:ml", "color": PALETTE[0]},
                             {"query": "folder:Daily", "color": PALETTE[1]}]  # fmt: skip
    assert new["color_by"] == "auto" and new["group_query"] == "" and new["depth"] == 2
    assert migrate_settings({"groups": [], "color_by": "kind"}, PALETTE)["color_by"] == "kind"


# labels ------------------------------------------------------------------------------------
def test_display_titles_are_full_and_tell_equal_titles_apart_by_folder() -> None:
    long = "On Layer Normalization in the Transformer Architecture"
    titles = ["Introduction", "Introduction", long, "Plan", "Plan"]
    paths = ["Guides/Introduction.md", "Reference/Introduction.md", "Papers/x.md",
             "a/alpha/Plan.md", "b/alpha/Plan.md"]  # fmt: skip
    assert display_titles(titles, paths) == [
        "Introduction (Guides)", "Introduction (Reference)", long,
        "Plan (a/alpha)", "Plan (b/alpha)",
    ]  # fmt: skip
    assert display_titles(["Same", "Same"], ["Same.md", "x/Same.md"]) == ["Same (/)", "Same (x)"]


def test_node_titles_tell_apart_only_the_shown_nodes_that_share_a_title() -> None:
    g = vault_like()
    assert node_titles(g, range(g.n)) == display_titles(g.titles, g.paths)
    assert node_titles(g, [0, 2]) == ["Introduction", "Linking notes"]  # its twin not shown
    assert node_titles(g, [1, 0]) == ["Introduction (Reference)", "Introduction (Guides)"]
    assert node_titles(g, []) == []


# paths -------------------------------------------------------------------------------------
def path_graph() -> GraphData:
    """SOTA-050 → LIT-008 ("introduced by"), NOTE-011 → LIT-008 ("paper"), a body-link
    shortcut SOTA-050 → NOTE-011, a longer typed detour, and an island."""
    ids = ["SOTA-050", "LIT-008", "NOTE-011", "PRAC-001", "LIT-020", "ISLE-1", "ISLE-2"]
    edges = [(0, 1), (2, 1), (0, 2), (0, 3), (3, 4), (4, 2), (5, 6)]
    rels = ["introduced by", "paper", None, "applies", "based on", "cites", "see"]
    return GraphData(ids, ids, ["note"] * 7, [[]] * 7, edges, rels)


def test_shortest_path_reads_as_a_chain_with_relations_and_directions() -> None:
    pf = PathFinder(path_graph())
    [p] = pf.paths("SOTA-050", "NOTE-011")
    assert p.nodes == ("SOTA-050", "NOTE-011")  # the body link is the shortest
    assert format_path(p) == "SOTA-050 —links to→ NOTE-011"
    [p] = pf.paths("SOTA-050", "NOTE-011", typed_only=True)
    assert format_path(p) == "SOTA-050 —introduced by→ LIT-008 ←paper— NOTE-011"
    assert p.edges() == [("SOTA-050", "LIT-008"), ("NOTE-011", "LIT-008")]
    [back] = pf.paths("NOTE-011", "SOTA-050", typed_only=True)
    assert format_path(back) == "NOTE-011 —paper→ LIT-008 ←introduced by— SOTA-050"


def test_k_shortest_paths_come_shortest_first_and_no_path_is_said() -> None:
    pf = PathFinder(path_graph())
    paths = pf.paths("SOTA-050", "NOTE-011", k=5)
    assert [len(p) for p in paths] == [1, 2, 3]
    assert paths[2].nodes == ("SOTA-050", "PRAC-001", "LIT-020", "NOTE-011")
    typed = pf.paths("SOTA-050", "NOTE-011", k=5, typed_only=True)
    assert [p.nodes for p in typed] == [
        ("SOTA-050", "LIT-008", "NOTE-011"),
        ("SOTA-050", "PRAC-001", "LIT-020", "NOTE-011"),
    ]
    assert len(pf.paths("SOTA-050", "NOTE-011", k=99)) == 3  # k is at most 5
    assert pf.paths("SOTA-050", "ISLE-1") == []
    assert pf.paths("SOTA-050", "nothing such") == []
    assert no_path_text("SOTA-050", "ISLE-1", True) == (
        "No path between “SOTA-050” and “ISLE-1” through typed relations."
    )


def test_paths_do_not_pass_through_unresolved_targets() -> None:
    g = vault_like()
    pf = PathFinder(g)
    assert pf.paths("Guides/Linking notes", "?Missing") == []
    [p] = pf.paths("Daily/2024-01-02", "Reference/Introduction")
    assert len(p) == 4


# export and placement ----------------------------------------------------------------------
def test_graphml_and_json_hold_what_the_filters_leave(tmp_path: Path) -> None:
    g = vault_like()
    sg = shown_graph(g, Filters(tags=("ml", "nlp")))
    assert write_graphml(g, sg, tmp_path / "g.graphml") == 3
    back = nx.read_graphml(tmp_path / "g.graphml")
    assert set(back.nodes) == {"Guides/Introduction", "Reference/Introduction",
                               "Guides/Linking notes"}  # fmt: skip
    assert back.edges["Guides/Introduction", "Guides/Linking notes"]["relation"] == "see also"
    assert back.edges["Reference/Introduction", "Guides/Linking notes"]["relation"] == "mention"
    assert write_node_link_json(g, sg, tmp_path / "g.json") == 3
    doc = json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))
    assert len(doc["nodes"]) == 3 and len(doc["links"]) == 2
    assert nx.node_link_graph(doc, edges="links").number_of_edges() == 2


def test_one_initial_placement_beside_neighbours_else_on_the_spiral() -> None:
    pos = np.array([[0.0, 0.0], [np.nan, np.nan], [np.nan, np.nan]])
    out = place_missing(pos, np.array([[0, 1]]), 30.0, rng=np.random.default_rng(1))
    assert 15.0 <= np.hypot(*out[1]) <= 30.0  # beside its neighbour
    assert np.isfinite(out).all() and np.array_equal(out[0], [0.0, 0.0])
    again = place_missing(pos, np.array([[0, 1]]), 30.0, rng=np.random.default_rng(1))
    assert np.array_equal(out, again)


def test_same_graph_sees_what_the_view_draws_and_nothing_else() -> None:
    """An edit of a note's text leaves the graph equal (the window then does not give it to
    the view again); a title, tag, path, property, link or ghost makes it differ."""
    import dataclasses

    import numpy as np

    from anthology.graph.model import same_graph
    from anthology.vault.graph_data import GraphData

    def graph(**changes) -> GraphData:
        base = dict(ids=["a", "b"], titles=["A", "B"], kinds=["", ""], tags=[[], ["t"]],
                    edges=np.array([[0, 1]]), relations=[None], paths=["a.md", "b.md"],
                    properties=[{}, {"k": 1}])  # fmt: skip
        return GraphData(**(base | changes))

    assert same_graph(graph(), graph())
    assert same_graph(None, None) and not same_graph(graph(), None)
    for change in (dict(titles=["A", "C"]), dict(tags=[[], []]), dict(paths=["a.md", "x/b.md"]),
                   dict(properties=[{}, {"k": 2}]), dict(edges=np.array([[1, 0]])),
                   dict(relations=["source"]), dict(kinds=["note", ""])):  # fmt: skip
        assert not same_graph(graph(), graph(**change)), change
    ghost = dataclasses.replace(graph(), ghost=np.array([False, True]))
    assert not same_graph(graph(), ghost)


@pytest.mark.parametrize("n", [1, 7, 65_536, 65_537, 100_000, 2**33])
def test_the_adjacencys_radix_order_is_numpys_stable_order(n: int) -> None:
    """The local graph's adjacency sorts the edges' ends by node in 16-bit radix passes:
    the same order as numpy's stable sort, ties kept in edge order, at every key width."""
    keys = np.random.default_rng(n % 1000).integers(0, n, 5_000)
    assert (stable_order(keys, n) == np.argsort(keys, kind="stable")).all()
