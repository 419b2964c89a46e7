"""Dataview drawn in place over a real index of tests/vaults/dataview/ (games, books, daily
notes with tasks, projects; inline fields in every form): each block of the dashboard as a
reader of the same vault in Obsidian would see it, JavaScript shown as code and never run,
a broken query reported in place while the page goes on."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from anthology.vault.index import VaultIndex
from anthology.vault.render import render_entry
from anthology.vault.render.entry import render_size

DATAVIEW_VAULT = Path(__file__).resolve().parents[1] / "vaults" / "dataview"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VaultIndex]:
    with VaultIndex.open(DATAVIEW_VAULT, tmp_path_factory.mktemp("dv") / "i.sqlite") as ix:
        yield ix


@pytest.fixture(scope="module")
def dashboard(index: VaultIndex) -> str:
    entry = index.entry("Dashboards/Games")
    assert entry is not None
    return render_entry(entry, index, vault_root=index.root).html


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _section(html: str, start: str, end: str) -> str:
    return html.split(start, 1)[1].split(end, 1)[0]


def test_a_table_sorted_by_a_field_front_matter_or_inline(dashboard: str) -> None:
    table = dashboard.split('<table class="dataview"', 1)[1].split("</table>", 1)[0]
    assert re.findall(r"<th[^>]*>([^<]+)</th>", table) == [
        "File (3)", "Rating", "time-played", "length"]  # fmt: skip
    games = re.findall(r'<a class="internal"[^>]*>([^<]+)</a>', table)
    # Elden Ring 9.5 (front matter), Stardew Valley 9 ("Rating:: 9", read as rating), Celeste 8
    assert games == ["Elden Ring", "Stardew Valley", "Celeste"]
    rows = table.split("<tr>")[1:]
    assert "9.5" in _text(rows[0]) and "9" in _text(rows[1]).split() and "8" in _text(rows[2])
    assert "12 hours" in _text(rows[2])
    assert "5 days" in _text(rows[0])  # "Time played:: 120 hours", as Dataview shows it


def test_a_list_with_a_value_links_where_the_field_is_a_link(dashboard: str) -> None:
    books = _section(dashboard, "Books by rating", "Open tasks")
    items = re.findall(r"<li>(.*?)</li>", books)
    assert [re.sub(r"<[^>]+>", "", i) for i in items] == [
        "Piranesi 📚: Susanna Clarke", "Dune: Frank Herbert"]  # fmt: skip
    assert 'href="entry:People%2FFrank%20Herbert"' in items[1]


def test_tasks_under_their_notes_with_their_children(dashboard: str) -> None:
    tasks = _text(_section(dashboard, "Open tasks", "When I wrote"))
    shown = ("Prepare the beds", "Buy compost", "Turn the soil", "Order seeds",
             "Build a greenhouse", "Water every evening", "Read the Dataview docs")  # fmt: skip
    for text in shown:
        assert text in tasks, text
    assert "Fix the hose" not in tasks and "Write the fixtures" not in tasks
    assert tasks.index("Garden") < tasks.index("Prepare the beds")
    assert tasks.index("Anthology v2") < tasks.index("Read the Dataview docs")


def test_a_calendar_of_the_daily_notes(dashboard: str) -> None:
    cal = _section(dashboard, "When I wrote", "Elden Ring is rated")
    assert "February 2024" in cal and "January 2024" in cal
    assert cal.index("February 2024") < cal.index("January 2024")  # the newest first
    assert cal.count("●") == 3
    assert 'href="entry:Daily%2F2024-01-05"' in cal


def test_inline_queries_and_javascript_never_run(dashboard: str) -> None:
    text = _text(dashboard)
    assert "Elden Ring is rated 9.5; this page is Games." in re.sub(r"<[^>]+>", "", dashboard)
    assert "runs JavaScript, which Anthology never runs" in text
    assert "dv.table" in text  # its source, as code
    assert "(JavaScript: not run)" in text


def test_without_id_and_a_broken_query_in_place(dashboard: str) -> None:
    without = dashboard.split('<table class="dataview"')[2].split("</table>", 1)[0]
    assert re.findall(r"<th[^>]*>([^<]+)</th>", without) == ["Game", "rating"]
    assert re.findall(r'<a class="internal"[^>]*>([^<]+)</a>', without) == [
        "Elden Ring", "Stardew Valley"]  # fmt: skip
    assert "Dataview:" in _text(dashboard.split("Played today", 1)[1])


def test_a_page_with_a_query_renders_off_the_gui_thread(index: VaultIndex) -> None:
    entry = index.entry("Dashboards/Games")
    plain = index.entry("People/Frank Herbert")
    assert entry is not None and plain is not None
    assert render_size(entry) > 50_000 > render_size(plain)


def test_an_export_leaves_the_page_links_of_a_long_result_out(tmp_path: Path) -> None:
    from anthology.vault.render.standalone import without_controls
    from sample_vault import write_vault

    files = {f"Many/Item {i:04d}.md": f"n:: {i}\n" for i in range(1_050)}
    files["Dash.md"] = '```dataview\nTABLE n FROM "Many" SORT n\n```\n'
    vault = write_vault(tmp_path / "vault", files)
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as index:
        entry = index.entry("Dash")
        assert entry is not None
        html = render_entry(entry, index, vault_root=index.root).html
    assert 'href="dataview-page:0:1"' in html and "Rows 1–1,000 of 1,050" in html
    shown = without_controls(html)
    assert "dataview-page:" not in shown and "Rows 1–1,000 of 1,050" in shown
