"""``anthology query VAULT --base X.base``: the same results as the page, as text, JSON or
CSV, for scripts; bad input is one line on stderr and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anthology.cli import main

BASES_VAULT = Path(__file__).resolve().parents[1] / "vaults" / "bases"


def run(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[int, str, str]:
    code = main(["query", str(BASES_VAULT), "--db", str(tmp_path / "i.sqlite"), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_text(capsys, tmp_path: Path) -> None:
    code, out, _ = run(capsys, tmp_path, "--base", "Bases/Syntax example.base")
    assert code == 0
    assert out.splitlines() == [
        "My table (table) · 2 results",
        "file name  Extension  age  ppu   Price",
        "---------  ---------  ---  ----  -------------",
        "## 6 (1) — Average 0.5",
        "Chair.md   md         6    0.50  3.00 dollars",
        "## 4 (1) — Average 7.5",
        "Lamp.md    md         4    7.50  30.00 dollars",
        "summaries: ppu: Average 4",
    ]


def test_csv_of_a_named_view_by_its_path(capsys, tmp_path: Path) -> None:
    path = BASES_VAULT / "Bases" / "Books.base"
    code, out, _ = run(capsys, tmp_path, "--base", str(path), "--view", "Top rated",
                       "--format", "csv")  # fmt: skip
    assert code == 0
    assert out.splitlines() == [
        "Name,rating,last",
        "Piranesi 📚.md,5,2025-01-10",
        "Dune.md,5,2024-03-01",
        "The Left Hand of Darkness.md,4,2023-11-20",
    ]


def test_json(capsys, tmp_path: Path) -> None:
    code, out, _ = run(capsys, tmp_path, "--base", "Bases/Books.base", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["views"] == ["Books", "Top rated", "Author", "Genre"]
    rows = data["groups"][0]["rows"]
    assert [r["path"] for r in rows] == [
        "Books/Dune.md", "Books/Piranesi 📚.md", "Books/The Left Hand of Darkness.md",
    ]  # fmt: skip
    dune = rows[0]["cells"]
    assert dune["note.last"] == "2024-03-01"
    assert dune["note.author"] == [
        {"link": "Frank Herbert", "path": "People/Frank Herbert.md", "display": None}
    ]


def test_bad_input_is_one_line_and_status_2(capsys, tmp_path: Path) -> None:
    code, out, err = run(capsys, tmp_path, "--base", "Bases/Books.base", "--view", "Nope")
    assert code == 2 and out == ""
    assert err.strip() == (
        "anthology: Bases/Books.base: this base has no view named “Nope” "
        "(its views: “Books”, “Top rated”, “Author”, “Genre”)"
    )
    broken = tmp_path / "broken.base"
    broken.write_text("views: [unclosed\n", encoding="utf-8")
    code, _out, err = run(capsys, tmp_path, "--base", str(broken))
    assert code == 2 and "the base is not valid YAML" in err
    code, _out, err = run(capsys, tmp_path, "--base", "Nowhere.base")
    assert code == 2 and "no such base: Nowhere.base" in err
