"""Find in the note and a search result landing on its match (issue 34), in the real window.

- Find in a 1 MB note: from the find bar asked for a word to every match highlighted and
  the first one painted (goal ≤ 100 ms).
- A full-text search result clicked: from the click to the note painted at its first match,
  highlighted (goal ≤ 100 ms), against the same note opened at its top.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_find.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rows import row

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _vault(root: Path) -> Path:
    words = ["scaled", "attention", "keeps", "the", "softmax", "sharp", "the", "gradient"]
    para = " ".join(words[i % len(words)] for i in range(120))
    big = "# Big note\n\n" + "\n\n".join(f"Paragraph {i}. {para}" for i in range(1400))
    big += "\n\nThe needle phrase at the very end.\n"
    (root / "Notes").mkdir(parents=True, exist_ok=True)
    (root / "Notes" / "Big note.md").write_text(big, encoding="utf-8")
    long = "# Long note\n\n" + "\n\n".join(f"Section {i}. {para}" for i in range(120))
    long += "\n\nA rare landmark sentence near the end.\n"
    (root / "Notes" / "Long note.md").write_text(long, encoding="utf-8")
    (root / "Home.md").write_text("# Home\n\n[[Big note]] [[Long note]]\n", encoding="utf-8")
    return root


def run(quick: bool = False) -> list[dict]:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from anthology.ui.window.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        vault = _vault(t / "vault")
        settings = QSettings(str(t / "s.ini"), QSettings.Format.IniFormat)
        win = MainWindow(vault, db=t / "i.sqlite", entry="Home", state_dir=t / "state",
                         settings=settings)  # fmt: skip
        win.resize(1400, 900)
        win.show()
        while not win.settled:
            app.processEvents()
        size = (vault / "Notes" / "Big note.md").stat().st_size
        win.show_entry("Notes/Big note")
        while not win.settled:
            app.processEvents()
        finds = []
        for word in ["gradient", "softmax", "needle", "sharp", "keeps"][: 2 if quick else 5]:
            win.find_bar.close_bar()
            t0 = time.perf_counter()
            win.find_bar.open_on([word])
            win.entry_pane.viewport().repaint()
            finds.append(time.perf_counter() - t0)
        total = win.find_bar.total
        name = (f"find in a {size / 1e6:.1f} MB note: {total:,} matches of a word highlighted, "
                "the first painted (median)")  # fmt: skip
        rows.append(row(name, size, "s", statistics.median(finds), "issue target", 0.1))
        win.find_bar.close_bar()

        landed, top = [], []
        for _ in range(2 if quick else 5):
            win.show_entry("Home")
            win.search_panel.search("rare landmark")
            t0 = time.perf_counter()
            win.finding.open_search_result("Notes/Long note")
            while win.entry_pane.rendering or win.find_bar.count.text() != "1 of 1":
                app.processEvents()
            win.entry_pane.viewport().repaint()
            landed.append(time.perf_counter() - t0)
            win.find_bar.close_bar()
            win.show_entry("Home")
            t0 = time.perf_counter()
            win.show_entry("Notes/Long note")
            while win.entry_pane.rendering:
                app.processEvents()
            win.entry_pane.viewport().repaint()
            top.append(time.perf_counter() - t0)
        rows.append(row("a search result clicked → the note painted at its match (median)", 1,
                        "s", statistics.median(landed), "the note opened at its top",
                        statistics.median(top)))  # fmt: skip
        rows.append(row("a search result clicked → painted at its match (median)", 1, "s",
                        statistics.median(landed), "issue target", 0.1))  # fmt: skip
        win.close()
    return rows


if __name__ == "__main__":
    for r in run("--quick" in sys.argv):
        print(
            f"{r['name']}: {r['ours'] * 1000:.1f} ms vs {r['peer']} {r['peer_value'] * 1000:.1f} ms"
        )
