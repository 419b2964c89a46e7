"""Print and export the entry a pane shows: File › Print…, Export as PDF…, Export as HTML….

Print and PDF draw the pane's own document (the page as shown: properties box, typeset
math, figures, the reader's font size) on the printer's pages; the HTML export is
:func:`anthology.vault.render.standalone.standalone_html`, one file with nothing outside it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QPageLayout, QPageSize, QTextDocument
from PySide6.QtPrintSupport import QPrinter

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
    return doc


def print_entry(pane: EntryPane, printer: QPrinter) -> None:
    """Print what ``pane`` shows on ``printer`` (a real one, or a PDF file)."""
    doc = printable_document(pane)
    entry = pane._entry
    if entry is not None:
        printer.setDocName(entry.title or entry.id)
    doc.print_(printer)
    doc.deleteLater()


def pdf_printer(path: Path) -> QPrinter:
    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
    printer.setOutputFileName(str(path))
    printer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    printer.setPageOrientation(QPageLayout.Orientation.Portrait)
    return printer


def export_pdf(pane: EntryPane, path: Path) -> None:
    print_entry(pane, pdf_printer(path))


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
