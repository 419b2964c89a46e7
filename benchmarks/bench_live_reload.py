"""A live reload of the open note: the note is edited on disk while the window shows it.

Timed from the refresh the write starts (as the watcher's debounce or the poll would start
it: a 10,000-file vault is polled, every 2 s or more) to the pane showing the edit; and how
far the graph's nodes moved meanwhile, until the window has settled and the nodes stood still
(the largest shift of a shown node from where it was before the edit, sampled all along),
in the global graph and in the local one.

    python benchmarks/bench_live_reload.py --n 10000 [--runs 3] [--json]

``run(quick)`` (for ``benchmarks/run.py``) runs it in a child process (it needs a
QApplication of its own).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from synthetic_vault import _entry_id, generate


def _wait(app, until, timeout: float = 120.0) -> float:
    t0 = time.perf_counter()
    while not until():
        app.processEvents()
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError("the window did not get there")
        time.sleep(0.001)
    return time.perf_counter() - t0


def _places(graph) -> dict[str, tuple[float, float]]:
    out = {}
    for node_id in graph.shown_ids():
        p = graph.node_scene_pos(node_id)
        if p is not None:
            out[node_id] = (p.x(), p.y())
    return out


def _shift(a: dict, b: dict) -> float:
    return max(
        (abs(b[k][0] - xy[0]) + abs(b[k][1] - xy[1]) for k, xy in a.items() if k in b),
        default=0.0,
    )


def _settle_graph(app, graph, quiet: float = 1.5, since: dict | None = None) -> float:
    """Until the nodes stand still for ``quiet`` seconds; the largest shift from ``since``
    seen meanwhile."""
    last = _places(graph)
    still = time.perf_counter()
    worst = _shift(since, last) if since else 0.0
    while time.perf_counter() - still < quiet:
        app.processEvents()
        time.sleep(0.02)
        now = _places(graph)
        if since:
            worst = max(worst, _shift(since, now))
        if now != last:
            last, still = now, time.perf_counter()
    return worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--vault", type=Path, default=None, help="a synthetic vault made before")
    ap.add_argument("--json", action="store_true", help="one JSON object a graph mode")
    args = ap.parse_args()

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from anthology.ui.window.main_window import MainWindow

    app = QApplication([])
    work = Path(tempfile.mkdtemp(prefix="live-reload-"))
    vault = args.vault or generate(work / "vault", args.n)
    os.environ["ANTHOLOGY_STATE_DIR"] = str(work / "state")
    settings = QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat)
    entry = _entry_id(args.n // 2)
    win = MainWindow(vault, db=work / "index.sqlite", settings=settings, entry=entry)
    win.resize(1400, 900)
    win.show()
    _wait(app, lambda: win.settled and not win.indexing and win.graph is not None, 600)
    path = vault / win.index.entry_ref(win.current_id()).path
    for mode in ("global", "local"):
        win.graph.set_local(mode == "local")
        _wait(app, lambda: win.settled)
        _settle_graph(app, win.graph)
        times, moved, refresh_times = [], [], []
        for k in range(args.runs):
            before = _places(win.graph)
            marker = f"live-reload-marker-{mode}-{k}"
            t0 = time.perf_counter()
            with path.open("a", encoding="utf-8") as f:
                f.write(f"\n\n{marker}\n")
            last = win.last_report
            win.reindex()
            worst = 0.0
            refreshed = 0.0

            def shown(
                m: str = marker, was: dict = before, report: object = last, start: float = t0
            ) -> bool:
                nonlocal worst, refreshed
                worst = max(worst, _shift(was, _places(win.graph)))
                if not refreshed and win.last_report is not report:
                    refreshed = time.perf_counter() - start
                return m in win.entry_pane.toPlainText()

            _wait(app, shown)
            times.append(time.perf_counter() - t0)
            refresh_times.append(refreshed)
            _wait(app, lambda: win.settled and not win.indexing)
            moved.append(max(worst, _settle_graph(app, win.graph, since=before)))
        if args.json:
            print(json.dumps({"mode": mode, "n": args.n, "shown": statistics.median(times),
                              "shift": max(moved)}), flush=True)  # fmt: skip
            continue
        runs = ", ".join(f"{t * 1000:.0f}" for t in times)
        after = [t - r for t, r in zip(times, refresh_times, strict=True)]
        shifts = ", ".join(f"{m:.1f}" for m in moved)
        print(
            f"{mode:6} graph, {args.n} entries: edit shown after median "
            f"{statistics.median(times) * 1000:.0f} ms (runs {runs}); the pane after the "
            f"index's refresh: median {statistics.median(after) * 1000:.1f} ms; "
            f"largest node shift {max(moved):.1f} px (runs {shifts})",
            flush=True,
        )
    win.close()
    sys.exit(0)


def run(quick: bool = False) -> list[dict]:
    from rows import row

    n = 2000 if quick else 10_000
    out = subprocess.run(
        [sys.executable, __file__, "--n", str(n), "--runs", "3" if quick else "5", "--json"],
        capture_output=True, text=True, check=True, cwd=Path(__file__).parent,
    )  # fmt: skip
    rows = []
    for line in out.stdout.splitlines():
        got = json.loads(line)
        rows.append(row(f"live reload of the open note to the pane, median ({got['mode']} graph)",
                        n, "s", got["shown"], "issue target", 1.0))  # fmt: skip
        rows.append(row(f"live reload: largest node shift ({got['mode']} graph)", n, "px",
                        got["shift"], "issue target", 0.0))  # fmt: skip
    return rows


if __name__ == "__main__":
    main()
