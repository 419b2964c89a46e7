"""Print and export the entry a pane shows: File › Print…, Export as PDF…, Export as HTML….

Print and PDF draw the pane's own document (the page as shown: properties box, typeset
math, figures, the reader's font size) on the printer's pages; the HTML export is
:func:`anthology.vault.render.standalone.standalone_html`, one file with nothing outside it.

On paper only the web's links stay links: the app's own (``entry:``, ``fold:``,
``unresolved:``, ``vault:``) mean nothing outside the window, and Qt would write each as a
URI annotation a PDF reader offers to "open". The PDF is drawn in memory and written by
Python, so a target that cannot be written (a folder, a missing folder, ``/proc``) raises
:class:`OSError` as the HTML export does; Qt's own writer failed silently and left nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QUrl
from PySide6.QtGui import (
    QPagedPaintDevice,
    QPageLayout,
    QPageSize,
    QPdfWriter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtPrintSupport import QPrinter
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QWidget

from anthology.ui.reading.entry_pane import EntryPane
from anthology.vault.render.standalone import standalone_html


def printable_document(pane: EntryPane) -> QTextDocument:
    """A copy of the pane's page for paper: its pictures with it, the screen's side
    margins (a centred column) dropped: the printer's page margins frame it."""
    doc = pane.document().clone(pane)  # its parent answers any picture not yet loaded
    for key, image in pane._images.items():
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(key), image)
    frame = doc.rootFrame()
    fmt = frame.frameFormat()
    for setter in (fmt.setLeftMargin, fmt.setRightMargin, fmt.setTopMargin, fmt.setBottomMargin):
        setter(0)
    frame.setFrameFormat(fmt)
    _unlink_app_links(doc)
    return doc


_PAPER_SCHEMES = ("http:", "https:", "mailto:")  # links that still lead somewhere on paper


def _unlink_app_links(doc: QTextDocument) -> None:
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


def print_entry(pane: EntryPane, printer: QPagedPaintDevice) -> None:
    """Print what ``pane`` shows on ``printer`` (a real one, or a PDF writer)."""
    doc = printable_document(pane)
    entry = pane._entry
    if entry is not None:
        name = entry.title or entry.id
        if isinstance(printer, QPrinter):
            printer.setDocName(name)
        elif isinstance(printer, QPdfWriter):
            printer.setTitle(name)
    doc.print_(printer)
    doc.deleteLater()


def pdf_bytes(pane: EntryPane) -> bytes:
    """What ``pane`` shows as a PDF (A4, portrait), drawn in memory."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(QPrinter(QPrinter.PrinterMode.HighResolution).resolution())
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageOrientation(QPageLayout.Orientation.Portrait)
    writer.setCreator("Anthology")
    print_entry(pane, writer)
    del writer  # the PDF is finished when its writer goes
    buffer.close()
    return bytes(data.data())


def export_pdf(pane: EntryPane, path: Path) -> None:
    """The shown page as a PDF file at ``path``; :class:`OSError` when it cannot be written
    (a folder, a missing folder, a read-only place), nothing written then."""
    if pane.rendered is None:
        raise ValueError("no entry is shown")
    data = pdf_bytes(pane)
    if not data.startswith(b"%PDF"):
        raise OSError(f"the PDF could not be drawn ({len(data)} bytes)")
    path.write_bytes(data)


def export_html(pane: EntryPane, path: Path) -> None:
    """The shown page as one self-contained HTML file at ``path`` (UTF-8)."""
    rendered, entry = pane.rendered, pane._entry
    if rendered is None or entry is None:
        raise ValueError("no entry is shown")
    page = standalone_html(
        rendered,
        title=entry.title or entry.id,
        style=pane.reading_style,
        line_width=pane.line_width if pane.readable_width else None,
        vault_root=pane._vault_root,
    )
    path.write_text(page, encoding="utf-8")


def export_name(entry_id: str | None, suffix: str) -> str:
    """Where the save dialog proposes to write: the entry's name in the home folder."""
    stem = re.sub(r"[^\w .-]+", "_", (entry_id or "entry").rsplit("/", 1)[-1]).strip()
    return str(Path.home() / f"{stem or 'entry'}{suffix}")


def ask_and_print(parent: QWidget, pane: EntryPane) -> None:
    """File › Print…: the entry as shown, on a printer the reader picks."""
    from PySide6.QtPrintSupport import QPrintDialog

    if pane.rendered is None:
        return
    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    dialog = QPrintDialog(printer, parent)
    dialog.setWindowTitle("Print entry")
    if dialog.exec() == QPrintDialog.DialogCode.Accepted:
        print_entry(pane, printer)


def ask_and_export(
    parent: QMainWindow, pane: EntryPane, kind: str, path: Path | None, entry_id: str | None
) -> Path | None:
    """Export as PDF… or HTML… (``kind`` "pdf" or "html"; asks where when ``path`` is
    None); the file written, or None (cancelled, or it could not be written: said)."""
    if pane.rendered is None:
        return None
    if path is None:
        title = kind.upper()
        pattern = "PDF (*.pdf)" if kind == "pdf" else "HTML (*.html *.htm)"
        name, _ = QFileDialog.getSaveFileName(
            parent, f"Export as {title}", export_name(entry_id, f".{kind}"), pattern
        )
        if not name:
            return None
        path = Path(name)
    try:
        (export_pdf if kind == "pdf" else export_html)(pane, path)
    except OSError as exc:
        QMessageBox.warning(parent, "Export failed", f"Could not write {path}: {exc}")
        return None
    parent.statusBar().showMessage(f"Saved {path}", 5000)
    return path
