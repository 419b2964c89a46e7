"""Reading settings, folds, print and export, and the window's fixes, in the real window.

A small Obsidian-shaped vault (folders, a name with spaces and a dot, no id/kind) is written
to tmp_path; a "restart" is a fresh MainWindow on the same QSettings and state folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import QMessageBox
from reader_window import anchor_cursor, paragraphs, tiny_png, window_opener, write_files

from anthology.ui.window.main_window import MainWindow

FILES = {
    "HOME.md": "Start at [[Alpha v1.2]].\n",
    "notes/Alpha v1.2.md": (
        "---\ntags: [reading]\n---\nSee [[Beta]].\n\n## First part\n\n"
        + paragraphs("first", 4)
        + "\n\n### Inner\n\ninner words here\n\n## Second part\n\n"
        + paragraphs("second", 3)
        + "\n\nThe energy is $E = mc^2$.\n"
    ),
    "notes/Beta.md": "Back to [[Alpha v1.2]].\n\n> [!note]- Hidden callout\n> callout body\n",
    "pics/dot.png": None,
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_files(tmp_path / "vault", FILES, tiny_png)


@pytest.fixture
def open_window(qtbot, tmp_path: Path, vault: Path, settings: QSettings):
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="notes/Alpha v1.2")


def body_point_size(win: MainWindow) -> float:
    """The point size of the first paragraph's text in the active pane."""
    doc = win.entry_pane.document()
    found = doc.find("lorem ipsum")
    assert not found.isNull()
    return found.charFormat().font().pointSizeF()


def text_column(win: MainWindow) -> int:
    pane = win.entry_pane
    fmt = pane.document().rootFrame().frameFormat()
    return int(pane.viewport().width() - fmt.leftMargin() - fmt.rightMargin())


def test_reading_settings_change_every_pane_and_persist(open_window, qtbot) -> None:
    win = open_window()
    win.new_tab()
    other = win.tabs.panes()[0]
    before = body_point_size(win)
    win.open_preferences()
    dialog = win.preferences
    dialog.width_box.setValue(400)
    column = text_column(win)
    assert abs(column - 400) <= 2  # a centred column of that width
    dialog.size_box.setValue(16)
    dialog.family_box.setCurrentIndex(1)  # serif
    dialog.readable_box.setChecked(False)
    after = body_point_size(win)
    assert after > before
    assert text_column(win) > column  # the whole pane, not the centred column
    font = win.entry_pane.document().find("lorem ipsum").charFormat().font()
    assert "serif" in " ".join(font.families()).lower() or QFontInfo(font).family()
    assert other.reading_style.font_size == 16 and not other.readable_width
    dialog.readable_box.setChecked(True)
    dialog.width_box.setValue(500)
    assert abs(text_column(win) - 500) <= 2
    win.close()

    again = open_window()  # a fresh window on the same settings
    assert again.reading.font_size == 16 and again.reading.serif and again.reading.width == 500
    assert abs(body_point_size(again) - after) < 0.01
    assert abs(text_column(again) - 500) <= 2


def test_ctrl_plus_grows_the_font_and_ctrl_0_resets(open_window, qtbot) -> None:
    win = open_window()
    before = body_point_size(win)
    qtbot.keyClick(win, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(win, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert body_point_size(win) > before
    assert win.reading.font_size == 14
    qtbot.keyClick(win, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert win.reading.font_size == 13
    qtbot.keyClick(win, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert abs(body_point_size(win) - before) < 0.01


def _formula_width(win: MainWindow) -> float:
    """The laid-out width of the page's typeset formula ($E = mc^2$)."""
    doc = win.entry_pane.document()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat() and fmt.toImageFormat().name().startswith("math:"):
                return fmt.toImageFormat().width()
            it += 1
        block = block.next()
    raise AssertionError("no formula on the page")


def test_formulas_grow_with_the_reading_size(open_window, qtbot) -> None:
    """Ctrl+= three times left formulas at 12 pt while the text grew (issue 34, item 10)."""
    win = open_window()
    before = _formula_width(win)
    text_before = body_point_size(win)
    for _ in range(3):
        qtbot.keyClick(win, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    grown = body_point_size(win) / text_before
    assert grown > 1.2
    assert _formula_width(win) / before == pytest.approx(grown, rel=0.08)
    qtbot.keyClick(win, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert _formula_width(win) == pytest.approx(before, abs=1)


def test_the_entry_keeps_its_width_when_the_demo_opens(open_window, qtbot) -> None:
    from anthology.ui.window.docks import ENTRY_MIN_WIDTH

    win = open_window()
    win.resize(1000, 700)
    win.open_demo("attention-scaling")
    qtbot.waitUntil(lambda: win.demo_dock.isVisible(), timeout=5000)
    qtbot.wait(50)
    assert win.tabs.width() >= ENTRY_MIN_WIDTH
    assert win.demo_dock.widget().minimumWidth() <= 300  # its content cannot widen it
    win.resizeDocks([win.demo_dock], [2000], Qt.Orientation.Horizontal)  # dragged wide
    qtbot.wait(50)
    assert win.entry_pane.width() >= ENTRY_MIN_WIDTH - 10


def test_a_panel_opening_leaves_the_entry_readable_and_the_reader_in_place(
    open_window, qtbot
) -> None:
    """Opening the demo left the entry 280 px wide and moved the reader back a section
    (issue 34, items 13 and 18): the graph column gives way first, and the text at the top
    of the view stays there."""
    from anthology.ui.window.docks import ENTRY_READABLE_WIDTH

    win = open_window()
    win.resize(1400, 700)
    pane = win.entry_pane
    anchor = next(a for _level, text, a in pane.rendered.headings if text == "Inner")
    assert pane.scroll_to_heading(anchor)  # a heading in the middle of the page
    qtbot.wait(20)
    assert pane.verticalScrollBar().value() > 0
    top_before = pane.cursorForPosition(QPoint(0, 0)).block().text()
    assert "Inner" in top_before
    assert win.graph is not None
    win.graph.controls_button.click()  # the graph's controls open: drawn over the graph,
    assert win.graph.controls_area.isVisible()  # they no longer widen its column
    assert win.graph.minimumSizeHint().width() < 300
    win.open_demo("attention-scaling")
    qtbot.waitUntil(lambda: win.demo_dock.isVisible(), timeout=5000)
    qtbot.waitUntil(lambda: win.tabs.width() >= ENTRY_READABLE_WIDTH - 10, timeout=3000)
    top_after = pane.cursorForPosition(QPoint(0, 0)).block().text()
    assert top_after == top_before  # the reader is where they were
    win.resize(1000, 700)  # a smaller window: the same
    qtbot.wait(50)
    assert pane.cursorForPosition(QPoint(0, 0)).block().text() == top_before


def test_a_first_window_gives_the_explorer_room_for_titles(open_window, settings, qtbot) -> None:
    """A first start sizes the explorer once the window is laid out: it opened at its
    120 px minimum, every row cut to "LIT-11…"; a later start keeps the user's width."""
    from anthology.ui.window.docks import LEFT_DOCK_WIDTH

    win = open_window()
    qtbot.waitUntil(lambda: win.explorer_dock.width() >= LEFT_DOCK_WIDTH - 10, timeout=3000)
    assert win.outline_dock.height() < win.explorer_dock.height()
    win.resizeDocks([win.explorer_dock], [330], Qt.Orientation.Horizontal)  # the user widens it
    qtbot.wait(20)
    widened = win.explorer_dock.width()
    win.close()
    again = open_window()
    qtbot.wait(50)
    assert abs(again.explorer_dock.width() - widened) <= 10


def test_the_tags_pane_opens_wide_enough_to_read(open_window, qtbot) -> None:
    """Shown for the first time, a side dock is given its readable width (it opened at
    Qt's minimum, every tag cut to "#attentio…"); the entry keeps its own."""
    from anthology.ui.window.docks import ENTRY_MIN_WIDTH, SIDE_DOCK_WIDTH

    win = open_window()
    win.act_tags.trigger()
    qtbot.waitUntil(lambda: win.tags_dock.width() >= SIDE_DOCK_WIDTH - 10, timeout=3000)
    assert win.tabs.width() >= ENTRY_MIN_WIDTH
    tree = win.tag_panel.tree
    qtbot.wait(20)
    # the names take the pane's width, the counts only theirs
    assert tree.columnWidth(0) > 0.6 * tree.viewport().width() > tree.columnWidth(1)
    # Bookmarks, tabbed with Tags, comes to the front and pushes nothing aside (its empty
    # state's one long line made it 410 px wide)
    entry_width = win.tabs.width()
    win.act_bookmarks.trigger()
    qtbot.waitUntil(lambda: not win.bookmarks_dock.visibleRegion().isEmpty(), timeout=3000)
    assert win.tags_dock.visibleRegion().isEmpty()
    qtbot.wait(20)
    assert win.tabs.width() >= entry_width - 10


def test_a_saved_layout_crushing_the_entry_is_refused(open_window, settings, qtbot) -> None:
    from anthology.ui.window.docks import ENTRY_MIN_WIDTH

    win = open_window()
    win.resize(1000, 700)
    qtbot.wait(20)
    win.explorer_dock.setMinimumWidth(0)
    win.explorer.setMinimumWidth(0)
    win.tabs.setMinimumWidth(0)  # what an older version allowed: the entry squeezed
    win.right.setMinimumWidth(0)
    win.resizeDocks([win.explorer_dock], [950], Qt.Orientation.Horizontal)
    qtbot.wait(50)
    crushed = win.tabs.width()
    win.close()
    assert crushed < ENTRY_MIN_WIDTH  # the saved state does crush it

    again = open_window()
    again.resize(1000, 700)
    qtbot.waitUntil(lambda: again.tabs.width() >= ENTRY_MIN_WIDTH, timeout=3000)
    assert again.entry_pane.width() >= ENTRY_MIN_WIDTH - 10


def test_close_cancels_running_work_without_waiting_for_it(open_window, qtbot) -> None:
    import threading

    from anthology.tasks import Cancelled

    win = open_window()
    release = threading.Event()
    seen: list[bool] = []

    def slow(state) -> None:  # a refresh that only notices cancelling at its next check
        while not release.wait(0.01):
            if state.is_cancelled:
                seen.append(True)
                release.wait(30)  # ...and takes long to get there
                raise Cancelled()

    task = win.live.indexing.start(slow)
    qtbot.waitUntil(lambda: win.indexing, timeout=2000)
    win.close()
    assert task.is_cancelled  # told to stop, and close() did not wait for it to end
    assert not release.is_set()
    release.set()


def pdf_text(data: bytes) -> str:
    """The text of a PDF Qt wrote, without a PDF library: its streams inflated with zlib,
    each font's ToUnicode map read, and the glyphs shown by Tj/TJ mapped back to text."""
    import re
    import zlib

    objects: dict[int, bytes] = {}
    for m in re.finditer(rb"(\d+) 0 obj(.*?)endobj", data, re.S):
        objects[int(m.group(1))] = m.group(2)

    def stream(body: bytes) -> bytes:
        m = re.search(rb"stream\r?\n(.*?)\r?\nendstream", body, re.S)
        if not m:
            return b""
        raw = m.group(1)
        return zlib.decompress(raw) if b"/FlateDecode" in body else raw

    def cmap(num: int) -> dict[str, str]:
        out: dict[str, str] = {}
        text = stream(objects[num]).decode("latin-1")
        for block in re.findall(r"beginbfchar(.*?)endbfchar", text, re.S):
            for src, dst in re.findall(r"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>", block):
                out[src.lower()] = bytes.fromhex(dst).decode("utf-16-be", "replace")
        for block in re.findall(r"beginbfrange(.*?)endbfrange", text, re.S):
            for lo, hi, dst in re.findall(
                r"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(<[0-9a-fA-F]+>|\[[^\]]*\])", block
            ):
                codes = range(int(lo, 16), int(hi, 16) + 1)
                if dst.startswith("["):  # one destination per code
                    targets = [chr(int(h, 16)) for h in re.findall(r"<([0-9a-fA-F]+)>", dst)]
                else:  # consecutive from the first
                    targets = [chr(int(dst[1:-1], 16) + k) for k in range(len(codes))]
                for code, char in zip(codes, targets, strict=False):
                    out[f"{code:0{len(lo)}x}"] = char
        return out

    fonts: dict[str, dict[str, str]] = {}
    for body in objects.values():
        for name, num in re.findall(rb"/(F\d+|\w+) (\d+) 0 R", body):
            target = objects.get(int(num), b"")
            tu = re.search(rb"/ToUnicode (\d+) 0 R", target)
            if tu:
                fonts[name.decode()] = cmap(int(tu.group(1)))
    words: list[str] = []
    for body in objects.values():
        content = stream(body)
        if b"Tf" not in content:
            continue
        font: dict[str, str] = {}
        for m in re.finditer(rb"/(\w+) [\d.]+ Tf|<([0-9a-fA-F]+)>|\) ?Tj", content):
            if m.group(1):
                font = fonts.get(m.group(1).decode(), {})
            elif m.group(2):
                hexs = m.group(2).decode().lower()
                width = 4 if len(hexs) % 4 == 0 else 2
                words.append("".join(font.get(hexs[i : i + width], "")
                                     for i in range(0, len(hexs), width)))  # fmt: skip
    return "".join(words)


def test_export_as_pdf_writes_the_entry_as_shown(open_window, tmp_path: Path) -> None:
    win = open_window()
    out = win.export_pdf(tmp_path / "alpha.pdf")
    assert out is not None
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    text = "".join(pdf_text(data).split())  # glyphs are placed one by one: spaces vary
    assert "Alphav1.2" in text
    assert "Secondpart" in text  # the body, not just the title


def test_export_as_pdf_says_so_when_the_target_cannot_be_written(
    open_window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder, a missing folder, /proc: a warning and nothing claimed, as the HTML
    export does (Qt's PDF writer failed silently and the window said "Saved")."""
    win = open_window()
    warnings: list[str] = []
    monkeypatch.setattr(
        QMessageBox, "warning", staticmethod(lambda _p, _t, text: warnings.append(text))
    )
    (tmp_path / "a folder").mkdir()
    targets = [tmp_path / "a folder", tmp_path / "missing" / "x.pdf", Path("/proc/x.pdf")]
    for target in targets:
        win.statusBar().clearMessage()
        assert win.export_pdf(target) is None
        assert warnings and warnings[-1].startswith(f"Could not write {target}")
        assert "Saved" not in win.statusBar().currentMessage()
    assert len(warnings) == len(targets)
    assert not (tmp_path / "missing").exists()  # no folder made on the way


def test_export_as_pdf_keeps_only_the_webs_links(open_window, tmp_path: Path) -> None:
    """The app's links (entry:, fold:, unresolved:) lead nowhere in a PDF reader: their text
    stays, their link annotations go; a web link stays one."""
    import re

    (tmp_path / "vault" / "notes" / "Alpha v1.2.md").write_text(
        "## Links\n\nSee [[Beta]], [[Nowhere]] and [the web](https://example.org/x).\n",
        encoding="utf-8",
    )
    win = open_window()
    win.reindex()
    win.show_entry("notes/Alpha v1.2", push=False)
    data = win.export_pdf(tmp_path / "links.pdf").read_bytes()
    uris = re.findall(rb"/URI ?\(([^)]*)\)", data)
    assert uris == [b"https://example.org/x"]
    text = "".join(pdf_text(data).split())
    assert "SeeBeta,Nowhereandtheweb." in text


def test_export_as_html_is_self_contained(open_window, tmp_path: Path) -> None:
    import re

    (tmp_path / "vault" / "notes" / "Alpha v1.2.md").write_text(
        "See [[Beta]] and ![[dot.png]].\n\nThe energy is $E = mc^2$, a ratio $\\frac{a}{b}$.\n",
        encoding="utf-8",
    )
    win = open_window()
    win.reindex()
    win.show_entry("notes/Alpha v1.2", push=False)
    out = win.export_html(tmp_path / "alpha.html")
    page = out.read_text(encoding="utf-8")
    assert "<title>Alpha v1.2</title>" in page
    assert not re.search(r"(src|href)=\"(https?|file|vault|math|entry|figure):", page)
    assert 'src="data:image/png;base64,' in page  # the picture, inside
    assert "<svg" in page and "E = mc^2" in page  # the formula typeset, inline
    assert ">Beta<" in page  # the link's text stays


def click_href(qtbot, win: MainWindow, href: str) -> None:
    """Click, with the mouse, where the pane draws the link to ``href``."""
    pane = win.entry_pane
    cursor = anchor_cursor(pane, lambda h: h == href)
    pane.ensureCursorVisible()
    pane.setTextCursor(cursor)
    point = pane.cursorRect(cursor).center()
    point.setX(point.x() - 3)
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_a_heading_fold_hides_its_section_while_the_entry_is_open(open_window, qtbot) -> None:
    win = open_window()
    text = win.entry_pane.toPlainText()
    assert "first paragraph 0" in text and "inner words here" in text
    click_href(qtbot, win, "fold:h0")  # the marker beside "First part"
    text = win.entry_pane.toPlainText()
    assert "First part" in text  # the heading stays, its section goes
    assert "first paragraph 0" not in text and "inner words here" not in text
    assert "Inner" not in text  # a sub-heading is in the section
    assert "Second part" in text and "second paragraph 0" in text
    assert win.outline.headings()[:1] == ["First part"]

    win.show_entry("notes/Beta")  # away and back: still folded
    win.go_back()
    assert "first paragraph 0" not in win.entry_pane.toPlainText()
    click_href(qtbot, win, "fold:h0")
    assert "first paragraph 0" in win.entry_pane.toPlainText()


def test_a_folded_callout_opens_on_a_click(open_window, qtbot) -> None:
    win = open_window("notes/Beta")
    assert "callout body" not in win.entry_pane.toPlainText()
    click_href(qtbot, win, "fold:0")
    assert "callout body" in win.entry_pane.toPlainText()
