"""Indexing: parse rate, cold index against the bare floor, incremental refresh, obsidiantools.

The floor is the least any full-text index of the vault must do: read every file and insert its
raw text into an FTS5 table. ``obsidiantools`` builds the same link graph on the same vault.

``--cold VAULT [VAULT …]`` only times cold index builds of the given vaults (median of
``--runs``), with whichever ``anthology`` is first on the path: run it with the source
before and after a change to the index (the cost Dataview's inline fields and list items
add, README "Dataview"):

    PYTHONPATH=/tmp/before/src python benchmarks/bench_index.py --cold VAULT entries
    PYTHONPATH=src python benchmarks/bench_index.py --cold VAULT entries
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from anthology.vault.index import VaultIndex
from anthology.vault.parse_file import parse_files
from anthology.vault.scan import scan_vault
from rows import row
from synthetic_vault import generate


def floor_seconds(root: Path, db: Path) -> float:
    t0 = time.perf_counter()
    conn = sqlite3.connect(db)
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(body)")
    with conn:
        conn.executemany(
            "INSERT INTO f(body) VALUES (?)",
            ((p.read_text(encoding="utf-8"),) for p in sorted(root.rglob("*.md"))),
        )
    conn.close()
    return time.perf_counter() - t0


def parse_rate(root: Path) -> tuple[float, float]:
    """Entries per second: our parse (front matter + links), and python-markdown rendering."""
    import markdown

    # What a worker of the indexer does per file: read, parse, and build the rows to write.
    paths = [s.path for s in scan_vault(root).entries[:2000]]
    best = float("inf")
    for _ in range(3):  # best of three: the machine may be shared
        t0 = time.perf_counter()
        parse_files(str(root), paths)
        best = min(best, time.perf_counter() - t0)
    ours = len(paths) / best
    md = markdown.Markdown(extensions=["tables", "fenced_code", "toc", "footnotes"])
    texts = [(root / p).read_text(encoding="utf-8") for p in paths[:500]]
    t0 = time.perf_counter()
    for text in texts:
        md.reset().convert(text)
    render = len(texts) / (time.perf_counter() - t0)
    return ours, render


def parallel_parse_rate(root: Path) -> float:
    """Entries per second of the indexer's parse step on every core: worker processes
    reading and parsing chunks of files, handed back in order (``pool.in_order``, as the
    write path runs it; there the workers also write the rows, see ``vault/stage.py``)."""
    import functools

    from anthology.vault.indexer import CHUNK
    from anthology.vault.pool import in_order

    paths = [s.path for s in scan_vault(root).entries]
    jobs = [paths[i : i + CHUNK] for i in range(0, len(paths), CHUNK)]
    parse = functools.partial(parse_files, str(root))
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        for _rows in in_order(jobs, parse, parse, parallel=True):
            pass
        best = min(best, time.perf_counter() - t0)
    return len(paths) / best


def fts_rows(root: Path) -> list[tuple]:
    """The full-text rows of every entry, as the index writes them."""
    from anthology.vault.stage import fts_row

    rows = parse_files(str(root), [s.path for s in scan_vault(root).entries])
    return [fts_row(n, e) for n, (_problems, e) in enumerate(rows, start=1) if e is not None]


def fts_insert_seconds(fts: list[tuple], db: Path) -> float:
    """The index's own FTS5 insert (its table, its four columns) of every entry, the files
    already read and parsed: the part of the floor's work that a cold index repeats."""
    from anthology.vault.schema import open_database

    conn, _created, _read_only = open_database(db)
    conn.execute("PRAGMA synchronous = OFF")  # as a cold build writes
    t0 = time.perf_counter()
    with conn:
        conn.executemany(
            "INSERT INTO entries_fts(rowid, title, aliases, tags, body) VALUES (?,?,?,?,?)", fts
        )
    seconds = time.perf_counter() - t0
    conn.close()
    return seconds


def obsidiantools_run(root: Path) -> tuple[float, int] | None:
    try:
        import obsidiantools.api as otools
    except ImportError:
        return None
    t0 = time.perf_counter()
    vault = otools.Vault(root).connect()
    seconds = time.perf_counter() - t0
    links = sum(len(v) for v in vault.wikilinks_index.values())
    return seconds, links


def run(quick: bool = False) -> list[dict]:
    n = 1000 if quick else 10_000
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        root = generate(tmpdir / "vault", n, seed=1)
        ours_rate, render_rate = parse_rate(root)
        rows.append(row("parse stage (front matter + links)", n, "entries/s", ours_rate,
                        "python-markdown render", render_rate, lower_is_better=False))  # fmt: skip
        rows.append(row("parse stage, worker processes on every core",
                        n, "entries/s", parallel_parse_rate(root), "same parse, one process",
                        ours_rate, lower_is_better=False))  # fmt: skip
        floors, colds = [], []
        for k in range(1 if quick else 3):
            floors.append(floor_seconds(root, tmpdir / f"floor{k}.sqlite"))
            t0 = time.perf_counter()
            index = VaultIndex.open(root, tmpdir / f"index{k}.sqlite")
            colds.append(time.perf_counter() - t0)
            if k == 0:
                links = index.stats()["links"]
                noop = []
                for _ in range(5):
                    t0 = time.perf_counter()
                    index.refresh()
                    noop.append(time.perf_counter() - t0)
                edits = []
                target = next(root.rglob("*.md"))
                for i in range(5):
                    with target.open("a", encoding="utf-8") as fh:
                        fh.write(f"\nedit {i} links [[LIT-00003]]\n")
                    st = target.stat()
                    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9 * (i + 1)))
                    t0 = time.perf_counter()
                    index.refresh()
                    edits.append(time.perf_counter() - t0)
            index.close()
        cold, floor = min(colds), min(floors)
        rows.append(row("cold index, FTS included", n, "s", cold,
                        "floor: read + FTS5 insert", floor))  # fmt: skip
        # The least any cold index that parses in Python can take here: parsing every file
        # (at the one-process rate above) and the FTS5 insert, spread perfectly over the
        # cores, with every other row written for free. Against the floor, it says how
        # close to the floor a cold index can come on this machine.
        texts = fts_rows(root)
        fts = min(fts_insert_seconds(texts, tmpdir / f"fts{k}.sqlite") for k in range(2))
        bound = (n / ours_rate + fts) / (os.cpu_count() or 1)
        rows.append(row(f"bound: (parse + FTS5 insert) / {os.cpu_count()} cores, rows free", n,
                        "s", bound, "floor: read + FTS5 insert", floor))  # fmt: skip
        rows.append(row("re-run, nothing changed", n, "s", statistics.median(noop),
                        "cold index", cold))  # fmt: skip
        rows.append(row("re-run, one entry edited", n, "s", statistics.median(edits),
                        "cold index", cold))  # fmt: skip
        peer = obsidiantools_run(root)
        if peer is not None:
            rows.append(row("link graph of the vault", n, "s", cold, "obsidiantools connect()",
                            peer[0]))  # fmt: skip
            rows.append(row("links found", n, "links", links, "obsidiantools wikilinks",
                            peer[1], lower_is_better=False))  # fmt: skip
    return rows


_COLD_CHILD = """
import json, resource, sys, time
from pathlib import Path
from anthology.vault.index import VaultIndex

def cpu():
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
               resource.getrusage(resource.RUSAGE_CHILDREN)))

c0, t0 = cpu(), time.perf_counter()
VaultIndex.open(Path(sys.argv[1]), Path(sys.argv[2])).close()
print(json.dumps([time.perf_counter() - t0, cpu() - c0]))
"""


def cold_index_seconds(root: Path, runs: int = 3) -> list[tuple[float, float]]:
    """``runs`` cold builds of the index of ``root``, each into a new file by a process of
    its own: (wall seconds, CPU seconds of the build and its workers, imports left out).
    The CPU time is what to compare on a shared machine, whose load stretches the wall."""
    import json
    import subprocess
    import sys

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(runs):
            cmd = [sys.executable, "-c", _COLD_CHILD, str(root), str(Path(tmp) / f"c{k}.sqlite")]
            done = subprocess.run(cmd, check=True, capture_output=True, text=True)
            wall, cpu = json.loads(done.stdout.strip().splitlines()[-1])
            out.append((wall, cpu))
    return out


def workers_vs_one(vaults: list[Path], repeats: int = 2) -> list[dict]:
    """Cold builds of each vault with worker processes and in one process, alternating, in
    fresh processes (``python -m anthology index``; ``ANTHOLOGY_INDEX_WORKERS`` forces the
    choice): the figures behind :func:`anthology.vault.pool.worker_count`'s rule."""
    import json
    import subprocess
    import sys

    from anthology.vault.pool import MAX_WORKERS, WORKERS_ENV, usable_cores

    forced = str(min(usable_cores(), MAX_WORKERS))  # what the build did before the rule
    rows = []
    for root in vaults:
        for k in range(repeats):
            for mode, value in (("workers", forced), ("one process", "0")):
                with tempfile.TemporaryDirectory() as tmp:
                    env = dict(os.environ, **{WORKERS_ENV: value})
                    t0 = time.perf_counter()
                    subprocess.run(
                        [sys.executable, "-m", "anthology", "index", str(root), "--db",
                         str(Path(tmp) / "i.sqlite")],
                        env=env, check=True, capture_output=True,
                    )  # fmt: skip
                    seconds = time.perf_counter() - t0
                load = round(os.getloadavg()[0], 1)
                rows.append({"vault": root.name, "run": k + 1, "mode": mode,
                             "workers": int(value), "s": round(seconds, 2),
                             "cores": usable_cores(), "load": load})  # fmt: skip
                print(json.dumps(rows[-1]), flush=True)
    return rows


if __name__ == "__main__":
    import argparse
    import json
    import sys

    if sys.argv[1:2] == ["workers"]:
        # python benchmarks/bench_index.py workers VAULT [VAULT ...]
        workers_vs_one([Path(v) for v in sys.argv[2:]])
        raise SystemExit(0)
    import anthology

    ap = argparse.ArgumentParser(description="cold index builds of the given vaults")
    ap.add_argument("--cold", type=Path, nargs="+", required=True, metavar="VAULT")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    for vault in a.cold:
        runs = cold_index_seconds(vault, a.runs)
        print(json.dumps({"vault": str(vault), "anthology": str(Path(anthology.__file__).parent),
                          "wall_s": [round(w, 3) for w, _c in runs],
                          "cpu_s": [round(c, 3) for _w, c in runs],
                          "median_wall_s": round(statistics.median(w for w, _c in runs), 3),
                          "median_cpu_s": round(statistics.median(c for _w, c in runs), 3),
                          }))  # fmt: skip
