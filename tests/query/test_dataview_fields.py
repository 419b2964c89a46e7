"""A note as Dataview sees it (``docs/annotation/*.md``, ``src/data-import/``): inline values
typed as Dataview types them, field names and their dashed aliases, the implicit ``file``
fields, and list items and tasks with their fields."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from dv_vault import Note, dataset

from anthology.query.dataview import display_text, evaluate_inline
from anthology.query.dataview.fields import canonical_name, inline_value, line_fields
from anthology.query.rows import Budget
from anthology.query.values import Date, Duration, Link


def _link(target: str, display: str | None, sub: str | None, embed: bool) -> Link:
    return Link(target, display, None, sub, embed)


@pytest.mark.parametrize(("raw", "expected"), [
    ("5", 5), ("2.5", 2.5), ("-3", -3), ("true", True), ("False", False), ("TRUE", "TRUE"),
    ("2021-04-18", Date(dt.datetime(2021, 4, 18), False)),
    ("2021-04-18T10:30", Date(dt.datetime(2021, 4, 18, 10, 30), True)),
    ("2021-04", Date(dt.datetime(2021, 4, 1), False)),
    ("2024-02-30", "2024-02-30"),  # no such day: the text it is
    ("3 days", Duration(0, 3 * 86_400_000)), ("1h30m", Duration(0, 5_400_000)),
    ("2 months", Duration(2, 0)),
    ("[[Some Page]]", Link("Some Page", None, None)),
    ("![[cover.png]]", Link("cover.png", None, None, None, True)),
    ("[[Page#Part|shown]]", Link("Page", "shown", None, "Part")),
    ('"quoted, text"', "quoted, text"), ("#tag", "#tag"), ("null", None), ("", None),
    ("1, 2, 3", [1, 2, 3]),
    ("[[A]], [[B]]", [Link("A", None, None), Link("B", None, None)]),
    ("hello, world", "hello, world"), ("5 min read", "5 min read"), ("5kg", "5kg"),
    ("It was decent.", "It was decent."),
])  # fmt: skip
def test_inline_values_typed(raw: str, expected: Any) -> None:
    assert inline_value(raw, _link) == expected


@pytest.mark.parametrize(("name", "alias"), [
    ("Due Date", "due-date"), ("Hello!", "hello"), ("this is a field", "this-is-a-field"),
    ("Rating", "rating"), ("🎯 Goal", "🎯-goal"), ("Time_Spent", "time_spent"),
])  # fmt: skip
def test_dashed_aliases(name: str, alias: str) -> None:
    assert canonical_name(name) == alias


def test_fields_of_a_line() -> None:
    assert line_fields("Read [due:: 2022-08-13] and (prio:: high) now", task=False) == [
        ("due", "2022-08-13"), ("prio", "high")]  # fmt: skip
    assert line_fields("see [ref:: [[A]]] (x:: (nested) y)", task=False) == [
        ("ref", "[[A]]"), ("x", "(nested) y")]  # fmt: skip
    assert line_fields("task 📅 2022-01-01 ✅ 2022-01-02 ➕ 2021-12-30", task=True) == [
        ("due", "2022-01-01"), ("completion", "2022-01-02"), ("created", "2021-12-30")]  # fmt: skip
    assert line_fields("not a task 📅 2022-01-01", task=False) == []
    assert line_fields("[not a field] (nor: this)", task=False) == []
    long_line = "[" * 100_000 + "[a:: b]"
    assert line_fields(long_line, task=False) == []  # past Dataview's limit of a line


NOTES = dataset([
    Note("Books/Dune.md", tags=["book/scifi", "favourite"],
         props={"rating": 5, "aliases": ["Dune (novel)"], "started": "2021-01-03",
                "file": "not the file"},
         fields={"rating": ["4"], "Review Date": ["2021-02-01"]},
         links=["Herbert", "cover.png", "Nowhere"]),
    Note("People/Herbert.md", links=["Dune"]),
    Note("Tasks.md", section="Today", items=(
        "- [ ] parent task ➕ 2022-01-01 🛫 2022-01-02 ⏳ 2022-01-03 #work ^blk\n"
        "    - [x] done child [[Herbert]]\n"
        "    - [-] cancelled child\n"
        "    - plain note [mood:: good]\n"
        "- [x] all done\n"
        "    - [x] also done")),
], attachments=["cover.png"])  # fmt: skip


def ev(expr: str, this: str = "Books/Dune.md") -> Any:
    return evaluate_inline(expr, NOTES, this, Budget())


def test_front_matter_and_inline_fields_merge() -> None:
    assert ev("this.rating") == [5, 4]  # front matter first, then the inline field
    assert display_text(ev("this.review-date")) == "February 01, 2021"
    assert ev('this["Review Date"]') == ev("this.review-date")
    assert ev("this.file.name") == "Dune"  # a field named "file" never hides the file
    assert ev("this.file.frontmatter.file") == "not the file"
    assert ev("typeof(this.started)") == "date"


def test_implicit_file_fields() -> None:
    assert ev("this.file.path") == "Books/Dune.md"
    assert ev("this.file.folder") == "Books"
    assert ev("this.file.ext") == "md"
    assert ev("this.file.tags") == ["#book/scifi", "#book", "#favourite"]
    assert ev("this.file.etags") == ["#book/scifi", "#favourite"]
    assert ev("this.file.aliases") == ["Dune (novel)"]
    assert [display_text(x) for x in ev("this.file.outlinks")] == ["Herbert", "cover.png",
                                                                  "Nowhere"]  # fmt: skip
    assert [display_text(x) for x in ev("this.file.inlinks")] == ["Herbert"]
    assert ev("this.file.size") == 100
    assert ev("this.file.starred") is False
    assert ev("length(this.file.lists)") == 0
    assert ev("this.file.link = [[Dune]]") is True
    assert ev("contains(this.file.inlinks, [[Herbert]])") is True


def test_tasks_and_their_fields() -> None:
    tasks = ev("this.file.tasks", "Tasks.md")
    assert [t["text"].split(" ")[0] for t in tasks] == ["parent", "done", "cancelled", "all",
                                                         "also"]  # fmt: skip
    parent = tasks[0]
    assert parent["created"] == Date(dt.datetime(2022, 1, 1), False)
    assert parent["start"] == Date(dt.datetime(2022, 1, 2), False)
    assert parent["scheduled"] == Date(dt.datetime(2022, 1, 3), False)
    assert parent["tags"] == ["#work"] and parent["blockId"] == "blk"
    assert parent["section"] == Link("Tasks.md", None, "Tasks.md", "Today")
    assert parent["link"].subpath == "^blk"
    assert [c["text"] for c in parent["children"]][-1] == "plain note [mood:: good]"
    assert parent["children"][2]["mood"] == "good" and parent["children"][2]["task"] is False
    assert parent["fullyCompleted"] is False
    cancelled = tasks[2]
    assert cancelled["status"] == "-" and cancelled["checked"] is True
    assert cancelled["completed"] is False
    assert tasks[3]["fullyCompleted"] is True and tasks[1]["parent"] == 0
    assert [display_text(x) for x in tasks[1]["outlinks"]] == ["Herbert"]
    assert ev("length(this.file.lists)", "Tasks.md") == 6
    assert ev('meta(this.file.tasks[0].section).subpath = "Today"', "Tasks.md") is True
