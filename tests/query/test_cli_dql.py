"""``anthology query VAULT 'TABLE …'``: a Dataview query answered from the index as text,
JSON or CSV, for scripts (tests/vaults/dataview/); bad input is one line on stderr and exit
status 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anthology.cli import main

DATAVIEW_VAULT = Path(__file__).resolve().parents[1] / "vaults" / "dataview"


def run(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[int, str, str]:
    code = main(["query", str(DATAVIEW_VAULT), "--db", str(tmp_path / "i.sqlite"), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_table_as_text_and_csv(capsys, tmp_path: Path) -> None:
    query = "TABLE rating FROM #games SORT rating DESC"
    code, out, err = run(capsys, tmp_path, query)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "TABLE · 3 results"
    assert [line.split()[0] for line in lines[3:]] == ["Elden", "Stardew", "Celeste"]
    code, out, _ = run(capsys, tmp_path, query, "--format", "csv")
    assert out.splitlines() == ["File,rating", "Elden Ring,9.5", "Stardew Valley,9", "Celeste,8"]


def test_tasks_as_json_with_where_they_stand(capsys, tmp_path: Path) -> None:
    code, out, err = run(capsys, tmp_path, 'TASK FROM "Daily" WHERE !completed', "--format",
                         "json")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["type"] == "task"
    tasks = {t["text"]: (t["path"], t["line"]) for g in data["groups"] for t in g["tasks"]}
    assert tasks["Call the plumber [due:: 2024-01-08]"] == ("Daily/2024-01-05.md", 2)
    assert tasks["Book the train ⏳ 2024-01-15"] == ("Daily/2024-01-12.md", 2)
    assert not any(text.startswith("Water the plants") for text in tasks)


@pytest.mark.parametrize(
    "query",
    [
        'TABLE rating FROM "Games" WHERE (rating > 1',  # unbalanced parentheses
        'LIST FROM "Games',  # unbalanced quotes
        "TABLE nosuchfunction(rating) FROM #games",  # an unknown function
        "TABLE " + "x, " * 40_000 + "y",  # a query of ~100 KB
        "SELECT * FROM games",  # not DQL
    ],
)
def test_bad_queries_say_why_in_one_line(capsys, tmp_path: Path, query: str) -> None:
    code, out, err = run(capsys, tmp_path, query)
    if code == 0:  # an unknown function is an error per cell in Dataview, not of the query
        assert "nosuchfunction" in query and "nosuchfunction" in out
        return
    assert code == 2 and not out
    assert err.startswith("anthology: query: ") and len(err.splitlines()) == 1
    assert "Traceback" not in err


def test_one_of_a_query_or_a_base(capsys, tmp_path: Path) -> None:
    code, _, err = run(capsys, tmp_path)
    assert code == 2 and "give a Dataview query or --base" in err
