"""What a refresh changed, as the panels are told it: made from real refreshes of a real
index, edits, new notes, deletions, a moved note and a note whose id changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anthology.graph.model import same_graph
from anthology.session import Changes
from anthology.vault import VaultIndex


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    # a later write in the same clock tick must still look changed to the refresh
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def notes(tmp_path: Path) -> tuple[Path, VaultIndex]:
    root = tmp_path / "vault"
    write(root, "Home.md", "# Home\n\nSee [[Alpha]] and [[Beta]].\n")
    write(root, "Alpha.md", "# Alpha\n\nAbout [[Beta]].\n")
    write(root, "Beta.md", "# Beta\n\nPlain words.\n")
    write(root, "Named.md", "---\nid: NAMED-1\n---\n# Named\n\nBy its id.\n")
    (tmp_path / "cache").mkdir()
    index = VaultIndex.open(root, tmp_path / "cache" / "index.sqlite")
    yield root, index
    index.close()


def test_an_edit_is_a_change_of_that_note_only(notes) -> None:
    root, index = notes
    write(root, "Beta.md", "# Beta\n\nPlain words, edited.\n")
    changes = Changes.from_report(index.refresh())
    assert changes == Changes(changed=frozenset({"Beta"}))
    assert changes.touches("Beta") and not changes.touches("Alpha")
    assert not changes.ids_changed  # no list of entries needs making again


def test_a_new_note_and_a_deleted_one(notes) -> None:
    root, index = notes
    write(root, "Gamma.md", "# Gamma\n")
    (root / "Alpha.md").unlink()
    changes = Changes.from_report(index.refresh())
    assert changes.added == {"Gamma"} and changes.removed == {"Alpha"}
    assert changes.changed == frozenset() and changes.ids_changed
    assert changes.touches("Alpha") and not changes.touches("Gamma")  # nothing shows it yet
    assert changes.stale(["Alpha", "Beta", None]) == ["Alpha"]


def test_a_note_moved_under_the_same_id_is_changed_not_removed(notes) -> None:
    root, index = notes
    (root / "sub").mkdir()
    (root / "Named.md").rename(root / "sub" / "Named.md")
    changes = Changes.from_report(index.refresh())
    assert "NAMED-1" in changes.changed and "NAMED-1" not in changes.removed
    assert index.entry_ref("NAMED-1").path == "sub/Named.md"


def test_a_note_whose_id_changed_is_renamed(notes) -> None:
    root, index = notes
    write(root, "Named.md", "---\nid: NAMED-2\n---\n# Named\n\nBy its new id.\n")
    changes = Changes.from_report(index.refresh())
    assert changes.renamed == (("NAMED-1", "NAMED-2"),)
    assert changes.removed == {"NAMED-1"} and changes.added == {"NAMED-2"}
    assert changes.touches("NAMED-1")  # a tab showing it shows what became of it


def test_nothing_changed_is_empty(notes) -> None:
    _root, index = notes
    assert Changes.from_report(index.refresh()).empty


def test_same_graph_tells_a_text_edit_from_a_link_edit(notes) -> None:
    root, index = notes
    before = index.graph(ghosts=True)
    write(root, "Beta.md", "# Beta\n\nOther plain words.\n")
    index.refresh()
    text_only = index.graph(ghosts=True)
    assert same_graph(before, text_only)  # the graph is not given again: it does not move
    write(root, "Beta.md", "# Beta\n\nNow about [[Home]].\n")
    index.refresh()
    linked = index.graph(ghosts=True)
    assert not same_graph(text_only, linked)
    assert not same_graph(None, linked) and same_graph(None, None)
