"""The CLI asked what it cannot do: one line on stderr, exit status 2, nothing made on the
way and no traceback (issue 28: many filters, a huge --limit, --out a folder or /proc, a
bad --size, missing parent folders of --db and --out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from anthology.cli import main
from anthology.vault.query import MAX_QUERY_PARTS


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's refusal of an argument
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def refused(rc: int, err: str) -> bool:
    lines = [line for line in err.splitlines() if line.strip()]
    return rc == 2 and len(lines) == 1 and lines[0].startswith("anthology: ")


def argument_error(rc: int, err: str, option: str) -> bool:
    """argparse's own refusal: the usage, then one ``error: argument OPTION: …`` line."""
    last = err.strip().splitlines()[-1]
    return rc == 2 and "error: argument " + option in last and "Traceback" not in err


@pytest.fixture
def small(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("Alpha words. #t1\n\n[[b]]\n", encoding="utf-8")
    (root / "b.md").write_text("Beta words.\n", encoding="utf-8")
    return root, tmp_path / "index.sqlite"


def test_a_search_with_a_thousand_filters_is_one_line(capsys, small) -> None:
    vault, db = small
    for query in (
        " ".join(f"tag:t{i}" for i in range(1000)),  # SQLite: "Expression tree is too large"
        " ".join(f"[k{i}:v]" for i in range(999)),
        " ".join(f"w{i}" for i in range(1000)),  # FTS5's MATCH failed: "0 results"
    ):
        rc, out, err = run(capsys, "search", query, vault, "--db", db)
        assert refused(rc, err) and f"at most {MAX_QUERY_PARTS}" in err and out == ""
    # as many as it takes still answer (the filters all hold for a.md)
    query = " ".join(["tag:t1"] * (MAX_QUERY_PARTS - 1) + ["alpha"])
    rc, out, _err = run(capsys, "search", query, vault, "--db", db)
    assert rc == 0 and out.splitlines()[-1] == "1 results"


def test_search_limit_takes_whole_numbers_however_large(capsys, small) -> None:
    vault, db = small
    for limit in ("1e20", "100000000000000000000"):  # past SQLite's 64 bits: all of them
        rc, out, err = run(capsys, "search", "words", vault, "--db", db, "--limit", limit)
        assert rc == 0 and out.splitlines()[-1] == "2 results", err
    rc, out, _err = run(capsys, "search", "words", vault, "--db", db, "--limit", "1")
    assert out.splitlines()[-1] == "1 results"
    for limit in ("0", "-5", "abc", "1.5", "nan", "inf"):
        rc, _out, err = run(capsys, "search", "words", vault, "--db", db, "--limit", limit)
        assert argument_error(rc, err, "--limit"), (limit, err)


def test_export_to_a_folder_or_a_place_that_cannot_be_written_is_one_line(
    capsys, small, tmp_path: Path
) -> None:
    vault, db = small
    folder = tmp_path / "a folder"
    folder.mkdir()
    for fmt in ("json", "graphml"):
        for out in (folder, Path("/proc/x")):
            rc, stdout, err = run(
                capsys, "export", vault, "--db", db, "--format", fmt, "--out", out
            )
            assert refused(rc, err) and str(out) in err and stdout == "", err
    assert list(folder.iterdir()) == []
    rc, _out, err = run(capsys, "export", vault, "--db", db, "--out", tmp_path / "ok.json")
    assert rc == 0 and (tmp_path / "ok.json").read_text(encoding="utf-8").startswith("{")


def test_missing_parent_folders_of_db_and_out_are_not_made(capsys, small, tmp_path) -> None:
    vault, db = small
    missing = tmp_path / "missing"
    for argv in (
        ("index", vault, "--db", missing / "sub" / "i.sqlite"),
        ("export", vault, "--db", missing / "i.sqlite"),
        ("search", "words", vault, "--db", missing / "i.sqlite"),
        ("export", vault, "--db", db, "--out", missing / "graph.json"),
        ("screenshot", vault, "--db", db, "--out", missing / "shot.png"),
    ):
        rc, _out, err = run(capsys, *argv)
        assert refused(rc, err) and f"the folder {missing}" in err and "does not exist" in err
        assert not missing.exists()


def test_a_screenshot_size_that_is_not_a_size_is_refused(capsys, small, tmp_path) -> None:
    vault, db = small
    for size in ("abc", "100", "x100", "0x10", "99999x900", "10xabc"):
        rc, _out, err = run(
            capsys, "screenshot", vault, "--db", db, "--out", tmp_path / "s.png", "--size", size
        )
        assert argument_error(rc, err, "--size"), (size, err)
    assert not (tmp_path / "s.png").exists()
