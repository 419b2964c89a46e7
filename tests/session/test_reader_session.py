"""The reader's state of one vault, without a window: which entry opens, what becomes of
the open one after a refresh, tabs kept and put back, bookmarks and recent entries shared by
two windows, the files to watch. A real index and a real user-state file in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from anthology.session import Changes, ReaderSession, TabHistory, watch_set
from anthology.session.history import Visit
from anthology.user_state import UserState
from anthology.vault import VaultIndex, entries


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "Home.md").write_text("# Home\n\n[[Alpha]]\n", encoding="utf-8")
    (root / "Alpha.md").write_text("# Alpha\n\n[[Beta]]\n", encoding="utf-8")
    (root / "notes" / "Beta.md").write_text("# Beta\n", encoding="utf-8")
    return root


@pytest.fixture
def index(root: Path, tmp_path: Path):
    index = VaultIndex.open(root, tmp_path / "index.sqlite")
    yield index
    index.close()


@pytest.fixture
def state(root: Path, tmp_path: Path):
    state = UserState.for_vault(root, folder=tmp_path / "state")
    yield state
    state.close()


def test_the_entry_asked_for_opens_by_id_or_by_path_else_home(index: VaultIndex) -> None:
    assert ReaderSession(entry="notes/Beta").entry_to_open(index) == "notes/Beta"
    assert ReaderSession(entry="notes/Beta.md").entry_to_open(index) == "notes/Beta"
    assert ReaderSession(entry="No such note").entry_to_open(index) == "Home"
    assert ReaderSession(last="Alpha").entry_to_open(index) == "Alpha"  # the last one read
    session = ReaderSession(entry="Alpha")
    session.entry_to_open(index)
    assert session.pending_entry is None  # used up: a later refresh does not reopen it


def test_a_link_followed_in_the_first_look_opens_once_indexed(index: VaultIndex) -> None:
    session = ReaderSession()
    session.first_look = "Home.md"  # shown from disk before the index was built
    session.pending_entry = "Alpha"  # a link clicked there, as it was written
    assert session.entry_to_open(index) == "Alpha"
    session = ReaderSession()
    session.first_look = "notes/Beta.md"  # nothing clicked: the note the first look showed
    assert session.entry_to_open(index) == "notes/Beta" and session.first_look is None


def test_the_first_look_note_is_found_by_its_path_without_the_vaults_name_map(
    index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a never-seen vault's build ends, the note shown from disk is opened from the
    index on the GUI thread: by its path, one lookup (the name map of every entry a link
    resolves against took 0.3 s there at 100,000 entries, and is not needed)."""
    built: list[str] = []
    real = entries.index_resolver
    monkeypatch.setattr(entries, "index_resolver", lambda *a: built.append("map") or real(*a))
    session = ReaderSession()
    session.first_look = "notes/Beta.md"
    assert session.entry_to_open(index) == "notes/Beta"
    assert built == []


def test_what_becomes_of_the_open_entry_after_a_refresh(index: VaultIndex, root: Path) -> None:
    session = ReaderSession()
    assert session.after_refresh(Changes(changed=frozenset({"Alpha"})), "Alpha", index) == "render"
    assert session.after_refresh(Changes(changed=frozenset({"Beta"})), "Alpha", index) == "keep"
    (root / "Alpha.md").unlink()
    report = index.refresh()
    assert session.after_refresh(Changes.from_report(report), "Alpha", index) == "deleted"


def test_tabs_saved_and_put_back_without_the_entries_gone_since(
    index: VaultIndex, state: UserState, root: Path
) -> None:
    session = ReaderSession(state)
    first, second = TabHistory(), TabHistory()
    first.push("Home")
    first.push("Alpha", leaving_scroll=120)
    second.push("notes/Beta")
    session.save_tabs([first, second], current=1)
    assert state.get("reader.tabs") is None  # before the saved tabs were put back: kept
    assert session.restore_tabs(index) is None  # there were none
    session.save_tabs([first, TabHistory(), second], current=2)  # an empty tab is not kept

    (root / "notes" / "Beta.md").unlink()
    index.refresh()
    restored = ReaderSession(state).restore_tabs(index)
    assert restored is not None and len(restored.histories) == 1  # Beta's tab is gone
    assert restored.histories[0].visits == [Visit("Home", 120), Visit("Alpha", 0)]
    assert restored.active == 0 and restored.histories[0].current == Visit("Alpha", 0)


def test_bookmarks_and_recent_are_changes_two_windows_share(
    root: Path, tmp_path: Path, state: UserState
) -> None:
    other_state = UserState.for_vault(root, folder=tmp_path / "state")
    try:
        mine, other = ReaderSession(state), ReaderSession(other_state)
        assert mine.toggle_bookmark("Alpha") and mine.is_bookmarked("Alpha")
        assert other.toggle_bookmark("Beta")  # written over the file, not over its copy
        assert other.bookmarks == ["Alpha", "Beta"]
        assert mine.sync() == (True, False) and mine.bookmarks == ["Alpha", "Beta"]
        assert not mine.toggle_bookmark("Alpha") and mine.bookmarks == ["Beta"]

        mine.visited("Home")
        other.visited("Beta")
        mine.save_recent()
        other.save_recent()
        assert other.recent == ["Beta", "Home"]  # its own first, the other window's kept
        assert mine.sync() == (False, True) and mine.recent == ["Beta", "Home"]
    finally:
        other_state.close()


def test_a_session_without_a_state_keeps_its_lists_in_memory(index: VaultIndex) -> None:
    session = ReaderSession()
    assert session.toggle_bookmark("Alpha") and session.bookmarks == ["Alpha"]
    session.visited("Alpha")
    session.save_recent()
    assert session.recent == ["Alpha"] and session.sync() == (False, False)


def test_the_watch_set_is_every_folder_and_few_enough_files(root: Path) -> None:
    paths = ["Home.md", "Alpha.md", "notes/Beta.md"]
    small = watch_set(root, paths)
    assert small.paths == {str(root), str(root / "notes"), *(str(root / p) for p in paths)}
    assert not small.poll
    many = watch_set(root, paths, limit=2)  # past the limit: folders watched, files polled
    assert many.paths == {str(root), str(root / "notes")} and many.poll


def test_a_big_vault_is_watched_by_its_folders_without_listing_its_files(
    tmp_path: Path,
) -> None:
    """Past the limit the folders are asked of the index (not every entry's path): the
    watch set is the same as the one made from every path."""
    from anthology.session import vault_watch_set

    vault = tmp_path / "vault"
    for folder in ("", "notes", "notes/deep", "🌱 seeds"):
        (vault / folder).mkdir(parents=True, exist_ok=True)
        for k in range(3):
            (vault / folder / f"Note {k}.md").write_text(f"# Note {k}\n")
    with VaultIndex.open(vault, tmp_path / "index.sqlite") as index:
        paths = [ref.path for ref in index.entries()]
        few = vault_watch_set(index, limit=100)
        assert few == watch_set(vault, paths, limit=100) and not few.poll
        assert str(vault / "notes" / "deep" / "Note 2.md") in few.paths
        many = vault_watch_set(index, limit=5)
        assert many == watch_set(vault, paths, limit=5) and many.poll
        assert many.paths == {str(vault), str(vault / "notes"), str(vault / "notes" / "deep"),
                              str(vault / "🌱 seeds")}  # fmt: skip
