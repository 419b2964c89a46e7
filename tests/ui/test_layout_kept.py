"""A fresh global layout of a big graph starts multilevel, and what it settles on is kept:
the next start of the window lays out nothing and shows the same positions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings

import anthology.layout.multilevel as multilevel
from anthology.layout.force_layout import ForceLayout
from anthology.layout.multilevel import MultilevelLayout
from anthology.ui.graph.layout_worker import LayoutSpec, Simulation
from anthology.ui.window.main_window import MainWindow

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def _spec(n: int, **kw) -> LayoutSpec:
    rng = np.random.default_rng(1)
    edges = np.column_stack([np.arange(1, n), rng.integers(0, np.arange(1, n))])
    return LayoutSpec(n=n, edges=edges, positions=np.full((n, 2), np.nan), **kw)


def test_only_a_big_graph_laid_out_from_nothing_starts_multilevel() -> None:
    big = multilevel.MULTILEVEL_MIN_N
    cases = {
        "fresh and big": (_spec(big, alpha=1.0), MultilevelLayout),
        "fresh and small": (_spec(big // 4, alpha=1.0), ForceLayout),
        "a live reload (some positions known)": (_spec(big, alpha=0.3), ForceLayout),
        "pinned nodes": (_spec(big, alpha=1.0, pins=((3, 1.0, 2.0),)), ForceLayout),
    }
    for name, (spec, kind) in cases.items():
        sim = Simulation()
        sim.load(0, spec)
        assert type(sim.layout) is kind, name


def _vault(root: Path, n: int = 60) -> Path:
    """Notes in two folders, each linking to a few earlier ones (a name with a space)."""
    for i in range(n):
        folder = root / ("Topic A" if i % 2 else "topic-b")
        folder.mkdir(parents=True, exist_ok=True)
        links = " ".join(f"[[Note {j}]]" for j in {i // 2, i // 3, max(i - 1, 0)} if j != i)
        (folder / f"Note {i}.md").write_text(f"# Note {i}\n\nSee {links}.\n", encoding="utf-8")
    return root


def _open(qtbot, vault: Path, db: Path, settings: QSettings) -> MainWindow:
    win = MainWindow(vault, db=db, settings=settings)
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    qtbot.waitUntil(lambda: win.settled and win.graph is not None, timeout=20000)
    return win


def test_the_settled_layout_comes_back_on_the_next_start_without_a_tick(
    qtbot, tmp_path: Path, settings: QSettings, monkeypatch
) -> None:
    # a small vault stands in for 100,000 entries: the same path through the window
    monkeypatch.setattr(multilevel, "MULTILEVEL_MIN_N", 20)
    monkeypatch.setattr(multilevel, "COARSEST_N", 10)
    vault = _vault(tmp_path / "vault")
    db = tmp_path / "index.sqlite"
    win = _open(qtbot, vault, db, settings)
    assert win.graph is not None
    with qtbot.waitSignal(win.graph.layoutSettled, timeout=30000):
        win.graph.set_local(False)
    worker = win.graph.worker()
    assert worker is not None and worker.ticks > 0
    laid = worker._sim.layout  # the engine the thread ran (read once it is idle)
    assert isinstance(laid, MultilevelLayout) and len(laid.levels) >= 2 and laid.settled()
    settled = win.graph.positions()
    assert len(settled) == 60
    win.close()

    again = _open(qtbot, vault, db, settings)
    assert again.graph is not None and not again.graph.is_local()
    qtbot.wait(300)
    worker = again.graph.worker()
    assert worker is None or worker.ticks == 0  # nothing laid out
    now = again.graph.positions()
    assert now.keys() == settled.keys()
    assert max(abs(now[k][i] - xy[i]) for k, xy in settled.items() for i in (0, 1)) < 1e-6
    again.close()
