"""The page's controls (issue 34, items 4 and 17): a code block's "Copy" puts its text on
the clipboard; a web link pointed at shows where it leads in the status bar, and one
nothing on the system opens says so; on paper and in an export the window's controls
(Copy, fold markers, the demo's button) are left out. A real window on a temp vault."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QUrl
from PySide6.QtWidgets import QApplication
from reader_window import window_opener, write_files

CODE = 'def scaled(q, k):\n    return q @ k.T / len(q) ** 0.5  # "√d"\n'
FILES = {
    "Notes/Code & links.md": "# Code & links\n\nSee [the paper](https://arxiv.org/abs/1706.03762)."
    "\n\n## The code\n\n```python\n" + CODE + "```\n\n```demo\nattention-scaling\n```\n",
}


@pytest.fixture
def open_window(qtbot, tmp_path: Path, settings: QSettings):
    vault = write_files(tmp_path / "vault", FILES)
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Notes/Code & links")


def test_copy_puts_the_code_on_the_clipboard(open_window, qtbot) -> None:
    win = open_window()
    pane = win.entry_pane
    assert "Copy" in pane.toPlainText()
    QApplication.clipboard().clear()
    pane.anchorClicked.emit(QUrl("copy:0"))
    assert QApplication.clipboard().text() == CODE.rstrip("\n")  # as written, not highlighted
    assert win.statusBar().currentMessage() == "Copied the code"
    pane.anchorClicked.emit(QUrl("copy:7"))  # no such block: nothing happens
    assert QApplication.clipboard().text() == CODE.rstrip("\n")


def test_a_web_link_says_where_it_leads_and_when_nothing_opens_it(open_window, qtbot) -> None:
    win = open_window()
    pane = win.entry_pane
    url = "https://arxiv.org/abs/1706.03762"
    pane.highlighted.emit(QUrl(url))  # the pointer over the link
    assert win.statusBar().currentMessage() == url
    pane.highlighted.emit(QUrl(""))  # and off it
    assert win.statusBar().currentMessage() == ""
    pane.open_external = lambda _url: False  # type: ignore[method-assign]  # no browser
    pane.anchorClicked.emit(QUrl(url))
    assert win.statusBar().currentMessage() == f"Nothing on this system opens {url}"


def test_paper_and_exports_leave_the_controls_out(open_window, tmp_path: Path) -> None:
    win = open_window()
    shown = win.entry_pane.toPlainText()
    assert "Copy" in shown and "▾" in shown and "Open the attention-scaling demo" in shown
    paper = win.entry_pane.printable()
    assert paper is not None
    text = paper.toPlainText()
    paper.deleteLater()
    assert "Copy" not in text and "▾" not in text and "Open the attention-scaling demo" not in text
    assert "return q @ k.T" in text and "The code" in text  # the page itself stays
    out = win.export_html(tmp_path / "page.html")
    assert out is not None
    html = out.read_text(encoding="utf-8")
    assert "copy:" not in html and "fold:" not in html and "demo:" not in html
    assert "Copy</a>" not in html and "The code" in html
