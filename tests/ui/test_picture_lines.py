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
