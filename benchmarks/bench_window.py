"""The reading window: start to the first painted entry, and opening an entry.

Start runs in a fresh process (interpreter start and imports included), on the bundled
anthology and on a synthetic vault, with its index already built and never seen (the first
entry is read from disk while the index builds behind it); "settled" is when the graph, the
switcher and the counts have come too. Opening the biggest hub is timed in the real window
(show_entry, then the events it posts and a repaint of the pane and the backlinks panel),
and the core's share of opening an entry on a 10,000-entry vault against python-markdown
rendering the same body alone.

    python benchmarks/bench_window.py --n 100000 [--vault V]  # the README's figures
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rows import row
from synthetic_vault import _entry_id, generate

CHILD = r"""
import os, sys, time
t0 = float(sys.argv[1])
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from anthology.paths import entries_dir
from anthology.ui.window.main_window import MainWindow
app = QApplication([])
settings = QSettings(sys.argv[3], QSettings.Format.IniFormat)
win = MainWindow(entries_dir(), db=__import__("pathlib").Path(sys.argv[2]), settings=settings)
win.show()
while not win.ready:
    app.processEvents()
win.entry_pane.viewport().repaint()  # the first entry is painted
print(time.time() - t0)
win.close()
"""


VAULT_CHILD = r"""
import json, os, sys, time
t0 = float(sys.argv[1])
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from pathlib import Path
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from anthology.ui.window.main_window import MainWindow
app = QApplication([])
settings = QSettings(sys.argv[4], QSettings.Format.IniFormat)
win = MainWindow(Path(sys.argv[2]), db=Path(sys.argv[3]), settings=settings)
win.resize(1400, 900)
win.show()
while not win.ready:
    app.processEvents()
app.processEvents()
win.entry_pane.viewport().repaint()  # the first entry is painted
first = time.time() - t0
while not win.settled:
    app.processEvents()
    time.sleep(0.002)
settled = time.time() - t0
hub, other = sys.argv[5], sys.argv[6]
opens = []
for _ in range(3):
    win.show_entry(other)
    app.processEvents()
    t = time.perf_counter()
    win.show_entry(hub)
    app.processEvents()
    win.entry_pane.viewport().repaint()
    win.backlinks.tree.viewport().repaint()
    opens.append(time.perf_counter() - t)
    win.backlinks.wait_unlinked()
print(json.dumps({"first": first, "settled": settled, "hub": min(opens)}))
win.close()
"""


def child_env(db: Path) -> dict[str, str]:
    """The window's environment: its user state beside the index, not in the user's folder
    (a start with a layout saved by the previous one, as for a reader)."""
    return {**os.environ, "ANTHOLOGY_STATE_DIR": str(db.parent / "user-state")}


def window_on(vault: Path, db: Path, settings: Path, hub: str, other: str) -> dict:
    """Start the window on ``vault`` in a fresh process: seconds to the first painted entry,
    to settled, and the fastest of three openings of ``hub`` (coming from ``other``)."""
    import json

    out = subprocess.run(
        [sys.executable, "-c", VAULT_CHILD, repr(time.time()), str(vault), str(db),
         str(settings), hub, other],
        capture_output=True, text=True, check=True, env=child_env(db),
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def synthetic_rows(n: int, tmpdir: Path, root: Path | None = None) -> list[dict]:
    """The window on a synthetic vault of ``n`` entries (``root``: one generated before with
    ``synthetic_vault.py OUT --n n``), never seen and then cached."""
    from anthology.vault.index import VaultIndex

    root = root or generate(tmpdir / f"vault{n}", n, seed=3)
    db = tmpdir / f"window{n}.sqlite"  # none yet: the first start builds it
    hub, other = _entry_id(0), _entry_id(n - 1)  # the generator's biggest hub, and a leaf
    fresh = window_on(root, db, tmpdir / "fresh.ini", hub, other)
    cached = window_on(root, db, tmpdir / "cached.ini", hub, other)
    with VaultIndex.open(root, db, refresh=False) as index:
        groups, _sources = index.backlink_groups(hub)
    links = sum(count for _relation, count in groups)
    return [
        row("window start to first painted entry, index cached", n, "s", cached["first"],
            "issue target", 2.0),
        row("window start to first painted entry, never-seen vault", n, "s", fresh["first"],
            "issue target", 2.0),
        row("window start to settled (graph, switcher, counts), index cached", n, "s",
            cached["settled"], "first painted entry", cached["first"]),
        row("never-seen vault: start to settled (cold index build included)", n, "s",
            fresh["settled"], "first painted entry", fresh["first"]),
        row(f"open the biggest hub in the window ({links:,} backlinks)", n, "s",
            cached["hub"], "issue target", 0.1),
    ]  # fmt: skip


def cold_start(db: Path, settings: Path) -> float:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, repr(time.time()), str(db), str(settings)],
        capture_output=True, text=True, check=True, env=child_env(db),
    )  # fmt: skip
    return float(out.stdout.strip().splitlines()[-1])


def open_entry(index, entry_id: str):
    """What the window asks of the core to open an entry: the entry rendered, its backlinks
    grouped and counted, the first page of each group (as the panel shows them) and its
    unlinked mentions."""
    from anthology.ui.panels.backlinks_panel import PAGE
    from anthology.ui.window.main_window import CITED_BY_SHOWN
    from anthology.vault.render import render_entry

    entry = index.entry(entry_id, cited_by_limit=CITED_BY_SHOWN)
    render_entry(entry, index)
    groups, _sources = index.backlink_groups(entry_id)
    for relation, _count in groups:
        index.backlinks_page(entry_id, relation, 0, PAGE)
    index.unlinked_mentions(entry_id)
    return entry, sum(count for _relation, count in groups)


def open_entry_times(root: Path, db: Path, n_open: int) -> tuple[float, float, float, int]:
    """Median time to open an entry, python-markdown's median on the same bodies, and the
    time to open the entry with the most backlinks (and their number)."""
    import markdown

    from anthology.vault.index import VaultIndex
    from anthology.vault.render import clear_render_cache

    index = VaultIndex.open(root, db)
    ids = [r.id for r in index.entries()][:: max(1, len(index.entries()) // n_open)][:n_open]
    ours, bare = [], []
    md = markdown.Markdown(extensions=["tables", "fenced_code"])
    for entry_id in ids:
        clear_render_cache()
        t0 = time.perf_counter()
        entry, _ = open_entry(index, entry_id)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        md.reset().convert(entry.body)
        bare.append(time.perf_counter() - t0)
    hub = index.conn.execute(
        "SELECT e.id FROM links l JOIN entries e ON e.eid = l.target "
        "GROUP BY l.target ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()[0]
    hub_times = []
    for _ in range(3):
        clear_render_cache()
        t0 = time.perf_counter()
        _, hub_links = open_entry(index, hub)
        hub_times.append(time.perf_counter() - t0)
    index.close()
    return statistics.median(ours), statistics.median(bare), min(hub_times), hub_links


BASE_SRC = Path(os.environ.get("ANTHOLOGY_BASE_SRC", "/tmp/wt-base/src"))
OURS_SRC = Path(__file__).resolve().parent.parent / "src"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def clicks(src: Path, vault: Path, db: Path, tmpdir: Path, hub: str, rounds: int) -> dict:
    """One child process (click_child.py) on the sources ``src``: its clicks' times."""
    import json

    ini = tmpdir / f"clicks-{abs(hash((str(src), str(vault))))}-{time.time_ns()}.ini"
    env = {**child_env(db), "PYTHONPATH": str(src)}
    # Read the figures as soon as they are printed: a base commit's child may hang at exit
    # (af0ffb6 joins its index pool while a refresh runs: the quit bug #28 fixed).
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("click_child.py")), str(vault), str(db),
         str(ini), hub, str(rounds)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    assert child.stdout is not None
    for line in child.stdout:
        if line.startswith("{"):
            child.kill()
            child.wait()
            return json.loads(line)
    child.wait()
    raise RuntimeError(f"click_child.py on {src} printed no figures (exit {child.returncode})")


def click_rows(vault: Path, db: Path, tmpdir: Path, label: str, rounds: int,
               runs: int = 2) -> list[dict]:  # fmt: skip
    """Click to painted entry (and to every panel updated) in the real window, ours against
    the previous commit (``BASE_SRC``, a git worktree of it) run interleaved."""
    from anthology.vault.index import VaultIndex

    with VaultIndex.open(vault, db) as index:
        hub = index.conn.execute(
            "SELECT e.id FROM links l JOIN entries e ON e.eid = l.target "
            "GROUP BY l.target ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()[0]
    sides = {"ours": OURS_SRC} | ({"base": BASE_SRC} if BASE_SRC.is_dir() else {})
    painted: dict[str, list[float]] = {k: [] for k in sides}
    updated: dict[str, list[float]] = {k: [] for k in sides}
    hub_painted: dict[str, list[float]] = {k: [] for k in sides}
    starts: dict[str, list[float]] = {k: [] for k in sides}
    for _ in range(runs):
        for side, src in sides.items():  # interleaved: the machine's load falls on both
            got = clicks(src, vault, db, tmpdir, hub, rounds)
            starts[side].append(got["start"])
            for kind, times in got["painted"].items():
                painted[side] += times
                if kind == "hub":
                    hub_painted[side] += times
            for times in got["updated"].values():
                updated[side] += times
    rows = []
    for what, data in (("painted entry", painted), ("every panel updated", updated)):
        for stat, q in (("median", 0.5), ("p95", 0.95)):
            ours = _percentile(data["ours"], q)
            target = (0.05 if stat == "median" else 0.1) if what == "painted entry" else None
            if data.get("base"):
                rows.append(row(f"click to {what}, {stat} ({label}, {len(data['ours'])} clicks)",
                                label, "s", ours, "previous commit",
                                _percentile(data["base"], q)))  # fmt: skip
            if target is not None:
                rows.append(row(f"click to {what}, {stat} ({label})", label, "s", ours,
                                "issue target", target))  # fmt: skip
    nan = float("nan")
    base_start = statistics.median(starts["base"]) if starts.get("base") else nan
    rows.append(row(f"start to first painted entry, new docks ({label})", label, "s",
                    statistics.median(starts["ours"]), "previous commit", base_start))  # fmt: skip
    if hub_painted["ours"]:
        base_hub = max(hub_painted["base"]) if hub_painted.get("base") else nan
        rows.append(row(f"click to the hub {hub} painted, slowest ({label})", label, "s",
                        max(hub_painted["ours"]), "previous commit", base_hub))  # fmt: skip
    return rows


def quit_time(src: Path, db: Path, tmpdir: Path) -> float:
    """Seconds from File › Quit to the process gone, through the app's own run_gui."""
    child = (
        "import os, sys, time\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from PySide6.QtCore import QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "try:\n"  # the window in rooms; the flat ui/ of a base commit before them
        "    import anthology.ui.window.main_window as mw\n"
        "except ImportError:\n"
        "    import anthology.ui.main_window as mw\n"
        "from anthology.ui import app as appmod\n"
        "real = mw.MainWindow\n"
        "class Timed(real):\n"
        "    def __init__(self, *a, **k):\n"
        "        super().__init__(*a, **k)\n"
        "        def tick():\n"
        "            if self.settled:\n"
        "                print('Q', time.time(), flush=True); self.act_quit.trigger()\n"
        "            else:\n"
        "                QTimer.singleShot(20, tick)\n"
        "        QTimer.singleShot(1500, tick)\n"
        "mw.MainWindow = Timed\n"
        "sys.exit(appmod.run_gui(None, db=sys.argv[1]))\n"
    )
    env = {**child_env(db), "PYTHONPATH": str(src), "XDG_CONFIG_HOME": str(tmpdir / "cfg")}
    out = subprocess.run([sys.executable, "-c", child, str(db)], capture_output=True,
                         text=True, env=env, timeout=120)  # fmt: skip
    end = time.time()
    asked = [ln for ln in out.stdout.splitlines() if ln.startswith("Q ")]
    return end - float(asked[-1].split()[1]) if asked else float("nan")


def run(quick: bool = False) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        no_index = min(cold_start(tmpdir / f"fresh{k}.sqlite", tmpdir / f"s{k}.ini")
                       for k in range(1 if quick else 2))  # fmt: skip
        warm = min(cold_start(tmpdir / "fresh0.sqlite", tmpdir / "w.ini")
                   for _ in range(1 if quick else 3))  # fmt: skip
        rows.append(row("cold start to first painted entry, index cached", 54, "s", warm,
                        "issue target", 1.5))  # fmt: skip
        rows.append(row("cold start to first painted entry, no index", 54, "s", no_index,
                        "issue target", 1.5))  # fmt: skip
        n = 1000 if quick else 10_000
        root = generate(tmpdir / "vault", n, seed=3)
        ours, bare, hub, hub_links = open_entry_times(root, tmpdir / "big.sqlite",
                                                      20 if quick else 60)  # fmt: skip
        rows.append(row("open an entry (render + properties + backlinks), median", n, "s",
                        ours, "python-markdown alone", bare))  # fmt: skip
        rows.append(row("open an entry vs the issue's 50 ms", n, "s", ours, "issue target",
                        0.05))  # fmt: skip
        rows.append(row(f"open the biggest hub, core calls only ({hub_links:,} backlinks)", n,
                        "s", hub, "issue target for any entry", 0.05))  # fmt: skip
        rows += synthetic_rows(2000 if quick else 10_000, tmpdir)
        from anthology.paths import entries_dir

        rounds = 3 if quick else 6
        rows += click_rows(entries_dir(), tmpdir / "fresh0.sqlite", tmpdir, "anthology", rounds)
        rows += click_rows(root, tmpdir / "big.sqlite", tmpdir, f"{n:,} entries", rounds)
        sides = {"ours": OURS_SRC} | ({"base": BASE_SRC} if BASE_SRC.is_dir() else {})
        quits: dict[str, list[float]] = {k: [] for k in sides}
        for _ in range(1 if quick else 3):
            for side, src in sides.items():
                quits[side].append(quit_time(src, tmpdir / "fresh0.sqlite", tmpdir))
        base_quit = statistics.median(quits["base"]) if "base" in quits else float("nan")
        ours_quit = statistics.median(quits["ours"])
        rows.append(row("quit (File › Quit to the process gone), median", 54, "s", ours_quit,
                        "previous commit", base_quit))  # fmt: skip
        rows.append(row("quit, median", 54, "s", statistics.median(quits["ours"]),
                        "issue target", 0.3))  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000, help="entries of the synthetic vault")
    ap.add_argument("--vault", type=Path, help="a synthetic vault of --n entries made before")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        rows = synthetic_rows(args.n, Path(tmp), args.vault)
    for r in rows:
        print(f"{r['name']}: {r['ours']:.3f} {r['unit']} vs {r['peer']} "
              f"{r['peer_value']:.3f} {r['unit']} (ratio {r['ratio']:.2f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
