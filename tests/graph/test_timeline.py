"""The timeline's core (anthology.graph.timeline): dates read from a real index of a
real-shaped vault, the layout in date order, arcs of typed relations, and bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from anthology.graph.model import Filters
from anthology.graph.timeline import (
    CTIME,
    MAX_ROWS,
    MTIME,
    DateError,
    build_timeline,
    date_keys,
    default_key,
    parse_date,
)
from anthology.vault.graph_data import GraphData
from anthology.vault.index import VaultIndex

PAPERS = {
    "Papers/Attention Is All You Need.md": (
        "---\nyear: 2017\nkind: literature\ntags: [transformers]\n---\nThe Transformer."
    ),
    "Papers/BERT 🐻.md": (
        "---\nyear: 2018\nkind: literature\ntags: [transformers, nlp]\n"
        'builds_on: ["[[Attention Is All You Need]]"]\n---\nPre-training.'
    ),
    "Papers/GPT-3.md": (
        "---\nyear: '2020'\nkind: literature\ntags: [nlp]\n"
        'compared_against: ["[[BERT 🐻]]"]\n---\nFew-shot. Mentions [[Attention Is All You Need]].'
    ),
    "Papers/Rotary embeddings.md": (
        "---\nyear: [2021, 2023]\nkind: literature\ntags: [positions]\n---\nRoPE."
    ),
    "Daily notes/2024-02-30 odd day.md": '---\ndate: "2024-02-30"\n---\nA day February lacks.',
    "Daily notes/2024-03-05.md": "---\ndate: 2024-03-05\ncreated: 2024-03-05T10:20:00\n---\nx",
    "Daily notes/broken.md": "---\ndate: 2024-02-30\n---\nunquoted: the front matter fails",
    "History/Caesar crosses the Rubicon.md": "---\nyear: -49\n---\nAlea iacta est.",
    "History/Far future.md": "---\nyear: 12000\n---\nNot a year the timeline places.",
    "Ideas/undated idea.md": "---\npages: 12\n---\nNo date at all, and a number that is not one.",
}


@pytest.fixture
def papers(tmp_path: Path):
    root = tmp_path / "Vault with spaces"
    for rel, text in PAPERS.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    (tmp_path / "db").mkdir()
    with VaultIndex.open(root, tmp_path / "db" / "index.sqlite") as index:
        yield index


def _ids(data: GraphData, t) -> list[str]:
    return [data.ids[i] for i in t.nodes]


def test_papers_in_year_order_with_relations_as_arcs(papers: VaultIndex) -> None:
    data = papers.graph()
    t = build_timeline(data, "year")
    assert [data.titles[i] for i in t.nodes] == [
        "Caesar crosses the Rubicon", "Attention Is All You Need", "BERT 🐻", "GPT-3",
        "Rotary embeddings",
    ]  # fmt: skip
    assert list(t.x) == sorted(t.x)
    assert [w.text for w in t.when] == ["-49", "2017", "2018", "2020", "2021"]
    # the earliest of a list, said so
    assert ("Rotary embeddings", "a list of dates: placed at the earliest") in [
        (data.titles[data.ids.index(i)], note) for i, note in t.adjusted
    ]
    # typed relations are arcs (older ← newer); the body mention is not
    pairs = {(data.titles[t.nodes[a]], data.titles[t.nodes[b]], r)
             for (a, b), r in zip(t.arcs.tolist(), t.relations, strict=True)}  # fmt: skip
    assert pairs == {
        ("BERT 🐻", "Attention Is All You Need", "builds on"),
        ("GPT-3", "BERT 🐻", "compared against"),
    }
    xs, ys = t.arc_curves()
    assert xs.shape == ys.shape == (2, 17)
    # bowed: the curve's middle is off the straight line between its ends
    mid = np.hypot(xs[:, 8] - (xs[:, 0] + xs[:, -1]) / 2, ys[:, 8] - (ys[:, 0] + ys[:, -1]) / 2)
    assert (mid > 0).all()
    # a year after 9999 is refused with its reason, and counted
    assert t.refused_count == 1 and "after the year 9999" in t.refused[0][1]
    assert t.undated == data.n - t.n - 1


def test_query_and_graph_filters_remove_entries(papers: VaultIndex) -> None:
    data = papers.graph()
    t = build_timeline(data, "year", query="tag:nlp")
    assert [data.titles[i] for i in t.nodes] == ["BERT 🐻", "GPT-3"]
    assert len(t.arcs) == 1  # the arc to a filtered-out entry goes with it
    t = build_timeline(data, "year", query="folder:History -Caesar")
    assert t.n == 0 and t.refused_count == 1
    assert "not dates" in t.message and "Pick another date property" in t.message
    t = build_timeline(data, "year", filters=Filters(hidden_kinds=frozenset({"literature"})))
    assert _ids(data, t) == ["History/Caesar crosses the Rubicon"]
    t = build_timeline(data, "year", filters=Filters(hidden_relations=frozenset({"builds on"})))
    assert t.relations == ["compared against"]
    t = build_timeline(data, "year", query="tag:nowhere")
    assert t.message == (
        "No entry matches “tag:nowhere”. Clear the query or the filters to see entries."
    )


def test_full_dates_datetimes_and_a_day_that_does_not_exist(papers: VaultIndex) -> None:
    data = papers.graph()
    t = build_timeline(data, "date")
    assert [w.text for w in t.when] == ["2024-02", "2024-03-05"]
    assert t.adjusted_count == 1 and "not a day of its month" in t.adjusted[0][1]
    # unquoted, YAML refuses the whole front matter (the problem report says so): undated
    assert "Daily notes/broken" not in _ids(data, t)
    t = build_timeline(data, "created")
    assert [w.text for w in t.when] == ["2024-03-05 10:20"]


def test_the_vault_offers_its_date_keys_and_the_file_dates(papers: VaultIndex) -> None:
    data = papers.graph()
    keys = dict(date_keys(data))
    assert list(keys)[:3] == ["year", "date", "created"]
    assert keys["year"] == 5 and keys["date"] == 2
    assert "pages" not in keys  # a bare number is a date only by its key's name
    assert MTIME in keys and CTIME in keys
    assert default_key(date_keys(data)) == "year"
    t = build_timeline(data, MTIME, file_dates=papers.file_dates())
    assert t.n == data.n and all(w.precision == "time" for w in t.when)


def test_no_dated_entries_says_why_and_what_to_pick(papers: VaultIndex) -> None:
    data = papers.graph()
    t = build_timeline(data, "deadline")
    assert t.n == 0
    assert t.message.startswith("No entry has “deadline”. Pick another date property: year, date")
    assert "File modified" in t.message


@pytest.mark.parametrize(
    ("value", "why"),
    [("2024-13-01", "no month 13"), (10000, "after the year 9999"),
     ("-10000", "before the year -9999"), ("20240101", "not a date"), (True, "not a date"),
     ({"a": 1}, "not a date"), ([], "empty list"), (2017.5, "not a year"),
     (["soon", "later"], "not a date")],
)  # fmt: skip
def test_values_that_are_not_dates_say_why(value: object, why: str) -> None:
    with pytest.raises(DateError, match=why):
        parse_date(value)


def test_dates_place_in_order_across_precisions() -> None:
    # a day alone is placed at its noon, a month mid-month, a year mid-year
    texts = ["-0044", "0", "2017-03-05T10:20:00Z", "2017-03-05", "2017-03-05 18:00",
             "2017-03", "2017", "2017/12/31", "9999-12-31"]  # fmt: skip
    xs = [parse_date(t).x for t in texts]
    assert xs == sorted(xs)
    assert parse_date("2024-02-29").precision == "day"  # a leap day is a day
    assert parse_date("2023-02-29").precision == "month"


def _one_day(n: int) -> GraphData:
    ids = [f"note {i:05d}" for i in range(n)]
    return GraphData(ids, ids, [""] * n, [[] for _ in range(n)], np.zeros((0, 2)), [],
                     paths=[f"{i}.md" for i in ids],
                     properties=[{"date": "2024-05-01"} for _ in range(n)])  # fmt: skip


def test_ten_thousand_entries_on_one_day_make_a_block() -> None:
    data = _one_day(10_000)
    t = build_timeline(data, "date")
    assert t.n == 10_000
    assert int(t.row.max()) == MAX_ROWS - 1
    spots = set(zip(t.x.tolist(), t.row.tolist(), strict=True))
    assert len(spots) == 10_000  # no two on the same spot
    assert float(t.x.max() - t.x.min()) < 1 / 365  # all inside the day


def _calls(fn) -> int:
    count = 0

    def profile(_frame, event, _arg) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def test_one_day_crowds_cost_linear_work() -> None:
    """The same work at two sizes (function calls, not seconds): 4× the entries of one
    day cost about 4× the calls (a quadratic layout: 16×)."""
    small, big = _one_day(2_500), _one_day(10_000)
    ratio = _calls(lambda: build_timeline(big, "date")) / _calls(
        lambda: build_timeline(small, "date")
    )
    assert ratio < 6.0
