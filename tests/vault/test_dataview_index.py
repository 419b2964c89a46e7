"""Dataview's inline fields and list items, as the index keeps them and the reader sees them.

The vault is shaped like a real one (folders, spaces and emoji in names, no id or kind);
each expected key and value is written by hand from Dataview's docs
(docs/annotation/add-metadata.md, metadata-tasks.md): the table under "Field names" and the
examples above it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from anthology.graph.model import match_nodes
from anthology.query.inline_fields import canonical_key, extract_inline_fields, full_line_field
from anthology.query.rows import ListItem
from anthology.vault.index import VaultIndex
from anthology.vault.list_items import MAX_ITEMS
from anthology.vault.parse import parse_entry
from anthology.vault.query_rows import dataset
from anthology.vault.render import render_entry

DUNE = """\
---
tags: [book]
author: Frank Herbert
note: "a:: b in the front matter is no field"
---
# Dune

Basic Field:: Some random Value
**Bold Field**:: Nice!
I would rate this a [rating:: 9]! It was [mood:: acceptable].
This will not show the (longKeyIDontNeedWhenReading:: key).
Key With Space:: x
Related:: [[Children of Dune]]

## Usage of emojis and non-latin characters

Noël:: Un jeu de console
クリスマス:: 家庭用ゲーム機
[🎅:: a console game]
[xmas🎄:: a console game]

- [ ] Send an mail to David about the deadline [due:: 2022-04-05].
"""

CODE = """\
Shown:: yes

```yaml
hidden:: fenced
```

~~~
tilde:: fenced
~~~

Some `inline:: code` text and [also:: `code` value].

    indented:: code

$$
math:: display
$$

A formula $x:: y$ inline.

%% commented:: counts %%
"""

TASKS = """\
# Morning

- [ ] top task
    - [x] done subtask ✅ 2024-05-01
    - [-] cancelled
- plain item [topic:: planning]
  - [/] in progress under a plain item
    that goes on here
1. first
2. second
   1) [ ] numbered task

## Evening
> [!todo] Callout tasks
> - [ ] in a callout
>   - [>] deferred in a callout

```
- [ ] a task in a code block is none
```
"""


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "My vault"
    files = {
        "Reading/Books 📚/Dune.md": DUNE,
        "Reading/Books 📚/Children of Dune.md": "# Children of Dune\n\nA sequel.\n",
        "Projects/Ideas & notes/code fields.md": CODE,
        "Daily notes/2024-05-01 ✅ plan.md": TASKS,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def index(vault: Path, tmp_path: Path):
    ix = VaultIndex.open(vault, tmp_path / "index.sqlite")
    yield ix
    ix.close()


def _row(ix: VaultIndex, path: str):
    return dataset(ix).by_path[path]


def test_every_inline_field_form_of_the_docs_is_a_page_field(index: VaultIndex) -> None:
    fields = _row(index, "Reading/Books 📚/Dune.md").inline_fields()
    assert fields == {
        "Basic Field": ["Some random Value"],
        "Bold Field": ["Nice!"],  # the ** of the key dropped
        "rating": ["9"],
        "mood": ["acceptable"],
        "longKeyIDontNeedWhenReading": ["key"],
        "Key With Space": ["x"],
        "Related": ["[[Children of Dune]]"],
        "Noël": ["Un jeu de console"],
        "クリスマス": ["家庭用ゲーム機"],
        "🎅": ["a console game"],
        "xmas🎄": ["a console game"],
    }  # the task's [due:: …] is the task's, not the page's; the front matter holds none
    assert canonical_key("Basic Field") == "basic-field"
    assert canonical_key("longKeyIDontNeedWhenReading") == "longkeyidontneedwhenreading"


def test_fields_in_code_and_math_are_ignored_in_comments_kept(index: VaultIndex) -> None:
    fields = _row(index, "Projects/Ideas & notes/code fields.md").inline_fields()
    # "%% commented:: counts %%" is a full-line field to Dataview: its key's leading "%% "
    # is punctuation it drops, the value is the rest of the line
    assert fields == {"Shown": ["yes"], "also": ["`code` value"], "commented": ["counts %%"]}


def test_list_items_nest_and_tasks_keep_their_checkbox(index: VaultIndex) -> None:
    items = _row(index, "Daily notes/2024-05-01 ✅ plan.md").list_items()
    assert items == [
        ListItem(2, "top task", " ", None, "Morning", "-", 1),
        ListItem(3, "done subtask ✅ 2024-05-01", "x", 2, "Morning", "-", 1),
        ListItem(4, "cancelled", "-", 2, "Morning", "-", 1),
        ListItem(5, "plain item [topic:: planning]", None, None, "Morning", "-", 1),
        ListItem(6, "in progress under a plain item\nthat goes on here", "/", 5, "Morning", "-", 2),
        ListItem(8, "first", None, None, "Morning", "1.", 1),
        ListItem(9, "second", None, None, "Morning", "2.", 1),
        ListItem(10, "numbered task", " ", 9, "Morning", "1)", 1),
        ListItem(14, "in a callout", " ", None, "Evening", "-", 1),
        ListItem(15, "deferred in a callout", ">", 14, "Evening", "-", 1),
    ]
    assert [i.task for i in items].count(True) == 7
    # a plain item's field is the page's too (Dataview's rule); a task's date is not
    assert _row(index, "Daily notes/2024-05-01 ✅ plan.md").inline_fields() == {
        "topic": ["planning"]
    }


def test_lines_count_from_the_top_of_the_file(index: VaultIndex) -> None:
    (task,) = _row(index, "Reading/Books 📚/Dune.md").list_items()
    assert task.line == 21  # 0-based: the front matter's five lines included
    assert task.text == "Send an mail to David about the deadline [due:: 2022-04-05]."
    assert [(f.key, f.value) for f in extract_inline_fields(task.text, task_fields=True)] == [
        ("due", "2022-04-05")
    ]


def test_the_properties_box_shows_inline_fields_as_a_group(index: VaultIndex) -> None:
    entry = index.entry("Reading/Books 📚/Dune")
    assert entry is not None
    html = render_entry(entry, index, vault_root=index.root).html
    box = html[html.index('class="properties"') :]
    box = box[: box.index("</table></td></tr></table>")]
    text = re.sub(r"<[^>]+>", "|", box)
    assert "Inline fields" in text
    assert text.index("Tags") < text.index("Inline fields") < text.index("Basic Field")
    for label, value in [("Rating", "9"), ("Bold Field", "Nice!"), ("Key With Space", "x")]:
        assert re.search(re.escape(label) + r"\|+" + re.escape(value), text), label
    # a [[link]] in a value links to its note
    assert re.search(r'<a class="internal" href="[^"]*Children[^"]*"[^>]*>Children of Dune', box)
    # the count beside "Properties" counts rows, not the group's heading: tags, note and
    # 11 fields (author is the byline's)
    assert re.search(r'class="count"[^>]*>13<', box)


def test_search_and_the_graph_find_inline_fields(index: VaultIndex) -> None:
    def found(q: str) -> list[str]:
        return sorted(h.entry.path for h in index.search(q))

    dune = ["Reading/Books 📚/Dune.md"]
    assert found("[rating:9]") == dune
    assert found("[Rating:9]") == dune
    assert found("[key-with-space:x]") == dune  # Dataview's lower-case dashed alias
    assert found("[Key With Space]") == dune
    assert found("[rating:8]") == []
    assert found("[due:2022-04-05]") == []  # a task's field, not the page's
    assert found("[topic:planning]") == ["Daily notes/2024-05-01 ✅ plan.md"]
    assert "Reading/Books 📚/Dune.md" not in found("-[rating] dune children sequel")
    graph = index.graph()
    assert [graph.ids[i] for i in match_nodes(graph, "[key-with-space:x]")] == [
        "Reading/Books 📚/Dune"
    ]


def test_a_field_with_a_link_is_no_typed_relation(index: VaultIndex) -> None:
    """Decided: an inline field's [[link]] stays an untyped mention (the graph does not
    change under a reader who installs Dataview); the Properties box links it."""
    entry = index.entry("Reading/Books 📚/Dune")
    assert entry is not None and entry.relations == []
    links = [lk for lk in index.outgoing("Reading/Books 📚/Dune") if lk.text == "Children of Dune"]
    assert [lk.relation for lk in links] == [None]


def test_an_edited_note_updates_its_fields(index: VaultIndex, vault: Path) -> None:
    note = vault / "Reading/Books 📚/Dune.md"
    note.write_text(DUNE.replace("[rating:: 9]", "[rating:: 10]"), encoding="utf-8")
    index.refresh()
    assert _row(index, "Reading/Books 📚/Dune.md").inline_fields()["rating"] == ["10"]
    assert [h.entry.path for h in index.search("[rating:10]")] == ["Reading/Books 📚/Dune.md"]


# -- the syntax, line by line (Dataview's own cases) ----------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[a:: [b] c] and (d:: (e) f)", [("a", "[b] c"), ("d", "(e) f")]),  # nesting
        ("[x:: a \\] b]", [("x", "a \\] b")]),  # an escaped bracket
        ("[a:: (b:: c)]", [("a", "(b:: c)")]),  # a field inside a field: the outer one
        ("[a:: 1] [b:: 2]", [("a", "1"), ("b", "2")]),
        ("[a:: 1][b:: 2]", [("a", "1")]),  # touching the last one: Dataview drops it
        ("[k]ey:: v]", []),  # a key holds no bracket
        ("[k[ey:: v]", [("ey", "v")]),  # (but a bracket inside may start a field)
        ("text [a:: 1 and [b:: 2]", [("b", "2")]),  # a is never closed
        ("📅 2024-05-01 ✅2024-05-02", [("due", "2024-05-01"), ("completion", "2024-05-02")]),
    ],
)
def test_bracketed_fields(line: str, expected: list[tuple[str, str]]) -> None:
    found = extract_inline_fields(line, task_fields=True)
    assert [(f.key, f.value) for f in found] == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Basic Field:: Some random Value", ("Basic Field", "Some random Value")),
        ("**Bold Field**:: Nice!", ("Bold Field", "Nice!")),
        ("~~Struck~~:: yes", ("Struck", "yes")),
        ("> Quoted:: v", ("Quoted", "v")),
        ("[key:: unclosed", ("key", "unclosed")),  # Dataview drops the "[" as punctuation
        ("Due (UTC):: 5", None),  # brackets are no key
        ("e.g. this:: no", None),
    ],
)
def test_full_line_fields(line: str, expected: tuple[str, str] | None) -> None:
    found = full_line_field(line)
    assert (None if found is None else (found.key, found.value)) == expected


# -- hostile notes: bounded, with a word about what was left out ----------------------------


def test_a_note_of_200k_list_items_keeps_the_first_ones() -> None:
    entry = parse_entry("- [ ] t [n:: 1]\n" * 200_000, "many.md", for_index=True)
    assert len(entry.items) == MAX_ITEMS
    assert entry.items[-1][0] == MAX_ITEMS - 1
    (problem,) = [p for p in entry.problems if p.kind == "dataview"]
    assert problem.severity == "warning" and "20,000" in problem.message
    assert "200,000" in problem.message


def test_a_megabyte_line_of_brackets_holds_no_field(vault: Path, tmp_path: Path) -> None:
    (vault / "Hostile.md").write_text(
        "[" * 1_000_000 + "\n[rating:: 7] [key:: \n" + "[k:: " * 6_000 + "\n", encoding="utf-8"
    )
    ix = VaultIndex.open(vault, tmp_path / "hostile.sqlite")
    try:
        fields = dataset(ix).by_path["Hostile.md"].inline_fields()
        # the unclosed "[key:: " leaves its line no field; the line of 6,000 unclosed
        # "[k:: " is, as in Dataview, one full-line field "k" (its "[" is punctuation)
        assert sorted(fields) == ["k", "rating"]
        assert fields["rating"] == ["7"] and fields["k"][0].startswith("[k:: [k:: ")
        assert [h.entry.path for h in ix.search("[rating:7]")] == ["Hostile.md"]
    finally:
        ix.close()


def test_a_note_with_windows_line_ends_reads_the_same(tmp_path: Path) -> None:
    crlf = parse_entry(TASKS.replace("\n", "\r\n") + "rating:: 9\r\n", "plan.md", for_index=True)
    lf = parse_entry(TASKS + "rating:: 9\n", "plan.md", for_index=True)
    assert crlf.items == lf.items and len(lf.items) == 10
    assert crlf.fields == lf.fields == {"topic": ["planning"], "rating": ["9"]}
    rule = parse_entry("- a\r\n---\r\n  - not nested under a\r\n", "r.md", for_index=True)
    assert [item[3] for item in rule.items] == [None, None]  # the rule closed the list
