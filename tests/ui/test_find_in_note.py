"""Find in the note (Ctrl+F) and a search result that lands on its match (issue 34, items 1
and 2): the find bar's count, next and previous by keys, every match highlighted, Esc;
plain text (regex characters are characters), 10,000 matches, right-to-left text; a search
result opened scrolled to its first match, highlighted. A real window on a temp vault."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from reader_window import window_opener, write_files

PARAGRAPH = "Scaled attention keeps the softmax sharp. " * 3
FILES = {
    "Home.md": "# Home\n\nStart with [[Attention notes]].\n",
    "Reading/Attention notes.md": "# Attention notes\n\n"
    + "\n\n".join(f"Paragraph {i}. {PARAGRAPH}" for i in range(40))
    + "\n\nThe graph view at the very end, far below.\n\nA regex a.*b( and (a|b) written out.\n"
    "\n\nمرحبا بالعالم attention\u200b here.\n",
    "Many x.md": "# Many\n\n" + "x " * 12_000 + "\n",
}


@pytest.fixture
def open_window(qtbot, tmp_path: Path, settings: QSettings):
    vault = write_files(tmp_path / "vault", FILES)
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Reading/Attention notes")


def test_find_counts_steps_and_highlights_every_match(open_window, qtbot) -> None:
    win = open_window()
    bar, pane = win.find_bar, win.entry_pane
    assert not bar.isVisible()
    win.act_find.trigger()  # Ctrl+F
    assert bar.isVisible() and bar.box.hasFocus()
    qtbot.keyClicks(bar.box, "ATTENTION")
    n = pane.toPlainText().lower().count("attention")  # 40 × 3, the title's, the last line's
    assert n > 120
    qtbot.waitUntil(lambda: bar.count.text() == f"{n} found")
    assert len(pane.extraSelections()) == n
    qtbot.keyClick(bar.box, Qt.Key.Key_Return)
    assert bar.count.text() == f"1 of {n}"
    assert pane.current_match().lower() == "attention"
    qtbot.keyClick(bar.box, Qt.Key.Key_Return)
    assert bar.count.text() == f"2 of {n}"
    qtbot.keyClick(bar.box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count.text() == f"1 of {n}"
    qtbot.keyClick(bar.box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count.text() == f"{n} of {n}"  # round to the last
    assert pane.cursorRect().bottom() <= pane.viewport().height()  # scrolled to it
    win.act_find_next.trigger()  # F3
    assert bar.count.text() == f"1 of {n}"

    bar.box.setText("a.*b(")  # regex characters are characters
    bar.refind()
    assert bar.count.text() == "1 found"
    bar.box.setText("no such words")
    bar.refind()
    assert bar.count.text() == "No matches" and pane.extraSelections() == []
    bar.box.setText("مرحبا")  # right to left
    bar.refind()
    assert bar.count.text() == "1 found"

    qtbot.keyClick(bar.box, Qt.Key.Key_Escape)
    assert not bar.isVisible() and pane.extraSelections() == []


def test_ten_thousand_matches_are_counted_as_such(open_window, qtbot) -> None:
    win = open_window()
    assert win.show_entry("Many x")
    win.find_bar.open_bar("x")  # (the long page may still be rendering: found once shown)
    qtbot.waitUntil(lambda: win.find_bar.count.text() == "10,000+ found")
    win.find_bar.step()
    assert win.find_bar.count.text() == "1 of 10,000+"


def test_the_bar_follows_the_tab_and_an_edit(open_window, qtbot) -> None:
    win = open_window()
    win.find_bar.open_bar("attention")
    n = win.entry_pane.toPlainText().lower().count("attention")
    assert win.find_bar.total == n
    win.open_in_new_tab("Home")
    assert win.find_bar.total == 1 == len(win.entry_pane.extraSelections())  # the link's text
    win.tabs.setCurrentIndex(0)
    assert win.find_bar.total == n
    assert win.root is not None
    note = win.root / "Reading" / "Attention notes.md"
    note.write_text("# Attention notes\n\nOnly one attention left.\n", encoding="utf-8")
    win.reindex()
    qtbot.waitUntil(
        lambda: "Only one attention left" in win.entry_pane.toPlainText(), timeout=20000
    )
    shown = win.entry_pane.toPlainText().lower().count("attention")
    assert shown < 10 and win.find_bar.total == shown == len(win.entry_pane.extraSelections())


def test_a_search_result_opens_at_its_match(open_window, qtbot) -> None:
    win = open_window(entry="Home")
    win.search_panel.search("graph view")
    assert win.search_panel.result_ids() == ["Reading/Attention notes"]
    win.search_panel.results.itemClicked.emit(win.search_panel.results.item(0))
    pane = win.entry_pane
    qtbot.waitUntil(lambda: win.current_id() == "Reading/Attention notes" and not pane.rendering)
    qtbot.waitUntil(lambda: win.find_bar.count.text() == "1 of 1")
    assert pane.current_match() == "graph view"
    assert pane.verticalScrollBar().value() > 0  # far below: scrolled there
    rect = pane.cursorRect()
    assert rect.top() >= 0 and rect.bottom() <= pane.viewport().height()
