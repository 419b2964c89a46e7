"""Which library draws the PDFs (issue 31, item 3): pypdfium2 against Qt's own QtPdf, on
the same files: import, then open + page count + the first page drawn 1,752 px wide (a
Letter page across a 876 px column at 2x), for 1, 1,000 and 10,000 pages and one page of
50,000 × 50,000 points. Each library is measured when it can be imported: QtPdf is in
PySide6-Addons, which the project does not depend on (run this a second time with a venv
that has it: ``pip install PySide6-Essentials==X PySide6-Addons==X`` in a scratch venv).

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_pdf_libraries.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # pdf_samples

from pdf_samples import make_pdf

WIDTH = 1752
FILES = {"1 page": (1, (612, 792)), "1,000 pages": (1000, (612, 792)),
         "10,000 pages": (10_000, (612, 792)), "50,000 pt page": (1, (50_000, 50_000))}  # fmt: skip


def pdfium(folder: Path) -> None:
    start = time.perf_counter()
    try:
        import pypdfium2  # noqa: F401
    except ImportError:
        print("pypdfium2: not installed")
        return
    print(f"pypdfium2 (anthology.vault.pdf): import {(time.perf_counter() - start) * 1000:.0f} ms")
    from anthology.vault.pdf import PdfFile

    def one(name: str) -> float:
        t = time.perf_counter()
        with PdfFile(folder, name) as doc:
            _pages, size = doc.pages, doc.page_size(0)
            doc.render(0, WIDTH / size[0])
        return time.perf_counter() - t

    report(one)


def qtpdf(folder: Path) -> None:
    start = time.perf_counter()
    try:
        from PySide6.QtCore import QSize
        from PySide6.QtGui import QGuiApplication
        from PySide6.QtPdf import QPdfDocument
    except ImportError:
        print("QtPdf: not installed (PySide6-Addons)")
        return
    print(f"QtPdf: import {(time.perf_counter() - start) * 1000:.0f} ms")
    _app = QGuiApplication.instance() or QGuiApplication([])

    def one(name: str) -> float:
        t = time.perf_counter()
        doc = QPdfDocument()
        doc.load(str(folder / name))
        _pages, size = doc.pageCount(), doc.pagePointSize(0)
        doc.render(0, QSize(WIDTH, round(WIDTH * size.height() / size.width())))
        doc.close()
        return time.perf_counter() - t

    report(one)


def report(one) -> None:
    for label in FILES:
        name = label.replace(" ", "_").replace(",", "") + ".pdf"
        one(name)
        runs = [one(name) for _ in range(5)]
        print(f"  {label:>15}: open + count + first page {statistics.median(runs) * 1000:6.1f} ms")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for label, (pages, size) in FILES.items():
            make_pdf(folder / (label.replace(" ", "_").replace(",", "") + ".pdf"), pages, size)
        pdfium(folder)
        qtpdf(folder)


if __name__ == "__main__":
    main()
