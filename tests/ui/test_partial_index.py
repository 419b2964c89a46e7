"""A never-seen vault: search and the graph work on what is indexed so far, labelled as part
of the vault; the window answers input throughout a slow scan and a slow build; when the
build ends the whole index takes over. The build is held at a gate (a slow disk) so that
the test sees each stage for certain."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QTimer

from anthology.ui.window import partial_index
from anthology.ui.window.main_window import MainWindow
from anthology.vault import indexer, stage

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

N = 200


def _vault(root: Path) -> Path:
    for i in range(N):
        folder = root / ("Topic A" if i % 2 else "topic-b")
        folder.mkdir(parents=True, exist_ok=True)
        body = f"# Note {i}\n\nSee [[Note {(i + 1) % N}]] and [[Note {i // 2}]]. marmalade{i}\n"
        (folder / f"Note {i}.md").write_text(body, encoding="utf-8")
    return root


class _Gate:
    """Holds the build's ``at``-th job (a slow disk) until ``open``; never longer than 60 s."""

    def __init__(self, at: int) -> None:
        self.at, self.calls = at, 0
        self.reached = threading.Event()
        self.opened = threading.Event()

    def wrap(self, fn):
        def held(*args, **kwargs):
            self.calls += 1
            if self.calls == self.at:
                self.reached.set()
                self.opened.wait(60)
            return fn(*args, **kwargs)

        return held


def _beats(win: MainWindow) -> list[int]:
    """Turns of the GUI thread's event loop, counted by a 10 ms timer."""
    beats = [0]
    timer = QTimer(win)
    timer.setInterval(10)
    timer.timeout.connect(lambda: beats.__setitem__(0, beats[0] + 1))
    timer.start()
    return beats


def test_search_and_the_graph_work_before_the_index_is_done(
    qtbot, tmp_path: Path, settings: QSettings, monkeypatch
) -> None:
    monkeypatch.setattr(partial_index, "PARTIAL_FIRST", 30)
    monkeypatch.setattr(indexer, "CHUNK", 10)
    monkeypatch.setattr(indexer, "BATCH", 20)
    gate = _Gate(at=9)  # 80 of the 200 notes written, then the disk stalls
    monkeypatch.setattr(stage.Stager, "stage", gate.wrap(stage.Stager.stage))
    vault = _vault(tmp_path / "vault")
    win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    try:
        qtbot.waitUntil(gate.reached.is_set, timeout=20000)
        qtbot.waitUntil(lambda: win.partial.active and not win.surroundings.pending,
                        timeout=20000)  # fmt: skip
        beats = _beats(win)
        assert win.indexing and not win.settled  # part of the vault: not settled
        # the graph draws what is indexed so far, and says it is part of the vault
        assert win.graph is not None
        win.graph.set_local(False)  # the whole graph, as far as it is known
        shown = len(win.graph.shown_ids())
        assert 30 <= shown < N
        assert win.count_label.text().endswith(f"of {N} entries indexed so far")
        assert "indexed so far" in win.statusBar().currentMessage()
        # search answers from the entries written
        assert win.index is not None
        hits = win.index.search("marmalade1")  # Topic A comes first
        assert "Note 1" in [h.entry.title for h in hits]
        assert 30 <= win.index.search_total("marmalade") < N  # the notes written so far
        assert win.index.search("marmalade0") == []  # topic-b/: not written yet
        # the window answers meanwhile: its event loop turns while the build is held
        qtbot.waitUntil(lambda: beats[0] >= 5, timeout=10000)
        assert win.indexing and not gate.opened.is_set()
    finally:
        gate.opened.set()
    qtbot.waitUntil(lambda: win.settled and not win.indexing, timeout=30000)
    assert not win.partial.active
    assert win.count_label.text() == f"{N} entries"
    qtbot.waitUntil(lambda: win.graph is not None and len(win.graph.shown_ids()) == N,
                    timeout=20000)  # fmt: skip
    assert win.index is not None and len(win.index.search("marmalade199")) == 1
    win.close()


def test_a_slow_scan_keeps_the_window_answering_and_saying_what_it_does(
    qtbot, tmp_path: Path, settings: QSettings, monkeypatch
) -> None:
    gate = _Gate(at=1)
    monkeypatch.setattr(indexer, "scan_vault", gate.wrap(indexer.scan_vault))
    vault = _vault(tmp_path / "vault")
    win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.show()
    try:
        qtbot.waitUntil(gate.reached.is_set, timeout=20000)
        beats = _beats(win)
        qtbot.waitUntil(lambda: beats[0] >= 5, timeout=10000)  # it turns while the disk is slow
        assert win.indexing and win.index is None
        assert win.statusBar().currentMessage().startswith("Indexing vault")
        assert win.entry_pane.shown_entry is not None  # an entry to read meanwhile
    finally:
        gate.opened.set()
    qtbot.waitUntil(lambda: win.settled and not win.indexing, timeout=30000)
    assert win.count_label.text() == f"{N} entries"
    win.close()


def test_a_vault_of_empty_files_is_indexed_and_shown(
    qtbot, tmp_path: Path, settings: QSettings, monkeypatch
) -> None:
    # "100,000 empty files", scaled down; partial results on the way
    monkeypatch.setattr(partial_index, "PARTIAL_FIRST", 30)
    monkeypatch.setattr(indexer, "CHUNK", 10)
    monkeypatch.setattr(indexer, "BATCH", 20)
    vault = tmp_path / "empty"
    vault.mkdir()
    for i in range(300):
        (vault / f"blank {i}.md").write_bytes(b"")
    win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.settled and not win.indexing, timeout=30000)
    assert win.count_label.text() == "300 entries"
    assert win.graph is not None
    win.graph.set_local(False)
    assert len(win.graph.shown_ids()) == 300
    win.close()
