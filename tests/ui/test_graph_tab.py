"""The graph in a tab of its own (issue 34, item 5), as Obsidian opens its graph view: the
global graph or an entry's local graph, laid out as the side panel's, its nodes opening
entries, beside the side panel's graph; kept across a restart; fed again after an edit.
A real window on a temp vault."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from reader_window import window_opener, write_files

from anthology.ui.graph.graph_tab import GraphTab
from sample_vault import write_newer

FILES = {
    "Home.md": "# Home\n\n[[Alpha]] [[Projects/Beta 🚀]]\n",
    "Alpha.md": "# Alpha\n\nSee [[Projects/Beta 🚀]] and [[Gamma]].\n",
    "Projects/Beta 🚀.md": "# Beta\n\nBack to [[Alpha]].\n",
    "Gamma.md": "# Gamma\n\nAlone but for Alpha.\n",
    "Other/Delta.md": "# Delta\n\nNo links at all.\n",
}


@pytest.fixture
def open_window(qtbot, tmp_path: Path, settings: QSettings):
    vault = write_files(tmp_path / "vault", FILES)
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Alpha")


def test_the_graph_opens_in_a_tab_and_its_nodes_open_entries(open_window, qtbot) -> None:
    win = open_window()
    assert win.graph is not None
    win.act_graph_tab.trigger()
    assert win.tabs.count() == 2
    tab = win.tabs.document()
    assert isinstance(tab, GraphTab) and tab.isVisible()
    assert win.tabs.tabText(1) == "Graph"
    qtbot.waitUntil(lambda: len(tab.view.shown_ids()) == 5)  # the global graph, every note
    assert sorted(tab.view.shown_ids()) == sorted(win.graph.scene.data.ids)
    assert win.graph.isVisible()  # beside the side panel's graph, not instead of it

    tab.view.entryActivated.emit("Gamma")  # a click on a node
    assert win.current_id() == "Gamma" and win.tabs.count() == 2
    win.go_back()  # back to the graph, in the same tab
    assert win.tabs.document() is tab

    win.tabs.setCurrentIndex(0)
    win.act_local_graph_tab.trigger()  # Alpha's local graph
    local = win.tabs.document()
    assert isinstance(local, GraphTab) and local is not tab
    assert win.tabs.tabText(win.tabs.currentIndex()) == "Local graph: Alpha"
    qtbot.waitUntil(
        lambda: set(local.view.shown_ids()) == {"Alpha", "Projects/Beta 🚀", "Gamma", "Home"}
    )


def test_a_graph_tab_follows_an_edit_and_survives_a_restart(open_window, qtbot) -> None:
    win = open_window()
    win.act_graph_tab.trigger()
    tab = win.tabs.document()
    assert isinstance(tab, GraphTab)
    qtbot.waitUntil(lambda: len(tab.view.shown_ids()) == 5)
    assert win.root is not None
    write_newer(win.root / "Other" / "Delta.md", "# Delta\n\nNow linked to [[Gamma]].\n")
    win.reindex()
    qtbot.waitUntil(lambda: ("Other/Delta", "Gamma") in tab.view.shown_edges(), timeout=20000)
    win.close()

    again = open_window(entry=None)
    kinds = [again.tabs.tab(i).history.current.kind for i in range(again.tabs.count())]
    assert "graph" in kinds
