"""Canvas figures (issue 32).

1. **Open**: a board of 1,000 text cards and 1,500 edges (benchmarks/../tests/canvas_vault.py
   ``big_board``) opened in the canvas tab's view (1200×800, offscreen): from
   ``open_document`` to the first painted board (read, parsed, laid out, fitted, painted);
   then, zoomed in, the time to lay out the cards in view.
2. **Frames**: one pan step and one zoom step, each repainted, at the three levels of
   detail (fitted: shapes of all 1,000 cards; titles; close up, cards laid out) — the
   median and the slowest of 60 frames.
3. **Memory**: the process's resident set before and after opening, and after the close-up
   cards are laid out; Python's own allocations for reading the board (tracemalloc).
4. **Index**: a cold build of a personal-vault-shaped vault (``--notes`` notes) without and
   with 50 canvases shaped like real ones (48 real canvases held 317 text cards, 68 file
   cards, 23 groups and 311 edges: ~7 text cards, 1–2 file cards, half a group and ~7 edges
   each), alternating, the median of ``--runs`` (wall time, and CPU time: the machine
   may be shared). 1,200 notes are parsed in this process (1,500 and more, by workers).

    python benchmarks/bench_canvas.py [--notes 1200] [--runs 7] [--json]

Run it against another tree (``PYTHONPATH=/work/main/src``) for the index's "before": there
a ``.canvas`` is an attachment only, so the figure is what indexing canvases adds.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from canvas_vault import big_board
from synthetic_vault import generate_personal


def _rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1024 / 1024


def real_shaped_canvas(k: int, notes: list[str], rng: random.Random) -> dict:
    """A canvas like the real ones: ~7 text cards with a link now and then, 1–2 file cards
    naming notes, half the time a group, ~7 edges, some labelled or coloured."""
    nodes: list[dict] = []
    if rng.random() < 0.5:
        nodes.append({"id": f"g{k}", "type": "group", "x": -40, "y": -60, "width": 1200,
                      "height": 900, "label": f"Board {k}"})  # fmt: skip
    cards = []
    for i in range(rng.randint(4, 10)):
        text = f"## Idea {i}\n\nThoughts about board {k}, step {i}, and what follows."
        if rng.random() < 0.3:
            text += f" See [[{Path(rng.choice(notes)).stem}]]."
        cards.append({"id": f"t{k}-{i}", "type": "text", "text": text, "x": (i % 4) * 300,
                      "y": (i // 4) * 250, "width": 260, "height": 180})  # fmt: skip
    for j in range(rng.choice((1, 1, 2))):
        cards.append({"id": f"f{k}-{j}", "type": "file", "file": rng.choice(notes),
                      "x": 1300, "y": j * 420, "width": 400, "height": 400})  # fmt: skip
    nodes += cards
    edges = []
    for e in range(rng.randint(4, 10)):
        a, b = rng.sample(cards, 2)
        edge = {"id": f"e{k}-{e}", "fromNode": a["id"], "toNode": b["id"]}
        if rng.random() < 0.12:
            edge["label"] = "then"
        if rng.random() < 0.1:
            edge["color"] = str(rng.randint(1, 6))
        edges.append(edge)
    return {"nodes": nodes, "edges": edges}


def bench_index(notes: int, runs: int) -> dict:
    from anthology.vault.index import VaultIndex

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        plain = generate_personal(base / "plain", notes)
        boards = generate_personal(base / "boards", notes)
        paths = sorted(p.relative_to(boards).as_posix() for p in boards.rglob("*.md"))
        rng = random.Random(3)
        (boards / "Canvases").mkdir()
        for k in range(50):
            board = real_shaped_canvas(k, paths, rng)
            (boards / "Canvases" / f"Board {k}.canvas").write_text(json.dumps(board), "utf-8")
        times: dict[str, list[float]] = {"without": [], "with": []}
        cpu: dict[str, list[float]] = {"without": [], "with": []}
        entries = {}
        for run in range(runs + 1):  # the first pair warms the caches, and is not counted
            for name, root in (("without", plain), ("with", boards)):
                db = base / f"{name}-{run}.sqlite"
                gc.collect()
                c0 = _cpu()
                t0 = time.perf_counter()
                with VaultIndex.open(root, db) as index:
                    took = time.perf_counter() - t0
                    entries[name] = index.conn.execute("SELECT count(*) FROM entries").fetchone()[0]
                if run:
                    times[name].append(took)
                    cpu[name].append(_cpu() - c0)
    without, with_ = statistics.median(times["without"]), statistics.median(times["with"])
    cpu_without, cpu_with = statistics.median(cpu["without"]), statistics.median(cpu["with"])
    return {"notes": notes, "entries_without": entries["without"],
            "entries_with": entries["with"], "seconds_without": round(without, 3),
            "seconds_with": round(with_, 3), "extra_percent": round(100 * (with_ / without - 1), 1),
            "cpu_seconds_without": round(cpu_without, 3), "cpu_seconds_with": round(cpu_with, 3),
            "cpu_extra_percent": round(100 * (cpu_with / cpu_without - 1), 1),
            "runs": runs}  # fmt: skip


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the index's worker processes,
    for a large vault): a shared machine's load does not change it as it changes the wall
    time."""
    import resource

    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def bench_view() -> dict:
    from PySide6.QtWidgets import QApplication

    from anthology.ui.common.document import OpenVault
    from anthology.ui.reading.canvas_view import CanvasView
    from anthology.vault.canvas import parse_canvas
    from anthology.vault.canvas.geometry import Board, detail
    from anthology.vault.index import VaultIndex

    app = QApplication.instance() or QApplication([])
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        root.mkdir()
        for i in range(20):
            (root / f"Note {i}.md").write_text(f"# Note {i}\n\nText of note {i}.\n", "utf-8")
        text = json.dumps(big_board(1000, 1500))
        (root / "Big.canvas").write_text(text, "utf-8")
        out["file_kib"] = round(len(text) / 1024)
        tracemalloc.start()
        board = Board(parse_canvas(text))
        out["python_mib_board"] = round(tracemalloc.get_traced_memory()[0] / 1024 / 1024, 1)
        tracemalloc.stop()
        del board
        with VaultIndex.open(root, Path(tmp) / "index.sqlite") as index:
            view = CanvasView()
            view.resize(1200, 800)
            view.attach_vault(OpenVault(root, index))
            view.show()
            app.processEvents()
            rss0 = _rss_mib()
            t0 = time.perf_counter()
            assert view.open_document("Big.canvas")
            view.repaint()
            out["open_to_first_paint_s"] = round(time.perf_counter() - t0, 3)
            out["fitted_detail"] = detail(view.scale)
            rss1 = _rss_mib()

            def frames(step) -> tuple[float, float]:
                took = []
                for k in range(60):
                    t = time.perf_counter()
                    step(k)
                    view.repaint()
                    took.append((time.perf_counter() - t) * 1000)
                return round(statistics.median(took), 2), round(max(took), 2)

            def pan(k: int) -> None:
                view.pan(7 if k % 2 else -7, 3)

            def zoom(k: int) -> None:
                view.zoom(1.01 if k % 2 else 1 / 1.01)

            def sharp() -> float:
                """One sharp picture of the view (what follows a zoom, or a pan out of it)."""
                took = []
                for _ in range(5):
                    view._version += 1
                    t = time.perf_counter()
                    view.repaint()
                    took.append((time.perf_counter() - t) * 1000)
                return round(statistics.median(took), 1)

            out["sharp_ms_shapes"] = sharp()
            out["frame_ms_shapes_pan"] = frames(pan)
            out["frame_ms_shapes_zoom"] = frames(zoom)
            view.zoom(0.35 / view.scale)
            out["titles_detail"] = detail(view.scale)
            view._sharp_timer.stop()
            out["sharp_ms_titles"] = sharp()
            out["frame_ms_titles_pan"] = frames(pan)
            node = view.canvas.node("n0")
            assert node is not None
            view.scale = 1.0
            view.centre_on(node)
            t0 = time.perf_counter()
            laid = view.render_visible()
            out["close_up_layout_s"] = round(time.perf_counter() - t0, 3)
            out["close_up_cards_laid_out"] = laid
            out["sharp_ms_full"] = sharp()
            out["frame_ms_full_pan"] = frames(pan)
            out["frame_ms_full_zoom"] = frames(zoom)
            rss2 = _rss_mib()
            out["rss_mib_before_open"] = round(rss0, 1)
            out["rss_mib_open_delta"] = round(rss1 - rss0, 1)
            out["rss_mib_after_close_up_delta"] = round(rss2 - rss0, 1)
            view.shutdown()
            view.close()
            view.deleteLater()
            app.processEvents()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=1200)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", choices=("view", "index"), default=None)
    args = ap.parse_args()
    result: dict = {}
    if args.only != "index":
        result["view"] = bench_view()
    if args.only != "view":
        result["index"] = bench_index(args.notes, args.runs)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for part, figures in result.items():
        print(part)
        for key, value in figures.items():
            print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
