"""The timeline tab (issue 37, item 3), the real widget offscreen on a real index of a
real-shaped vault: entries left to right in date order, the query removing entries, a
click opening the entry, the empty state's words; and the window opening it from the View
menu and from the graph's toolbar, following the entry the reader is on."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from reader_window import window_opener, write_files

from anthology.ui.common.document import OpenVault
from anthology.ui.graph.timeline_tab import TimelineTab
from anthology.vault.index import VaultIndex

FILES = {
    "Home.md": "# Home\n\nThe reading list: [[Attention Is All You Need]], [[BERT 🐻]].\n",
    "Papers/Attention Is All You Need.md": (
        "---\nyear: 2017\ntags: [transformers]\n---\n# Attention Is All You Need\n"
    ),
    "Papers/BERT 🐻.md": (
        "---\nyear: 2018\ntags: [transformers, nlp]\n"
        'builds_on: ["[[Attention Is All You Need]]"]\n---\n# BERT\n'
    ),
    "Papers/GPT-3.md": (
        '---\nyear: 2020\ntags: [nlp]\ncompared_against: ["[[BERT 🐻]]"]\n---\n# GPT-3\n'
    ),
    "Papers/Rotary embeddings.md": "---\nyear: 2021\ntags: [positions]\n---\n# RoPE\n",
    "Daily notes/2024-03-05.md": "---\ndate: 2024-03-05\n---\nA day.\n",
}


@pytest.fixture
def timeline(qtbot, tmp_path: Path):
    root = write_files(tmp_path / "My vault", FILES)
    (tmp_path / "db").mkdir()
    index = VaultIndex.open(root, tmp_path / "db" / "index.sqlite")
    tab = TimelineTab()
    qtbot.addWidget(tab)
    tab.resize(1000, 600)
    tab.attach_vault(OpenVault(index.root, index))
    assert tab.open_document("auto")
    tab.feed_graph(index.graph(), {}, "vault")
    tab.show()
    qtbot.waitExposed(tab)
    yield tab
    tab.shutdown()
    index.close()


def _xs(tab: TimelineTab) -> dict[str, int]:
    out = {}
    for entry_id in tab.view.shown_ids():
        pos = tab.view.entry_viewport_pos(entry_id)
        assert pos is not None
        out[entry_id] = pos.x()
    return out


def test_papers_run_left_to_right_by_year(timeline: TimelineTab) -> None:
    view = timeline.view
    assert view.key() == "year" and timeline.title() == "Timeline: year"
    xs = _xs(timeline)
    assert list(xs) == ["Papers/Attention Is All You Need", "Papers/BERT 🐻", "Papers/GPT-3",
                        "Papers/Rotary embeddings"]  # fmt: skip
    assert list(xs.values()) == sorted(xs.values())
    assert len(set(xs.values())) == 4  # four years, four places
    width = view.view.viewport().width()
    assert all(0 <= x <= width for x in xs.values())  # all in view
    assert "2 relations" in view.status.text() and "2 without it" in view.status.text()
    assert "builds on" in view.legend.text() and "compared against" in view.legend.text()
    # the picker offers the vault's date keys and the file's dates
    offered = [view.key_combo.itemData(i) for i in range(view.key_combo.count())]
    assert offered == ["year", "date", "file.mtime", "file.ctime"]


def test_hover_shows_the_title_and_the_query_removes_entries(timeline: TimelineTab, qtbot) -> None:
    view = timeline.view
    view.hover("Papers/GPT-3")
    assert view.hover_text() == "GPT-3 — 2020"
    assert "GPT-3" in view.view.toolTip()
    qtbot.keyClicks(view.query_edit, "tag:nlp")
    assert view.shown_ids() == ["Papers/BERT 🐻", "Papers/GPT-3"]
    view.query_edit.clear()
    qtbot.keyClicks(view.query_edit, "-tag:transformers")
    assert view.shown_ids() == ["Papers/GPT-3", "Papers/Rotary embeddings"]
    # the graph's filters too: the side graph hides a tag's entries
    view.query_edit.clear()
    timeline.follow_graph_settings({"tags": "positions"})
    assert view.shown_ids() == ["Papers/Rotary embeddings"]


def test_a_click_opens_the_entry_ctrl_click_in_a_new_tab(timeline: TimelineTab, qtbot) -> None:
    viewport = timeline.view.view.viewport()
    pos = timeline.view.entry_viewport_pos("Papers/BERT 🐻")
    assert pos is not None
    with qtbot.waitSignal(timeline.entryRequested) as asked:
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=pos)
    assert asked.args == ["Papers/BERT 🐻", "", False]
    with qtbot.waitSignal(timeline.entryRequested) as asked:
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ControlModifier, pos=pos)  # fmt: skip
    assert asked.args == ["Papers/BERT 🐻", "", True]
    with qtbot.waitSignal(timeline.entryRequested) as asked:
        qtbot.mouseClick(viewport, Qt.MouseButton.MiddleButton,
                         pos=timeline.view.entry_viewport_pos("Papers/GPT-3"))  # fmt: skip
    assert asked.args == ["Papers/GPT-3", "", True]


def test_no_dated_entries_say_why_and_what_to_pick(timeline: TimelineTab) -> None:
    view = timeline.view
    view.set_query("folder:Papers")
    view.set_key("date")  # the papers have a year, no date
    assert view.shown_ids() == []
    assert view.empty_label.isVisible()
    assert view.message() == (
        "No entry has “date”. Pick another date property: year, File modified, "
        "File changed (ctime)."
    )
    view.set_key("file.mtime")  # the file's dates: every paper has one
    assert len(view.shown_ids()) == 4 and view.message() == ""
    view.set_query("tag:nowhere")
    assert "No entry matches “tag:nowhere”" in view.message()


def test_the_current_entry_is_ringed_and_followed(timeline: TimelineTab) -> None:
    view = timeline.view
    timeline.follow_entry("Papers/GPT-3")
    assert view.current_label.isVisible() and view.current_label.textItem.toPlainText() == "GPT-3"
    ring_x, _ring_y = view.ring.getData()
    assert len(ring_x) == 1
    view.vb.translateBy(x=-100.0)  # far away: the next entry brings the view back
    timeline.follow_entry("Papers/BERT 🐻")
    pos = view.entry_viewport_pos("Papers/BERT 🐻")
    assert pos is not None and view.view.viewport().rect().contains(pos)


# -- in the window -------------------------------------------------------------------------
@pytest.fixture
def open_window(qtbot, tmp_path: Path, settings: QSettings):
    vault = write_files(tmp_path / "vault", FILES)
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Home")


def test_the_window_opens_the_timeline_from_the_view_menu_and_the_graph(open_window, qtbot) -> None:
    win = open_window()
    view_menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&View")
    assert win.act_timeline_tab in view_menu.actions()
    assert win.show_entry("Papers/BERT 🐻")
    win.act_timeline_tab.trigger()
    tab = win.tabs.document()
    assert isinstance(tab, TimelineTab) and tab.isVisible()
    qtbot.waitUntil(lambda: len(tab.view.shown_ids()) == 4)
    # the entry read before the new tab opened is ringed (the tab itself shows no entry)
    assert tab.view.current_label.textItem.toPlainText() == "BERT"  # its title
    assert win.tabs.tabText(win.tabs.currentIndex()) == "Timeline: year"
    tab.view.entryActivated.emit("Papers/GPT-3")  # a click on it
    assert win.current_id() == "Papers/GPT-3"
    win.go_back()
    assert win.tabs.document() is tab
    assert tab.view.current_label.textItem.toPlainText() == "GPT-3"  # followed
    # the side graph's toolbar opens one too
    assert win.graph is not None
    before = win.tabs.count()
    win.graph.toolbar.action_timeline.trigger()
    assert win.tabs.count() == before + 1 and isinstance(win.tabs.document(), TimelineTab)


def test_thousands_of_long_arcs_are_drawn_shortest_first_within_a_budget(qtbot) -> None:
    """4,000 entries over ten years, each related to one far away: the arcs would stroke
    millions of pixels; the shortest are drawn up to the budget, the rest wait for a zoom."""
    import numpy as np

    from anthology.ui.graph.timeline_view import TimelineView
    from anthology.vault.graph_data import GraphData

    n = 4000
    ids = [f"n{i:04d}" for i in range(n)]
    edges = np.array(
        [(i, (i + n // 2) % n) for i in range(n)] + [(i, i + 1) for i in range(0, n - 1, 2)]
    )
    data = GraphData(ids, ids, ["note"] * n, [[] for _ in range(n)], edges,
                     ["cites"] * len(edges), paths=[f"{i}.md" for i in ids],
                     properties=[{"year": 2017 + (i * 10) // n} for i in range(n)])  # fmt: skip
    view = TimelineView()
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.set_graph(data)
    view.show()
    qtbot.waitExposed(view)
    view.fit()  # laid out now: the whole span in view
    qtbot.wait(50)  # (the view box applies its range on the next turn of the event loop)
    view.arcs.cache.refresh()
    view.view.viewport().repaint()
    arcs = view.arcs
    qtbot.waitUntil(lambda: not arcs.cache.busy)  # a slow render goes on in slices
    assert arcs.visible == len(edges)
    assert 0 < arcs.drawn < arcs.visible  # within the budget: not every long arc
    assert arcs.drawn >= n // 2  # the short ones (neighbours in one year) all drawn
    view.shutdown()
