"""The per-vault user state: a real SQLite file in a temp folder, its place, and bad files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from anthology.paths import vault_file_name
from anthology.user_state import (
    GRAPH_VIEW,
    SCHEMA_VERSION,
    STATE_DIR_ENV,
    Position,
    UserState,
    clean_camera,
    clean_id_list,
    clean_tabs,
    default_state_path,
    state_dir,
)
from anthology.vault.index import default_db_path


def test_positions_and_pins_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with UserState(path) as state:
        state.save_positions(
            {
                "LIT-008": (1.5, -2.0),
                "SOTA-050": (3.0, 4.0),
                "bad": (float("nan"), 0.0),
                "far": (float("inf"), 1.0),
            },
            pinned=["SOTA-050", "gone"],
        )
    with UserState(path) as state:
        assert state.positions() == {
            "LIT-008": Position(1.5, -2.0, False),
            "SOTA-050": Position(3.0, 4.0, True),
        }
        state.save_positions({"LIT-008": (0.0, 0.0)})  # replaces the whole layout
        assert state.positions() == {"LIT-008": Position(0.0, 0.0, False)}


def test_settings_are_json_by_key(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with UserState(path) as state:
        assert state.get(GRAPH_VIEW) is None and state.get("x", {"d": 1}) == {"d": 1}
        state.put(GRAPH_VIEW, {"repel": -120.0, "hidden_kinds": ["note"], "local": True})
        state.put("reader.tabs", ["HOME", "LIT-008"])
    with UserState(path) as state:
        assert state.get(GRAPH_VIEW) == {"repel": -120.0, "hidden_kinds": ["note"],
                                         "local": True}  # fmt: skip
        assert state.get("reader.tabs") == ["HOME", "LIT-008"]
        state.conn.execute("UPDATE settings SET value = '{not json' WHERE key = 'reader.tabs'")
        assert state.get("reader.tabs", []) == []


def test_the_file_is_wal_versioned_and_named_like_the_index(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "my notes"
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    assert state_dir() == tmp_path / "state"
    assert default_state_path(root) == tmp_path / "state" / vault_file_name(root)
    assert default_state_path(root).name == default_db_path(root).name  # one naming scheme
    with UserState.for_vault(root) as state:
        assert state.path == default_state_path(root) and state.path.is_file()
        assert state.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert state.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    with UserState.for_vault(root, folder=tmp_path / "elsewhere") as state:
        assert state.path == tmp_path / "elsewhere" / vault_file_name(root)
    monkeypatch.delenv(STATE_DIR_ENV)
    assert state_dir().name == "vaults" and "anthology" in str(state_dir())


def test_a_damaged_file_is_reported_moved_aside_and_started_anew(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    path.write_bytes(b"these are not the pages of an SQLite file" * 100)
    said: list[str] = []
    with UserState(path, report=said.append) as state:
        assert state.positions() == {}
        state.save_positions({"A": (1.0, 2.0)}, pinned=["A"])
    assert len(said) == 1 and "damaged" in said[0] and "s.sqlite.corrupt" in said[0]
    assert (tmp_path / "s.sqlite.corrupt").read_bytes().startswith(b"these are not")
    with UserState(path, report=said.append) as state:
        assert state.positions() == {"A": Position(1.0, 2.0, True)}
    assert len(said) == 1


def test_a_file_from_a_newer_anthology_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.execute("CREATE TABLE future (x)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    said: list[str] = []
    with UserState(path, report=said.append) as state:
        state.put(GRAPH_VIEW, {"local": False})  # kept in memory for this session
        assert state.get(GRAPH_VIEW) == {"local": False}
    assert "newer Anthology" in said[0] and path.read_bytes() == before


def test_a_folder_that_cannot_be_made_keeps_the_state_in_memory(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where the folder should be")
    said: list[str] = []
    with UserState(tmp_path / "blocker" / "s.sqlite", report=said.append) as state:
        state.save_positions({"A": (1.0, 2.0)})
        assert state.positions() == {"A": Position(1.0, 2.0, False)}
    assert "cannot open the user state" in said[0]
    assert (tmp_path / "blocker").read_text() == "a file where the folder should be"


def test_a_failed_write_is_reported_not_raised(tmp_path: Path) -> None:
    said: list[str] = []
    state = UserState(tmp_path / "s.sqlite", report=said.append)
    state.close()
    state.save_positions({"A": (1.0, 2.0)})  # the connection is gone, as on a dead disk
    assert state.get(GRAPH_VIEW, "default") == "default"
    assert len(said) == 2 and "could not save the graph layout" in said[0]


def test_every_value_is_checked_a_bad_one_reported_and_replaced(tmp_path: Path) -> None:
    said: list[str] = []
    with UserState(tmp_path / "s.sqlite", report=said.append) as state, state.conn:
        for key, text in {"ids": '["A", 5, "B", "A"]', "tabs": '"x"', "nan": "[NaN, 1]",
                          "cam": '{"global": {"cx": 0, "cy": 0, "w": Infinity, "h": 1}}',
                          "bad": "{not json"}.items():  # fmt: skip
            state.conn.execute("INSERT INTO settings VALUES (?, ?)", (key, text))
    with UserState(tmp_path / "s.sqlite", report=said.append) as state:
        assert state.get("ids", [], clean=clean_id_list) == ["A", "B"]  # the rest kept
        assert state.get("tabs", None, clean=clean_tabs) is None
        assert state.get("nan") == [None, 1]  # never a NaN into a view
        assert state.get("cam", {}, clean=clean_camera) == {}
        assert state.get("bad", "d") == "d"
        assert state.get("missing", "d", clean=clean_id_list) == "d"  # absent: not reported
        assert len(said) == 4 and all("the saved" in m for m in said)
        assert "tabs" in said[1] and "the default is used" in said[1]
        state.put("n", {"x": float("nan")})  # NaN is not JSON: reported, not written
        assert state.get("n", "none") == "none" and "could not save n" in said[-1]


def test_a_file_damaged_twice_keeps_both_damaged_copies_numbered(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    said: list[str] = []
    for n, garbage in enumerate((b"first damage " * 100, b"second damage " * 100), start=1):
        path.write_bytes(garbage)
        with UserState(path, report=said.append) as state:
            state.save_positions({"A": (float(n), 0.0)})
    # before: the second damage overwrote s.sqlite.corrupt, the first copy was lost
    assert (tmp_path / "s.sqlite.corrupt").read_bytes().startswith(b"first damage")
    assert (tmp_path / "s.sqlite.corrupt.2").read_bytes().startswith(b"second damage")
    assert "s.sqlite.corrupt.2" in said[-1]
    with UserState(path) as state:
        assert state.positions() == {"A": Position(2.0, 0.0, False)}


def test_another_programs_sqlite_file_is_refused_never_altered(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    conn = sqlite3.connect(path)  # application id 0, as most SQLite files
    conn.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('Ada', '555')")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    said: list[str] = []
    with UserState(path, report=said.append) as state:
        state.put(GRAPH_VIEW, {"local": True})  # kept in memory for this session
        assert state.get(GRAPH_VIEW) == {"local": True}
    # before: settings and positions tables were added and the file turned to WAL
    assert path.read_bytes() == before and not Path(f"{path}-wal").exists()
    assert len(said) == 1 and "not an Anthology user state" in said[0]
    # an old state file of ours (our tables, no application id yet) is still taken
    old = tmp_path / "old.sqlite"
    with UserState(old) as state:
        state.put(GRAPH_VIEW, {"local": False})
    conn = sqlite3.connect(old)
    conn.execute("PRAGMA application_id = 0")
    conn.close()
    with UserState(old, report=said.append) as state:
        assert state.get(GRAPH_VIEW) == {"local": False} and len(said) == 1


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_state_is_read_and_said_to_be_unsaveable(tmp_path: Path, what: str) -> None:
    folder = tmp_path / "state"
    path = folder / "s.sqlite"
    with UserState(path) as state:
        state.put("reader.bookmarks", ["A", "B"])
        state.save_positions({"A": (1.0, 2.0)}, pinned=["A"])
    target = path if what == "file" else folder
    mode = target.stat().st_mode
    target.chmod(0o555 if what == "folder" else 0o444)
    try:
        before = path.read_bytes()
        said: list[str] = []
        with UserState(path, report=said.append) as state:
            # before: "cannot open the user state": nothing saved was shown this session
            assert state.get("reader.bookmarks") == ["A", "B"]
            assert state.positions() == {"A": Position(1.0, 2.0, True)}
            assert state.read_only
            state.put("reader.bookmarks", ["A", "B", "C"])  # this session only
            assert state.get("reader.bookmarks") == ["A", "B", "C"]
        assert len(said) == 1 and "read-only" in said[0] and "cannot be saved" in said[0]
        assert path.read_bytes() == before and sorted(p.name for p in folder.iterdir()) == [
            "s.sqlite"
        ]
    finally:
        target.chmod(mode)


def test_two_connections_change_a_list_without_losing_each_others_changes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    with UserState(path) as one, UserState(path) as two:
        assert not one.changed_elsewhere() and not two.changed_elsewhere()
        one.update("ids", lambda ids: [*ids, "A"], [], clean_id_list)
        assert two.changed_elsewhere() and not two.changed_elsewhere()  # seen once
        assert not one.changed_elsewhere()  # its own write is not news to it
        assert two.update("ids", lambda ids: [*ids, "B"], [], clean_id_list) == ["A", "B"]
        assert one.get("ids") == ["A", "B"] and one.changed_elsewhere()


def test_the_poll_does_not_wait_for_a_thread_reading_the_state(tmp_path: Path) -> None:
    """The window polls for other windows' changes every second on the GUI thread; while
    its loader holds the state (reading the saved layout) the poll says "not yet" instead
    of waiting, and sees the change on its next turn."""
    import threading

    path = tmp_path / "s.sqlite"
    with UserState(path) as one, UserState(path) as two:
        assert not two.changed_elsewhere()
        one.put("ids", ["A"])
        holding, release = threading.Event(), threading.Event()

        def reader() -> None:
            with two._lock:  # what positions() holds while it reads
                holding.set()
                release.wait(10)

        thread = threading.Thread(target=reader)
        thread.start()
        try:
            assert holding.wait(10)
            assert not two.changed_elsewhere()  # answered at once, not waited for
        finally:
            release.set()
            thread.join()
        assert two.changed_elsewhere()  # the next poll sees it


def test_the_layout_is_read_beside_the_windows_writes(tmp_path: Path) -> None:
    """The views' loader reads the saved layout off the GUI thread (0.2 s at 100,000 nodes)
    through a connection of its own: it does not take the lock the window's writes take
    (a tab saved as the entry opened waited ~0.1 s for it), and sees what was saved."""
    import threading

    path = tmp_path / "s.sqlite"
    with UserState(path) as state:
        state.save_positions({"A": (1.0, 2.0)}, pinned=["A"])
        read: list[dict[str, Position]] = []
        with state._lock:  # the window writing meanwhile
            thread = threading.Thread(target=lambda: read.append(state.positions()))
            thread.start()
            thread.join(10)  # (a guard against a hang, not a time limit)
            assert read == [{"A": Position(1.0, 2.0, True)}]
    with UserState(None) as memory:  # no file: read through the one connection
        memory.save_positions({"B": (0.0, 1.0)})
        assert memory.positions() == {"B": Position(0.0, 1.0, False)}


def test_unusable_positions_are_reported_and_left_out(tmp_path: Path) -> None:
    said: list[str] = []
    with UserState(tmp_path / "s.sqlite", report=said.append) as state, state.conn:
        state.save_positions({"A": (1.0, 2.0)})
        state.conn.executemany(
            "INSERT INTO positions VALUES (?, ?, ?, 0)",
            [("inf", float("inf"), 0.0), ("text", "abc", 1.0), ("blob", b"x", 1.0)],
        )
    with UserState(tmp_path / "s.sqlite", report=said.append) as state:
        assert state.positions() == {"A": Position(1.0, 2.0, False)}
    assert len(said) == 1 and "3 unusable positions" in said[0]
