"""JSON Canvas 1.0 read into a board (vault/canvas/model.py), its geometry
(vault/canvas/geometry.py), and every bad input of issue 32: a clear problem, what can be
drawn kept, nothing outside the vault read."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from anthology.vault.canvas import load_canvas, parse_canvas
from anthology.vault.canvas.geometry import (
    FULL,
    PRESETS,
    SHAPES,
    TITLES,
    Board,
    anchor,
    colour,
    detail,
    edge_shape,
    sides_for,
)
from anthology.vault.canvas.model import MAX_CARD_CHARS, MAX_NODES, Edge, Node
from canvas_vault import EVERY_FIELD, SPEC_SAMPLE, big_board


def _messages(text: str) -> list[str]:
    return [f"{p.where}: {p.message}" for p in parse_canvas(text).problems]


def test_the_spec_sample_reads_whole_and_clean() -> None:
    canvas = parse_canvas(SPEC_SAMPLE)
    assert canvas.problems == []
    assert [n.type for n in canvas.nodes] == ["group", "file", "file", "text", "file"]
    group, readme, logo, text, _spec = canvas.nodes
    assert group.label == "JSON Canvas" and group.background is None
    assert readme.file == "readme.md" and readme.color == "6"
    assert logo.file == "_site/logo.svg" and text.text.startswith("Learn more:\n\n- [Apps]")
    (edge,) = canvas.edges
    assert (edge.from_node, edge.from_side, edge.to_node, edge.to_side) == (
        "7efdbbe0c4742315", "right", "59e896bc8da20699", "left")  # fmt: skip
    assert (edge.from_end, edge.to_end) == ("none", "arrow")  # the spec's defaults
    assert [n.z for n in canvas.nodes] == [0, 1, 2, 3, 4]  # z-order: the file's order


def test_every_field_and_every_default() -> None:
    canvas = parse_canvas(json.dumps(EVERY_FIELD))
    assert canvas.problems == []
    by = canvas.by_id
    group = by["group-1"]
    assert (group.label, group.color, group.background, group.background_style) == (
        "Sprint 1", "4", "Attachments/paper.png", "repeat")  # fmt: skip
    assert by["group-2"].label == "" and by["group-2"].background_style == "cover"  # defaults
    assert by["text-2"].color == "#33aa77"  # #rgb → #rrggbb
    assert by["link-1"].color == "#ff8800" and by["link-1"].url.startswith("https://www.")
    assert by["file-heading"].subpath == "#Risks" and by["file-block"].subpath == "#^risk1"
    assert by["file-note"].subpath is None
    assert (by["text-1"].x, by["text-1"].y, by["text-1"].width, by["text-1"].height) == (
        -480, -360, 320, 200)  # fmt: skip
    edges = {e.id: e for e in canvas.edges}
    assert (edges["e-sides"].label, edges["e-sides"].color) == ("then", "1")
    assert (edges["e-default"].from_side, edges["e-default"].to_side) == (None, None)
    assert (edges["e-both"].from_end, edges["e-both"].to_end) == ("arrow", "arrow")
    assert (edges["e-none"].from_end, edges["e-none"].to_end) == ("none", "none")
    # titles: what a board too small to read shows of each card
    assert by["text-1"].title() == "Kick-off"
    assert by["file-heading"].title() == "Project plan.md#Risks"
    assert by["link-1"].title() == "example.org"
    assert group.title() == "Sprint 1"


@pytest.mark.parametrize("text", ["", "   \n", "{}", '{"nodes": [], "edges": []}'])
def test_an_empty_canvas_is_an_empty_board_without_complaint(text: str) -> None:
    canvas = parse_canvas(text)
    assert canvas.nodes == [] and canvas.edges == [] and canvas.problems == []


# -- bad input: a clear problem each, and what can be drawn is drawn ------------------------
def test_not_json() -> None:
    canvas = parse_canvas('{"nodes": [ {"id": "a", ')
    (problem,) = canvas.problems
    assert problem.severity == "error" and problem.message.startswith("not JSON (line 1, column")
    assert canvas.nodes == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[1, 2]", "the file holds a JSON list, not an object"),
        ('"nodes"', "the file holds a JSON string"),
        ('{"nodes": {"id": "a"}}', "“nodes” is a object, not a list"),
        ('{"nodes": [], "edges": 3}', "“edges” is a number, not a list"),
        ('{"nodes": [7, "x", null]}', "node 1 is a number, not an object"),
        ('{"nodes": [{"type": "text", "x": 0, "y": 0, "width": 1, "height": 1}]}',
         "node 1 has no id"),
        ('{"nodes": [{"id": "a", "type": "text", "x": "0", "y": 0}]}',
         "“x” is missing or not a number"),
        ('{"nodes": [{"id": "a", "type": "sticker", "x": 0, "y": 0, "width": 9, "height": 9}]}',
         'unknown node type "sticker"'),
    ],
)  # fmt: skip
def test_json_of_the_wrong_shape(text: str, said: str) -> None:
    assert any(said in m for m in _messages(text)), _messages(text)


def test_wrong_shapes_inside_keep_the_rest() -> None:
    board = {"nodes": [
        "not a node",
        {"id": "ok", "type": "text", "text": "kept", "x": 0, "y": 0, "width": 100, "height": 50},
        {"id": "odd", "type": "text", "text": 5, "x": 0, "y": 90, "width": -3, "height": "big",
         "color": "vermilion"},
        {"id": "g", "type": "group", "x": 0, "y": 0, "width": 10, "height": 10,
         "backgroundStyle": "tiles"},
        {"id": "f", "type": "file", "file": "a.md", "subpath": "Heading", "x": 0, "y": 0,
         "width": 10, "height": 10},
    ], "edges": [
        {"id": "e1", "fromNode": "ok", "toNode": "odd", "fromSide": "middle", "toEnd": "dot"},
        "nope",
    ]}  # fmt: skip
    canvas = parse_canvas(json.dumps(board))
    assert [n.id for n in canvas.nodes] == ["ok", "odd", "g", "f"]
    odd = canvas.by_id["odd"]
    assert (odd.text, odd.width, odd.height, odd.color) == ("", 250, 60, None)  # defaults
    assert canvas.by_id["g"].background_style == "cover"
    assert canvas.by_id["f"].subpath is None
    (edge,) = canvas.edges
    assert edge.from_side is None and edge.to_end == "arrow"
    text = "\n".join(f"{p.where}: {p.message}" for p in canvas.problems)
    for said in ("the card's text is not text", "“width” is -3", "“height” is 'big'",
                 "colour \"vermilion\"", "backgroundStyle \"tiles\"",
                 "subpath \"Heading\" does not start with “#”", "fromSide \"middle\"",
                 "toEnd \"dot\"", "an edge is a string"):  # fmt: skip
        assert said in text, said


def test_duplicate_node_ids() -> None:
    board = {"nodes": [
        {"id": "a", "type": "text", "text": "first", "x": 0, "y": 0, "width": 10, "height": 10},
        {"id": "a", "type": "text", "text": "second", "x": 50, "y": 0, "width": 10, "height": 10},
        {"id": "b", "type": "text", "text": "b", "x": 100, "y": 0, "width": 10, "height": 10},
    ], "edges": [{"id": "e", "fromNode": "b", "toNode": "a"}]}  # fmt: skip
    canvas = parse_canvas(json.dumps(board))
    assert [n.text for n in canvas.nodes] == ["first", "second", "b"]  # both drawn
    assert canvas.by_id["a"].text == "first"  # arrows go to the first
    assert [(p.where, p.message) for p in canvas.problems] == [
        ("a", "two nodes have the id “a”: both are drawn, arrows go to the first")
    ]
    assert Board(canvas).edges[0].end == anchor(canvas.by_id["a"], "right")


def test_an_edge_to_a_missing_node_is_left_out_and_said() -> None:
    board = {"nodes": [{"id": "a", "type": "text", "x": 0, "y": 0, "width": 10, "height": 10}],
             "edges": [{"id": "e1", "fromNode": "a", "toNode": "ghost"},
                       {"id": "e2", "fromNode": "a"},
                       {"id": "e3", "fromNode": "a", "toNode": "a"}]}  # fmt: skip
    canvas = parse_canvas(json.dumps(board))
    assert [e.id for e in canvas.edges] == ["e3"]
    assert _has(canvas, "e1", "edge to “ghost”, a node the board does not have")
    assert _has(canvas, "e2", "edge without “toNode”")


def _has(canvas, where: str, said: str) -> bool:
    return any(p.where == where and said in p.message for p in canvas.problems)


@pytest.mark.parametrize("value", ["1e300", "-1e300", "NaN", "Infinity", "1" + "0" * 400])
def test_coordinates_off_the_board(value: str) -> None:
    text = ('{"nodes": [{"id": "far", "type": "text", "x": VALUE, "y": 0, "width": 10, '
            '"height": 10}, {"id": "near", "type": "text", "text": "here", "x": 0, "y": 0, '
            '"width": 10, "height": 10}], "edges": [{"id": "e", "fromNode": "near", '
            '"toNode": "far"}]}').replace("VALUE", value)  # fmt: skip
    canvas = parse_canvas(text)
    assert [n.id for n in canvas.nodes] == ["near"]  # what can be drawn is drawn
    assert _has(canvas, "far", "beyond the board")
    assert _has(canvas, "e", "edge to “far”")
    board = Board(canvas)
    assert all(math.isfinite(v) for v in board.bounds())


def test_a_hundred_thousand_nodes_are_cut_to_the_budget() -> None:
    nodes = [{"id": f"n{i}", "type": "text", "text": "x", "x": i, "y": 0, "width": 5, "height": 5}
             for i in range(100_000)]  # fmt: skip
    canvas = parse_canvas(json.dumps({"nodes": nodes}))
    assert len(canvas.nodes) == MAX_NODES
    assert canvas.problems[0].message == (
        f"100,000 nodes: only the first {MAX_NODES:,} are drawn and indexed"
    )


def test_a_group_never_contains_itself() -> None:
    """Groups hold the nodes inside their box: two groups of one box (or one group written
    twice) do not hold each other, and no group is its own member, however nested."""
    board = {"nodes": [
        {"id": "g", "type": "group", "x": 0, "y": 0, "width": 500, "height": 500},
        {"id": "g", "type": "group", "x": 0, "y": 0, "width": 500, "height": 500},
        {"id": "twin", "type": "group", "x": 0, "y": 0, "width": 500, "height": 500},
        {"id": "inner", "type": "group", "x": 10, "y": 10, "width": 200, "height": 200},
        {"id": "card", "type": "text", "x": 20, "y": 20, "width": 50, "height": 50},
        {"id": "out", "type": "text", "x": 900, "y": 0, "width": 50, "height": 50},
    ], "edges": [{"id": "loop", "fromNode": "g", "toNode": "g"}]}  # fmt: skip
    board_ = Board(parse_canvas(json.dumps(board)))
    parent = board_.parent
    assert parent == [-1, 0, 1, 2, 3, -1]
    for i in range(len(parent)):  # no cycle: every chain of groups ends
        seen = set()
        while i != -1:
            assert i not in seen
            seen.add(i)
            i = parent[i]
    assert board_.members(3) == [4] and 0 not in board_.members(0)
    # groups are drawn under their members: larger first, then the cards
    assert board_.order[-2:] == [4, 5] and board_.order.index(3) > board_.order.index(0)
    loop = board_.edges[0]
    assert loop.start != loop.end  # an edge to itself leaves one side, returns by another


@pytest.mark.parametrize(
    "written",
    ["../../etc/passwd", "/etc/passwd", "C:\\Windows\\win.ini", "https://example.org/a.md",
     "file:///etc/passwd", "notes/../../outside.md", "", "\\\\server\\share\\a.md"],
)  # fmt: skip
def test_file_cards_outside_the_vault_are_refused(written: str) -> None:
    board = {"nodes": [{"id": "f", "type": "file", "file": written, "x": 0, "y": 0,
                        "width": 10, "height": 10},
                       {"id": "g", "type": "group", "background": written, "x": 0, "y": 0,
                        "width": 10, "height": 10}]}  # fmt: skip
    canvas = parse_canvas(json.dumps(board))
    card, group = canvas.nodes
    assert card.file is None and card.file_written == written  # drawn, with what was written
    assert group.background is None
    assert _has(canvas, "f", "file card ") and canvas.problems[0].severity == "error"
    if written:
        assert _has(canvas, "g", "background image ")


def test_paths_inside_the_vault_are_kept_normalised() -> None:
    board = {"nodes": [{"id": "f", "type": "file", "file": "Notes\\./a/../Plan.md", "x": 0,
                        "y": 0, "width": 10, "height": 10}]}  # fmt: skip
    assert parse_canvas(json.dumps(board)).nodes[0].file == "Notes/Plan.md"


def test_a_text_card_of_ten_megabytes_is_cut() -> None:
    text = ("A line of a very long card.\n" * 400_000)[: 10 * 1024 * 1024]
    board = {"nodes": [{"id": "huge", "type": "text", "text": text, "x": 0, "y": 0,
                        "width": 400, "height": 400}]}  # fmt: skip
    canvas = parse_canvas(json.dumps(board))
    (node,) = canvas.nodes
    assert len(node.text) <= MAX_CARD_CHARS and node.text_chars == len(text)
    assert node.text.endswith("card.")  # cut at a line's end
    assert _has(canvas, "huge", f"a text card of {len(text):,} characters: only the first")


def test_nothing_outside_the_vault_is_read(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    secret = tmp_path / "secret.canvas"
    secret.write_text(SPEC_SAMPLE, encoding="utf-8")
    os.symlink(secret, vault / "link.canvas")
    canvas = load_canvas(vault.resolve(), "link.canvas")
    assert canvas.nodes == [] and "not read" in canvas.problems[0].message
    os.mkfifo(vault / "fifo.canvas")  # opened without blocking, and refused
    assert "not read" in load_canvas(vault.resolve(), "fifo.canvas").problems[0].message
    assert "gone" in load_canvas(vault.resolve(), "none.canvas").problems[0].message


# -- geometry ------------------------------------------------------------------------------------
def _node(node_id: str, x: float, y: float, w: float = 100, h: float = 50) -> Node:
    return Node(node_id, "text", x, y, w, h, 0)


def test_edges_leave_the_sides_named_else_the_nearest() -> None:
    a, b = _node("a", 0, 0), _node("b", 400, 20)  # b to the right of a
    assert sides_for(a, b, None, None) == ("right", "left")
    below = _node("c", 10, 300)
    assert sides_for(a, below, None, None) == ("bottom", "top")
    assert sides_for(a, b, "top", None) == ("top", "left")  # the other nearest the named one
    assert sides_for(a, b, "bottom", "bottom") == ("bottom", "bottom")
    assert anchor(a, "top") == (50, 0) and anchor(a, "left") == (0, 25)


def test_curves_leave_along_the_sides_and_arrowheads_follow_the_ends() -> None:
    a, b = _node("a", 0, 0), _node("b", 400, 0)
    shape = edge_shape(Edge("e", "a", "b"), a, b)
    assert shape.start == (100, 25) and shape.end == (400, 25)
    assert shape.c1[0] > shape.start[0] and shape.c1[1] == 25  # out of the right side
    assert shape.c2[0] < shape.end[0]  # into the left side
    (head,) = shape.heads  # the default: an arrow at the end only
    tip, left, right = head
    assert tip == shape.end and left[0] < tip[0] and right[0] < tip[0]
    both = edge_shape(Edge("e", "a", "b", from_end="arrow", to_end="arrow"), a, b)
    assert [h[0] for h in both.heads] == [both.end, both.start]
    none = edge_shape(Edge("e", "a", "b", to_end="none"), a, b)
    assert none.heads == ()
    assert shape.middle == shape.point(0.5) and 100 < shape.middle[0] < 400


def test_colours_in_both_themes_and_levels_of_detail() -> None:
    assert colour("1", "light") == PRESETS["light"]["1"] != colour("1", "dark")
    assert colour("#33aa77", "dark") == "#33aa77"
    assert colour(None, "light") != colour(None, "dark")
    assert len({colour(str(k), "light") for k in range(1, 7)}) == 6
    assert [detail(s) for s in (0.05, 0.3, 1.0, 3.0)] == [SHAPES, TITLES, FULL, FULL]


def test_culling_and_hit_testing() -> None:
    board = Board(parse_canvas(json.dumps(big_board(400, 300))))
    x, y, w, h = board.bounds()
    assert len(board.visible_nodes(x, y, w, h)) == len(board.nodes)
    few = board.visible_nodes(0, 0, 700, 500)
    assert 0 < len(few) < 40
    assert board.nodes[board.node_at(10, 10)].id == "n0"  # a card over its group
    assert board.node_at(-10_000, -10_000) == -1
