"""The backlinks panel alone: showing an entry's backlinks and the panel's first repaint.

A 440×340 panel on a built index (no window: nothing else paints or runs beside it). Each
entry is shown in turn, eight rounds (the first dropped), and timed: ``show`` is
``backlinks_view`` + ``show_backlinks``, ``repaint`` the tree's first repaint after it.
``--first`` drops what the index and the panel keep of the entries shown before each
visit (a first visit; SQLite's page cache stays warm); without it, every visit after the
first is a revisit.

    python benchmarks/bench_backlinks_panel.py VAULT DB LIT-00000,NOT-06704 [--first]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from anthology.ui.panels.backlinks_panel import COUNT_SHOWN, SOURCES_SHOWN, BacklinksPanel
from anthology.vault.index import VaultIndex


def main() -> None:
    vault, db, ids = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3].split(",")
    first = "--first" in sys.argv[4:]
    app = QApplication.instance() or QApplication([])
    index = VaultIndex(vault, db)
    panel = BacklinksPanel()
    panel.resize(440, 340)
    panel.show()
    for _ in range(20):
        app.processEvents()
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in ids}
    for _round in range(8):
        for entry_id in ids:
            if first:  # what a first visit finds: nothing kept
                index._backlink_views.clear()
                index._backlink_pages.clear()
                panel._built.clear()
            t0 = time.perf_counter()
            view = index.backlinks_view(entry_id, sources_cap=SOURCES_SHOWN, count_cap=COUNT_SHOWN)
            panel.show_backlinks(view, [])
            t1 = time.perf_counter()
            panel.tree.viewport().repaint()
            t2 = time.perf_counter()
            times[entry_id].append((1000 * (t1 - t0), 1000 * (t2 - t1)))
            for _ in range(5):
                app.processEvents()
    for entry_id, got in times.items():
        got = got[1:]
        show = statistics.median(t for t, _ in got)
        repaint = statistics.median(r for _, r in got)
        kind = "first visit" if first else "revisit"
        print(f"{entry_id} {kind}: show {show:.2f} ms, first repaint {repaint:.2f} ms")
    index.close()


if __name__ == "__main__":
    main()
