"""The window at 1,000, 10,000 and 100,000 entries (issue 35): each row of the issue's table,
ours against the base commit's code in the same run, and 100k against 10k.

    python benchmarks/run.py scale            # 1k, 10k and 100k (the README's scale table)
    python benchmarks/bench_scale.py --sizes 10000 100000 --vaults /tmp --runs 2

Each start runs the real MainWindow offscreen in a fresh process (``scale_child.py``): a
never-seen vault (the index built from nothing, until the graph, switcher, explorer and
counts are in), then the same vault cached: seconds to the first painted entry and to
settled, the longest event-loop turn before it settled (a 5 ms QTimer watchdog), the RSS
with the global graph shown, and the biggest hub opened; then cached again with the graph
left in the local graph, switched to the global one (the longest turn of the switch and
the second after it, and of everything both cached starts did). The CLI re-run is ``anthology
index`` on the cached index, process start included. Ours and the base commit's sources
(``ANTHOLOGY_BASE_SRC``, default ``/tmp/scale-start-base/src``: ``git archive BASE src``)
take turns, each with an index of its own (their schemas differ), so the machine's load
falls on both. Each figure is the median of ``--runs`` runs; the spread (lowest–highest)
is printed beside it. A vault ``VAULTS/scale{n//1000}k`` made by ``synthetic_vault.py OUT
--n n --seed 3`` is used as it is (generating 100,000 notes takes minutes).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from child import last_json
from rows import row
from synthetic_vault import _entry_id, generate

HERE = Path(__file__).resolve().parent
OURS_SRC = Path(os.environ.get("ANTHOLOGY_OURS_SRC", HERE.parent / "src"))
BASE_SRC = Path(os.environ.get("ANTHOLOGY_BASE_SRC", "/tmp/scale-start-base/src"))
CHILD = HERE / "scale_child.py"
TIMEOUT = 900  # s: a never-seen 100k vault on a loaded 2-core machine


def _env(src: Path, state: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(src), "ANTHOLOGY_STATE_DIR": str(state),
            "QT_QPA_PLATFORM": "offscreen"}  # fmt: skip


def start(src: Path, vault: Path, db: Path, work: Path, n: int, *, local: bool = False) -> dict:
    """One start of the window on ``vault`` with the sources ``src``: scale_child's JSON
    (``local``: the graph left in the local graph, the switch to the global one measured)."""
    hub, other = _entry_id(0), _entry_id(n - 1)
    out = subprocess.run(
        [sys.executable, str(CHILD), str(vault), str(db), str(work / "window.ini"), "--global",
         "--hub", hub, "--other", other, *(["--local"] if local else [])],
        capture_output=True, text=True, env=_env(src, work / "state"), timeout=TIMEOUT,
    )  # fmt: skip
    answer = last_json(out.stdout)
    if answer is None:
        raise RuntimeError(f"scale_child on {src} printed nothing: {out.stderr[-2000:]}")
    return answer


def cli_rerun(src: Path, vault: Path, db: Path, work: Path) -> float:
    """``anthology index`` on an index that is up to date, process start included."""
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "anthology", "index", str(vault), "--db", str(db)],
                   capture_output=True, check=True, env=_env(src, work / "state"),
                   timeout=TIMEOUT)  # fmt: skip
    return time.perf_counter() - t


def measure(sides: dict[str, Path], vault: Path, n: int, tmp: Path, runs: int) -> dict:
    """{side: {figure: [one value per run]}}: a never-seen start, a cached start and a CLI
    re-run per run and side, the sides taking turns."""
    got: dict[str, dict[str, list[float]]] = {s: {} for s in sides}
    for k in range(runs):
        for side, src in sides.items():
            work = tmp / f"{side}-{n}-{k}"
            work.mkdir(parents=True)
            db = work / "index.sqlite"
            fresh = start(src, vault, db, work, n)
            cached = start(src, vault, db, work, n)
            switched = start(src, vault, db, work, n, local=True)
            figures = {
                "fresh_works": fresh["works"],
                "fresh_settled": fresh["settled"],
                "first": cached["first"],
                "settled": cached["settled"],
                "longest_turn": cached["longest_turn"],
                "longest_turn_all": max(
                    cached["longest_turn_global"], switched["longest_turn_global"]
                ),
                "switch_turn": switched.get("longest_turn_switch", float("nan")),
                "rss": cached["rss_mb"],
                "peak": cached["peak_mb"],
                "hub": cached["hub"],
                "cli": cli_rerun(src, vault, db, work),
            }
            for key, value in figures.items():
                got[side].setdefault(key, []).append(value)
            print(
                f"  {side} {n:,} run {k + 1}: "
                + ", ".join(f"{key} {value:.3g}" for key, value in figures.items()),
                file=sys.stderr,
            )
    return got


FIGURES = [  # key, what the row says, unit, the goal at 100k (None: none)
    ("longest_turn", "cached start: longest GUI freeze before the views settle", "s", 0.1),
    (
        "switch_turn",
        "switch from the local to the global graph: longest turn (and 1 s after)",
        "s",
        0.1,
    ),
    (
        "longest_turn_all",
        "cached starts and the switch, a second of the global graph drawn after each: longest turn",
        "s",
        0.1,
    ),
    ("settled", "cached start: until graph, switcher, explorer and counts are ready", "s", 3.0),
    ("first", "cached start: first painted entry", "s", None),
    ("rss", "RSS with the global graph shown", "MB", 600.0),
    ("peak", "RSS with the global graph shown, peak", "MB", None),
    ("hub", "open the hub in the window", "s", 0.1),
    ("cli", "CLI re-run, nothing changed (process start included)", "s", 1.0),
    ("fresh_works", "never-seen vault: until search and the graph work", "s", 20.0),
    ("fresh_settled", "never-seen vault: until the whole index is built and shown", "s", None),
]


def spread(values: list[float]) -> str:
    return f"{min(values):.3g}–{max(values):.3g}" if len(values) > 1 else f"{values[0]:.3g}"


def run(quick: bool = False, sizes: list[int] | None = None, vaults: Path | None = None,
        runs: int | None = None) -> list[dict]:  # fmt: skip
    sizes = sizes or ([1000, 2000] if quick else [1000, 10_000, 100_000])
    runs = runs or (1 if quick else 2)
    vaults = vaults or Path(os.environ.get("ANTHOLOGY_SCALE_VAULTS", "/tmp"))
    sides = {"ours": OURS_SRC} | ({"base": BASE_SRC} if BASE_SRC.is_dir() else {})
    rows: list[dict] = []
    medians: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as t:
        tmp = Path(t)
        for n in sizes:
            ready = vaults / f"scale{n // 1000}k"
            vault = ready if ready.is_dir() else generate(tmp / f"vault{n}", n, seed=3)
            got = measure(sides, vault, n, tmp, runs)
            medians[n] = {k: statistics.median(v) for k, v in got["ours"].items()}
            for key, what, unit, goal in FIGURES:
                ours = got["ours"][key]
                label = f"{what} (ours {spread(ours)}"
                if "base" in got:
                    base = got["base"][key]
                    rows.append(row(f"{label}, base {spread(base)})", n, unit,
                                    statistics.median(ours), "base commit, same run",
                                    statistics.median(base)))  # fmt: skip
                elif goal is not None and n == 100_000:
                    rows.append(row(f"{label})", n, unit, statistics.median(ours),
                                    "issue goal", goal))  # fmt: skip
                if goal is not None and n == 100_000 and "base" in got:
                    rows.append(row(f"{what} vs the issue's goal", n, unit,
                                    statistics.median(ours), "issue goal", goal))  # fmt: skip
        if 10_000 in medians:  # how much worse 100k (or the largest) is than 10k
            big = max(medians)
            if big != 10_000:
                for key, what, _unit, _goal in FIGURES:
                    rows.append(row(f"{what}: {big // 1000}k over 10k", f"{big // 1000}k/10k",
                                    "×", medians[big][key] / max(medians[10_000][key], 1e-9),
                                    None, None))  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    ap.add_argument("--vaults", type=Path, help="a folder with scale1k, scale10k, scale100k")
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args(argv)
    for r in run(sizes=args.sizes, vaults=args.vaults, runs=args.runs):
        peer = f" vs {r['peer']} {r['peer_value']:.3g}" if r["peer"] else ""
        ratio = f" (ratio {r['ratio']:.2f})" if r["ratio"] else ""
        print(f"{r['size']}: {r['name']}: {r['ours']:.3g} {r['unit']}{peer}{ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
