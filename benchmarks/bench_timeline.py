"""The timeline tab's figures at 10,000 entries, in the real widget offscreen (issue 37).

Rows (median and 95th percentile; ``ratio = peer / ours``, above 1: we are faster):

* open: a new ``TimelineTab`` fed the vault's graph (dates read, laid out, arcs built) and
  its first paint — what View › Open Timeline costs;
* redraw by another property: ``set_key`` (``year`` → ``date``) and the paint;
* filter: a query typed (``tag:topic-4``) and the paint;
* pan frame: ``viewport().repaint()`` after a ``ViewBox.translateBy`` of six pixels, a
  quarter of the span in view, once the zoom's sharp image is drawn; each frame is
  followed by one turn of the event loop (where a re-render past the image's margin goes on
  in slices of ≤ 12 ms, ViewportCache.SLICE_S);
* 10,000 entries on one day: open and first paint.

The vault is ``synthetic_vault.py OUT --n 10000 --seed 3 --dates`` (each entry a ``year``
and a ``date``, 2017–2026), indexed once under ``XDG_CACHE_HOME`` (default
/tmp/timeline-cache); the graph is read from the index as the window does.

The peer is stock pyqtgraph on the same layout and viewport: a ``ScatterPlotItem`` of the
entries and one ``PlotCurveItem`` of every arc (connect array), re-stroked each frame —
what drawing the timeline without the graph view's layers costs.

Run: ``QT_QPA_PLATFORM=offscreen PYTHONPATH=src python benchmarks/bench_timeline.py``
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_CACHE_HOME", "/tmp/timeline-cache")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np

from rows import row

VAULT = Path(os.environ.get("TIMELINE_VAULT", "/tmp/timeline10k"))
VIEW_W, VIEW_H = 1280, 800


def _stats(samples: list[float]) -> tuple[float, float]:
    ms = sorted(s * 1000.0 for s in samples)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return statistics.median(ms), p95


def _vault(n: int):
    """The synthetic vault with dates (written when missing) and its graph."""
    from anthology.vault.index import VaultIndex
    from synthetic_vault import generate

    if not (VAULT / "area-0").is_dir():
        generate(VAULT, n, seed=3, dates=True)
    index = VaultIndex.open(VAULT)
    return index, index.graph()


def _one_day(n: int):
    from anthology.vault.graph_data import GraphData

    ids = [f"note {i:05d}" for i in range(n)]
    return GraphData(ids, ids, ["note"] * n, [[] for _ in range(n)], np.zeros((0, 2)), [],
                     paths=[f"{i}.md" for i in ids],
                     properties=[{"date": "2024-05-01"} for _ in range(n)])  # fmt: skip


def _open(app, data, file_dates, reps: int) -> tuple[list[float], object]:
    from anthology.ui.graph.timeline_tab import TimelineTab

    times, tab = [], None
    for _ in range(reps):
        if tab is not None:
            tab.shutdown()
            tab.deleteLater()
            app.processEvents()
        t0 = time.perf_counter()
        tab = TimelineTab()
        tab.resize(VIEW_W, VIEW_H)
        tab.open_document("auto")
        tab.view.set_graph(data, file_dates=file_dates)
        tab.show()
        tab.view.view.viewport().repaint()
        times.append(time.perf_counter() - t0)
        app.processEvents()
    return times, tab


def _timed_repaints(app, viewport, step, frames: int) -> list[float]:
    out = []
    for _ in range(frames):
        step()
        t0 = time.perf_counter()
        viewport.repaint()
        out.append(time.perf_counter() - t0)
        app.processEvents()
    return out


def _settle(app, vp, caches) -> None:
    """Let the zoom's sharp re-render (120 ms after the last step, sliced) finish, as it
    does before a reader's next gesture."""
    end = time.perf_counter() + 3.0
    vp.repaint()
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)
        if not any(c.busy or c.timer.isActive() for c in caches):
            break
    vp.repaint()


def _pan(app, view, frames: int) -> list[float]:
    vb = view.vb
    vb.scaleBy(x=0.25, y=0.5)  # a few years in view: what a reader pans along
    vp = view.view.viewport()
    _settle(app, vp, [view.arcs.cache, view.nodes.cache])  # the sharp images for this zoom
    dx = vb.viewRect().width() / VIEW_W * 6.0  # six pixels a frame
    sign = [1.0]

    def step() -> None:
        vb.translateBy(x=dx * sign[0])

    return _timed_repaints(app, vp, step, frames)


def _peer(app, t, frames: int) -> tuple[list[float], list[float]]:
    """Stock pyqtgraph on the same layout: a scatter and one curve of every arc."""
    import pyqtgraph as pg

    xs, ys = t.arc_curves()
    connect = np.ones(xs.shape, dtype=np.int32)
    if connect.size:
        connect[:, -1] = 0
    draws = []
    for _ in range(3):
        t0 = time.perf_counter()
        w = pg.PlotWidget()
        w.resize(VIEW_W, VIEW_H)
        w.addItem(pg.PlotCurveItem(xs.ravel(), ys.ravel(), connect=connect.ravel(),
                                   pen=pg.mkPen((120, 120, 200, 150))))  # fmt: skip
        w.addItem(pg.ScatterPlotItem(t.x, t.row.astype(float), size=9, pen=None,
                                     brush=pg.mkBrush(120, 160, 250)))  # fmt: skip
        w.show()
        w.viewport().repaint()
        draws.append(time.perf_counter() - t0)
        app.processEvents()
        if len(draws) < 3:
            w.close()
            w.deleteLater()
    vb = w.getViewBox()
    vb.scaleBy(x=0.25, y=0.5)
    _settle(app, w.viewport(), [])
    dx = vb.viewRect().width() / VIEW_W * 6.0
    pans = _timed_repaints(app, w.viewport(), lambda: vb.translateBy(x=dx), frames)
    w.close()
    return draws, pans


def run(quick: bool = False) -> list[dict]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    n = 2000 if quick else 10_000
    reps, frames = (3, 30) if quick else (9, 120)
    index, data = _vault(n)
    try:
        size = f"{data.n:,} entries"
        opens, tab = _open(app, data, index.file_dates, reps)
        view = tab.view  # type: ignore[attr-defined]
        t = view.timeline
        rekey = []
        for k in range(reps):
            t0 = time.perf_counter()
            view.set_key("date" if k % 2 == 0 else "year")
            view.view.viewport().repaint()
            rekey.append(time.perf_counter() - t0)
            app.processEvents()
        filt = []
        for k in range(reps):
            t0 = time.perf_counter()
            view.set_query("tag:topic-4" if k % 2 == 0 else "")
            view.view.viewport().repaint()
            filt.append(time.perf_counter() - t0)
            app.processEvents()
        view.set_query("")
        view.set_key("date")
        t = view.timeline
        pans = _pan(app, view, frames)
        peer_draw, peer_pan = _peer(app, t, frames)
        day_opens, day_tab = _open(app, _one_day(n), None, max(3, reps // 2))
        arcs = len(t.arcs)
        day_tab.shutdown()  # type: ignore[attr-defined]
        tab.shutdown()  # type: ignore[attr-defined]
    finally:
        index.close()
    om, op = _stats(opens)
    pm, pp = _stats(pans)
    qm, qp = _stats(peer_draw)
    xm, xp = _stats(peer_pan)
    rm, rp = _stats(rekey)
    fm, fp = _stats(filt)
    dm, dp = _stats(day_opens)
    peer = "stock pyqtgraph (scatter + arc curve)"
    return [
        row(f"timeline open + first paint ({arcs:,} arcs)", size, "ms", om, peer, qm),
        row("timeline open + first paint, p95", size, "ms", op, peer, qp),
        row("timeline pan frame (median repaint)", size, "ms", pm, peer, xm),
        row("timeline pan frame, p95", size, "ms", pp, peer, xp),
        row("timeline by another property (median)", size, "ms", rm, None, None),
        row("timeline by another property, p95", size, "ms", rp, None, None),
        row("timeline query typed (median)", size, "ms", fm, None, None),
        row("timeline query typed, p95", size, "ms", fp, None, None),
        row("timeline open, all on one day (median)", size, "ms", dm, None, None),
        row("timeline open, all on one day, p95", size, "ms", dp, None, None),
    ]


def main() -> int:
    for r in run(quick="--quick" in sys.argv):
        peer = f"  peer {r['peer_value']:.1f} (×{r['ratio']:.1f})" if r["peer_value"] else ""
        print(f"{r['name']:<48} {r['size']:>16}  {r['ours']:8.1f} {r['unit']}{peer}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
