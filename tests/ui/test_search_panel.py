"""The search panel (issue 34, items 6 and 7): the true count of results, paged with a
"Show more" row; each row as tall as its wrapped snippet; a match inside a code span or a
link marked, not drawn as boxes. A real index of a vault written to a temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel

from anthology.ui.panels.search_panel import PAGE, SearchPanel
from anthology.vault import VaultIndex
from sample_vault import write_vault

N = 2 * PAGE + 19  # notes that mention the graph view


@pytest.fixture
def index(tmp_path: Path):
    files = {
        f"Plugins/Note {i:03d} ✨.md": f"# Note {i}\n\nThe graph view, seen from note {i}. "
        + "Some long words to wrap the snippet over several lines of a narrow panel. " * 3
        for i in range(N)
    }
    files["Code.md"] = (
        "# Code\n\nRun `infranodus-graph-view` or read [the graph view](https://g.io).\n"
    )
    files["Other.md"] = "# Other\n\nNothing here.\n"
    root = write_vault(tmp_path / "vault", files)
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        yield index


def test_the_count_is_the_total_and_more_come_a_page_at_a_time(qtbot, index) -> None:
    panel = SearchPanel()
    qtbot.addWidget(panel)
    panel.set_search_function(index.search, index.search_total)
    panel.search("graph view")
    assert panel.summary.text() == f"{N + 1} results"  # not "50 results"
    assert len(panel.result_ids()) == PAGE
    more = panel.results.item(panel.results.count() - 1)
    assert "Show 50 more of 70" in panel.results.itemWidget(more).text()

    panel.results.itemClicked.emit(more)  # a click on "Show more"
    assert len(panel.result_ids()) == 2 * PAGE
    panel.show_more()
    ids = panel.result_ids()
    assert len(ids) == N + 1 == len(set(ids))  # every result once, none twice across pages
    assert "Code" in ids and "Other" not in ids
    last = panel.results.item(panel.results.count() - 1)
    assert last.data(0x0100) == "Code" or "Show" not in panel.results.itemWidget(last).text()


def test_rows_are_as_tall_as_their_wrapped_snippet(qtbot, index) -> None:
    panel = SearchPanel()
    qtbot.addWidget(panel)
    panel.set_search_function(index.search, index.search_total)
    panel.resize(220, 600)
    panel.show()
    panel.search("graph view")
    item = panel.results.item(0)
    label = panel.results.itemWidget(item)
    assert isinstance(label, QLabel)
    width = panel.results.viewport().width()
    line = label.fontMetrics().height()
    assert item.sizeHint().height() >= label.heightForWidth(width) > 3 * line
    narrow = item.sizeHint().height()
    panel.resize(900, 600)
    qtbot.waitUntil(lambda: panel.results.viewport().width() > 600)
    qtbot.waitUntil(lambda: item.sizeHint().height() < narrow)  # wider: fewer lines


def test_a_match_in_code_or_a_link_is_marked(qtbot, index) -> None:
    panel = SearchPanel()
    qtbot.addWidget(panel)
    panel.set_search_function(index.search, index.search_total)
    panel.search("infranodus")
    (only,) = [panel.results.itemWidget(panel.results.item(i)) for i in range(1)]
    assert "\x02" not in only.text() and "\x03" not in only.text()
    assert "<b style=" in only.text()
