"""Notes renamed or moved on disk, found again by the reader (issue 34, item 12): a real
index refreshed after files are moved in a temp vault, and a real user state whose
bookmarks and recent entries follow."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from anthology.session import Changes, ReaderSession, TabHistory
from anthology.session.moves import moved_entries
from anthology.user_state import UserState
from anthology.vault import VaultIndex
from sample_vault import write_vault

FILES = {
    "Home.md": "# Home\n\n[[Zotero 7]] [[Reading]]\n",
    "Tools/Zotero 7.md": "# Zotero 7\n\nThe reference manager, version seven.\n",
    "Tools/Reading.md": "# Reading\n\nWhat I read.\n",
    "Tools/Twin.md": "# Twin\n\nOne.\n",
    "Other/Twin.md": "# Twin\n\nTwo.\n",
    "Daily/2024-01-01.md": "id: not an id property\n\nA day.\n",
}


def refresh(index: VaultIndex) -> Changes:
    return Changes.from_report(index.refresh())


def test_moves_are_found_by_name_by_text_and_by_id(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "vault", FILES)
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        zotero = index.entry("Tools/Zotero 7")
        assert zotero is not None
        known = {"Tools/Zotero 7": zotero.body}

        # moved to another folder: the same file name
        (root / "Archive").mkdir()
        (root / "Tools" / "Reading.md").rename(root / "Archive" / "Reading.md")
        # renamed in place: a new name, the text the reader had open
        (root / "Tools" / "Zotero 7.md").rename(root / "Tools" / "Zotero 8 🦓.md")
        changes = refresh(index)
        assert moved_entries(changes, index, known) == {
            "Tools/Reading": "Archive/Reading",
            "Tools/Zotero 7": "Tools/Zotero 8 🦓",
        }
        # the same rename without the text: nothing to go by, so no guess
        assert "Tools/Zotero 7" not in moved_entries(changes, index)

        # two notes of one name moved at once: which went where is not certain
        (root / "Tools" / "Twin.md").rename(root / "Archive" / "Twin.md")
        (root / "Other" / "Twin.md").rename(root / "Daily" / "Twin.md")
        assert moved_entries(refresh(index), index) == {}

        # an id given in the file: the index reports the rename itself
        (root / "Home.md").write_text("---\nid: HOME\n---\n# Home\n", encoding="utf-8")
        assert moved_entries(refresh(index), index) == {"Home": "HOME"}


def test_the_session_and_histories_follow_a_move(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "vault", FILES)
    with (
        VaultIndex.open(root, tmp_path / "index.sqlite") as index,
        UserState.for_vault(root, folder=tmp_path / "state") as state,
    ):
        session = ReaderSession(state)
        session.change_bookmarks(add="Tools/Reading")
        session.change_bookmarks(add="Home")
        session.visited("Tools/Reading")
        session.visited("Home")
        history = TabHistory()
        for entry_id in ("Home", "Tools/Reading", "Home"):
            history.push(entry_id)

        (root / "Archive").mkdir()
        (root / "Tools" / "Reading.md").rename(root / "Archive" / "Reading.md")
        changes = refresh(index)
        moves = moved_entries(changes, index)
        assert moves == {"Tools/Reading": "Archive/Reading"}
        session.follow_moves(moves)
        assert history.follow_moves(moves) and history.ids() == ["Home", "Archive/Reading", "Home"]
        assert session.bookmarks == ["Archive/Reading", "Home"]
        assert session.recent[:2] == ["Home", "Archive/Reading"]
        # kept so: a new session on the same state reads the new ids
        again = ReaderSession(state)
        assert again.bookmarks == ["Archive/Reading", "Home"]
        assert "Tools/Reading" not in again.recent

        changes = replace(changes, moved=tuple(moves.items()))
        assert session.after_refresh(changes, "Tools/Reading", index) == "moved"
        assert changes.new_id("Tools/Reading") == "Archive/Reading"
