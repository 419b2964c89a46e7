"""A canvas belongs to the vault (issue 32): indexed as an entry of kind ``canvas`` whose
body is its cards' text (full-text search finds it) and whose links are its file cards and
the ``[[links]]`` of its text cards (a note's backlinks list it, grouped "from canvas
*Name*"; the graph has it as a node linked to its notes); ``check`` reports a card whose
file is missing and what the file gets wrong; ``![[board.canvas]]`` in a note draws it
small. Real files in a real vault, a real SQLite index."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache, render_entry
from canvas_vault import EVERY_FIELD, write_canvas_vault

BOARD = "Boards/Project board.canvas"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_canvas_vault(tmp_path / "vault")


@pytest.fixture
def index(vault: Path, tmp_path: Path):
    with VaultIndex.open(vault, tmp_path / "index.sqlite") as index:
        yield index


def test_a_canvas_is_an_entry_of_its_own_kind(index: VaultIndex) -> None:
    entry = index.entry(BOARD)
    assert entry is not None
    assert (entry.id, entry.title, entry.kind, entry.path) == (
        BOARD, "Project board", "canvas", BOARD)  # fmt: skip
    ref = index.entry_ref(BOARD)
    assert ref is not None and ref.short_label == "Project board"
    assert index.entry("Boards/Empty.canvas") is not None  # an empty board is one too


def test_search_finds_the_text_of_a_card(index: VaultIndex) -> None:
    hits = index.search("zebrafish")
    assert [h.entry.path for h in hits] == [BOARD]
    assert "\x02zebrafish\x03" in hits[0].snippet
    assert [h.entry.path for h in index.search("kind:canvas then")] == [BOARD]  # edge label
    assert BOARD not in [h.entry.path for h in index.search("Unrelated")]


def test_backlinks_of_a_note_list_the_canvas_grouped_as_such(index: VaultIndex) -> None:
    groups, sources = index.backlink_groups("Notes/Project plan")
    assert groups == [("from canvas", 3)] and sources == 1
    links = index.backlinks("Notes/Project plan")
    assert {(link.source.path, link.heading) for link in links} == {
        (BOARD, None), (BOARD, "Risks"), (BOARD, None)}  # fmt: skip
    assert {link.context for link in links} == {
        "[[Notes/Project plan.md]]", "[[Notes/Project plan.md#Risks]]",
        "[[Notes/Project plan.md#^risk1]]"}  # fmt: skip
    # a [[link]] inside a text card, with the card's line around it
    (idea,) = index.backlinks("Notes/Idea 💡")
    assert idea.source.path == BOARD and idea.relation == "from canvas"
    assert idea.context == "Read [[Idea 💡]] first. The **zebrafish** protocol, $e^x$."
    # each on the line of its node in the .canvas file
    text = (index.root / BOARD).read_text(encoding="utf-8").splitlines()
    assert '"text-1"' in text[idea.line - 1]
    # the note's Properties box says which canvas it is on; a canvas is no citation
    from anthology.vault.render import clear_render_cache, render_entry

    clear_render_cache()
    entry = index.entry("Notes/Project plan", cited_by_limit=10)
    assert entry is not None
    page = render_entry(entry, index, vault_root=index.root).html
    assert "On canvas" in page and "Cited as “from canvas”" not in page


def test_a_note_links_to_a_canvas_and_the_graph_has_it(index: VaultIndex) -> None:
    assert {link.source.path for link in index.backlinks(BOARD)} == {"Home.md"}
    graph = index.graph()
    at = graph.ids.index(BOARD)
    assert graph.kinds[at] == "canvas"
    linked = {graph.ids[t] for s, t in graph.edges.tolist() if s == at}
    assert linked == {"Notes/Project plan", "Notes/Idea 💡"}
    assert graph.ids.index("Home") in {s for s, t in graph.edges.tolist() if t == at}


def test_check_reports_a_card_whose_file_is_missing_and_what_the_file_gets_wrong(
    vault: Path, tmp_path: Path
) -> None:
    board = dict(EVERY_FIELD)
    board["nodes"] = [*EVERY_FIELD["nodes"],
                      {"id": "gone", "type": "file", "file": "Notes/Gone.md", "x": 0, "y": 900,
                       "width": 10, "height": 10},
                      {"id": "pic", "type": "file", "file": "Attachments/lost.png", "x": 30,
                       "y": 900, "width": 10, "height": 10},
                      {"id": "evil", "type": "file", "file": "../../etc/passwd", "x": 60,
                       "y": 900, "width": 10, "height": 10}]  # fmt: skip
    (vault / BOARD).write_text(json.dumps(board, indent=1), encoding="utf-8")
    (vault / "Boards" / "Broken.canvas").write_text("{ nope", encoding="utf-8")
    with VaultIndex.open(vault, tmp_path / "index.sqlite") as index:
        mine = {(p.kind, p.message) for p in index.problems() if p.path == BOARD}
        found = [p for p in index.problems() if p.path == BOARD]
        broken = [p for p in index.problems() if p.path == "Boards/Broken.canvas"]
    assert ("unresolved-link", "links to “Notes/Gone.md”, which is not an entry") in mine
    assert ("missing-attachment", "attachment “Attachments/lost.png” not found") in mine
    assert ("canvas", "evil: file card names “../../etc/passwd”, which lies outside the vault; "
            "not read") in mine  # fmt: skip
    lines = (vault / BOARD).read_text(encoding="utf-8").splitlines()
    gone = next(p for p in found if "Gone" in p.message)
    assert gone.line is not None and '"gone"' in lines[gone.line - 1]
    assert [(p.kind, p.severity) for p in broken if p.kind != "orphan"] == [("canvas", "error")]
    assert broken[0].message.startswith("not JSON (line 1, column 3")


def test_an_edit_of_a_canvas_is_indexed_again(vault: Path, tmp_path: Path) -> None:
    with VaultIndex.open(vault, tmp_path / "index.sqlite") as index:
        assert index.search("okapi") == []
        board = json.loads((vault / BOARD).read_text(encoding="utf-8"))
        board["nodes"].append({"id": "new", "type": "text", "text": "An okapi, see [[Unrelated]]",
                               "x": 0, "y": 2000, "width": 100, "height": 100})  # fmt: skip
        (vault / BOARD).write_text(json.dumps(board), encoding="utf-8")
        report = index.refresh()
        assert BOARD in report.changed_ids
        assert [h.entry.path for h in index.search("okapi")] == [BOARD]
        assert [link.source.path for link in index.backlinks("Notes/Unrelated")] == [BOARD]
        (vault / BOARD).unlink()
        index.refresh()
        assert index.entry(BOARD) is None and index.backlinks("Notes/Unrelated") == []


def test_an_embedded_canvas_is_drawn_small_without_its_text(index: VaultIndex) -> None:
    clear_render_cache()
    home = index.entry("Home")
    assert home is not None
    page = render_entry(home, index, vault_root=index.root)
    (key,) = [k for k in page.resources if k.startswith("figure:canvas-")]
    svg = page.resources[key].decode("utf-8")
    # shapes and arrows: 7 cards, 2 groups, 5 edges with 5 arrowheads; no card's text
    assert svg.count("<rect") == 9 and svg.count("<path") == 5 and svg.count("<polygon") == 5
    assert "zebrafish" not in svg and "Kick-off" not in svg and "<text" not in svg
    # in a link that opens it (the pane opens vault: links of a kind in a tab)
    assert re.search(r'<a href="vault:Boards/Project%20board.canvas"><img src="figure:canvas-',
                     page.html)  # fmt: skip
    # and [[Project board.canvas]] is a link to the canvas entry, not to a file
    assert 'href="entry:Boards%2FProject%20board.canvas"' in page.html


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("![[Boards/Nowhere.canvas]]", "Canvas not found: “Boards/Nowhere.canvas”"),
        ("![[../../outside.canvas]]", "lies outside the vault"),
        ("![[Boards/Broken.canvas]]", "not JSON"),
        ("![[Boards/Empty.canvas]]", "(an empty canvas)"),
    ],
)
def test_a_bad_embedded_canvas_is_a_notice(
    vault: Path, tmp_path: Path, body: str, said: str
) -> None:
    (vault / "Boards" / "Broken.canvas").write_text("[]]", encoding="utf-8")
    (vault / "Embeds.md").write_text(f"# Embeds\n\n{body}\n", encoding="utf-8")
    with VaultIndex.open(vault, tmp_path / "index.sqlite") as index:
        clear_render_cache()
        entry = index.entry("Embeds")
        assert entry is not None
        html = render_entry(entry, index, vault_root=index.root).html
    assert said in html
