"""The entry pane alone on a walk over links: first visits against revisits.

    PYTHONPATH=src QT_QPA_PLATFORM=offscreen python benchmarks/pane_walk.py VAULT DB \
        [--start ID] [--clicks 60] [--seed 1]

A real :class:`EntryPane` (the window's background-render threshold) on a real index; a
seeded random walk over the ``[[links]]`` of each body, each step timed as
``EntryPane.show_entry`` and then the pane's repaint (what the window does before the panels
follow). Prints the median and 95th percentile, in ms, of both and of their sum, for the
first visits and the revisits (back to a page seen before: the pane's kept pages). Compare
two commits by running it with ``PYTHONPATH`` on each checkout's ``src``, interleaved.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from pathlib import Path


def stats(values: list[float]) -> str:
    if not values:
        return "-"
    xs = sorted(values)
    p95 = xs[int(0.95 * (len(xs) - 1))]
    return f"median {1000 * statistics.median(xs):5.1f} p95 {1000 * p95:5.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("db", type=Path)
    parser.add_argument("--start", default="LIT-00024")
    parser.add_argument("--clicks", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from anthology.ui.reading.entry_pane import BACKGROUND_RENDER_CHARS, EntryPane
    from anthology.ui.window.main_window import CITED_BY_SHOWN
    from anthology.vault import VaultIndex

    index = VaultIndex.open(args.vault, args.db, refresh=False)
    pane = EntryPane()
    pane.background_render_chars = BACKGROUND_RENDER_CHARS
    pane.set_vault(index, index.root)
    pane.resize(1000, 850)
    pane.show()
    for _ in range(20):
        app.processEvents()

    rng = random.Random(args.seed)
    walk, current = [], args.start
    for _ in range(args.clicks):
        entry = index.entry(current)
        links = re.findall(r"\[\[([^\]|#]+)", entry.body if entry else "")
        targets = [t for t in links if index.entry(t) is not None]
        current = rng.choice(targets) if targets else args.start
        walk.append(current)

    rows: list[tuple[bool, float, float]] = []  # (revisit, show_entry, repaint)
    seen: set[str] = set()
    for entry_id in walk:
        entry = index.entry(entry_id, cited_by_limit=CITED_BY_SHOWN)
        t0 = time.perf_counter()
        pane.show_entry(entry)
        t1 = time.perf_counter()
        pane.viewport().repaint()
        t2 = time.perf_counter()
        rows.append((entry_id in seen, t1 - t0, t2 - t1))
        seen.add(entry_id)
        while pane.rendering:
            app.processEvents()
        for _ in range(30):
            app.processEvents()

    for label, revisit in (("first visits", False), ("revisits", True)):
        picked = [r for r in rows if r[0] is revisit]
        print(f"{label:12s} n={len(picked):3d}  pane+repaint {stats([a + b for _, a, b in picked])}"
              f" | show_entry {stats([a for _, a, _ in picked])}"
              f" | repaint {stats([b for _, _, b in picked])}")  # fmt: skip
    index.close()


if __name__ == "__main__":
    main()
