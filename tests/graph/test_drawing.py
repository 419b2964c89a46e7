"""The graph's drawing without a display: the snapshot both exports paint, the arrowheads
the view and the exports share, and the label grid (tests/ui checks the painted pixels)."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import numpy as np

from anthology.graph.drawing import (
    Drawing,
    arrow_heads,
    claim,
    finite_positions,
    frame,
    label_spots,
    svg,
)

BLUE, RED, GREY = (40, 80, 200, 255), (200, 40, 40, 128), (120, 120, 120, 255)


def measure(text: str) -> float:
    return 6.0 * len(text)  # a monospaced stand-in for the painter's metrics


def triangle(**changes) -> Drawing:
    d = Drawing(
        ids=["A", "B", "C & D"],
        titles=["Alpha", "Beta", "C <and> D"],
        labels=["Alpha", "Beta", "C & D"],
        pos=np.array([[0.0, 0.0], [100.0, 0.0], [50.0, 80.0]]),
        radius=np.array([6.0, 4.0, 4.0]),
        fill=[BLUE, BLUE, RED],
        degree=np.array([2, 1, 1]),
        edges=np.array([[0, 1], [0, 2]]),
        edge_group=np.array([0, 1]),
        edge_colours=[GREY, RED],
        edge_width=1.5,
        arrows=True,
        background=(255, 255, 255, 255),
        text=(0, 0, 0, 255),
        title="my vault",
        rings=[(0, BLUE, 3.0, 12.0, "o"), (1, RED, 2.0, 8.0, "s")],
    )
    for k, v in changes.items():
        setattr(d, k, v)
    return d


def test_the_svg_holds_every_node_edge_group_arrow_mark_and_label() -> None:
    text = svg(triangle(), measure, 13.0, 10.0)
    root = ET.fromstring(text)  # well-formed, escapes included
    ns = {"s": "http://www.w3.org/2000/svg"}
    nodes = root.findall(".//s:circle[@class='node']", ns)
    assert [n.get("data-id") for n in nodes] == ["A", "B", "C & D"]
    assert nodes[2].find("s:title", ns).text == "C <and> D"
    assert nodes[2].get("fill") == "#c82828" and nodes[2].get("fill-opacity") == "0.502"
    edges = root.findall(".//s:path[@class='edges']", ns)
    assert [e.get("stroke") for e in edges] == ["#787878", "#c82828"]  # one path per colour
    assert len(root.findall(".//s:path[@class='arrows']", ns)) == 2
    assert len(root.findall(".//s:rect[@class='mark']", ns)) == 1  # the pin's square
    assert len(root.findall(".//s:circle[@class='mark']", ns)) == 1
    assert [t.text for t in root.findall(".//s:text", ns)] == ["Alpha", "Beta", "C & D"]
    assert root.find("s:title", ns).text == "my vault"
    no_arrows = svg(triangle(arrows=False), measure, 13.0, 10.0)
    assert 'class="arrows"' not in no_arrows


def test_the_frame_puts_every_node_inside_the_picture_y_down() -> None:
    scale, w, h, xy = frame(triangle(), 800)
    assert w == 800 and scale > 0
    assert (xy > 0).all() and (xy[:, 0] < w).all() and (xy[:, 1] < h).all()
    assert xy[2, 1] < xy[0, 1]  # the node highest in the layout is highest in the picture


def test_arrowheads_have_their_tips_on_the_targets_rims() -> None:
    rng = np.random.default_rng(3)
    a = rng.uniform(-100, 100, (50, 2))
    b = rng.uniform(-100, 100, (50, 2))
    rim = rng.uniform(2, 8, 50)
    heads, ok = arrow_heads(a, b, rim, 6.0)
    dist = np.hypot(*(heads[:, 0] - b).T)
    np.testing.assert_allclose(dist, rim)
    length = np.hypot(*(b - a).T)
    assert (ok == (length > rim + 9.0)).all()  # room for the rim and one and a half heads
    side = np.hypot(*(heads[:, 1] - heads[:, 2]).T)
    np.testing.assert_allclose(side, 0.9 * 6.0)


def test_labels_are_placed_hubs_first_and_never_overlap() -> None:
    n = 60
    rng = np.random.default_rng(5)
    d = triangle(
        ids=[str(i) for i in range(n)], titles=[""] * n, labels=[f"note {i}" for i in range(n)],
        pos=rng.uniform(0, 300, (n, 2)), radius=np.full(n, 4.0), fill=[BLUE] * n,
        degree=np.arange(n)[::-1].copy(), edges=np.zeros((0, 2), int),
        edge_group=np.zeros(0, int), rings=[],
    )  # fmt: skip
    _s, _w, _h, xy = frame(d, 600)
    spots = label_spots(xy, d, measure, 13.0, 10.0)
    assert spots[0][0] == 0  # the biggest hub first
    boxes = [(x, y, x + measure(d.labels[j]), y + 13.0) for j, x, y in spots]
    for i, p in enumerate(boxes):
        for q in boxes[i + 1 :]:
            assert not (p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3])
    assert 5 < len(spots) < n


def test_non_finite_positions_land_inside_the_picture() -> None:
    pos = finite_positions(np.array([[0.0, 0.0], [np.nan, 1.0], [2.0, np.inf], [4.0, 2.0]]))
    assert np.isfinite(pos).all()
    np.testing.assert_allclose(pos[1], [2.0, 1.0])


def test_labels_claim_their_place_only_where_no_placed_label_overlaps():
    """The label grid places a label exactly when it overlaps none placed before (checked
    against every pair), whatever cells the boxes straddle."""

    rng = random.Random(7)
    boxes = []
    for _ in range(300):
        x, y, w = rng.uniform(-50, 500), rng.uniform(-50, 400), rng.uniform(10, 160)
        boxes.append((x, y, x + w, y + rng.choice([12.0, 14.0, 40.0])))
    placed: list[tuple[float, float, float, float]] = []
    grid: dict = {}
    for b in boxes:
        free = not any(b[0] < c[2] and c[0] < b[2] and b[1] < c[3] and c[1] < b[3] for c in placed)
        assert claim(grid, 64.0, b) == free
        if free:
            placed.append(b)
    assert 10 < len(placed) < len(boxes)


def test_a_canvas_mark_is_a_diamond_in_the_svg() -> None:
    d = triangle()
    d.rings.append((1, (0, 0, 0, 200), 1.5, 9.0, "d"))
    root = ET.fromstring(svg(d, measure, 13.0, 10.0))
    ns = {"s": "http://www.w3.org/2000/svg"}
    (diamond,) = root.findall(".//s:polygon[@class='mark']", ns)
    assert len(diamond.get("points").split()) == 4
