"""PDFs (issue 31, item 3): the first page of a 1,000-page PDF against a 1-page one, an
embedded page, and the memory while a 1,000-page PDF is scrolled end to end.

Real widgets offscreen (``QT_QPA_PLATFORM=offscreen``), real PDF files written to a
temporary folder (``tests/pdf_samples.py``: 12 lines of Helvetica and a frame a page).

- **open → first page painted**: ``PdfView.open_document`` until the first page is drawn
  (on a worker) and painted (a synchronous repaint of the view), for 1 and 1,000 pages
  (and 10,000: the bomb). The goal: ≤ 0.5 s, the same for 1,000 pages as for 1.
- **embed**: ``EntryPane.show_entry`` of an entry embedding ``![[doc.pdf#page=3]]``: the
  time the GUI thread spends (text shown, the page's place kept), then until the page is
  drawn and swapped in.
- **memory**: the process's RSS after the 1,000-page PDF opened, its peak and its end
  while the view scrolls end to end a page at a time (each page drawn before the next
  step), and the cache of drawn pages.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_pdf.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # pdf_samples

from PySide6.QtWidgets import QApplication

from anthology.ui.common.document import OpenVault
from anthology.ui.reading.entry_pane import EntryPane
from anthology.ui.reading.pdf_pages import is_pending
from anthology.ui.reading.pdf_view import PdfView
from anthology.vault.index import VaultIndex
from pdf_samples import make_pdf


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def wait(app: QApplication, done, limit: float = 30.0) -> None:
    end = time.perf_counter() + limit
    while not done():
        app.processEvents()
        if time.perf_counter() > end:
            raise TimeoutError
        time.sleep(0.0005)


def first_page(app: QApplication, root: Path, rel: str) -> float:
    view = PdfView()
    view.resize(900, 700)
    view.show()
    view.attach_vault(OpenVault(root, None))  # type: ignore[arg-type]
    app.processEvents()
    start = time.perf_counter()
    view.open_document(rel)
    wait(app, lambda: 0 in view._cache)
    view._pages.viewport().repaint()  # painted, not only drawn
    took = time.perf_counter() - start
    view.shutdown()
    view.deleteLater()
    app.processEvents()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        for n in (1, 1000, 10_000):
            make_pdf(root / f"p{n}.pdf", pages=n)
        first_page(app, root, "p1.pdf")  # PDFium loaded, the first worker started

        print("open → first page painted (900×700 view, fit to width, 2x not forced)")
        for n in (1, 1000, 10_000):
            runs = [first_page(app, root, f"p{n}.pdf") for _ in range(args.repeat)]
            size = (root / f"p{n}.pdf").stat().st_size / 1e6
            median = statistics.median(runs) * 1000
            print(f"  {n:>6} pages ({size:5.1f} MB): median {median:6.1f} ms"
                  f"  (min {min(runs) * 1000:.1f}, max {max(runs) * 1000:.1f})")  # fmt: skip

        (root / "Report.md").write_text(
            "# Report\n\nPage 3:\n\n![[p1000.pdf#page=3]]\n\nThe end.\n", encoding="utf-8"
        )
        with VaultIndex.open(root, Path(tmp) / "index.sqlite") as index:
            entry = index.entry("Report")
            assert entry is not None
            gui, whole = [], []
            for _ in range(args.repeat):
                pane = EntryPane()
                pane.resize(900, 700)
                pane.show()
                pane.set_vault(index, root)
                app.processEvents()
                start = time.perf_counter()
                pane.show_entry(entry)
                pane.viewport().repaint()
                gui.append(time.perf_counter() - start)
                key = next(k for k in pane._images if k.startswith("pdf:"))
                wait(app, lambda p=pane, k=key: not is_pending(p._images[k]))
                pane.viewport().repaint()
                whole.append(time.perf_counter() - start)
                pane.deleteLater()
                app.processEvents()
        print("embed ![[p1000.pdf#page=3]] in an entry pane")
        print(
            f"  GUI thread (text shown, page's place kept): median "
            f"{statistics.median(gui) * 1000:.1f} ms (render cached after the first)"
        )
        print(f"  until the page is drawn and shown:          median "
              f"{statistics.median(whole) * 1000:.1f} ms")  # fmt: skip

        view = PdfView()
        view.resize(900, 700)
        view.show()
        view.attach_vault(OpenVault(root, None))  # type: ignore[arg-type]
        view.open_document("p1000.pdf")
        wait(app, lambda: 0 in view._cache)
        opened = peak = rss_mb()
        bar = view._pages.verticalScrollBar()
        start = time.perf_counter()
        steps = 0
        marks: dict[int, float] = {}  # RSS when a quarter, half… of the pages were passed
        while bar.value() < bar.maximum():
            bar.setValue(bar.value() + bar.pageStep())
            wait(app, lambda: all(i in view._cache for i in view.visible_pages()))
            view._pages.viewport().repaint()
            steps += 1
            peak = max(peak, rss_mb())
            quarter = 4 * view.current_page() // view.pages
            marks.setdefault(quarter, rss_mb())
        took = time.perf_counter() - start
        print("scroll the 1,000-page PDF end to end, a view's height a step")
        print(f"  {steps} steps, {view.drawn_pages} pages drawn, {took:.1f} s "
              f"({took / max(1, steps) * 1000:.1f} ms a step)")  # fmt: skip
        passed = ", ".join(f"{q * 25}%: {mb:.0f}" for q, mb in sorted(marks.items()))
        print(f"  RSS (MB) by the share of pages passed: {passed}")
        print(f"  RSS: {opened:.0f} MB opened, peak {peak:.0f} MB, end {rss_mb():.0f} MB; "
              f"cache {view.cache_bytes / 1e6:.0f} MB in {len(view._cache)} pages")  # fmt: skip
        view.shutdown()


if __name__ == "__main__":
    main()
