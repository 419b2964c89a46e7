"""A ``.base`` opens in a tab (the kind "base"): its views switch, its headers sort on a
click without the file being written, its cells open their notes, a bad base says why, and
the query runs off the GUI thread. A real window on a copy of tests/vaults/bases/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QUrl
from reader_window import window_opener

from anthology.ui.common.document import kind_for_file
from anthology.ui.reading.base_view import BaseView
from sample_vault import write_newer

BASES_VAULT = Path(__file__).resolve().parents[1] / "vaults" / "bases"


@pytest.fixture
def open_window(qtbot, tmp_path: Path, settings: QSettings):
    vault = tmp_path / "vault"
    shutil.copytree(BASES_VAULT, vault)
    (vault / "Bases" / "Broken.base").write_text("views: [unclosed\n", encoding="utf-8")
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Categories/Books")


def _rows(view: BaseView) -> list[str]:
    """The books the tab shows, in the order it shows them."""
    text = view.browser.toPlainText()
    shown = [n for n in ("Dune", "Piranesi", "The Left Hand of Darkness") if n in text]
    return sorted(shown, key=text.index)


def test_a_base_in_a_tab(open_window, qtbot) -> None:
    win = open_window()
    assert kind_for_file("bases/books.base") is not None
    base_file = win.index.root / "Bases" / "Books.base"
    before = base_file.read_bytes()

    assert win.open_document("base", "Bases/Books.base")
    view = win.tabs.document()
    assert isinstance(view, BaseView) and view.isVisible()
    assert view.status.text() == "Evaluating…"  # the query runs on a worker
    qtbot.waitUntil(lambda: not view.busy and "results" in view.status.text(), timeout=10000)
    assert [view.views.itemText(i) for i in range(view.views.count())] == [
        "Books", "Top rated", "Author", "Genre",
    ]  # fmt: skip
    assert view.status.text() == "3 results"
    assert _rows(view) == ["Dune", "Piranesi", "The Left Hand of Darkness"]
    assert win.tabs.tabText(win.tabs.currentIndex()) == "Books"

    view.views.setCurrentIndex(1)
    view.views.activated.emit(1)  # "Top rated": last read, newest first
    qtbot.waitUntil(lambda: not view.busy and "results" in view.status.text(), timeout=10000)
    assert _rows(view) == ["Piranesi", "Dune", "The Left Hand of Darkness"]

    view.browser.anchorClicked.emit(QUrl("base-sort:2"))  # the "last" header: oldest first
    assert _rows(view) == ["The Left Hand of Darkness", "Dune", "Piranesi"]
    assert "last ▲" in view.browser.toPlainText()
    view.browser.anchorClicked.emit(QUrl("base-sort:2"))  # again: newest first
    assert _rows(view) == ["Piranesi", "Dune", "The Left Hand of Darkness"]
    assert base_file.read_bytes() == before  # sorting never writes the file

    view.browser.anchorClicked.emit(QUrl("entry:Books%2FDune"))  # a cell's link
    assert win.current_id() == "Books/Dune"
    win.go_back()
    assert win.tabs.document() is view


def test_a_broken_base_says_why_in_its_tab(open_window, qtbot) -> None:
    win = open_window()
    assert win.open_document("base", "Bases/Broken.base")
    view = win.tabs.document()
    assert isinstance(view, BaseView)
    assert "Base error: the base is not valid YAML" in view.browser.toPlainText()
    assert not win.open_document("base", "Bases/Nowhere.base")


NEW_BOOK = (
    '---\ncategories:\n  - "[[Books]]"\nauthor: "[[Frank Herbert]]"\nyear: 1969\n'
    "rating: 3\nlast: 2022-05-05\n---\nThe sequel.\n"
)


def test_results_follow_the_notes(open_window, qtbot) -> None:
    """A book written on disk after the page was shown: a refresh of the index renders
    again the page holding the base (no note of it changed) and the base's tab."""
    win = open_window()
    assert win.current_id() == "Categories/Books"
    assert "3 results" in win.entry_pane.toPlainText()
    assert win.entry_pane.ran_query
    write_newer(win.index.root / "Books" / "Dune Messiah.md", NEW_BOOK)
    win.reindex()
    qtbot.waitUntil(lambda: "4 results" in win.entry_pane.toPlainText(), timeout=20000)
    assert "Dune Messiah" in win.entry_pane.toPlainText()

    assert win.open_document("base", "Bases/Books.base")
    view = win.tabs.document()
    assert isinstance(view, BaseView)
    qtbot.waitUntil(lambda: view.status.text() == "4 results", timeout=10000)
    (win.index.root / "Books" / "Dune Messiah.md").unlink()
    win.reindex()
    qtbot.waitUntil(lambda: view.status.text() == "3 results", timeout=20000)
    assert "Dune Messiah" not in view.browser.toPlainText()
