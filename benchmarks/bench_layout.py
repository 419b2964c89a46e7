"""Layout engine benchmark: anthology.layout.ForceLayout vs d3-force (node) and networkx.

``run(quick=False) -> list[dict]`` returns rows ``{"name", "size", "unit", "ours", "peer",
"peer_value", "ratio"}``.  ``ratio`` is always "above 1 = ours is better":

* times (ms/tick, seconds): ``peer_value / ours``;
* lower-is-better quality figures (normalised stress, edge-length ratio, crossings):
  ``peer_value / ours``;
* throughput (ticks/s): ``ours / peer_value``.

Both engines get the same graph (seeded power law, see ``synthetic_graph.py``), the same
start positions (d3's phyllotaxis), the same forces and parameters (link, many-body,
center, forceX/forceY gravity; ``ForceParams()`` defaults) and the same number of ticks.
d3 runs in ``benchmarks/d3`` (``npm ci`` is run there when ``node_modules`` is missing,
except in quick mode); its ticks are timed inside node, without start-up and JSON parsing.

Run directly: ``python benchmarks/bench_layout.py [--quick]``.

A fresh layout of a big graph (``multilevel``): the multilevel start
(:mod:`anthology.layout.multilevel`) against the same engine on d3's schedule (300 ticks of
the full graph) and on a coarser one (100 ticks), same graph, same forces, in one run;
seconds and node-ticks to settled (``alpha < alpha_min``) and to rest (rms step per tick
below ``SETTLED_MOVEMENT`` link lengths), and the quality figures::

    python benchmarks/bench_layout.py multilevel [--n 10000 100000] [--vault V --db DB]

``window``: the same in the real window (offscreen) on a vault whose index is built, with
no saved layout: switch to the global graph, seconds until ``layoutSettled``, and the GUI
thread's longest turn and p95 meanwhile; each ``--src`` (a source tree, e.g. main's and
this one) in a fresh process, one after the other::

    python benchmarks/bench_layout.py window VAULT --db DB --src /work/main/src --src src
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
for _p in (_HERE.parent / "src", _HERE):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from anthology.layout.force_layout import ForceLayout, ForceParams  # noqa: E402
from anthology.layout.quality import layout_quality  # noqa: E402
from child import args_after, last_json  # noqa: E402
from synthetic_graph import power_law_graph  # noqa: E402

D3_DIR = _HERE / "d3"
D3_PEER = "d3-force 3.0.0 (node)"


def _d3_ready(install: bool) -> tuple[bool, str]:
    node = shutil.which("node")
    if node is None:
        return False, "node not found"
    if (D3_DIR / "node_modules" / "d3-force").is_dir():
        return True, ""
    if not install:
        return False, "node_modules missing (quick mode skips npm ci)"
    npm = shutil.which("npm")
    if npm is None:
        return False, "npm not found"
    try:
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=D3_DIR,
            check=True,
            capture_output=True,
            timeout=300,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        return False, f"npm ci failed: {type(exc).__name__}"
    ok = (D3_DIR / "node_modules" / "d3-force").is_dir()
    return ok, "" if ok else "npm ci did not install d3-force"


def run_d3(
    n: int,
    edges: np.ndarray,
    params: ForceParams,
    ticks: int,
    positions: np.ndarray | None = None,
    timeout: float = 900.0,
) -> dict:
    """Run ``layout.mjs``; returns ``{"ms_per_tick", "positions" (n, 2), "alpha"}``."""
    p = asdict(params)
    p.pop("repulsion", None)
    if not math.isfinite(p["distance_max"]):
        p["distance_max"] = None
    payload = {
        "n": int(n),
        "edges": np.asarray(edges).tolist(),
        "ticks": int(ticks),
        "positions": None if positions is None else np.asarray(positions).tolist(),
        "params": p,
    }
    res = subprocess.run(
        ["node", str(D3_DIR / "layout.mjs")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    out = json.loads(res.stdout)
    out["positions"] = np.asarray(out["positions"], dtype=np.float64)
    return out


def run_ours(
    n: int, edges: np.ndarray, params: ForceParams, ticks: int, positions=None
) -> tuple[float, np.ndarray, ForceLayout]:
    """Seconds for ``ticks`` ticks (after construction), final positions, the layout."""
    lay = ForceLayout(n, edges, params, seed=0, positions=positions)
    t0 = time.perf_counter()
    lay.tick(ticks)
    return time.perf_counter() - t0, lay.positions.copy(), lay


def _row(name, size, unit, ours, peer, peer_value, ratio):
    def r(v):
        return None if v is None else float(f"{v:.4g}")

    return {
        "name": name,
        "size": size,
        "unit": unit,
        "ours": r(ours),
        "peer": peer,
        "peer_value": r(peer_value),
        "ratio": r(ratio),
    }


def _networkx_peer(n: int, edges: np.ndarray) -> tuple[str, float, np.ndarray]:
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges.tolist())
    try:
        import scipy  # noqa: F401

        t0 = time.perf_counter()
        pos = nx.spring_layout(g, seed=0)
        dt = time.perf_counter() - t0
        label = f"networkx {nx.__version__} spring_layout (50 iterations)"
    except ImportError:
        # spring_layout needs scipy from 500 nodes; without it use the dense
        # Fruchterman–Reingold solver spring_layout itself uses below 500 nodes
        from networkx.drawing.layout import _fruchterman_reingold

        t0 = time.perf_counter()
        a = nx.to_numpy_array(g)
        arr = _fruchterman_reingold(a, None, None, None, 50, 1e-4, 2, np.random.RandomState(0))
        dt = time.perf_counter() - t0
        pos = dict(enumerate(arr))
        label = f"networkx {nx.__version__} dense Fruchterman-Reingold (50 it., no scipy)"
    arr = np.array([pos[i] for i in range(n)], dtype=np.float64)
    return label, dt, arr


def run(quick: bool = False) -> list[dict]:
    rows: list[dict] = []
    params = ForceParams()
    d3_ok, d3_why = _d3_ready(install=not quick)
    skip_peer = f"d3-force: skipped ({d3_why})"

    # --- 10k nodes / 50k edges: ms/tick, settle time, quality (same ticks for both)
    n, m = 10_000, 50_000
    ticks = 60 if quick else 300
    edges = power_law_graph(n, m, seed=0)
    size = f"{n} nodes / {m} edges, {ticks} ticks"
    start = ForceLayout(n, edges, params, seed=0).positions.copy()
    secs, ours_pos, _ = run_ours(n, edges, params, ticks, positions=start)
    ours_ms = secs * 1e3 / ticks
    d3 = None
    if d3_ok:
        try:
            d3 = run_d3(n, edges, params, ticks, positions=start)
        except (subprocess.SubprocessError, OSError, ValueError) as exc:
            skip_peer = f"d3-force: failed ({type(exc).__name__})"
    rows.append(
        _row(
            "force layout ms/tick",
            size,
            "ms/tick (ratio = d3/ours)",
            ours_ms,
            D3_PEER if d3 else skip_peer,
            d3["ms_per_tick"] if d3 else None,
            d3["ms_per_tick"] / ours_ms if d3 else None,
        )
    )
    if not quick:
        rows.append(
            _row(
                "full layout settle time (alpha < alpha_min, d3 default cooling = 300 ticks)",
                f"{n} nodes / {m} edges",
                "s (ratio = d3/ours)",
                secs,
                D3_PEER if d3 else skip_peer,
                d3["ms_per_tick"] * ticks / 1e3 if d3 else None,
                (d3["ms_per_tick"] * ticks / 1e3) / secs if d3 else None,
            )
        )
    q_ours = layout_quality(ours_pos, edges)
    q_d3 = layout_quality(d3["positions"], edges) if d3 else None
    for key, label in (
        ("stress", "layout quality: normalised stress vs BFS distance"),
        ("edge_length_ratio", "layout quality: mean edge length / mean NN distance"),
        ("crossings", "layout quality: edge crossing fraction (1000 sampled edges)"),
    ):
        pv = q_d3[key] if q_d3 else None
        rows.append(
            _row(
                label,
                size,
                "lower is better (ratio = d3/ours)",
                q_ours[key],
                D3_PEER if d3 else skip_peer,
                pv,
                pv / q_ours[key] if pv is not None and q_ours[key] else None,
            )
        )

    # --- networkx at 2,000 nodes (O(n²) per iteration there)
    n2, m2 = 2_000, 10_000
    e2 = power_law_graph(n2, m2, seed=1)
    secs2, pos2, _ = run_ours(n2, e2, params, 300)
    try:
        label, nx_secs, nx_pos = _networkx_peer(n2, e2)
        q2o = layout_quality(pos2, e2)["stress"]
        q2n = layout_quality(nx_pos, e2)["stress"]
        rows.append(
            _row(
                "full layout time (ours: 300 ticks)",
                f"{n2} nodes / {m2} edges",
                "s (ratio = networkx/ours)",
                secs2,
                label,
                nx_secs,
                nx_secs / secs2,
            )
        )
        rows.append(
            _row(
                "layout quality: normalised stress vs BFS distance",
                f"{n2} nodes / {m2} edges",
                "lower is better (ratio = networkx/ours)",
                q2o,
                label,
                q2n,
                q2n / q2o,
            )
        )
    except Exception as exc:  # the peer is optional: report, never crash
        rows.append(
            _row(
                "full layout time (ours: 300 ticks)",
                f"{n2} nodes / {m2} edges",
                "s",
                secs2,
                f"networkx: failed ({type(exc).__name__}: {exc})",
                None,
                None,
            )
        )

    # --- approximate (P3M) vs exact O(n²) repulsion at 2,000 nodes: force error, quality
    from anthology.layout import _repulsion

    rng = np.random.default_rng(0)
    ex = _repulsion.exact_field(pos2, math.inf, rng)
    ap = _repulsion.mesh_field(pos2, math.inf, rng, _repulsion.MeshCache())
    err = np.linalg.norm(ap - ex, axis=1) / np.linalg.norm(ex, axis=1)
    for label, v in (("median", np.median(err)), ("95th percentile", np.quantile(err, 0.95))):
        rows.append(
            _row(
                f"repulsion force relative error vs exact O(n²), {label}",
                f"{n2} nodes / {m2} edges, settled layout",
                "fraction (no peer)",
                float(v),
                "exact O(n²) sum (reference)",
                0.0,
                None,
            )
        )
    if not quick:
        exact_params = ForceParams(repulsion="exact")
        secs_ex, pos_ex, _ = run_ours(n2, e2, exact_params, 300)
        q_ap = layout_quality(pos2, e2)
        q_ex = layout_quality(pos_ex, e2)
        for key in ("stress", "edge_length_ratio", "crossings"):
            rows.append(
                _row(
                    f"layout quality approx vs exact repulsion: {key}",
                    f"{n2} nodes / {m2} edges, 300 ticks",
                    "lower is better (ratio = exact/approx)",
                    q_ap[key],
                    "ours with repulsion='exact' (O(n²))",
                    q_ex[key],
                    q_ex[key] / q_ap[key] if q_ap[key] else None,
                )
            )
        rows.append(
            _row(
                "full layout time approx vs exact repulsion (300 ticks)",
                f"{n2} nodes / {m2} edges",
                "s (ratio = exact/approx)",
                secs2,
                "ours with repulsion='exact' (O(n²))",
                secs_ex,
                secs_ex / secs2,
            )
        )

    # --- scaling: ticks per second (m = 5 n), from d3's start positions
    sizes = [1_000, 10_000] if quick else [1_000, 10_000, 50_000, 100_000]
    for ns in sizes:
        ms = 5 * ns
        if ns == n and not quick:
            tps, tps_d3 = 1e3 / ours_ms, (1e3 / d3["ms_per_tick"] if d3 else None)
            note = f"{ticks} ticks"
        else:
            nt = 50 if ns <= 1_000 else (20 if ns <= 10_000 else 10)
            es = power_law_graph(ns, ms, seed=2)
            st = ForceLayout(ns, es, params, seed=0).positions.copy()
            s_ours, _, _ = run_ours(ns, es, params, nt, positions=st)
            tps = nt / s_ours
            tps_d3 = None
            if d3_ok:
                try:
                    tps_d3 = 1e3 / run_d3(ns, es, params, nt, positions=st)["ms_per_tick"]
                except (subprocess.SubprocessError, OSError, ValueError):
                    tps_d3 = None
            note = f"first {nt} ticks"
        rows.append(
            _row(
                "ticks per second",
                f"{ns} nodes / {ms} edges, {note}",
                "ticks/s, higher is better (ratio = ours/d3)",
                tps,
                D3_PEER if tps_d3 else skip_peer,
                tps_d3,
                tps / tps_d3 if tps_d3 else None,
            )
        )
    return rows


def _print(rows: list[dict]) -> None:
    for r in rows:
        print(
            f"{r['name']:<62} | {r['size']:<36} | ours {r['ours']!s:>9} | "
            f"{r['peer']}: {r['peer_value']!s:>9} | ratio {r['ratio']!s:>7} | {r['unit']}"
        )


def _to_rest(lay, fine=lambda: True) -> tuple[float, int, float, int]:
    """Tick ``lay`` until settled: (s to rest, node-ticks to rest, s to settled, node-ticks)."""
    from anthology.layout.multilevel import SETTLED_MOVEMENT, movement

    t0 = time.perf_counter()
    rest: tuple[float, int] | None = None
    work = 0
    while not lay.settled():
        lay.tick(1)
        inner = getattr(lay, "_layout", lay)
        work += inner.n
        if rest is None and fine() and movement(inner) < SETTLED_MOVEMENT:
            rest = (time.perf_counter() - t0, work)
    total = time.perf_counter() - t0
    rest = rest or (total, work)
    return rest[0], rest[1], total, work


def run_multilevel(graphs: dict[str, tuple[int, np.ndarray]]) -> list[dict]:
    """Fresh layouts: multilevel vs d3's schedule vs a 100-tick schedule, per graph."""
    from anthology.layout.multilevel import MultilevelLayout

    rows: list[dict] = []
    params = ForceParams()
    coarse = ForceParams(alpha_decay=1 - 0.001 ** (1 / 100))
    for name, (n, edges) in graphs.items():
        t0 = time.perf_counter()
        ml = MultilevelLayout(n, edges, params, seed=0)
        build = time.perf_counter() - t0
        m_rest, m_rest_w, m_total, m_w = _to_rest(ml, lambda ml=ml: ml.fine)
        m_total += build
        m_rest += build
        q_m = layout_quality(ml.positions, edges)
        levels = "/".join(str(lv.n) for lv in ml.levels)
        for label, p in (("d3's schedule, 300 ticks", params), ("100-tick schedule", coarse)):
            lay = ForceLayout(n, edges, p, seed=0)
            s_rest, s_rest_w, s_total, s_w = _to_rest(lay)
            q_s = layout_quality(lay.positions, edges)
            peer = f"full graph, {label}"
            size = f"{name}: {n} nodes / {len(lay.edges)} links (levels {levels})"
            for what, ours, theirs, unit in (
                ("fresh layout: s to settled (alpha < alpha_min)", m_total, s_total, "s"),
                ("fresh layout: s to rest (rms step < 0.02 links)", m_rest, s_rest, "s"),
                ("fresh layout: node-ticks to settled", m_w, s_w, "node-ticks"),
                ("fresh layout: node-ticks to rest", m_rest_w, s_rest_w, "node-ticks"),
            ):
                rows.append(
                    _row(
                        what,
                        size,
                        f"{unit} (ratio = peer/ours)",
                        ours,
                        peer,
                        theirs,
                        theirs / ours if ours else None,
                    )
                )
            for key in ("stress", "edge_length_ratio", "crossings"):
                rows.append(
                    _row(
                        f"fresh layout quality: {key}",
                        size,
                        "lower is better (ratio = peer/ours)",
                        q_m[key],
                        peer,
                        q_s[key],
                        q_s[key] / q_m[key] if q_m[key] else None,
                    )
                )
    return rows


WINDOW_CHILD = r"""
import json, os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
from anthology.ui.window.main_window import MainWindow
app = QApplication([])
settings = QSettings(sys.argv[3], QSettings.Format.IniFormat)
win = MainWindow(Path(sys.argv[1]), db=Path(sys.argv[2]), settings=settings)
win.resize(1400, 900)
win.show()
t0 = time.monotonic()
while not (win.settled and win.graph is not None):
    app.processEvents()
    time.sleep(0.002)
start = time.monotonic() - t0
done = []
win.graph.layoutSettled.connect(lambda: done.append(time.monotonic()))
turns, last = [], [time.monotonic()]
def beat():
    now = time.monotonic()
    turns.append(now - last[0])
    last[0] = now
timer = QTimer()
timer.setInterval(5)
timer.timeout.connect(beat)
timer.start()
t1 = time.monotonic()
win.graph.set_local(False)
limit = float(sys.argv[4])
while not done and time.monotonic() - t1 < limit:
    app.processEvents()
    time.sleep(0.001)
timer.stop()
turns.sort()
out = {"start_s": start, "settled_s": (done[0] - t1) if done else None,
       "ticks": win.graph.worker().ticks if win.graph.worker() else 0,
       "turn_p95_ms": 1e3 * turns[int(0.95 * (len(turns) - 1))] if turns else None,
       "turn_max_ms": 1e3 * turns[-1] if turns else None}
print(json.dumps(out))
os._exit(0)
"""


def run_window(vault: str, db: str, sources: list[str], limit: float = 120.0) -> list[dict]:
    """The fresh global layout in the real window, per source tree (fresh process each,
    fresh user state and Qt settings: no saved layout)."""
    import os
    import tempfile

    rows: list[dict] = []
    for src in sources:
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(
                os.environ,
                PYTHONPATH=str(Path(src).resolve()),
                ANTHOLOGY_STATE_DIR=str(Path(tmp) / "state"),
            )
            res = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    WINDOW_CHILD,
                    vault,
                    db,
                    str(Path(tmp) / "s.ini"),
                    str(limit),
                ],
                env=env,
                capture_output=True,
                text=True,
                timeout=limit + 600,
                check=False,
            )
            out = last_json(res.stdout)
            if out is None:
                print(res.stderr[-2000:], file=sys.stderr)
                continue
            rows.append({"src": src, **out})
            print(json.dumps(rows[-1]), flush=True)
    return rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["multilevel"]:
        graphs: dict[str, tuple[int, np.ndarray]] = {}
        vault, db = args_after("--vault"), args_after("--db")
        if vault and db:
            from anthology.vault.index import VaultIndex

            with VaultIndex.open(Path(vault[0]), Path(db[0])) as index:
                g = index.graph()
            graphs[Path(vault[0]).name] = (g.n, g.edges)
        for size in args_after("--n") or ([] if vault else ["10000"]):
            ns = int(size)
            graphs["power law, seed 3"] = (ns, power_law_graph(ns, 5 * ns, seed=3))
        _print(run_multilevel(graphs))
    elif sys.argv[1:2] == ["window"]:
        run_window(sys.argv[2], args_after("--db")[0], args_after("--src") or ["src"])
    else:
        _print(run(quick="--quick" in sys.argv))
