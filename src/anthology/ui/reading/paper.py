"""A laid-out page made ready for paper: what a document view hands to print and PDF.

On paper only the web's links stay links: the app's own (``entry:``, ``fold:``,
``unresolved:``, ``vault:``) mean nothing outside the window, and Qt would write each as a
URI annotation a PDF reader offers to "open". The window's controls are left out: a fold
marker (▾), a code block's "Copy", a demo's "▶ Open" button (its still figure stays).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QUrl
from PySide6.QtGui import (
    QImage,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextTable,
)

_PAPER_SCHEMES = ("http:", "https:", "mailto:")  # links that still lead somewhere on paper
_CONTROLS = (
    "fold:",
    "copy:",
    "dataview-page:",
)  # links that are controls of the window: left out on paper
_BUTTONS = ("demo:",)  # links drawn as a button (a table of their own): the table goes


def paper_copy(doc: QTextDocument, images: dict[str, QImage], parent: QObject) -> QTextDocument:
    """A copy of ``doc`` for paper: its pictures with it, the screen's side margins (a
    centred column) dropped (the printer's page margins frame it), the app's links plain
    text. ``parent`` answers any picture not loaded yet (the view that showed ``doc``)."""
    copy = doc.clone(parent)
    for key, image in images.items():
        copy.addResource(QTextDocument.ResourceType.ImageResource, QUrl(key), image)
    frame = copy.rootFrame()
    fmt = frame.frameFormat()
    for setter in (fmt.setLeftMargin, fmt.setRightMargin, fmt.setTopMargin, fmt.setBottomMargin):
        setter(0)
    frame.setFrameFormat(fmt)
    drop_controls(copy)
    unlink_app_links(copy)
    return copy


def drop_controls(doc: QTextDocument) -> None:
    """Take the window's controls out of ``doc`` (fold markers, "Copy", demo buttons)."""
    spans: list[tuple[int, int]] = []
    tables: list[QTextTable] = []
    cursor = QTextCursor(doc)
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            it += 1
            href = frag.charFormat().anchorHref().lower()
            if href.startswith(_CONTROLS):
                spans.append((frag.position(), frag.position() + frag.length()))
            elif href.startswith(_BUTTONS):
                cursor.setPosition(frag.position())
                table = cursor.currentTable()
                if table is not None and all(t is not table for t in tables):
                    tables.append(table)
        block = block.next()
    for start, end in reversed(spans):  # from the end: the positions before stay true
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
    for table in tables:
        table.removeRows(0, table.rows())  # the last row gone, the table goes


def unlink_app_links(doc: QTextDocument) -> None:
    """Make every link of ``doc`` but the web's plain text (as it looks: its colour stays)."""
    cursor = QTextCursor(doc)
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            it += 1
            fmt = frag.charFormat()
            href = fmt.anchorHref()
            if not href or href.lower().startswith(_PAPER_SCHEMES):
                continue
            plain = QTextCharFormat(fmt)
            plain.clearProperty(QTextFormat.Property.AnchorHref)
            plain.setAnchor(bool(fmt.anchorNames()))  # a heading's name stays a target
            cursor.setPosition(frag.position())
            cursor.setPosition(frag.position() + frag.length(), QTextCursor.MoveMode.KeepAnchor)
            cursor.setCharFormat(plain)
        block = block.next()
