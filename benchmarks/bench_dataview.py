"""Dataview over 10,000 notes (issue 33: a query over 10,000 notes answers ≤ 200 ms).

The books-shaped vault of :mod:`bench_bases` (8,000 books with author links, genre, year,
rating, pages, tags; people; other notes), where every other note also holds three tasks
(one done, one with a due date) and a line of inline fields (``mood:: …``, ``[score:: N]``).
Indexed once (not timed). Then, each run with a fresh budget over the same rows:

* **DQL TABLE**: ``TABLE author, year, rating FROM #book WHERE rating >= 4 SORT year DESC``;
* **DQL TABLE, inline field**: ``TABLE mood, score FROM "Notes" WHERE score > 5 SORT score``
  (the fields typed from their text when read);
* **DQL GROUP BY**: ``TABLE length(rows) AS n FROM #book GROUP BY genre``;
* **DQL TASK**: ``TASK FROM "Notes" WHERE !completed AND due`` (every note's list items read);
* **page render**: an entry page holding the TABLE (evaluated and drawn, 1,000 rows shown).

Median and p95, wall clock and the thread's CPU time; ``ratio = 200 / ours``.
Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_dataview.py [--quick] [--notes N]``
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_bases import _stats, clock_rows, generate, page_times

TARGET_MS = 200.0
QUERIES = {
    "table": "TABLE author, year, rating FROM #book WHERE rating >= 4 SORT year DESC",
    "inline": 'TABLE mood, score FROM "Notes" WHERE score > 5 SORT score DESC',
    "group": "TABLE length(rows) AS n FROM #book GROUP BY genre",
    "task": 'TASK FROM "Notes" WHERE !completed AND due',
}
LABELS = {
    "table": "DQL TABLE FROM #book WHERE SORT",
    "inline": "DQL TABLE of inline fields WHERE SORT",
    "group": "DQL TABLE GROUP BY genre",
    "task": "DQL TASK WHERE !completed AND due",
    "page": "entry page holding the TABLE (evaluate + HTML, 1,000 rows drawn)",
}


def add_dataview(root: Path, seed: int = 2) -> None:
    """Three tasks and inline fields in every other note, and a page holding the TABLE."""
    rng = random.Random(seed)
    notes = sorted((root / "Notes").glob("*.md"))
    for i, path in enumerate(notes):
        if i % 2:
            continue
        day = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        extra = (
            f"\nmood:: {rng.choice(['calm', 'tired', 'glad'])} [score:: {rng.randint(0, 10)}]\n\n"
            f"- [ ] Follow up [due:: {day}]\n- [x] Read it\n- [ ] Summarise\n    - a child\n"
        )
        with path.open("a", encoding="utf-8") as fh:
            fh.write(extra)
    (root / "Notes" / "Dashboard.md").write_text(
        f"# Dashboard\n\n```dataview\n{QUERIES['table']}\n```\n", encoding="utf-8"
    )


def measure(n: int, runs: int) -> dict:
    from anthology.query.dataview import parse_query, run_query
    from anthology.query.rows import Budget
    from anthology.vault import query_rows
    from anthology.vault.index import VaultIndex

    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "vault", n)
        add_dataview(root)
        with VaultIndex.open(root, Path(tmp) / "index.sqlite") as index:
            data = query_rows.dataset(index)
            for name, text in QUERIES.items():
                times, cpu = [], []
                for _ in range(runs):
                    t0, c0 = time.perf_counter(), time.thread_time()
                    result = run_query(parse_query(text), data, this_path=None,
                                       budget=Budget(seconds=600))  # fmt: skip
                    times.append((time.perf_counter() - t0) * 1000)
                    cpu.append((time.thread_time() - c0) * 1000)
                assert result.total > 0, (name, result)
                out[name] = _stats(times)
                out[name + "_cpu"] = _stats(cpu)
                out[name + "_rows"] = result.total
            entry = index.entry("Notes/Dashboard")
            assert entry is not None
            times, cpu, html = page_times(entry, index, root, runs)
            assert 'class="dataview"' in html and "Dataview:" not in html
            out["page"] = _stats(times)
            out["page_cpu"] = _stats(cpu)
    return out


def run(quick: bool = False, notes: int | None = None) -> list[dict]:
    n = notes or (2_000 if quick else 10_000)
    m = measure(n, 10 if quick else 30)
    return clock_rows(n, m, [
        (key, f"{label} ({m[key + '_rows']:,} results)" if key + "_rows" in m else label,
         None if key == "page" else TARGET_MS)
        for key, label in LABELS.items()
    ])  # fmt: skip


if __name__ == "__main__":
    notes = None
    if "--notes" in sys.argv:
        notes = int(sys.argv[sys.argv.index("--notes") + 1])
    for r in run(quick="--quick" in sys.argv, notes=notes):
        print(f"{r['name']:<84} {r['size']:>14} {r['ours']:>9} ms  ratio {r['ratio']}")
