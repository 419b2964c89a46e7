"""Bases over a real-shaped vault (tests/vaults/bases/): the help page's example base
(*Bases syntax*, verbatim) and kepano's public bases (MIT), each expected result worked out
by hand from the notes and the help's rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anthology.query.bases import ViewResult, resort, run_view
from anthology.query.values import Date, display
from anthology.vault.index import VaultIndex
from anthology.vault.query_rows import dataset, load_base_text

BASES_VAULT = Path(__file__).resolve().parents[1] / "vaults" / "bases"


def view(index: VaultIndex, base: str, name: str | None = None, this: str | None = None
         ) -> ViewResult:  # fmt: skip
    data = dataset(index)
    parsed = load_base_text((BASES_VAULT / "Bases" / f"{base}.base").read_text("utf-8"))
    row = data.by_path[this] if this else data.by_path[f"Bases/{base}.base"]
    return run_view(parsed, data, name, this=row)


def names(result: ViewResult) -> list[str]:
    return [r.file.basename for r in result.rows]


def cells(result: ViewResult) -> list[list[str]]:
    return [[display(c) for c in r.cells] for r in result.rows]


def test_the_help_pages_example_base(bases_index: VaultIndex) -> None:
    """Global filter: #tag, or #book linking to Textbook (Dune), or neither #book nor in
    Required Reading. View: status not "done" and (ppu > 5 or price > 2.1): Chair (3 / 6 =
    "0.50", price 3) and Lamp (30 / 4 = "7.50"); Mug is done, Pen costs 1 at ppu 1.00.
    Grouped by age, descending; ppu averaged: (0.5 + 7.5) / 2 = 4."""
    result = view(bases_index, "Syntax example", "My table")
    assert [c.label for c in result.columns] == ["file name", "Extension", "age", "ppu", "Price"]
    assert [(g.label, [r.file.path for r in g.rows]) for g in result.groups] == [
        ("6", ["Things/Chair.md"]),
        ("4", ["Things/Lamp.md"]),
    ]
    assert cells(result) == [
        ["Chair.md", "md", "6", "0.50", "3.00 dollars"],
        ["Lamp.md", "md", "4", "7.50", "30.00 dollars"],
    ]
    assert result.summaries == {"formula.ppu": 4}
    assert [g.summaries["formula.ppu"] for g in result.groups] == [0.5, 7.5]
    assert result.notices == []


def test_kepano_books(bases_index: VaultIndex) -> None:
    """categories contains [[Books]] and the name has no "Template": the three books, by
    name; "Top rated" by last read, newest first."""
    books = view(bases_index, "Books")
    assert names(books) == ["Dune", "Piranesi 📚", "The Left Hand of Darkness"]
    assert [c.label for c in books.columns] == [
        "Name", "Author", "length", "Year", "rating", "topics", "last",
    ]  # fmt: skip
    assert cells(books)[0] == ["Dune.md", "Frank Herbert", "", "1965", "5", "", "2024-03-01"]
    assert isinstance(books.rows[0].cells[6], Date)
    top = view(bases_index, "Books", "Top rated")
    assert names(top) == ["Piranesi 📚", "Dune", "The Left Hand of Darkness"]


def test_kepano_books_views_by_this(bases_index: VaultIndex) -> None:
    """``list(author).contains(this)``: the books of the note that embeds the base (a list
    of links in Dune, a single link in The Left Hand of Darkness)."""
    herbert = view(bases_index, "Books", "Author", this="People/Frank Herbert.md")
    assert names(herbert) == ["Dune"]
    le_guin = view(bases_index, "Books", "Author", this="People/Ursula K. Le Guin.md")
    assert names(le_guin) == ["The Left Hand of Darkness"]
    scifi = view(bases_index, "Books", "Genre", this="Genres/Science fiction.md")
    assert names(scifi) == ["Dune", "The Left Hand of Darkness"]


def test_kepano_ratings_with_the_older_sort_key(bases_index: VaultIndex) -> None:
    """``sort: - column: note.last`` (the older spelling): rating > 0, latest first; the
    "Recent" view keeps what was read in the last 60 days (none of these)."""
    ratings = view(bases_index, "Ratings")
    assert names(ratings) == ["Piranesi 📚", "Dune", "The Left Hand of Darkness"]
    assert ratings.columns[0].width == 238  # columnSize
    assert view(bases_index, "Ratings", "Recent").rows == []


def test_kepano_map_is_shown_as_a_table_saying_so(bases_index: VaultIndex) -> None:
    result = view(bases_index, "Map")
    assert result.layout == "table" and result.type == "map"
    assert any("“map” view is shown as a table" in n for n in result.notices)
    assert result.rows == []  # no note has the category Places


def test_kepano_related(bases_index: VaultIndex) -> None:
    """From Dune: the notes it links to (Textbook, Books, Frank Herbert, Science fiction)
    and those linking to it (The Left Hand of Darkness, Reading log, Frank Herbert)."""
    result = view(bases_index, "Related", this="Books/Dune.md")
    assert sorted(names(result)) == sorted([
        "Textbook", "Books", "Frank Herbert", "Science fiction", "The Left Hand of Darkness",
        "Reading log",
    ])  # fmt: skip


def test_file_fields_and_functions(bases_index: VaultIndex) -> None:
    data = dataset(bases_index)
    base = load_base_text(
        "formulas:\n"
        "  tags: file.tags\n"
        "  folder: file.folder\n"
        "  back: file.backlinks.length\n"
        "  ext: file.ext\n"
        "  size: file.size > 0\n"
        "views:\n"
        "  - type: table\n"
        '    filters: \'file.inFolder("Books") && file.hasTag("book")\'\n'
        "    order: [file.name, formula.tags, formula.folder, formula.back, formula.ext,"
        " formula.size]\n"
        "    sort: [{property: file.name, direction: DESC}]\n"
    )
    result = run_view(base, data)
    assert cells(result) == [
        ["The Left Hand of Darkness.md", "book, classic", "Books", "1", "md", "true"],
        ["Piranesi 📚.md", "book, book/fiction", "Books", "1", "md", "true"],
        ["Dune.md", "book", "Books", "3", "md", "true"],
    ]


def test_attachments_are_rows_too(bases_index: VaultIndex) -> None:
    data = dataset(bases_index)
    base = load_base_text(
        "filters: 'file.ext == \"png\"'\nviews: [{type: cards, image: file.file}]"
    )
    result = run_view(base, data)
    assert [r.file.path for r in result.rows] == ["Attachments/cover.png"]
    assert result.layout == "cards"
    assert display(result.rows[0].cells[0]) == "cover.png"


def test_summaries_builtin_and_custom(bases_index: VaultIndex) -> None:
    data = dataset(bases_index)
    base = load_base_text(
        "filters: 'price'\n"
        "summaries:\n"
        "  spread: 'values.max() - values.min()'\n"
        "views:\n"
        "  - type: table\n"
        "    order: [file.name, price, age, last, status]\n"
        "    summaries: {price: Sum, age: Median, last: Earliest, status: Unique,"
        " file.name: Filled}\n"
        "  - type: table\n"
        "    name: Custom\n"
        "    order: [price, last]\n"
        "    summaries: {price: spread, last: Range}\n"
    )
    result = run_view(base, data)
    # prices: Dune 12.5, Left Hand 9.99, Piranesi 15, Textbook 80, Chair 3, Lamp 30,
    # Mug 2, Pen 1
    assert len(result.rows) == 8
    summary: dict[str, Any] = result.summaries
    assert summary["note.price"] == 153.49
    assert summary["note.age"] == 2.5  # ages 2, 3, 1, 10, 6, 4, 1, 1
    assert display(summary["note.last"]) == "2023-11-20"
    assert summary["note.status"] == 7  # Dune and Mug are both "done"
    assert summary["file.name"] == 8
    custom = run_view(base, data, "Custom")
    assert custom.summaries["note.price"] == 79
    assert display(custom.summaries["note.last"]) == "417 days"  # 2023-11-20 → 2025-01-10


def test_a_click_on_a_header_sorts_without_evaluating_again(bases_index: VaultIndex) -> None:
    result = view(bases_index, "Books")
    by_year = resort(result, 3, descending=True)
    assert names(by_year) == ["Piranesi 📚", "The Left Hand of Darkness", "Dune"]
    assert names(result) == ["Dune", "Piranesi 📚", "The Left Hand of Darkness"]


def test_the_first_bases_spellings(bases_index: VaultIndex) -> None:
    """Files made with Obsidian 1.9's early Bases (kepano's Games.base, Shows.base): display
    names under a top-level ``display:``, and global functions that became methods."""
    data = dataset(bases_index)
    base = load_base_text(
        "filters:\n  and:\n"
        '    - contains(note.categories, link("Books"))\n'
        "    - not(empty(note.last))\n"
        '    - taggedWith(file.file, "book")\n'
        "    - '!inFolder(file.file, \"Required Reading\")'\n"
        "display:\n  file.name: Book\n  note.last: Last read\n"
        "views:\n  - type: table\n    order: [file.name, last]\n"
    )
    result = run_view(base, data)
    assert [c.label for c in result.columns] == ["Book", "Last read"]
    assert names(result) == ["Dune", "Piranesi 📚", "The Left Hand of Darkness"]
    assert result.notices == []
