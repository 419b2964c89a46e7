"""The index file: Anthology replaces only what it made, and says clearly when it cannot write.

Every refusal is one line on stderr and exit status 2, and the file named stays as it was.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from anthology.cli import main
from anthology.vault.index import VaultIndex
from anthology.vault.index_file import APPLICATION_ID, IndexFileError, is_ours
from sample_vault import kill_while_creating

NOTE = "---\ntitle: Important\n---\nMy thesis, three years of it.\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def refused(rc: int, err: str) -> bool:
    lines = [line for line in err.splitlines() if line.strip()]
    return rc == 2 and len(lines) == 1 and lines[0].startswith("anthology: ")


@pytest.fixture
def small_vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "sub").mkdir(parents=True)
    (root / "important.md").write_text(NOTE, encoding="utf-8")
    (root / "sub" / "other.md").write_text("Links to [[important]].\n", encoding="utf-8")
    return root


# ------------------------------------------------------------------ item 1: --db never destroys
def test_db_inside_the_vault_is_refused_and_the_note_kept(
    small_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = small_vault / "important.md"
    rc, _out, err = run(capsys, "index", small_vault, "--db", note)
    assert refused(rc, err) and "inside the vault" in err
    assert note.read_text(encoding="utf-8") == NOTE
    rc, _out, err = run(capsys, "index", small_vault, "--db", small_vault / "sub" / "new.sqlite")
    assert refused(rc, err) and not (small_vault / "sub" / "new.sqlite").exists()
    assert sorted(p.name for p in small_vault.rglob("*")) == ["important.md", "other.md", "sub"]


def test_an_existing_file_that_is_not_an_index_is_kept(
    small_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    thesis = tmp_path / "thesis.txt"
    thesis.write_text("chapter one", encoding="utf-8")
    wal = tmp_path / "thesis.txt-wal"
    wal.write_text("not a wal either", encoding="utf-8")
    for command in (["index"], ["index", "--rebuild"], ["check"], ["search", "thesis"]):
        rc, _out, err = run(capsys, *command[:2], small_vault, "--db", thesis, *command[2:])
        assert refused(rc, err) and "not an Anthology index" in err
        assert thesis.read_text(encoding="utf-8") == "chapter one"
        assert wal.read_text(encoding="utf-8") == "not a wal either"
    # a foreign SQLite database is not ours either
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE mine(x)")
    conn.commit()
    conn.close()
    rc, _out, err = run(capsys, "index", small_vault, "--db", other)
    assert refused(rc, err)
    conn = sqlite3.connect(other)
    assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("mine",)]
    conn.close()


def test_a_symlink_folder_fifo_or_device_at_the_db_path_is_refused(
    small_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "target.txt"
    target.write_text("keep me", encoding="utf-8")
    link = tmp_path / "link.sqlite"
    link.symlink_to(target)
    folder = tmp_path / "folder.sqlite"
    folder.mkdir()
    fifo = tmp_path / "fifo.sqlite"
    os.mkfifo(fifo)
    device = tmp_path / "null.sqlite"
    device.symlink_to("/dev/null")
    for db, what in ((link, "symbolic link"), (folder, "folder"), (fifo, "named pipe")):
        rc, _out, err = run(capsys, "index", small_vault, "--db", db)
        assert refused(rc, err) and what in err
    rc, _out, err = run(capsys, "index", small_vault, "--db", device, "--rebuild")
    assert refused(rc, err)
    assert target.read_text(encoding="utf-8") == "keep me" and link.is_symlink()
    assert folder.is_dir() and fifo.is_fifo() and os.path.exists("/dev/null")
    # a symlink beside our index named as its -wal is not followed either
    db = tmp_path / "idx.sqlite"
    Path(f"{db}-wal").symlink_to(target)
    rc, _out, err = run(capsys, "index", small_vault, "--db", db)
    assert refused(rc, err) and target.read_text(encoding="utf-8") == "keep me"


def test_an_index_of_ours_is_replaced_when_stale_or_rebuilt(
    small_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "idx.sqlite"
    rc, out, _err = run(capsys, "index", small_vault, "--db", db)
    assert rc == 0 and "Indexed 2 entries" in out
    header = db.read_bytes()[:100]
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID and is_ours(db)
    rc, out, _err = run(capsys, "index", small_vault, "--db", db, "--rebuild")
    assert rc == 0 and "Indexed 2 entries" in out
    # an index from before the application id (its meta row says it is ours) is rebuilt
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA application_id = 0")
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()
    assert is_ours(db)
    with VaultIndex.open(small_vault, db) as index:
        assert index.created and index.stats()["entries"] == 2


# ------------------------------------------------------------------ item 12: clear errors
def test_an_unusable_cache_folder_is_one_clear_line(
    small_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.delenv("ANTHOLOGY_CACHE_DIR")  # the platform's folder, as a user has it
    # the default place: the vault is still read, from an index kept for this run only
    rc, out, err = run(capsys, "check", small_vault)
    assert rc == 0 and "0 errors" in out
    assert err.count("\n") == 1 and "cannot be written" in err and "Not a directory" in err
    # a place the user named: refused, one line
    rc, _out, err = run(capsys, "index", small_vault, "--db", blocker / "idx.sqlite")
    assert refused(rc, err)


def _chattr(flag: str, path: Path) -> bool:
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", flag, str(path)], capture_output=True).returncode == 0


def test_a_read_only_index_still_answers_read_only_commands(
    small_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "idx.sqlite"
    assert run(capsys, "index", small_vault, "--db", db)[0] == 0
    (small_vault / "later.md").write_text("Added after the index was built.\n", "utf-8")
    if not _chattr("+i", db):  # root ignores file modes; the immutable flag it cannot
        pytest.skip("chattr +i is not available here")
    try:
        rc, out, err = run(capsys, "search", "thesis", small_vault, "--db", db)
        assert rc == 0 and "important" in out and "read-only" in err
        rc, _out, err = run(capsys, "index", small_vault, "--db", db)
        assert refused(rc, err) and "read-only" in err
    finally:
        _chattr("-i", db)
    # a read-only folder (an index closed cleanly: no -wal or -shm to write into)
    folder = tmp_path / "ro2"
    folder.mkdir()
    db = folder / "idx.sqlite"
    assert run(capsys, "index", small_vault, "--db", db)[0] == 0
    (small_vault / "later2.md").write_text("Also added after.\n", "utf-8")
    assert sorted(p.name for p in folder.iterdir()) == ["idx.sqlite"]  # no .lock left after exit
    assert _chattr("+i", folder)
    try:
        rc, out, err = run(capsys, "show", "important", small_vault, "--db", db)
        assert rc == 0 and "Important" in out and "read-only" in err
        rc, _out, err = run(capsys, "index", small_vault, "--db", db)
        assert refused(rc, err)
    finally:
        _chattr("-i", folder)


def test_a_full_disk_is_reported_not_masked(small_vault: Path, tmp_path: Path) -> None:
    for i in range(300):  # a cold build, which turns synchronous off for its duration
        (small_vault / f"n{i}.md").write_text(f"Note {i} " + "word " * 400, encoding="utf-8")
    db = tmp_path / "idx.sqlite"
    index = VaultIndex.open(small_vault, db, refresh=False)
    pages = index.conn.execute("PRAGMA page_count").fetchone()[0]
    index.conn.execute(f"PRAGMA max_page_count = {pages + 8}")  # the disk fills up
    with pytest.raises(IndexFileError, match="disk is full"):
        index.refresh()
    assert not index.conn.in_transaction
    index.close()
    with VaultIndex.open(small_vault, db) as again:  # with room again, the build completes
        assert again.stats()["entries"] == 302


def test_two_builds_at_once_wait_for_each_other(small_vault: Path, tmp_path: Path) -> None:
    for i in range(400):
        (small_vault / f"n{i}.md").write_text(f"Note {i} links [[n{i + 1}]]\n", "utf-8")
    db = tmp_path / "idx.sqlite"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    cmd = [sys.executable, "-m", "anthology", "index", str(small_vault), "--db", str(db)]
    runs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(2)]  # fmt: skip
    results = [p.communicate(timeout=300) for p in runs]
    for p, (out, err) in zip(runs, results, strict=True):
        assert p.returncode == 0, err
        assert "Indexed 402 entries" in out  # each prints what the index holds at its end
    assert "UNIQUE" not in "".join(err for _out, err in results)
    assert not Path(f"{db}.lock").exists()  # the lock file lives only while a build runs


def test_the_build_lock_excludes_while_its_file_comes_and_goes(tmp_path: Path) -> None:
    """The holder removes the lock file as it lets go; a waiter that locked the removed
    file must take the lock anew, or two builds would run at once."""
    import threading

    from anthology.vault.index_file import build_lock

    db = tmp_path / "idx.sqlite"
    inside, most, rounds = [0], [0], []
    guard = threading.Lock()

    def build() -> None:
        for _ in range(40):
            with build_lock(db):
                with guard:
                    inside[0] += 1
                    most[0] = max(most[0], inside[0])
                rounds.append(1)
                with guard:
                    inside[0] -= 1

    threads = [threading.Thread(target=build) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(rounds) == 240 and most[0] == 1
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ item 17: search -word
def test_search_takes_a_query_that_starts_with_a_dash(
    small_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "idx.sqlite"
    (small_vault / "draft.md").write_text("A thesis draft.\n", encoding="utf-8")
    rc, out, _err = run(capsys, "search", "thesis", small_vault, "--db", db)
    assert rc == 0 and "draft" in out and "important" in out
    rc, out, err = run(capsys, "search", "thesis -draft", small_vault, "--db", db)
    assert rc == 0 and "draft" not in out.split("results")[0].replace("important", "")
    rc, out, err = run(capsys, "search", "-draft", small_vault, "--db", db, "--json")
    assert rc == 0, err
    rc, out, err = run(capsys, "search", "--limit", "5", "-draft", small_vault, "--db", db)
    assert rc == 0 and "results" in out, err


# ------------------------------------------------------------------ item 13: kill -9 mid-build
def _pids_alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
                if fh.read().split()[2] != "Z":  # a zombie has died; its parent reaps it
                    alive.append(pid)
        except OSError:
            pass
    return alive


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_build_leaves_no_workers_and_its_scratch_is_swept(tmp_path: Path) -> None:
    import signal
    import time

    from anthology.vault.indexer import PARALLEL_THRESHOLD
    from anthology.vault.pool import SCRATCH_PREFIX, WORKERS_ENV

    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(PARALLEL_THRESHOLD * 3):  # a cold build in worker processes
        (vault / f"n{i}.md").write_text(f"Note {i} [[n{i + 1}]] " + "w " * 300, "utf-8")
    db = tmp_path / "cache" / "idx.sqlite"
    # workers whatever the machine's cores and load (the rule would often say one process)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), WORKERS_ENV: "2"}
    build = subprocess.Popen(
        [sys.executable, "-m", "anthology", "index", str(vault), "--db", str(db)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    workers: list[int] = []
    for _ in range(600):  # until the workers have made their stages (or the build ended)
        scratch = list(db.parent.glob(f"{SCRATCH_PREFIX}*")) if db.parent.exists() else []
        workers = [int(p.stem.split("-")[1]) for d in scratch for p in d.glob("stage-[0-9]*")]
        if workers or build.poll() is not None:
            break
        time.sleep(0.05)
    if not workers:
        build.wait()
        pytest.skip("the build finished before its workers could be seen")
    build.send_signal(signal.SIGKILL)
    build.wait()
    for _ in range(300):  # the workers notice at once (parent-death signal), or within 1 s
        if not _pids_alive(workers):
            break
        time.sleep(0.05)
    assert _pids_alive(workers) == []
    assert list(db.parent.glob(f"{SCRATCH_PREFIX}*"))  # what the killed build left
    with VaultIndex.open(vault, db) as index:  # the next run sweeps it and builds
        assert index.stats()["entries"] == PARALLEL_THRESHOLD * 3
    assert list(db.parent.glob(f"{SCRATCH_PREFIX}*")) == []


def test_a_worker_whose_build_died_before_it_started_ends_at_once(tmp_path: Path) -> None:
    """A build killed while its worker was still starting: by the time the worker runs its
    initializer it belongs to init, and it must end rather than take init for its build and
    wait for work forever (a process left behind, seen in the test suite)."""
    dead_build = 2**22 + 12345  # a pid that is not this worker's parent
    code = (
        "from anthology.vault.stage import _die_with_parent\n"
        f"_die_with_parent({dead_build})\n"
        "print('still here')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 1 and "still here" not in done.stdout
    alive = (
        "import os\nfrom anthology.vault.stage import _die_with_parent\n"
        "_die_with_parent(os.getppid())\nprint('still here')\n"
    )
    done = subprocess.run([sys.executable, "-c", alive], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0 and "still here" in done.stdout  # its build is alive


@pytest.mark.parametrize("point", ["opened", "schema"])
def test_a_build_killed_while_making_a_new_index_is_rebuilt_next_time(
    small_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], point: str
) -> None:
    db = tmp_path / "cache" / "idx.sqlite"
    db.parent.mkdir()
    kill_while_creating(small_vault, db, point)
    # before: a 4 KB idx.sqlite without the application id, refused by every later run
    # ("exists and is not an Anthology index", exit 2) for good
    assert not db.exists() or is_ours(db)
    rc, out, err = run(capsys, "index", small_vault, "--db", db)
    assert rc == 0 and "Indexed 2 entries" in out, err
    assert is_ours(db) and not list(db.parent.glob("*.building*"))  # what it left is swept


def _half_made_by_an_older_build(db: Path) -> None:
    """The file state a build killed mid-create left before new indexes were made under a
    temporary name: a 4 KB WAL-mode SQLite file with no id, its schema only in the log."""
    db.parent.mkdir(parents=True, exist_ok=True)
    script = (
        "import os, signal, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1])\n"
        "conn.execute('PRAGMA journal_mode = WAL')\n"
        "conn.execute('BEGIN')\n"
        "conn.execute('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)')\n"
        "conn.execute('CREATE TABLE files (path TEXT PRIMARY KEY, size INT, mtime_ns INT)')\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    assert subprocess.run([sys.executable, "-c", script, db]).returncode == -9
    assert db.stat().st_size == 4096 and db.read_bytes()[68:72] == b"\0\0\0\0"


def test_a_half_made_index_left_in_anthologys_own_folder_is_rebuilt(
    small_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from anthology.vault.index import default_db_path

    db = default_db_path(small_vault.resolve())  # in $ANTHOLOGY_CACHE_DIR/indexes
    _half_made_by_an_older_build(db)
    rc, out, err = run(capsys, "index", small_vault)
    assert rc == 0 and "Indexed 2 entries" in out, err  # before: exit 2, for good
    assert is_ours(db)
    # the same file at a --db the user named is not proved ours by its place: refused, kept
    elsewhere = tmp_path / "mine" / "idx.sqlite"
    _half_made_by_an_older_build(elsewhere)
    before = elsewhere.read_bytes()
    rc, _out, err = run(capsys, "index", small_vault, "--db", elsewhere)
    assert refused(rc, err) and "not an Anthology index" in err
    assert elsewhere.read_bytes() == before


def test_what_is_in_the_way_of_a_new_index_is_never_deleted(
    small_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "idx.sqlite"
    building = tmp_path / "idx.sqlite.building"
    building.write_text("someone's notes", encoding="utf-8")
    rc, _out, err = run(capsys, "index", small_vault, "--db", db)
    assert refused(rc, err) and "in the way" in err
    assert building.read_text(encoding="utf-8") == "someone's notes" and not db.exists()
