"""Print and export the document a tab shows: File › Print…, Export as PDF…, Export as HTML….

Print and PDF draw the view's own page made ready for paper
(:meth:`~anthology.ui.common.document.DocumentView.printable`: for an entry, the page as
shown — properties box, typeset math, figures, the reader's font size — its app links made
plain text) on the printer's pages; the HTML export is the view's
:meth:`~anthology.ui.common.document.DocumentView.export_html` (for an entry,
:func:`anthology.vault.render.standalone.standalone_html`, one file with nothing outside it).

The PDF is drawn in memory and written by Python, so a target that cannot be written (a
folder, a missing folder, ``/proc``) raises :class:`OSError` as the HTML export does; Qt's
own writer failed silently and left nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QPagedPaintDevice, QPageLayout, QPageSize, QPdfWriter, QTextDocument
from PySide6.QtPrintSupport import QPrinter
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QWidget

from anthology.ui.common.document import DocumentView


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


def export_name(entry_id: str | None, suffix: str) -> str:
    """Where the save dialog proposes to write: the entry's name in the home folder."""
    stem = re.sub(r"[^\w .-]+", "_", (entry_id or "entry").rsplit("/", 1)[-1]).strip()
    return str(Path.home() / f"{stem or 'entry'}{suffix}")


def ask_and_print(parent: QWidget, shown: DocumentView) -> None:
    """File › Print…: the document ``shown`` as shown, on a printer the reader picks."""
    from PySide6.QtPrintSupport import QPrintDialog

    if shown.document_id() is None:
        return
    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    dialog = QPrintDialog(printer, parent)
    dialog.setWindowTitle("Print entry")
    if dialog.exec() == QPrintDialog.DialogCode.Accepted:
        print_document(shown, printer)


def ask_and_export(
    parent: QMainWindow, shown: DocumentView, kind: str, path: Path | None, entry_id: str | None
) -> Path | None:
    """Export the document ``shown`` as PDF… or HTML… (``kind`` "pdf" or "html"; asks where
    when ``path`` is None); the file written, or None (cancelled, nothing on the page yet, or
    it could not be written: said)."""
    if shown.document_id() is None:
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
        (export_pdf if kind == "pdf" else export_html)(shown, path)
    except OSError as exc:
        QMessageBox.warning(parent, "Export failed", f"Could not write {path}: {exc}")
        return None
    except ValueError:  # nothing on the page yet (a long entry still rendering)
        parent.statusBar().showMessage("Nothing to export yet", 5000)
        return None
    parent.statusBar().showMessage(f"Saved {path}", 5000)
    return path
