"""Worker processes only where they pay: a cold build of a small vault, or on cores busy with
other programs, runs in one process; a machine with a core to spare parses in workers."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from anthology.vault import indexer, pool
from anthology.vault.index import VaultIndex
from anthology.vault.pool import MAX_WORKERS, WORKERS_ENV, worker_count


@pytest.fixture(autouse=True)
def _no_override(monkeypatch) -> None:
    monkeypatch.delenv(WORKERS_ENV, raising=False)


def test_the_rule() -> None:
    t = indexer.PARALLEL_THRESHOLD
    # a small vault: one process, however many cores
    assert worker_count(t - 1, t, cores=16, load=0.0) == 0
    # two quiet cores (measured: one worker 2.3 s against 3.1 s alone at 10,000 files)
    assert worker_count(100_000, t, cores=2, load=0.0) == 1
    assert worker_count(100_000, t, cores=2, load=0.6) == 1
    # two cores busy with other programs (the workers lost in 5 of 6 runs): one process
    assert worker_count(100_000, t, cores=2, load=1.2) == 0
    assert worker_count(100_000, t, cores=2, load=9.0) == 0
    assert worker_count(100_000, t, cores=1, load=0.0) == 0  # nothing to share
    # cores to spare: one worker per free core but the writer's, at most MAX_WORKERS
    assert worker_count(100_000, t, cores=4, load=0.0) == 3
    assert worker_count(100_000, t, cores=64, load=0.0) == MAX_WORKERS
    # the same cores mostly busy with other programs: fewer workers, then none
    assert worker_count(100_000, t, cores=8, load=6.5) == 1
    assert worker_count(100_000, t, cores=8, load=4.0) == 3
    assert worker_count(100_000, t, cores=8, load=7.5) == 0


def test_the_override_applies_to_big_builds_only(monkeypatch) -> None:
    t = indexer.PARALLEL_THRESHOLD
    monkeypatch.setenv(WORKERS_ENV, "2")
    assert worker_count(t, t, cores=2, load=9.0) == 2
    assert worker_count(t - 1, t, cores=2, load=9.0) == 0
    monkeypatch.setenv(WORKERS_ENV, "0")
    assert worker_count(10 * t, t, cores=64, load=0.0) == 0


class _Spy:
    """Stands for the process pool: records that one was asked for and fails to start, so
    the build goes on in this process (as for a pool that cannot start)."""

    made: ClassVar[list[int]] = []

    def __init__(self, *args, max_workers: int = 0, **kwargs) -> None:
        _Spy.made.append(max_workers)
        raise OSError("no processes here")


def _vault(root: Path, n: int) -> Path:
    root.mkdir()
    for i in range(n):
        (root / f"Note {i}.md").write_text(f"# Note {i}\n\n[[Note {(i + 1) % n}]]\n", "utf-8")
    return root


@pytest.mark.parametrize(
    ("cores", "load", "files", "pool_asked"),
    [(2, 0.0, 40, 1), (2, 1.5, 40, None), (8, 0.0, 40, 4), (8, 0.0, 10, None), (8, 7.5, 40, None)],
    ids=["two idle cores", "two busy cores", "eight idle cores", "small vault", "eight busy cores"],
)
def test_a_cold_build_asks_for_workers_only_where_they_pay(
    tmp_path: Path, monkeypatch, cores: int, load: float, files: int, pool_asked: int | None
) -> None:
    monkeypatch.setattr(indexer, "PARALLEL_THRESHOLD", 20)
    monkeypatch.setattr(indexer, "CHUNK", 5)  # jobs enough for a pool
    monkeypatch.setattr(pool, "usable_cores", lambda: cores)
    monkeypatch.setattr(pool.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(pool, "ProcessPoolExecutor", _Spy)
    _Spy.made = []
    with VaultIndex.open(_vault(tmp_path / "v", files), tmp_path / "i.sqlite") as index:
        assert index.stats()["entries"] == files  # built either way
    assert _Spy.made == ([] if pool_asked is None else [pool_asked])
