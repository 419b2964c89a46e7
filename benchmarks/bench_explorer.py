"""The file explorer's turns at 100,000 entries (issue 35): a big folder opened by a click,
an entry of an unopened big folder revealed, a start that reopens a big folder, and a
refresh (the listing given again) with that folder open.

    python benchmarks/bench_explorer.py --index INDEX.sqlite     # an index's entries
    python benchmarks/bench_explorer.py --synthetic 100000       # 8 folders of 12,500

A real FileExplorer, offscreen, 300x600, given the entries as the window gives them. Each
case runs the event loop until the explorer shows what was asked (the folder's rows laid
out, the entry selected) and prints, per case, the longest event-loop turn (a 2 ms QTimer
watchdog: the gap between two of its ticks), the turns over 16 ms and over 50 ms, the
turns it took and the wall time until done. The entries are frozen out of the cyclic
collector's sight first, as the window does once its views are in. Only the explorer's
public face is used (``set_entries``, ``follow``, ``folder_index``, ``current_id``, a real
mouse click), so the same script measures a base commit's explorer:
``PYTHONPATH=/tmp/base/src``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from anthology.ui.common.theme import apply_theme
from anthology.ui.panels.file_explorer import FileExplorer
from anthology.vault import EntryRef

TICK_MS = 2


def index_refs(db: str) -> list[EntryRef]:
    uri = f"file:{db}?mode=ro"
    with sqlite3.connect(uri, uri=True) as conn:
        rows = conn.execute("SELECT id, title, path FROM entries ORDER BY id").fetchall()
    return [EntryRef(i, t, p) for i, t, p in rows]


def synthetic_refs(n: int, folders: int = 8) -> list[EntryRef]:
    kinds = ("LIT", "PRA", "NOT")
    out = []
    for i in range(n):
        eid = f"{kinds[i % 3]}-{i:05d}"
        out.append(
            EntryRef(eid, f"Position Gradient Activation {i}", f"area-{i % folders}/{eid}.md")
        )
    return out


class Turns:
    """The event loop's turns while ``done()`` is false: a watchdog ticking every TICK_MS."""

    def __init__(self, app: QApplication) -> None:
        self.app = app
        self.gaps: list[float] = []
        self.last = time.perf_counter()
        self.dog = QTimer(interval=TICK_MS)
        self.dog.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append(now - self.last)
        self.last = now

    def run(self, act: Callable[[], None], done: Callable[[], bool]) -> dict[str, float]:
        self.gaps = []
        self.dog.start()
        self.last = t0 = time.perf_counter()
        act()  # in the turn it is timed in (a click's handler is a turn of its own)
        self._tick()
        while not done():
            self.app.processEvents()
            if time.perf_counter() - t0 > 60:
                raise RuntimeError("not done after 60 s")
        wall = time.perf_counter() - t0
        self.app.processEvents()  # the paint after the last step
        self._tick()
        self.dog.stop()
        turns = [g - TICK_MS / 1000 for g in self.gaps]
        return {
            "longest_ms": round(max(turns) * 1000, 1),
            "over_16ms": sum(t > 0.016 for t in turns),
            "over_50ms": sum(t > 0.050 for t in turns),
            "turns": len(turns),
            "wall_ms": round(wall * 1000, 1),
        }


def fresh(app: QApplication, refs: list[EntryRef], expanded: list[str]) -> FileExplorer:
    explorer = FileExplorer()
    explorer.resize(300, 600)
    explorer.restore_view_state({"expanded": expanded})
    explorer.show()
    app.processEvents()
    return explorer


def tree_rows(explorer: FileExplorer, index) -> int:
    return explorer.tree.model().rowCount(index) if explorer.tree.isExpanded(index) else 0


def settle(app: QApplication, seconds: float = 0.3) -> None:
    """The event loop run a while, then what was made frozen out of the collector's sight,
    as the window does after each load (a full collection of an earlier case's garbage is
    not this case's turn)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
    gc.collect()
    gc.freeze()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", help="an index's SQLite file: its entries")
    ap.add_argument("--synthetic", type=int, default=100_000)
    args = ap.parse_args()
    refs = index_refs(args.index) if args.index else synthetic_refs(args.synthetic)
    folders: dict[str, list[EntryRef]] = {}
    for r in refs:
        folders.setdefault(r.path.rpartition("/")[0], []).append(r)
    big = sorted((f for f in folders if f), key=lambda f: -len(folders[f]))
    opened, revealed = big[0], big[1]
    target = folders[revealed][len(folders[revealed]) // 2].id
    start_target = folders[opened][0].id
    # what the window loaded lives out of the collector's sight (Surroundings.freeze_heap):
    # a full collection walking 100,000 entries is not the explorer's turn
    gc.collect()
    gc.freeze()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    apply_theme(app, "light")  # the window's style sheet and palette, as the window has them
    turns = Turns(app)
    out: dict[str, object] = {"entries": len(refs), "folder_rows": len(folders[opened])}

    # a click opens a big folder never opened
    ex = fresh(app, refs, [])
    ex.set_entries(refs, [])
    settle(app)
    index = ex.folder_index(opened)
    tree = ex.tree

    def click() -> None:
        rect = tree.visualRect(index)
        QTest.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.NoModifier, rect.center())  # fmt: skip

    def laid_out() -> bool:
        return tree.isExpanded(index) and tree.model().rowCount(index) >= len(folders[opened])

    out["click_open"] = turns.run(click, laid_out)

    # the reader navigates to an entry of another big folder never opened
    out["reveal"] = turns.run(lambda: ex.follow(target), lambda: ex.current_id() == target)
    ex.close()
    ex.deleteLater()
    settle(app, 0.1)

    # a start: the tree given with a big folder open (the user state) and its entry shown
    ex = fresh(app, refs, [opened])
    settle(app, 0.1)

    def start() -> None:
        ex.set_entries(refs, [])
        ex.follow(start_target)

    out["start_reopen"] = turns.run(start, lambda: ex.current_id() == start_target)

    # a refresh (a live reload): the listing again, the big folder open and its entry shown
    def refresh() -> None:
        ex.set_entries(list(refs), [])
        ex.follow(start_target)

    def reopened() -> bool:
        index = ex.folder_index(opened)  # (asked of a base commit's model, it makes the rows)
        return ex.current_id() == start_target and tree_rows(ex, index) >= len(folders[opened])

    settle(app, 0.2)
    out["refresh"] = turns.run(refresh, reopened)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
