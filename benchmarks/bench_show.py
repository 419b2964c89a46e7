"""``anthology show`` of the biggest hub: wall time and peak memory, text and ``--json``.

Each command runs in a process of its own, as a user runs it (output to /dev/null), and
its own peak RSS is read from ``os.wait4``. Peers, measured in the same run:

- time: the floor, a bare ``sqlite3`` script in a process of its own that reads the same
  backlink rows (joined to their sources) and writes one line each, with no context;
- memory: the 300 MB target, and the list-building way ``show`` worked before it streamed
  (``VaultIndex.backlinks()``, every link and its context in one list, then printed).

    python benchmarks/bench_show.py [--n 10000]           # a synthetic vault of that size
    python benchmarks/bench_show.py --vault V --db I.sqlite  # an existing vault and index
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anthology
from rows import row
from synthetic_vault import generate

TARGET_MB = 300.0
SRC = str(Path(anthology.__file__).resolve().parents[1])

FLOOR = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
out = sys.stdout
eid = conn.execute("SELECT eid FROM entries WHERE id = ?", (sys.argv[2],)).fetchone()[0]
cur = conn.execute(
    "SELECT s.id, s.title, l.relation FROM links l JOIN entries s ON s.eid = l.source "
    "WHERE l.target = ? AND l.source != l.target "
    "ORDER BY l.relation IS NULL, l.relation, s.id, l.line", (eid,))
while rows := cur.fetchmany(1000):
    for sid, title, rel in rows:
        out.write(f"  [{rel or 'mentions'}] {sid} — {title}\\n")
"""

LIST = """
import sys
from pathlib import Path
from anthology.vault.index import VaultIndex
with VaultIndex.open(Path(sys.argv[1]), Path(sys.argv[2])) as index:
    links = index.backlinks(sys.argv[3])
for b in links:
    print(f"  [{b.relation or 'mentions'}] {b.source.label}: {b.context}")
"""


def measure(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one process, its output thrown away."""
    path = os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:4]} exited {proc.returncode}: {err.decode()[-2000:]}")
    return seconds, usage.ru_maxrss / 1024  # ru_maxrss is in KB on Linux


def biggest_hub(db: Path) -> tuple[str, int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        eid, n = conn.execute(
            "SELECT target, count(*) AS n FROM links WHERE target IS NOT NULL "
            "AND source != target GROUP BY target ORDER BY n DESC LIMIT 1"
        ).fetchone()
        return conn.execute("SELECT id FROM entries WHERE eid = ?", (eid,)).fetchone()[0], n
    finally:
        conn.close()


def bench(vault: Path, db: Path, *, peers: bool = True) -> list[dict]:
    from anthology.vault.index import VaultIndex

    VaultIndex.open(vault, db).close()  # built (or brought up to date) before timing
    hub, links = biggest_hub(db)
    show = [sys.executable, "-m", "anthology", "show", hub, str(vault), "--db", str(db)]
    text_s, text_mb = measure(show)
    json_s, json_mb = measure([*show, "--json"])
    floor_s, _ = measure([sys.executable, "-c", FLOOR, str(db), hub])
    rows = [
        row(f"show {hub} ({links:,} backlinks), text", links, "s", text_s,
            "floor: sqlite3 rows → lines", floor_s),
        row(f"show {hub}, --json", links, "s", json_s, "floor: sqlite3 rows → lines", floor_s),
        row(f"show {hub}, text: peak RSS", links, "MB", text_mb, "target", TARGET_MB),
        row(f"show {hub}, --json: peak RSS", links, "MB", json_mb, "target", TARGET_MB),
    ]  # fmt: skip
    if peers:
        list_s, list_mb = measure([sys.executable, "-c", LIST, str(vault), str(db), hub])
        rows.append(row(f"show {hub}, text: peak RSS", links, "MB", text_mb,
                        "backlinks() list, then print", list_mb))  # fmt: skip
        rows.append(row(f"show {hub}, text", links, "s", text_s,
                        "backlinks() list, then print", list_s))  # fmt: skip
    return rows


def run(quick: bool = False, n: int | None = None) -> list[dict]:
    n = n or (2000 if quick else 10_000)
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "vault", n, seed=1)
        return bench(root, Path(tmp) / "index.sqlite")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000, help="entries of the synthetic vault")
    ap.add_argument("--vault", type=Path, help="an existing vault instead of a synthetic one")
    ap.add_argument("--db", type=Path, help="its index file (with --vault)")
    ap.add_argument("--no-list", action="store_true", help="skip the list-building peer")
    args = ap.parse_args(argv)
    if args.vault:
        if not args.db:
            ap.error("--vault needs --db")
        rows = bench(args.vault, args.db, peers=not args.no_list)
    else:
        rows = run(n=args.n)
    for r in rows:
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.2f}"
        print(f"{r['name']}: {r['ours']:.2f} {r['unit']} vs {r['peer']} "
              f"{r['peer_value']:.2f} {r['unit']} (ratio {ratio})")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
