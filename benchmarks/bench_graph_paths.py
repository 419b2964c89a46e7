"""Paths between entries on the 10,000-entry synthetic vault (issue 14: median ≤ 50 ms).

The vault is generated (``synthetic_vault.py``, seed 1) and indexed; its graph is asked
for as the window asks (``VaultIndex.graph(ghosts=True)``), and one
:class:`anthology.graph.paths.PathFinder` is built from it, once (its networkx graphs are
kept, as the graph view keeps its finder). Then seeded random pairs of entries are asked:

* shortest path (k = 1), every link;
* the 5 shortest paths (Yen's algorithm, ``nx.shortest_simple_paths``);
* shortest path over typed relations only;
* building the finder's graph (once per graph; the first question pays it).

Rows: ``ratio = target / ours`` (above 1: within the issue's target).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_graph_paths.py [--quick]``
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from synthetic_vault import generate

N_ENTRIES = 10_000
TARGET_MS = 50.0


def _time_ms(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000.0


def measure(n: int, pairs: int) -> dict:
    from anthology.graph.paths import PathFinder
    from anthology.vault.index import VaultIndex

    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "vault", n, seed=1)
        with VaultIndex.open(root, Path(tmp) / "index.sqlite") as index:
            data = index.graph(ghosts=True)
    entries = [k for k, ghost in zip(data.ids, data.ghost.tolist(), strict=True) if not ghost]
    finder = PathFinder(data)
    build = _time_ms(lambda: finder.graph(False))
    build_typed = _time_ms(lambda: finder.graph(True))
    rng = random.Random(7)
    asked = [tuple(rng.sample(entries, 2)) for _ in range(pairs)]
    out: dict = {"build": build, "build_typed": build_typed, "edges": len(data.edges)}
    for name, k, typed in (("k1", 1, False), ("k5", 5, False), ("typed", 1, True)):
        times, found = [], 0
        for a, b in asked:
            t0 = time.perf_counter()
            paths = finder.paths(a, b, k=k, typed_only=typed)
            times.append((time.perf_counter() - t0) * 1000.0)
            found += bool(paths)
        out[name] = statistics.median(times)
        out[name + "_p95"] = sorted(times)[int(0.95 * (len(times) - 1))]
        out[name + "_found"] = found
    out["pairs"] = len(asked)
    return out


def run(quick: bool = False) -> list[dict]:
    n = 2_000 if quick else N_ENTRIES
    m = measure(n, 30 if quick else 200)
    size = f"{n} entries / {m['edges']} links"

    def row(name: str, ours: float, target: float | None = TARGET_MS) -> dict:
        return {
            "name": name,
            "size": size,
            "unit": "ms",
            "ours": round(ours, 2),
            "peer": "issue target" if target is not None else "",
            "peer_value": target,
            "ratio": None if target is None else round(target / max(ours, 1e-9), 2),
        }

    p = m["pairs"]
    return [
        row(f"path query, shortest (median of {p}; {m['k1_found']} found)", m["k1"]),
        row(f"path query, shortest (p95 of {p})", m["k1_p95"]),
        row(f"path query, 5 shortest (median of {p}; {m['k5_found']} found)", m["k5"]),
        row(f"path query, 5 shortest (p95 of {p})", m["k5_p95"], None),
        row(f"path query, typed only (median of {p}; {m['typed_found']} found)", m["typed"]),
        row("build the path graph (once per graph)", m["build"], None),
        row("build the typed-only path graph (once per graph)", m["build_typed"], None),
    ]


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv):
        print(r)
