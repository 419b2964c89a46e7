"""The note's place on the page (issue 34, item 3): its folders as a breadcrumb above the
title, each a click into the explorer, and its file name when the title does not say it.
A real window on a temp vault."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QUrl
from reader_window import window_opener, write_files

FILES = {
    "Home.md": "# Home\n\n[[Plan 🚀]] [[Top]]\n",
    "Projects/2024/Plan 🚀.md": "# Launch plan\n\nThe plan.\n",
    "Top.md": "# Top\n\nAt the top, titled as its file.\n",
}


@pytest.fixture
def open_window(qtbot, tmp_path: Path, settings: QSettings):
    vault = write_files(tmp_path / "vault", FILES)
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Projects/2024/Plan 🚀")


def test_the_breadcrumb_shows_the_folders_and_the_file(open_window, qtbot) -> None:
    win = open_window()
    lines = win.entry_pane.toPlainText().splitlines()
    assert lines[0] == "Projects › 2024 › Plan 🚀.md"
    assert lines[1] == "Launch plan"
    win.entry_pane.anchorClicked.emit(QUrl("folder:Projects/2024"))
    explorer = win.explorer
    assert explorer is not None and win.explorer_dock.isVisible()
    current = explorer.tree.currentIndex()
    assert current == explorer.folder_index("Projects/2024")
    assert explorer.tree.isExpanded(explorer.folder_index("Projects"))
    assert explorer.tree.isExpanded(current)

    assert win.show_entry("Top")  # at the top, titled as its file: no breadcrumb
    assert win.entry_pane.toPlainText().splitlines()[0] == "Top"
