"""Dataview in the real window: a dashboard renders off the GUI thread ("Rendering…" in
place meanwhile), its results come in pages of 1,000 that the reader steps through where
they are reading, and they follow the notes they read when the vault changes on disk.
A copy of tests/vaults/dataview/ with 1,200 more notes written to a temp folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QUrl
from reader_window import window_opener

from sample_vault import write_newer

DATAVIEW_VAULT = Path(__file__).resolve().parents[1] / "vaults" / "dataview"
MANY = 1_200
PAGED = 'TABLE n FROM "Many" SORT n ASC'


@pytest.fixture
def open_window(qtbot, tmp_path: Path, settings: QSettings):
    vault = tmp_path / "vault"
    shutil.copytree(DATAVIEW_VAULT, vault)
    (vault / "Many").mkdir()
    for i in range(MANY):
        (vault / "Many" / f"Item {i:04d}.md").write_text(f"n:: {i}\n", encoding="utf-8")
    (vault / "Dashboards" / "Many.md").write_text(
        f"# Many\n\n```dataview\n{PAGED}\n```\n\nThe end of the page.\n", encoding="utf-8"
    )
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Dashboards/Games")


def test_results_in_pages_the_reader_steps_through(open_window, qtbot) -> None:
    win = open_window()
    pane = win.entry_pane
    assert win.show_entry("Dashboards/Many")
    qtbot.waitUntil(lambda: "Rows 1–1,000 of 1,200" in pane.toPlainText(), timeout=20000)
    text = pane.toPlainText()
    assert "Item 0999" in text and "Item 1000" not in text
    assert "The end of the page." in text
    pane.anchorClicked.emit(QUrl("dataview-page:0:1"))  # "2", as a click sends it
    qtbot.waitUntil(lambda: "Rows 1,001–1,200 of 1,200" in pane.toPlainText(), timeout=20000)
    text = pane.toPlainText()
    assert "Item 1000" in text and "Item 1199" in text and "Item 0999" not in text
    # the page of results stays with the page while the window is open
    assert win.show_entry("Dashboards/Games")
    qtbot.waitUntil(lambda: "Elden Ring" in pane.toPlainText(), timeout=20000)
    assert win.show_entry("Dashboards/Many")
    qtbot.waitUntil(lambda: "Rows 1,001–1,200" in pane.toPlainText(), timeout=20000)
    pane.anchorClicked.emit(QUrl("dataview-page:0:0"))
    qtbot.waitUntil(lambda: "Rows 1–1,000 of 1,200" in pane.toPlainText(), timeout=20000)


def test_results_follow_the_notes(open_window, qtbot) -> None:
    win = open_window()
    pane = win.entry_pane
    qtbot.waitUntil(lambda: "Stardew Valley" in pane.toPlainText(), timeout=20000)
    assert pane.ran_query
    assert "Hollow Knight" not in pane.toPlainText()
    write_newer(win.index.root / "Games" / "Hollow Knight.md",
                "---\nrating: 9.7\ntags: [games/metroidvania]\n---\nBugs.\n")  # fmt: skip
    win.reindex()
    qtbot.waitUntil(lambda: "Hollow Knight" in pane.toPlainText(), timeout=20000)
    text = pane.toPlainText()
    assert text.index("Hollow Knight") < text.index("Elden Ring")  # 9.7 before 9.5
