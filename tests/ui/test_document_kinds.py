"""A tab holds a document, not only an entry: a second kind registered (a plain-text viewer,
made here) opens in a tab beside the entries, back and forward go across the two kinds,
the window's looks reach it, and a restart puts it back.

The viewer is a real widget answering :class:`~anthology.ui.common.document.DocumentView`;
the window is a real MainWindow on a real index (see reader_window.py)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt, QUrl
from PySide6.QtGui import QFont, QIcon, QTextCursor, QTextDocument
from PySide6.QtWidgets import QPlainTextEdit, QWidget
from reader_window import paragraphs, window_opener, write_files

from anthology.ui.common import document
from anthology.ui.common.document import ENTRY, DocumentKind, DocumentView, OpenVault
from anthology.ui.reading.entry_pane import EntryPane
from anthology.ui.window import actions
from anthology.vault.render.reading import ReadingStyle

FILES = {
    "HOME.md": "---\ntitle: Home\n---\nStart at [[Alpha]].\n",
    "notes/alpha.md": "---\ntitle: Alpha\n---\nSee [[Beta]].\n\n" + paragraphs("a", 30) + "\n",
    "notes/beta.md": "---\ntitle: Beta\n---\nBack to [[Alpha]].\n\nRead [[short.txt]] or "
    "[the other](<read me.txt>).\n",
    "notes/read me.txt": "\n".join(f"line {i} <b>not bold</b>" for i in range(400)) + "\n",
    "notes/short.txt": "Short & plain.\n",
}


class TextView(QPlainTextEdit):
    """The trivial second kind: a vault's text file, read-only, as it is."""

    kind = "text"

    def __init__(self) -> None:
        super().__init__()
        self.setReadOnly(True)
        self._root: Path | None = None
        self._ref: str | None = None
        self.theme = "light"
        self.style_set: ReadingStyle | None = None
        self.closed = False

    def widget(self) -> QWidget:
        return self

    def document_id(self) -> str | None:
        return self._ref

    def open_document(self, ref: str) -> bool:
        path = (self._root / ref).resolve() if self._root is not None else None
        if path is None or not path.is_file() or self._root not in path.parents:
            return False
        self.setPlainText(path.read_text(encoding="utf-8"))
        self._ref = ref
        return True

    def title(self) -> str:
        return Path(self._ref or "").name

    def tooltip(self) -> str:
        return self._ref or ""

    def icon(self) -> QIcon:
        return QIcon()

    def scroll_position(self) -> int:
        return self.verticalScrollBar().value()

    def restore_scroll(self, position: int) -> None:
        self.verticalScrollBar().setValue(position)

    def scroll_to(self, anchor: str) -> bool:
        return self.find_text(anchor)

    def find_text(self, text: str, *, backward: bool = False) -> bool:
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        return bool(text) and self.find(text, flags)

    def printable(self) -> QTextDocument | None:
        return self.document().clone(self) if self._ref else None

    def export_html(self) -> str | None:
        return f"<pre>{html.escape(self.toPlainText())}</pre>" if self._ref else None

    def set_theme(self, theme: str) -> None:
        self.theme = theme

    def set_reading(self, style: ReadingStyle, *, readable: bool = True, width: int = 760) -> None:
        self.style_set = style
        font = QFont(self.font())
        font.setPointSizeF(style.font_size)
        self.setFont(font)

    def attach_vault(self, vault: OpenVault) -> None:
        self._root = vault.root.resolve()

    def shutdown(self) -> None:
        self.closed = True


def text_exists(vault: OpenVault, ref: str) -> bool:
    return (vault.root / ref).is_file()


@pytest.fixture
def text_kind():
    document.register(
        DocumentKind("text", TextView, text_exists, "Text", opens=lambda rel: rel.endswith(".txt"))
    )
    yield
    document.unregister("text")


@pytest.fixture
def open_window(qtbot, tmp_path: Path, settings: QSettings, text_kind):
    vault = write_files(tmp_path / "vault", FILES)
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="notes/alpha")


def test_the_kinds_are_registered_and_views_answer_the_protocol(text_kind, qtbot) -> None:
    assert document.kinds()[:1] == [ENTRY] and "text" in document.kinds()
    view = TextView()
    qtbot.addWidget(view)
    assert isinstance(view, DocumentView)
    pane = EntryPane()
    qtbot.addWidget(pane)
    assert isinstance(pane, DocumentView) and pane.kind == ENTRY
    document.unregister(ENTRY)  # the entry page cannot be taken away
    assert document.document_kind(ENTRY) is not None


def test_a_text_document_opens_beside_entries_with_back_and_forward(open_window, qtbot) -> None:
    win = open_window()
    assert win.current_id() == "notes/alpha"
    win.entry_pane.verticalScrollBar().setValue(300)

    assert win.open_document("text", "notes/read me.txt")
    shown = win.tabs.document()
    assert isinstance(shown, TextView) and shown.isVisible() and not win.entry_pane.isVisible()
    assert "line 7 <b>not bold</b>" in shown.toPlainText()  # as it is: no markup read
    assert win.tabs.tabText(win.tabs.currentIndex()) == "read me.txt"
    assert win.current_id() is None  # no entry is shown now
    assert win.history[-2:] == ["notes/alpha", "notes/read me.txt"]
    assert win.act_back.isEnabled() and "read me.txt" in win.windowTitle()
    shown.verticalScrollBar().setValue(120)

    win.go_back()  # to the entry, where the reader was in it
    assert win.current_id() == "notes/alpha" and win.entry_pane.isVisible()
    assert not shown.isVisible() and win.tabs.tabText(win.tabs.currentIndex()) == "Alpha"
    assert win.entry_pane.verticalScrollBar().value() == 300
    win.go_forward()  # and to the text again, the same view, where it was left
    assert win.tabs.document() is shown and shown.isVisible()
    assert shown.verticalScrollBar().value() == 120

    # an entry followed from there comes after it in the tab's history
    assert win.show_entry("notes/beta")
    assert win.history[-3:] == ["notes/alpha", "notes/read me.txt", "notes/beta"]
    win.go_back()
    assert win.tabs.document() is shown and win.current_id() is None
    assert win.act_forward.isEnabled()  # to the entry followed from the text

    # what is not there, or a kind nobody registered, is refused with a message
    assert not win.open_document("text", "../outside.txt")
    assert not win.open_document("no-such-kind", "board.canvas")
    assert win.tabs.document() is shown and "cannot show" in win.statusBar().currentMessage()


def test_a_link_to_a_file_of_a_kind_opens_it_in_a_tab(open_window, qtbot) -> None:
    """A link to a vault file that a kind of document opens (a PDF, a canvas, a drawing…)
    shows it in the tab, not in the system's program; Ctrl+click: in a new tab."""
    win = open_window()
    assert win.show_entry("notes/beta")
    hrefs = re.findall(r'href="(vault:[^"]+)"', win.entry_pane.rendered.html)
    assert hrefs == ["vault:notes/short.txt", "vault:notes/read%20me.txt"]
    asked: list[str] = []
    win.entry_pane.ask_attachment = lambda _parent, rel, _kind: asked.append(rel) or False

    win.entry_pane.anchorClicked.emit(QUrl(hrefs[0]))  # a click on [[short.txt]]
    shown = win.tabs.document()
    assert isinstance(shown, TextView) and shown.toPlainText() == "Short & plain.\n"
    assert win.tabs.count() == 1 and win.history[-2:] == ["notes/beta", "notes/short.txt"]
    assert asked == []  # opened by the app: no question about the system opening it

    win.go_back()
    pane = win.entry_pane
    pane.resize(600, 400)
    # Ctrl+click on the second link: a new tab, the first keeps the entry
    spot = _anchor_spot(pane, hrefs[1])
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.ControlModifier, spot)  # fmt: skip
    assert win.tabs.count() == 2 and win.tabs.currentIndex() == 1
    assert win.tabs.document().document_id() == "notes/read me.txt"
    win.tabs.setCurrentIndex(0)
    assert win.current_id() == "notes/beta"


def _anchor_spot(pane: EntryPane, href: str) -> QPoint:
    """Where in the pane's viewport the link to ``href`` is drawn."""
    doc = pane.document()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.charFormat().anchorHref() == href:
                cursor = QTextCursor(doc)
                cursor.setPosition(frag.position() + 1)
                return pane.cursorRect(cursor).center()
            it += 1
        block = block.next()
    raise AssertionError(f"no link to {href}")


def test_a_text_tab_beside_entry_tabs_follows_the_looks_and_prints(
    open_window, qtbot, tmp_path: Path
) -> None:
    win = open_window()
    assert win.open_document("text", "notes/short.txt", new_tab=True)
    assert win.tabs.count() == 2
    text = win.tabs.document()
    assert isinstance(text, TextView) and text.theme == win.theme
    win.tabs.setCurrentIndex(0)  # the entry tab
    assert win.current_id() == "notes/alpha" and win.entry_pane.isVisible()
    win.tabs.setCurrentIndex(1)
    assert win.tabs.document() is text and win.current_id() is None

    win.set_theme("dark")
    assert text.theme == "dark" and win.entry_pane.theme() == "dark"
    actions.zoom(win, 2)  # Ctrl+= twice
    assert text.style_set is not None and text.style_set.font_size == win.reading.font_size
    out = win.export_html(tmp_path / "short.html")
    assert out is not None and out.read_text(encoding="utf-8") == "<pre>Short &amp; plain.\n</pre>"
    pdf = win.export_pdf(tmp_path / "short.pdf")
    assert pdf is not None and pdf.read_bytes().startswith(b"%PDF")

    assert not win.open_document("text", "notes/missing.txt", new_tab=True)
    assert win.tabs.count() == 2 and win.tabs.document() is text  # no empty tab left
    win.close_tab()  # the text tab goes; its view is told first
    assert text.closed and win.tabs.count() == 1 and win.current_id() == "notes/alpha"


def test_a_text_tab_survives_a_restart_unless_its_file_is_gone(open_window, qtbot) -> None:
    win = open_window()
    assert win.open_document("text", "notes/read me.txt", new_tab=True)
    win.tabs.document().verticalScrollBar().setValue(90)
    assert win.open_document("text", "notes/short.txt", new_tab=True)
    win.tabs.setCurrentIndex(1)
    win.close()

    again = open_window(entry=None)
    assert again.tabs.count() == 3 and again.tabs.currentIndex() == 1
    shown = again.tabs.document()
    assert isinstance(shown, TextView) and shown.document_id() == "notes/read me.txt"
    assert shown.verticalScrollBar().value() == 90
    assert again.tabs.tabText(2) == "short.txt"  # not shown yet, titled all the same
    again.tabs.setCurrentIndex(2)
    assert again.tabs.document().document_id() == "notes/short.txt"
    again.close()

    (Path(again.root) / "notes" / "short.txt").unlink()
    third = open_window(entry=None)
    assert third.tabs.count() == 2  # the tab of the file gone is not restored
    assert [third.tabs.tabText(i) for i in range(2)] == ["Alpha", "read me.txt"]


def test_an_entry_edited_on_disk_under_a_text_document_is_seen_on_the_way_back(
    open_window, qtbot
) -> None:
    win = open_window()
    assert win.open_document("text", "notes/short.txt")
    alpha = Path(win.root) / "notes" / "alpha.md"
    alpha.write_text("---\ntitle: Alpha\n---\nRewritten while the text was read.\n", "utf-8")
    win.reindex()
    qtbot.waitUntil(lambda: not win.indexing and not win.live.debounce.isActive(), timeout=10000)
    assert win.tabs.document().document_id() == "notes/short.txt"  # still the text, not home
    win.go_back()
    assert win.current_id() == "notes/alpha"
    assert "Rewritten while the text was read." in win.entry_pane.toPlainText()
