"""Where a click's time goes in the reading window: a diagnostic, not a benchmark.

    python benchmarks/click_parts.py VAULT DB [--clicks 30] [--seed 1] [--start ID]

Opens the real ``MainWindow`` offscreen on ``VAULT`` (index ``DB``, built if missing),
then walks ``--clicks`` links at random from entry to entry (as a reader following links
does: a synthetic vault's links lead to its hubs and back) and times, per click, each part
of ``MainWindow.show_entry`` and the repaints that follow it:

- ``entry``: the index's answer (properties, relations, body read from disk);
- ``pane``: the entry pane's page (render, or a kept page swapped in);
- ``backlinks``: the backlinks view asked and the panel filled;
- ``graph``: the graph following the entry (a local graph rebuilt);
- ``show_entry``: all of the above, the pane's first paint and the rest of the window;
- ``paint backlinks`` / ``paint graph``: their first repaint after the click;
- ``click``: everything, as ``benchmarks/click_child.py``'s "every panel updated".

Prints the median and 95th percentile of each, then the slowest clicks with their entry
and local graph's size. ``benchmarks/run.py window`` gives the figures the issues set;
this says which part to look at when one is missed.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

LINK = re.compile(r"\[\[([^\]|#]+)")


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("db", type=Path)
    ap.add_argument("--clicks", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", help="the entry to start from (default: the window's first)")
    args = ap.parse_args(argv)

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from anthology.ui.window.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("ANTHOLOGY_STATE_DIR", str(Path(tmp) / "state"))
        settings = QSettings(str(Path(tmp) / "parts.ini"), QSettings.Format.IniFormat)
        win = MainWindow(args.vault, db=args.db, settings=settings)
        win.resize(1400, 900)
        win.show()
        deadline = time.monotonic() + 120
        while not win.settled and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.002)
        times: dict[str, list[float]] = {}
        last: dict[str, float] = {}

        def timed(obj: object, name: str, label: str) -> None:
            real = getattr(obj, name)

            def wrapper(*a, **k):
                t0 = time.perf_counter()
                try:
                    return real(*a, **k)
                finally:
                    last[label] = last.get(label, 0.0) + time.perf_counter() - t0

            setattr(obj, name, wrapper)

        index = win.index
        assert index is not None
        timed(index, "entry", "entry")
        timed(win, "_show_backlinks", "backlinks")
        if win.graph is not None:
            timed(win.graph, "set_current", "graph")
        panes: set[int] = set()
        rng = random.Random(args.seed)
        current = args.start or win.current_id() or ""
        slow: list[tuple[float, str, int]] = []
        for _ in range(args.clicks):
            entry = index.entry(current) if current else None
            targets = LINK.findall(entry.body) if entry is not None else []
            current = rng.choice(targets) if targets else (index.home_id() or "")
            pane = win.entry_pane
            if id(pane) not in panes:
                panes.add(id(pane))
                timed(pane, "show_entry", "pane")
            last.clear()
            t0 = time.perf_counter()
            win.show_entry(current)
            t1 = time.perf_counter()
            win.backlinks.tree.viewport().repaint()
            t2 = time.perf_counter()
            if win.graph is not None:
                win.graph.view.viewport().repaint()
            t3 = time.perf_counter()
            last.update({"show_entry": t1 - t0, "paint backlinks": t2 - t1,
                         "paint graph": t3 - t2, "click": t3 - t0})  # fmt: skip
            for label, value in last.items():
                times.setdefault(label, []).append(value)
            shown = len(win.graph.shown_ids()) if win.graph is not None else 0
            slow.append((t3 - t0, current, shown))
            end = time.monotonic() + 0.3  # the reader reads; the layout moves meanwhile
            while time.monotonic() < end:
                app.processEvents()
                time.sleep(0.005)
        order = ["click", "show_entry", "entry", "pane", "backlinks", "graph",
                 "paint backlinks", "paint graph"]  # fmt: skip
        print(f"{args.clicks} clicks on {args.vault} (ms):")
        for label in order:
            if label in times:
                v = times[label]
                print(f"  {label:16s} median {1000 * statistics.median(v):6.1f}"
                      f"   p95 {1000 * _p95(v):6.1f}   max {1000 * max(v):6.1f}")  # fmt: skip
        print("slowest clicks:")
        for total, entry_id, shown in sorted(slow, reverse=True)[:5]:
            print(f"  {1000 * total:6.1f} ms  {entry_id}  (local graph of {shown:,} nodes)")
        win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
