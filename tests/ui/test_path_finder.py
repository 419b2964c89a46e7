"""Paths between entries, the command palette, the selection's neighbourhood and the colour
groups, with real widgets (offscreen) over a real index of real files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt

from anthology.ui.window.main_window import MainWindow
from anthology.vault import GraphData
from sample_vault import REALISTIC_VAULT, write_vault


@pytest.fixture
def window(qtbot, tmp_path: Path):
    vault = write_vault(tmp_path / "vault", REALISTIC_VAULT)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.resize(1300, 850)
    win.show()
    qtbot.waitUntil(lambda: win.settled and win.graph is not None, timeout=20000)
    qtbot.waitUntil(lambda: not win.indexing, timeout=20000)
    qtbot.waitUntil(lambda: "NOTE-011" in win.graph.shown_ids() or win.graph.is_local(),
                    timeout=20000)  # fmt: skip
    yield win
    win.close()


def answered(qtbot, dialog) -> None:
    """Wait for the dialog's answer (the paths are looked for on a task runner)."""
    qtbot.waitUntil(lambda: not dialog.searching, timeout=10000)


def test_find_path_dialog_finds_typed_paths_and_the_graph_highlights_them(window, qtbot):
    win = window
    win.graph.set_local(False)
    dialog = win.open_find_path("SOTA-050")
    assert dialog.isVisible() and dialog.source.chosen() == "SOTA-050"
    qtbot.keyClicks(dialog.target.input, "NOTE-011")
    assert dialog.target.chosen() == "NOTE-011"
    answered(qtbot, dialog)
    # every link: the embed in SOTA-050's body is the one-hop path
    assert dialog.paths()[0].nodes == ("SOTA-050", "NOTE-011")
    assert win.graph.shown_path().nodes == ("SOTA-050", "NOTE-011")
    dialog.typed_only.setChecked(True)
    answered(qtbot, dialog)
    first = dialog.paths()[0]
    assert first.nodes == ("SOTA-050", "LIT-008", "NOTE-011")
    assert dialog.results.item(0).text() == (
        "2 hops: SOTA-050 —introduced by→ LIT-008 ←paper— NOTE-011"
    )
    # the graph highlights the chosen path: its nodes and its two links
    assert win.graph.shown_path() == first
    assert win.graph.highlighted_ids() == {"SOTA-050", "LIT-008", "NOTE-011"}
    assert set(win.graph.highlighted_edges()) == {("SOTA-050", "LIT-008"),
                                                  ("NOTE-011", "LIT-008")}  # fmt: skip
    # the chain's entries are links that open them
    assert 'href="entry:LIT-008"' in dialog.chain.text()
    dialog.chain.linkActivated.emit("entry:LIT-008")
    assert win.current_id() == "LIT-008"
    # closing the dialog takes the highlight away
    dialog.reject()
    assert win.graph.shown_path() is None and win.graph.highlighted_ids() == set()


def test_no_path_is_said_plainly(window, qtbot):
    win = window
    dialog = win.open_find_path("HOME")
    qtbot.keyClicks(dialog.target.input, "Reading note")
    assert dialog.target.chosen() == "notes/Reading note"
    answered(qtbot, dialog)
    assert dialog.paths()  # HOME links to it in its body
    dialog.typed_only.setChecked(True)
    answered(qtbot, dialog)
    assert dialog.paths() == [] and dialog.results.count() == 0
    assert dialog.status.text() == (
        "No path between “HOME” and “Reading note, with spaces” through typed relations."
    )
    assert win.graph.shown_path() is None


def test_path_to_from_a_node_menu_and_from_the_command_palette(window, qtbot):
    win = window
    menu = win.graph.node_menu("LIT-008")
    path_to = next(a for a in menu.actions() if a.objectName() == "menuPathTo")
    path_to.trigger()
    assert win.path_finder.isVisible() and win.path_finder.source.chosen() == "LIT-008"
    win.path_finder.reject()

    win.open_command_palette()
    palette = win.command_palette
    assert palette.isVisible()
    names = palette.names()
    assert "Find Path Between Entries…" in names and "Fit" in names
    assert "Command Palette…" not in names
    # each listed with where it lives (issue 34, item 18): "Dark", "Fit" alone said little
    shown = [palette.list.item(r).text().split("    ")[0] for r in range(palette.list.count())]
    assert "View › Theme: Dark" in shown and "Graph: Fit" in shown
    assert "Go: Find Path Between Entries…" in shown
    qtbot.keyClicks(palette.input, "theme dark")  # the menu's name finds it too
    assert palette.names()[0] == "Dark"
    palette.input.clear()
    qtbot.keyClicks(palette.input, "find path")
    assert palette.names()[0] == "Find Path Between Entries…"
    qtbot.keyClick(palette.input, Qt.Key.Key_Return)
    assert not palette.isVisible() and win.path_finder.isVisible()
    win.path_finder.reject()

    theme = win.theme
    win.open_command_palette()
    qtbot.keyClicks(palette.input, "toggle theme")
    qtbot.keyClick(palette.input, Qt.Key.Key_Return)
    assert win.theme != theme


def test_the_shortcuts_are_the_ones_decided(window):
    assert window.act_palette.shortcut().toString() == "Ctrl+P"
    assert window.act_find_path.shortcut().toString() == "Ctrl+Shift+P"


# ---------------------------------------------------------------------------------------
@pytest.fixture
def view(make_view):
    return make_view()


def chain_graph() -> GraphData:
    """Two chains joined at nothing: 0-1-2-3 and 4-5-6-7, plus folders, no kinds."""
    n = 8
    edges = [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6), (6, 7)]
    paths = [f"{'Left' if i < 4 else 'Right'}/Note {i}.md" for i in range(n)]
    return GraphData([p[:-3] for p in paths], [f"Note {i}" for i in range(n)], [""] * n,
                     [["ml/vision"] if i % 2 else [] for i in range(n)], edges, [None] * 6,
                     paths=paths)  # fmt: skip


def test_shift_click_selects_and_the_selection_neighbourhood_is_shown(qtbot, view):
    g = chain_graph()
    pos = {k: ((i % 4) * 60.0, (i // 4) * 60.0) for i, k in enumerate(g.ids)}
    view.set_graph(g, pos, "v")
    view.view.viewport().repaint()
    qtbot.wait(10)
    for k in ("Left/Note 0", "Right/Note 7"):
        qtbot.mouseClick(view.view.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ShiftModifier, view.node_viewport_pos(k))  # fmt: skip
    assert view.selection() == ["Left/Note 0", "Right/Note 7"]
    menu = view.node_menu("Left/Note 0")
    action = next(a for a in menu.actions() if a.objectName() == "menuSelectionNeighbourhood")
    assert action.isEnabled() and action.text() == "Neighbourhood of selection (2)"
    action.trigger()
    assert view.is_local()
    assert set(view.shown_ids()) == {"Left/Note 0", "Left/Note 1", "Right/Note 6",
                                     "Right/Note 7"}  # fmt: skip
    view.set_depth(2)
    assert len(view.shown_ids()) == 6
    view.set_current("Left/Note 3")  # navigating: the local graph follows the reader again
    assert set(view.shown_ids()) == {"Left/Note 1", "Left/Note 2", "Left/Note 3"}
    assert view.selection() == ["Left/Note 0", "Right/Note 7"]
    view.set_graph(g, pos, "another vault")  # a selection belongs to its vault
    assert view.selection() == []


def test_escape_clears_the_path_then_the_selection_then_the_search(qtbot, view):
    g = chain_graph()
    pos = {k: ((i % 4) * 60.0, (i // 4) * 60.0) for i, k in enumerate(g.ids)}
    view.set_graph(g, pos, "v")
    view.set_local(False)
    view.set_search("Note")
    view.set_selection(["Left/Note 0"])
    view.show_path(view.path_finder().paths("Left/Note 0", "Left/Note 3")[0])
    assert view.shown_path() is not None
    view.view.setFocus()
    qtbot.keyClick(view.view, Qt.Key.Key_Escape)
    assert view.shown_path() is None and view.selection() == ["Left/Note 0"]
    qtbot.keyClick(view.view, Qt.Key.Key_Escape)
    assert view.selection() == [] and view.search_edit.text() == "Note"
    qtbot.keyClick(view.view, Qt.Key.Key_Escape)
    assert view.search_edit.text() == ""


def test_groups_page_colours_by_folder_by_default_and_groups_win(qtbot, view, monkeypatch):
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QColorDialog

    g = chain_graph()
    view.set_graph(g, None, "v")
    controls = view.controls
    view.controls_button.setChecked(True)  # the reader opens the controls panel
    assert "top folder" in controls.color_in_effect.text()  # no kinds: Auto is by folder
    assert [name for name, _ in view.scene.groups] == ["Left", "Right"]
    left = view.scene.colour_index[view.shown_ids().index("Left/Note 0")]
    assert left != view.scene.colour_index[view.shown_ids().index("Right/Note 4")]
    # a tag group, coloured with the colour dialog, then moved first: it wins
    controls.group_kind.setCurrentIndex(controls.group_kind.findData("tag:"))
    controls.add_group_button.click()
    row = controls.group_rows()[0]
    row.edit.setText("tag:ml")
    row.edit.editingFinished.emit()
    monkeypatch.setattr(QColorDialog, "getColor", staticmethod(lambda *a, **k: QColor("#123456")))
    row.colour_button.click()
    assert view.settings()["groups"] == [{"query": "tag:ml", "color": "#123456"}]
    ids = view.shown_ids()
    table = view.painter.brush_table
    tagged = view.scene.colour_index[ids.index("Left/Note 1")]  # ml/vision: nested under ml
    assert table[tagged].name() == "#123456"
    assert table[view.scene.colour_index[ids.index("Left/Note 0")]].name() != "#123456"
    controls.add_group("folder:Left", "#abcdef")
    view.controls.group_rows()[1].edit.editingFinished.emit()
    first_wins = table[view.scene.colour_index[ids.index("Left/Note 1")]]
    assert first_wins.name() == "#123456"
    controls.group_rows()[1].moved.emit(1, -1)
    table = view.painter.brush_table
    assert table[view.scene.colour_index[ids.index("Left/Note 1")]].name() == "#abcdef"
    # Louvain communities as the base colouring
    controls.color_by.setCurrentIndex(controls.color_by.findData("community"))
    assert view.settings()["color_by"] == "community"
    assert any(name.startswith("Community") for name, _ in view.scene.groups)


def test_saved_group_query_is_migrated_into_groups(qtbot, view, tmp_path):
    from anthology.user_state import GRAPH_VIEW, UserState

    state = UserState(tmp_path / "state.sqlite")
    state.put(GRAPH_VIEW, {"color_by": "query", "group_query": "tag:ml; folder:Right"})
    view.set_graph(chain_graph(), None, "v", store=state)
    groups = view.settings()["groups"]
    assert [g["query"] for g in groups] == ["tag:ml", "folder:Right"]
    assert view.settings()["color_by"] == "auto"
    assert view.controls.group_rows() == []  # the panel's pages wait for its opening
    view.controls_button.setChecked(True)  # the reader opens the controls panel
    assert [r.edit.text() for r in view.controls.group_rows()] == ["tag:ml", "folder:Right"]
    assert view.controls.color_by.currentData() == "auto"


def test_graph_exports_graphml_and_json_of_what_is_shown(qtbot, view, tmp_path):
    import json

    import networkx as nx

    g = chain_graph()
    view.set_graph(g, None, "v")
    view.set_setting("tags", "ml")
    assert view.export_graphml(str(tmp_path / "g.graphml")) == 4
    assert set(nx.read_graphml(tmp_path / "g.graphml").nodes) == set(view.shown_ids())
    assert view.export_json(str(tmp_path / "g.json")) == 4
    doc = json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))
    assert sorted(n["id"] for n in doc["nodes"]) == sorted(view.shown_ids())
    assert np.all([n["path"].endswith(".md") for n in doc["nodes"]])


def test_a_huge_title_is_cut_in_the_dialog_and_the_paths_are_found_off_the_gui_thread(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 20,000-character title (issue 28: 100,000 made the dialog 1,185,960 px wide and
    cost 2.5 GB): each place it is shown says a cut, bidi-free part of it; the networkx
    graph is built on the task runner, never on the GUI thread."""
    import threading

    from reader_window import write_files

    from anthology.graph.paths import PathFinder
    from anthology.ui.panels.path_finder import LABEL_CHARS, ROW_CHARS

    huge = "\u202e" + "x" * 20_000
    vault = write_files(
        tmp_path / "vault",
        {
            "HOME.md": "Start [[Long]].\n",
            "Long.md": f'---\ntitle: "{huge}"\n---\nOn to [[Far]].\n',
            "Far.md": '---\ncites: "[[Long]]"\n---\nThe far end.\n',
        },
    )
    built_on: list[bool] = []
    graph = PathFinder.graph

    def recording(self, typed_only=False, state=None):
        built_on.append(threading.current_thread() is threading.main_thread())
        return graph(self, typed_only, state)

    monkeypatch.setattr(PathFinder, "graph", recording)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.resize(1300, 850)
    win.show()
    qtbot.waitUntil(lambda: win.settled and win.graph is not None and not win.indexing,
                    timeout=20000)  # fmt: skip
    dialog = win.open_find_path("HOME", "Far")
    qtbot.waitUntil(lambda: not dialog.searching, timeout=10000)
    assert built_on and not any(built_on)  # asked on the runner only
    assert [p.nodes for p in dialog.paths()] == [("HOME", "Long", "Far")]
    row = dialog.results.item(0).text()
    assert row.startswith("2 hops: HOME —links to→ ") and row.endswith("— Far")
    assert len(row) < 2 * LABEL_CHARS and "\u202e" not in row
    assert len(dialog.chain.text()) < 3 * (LABEL_CHARS + ROW_CHARS) + 200  # 3 links, markup
    # the field says the title cut, too, and the dialog keeps a sane size
    dialog.source.choose("Long", dialog.full_label("Long"))
    assert len(dialog.source.input.text()) <= ROW_CHARS
    assert "\u202e" not in dialog.source.input.text()
    qtbot.waitUntil(lambda: not dialog.searching, timeout=10000)
    assert dialog.minimumSizeHint().width() < 1500 and dialog.sizeHint().width() < 1500
    dialog.reject()
    win.close()
