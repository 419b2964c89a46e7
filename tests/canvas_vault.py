"""Canvas fixtures (issue 32), written from the JSON Canvas 1.0 spec (jsoncanvas.org, MIT):
the spec repository's sample canvas, a canvas using every field and every default, and a
vault of real shape around a board (folders, a name with spaces and an emoji, no ``id`` or
``kind`` properties; 10 of 28 real vaults held canvases: text cards with ``[[links]]``,
file cards naming notes, a heading or a block, groups, labelled and coloured edges)."""

from __future__ import annotations

import json
from pathlib import Path

# github.com/obsidianmd/jsoncanvas sample.canvas (MIT License, Copyright (c) 2024
# Obsidian.md), as published: tabs, one line per node.
SPEC_SAMPLE = """{
\t"nodes":[
\t\t{"id":"754a8ef995f366bc","type":"group","x":-300,"y":-460,"width":610,"height":200,"label":"JSON Canvas"},
\t\t{"id":"8132d4d894c80022","type":"file","file":"readme.md","x":-280,"y":-200,"width":570,"height":560,"color":"6"},
\t\t{"id":"7efdbbe0c4742315","type":"file","file":"_site/logo.svg","x":-280,"y":-440,"width":217,"height":80},
\t\t{"id":"59e896bc8da20699","type":"text","text":"Learn more:\\n\\n- [Apps](/docs/apps.md)\\n- [Spec](spec/1.0.md)\\n- [Github](https://github.com/obsidianmd/jsoncanvas)","x":40,"y":-440,"width":250,"height":160},
\t\t{"id":"0ba565e7f30e0652","type":"file","file":"spec/1.0.md","x":360,"y":-400,"width":400,"height":400}
\t],
\t"edges":[
\t\t{"id":"6fa11ab87f90b8af","fromNode":"7efdbbe0c4742315","fromSide":"right","toNode":"59e896bc8da20699","toSide":"left"}
\t]
}"""  # noqa: E501

# Every field of the spec, and every default left out somewhere.
EVERY_FIELD = {
    "nodes": [
        {"id": "group-1", "type": "group", "x": -500, "y": -400, "width": 1400, "height": 900,
         "label": "Sprint 1", "color": "4", "background": "Attachments/paper.png",
         "backgroundStyle": "repeat"},
        {"id": "group-2", "type": "group", "x": 2000, "y": 0, "width": 300, "height": 200},
        {"id": "text-1", "type": "text", "x": -480, "y": -360, "width": 320, "height": 200,
         "text": "# Kick-off\n\nRead [[Idea 💡]] first. The **zebrafish** protocol, $e^x$.",
         "color": "1"},
        {"id": "text-2", "type": "text", "x": -480, "y": 0, "width": 320, "height": 120,
         "text": "Plain card", "color": "#3a7"},
        {"id": "file-note", "type": "file", "x": 0, "y": -360, "width": 400, "height": 300,
         "file": "Notes/Project plan.md", "color": "2"},
        {"id": "file-heading", "type": "file", "x": 0, "y": 0, "width": 400, "height": 200,
         "file": "Notes/Project plan.md", "subpath": "#Risks", "color": "3"},
        {"id": "file-block", "type": "file", "x": 450, "y": 0, "width": 400, "height": 120,
         "file": "Notes/Project plan.md", "subpath": "#^risk1", "color": "5"},
        {"id": "file-image", "type": "file", "x": 450, "y": -360, "width": 200, "height": 150,
         "file": "Attachments/paper.png", "color": "6"},
        {"id": "link-1", "type": "link", "x": -480, "y": 200, "width": 320, "height": 100,
         "url": "https://www.example.org/docs/page?x=1", "color": "#FF8800"},
    ],
    "edges": [
        {"id": "e-sides", "fromNode": "text-1", "fromSide": "right", "toNode": "file-note",
         "toSide": "left", "label": "then", "color": "1"},
        {"id": "e-default", "fromNode": "text-2", "toNode": "file-heading"},
        {"id": "e-both", "fromNode": "file-heading", "fromSide": "right", "toNode": "file-block",
         "fromEnd": "arrow", "toEnd": "arrow", "color": "#00ff00"},
        {"id": "e-none", "fromNode": "link-1", "toNode": "text-2", "fromEnd": "none",
         "toEnd": "none", "toSide": "bottom"},
        {"id": "e-self", "fromNode": "text-2", "toNode": "text-2", "fromSide": "right"},
    ],
}  # fmt: skip

PLAN = """# Project plan

Intro of the plan.

## Goals

Ship the **reader**.

## Risks

Too many cards. ^risk1

## Later

Not shown under Risks.
"""


def png(width: int = 4, height: int = 4, rgb: tuple[int, int, int] = (236, 228, 206)) -> bytes:
    """A real PNG of one colour (a background, an image card)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))  # fmt: skip


def write_canvas_vault(root: Path) -> Path:
    """A vault of real shape with a board in it; returns the vault folder."""
    files = {
        "Home.md": "# Home\n\nThe board: ![[Boards/Project board.canvas]]\n\n"
        "And a link: [[Project board.canvas]].\n",
        "Notes/Project plan.md": PLAN,
        "Notes/Idea 💡.md": "An idea about zebras.\n",
        "Notes/Unrelated.md": "Nothing to do with boards.\n",
        "Boards/Project board.canvas": json.dumps(EVERY_FIELD, ensure_ascii=False, indent="\t"),
        "Boards/Sample.canvas": SPEC_SAMPLE,
        "Boards/Empty.canvas": "{}",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "Attachments").mkdir(exist_ok=True)
    (root / "Attachments" / "paper.png").write_bytes(png())
    return root


def big_board(cards: int, edges: int, *, seed: int = 7) -> dict:
    """A board of ``cards`` text cards (some in groups, some coloured) and ``edges`` edges,
    shaped as a large real one: a grid of cards of a few lines each."""
    import random

    rng = random.Random(seed)
    nodes: list[dict] = []
    cols = max(1, int(cards**0.5))
    for g in range(cards // 50):
        gx, gy = (g % 4) * cols * 90, (g // 4) * 2000
        nodes.append({"id": f"g{g}", "type": "group", "x": gx - 20, "y": gy - 40,
                      "width": 600, "height": 400, "label": f"Group {g}"})  # fmt: skip
    for i in range(cards):
        node = {"id": f"n{i}", "type": "text", "x": (i % cols) * 360, "y": (i // cols) * 260,
                "width": 300, "height": 200,
                "text": f"## Card {i}\n\nSome *text* of card {i}, with [[Note {i % 20}]] and a "
                        f"list:\n\n- one\n- two\n"}  # fmt: skip
        if i % 7 == 0:
            node["color"] = str(1 + i % 6)
        nodes.append(node)
    out_edges = []
    for k in range(edges):
        a, b = rng.randrange(cards), rng.randrange(cards)
        edge = {"id": f"e{k}", "fromNode": f"n{a}", "toNode": f"n{b}"}
        if k % 5 == 0:
            edge["label"] = f"step {k}"
        if k % 4 == 0:
            edge["color"] = str(1 + k % 6)
        out_edges.append(edge)
    return {"nodes": nodes, "edges": out_edges}
