"""An index read while its first build runs (VaultIndex.being_built): every question answers
from the batches written so far; links to entries not written yet are left out of the
graph, not an error; a note linking to every other note (a hub of outgoing links) too."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from anthology.tasks import TaskState
from anthology.vault import indexer, stage
from anthology.vault.index import VaultIndex

N = 120


def _vault(root: Path) -> Path:
    root.mkdir()
    for i in range(N):
        (root / f"n{i:03d}.md").write_text(f"# N{i}\n\n[[n{(i + 1) % N:03d}]] quince{i}\n", "utf-8")
    # one note that links to every other note, written last ("z" sorts after "n")
    links = " ".join(f"[[n{i:03d}]]" for i in range(N))
    (root / "zz hub.md").write_text(f"# Hub\n\n{links}\n", "utf-8")
    return root


def test_the_graph_and_search_of_a_build_half_done(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(indexer, "CHUNK", 10)
    monkeypatch.setattr(indexer, "BATCH", 20)
    reached, release = threading.Event(), threading.Event()
    calls = [0]
    real = stage.Stager.stage

    def held(self, job):
        calls[0] += 1
        if calls[0] == 7:  # 60 notes written
            reached.set()
            release.wait(60)
        return real(self, job)

    monkeypatch.setattr(stage.Stager, "stage", held)
    vault, db = _vault(tmp_path / "v"), tmp_path / "i.sqlite"
    errors: list[BaseException] = []

    def build() -> None:
        try:
            VaultIndex.open(vault, db, task=TaskState()).close()
        except BaseException as exc:  # reported below
            errors.append(exc)

    worker = threading.Thread(target=build)
    worker.start()
    try:
        assert reached.wait(60)
        with VaultIndex.being_built(vault, db) as partial:
            written = partial.stats()["entries"]
            assert 0 < written < N
            g = partial.graph(ghosts=True)
            assert g.n == written
            # n000 -> n001 ... every link kept is between entries written
            assert len(g.edges) and int(g.edges.max()) < g.n
            assert partial.search_total("quince") == written
            with pytest.raises(sqlite3.OperationalError):  # read-only: it never writes
                partial.conn.execute("DELETE FROM entries")
    finally:
        release.set()
        worker.join(60)
    assert not errors
    with VaultIndex.open(vault, db, refresh=False) as full:
        g = full.graph()
        assert g.n == N + 1
        hub = g.ids.index(next(i for i in g.ids if "hub" in i))
        assert int(((g.edges[:, 0] == hub) | (g.edges[:, 1] == hub)).sum()) == N
