"""A never-seen vault in the real window (offscreen): how soon search and the graph work.

Each ``--src`` (a source tree: main's and this one, say) opens the vault in a fresh process
with a fresh index and user state, and reports the seconds from the window's creation until
search answers (the window's index finds a word of the vault), until the graph has nodes,
and until the window is settled with the whole index; the GUI thread's longest turn and p95
meanwhile (a 5 ms timer's gaps)::

    python benchmarks/bench_partial.py VAULT --src /work/main/src --src src [--word attention]

Before the partial index (``anthology.ui.window.partial_index``) all three were the end of
the cold build.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from child import args_after, last_json

CHILD = r"""
import json, os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
from anthology.ui.window.main_window import MainWindow
app = QApplication([])
settings = QSettings(sys.argv[3], QSettings.Format.IniFormat)
word = sys.argv[4]
turns, last = [], [time.monotonic()]
def beat():
    now = time.monotonic()
    turns.append(now - last[0])
    last[0] = now
timer = QTimer()
timer.setInterval(5)
timer.timeout.connect(beat)
timer.start()
t0 = time.monotonic()
win = MainWindow(Path(sys.argv[1]), db=Path(sys.argv[2]), settings=settings)
win.resize(1400, 900)
win.show()
marks = {}
asked = 0.0
partial_counts = []
while not (win.settled and not win.indexing) and time.monotonic() - t0 < 900:
    app.processEvents()
    time.sleep(0.002)
    now = time.monotonic()
    if "search" not in marks and win.index is not None and now - asked > 0.5:
        asked = now
        if win.index.search_total(word) > 0:
            marks["search"] = now - t0
    g = win.graph
    if "graph" not in marks and g is not None and len(g.scene.data.ids) > 0:
        marks["graph"] = now - t0
        partial_counts.append(win.count_label.text())
marks["settled"] = time.monotonic() - t0
timer.stop()
turns.sort()
marks["turn_p95_ms"] = 1e3 * turns[int(0.95 * (len(turns) - 1))]
marks["turn_max_ms"] = 1e3 * turns[-1]
marks["label_when_graph"] = partial_counts[0] if partial_counts else ""
print(json.dumps(marks))
os._exit(0)
"""


def run(vault: str, sources: list[str], word: str) -> list[dict]:
    rows = []
    for src in sources:
        with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
            env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()),
                       ANTHOLOGY_STATE_DIR=str(Path(tmp) / "state"))  # fmt: skip
            res = subprocess.run(
                [sys.executable, "-c", CHILD, vault, str(Path(tmp) / "i.sqlite"),
                 str(Path(tmp) / "s.ini"), word],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            out = last_json(res.stdout)
            if out is None:
                print(res.stderr[-2000:], file=sys.stderr)
                continue
            rows.append({"src": src, "load": os.getloadavg()[0], **out})
            print(json.dumps(rows[-1]), flush=True)
    return rows


if __name__ == "__main__":
    run(sys.argv[1], args_after("--src") or ["src"], (args_after("--word") or ["attention"])[0])
