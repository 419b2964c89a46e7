"""One write path, however a vault gets into the index: at once or file by file, parsed here
or in worker processes, cancelled and resumed, edited; each gives the same index."""

from __future__ import annotations

import os
import random
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from anthology.tasks import Cancelled, TaskState
from anthology.vault import indexer, pool
from anthology.vault.index import VaultIndex
from sample_vault import REALISTIC_VAULT, write_vault

EXTRA: dict[str, str | bytes] = {
    "dup/one.md": "---\nid: SAME\ntitle: First\n---\nSee [[same]] and [[Émile]].\n",
    "dup/two.md": "---\nid: same\n---\nSecond with the id in another case. #tagged\n",
    "dup/three.md": "---\nid: dup/two\n---\nTakes the fallback id of the one before.\n",
    "uni/Émile.md": "---\nid: Émile\naliases: [Em, 'É']\n---\n[[émile]] [[Em]] ![[pic.png]]\n",
    "uni/émile.md": "NOCASE folds ASCII only: [[Émile]] [[ÉMILE]].\n",
    "bad/yaml.md": "---\ntitle: [unclosed\n---\nBody [[HOME]]\n",
    "bad/empty.md": "",
    "bad/binary.md": b"\x00\x01\x02 not text",
    "bad/latin1.md": "caf\xe9 [[HOME]]".encode("latin-1"),
    "props/typed.md": (
        "---\nyear: 2017\nratio: 0.5\nok: yes\nwhen: 2024-01-05\nnothing:\n"
        "nested:\n  a: [1, 2]\nrefines: ['[[LIT-008]]', '[[Nowhere]]']\n---\n# Heading\n"
    ),
    "pic.png": b"\x89PNG",
    # A cold build resolves links against paths first; these are what names declared in
    # the files (ids, aliases) or unreadable files change afterwards.
    "edge/points.md": "[[binary]] [[bad/binary]] [[taken]] [[thief]] [[Em]] [[yaml]] [[other]]\n",
    "edge/taken.md": "---\nid: other\n---\nMy path says taken, my id says other.\n",
    "edge/thief.md": "---\nid: taken\naliases: [yaml]\n---\nI take a path's name as my id.\n",
    "twins/a/Twin.md": "---\nid: Twin\n---\nMy id is my name, which my twin shares.\n",
    "twins/b/twin.md": "[[twin]] [[Twin]] [[twins/b/twin]]\n",
    # Ids SQLite tells apart but links do not: each folder's links go to its own.
    "greek/f1/a.md": "---\nid: Ω\n---\n",
    "greek/f1/x.md": "[[ω]]\n",
    "greek/f2/b.md": "---\nid: ω\n---\n",
    "greek/f2/y.md": "[[ω]]\n",
}


def _synthetic(n: int, seed: int = 3) -> dict[str, str]:
    rng = random.Random(seed)
    files = {}
    for i in range(n):
        targets = [f"S-{rng.randrange(n):03d}" for _ in range(rng.randint(0, 4))]
        rel = f'related: ["[[S-{rng.randrange(n):03d}]]"]\n' if i % 3 else ""
        body = " ".join(f"text [[{t}|alias]] more" if j % 2 else f"[[{t}]]"
                        for j, t in enumerate(targets))  # fmt: skip
        files[f"s/{i % 4}/S-{i:03d}.md"] = (
            f"---\nid: S-{i:03d}\ntitle: Synthetic {i}\ntags: [t{i % 5}]\n{rel}---\n"
            f"## Part\n{body} #body-tag\n\n```\n[[not-a-link]]\n```\n"
        )
    return files


def _files() -> dict[str, str | bytes]:
    return {**REALISTIC_VAULT, **EXTRA, **_synthetic(60)}


def _write(root: Path, files: dict[str, str | bytes]) -> Path:
    write_vault(root, {k: v for k, v in files.items() if isinstance(v, str)})
    for rel, data in files.items():
        if isinstance(data, bytes):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
    return root


def dump(idx: VaultIndex) -> dict[str, list]:
    """Every table's content, row ids replaced by entry ids, in a stable order."""
    q = idx.conn.execute
    ids = dict(q("SELECT eid, id FROM entries"))

    def rows(sql: str, eid_columns: tuple[int, ...] = ()) -> list:
        out = []
        for r in q(sql):
            r = list(r)
            for i in eid_columns:
                r[i] = ids.get(r[i], r[i])
            out.append(tuple(r))
        return sorted(out, key=repr)

    return {
        "entries": rows(
            "SELECT id, path, title, kind, status, words, reading_minutes, "
            "body_line, headings, tags, aliases, properties, mtime_ns FROM entries"
        ),
        "links": rows(
            "SELECT source, target, status, text, target_name, resolved_path, relation, embed, "
            "markdown, line, context, alias, heading, block FROM links",
            (0, 1),
        ),
        "tags": rows("SELECT eid, tag FROM tags", (0,)),
        "problems": rows("SELECT path, line, kind, message, severity FROM problems"),
        "files": rows("SELECT path, size, mtime_ns FROM files"),
        "fts": rows("SELECT rowid, title, aliases, tags, body FROM entries_fts", (0,)),
        "indexes": rows("SELECT name, sql FROM sqlite_master WHERE type = 'index'"),
        "export": [idx.export_json()],
    }


def _build(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch, **settings) -> dict:
    with monkeypatch.context() as m:
        for key, value in settings.items():
            m.setattr(indexer, key, value)
        if settings.get("PARALLEL_THRESHOLD") == 1:  # workers, whatever the machine's cores
            m.setenv(pool.WORKERS_ENV, "2")
        with VaultIndex.open(tmp_path / "v", tmp_path / f"{name}.sqlite") as idx:
            return dump(idx)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return _write(tmp_path / "v", _files())


def test_a_vault_indexed_file_by_file_agrees_with_one_build(
    root: Path, tmp_path, monkeypatch
) -> None:
    cold = _build(tmp_path, "cold", monkeypatch)
    # The same vault, its files arriving a few at a time, a refresh after each arrival: the
    # index then had entries, and links elsewhere to resolve again.
    hidden = tmp_path / "hidden"
    files = sorted(p for p in root.rglob("*") if p.is_file())
    for n, p in enumerate(files):
        (hidden / str(n)).parent.mkdir(exist_ok=True)
        p.rename(hidden / str(n))
    with VaultIndex.open(root, tmp_path / "inc.sqlite") as idx:
        for start in range(0, len(files), 9):
            for n in range(start, min(start + 9, len(files))):
                (hidden / str(n)).rename(files[n])
            idx.refresh()
        incremental = dump(idx)
    # Row ids come in another order; what they hold is the same.
    assert cold == incremental
    assert any(p[2] == "duplicate-id" for p in cold["problems"])
    assert any(e[0] == "dup/two~2" for e in cold["entries"])


def test_parsing_in_worker_processes_agrees(root: Path, tmp_path, monkeypatch) -> None:
    serial = _build(tmp_path, "serial", monkeypatch)
    parallel = _build(tmp_path, "par", monkeypatch, PARALLEL_THRESHOLD=1,
                      CHUNK=7, BATCH=20)  # fmt: skip
    assert parallel == serial
    # The workers' stages were scratch files beside the index: none is left.
    assert sorted(
        p.name for p in tmp_path.iterdir() if not p.name.startswith(("serial", "par"))
    ) == ["v"]


def test_a_broken_pool_falls_back_to_parsing_here(root: Path, tmp_path, monkeypatch) -> None:
    class Broken:
        def __init__(self, *args, **kwargs) -> None:
            pass

        def submit(self, *args, **kwargs):
            raise BrokenProcessPool("a worker died")

        def shutdown(self, *args, **kwargs) -> None:
            pass

    serial = _build(tmp_path, "serial", monkeypatch)
    monkeypatch.setattr(pool, "ProcessPoolExecutor", Broken)
    broken = _build(tmp_path, "broken", monkeypatch, PARALLEL_THRESHOLD=1)
    assert broken == serial


def test_a_build_split_in_two_agrees_with_one(root: Path, tmp_path, monkeypatch) -> None:
    whole = _build(tmp_path, "whole", monkeypatch)
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    moved = sorted((root / "s").rglob("*.md"))[::2]
    for p in moved:
        p.rename(hidden / p.name)
    VaultIndex.open(root, tmp_path / "split.sqlite").close()  # half the vault
    for p in moved:
        (hidden / p.name).rename(p)
    split = _build(tmp_path, "split", monkeypatch)  # a refresh now
    for key in ("entries", "links", "tags", "problems", "files"):
        assert split[key] == whole[key], key


@pytest.mark.parametrize("workers", [False, True], ids=["here", "workers"])
def test_a_cancelled_build_keeps_its_links(
    root: Path, tmp_path, monkeypatch, workers: bool
) -> None:
    whole = _build(tmp_path, "whole", monkeypatch)
    seen = []

    def report(done: int, total: int, stage: str) -> None:
        seen.append(stage)
        if seen.count("parsing") == 3:
            raise Cancelled

    with monkeypatch.context() as m:
        m.setattr(indexer, "CHUNK", 10)
        m.setattr(indexer, "BATCH", 10)
        if workers:
            m.setattr(indexer, "PARALLEL_THRESHOLD", 1)
            m.setenv(pool.WORKERS_ENV, "2")
        with pytest.raises(Cancelled):
            VaultIndex.open(root, tmp_path / "c.sqlite", task=TaskState(on_progress=report))
    with VaultIndex.open(root, tmp_path / "c.sqlite", refresh=False) as partial:
        # Links were written batch by batch, resolved against every path of the vault: none
        # may point at an entry the cancelled build did not reach.
        written = partial.stats()["entries"]
        assert 0 < written < len(whole["entries"])
        dangling = partial.conn.execute(
            "SELECT count(*) FROM links WHERE target IS NOT NULL "
            "AND target NOT IN (SELECT eid FROM entries)"
        ).fetchone()[0]
        assert dangling == 0
        assert partial.conn.execute("SELECT count(*) FROM links").fetchone()[0] > 0
    again = _build(tmp_path, "c", monkeypatch)
    for key in ("entries", "links", "tags", "problems", "files", "indexes"):
        assert again[key] == whole[key], key


def test_edits_give_what_a_fresh_build_gives(root: Path, tmp_path, monkeypatch) -> None:
    hub = root / "papers" / "LIT-008.md"
    text = hub.read_text(encoding="utf-8")
    edits = [
        text + "\nAn edited body, names unchanged. [[SOTA-050]]\n",
        text.replace("title: Attention", "aliases: [Primer]\ntitle: Attention"),
        text.replace("id: LIT-008", "id: Primer"),  # an id beats an alias elsewhere
        text.replace("id: LIT-008", "id: renamed"),
        text,
    ]
    with VaultIndex.open(root, tmp_path / "i.sqlite") as idx:
        for n, new in enumerate(edits, 1):
            hub.write_text(new, encoding="utf-8")
            st = hub.stat()
            os.utime(hub, ns=(st.st_atime_ns, st.st_mtime_ns + n * 10**9))
            idx.refresh()
            fresh = _build(tmp_path, f"fresh{n}", monkeypatch)
            got = dump(idx)
            for key in ("entries", "links", "problems", "export"):
                assert got[key] == fresh[key], (n, key)


def test_a_pool_that_breaks_midway_loses_nothing(root: Path, tmp_path, monkeypatch) -> None:
    """The workers stall, this process takes jobs from the back meanwhile, then the pool
    breaks: what was already done here is kept, the rest is done here, once each."""
    from concurrent.futures import Future

    class Stuck(Future):
        def done(self) -> bool:
            return False

        def result(self, timeout=None):
            raise BrokenProcessPool("a worker died")

    class Breaking:
        def __init__(self, *args, **kwargs) -> None:
            pass

        def submit(self, *args, **kwargs) -> Future:
            return Stuck()

        def shutdown(self, *args, **kwargs) -> None:
            pass

    serial = _build(tmp_path, "serial", monkeypatch)
    monkeypatch.setattr(pool, "ProcessPoolExecutor", Breaking)
    broken = _build(tmp_path, "broken", monkeypatch, PARALLEL_THRESHOLD=1, CHUNK=7)
    assert broken == serial
