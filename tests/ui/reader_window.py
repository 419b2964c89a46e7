"""What the reader-window tests share: a vault of files written to a temp folder, a
MainWindow opener that waits for the window to settle (and closes what it opened), and
where in the pane a link is drawn."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QModelIndex, QPoint, QSettings
from PySide6.QtGui import QColor, QImage, QTextCursor, QTextDocument, QTextFragment
from PySide6.QtWidgets import QTextBrowser

from anthology.ui.panels.backlinks_panel import BacklinksPanel
from anthology.ui.window.main_window import MainWindow


def write_files(
    root: Path, files: dict[str, str | None], binary: Callable[[], bytes] = lambda: b""
) -> Path:
    """Each file of ``files`` under ``root``: text, or ``binary()`` where the text is None
    (a picture)."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            path.write_bytes(binary())
        else:
            path.write_text(text, encoding="utf-8")
    return root


def window_opener(
    qtbot,
    vault: Path,
    tmp_path: Path,
    settings: QSettings,
    *,
    entry: str | None = None,
    ready: Callable[[MainWindow], bool] | None = None,
) -> Iterator[Callable[..., MainWindow]]:
    """A fixture's body: yields ``make(entry=…)``, which opens a real window on ``vault``
    (one index, settings and user state for all it opens: a second window is a restart)
    and waits until it has settled, indexed and, if given, ``ready(win)``."""
    windows: list[MainWindow] = []

    def make(entry: str | None = entry) -> MainWindow:
        win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings,
                         state_dir=tmp_path / "state", entry=entry)  # fmt: skip
        qtbot.addWidget(win)
        win.resize(1280, 800)
        win.show()
        qtbot.waitUntil(lambda: win.settled, timeout=20000)
        qtbot.waitUntil(lambda: not win.indexing, timeout=20000)
        if ready is not None:
            qtbot.waitUntil(lambda: ready(win), timeout=5000)
        windows.append(win)
        return win

    yield make
    for win in windows:
        win.previews.hide()
        win.close()


def paragraphs(word: str, n: int, repeat: int = 10) -> str:
    """``n`` numbered paragraphs of filler (``word paragraph i: lorem ipsum…``): a page
    long enough to scroll."""
    return "\n\n".join(f"{word} paragraph {i}: " + "lorem ipsum dolor sit amet " * repeat
                         for i in range(n))  # fmt: skip


def panel_rows(panel: BacklinksPanel) -> Iterator[QModelIndex]:
    """Every row under every group of a backlinks panel, in order ("Show more" rows too)."""
    model = panel.model
    for g in range(model.rowCount()):
        group = model.index(g, 0)
        for k in range(model.rowCount(group)):
            yield model.index(k, 0, group)


def fragments(doc: QTextDocument) -> Iterator[QTextFragment]:
    """Every fragment of ``doc``, in order (a run of text in one format, or one image)."""
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            yield it.fragment()
            it += 1
        block = block.next()


def images_in(doc: QTextDocument) -> list[str]:
    """The names of the pictures ``doc`` draws, in order."""
    return [
        frag.charFormat().toImageFormat().name()
        for frag in fragments(doc)
        if frag.charFormat().isImageFormat()
    ]


def tiny_png() -> bytes:
    """An 8×8 red PNG: a picture for a vault's attachments folder."""
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG")
    return bytes(data.data())


def anchor_cursor(pane: QTextBrowser, match: Callable[[str], bool]) -> QTextCursor:
    """A cursor inside the first link of ``pane`` whose href ``match`` accepts (in the
    middle of it)."""
    for frag in fragments(pane.document()):
        if match(frag.charFormat().anchorHref()):
            cursor = QTextCursor(pane.document())
            cursor.setPosition(frag.position() + max(1, frag.length() // 2))
            return cursor
    raise AssertionError("no such link in the pane")


def link_point(win: MainWindow | QTextBrowser, target: str) -> QPoint:
    """Where, in the viewport of a pane (or of ``win``'s active pane), the link to entry
    ``target`` is drawn."""
    pane = win.entry_pane if isinstance(win, MainWindow) else win
    cursor = anchor_cursor(pane, lambda href: unquote(href).startswith(f"entry:{target}"))
    return pane.cursorRect(cursor).center()
