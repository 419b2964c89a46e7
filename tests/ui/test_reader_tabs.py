"""Tabs, the file explorer, the outline and the reading position, in the real window.

A small vault of folders is written to tmp_path; the window is a real MainWindow on a real
index, its user state in tmp_path; a "restart" is a fresh MainWindow on the same state
folder and QSettings.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication
from reader_window import link_point, paragraphs, window_opener, write_files

from anthology.ui.reading.outline_panel import heading_tops
from anthology.ui.window.main_window import MainWindow

CTRL = Qt.KeyboardModifier.ControlModifier
LEFT = Qt.MouseButton.LeftButton


FILES = {
    "HOME.md": "---\ntitle: Home\nkind: home\n---\nStart at [[Alpha]].\n",
    "notes/alpha.md": (
        "---\ntitle: Alpha\n---\nSee [[Beta]] and [[Gamma]] first.\n\n## One\n\n"
        + paragraphs("one", 8, repeat=12)
        + "\n\n## Two\n\n"
        + paragraphs("two", 8, repeat=12)
        + "\n\n### Two and a half\n\n"
        + paragraphs("half", 4, repeat=12)
        + "\n\n## Three\n\n"
        + paragraphs("three", 25, repeat=12)
        + "\n"
    ),
    "notes/beta.md": (
        "---\ntitle: Beta\n---\nBack to [[Alpha]].\n\n" + paragraphs("beta", 30, repeat=12) + "\n"
    ),
    "projects/sub/gamma.md": "---\ntitle: Gamma\n---\nGamma links [[Alpha]].\n",
    "projects/Note 2.md": "---\ntitle: Note 2\n---\nTwo.\n",
    "projects/Note 10.md": "---\ntitle: Note 10\n---\nTen.\n",
    "projects/pic.png": None,  # an attachment
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_files(tmp_path / "vault", FILES, lambda: b"\x89PNG\r\n\x1a\n")


@pytest.fixture
def open_window(qtbot, tmp_path: Path, vault: Path, settings: QSettings):
    def listed(win) -> bool:
        return win.explorer.index_of("notes/alpha").isValid()

    yield from window_opener(qtbot, vault, tmp_path, settings, ready=listed)


def click_row(qtbot, view, index, modifier=Qt.KeyboardModifier.NoModifier, button=LEFT) -> None:
    rect = view.visualRect(index)
    assert rect.isValid()
    qtbot.mouseClick(view.viewport(), button, modifier, rect.center())


def test_explorer_lists_folders_first_by_title_with_counts(open_window) -> None:
    win = open_window()
    explorer = win.explorer
    tree = explorer.tree
    top = [explorer.model.index(r, 0).data() for r in range(explorer.model.rowCount())]
    assert top == ["notes", "projects", "HOME — Home"]  # folders first, then entries by title
    projects = explorer.folder_index("projects")
    assert projects.siblingAtColumn(1).data() == "3"  # Gamma, Note 2, Note 10
    tree.expand(projects)
    inside = [explorer.model.index(r, 0, projects).data()
              for r in range(explorer.model.rowCount(projects))]  # fmt: skip
    assert inside == ["sub", "Note 2", "Note 10"]  # natural order; the PNG is hidden
    explorer.attachments_button.click()
    projects = explorer.folder_index("projects")  # the rows are made anew: asked again
    assert tree.isExpanded(projects)
    inside = [explorer.model.index(r, 0, projects).data()
              for r in range(explorer.model.rowCount(projects))]  # fmt: skip
    assert inside == ["sub", "Note 2", "Note 10", "pic.png"]


def test_explorer_click_opens_and_the_explorer_follows_navigation(open_window, qtbot) -> None:
    win = open_window()
    explorer = win.explorer
    assert win.current_id() == "HOME"
    qtbot.waitUntil(lambda: explorer.current_id() == "HOME", timeout=2000)
    # Navigation elsewhere reveals the entry: its folder opens, its row is selected.
    win.show_entry("projects/sub/gamma")
    qtbot.waitUntil(lambda: explorer.current_id() == "projects/sub/gamma", timeout=2000)
    assert explorer.tree.isExpanded(explorer.folder_index("projects/sub"))
    # A click on a row opens that entry.
    win.explorer.tree.expand(explorer.folder_index("notes"))
    click_row(qtbot, explorer.tree, explorer.index_of("notes/beta"))
    assert win.current_id() == "notes/beta"
    assert "Back to Alpha" in win.entry_pane.toPlainText()
    qtbot.waitUntil(lambda: explorer.current_id() == "notes/beta", timeout=2000)
    # Ctrl+click and middle-click open in a new tab; the first tab keeps its entry.
    click_row(qtbot, explorer.tree, explorer.index_of("notes/alpha"), CTRL)
    assert win.tabs.count() == 2 and win.current_id() == "notes/alpha"
    click_row(qtbot, explorer.tree, explorer.index_of("projects/sub/gamma"),
              button=Qt.MouseButton.MiddleButton)  # fmt: skip
    assert win.tabs.count() == 3 and win.current_id() == "projects/sub/gamma"
    win.tabs.setCurrentIndex(0)
    assert win.current_id() == "notes/beta"
    qtbot.waitUntil(lambda: explorer.current_id() == "notes/beta", timeout=2000)


def test_explorer_filter_keeps_the_folders_of_matches(open_window, qtbot) -> None:
    win = open_window()
    explorer = win.explorer
    explorer.tree.collapseAll()
    qtbot.keyClicks(explorer.box, "gam")
    explorer.apply_filter()
    assert explorer.visible_labels() == ["projects", "sub", "Gamma"]
    explorer.box.clear()
    explorer.apply_filter()
    assert explorer.visible_labels()[:3] == ["notes", "projects", "HOME — Home"]
    # several words: every one must be in the label
    explorer.box.setText("note 1")
    explorer.apply_filter()
    assert explorer.visible_labels() == ["projects", "Note 10"]


def test_explorer_expand_state_survives_a_restart(open_window) -> None:
    win = open_window()
    explorer = win.explorer
    explorer.tree.collapseAll()
    explorer.tree.expand(explorer.folder_index("projects"))
    explorer.tree.expand(explorer.folder_index("projects/sub"))
    explorer.attachments_button.click()
    win.close()
    again = open_window()
    ex = again.explorer
    assert ex.tree.isExpanded(ex.folder_index("projects"))
    assert ex.tree.isExpanded(ex.folder_index("projects/sub"))
    assert not ex.tree.isExpanded(ex.folder_index("notes"))
    assert ex.attachments_button.isChecked() and "pic.png" in ex.visible_labels()


def test_outline_lists_headings_and_a_click_scrolls_there(open_window, qtbot) -> None:
    win = open_window()
    win.show_entry("notes/alpha")
    outline = win.outline
    assert outline.headings() == ["One", "Two", "Two and a half", "Three"]
    half = outline.item("Two and a half")
    assert half.parent() is outline.item("Two")  # nested by level
    pane = win.entry_pane
    bar = pane.verticalScrollBar()
    assert bar.value() == 0
    item = outline.item("Three")
    rect = outline.tree.visualItemRect(item)
    qtbot.mouseClick(outline.tree.viewport(), LEFT, pos=rect.center())
    top = heading_tops(pane, pane.rendered.headings)[3]
    assert bar.value() > 0
    assert abs(bar.value() - top) <= 2  # the heading's block is at the top of the view
    qtbot.waitUntil(lambda: outline.current_heading() == "Three", timeout=2000)
    assert outline.tree.currentItem() is item
    # Scrolling highlights the heading under the reading position: a quarter down the
    # view, where the reader reads (the top edge lagged a section behind, issue 34 item 16)
    tops = heading_tops(pane, pane.rendered.headings)
    view = pane.viewport().height()
    bar.setValue(tops[1] + 40)
    qtbot.waitUntil(lambda: outline.current_heading() == "Two", timeout=2000)
    bar.setValue(tops[3] - view // 5)  # "Three" a fifth down the view: being read
    qtbot.waitUntil(lambda: outline.current_heading() == "Three", timeout=2000)
    bar.setValue(tops[3] - view // 2)  # half a view down: not yet
    qtbot.waitUntil(lambda: outline.current_heading() != "Three", timeout=2000)
    bar.setValue(0)
    first = "One" if tops[0] <= view // 4 else None
    qtbot.waitUntil(lambda: outline.current_heading() == first, timeout=2000)


def test_ctrl_click_opens_a_new_tab_and_each_tab_has_its_own_history(open_window, qtbot) -> None:
    win = open_window()
    win.show_entry("notes/alpha")  # tab 1: HOME → alpha
    pane = win.entry_pane
    qtbot.mouseClick(pane.viewport(), LEFT, CTRL, link_point(win, "notes/beta"))
    assert win.tabs.count() == 2 and win.tabs.currentIndex() == 1
    assert win.current_id() == "notes/beta"
    assert win.history == ["notes/beta"] and not win.act_back.isEnabled()
    assert win.backlinks._entry_id == "notes/beta"  # the panels follow the active tab
    assert win.outline.headings() == []
    assert win.tabs.tabText(1) == "Beta"
    # a plain click follows the link in the same tab
    qtbot.mouseClick(win.entry_pane.viewport(), LEFT, pos=link_point(win, "notes/alpha"))
    assert win.tabs.count() == 2 and win.history == ["notes/beta", "notes/alpha"]
    # a middle-click opens another tab
    qtbot.mouseClick(win.entry_pane.viewport(), Qt.MouseButton.MiddleButton,
                     pos=link_point(win, "projects/sub/gamma"))  # fmt: skip
    assert win.tabs.count() == 3 and win.current_id() == "projects/sub/gamma"
    # the first tab's history is its own
    win.tabs.setCurrentIndex(0)
    assert win.current_id() == "notes/alpha"
    assert win.history == ["HOME", "notes/alpha"] and win.act_back.isEnabled()
    assert win.backlinks._entry_id == "notes/alpha"
    assert win.outline.headings()[0] == "One"
    win.go_back()
    assert win.current_id() == "HOME"
    win.tabs.setCurrentIndex(1)
    assert win.current_id() == "notes/alpha"
    win.go_back()
    assert win.current_id() == "notes/beta"
    assert win.tabs.history(win.tabs.pane(0)).ids() == ["HOME", "notes/alpha"]


def test_other_panels_open_in_a_new_tab(open_window, qtbot) -> None:
    win = open_window()
    win.show_entry("notes/alpha")
    # a backlink row, Ctrl+clicked
    item = win.backlinks.item_for("mentions", "notes/beta")
    assert item is not None
    click_row(qtbot, win.backlinks.tree, item, CTRL)
    assert win.tabs.count() == 2 and win.current_id() == "notes/beta"
    # a search result, middle-clicked
    win.search("gamma links")
    results = win.search_panel.results
    assert win.search_panel.result_ids()[0] == "projects/sub/gamma"
    click_row(qtbot, results, results.model().index(0, 0), button=Qt.MouseButton.MiddleButton)
    assert win.tabs.count() == 3 and win.current_id() == "projects/sub/gamma"
    # a graph node, from its menu
    qtbot.waitUntil(lambda: win.graph is not None, timeout=10000)
    menu = win.graph.node_menu("notes/alpha")
    next(a for a in menu.actions() if a.objectName() == "menuOpenNewTab").trigger()
    assert win.tabs.count() == 4 and win.current_id() == "notes/alpha"
    menu.close()


def test_keys_new_close_and_cycle_tabs(open_window, qtbot) -> None:
    win = open_window()
    win.activateWindow()
    win.show_entry("notes/beta")
    qtbot.keyClick(win.entry_pane, Qt.Key.Key_T, CTRL)
    assert win.tabs.count() == 2 and win.current_id() == "notes/beta"
    win.show_entry("notes/alpha")
    qtbot.keyClick(win.entry_pane, Qt.Key.Key_Tab, CTRL)
    assert win.tabs.currentIndex() == 0 and win.current_id() == "notes/beta"
    qtbot.keyClick(win.entry_pane, Qt.Key.Key_Backtab, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert win.tabs.currentIndex() == 1 and win.current_id() == "notes/alpha"
    qtbot.keyClick(win.entry_pane, Qt.Key.Key_W, CTRL)
    assert win.tabs.count() == 1 and win.current_id() == "notes/beta"
    win.new_tab()
    bar = win.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.MiddleButton, pos=bar.tabRect(1).center())
    assert win.tabs.count() == 1
    qtbot.keyClick(win.entry_pane, Qt.Key.Key_W, CTRL)  # the last tab stays
    assert win.tabs.count() == 1 and win.current_id() == "notes/beta"


def test_back_and_forward_restore_the_reading_position(open_window, qtbot) -> None:
    win = open_window()
    win.show_entry("notes/alpha")
    bar = win.entry_pane.verticalScrollBar()
    assert bar.maximum() > 1500
    bar.setValue(1234)
    win.show_entry("notes/beta")
    assert bar.value() == 0
    bar.setValue(700)
    win.go_back()
    assert win.current_id() == "notes/alpha" and bar.value() == 1234
    win.go_forward()
    assert win.current_id() == "notes/beta" and bar.value() == 700
    # Alt+Left too, and a link followed to a new place starts at the top
    qtbot.keyClick(win.entry_pane, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert win.current_id() == "notes/alpha" and bar.value() == 1234


def test_tabs_survive_a_restart(open_window, qtbot) -> None:
    win = open_window()
    win.show_entry("notes/alpha")
    win.entry_pane.verticalScrollBar().setValue(900)
    win.open_in_new_tab("notes/beta")
    win.entry_pane.verticalScrollBar().setValue(500)
    win.show_entry("projects/sub/gamma")
    win.open_in_new_tab("projects/Note 2")
    win.tabs.setCurrentIndex(1)  # the beta → gamma tab is the active one
    win.close()

    again = open_window()
    assert again.tabs.count() == 3
    assert [again.tabs.tabText(i) for i in range(3)] == ["Alpha", "Gamma", "Note 2"]
    assert again.tabs.currentIndex() == 1 and again.current_id() == "projects/sub/gamma"
    assert again.history == ["notes/beta", "projects/sub/gamma"]
    again.go_back()  # the history came back, with the reading position in it
    assert again.current_id() == "notes/beta"
    assert again.entry_pane.verticalScrollBar().value() == 500
    again.tabs.setCurrentIndex(0)  # a restored tab is shown where the reader left it
    assert again.current_id() == "notes/alpha"
    assert again.entry_pane.verticalScrollBar().value() == 900
    assert again.history == ["HOME", "notes/alpha"]
    assert QApplication.instance() is not None


def test_an_explicit_entry_opens_over_the_restored_tabs(
    qtbot, open_window, tmp_path: Path, vault: Path, settings: QSettings
) -> None:
    win = open_window()
    win.open_in_new_tab("notes/beta")
    win.close()
    again = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings,
                       state_dir=tmp_path / "state", entry="projects/Note 10")  # fmt: skip
    qtbot.addWidget(again)
    again.show()
    qtbot.waitUntil(lambda: again.settled, timeout=20000)
    assert again.tabs.count() == 2 and again.current_id() == "projects/Note 10"
    again.close()


def test_a_saved_history_is_read_defensively() -> None:
    from anthology.session.history import TabHistory, Visit

    known = {"a", "b", "c"}.__contains__
    h = TabHistory.from_json({"visits": [["a", 10], ["gone", 5], ["a", 20], ["b", -3],
                                         "junk", [1, 2], ["c", "x"]], "pos": 3}, known)  # fmt: skip
    # the deleted entry's visit is dropped and the two "a" around it become one
    assert [(v.entry_id, v.scroll) for v in h.visits] == [("a", 20), ("b", 0), ("c", 0)]
    assert h.current == Visit("b", 0)
    assert TabHistory.from_json("nonsense", known).current is None
    assert TabHistory.from_json({"visits": [["gone", 1]], "pos": 0}, known).current is None
    # a long history is saved around where the reader is
    long = TabHistory([Visit(str(i)) for i in range(200)], 150)
    saved = long.to_json()
    assert len(saved["visits"]) == 50 and saved["visits"][saved["pos"]][0] == "150"
