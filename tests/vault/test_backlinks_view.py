"""The backlinks view of an entry: kept until the index changes, paged the same way whether
a group's page is read by walking the entries or by sorting the group."""

from __future__ import annotations

from pathlib import Path

import pytest

from anthology.vault.index import VaultIndex
from anthology.vault.model import LinkRow
from sample_vault import write_newer

write = write_newer  # a note written with a visibly newer mtime


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A hub cited by most of a small vault (a dense group, read by walking the entries) and
    by a few (sparse groups, sorted whole), in folders with spaces and the same note name
    twice; some sources link twice."""
    root = tmp_path / "My Vault"
    write(root / "Hub Note.md", "# Hub Note\n\nThe centre.\n")
    for i in range(40):
        folder = "Reading list" if i % 2 else "2024 notes"
        second = " and again [[Hub Note|the hub]]" if i % 7 == 0 else ""
        write(
            root / folder / f"Note {i:02d}.md",
            f"# Note {i}\n\nSee [[Hub Note]] for the start{second}.\n",
        )
    for i in range(3):
        write(root / "Papers" / f"paper {i}.md", f'---\nsource: "[[Hub Note]]"\n---\nPaper {i}.\n')
    write(root / "Papers" / "Note 03.md", "---\nrefines: '[[Hub Note]]'\n---\nA twin name.\n")
    return root


def test_a_view_asked_again_is_kept_and_its_pages_are_the_backlinks_in_order(
    tmp_path: Path, vault: Path
) -> None:
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as index:
        view = index.backlinks_view("Hub Note", sources_cap=1000, count_cap=50_000)
        assert index.backlinks_view("hub note", sources_cap=1000, count_cap=50_000) is not view
        assert index.backlinks_view("Hub Note", sources_cap=1000, count_cap=50_000) is view
        every = index.backlinks("Hub Note")
        assert dict(view.groups) == {"refines": 1, "source": 3, None: 46}
        assert view.group_sources == [1, 3, 40]
        assert view.sources == 44
        for relation, count in view.groups:
            wanted = [(link.source.id, link.line, link.text) for link in every
                      if link.relation == relation]  # fmt: skip
            for size in (1, 3, 7, 50):  # walked or sorted, a page at a time, in one order
                got: list[LinkRow] = []
                while len(page := view.page(relation, len(got), size)) == size:
                    got += page
                got += page
                assert [(link.source.id, link.line, link.text) for link in got] == wanted
                assert len(got) == count
        # the page of a view is answered again as it came, contexts cut from the bodies
        first = view.page(None, 0, 5)
        assert view.page(None, 0, 5) == first
        assert [view.context(link) for link in first] == [
            link.context for link in index.backlinks("Hub Note") if link.relation is None
        ][:5]
        assert all("Hub Note" in view.context(link) for link in first)


def test_a_page_is_the_same_links_however_it_is_read(tmp_path: Path, vault: Path) -> None:
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as index:
        for relation in (None, "source", "refines"):
            wanted = [link for link in index.backlinks("Hub Note") if link.relation == relation]
            for offset, limit in ((0, 5), (5, 5), (12, 30), (44, 10), (0, 100)):
                pages = [
                    index.backlinks_page("Hub Note", relation, offset, limit, plan=plan)
                    for plan in ("walk", "sources", "sort")
                ]
                counted = index.backlinks_page("Hub Note", relation, offset, limit)
                sized = index.backlinks_page("Hub Note", relation, offset, limit, size=150)
                assert pages[0] == pages[1] == pages[2] == counted == sized
                assert counted == wanted[offset : offset + limit]


def test_a_changed_file_is_seen_by_the_next_view(tmp_path: Path, vault: Path) -> None:
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as index:
        before = index.backlinks_view("Hub Note", sources_cap=1000, count_cap=50_000)
        assert [link.source.id for link in before.page("source", 0, 50)] == [
            "Papers/paper 0", "Papers/paper 1", "Papers/paper 2"
        ]  # fmt: skip
        write(vault / "Papers" / "paper 9.md", '---\nsource: "[[Hub Note]]"\n---\nNew.\n')
        (vault / "Papers" / "paper 0.md").unlink()
        index.refresh()
        after = index.backlinks_view("Hub Note", sources_cap=1000, count_cap=50_000)
        assert after is not before
        assert dict(after.groups)["source"] == 3
        assert [link.source.id for link in after.page("source", 0, 50)] == [
            "Papers/paper 1", "Papers/paper 2", "Papers/paper 9"
        ]  # fmt: skip


def test_a_write_by_another_connection_drops_the_kept_view(tmp_path: Path, vault: Path) -> None:
    db = tmp_path / "i.sqlite"
    with VaultIndex.open(vault, db) as reader:
        before = reader.backlinks_view("Hub Note")
        assert dict(before.groups)["refines"] == 1
        write(vault / "Papers" / "Note 03.md", "---\nrefines: '[[Note 01]]'\n---\nMoved on.\n")
        with VaultIndex.open(vault, db):  # another connection (a background indexer) writes
            pass
        after = reader.backlinks_view("Hub Note")
        assert after is not before
        assert "refines" not in dict(after.groups)
        assert [link.source.path for link in after.page(None, 0, 2)] == [
            "2024 notes/Note 00.md", "2024 notes/Note 00.md"
        ]  # fmt: skip
