"""Page previews, rendered backlink contexts, the tag pane, bookmarks and recent entries,
in the real window on a vault shaped like an Obsidian one (folders, spaces, no ids).

A "restart" is a fresh MainWindow on the same state folder and QSettings.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt, QUrl
from PySide6.QtWidgets import QApplication
from reader_window import images_in, link_point, window_opener, write_files

from anthology.ui.panels.backlinks_panel import ROLE_HTML
from anthology.ui.window.actions import fill_bookmarks_menu
from anthology.ui.window.main_window import MainWindow

CTRL = Qt.KeyboardModifier.ControlModifier

FILES = {
    "Home.md": "# Home\n\nStart with [[Attention basics#Scaled scores]] and [[Other note]].\n",
    "Concepts/Attention basics.md": (
        "---\ntags: [ml/attention, reading]\nauthor: Someone\n---\n"
        "Intro paragraph about **attention**.\n\n"
        "## Queries\n\nQueries are vectors. [[Other note]] has more.\n\n"
        "## Scaled scores\n\nScores are divided by $\\sqrt{d_k}$ where $d_k$ is the "
        "head dimension; see [[Other note|the other one]].\n\n"
        "## Later\n\nSomething after the section.\n"
    ),
    "Concepts/Other note.md": (
        "---\ntags: [ml/attention/heads, ml]\n---\n"
        "The **Other** note, back to [[Attention basics]] and `code`.\n\n"
        "Again [[Attention basics#Queries|queries]] with $x^2$ here.\n"
    ),
    "Daily/2024 01 02.md": "Read [[Other note]] today. #reading\n",
    "Daily/2024 01 03.md": "Nothing linked. #ml/training\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_files(tmp_path / "My Vault", FILES)


@pytest.fixture
def open_window(qtbot, tmp_path: Path, vault: Path, settings: QSettings):
    yield from window_opener(qtbot, vault, tmp_path, settings)


def hover(qtbot, win: MainWindow, target: str, modifier=Qt.KeyboardModifier.NoModifier):
    pane = win.entry_pane
    qtbot.mouseMove(pane.viewport(), link_point(win, target) + QPoint(0, 0))
    qtbot.mouseMove(pane.viewport(), link_point(win, target) + QPoint(1, 0))


def test_hovering_a_link_previews_the_rendered_heading_section(qtbot, open_window) -> None:
    win = open_window("Home")
    assert win.current_id() == "Home"
    previews = win.previews
    hover(qtbot, win, "Concepts/Attention basics")
    assert not previews.visible  # not at once: after the hover delay
    qtbot.waitUntil(lambda: previews.visible, timeout=5000)
    text = previews.popup.text()
    assert "Attention basics" in text  # the title
    assert "Scaled scores" in text and "Scores are divided by" in text  # the section …
    assert "Intro paragraph" not in text and "Something after" not in text  # … only
    assert "the other one" in text
    for raw in ("$", "[[", "**", "headdim"):
        assert raw not in text
    maths = [n for n in images_in(previews.popup.browser.document()) if n.startswith("math:")]
    assert len(maths) == 2  # \sqrt{d_k} and d_k, typeset
    assert "Someone" in text and "#ml/attention" in text  # the properties summary

    # Leaving the link (and not entering the popover) dismisses it.
    qtbot.mouseMove(win.entry_pane.viewport(), QPoint(5, win.entry_pane.viewport().height() - 5))
    qtbot.waitUntil(lambda: not previews.visible, timeout=5000)


def test_ctrl_hover_previews_at_once_and_a_click_inside_navigates(
    qtbot, open_window, monkeypatch: pytest.MonkeyPatch
) -> None:
    win = open_window("Home")
    monkeypatch.setattr(
        QApplication, "keyboardModifiers", staticmethod(lambda: Qt.KeyboardModifier.ControlModifier)
    )
    hover(qtbot, win, "Concepts/Other note")
    # asked for at once: no hover delay running (it renders on a worker, then shows)
    assert not win.previews._show_timer.isActive() and win.previews._wanted is not None
    qtbot.waitUntil(lambda: win.previews.visible, timeout=5000)
    assert "back to Attention basics" in win.previews.popup.text()
    monkeypatch.undo()
    # a click on a link inside the popover opens it in the window
    browser = win.previews.popup.browser
    browser.anchorClicked.emit(QUrl.fromEncoded(b"entry:Concepts%2FAttention%20basics"))
    qtbot.waitUntil(lambda: win.current_id() == "Concepts/Attention basics", timeout=5000)
    assert not win.previews.visible


def test_backlink_contexts_read_rendered_and_the_header_counts_its_groups(
    qtbot, open_window
) -> None:
    win = open_window("Concepts/Other note")
    panel = win.backlinks
    groups = panel.groups()
    # Attention basics links here twice (two lines): listed once, both lines beneath it
    mentions = next(ids for title, ids in groups.items() if title.startswith("mentions"))
    assert mentions.count("Concepts/Attention basics") == 1
    assert sorted(mentions) == ["Concepts/Attention basics", "Daily/2024 01 02", "Home"]
    counted = sum(int(t.rsplit("(", 1)[1].rstrip(")")) for t in groups)
    assert panel.title.text() == f"Backlinks · {counted}"
    row = panel.item_for("mentions", "Concepts/Attention basics")
    html = row.data(ROLE_HTML)
    assert "Queries are vectors" in html and "Scores are divided by" in html
    text = row.data()
    for raw in ("[[", "]]", "**", "$"):
        assert raw not in html and raw not in text
    assert '<img src="math:' in html  # \sqrt{d_k} typeset
    panel.tree.expandAll()
    panel.grab()  # painted: the formulas were given to the row's document
    assert panel.delegate.asked == []


def test_tag_pane_nests_counts_and_searches(qtbot, open_window) -> None:
    win = open_window("Home")
    win.act_tags.trigger()
    qtbot.waitUntil(lambda: win.tags_dock.isVisible(), timeout=5000)
    tags = win.tag_panel.tags()
    # ml: Attention basics (ml/attention), Other note (ml, ml/attention/heads), 01 03
    assert tags["ml"] == 3
    assert tags["ml/attention"] == 2 and tags["ml/attention/heads"] == 1
    assert tags["ml/training"] == 1 and tags["reading"] == 2
    item = win.tag_panel.item_for("ml/attention/heads")
    assert item.text(0) == "heads" and item.parent().data(0, Qt.ItemDataRole.UserRole) == (
        "ml/attention"
    )
    top = win.tag_panel.item_for("ml/attention")
    win.tag_panel.tree.expandAll()
    rect = win.tag_panel.tree.visualItemRect(top)
    qtbot.mouseClick(win.tag_panel.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert win.search_panel.box.text() == "tag:ml/attention"
    assert sorted(win.search_panel.result_ids()) == [
        "Concepts/Attention basics",
        "Concepts/Other note",
    ]


def test_bookmarks_toggle_and_survive_a_restart(qtbot, open_window) -> None:
    win = open_window("Home")
    assert not win.tabs.tabText(0).startswith("★")
    qtbot.keyClick(win.entry_pane, Qt.Key.Key_D, CTRL)
    assert win.bookmarks == ["Home"] and win.act_bookmark.isChecked()
    assert win.tabs.tabText(0) == "★ Home"  # the bookmarked note is marked where it is read
    win.show_entry("Concepts/Other note")
    assert not win.act_bookmark.isChecked() and not win.tabs.tabText(0).startswith("★")
    win.act_bookmark.trigger()
    assert win.bookmarks_panel.ids() == ["Home", "Concepts/Other note"]
    fill_bookmarks_menu(win)
    titles = [a.text() for a in win.bookmarks_menu.actions()]
    assert "Home" in titles and "Other note" in titles
    assert win.tabs.tabText(0).startswith("★ ")
    win.act_bookmark.trigger()  # Ctrl+D again: off
    assert win.bookmarks == ["Home"] and not win.tabs.tabText(0).startswith("★")
    win.act_bookmark.trigger()
    win.close()

    again = open_window()
    assert again.bookmarks == ["Home", "Concepts/Other note"]
    assert again.bookmarks_panel.ids() == ["Home", "Concepts/Other note"]
    # a click on a bookmark opens it; removing one takes it off the list and the state
    again.show_entry("Daily/2024 01 03")
    item = again.bookmarks_panel.list.item(0)
    again.bookmarks_dock.show()
    rect = again.bookmarks_panel.list.visualItemRect(item)
    qtbot.mouseClick(again.bookmarks_panel.list.viewport(), Qt.MouseButton.LeftButton,
                     pos=rect.center())  # fmt: skip
    assert again.current_id() == "Home"
    again.remove_bookmark("Home")
    assert again.bookmarks_panel.ids() == ["Concepts/Other note"]
    again.close()
    assert open_window().bookmarks == ["Concepts/Other note"]


def test_quick_switcher_lists_recent_entries_first(qtbot, open_window) -> None:
    win = open_window("Home")
    for entry in ("Daily/2024 01 03", "Concepts/Other note", "Daily/2024 01 02"):
        win.show_entry(entry)
    win.open_switcher()
    assert win.switcher.visible_ids()[:4] == [
        "Daily/2024 01 02",
        "Concepts/Other note",
        "Daily/2024 01 03",
        "Home",
    ]
    assert len(win.switcher.visible_ids()) == 5  # and then the others
    win.switcher.input.setText("other")
    assert win.switcher.visible_ids()[0] == "Concepts/Other note"
    win.switcher.hide()
    win.close()
    again = open_window()  # recent entries are kept per vault
    again.open_switcher()
    assert again.switcher.visible_ids()[0] == "Daily/2024 01 02"
    again.switcher.hide()


def test_search_snippets_read_rendered(qtbot, open_window) -> None:
    win = open_window("Home")
    win.search("divided")
    ids = win.search_panel.result_ids()
    assert ids == ["Concepts/Attention basics"]
    label = win.search_panel.results.itemWidget(win.search_panel.results.item(0))
    html = label.text()
    assert "divided</b>" in html  # the match marked
    for raw in ("[[", "**", "$"):
        assert raw not in html
    assert "sqrt{d_k}" in html  # its formula as clean TeX (a label shows no images)


def test_hovering_a_backlink_row_or_a_graph_node_previews_its_entry(qtbot, open_window) -> None:
    win = open_window("Concepts/Other note")
    panel = win.backlinks
    index = panel.item_for("mentions", "Daily/2024 01 02")
    panel.tree.scrollTo(index)
    rect = panel.tree.visualRect(index)
    qtbot.mouseMove(panel.tree.viewport(), rect.center())
    qtbot.mouseMove(panel.tree.viewport(), rect.center() + QPoint(2, 0))
    qtbot.waitUntil(lambda: win.previews.visible, timeout=5000)
    assert win.previews.popup.shown_for == ("Daily/2024 01 02", "")
    assert "Read Other note today" in win.previews.popup.text()
    win.previews.leave()
    qtbot.waitUntil(lambda: not win.previews.visible, timeout=5000)

    graph = win.graph
    assert graph is not None
    graph.hover("Home")  # finds the node's number; then the signal a pointer on it sends
    graph.nodes.nodeHovered.emit(graph.nodes._hover)
    assert graph.nodes.toolTip()  # the node's title, until its preview shows
    qtbot.waitUntil(lambda: win.previews.visible, timeout=5000)
    assert win.previews.popup.shown_for == ("Home", "")
    assert graph.nodes.toolTip() == ""  # it covered the preview (issue 34, item 18)
    graph.nodes.nodeHovered.emit(-1)  # off every node
    qtbot.waitUntil(lambda: not win.previews.visible, timeout=5000)


def test_f6_moves_the_keyboard_between_panes_and_shows_where(qtbot, open_window) -> None:
    """No route by keys to the graph, backlinks or outline (issue 34, item 15): F6 and
    Shift+F6 go round the panes shown, each takes the focus and the status bar names it."""
    win = open_window("Home")
    win.entry_pane.setFocus()
    panes = win.finding.panes()
    names = [name for name, _w in panes]
    assert names[:3] == ["Document", "Graph", "Backlinks"] and "Outline" in names
    seen = []
    for _ in range(len(panes)):
        qtbot.keyClick(QApplication.focusWidget() or win, Qt.Key.Key_F6)
        focus = QApplication.focusWidget()
        name = next(n for n, w in panes if w is focus or w.isAncestorOf(focus))
        assert win.statusBar().currentMessage().startswith(f"Keyboard in: {name}")
        seen.append(name)
    assert seen == [*names[1:], names[0]]  # round every pane, back to the document
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.focusWidget() is dict(panes)[names[-1]]
    # the pane with the keyboard has a ring around it, gone once a click puts focus elsewhere
    ring = win.focus_ring
    target = dict(panes)[names[-1]]
    assert ring.isVisible() and ring.target is target and ring.size() == target.size()
    win.entry_pane.setFocus(Qt.FocusReason.MouseFocusReason)
    if names[-1] != "Document":
        assert not ring.isVisible()
