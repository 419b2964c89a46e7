"""The user state as the real window reads and writes it (issue 28): bad saved values,
two windows on one vault, a state that cannot be written; and an index a killed build
left half-made."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from reader_window import window_opener, write_files

from anthology.ui.window.main_window import MainWindow
from anthology.user_state import (
    BOOKMARKS,
    EXPLORER_VIEW,
    GRAPH_CAMERA,
    GRAPH_VIEW,
    READER_TABS,
    RECENT,
    UserState,
)
from sample_vault import kill_while_creating

FILES = {
    "Home.md": "# Home\n\nSee [[Other]] and [[Third]].\n",
    "Other.md": "# Other\n\nBack to [[Home]].\n",
    "Third.md": "# Third\n\nAlso [[Other]].\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_files(tmp_path / "My Vault", FILES)


@pytest.fixture
def open_window(qtbot, tmp_path: Path, vault: Path, settings: QSettings):
    yield from window_opener(qtbot, vault, tmp_path, settings)


def save_raw(vault: Path, folder: Path, values: dict[str, str]) -> None:
    """Write ``values`` (JSON text by key) into the vault's user state as a damaged or
    foreign program might have left them."""
    with UserState.for_vault(vault, folder=folder) as state, state.conn:
        for key, text in values.items():
            state.conn.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, text))


BAD_VALUES = {
    "a string": {GRAPH_VIEW: '"zzz"'},
    "not finite": {GRAPH_VIEW: '{"repel": NaN, "center": Infinity, "node_size": -1e308, '
                   '"depth": 1e999, "groups": [{"query": "Other", "color": "#ff0000"}]}'},
    "bad group rows": {GRAPH_VIEW: '{"groups": [1, "x", null, {"query": 5}, '
                       '{"query": "Other", "color": "#ff0000"}]}'},
    "wrong types": {GRAPH_VIEW: '{"local": "yes", "depth": "2", "hidden_kinds": "note", '
                    '"label_by": 3, "color_by": [1], "link_strength": "x", "tags": 5, '
                    '"groups": [{"query": "Other", "color": "#ff0000"}]}'},
    "everything else": {
        GRAPH_CAMERA: '{"global": {"cx": NaN, "cy": 0, "w": 1, "h": 1}, "local": [1, 2]}',
        READER_TABS: '{"tabs": [1, "x", {"visits": 5}], "current": "a"}',
        EXPLORER_VIEW: '{"expanded": 5, "attachments": "x"}',
        BOOKMARKS: '{"a": 1}',
        RECENT: "[5, null, \"Other\"]",
    },
}  # fmt: skip


@pytest.mark.parametrize("case", list(BAD_VALUES))
def test_a_bad_saved_value_is_reported_and_the_graph_still_shows(
    qtbot, open_window, vault: Path, tmp_path: Path, case: str
) -> None:
    save_raw(vault, tmp_path / "state", BAD_VALUES[case])
    win: MainWindow = open_window()  # before: a traceback in set_graph, an empty graph
    qtbot.waitUntil(lambda: len(win.graph.shown_ids()) >= 1, timeout=5000)
    assert not win.graph.empty_label.isVisible()
    assert "User state: the saved" in win.statusBar().currentMessage()
    assert win.current_id() == "Home"
    if "groups" in BAD_VALUES[case].get(GRAPH_VIEW, ""):  # the good group row is kept
        assert win.graph.controls.values()["groups"] == [{"query": "Other", "color": "#ff0000"}]
    if RECENT in BAD_VALUES[case]:
        assert win.bookmarks == [] and "Other" in win.recent


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_state_shows_its_tabs_and_bookmarks_and_says_it_cannot_save(
    qtbot, open_window, tmp_path: Path, what: str
) -> None:
    win = open_window()
    win.toggle_bookmark()  # Home
    win.open_in_new_tab("Other")
    win.toggle_bookmark()
    win.close()
    folder = tmp_path / "state"
    (path,) = folder.iterdir()
    target = path if what == "file" else folder
    mode = target.stat().st_mode
    target.chmod(0o444 if what == "file" else 0o555)
    try:
        before = path.read_bytes()
        again = open_window()
        # before: "cannot open the user state", one Home tab and no bookmarks
        assert again.bookmarks == ["Home", "Other"]
        assert again.bookmarks_panel.ids() == ["Home", "Other"]
        assert again.tabs.count() == 2 and again.current_id() == "Other"
        assert "cannot be saved" in again.statusBar().currentMessage()
        again.toggle_bookmark()  # works this session, is not written
        assert again.bookmarks == ["Home"]
        again.close()
        assert path.read_bytes() == before
    finally:
        target.chmod(mode)


def test_two_windows_on_one_vault_keep_each_others_bookmarks_and_recent_entries(
    qtbot, open_window
) -> None:
    a, b = open_window(), open_window()  # both open at once, on one vault and state
    a.toggle_bookmark()  # Home, in window a
    b.show_entry("Other")
    b.toggle_bookmark()  # before: b wrote its own list, ["Other"]: a's Home was lost
    assert b.bookmarks == ["Home", "Other"]
    qtbot.waitUntil(lambda: a.bookmarks_panel.ids() == ["Home", "Other"], timeout=5000)
    a.remove_bookmark("Home")  # a change, not a's list: b's Other stays
    qtbot.waitUntil(lambda: b.bookmarks_panel.ids() == ["Other"], timeout=5000)
    assert a.bookmarks == ["Other"]
    a.show_entry("Third")
    a.open_in_new_tab("Other")
    b.show_entry("Home")
    a.close()
    b.close()  # the last window closed: its tabs are the ones the next start restores
    again = open_window()
    assert again.bookmarks == ["Other"]
    assert {"Third", "Other", "Home"} <= set(again.recent)  # both windows' recent entries
    assert again.tabs.count() == 1 and again.current_id() == "Home"  # b's one tab


def test_unusable_saved_positions_are_reported_and_the_graph_still_shows(
    qtbot, open_window, vault: Path, tmp_path: Path
) -> None:
    with UserState.for_vault(vault, folder=tmp_path / "state") as state, state.conn:
        state.conn.executemany("INSERT INTO positions VALUES (?, ?, ?, 1)",
                               [("Home", float("inf"), 0.0), ("Other", "abc", 1.0),
                                ("Third", 5.0, 6.0)])  # fmt: skip
    win: MainWindow = open_window()
    qtbot.waitUntil(lambda: len(win.graph.shown_ids()) == 3, timeout=5000)
    assert "2 unusable positions" in win.statusBar().currentMessage()
    assert win.graph.pinned_ids() == ["Third"]


def test_an_index_whose_build_was_killed_mid_create_is_rebuilt_by_the_window(
    qtbot, open_window, vault: Path, tmp_path: Path
) -> None:
    kill_while_creating(vault, tmp_path / "index.sqlite")  # where open_window's index is
    win: MainWindow = open_window()  # before: "Cannot open the index", at every start
    assert win.index is not None and win.current_id() == "Home"
    assert "Cannot open" not in win.statusBar().currentMessage()
    assert "Cannot open" not in win.entry_pane.toPlainText()
