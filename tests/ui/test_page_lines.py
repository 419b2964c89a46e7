"""A picture sits on its own line without a blank under it (issue 34, item 9): the page's
line height (150 %) was of the picture, leaving half a picture of blank below (≈145 px under
a 289 px picture). A real pane on a real vault with a real PNG."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QImage
from reader_window import window_opener, write_files


def _png(width: int, height: int) -> bytes:
    from PySide6.QtCore import QBuffer, QIODevice

    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#3b6fd8"))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(buffer.data().data())


def test_no_blank_under_a_picture(qtbot, tmp_path: Path, settings: QSettings) -> None:
    files = {
        "Trip notes.md": "# Trip\n\nBefore the picture.\n\n![[pics/view 1.png]]\n\n"
        "After the picture.\n\n![a chart](pics/view%201.png)\n\nThe end.\n",
        "pics/view 1.png": None,
    }
    vault = write_files(tmp_path / "vault", files, binary=lambda: _png(300, 289))
    win = next(window_opener(qtbot, vault, tmp_path, settings, entry="Trip notes"))()
    pane = win.entry_pane
    doc = pane.document()
    layout = doc.documentLayout()
    heights = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            if it.fragment().charFormat().isImageFormat() and block.next().isValid():
                # from the picture's top to the next paragraph's: what the reader sees
                top = layout.blockBoundingRect(block).top()
                heights.append(layout.blockBoundingRect(block.next()).top() - top)
            it += 1
        block = block.next()
    assert len(heights) == 2
    for height in heights:
        # the picture's 289 px and its paragraph's margin; not 289 × 1.5 (433 px)
        assert 289 <= height < 289 + 40, height


def test_punctuation_stays_on_the_line_of_its_formula(qtbot, tmp_path: Path) -> None:
    """ "scaled by $\\sqrt{d_k}$, then" wrapped its comma to the start of the next line
    (issue 34, item 10): at 59 of 86 widths between 300 and 900 px, some line of this
    paragraph started with a comma or a full stop."""
    from anthology.ui.reading.entry_pane import EntryPane
    from anthology.vault.index import VaultIndex

    sentence = "word{} scaled by $\\sqrt{{d_k}}$, then $x^2$. And "
    body = "# Math\n\n" + "".join(sentence.format(i) for i in range(30)) + "\n"
    vault = write_files(tmp_path / "vault", {"Math.md": body})
    with VaultIndex.open(vault, tmp_path / "index.sqlite") as index:
        pane = EntryPane()
        qtbot.addWidget(pane)
        pane.set_vault(index, vault)
        pane.show()
        entry = index.entry("Math")
        assert entry is not None
        pane.show_entry(entry)
        starts = []
        for width in range(300, 900, 23):
            pane.resize(width, 600)
            qtbot.wait(1)
            block = pane.document().begin()
            while block.isValid():
                layout = block.layout()
                for i in range(layout.lineCount()):
                    line = layout.lineAt(i)
                    text = block.text()[line.textStart() : line.textStart() + line.textLength()]
                    if text[:1] in ".,;:":
                        starts.append((width, text[:20]))
                block = block.next()
        assert starts == []
