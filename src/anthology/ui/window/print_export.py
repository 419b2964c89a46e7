"""Print and export the document a tab shows: File › Print…, Export as PDF…, Export as HTML….

Print and PDF draw the view's own page made ready for paper
(:meth:`~anthology.ui.reading.document.DocumentView.printable`: for an entry, the page as
shown — properties box, typeset math, figures, the reader's font size — its app links made
plain text) on the printer's pages; the HTML export is the view's
:meth:`~anthology.ui.reading.document.DocumentView.export_html` (for an entry,
:func:`anthology.vault.render.standalone.standalone_html`, one file with nothing outside it).

The PDF is drawn in memory and written by Python, so a target that cannot be written (a
folder, a missing folder, ``/proc``) raises :class:`OSError` as the HTML export does; Qt's
own writer failed silently and left nothing.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QPagedPaintDevice, QPageLayout, QPageSize, QPdfWriter, QTextDocument
from PySide6.QtPrintSupport import QPrinter

from anthology.ui.reading.document import DocumentView


def print_document(view: DocumentView, printer: QPagedPaintDevice) -> bool:
    """Print what ``view`` shows on ``printer`` (a real one, or a PDF writer); False when it
    has nothing to print."""
    doc = view.printable()
    if doc is None:
        return False
    _print(doc, view.title(), printer)
    return True


def _print(doc: QTextDocument, name: str, printer: QPagedPaintDevice) -> None:
    if isinstance(printer, QPrinter):
        printer.setDocName(name)
    elif isinstance(printer, QPdfWriter):
        printer.setTitle(name)
    doc.print_(printer)
    doc.deleteLater()


def pdf_bytes(view: DocumentView) -> bytes:
    """What ``view`` shows as a PDF (A4, portrait), drawn in memory."""
    doc = view.printable()
    if doc is None:
        raise ValueError("nothing is shown")
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(QPrinter(QPrinter.PrinterMode.HighResolution).resolution())
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageOrientation(QPageLayout.Orientation.Portrait)
    writer.setCreator("Anthology")
    _print(doc, view.title(), writer)
    del writer  # the PDF is finished when its writer goes
    buffer.close()
    return bytes(data.data())


def export_pdf(view: DocumentView, path: Path) -> None:
    """The shown page as a PDF file at ``path``; :class:`OSError` when it cannot be written
    (a folder, a missing folder, a read-only place), nothing written then."""
    data = pdf_bytes(view)
    if not data.startswith(b"%PDF"):
        raise OSError(f"the PDF could not be drawn ({len(data)} bytes)")
    path.write_bytes(data)


def export_html(view: DocumentView, path: Path) -> None:
    """The shown page as one self-contained HTML file at ``path`` (UTF-8)."""
    page = view.export_html()
    if page is None:
        raise ValueError("nothing is shown, or it cannot be written as HTML")
    path.write_text(page, encoding="utf-8")
