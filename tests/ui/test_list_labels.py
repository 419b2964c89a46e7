"""The lists (quick switcher, search, backlinks) show a path-id vault's entries by title,
with the folder only where two entries of the list share a title: the two ``Plan.md`` of
``tests/vaults/obsidian-rules/report/alpha`` and ``…/beta``."""

from __future__ import annotations

import functools

import pytest
from PySide6.QtWidgets import QLabel

from anthology.ui.panels.backlinks_panel import BacklinksPanel
from anthology.ui.panels.quick_switcher import QuickSwitcher
from anthology.ui.panels.search_panel import SearchPanel
from anthology.vault import EntryRef, VaultIndex, display_labels
from anthology.vault.backlinks import BacklinksView

UNIQUE = "report/Unique note for labels"


@pytest.fixture
def index(obsidian_index: VaultIndex) -> VaultIndex:
    return obsidian_index


def test_the_switcher_tells_the_two_plans_apart_by_folder(qtbot, index: VaultIndex) -> None:
    switcher = QuickSwitcher()
    qtbot.addWidget(switcher)
    switcher.set_entries(index.switcher_items())
    switcher.input.setText("Unique note for labels")
    assert switcher.list.item(0).text() == "Unique note for labels"  # the title, no path
    switcher.input.setText("plan")
    shown = {switcher.list.item(i).data(0x0100): switcher.list.item(i).text()
             for i in range(switcher.list.count())}  # fmt: skip
    assert shown["report/alpha/Plan"] == "Plan (alpha)"
    assert shown["report/beta/Plan"] == "Plan (beta)"


def test_search_results_show_titles_and_the_telling_folder(qtbot, index: VaultIndex) -> None:
    panel = SearchPanel()
    qtbot.addWidget(panel)
    panel.set_search_function(lambda q: index.search(q, limit=50))
    panel.search('"plan" "see"')
    texts = {
        panel.results.item(i).data(0x0100): panel.results.itemWidget(panel.results.item(i))
        for i in range(panel.results.count())
    }
    assert isinstance(texts["report/alpha/Plan"], QLabel)
    assert texts["report/alpha/Plan"].text().startswith("<b>Plan (alpha)</b><br>")
    assert texts["report/beta/Plan"].text().startswith("<b>Plan (beta)</b><br>")


def test_backlinks_rows_show_the_plans_by_title_and_folder(qtbot, index: VaultIndex) -> None:
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    groups, sources = index.backlink_groups(UNIQUE)
    panel.show_backlinks(
        BacklinksView(UNIQUE, groups, sources, functools.partial(index.backlinks_page, UNIQUE))
    )
    (group,) = [panel.model.index(i, 0) for i in range(panel.model.rowCount())]
    rows = [panel.model.index(k, 0, group).data() for k in range(panel.model.rowCount(group))]
    assert sorted(row.split("\n")[0] for row in rows) == ["Plan (alpha)", "Plan (beta)"]


def test_labels_keep_declared_ids_and_use_the_fewest_folder_parts() -> None:
    refs = [
        EntryRef("LIT-008", "Attention", "papers/LIT-008.md"),
        EntryRef("a/x/Plan", "Plan", "a/x/Plan.md"),
        EntryRef("b/x/Plan", "Plan", "b/x/Plan.md"),
        EntryRef("Plan", "Plan", "Plan.md"),
        EntryRef("c/Other", "Other", "c/Other.md"),
        EntryRef("a/x/Plan", "Plan", "a/x/Plan.md"),  # the same entry again: no clash
    ]
    assert display_labels(refs) == [
        "LIT-008 — Attention", "Plan (a/x)", "Plan (b/x)", "Plan (/)", "Other", "Plan (a/x)",
    ]  # fmt: skip
    same_folder = [EntryRef("d/One", "Plan", "d/One.md"), EntryRef("d/Two", "Plan", "d/Two.md")]
    assert display_labels(same_folder) == ["Plan (d/One)", "Plan (d/Two)"]
    assert display_labels([EntryRef("Solo", "", "Solo.md")]) == ["Solo"]
