"""DQL answered from a real index: tests/vaults/bases/ indexed into SQLite, its rows read
by :func:`anthology.vault.query_rows.dataset` (never the notes again), a query run over
them as a page of the vault would run it."""

from __future__ import annotations

from anthology.query.dataview import display_text, evaluate_inline, parse_query, run_query
from anthology.query.dataview.result import DqlResult
from anthology.query.rows import Budget
from anthology.vault.index import VaultIndex
from anthology.vault.query_rows import dataset


def run(index: VaultIndex, text: str) -> DqlResult:
    return run_query(parse_query(text), dataset(index), this_path="Notes/Reading log.md",
                     budget=Budget())  # fmt: skip


def shown(result: DqlResult) -> list[list[str]]:
    return [[display_text(v) for v in row] for row in result.rows]


def test_a_table_of_books(bases_index: VaultIndex) -> None:
    result = run(bases_index, "TABLE year, rating, author FROM #book SORT year DESC")
    assert shown(result) == [
        ["Piranesi 📚", "2020", "5", "Susanna Clarke"],
        ["The Left Hand of Darkness", "1969", "4", "Ursula K. Le Guin"],
        ["Dune", "1965", "5", "Frank Herbert"],
        ["Textbook", "-", "-", "-"],
    ]
    # the id column links to the note, by its vault path
    assert result.rows[0][0].path == "Books/Piranesi 📚.md"


def test_links_in_and_out(bases_index: VaultIndex) -> None:
    linking = run(bases_index, "LIST FROM [[Dune]]")
    assert sorted(display_text(r[0]) for r in linking.rows) == [
        "Frank Herbert", "Reading log", "The Left Hand of Darkness"]  # fmt: skip
    # the embedded picture is no page: outgoing() lists the notes
    out = run(bases_index, "LIST FROM outgoing([[]])")
    assert sorted(display_text(r[0]) for r in out.rows) == ["Dune", "Piranesi 📚"]


def test_tags_folders_and_dates(bases_index: VaultIndex) -> None:
    result = run(bases_index, 'TABLE file.etags FROM "Books" AND #book/fiction')
    assert shown(result) == [["Piranesi 📚", "#book, #book/fiction"]]
    result = run(bases_index, "TABLE last + dur(1 month) AS next\nWHERE last\nSORT last")
    assert shown(result) == [["The Left Hand of Darkness", "December 20, 2023"],
                             ["Dune", "April 01, 2024"],
                             ["Piranesi 📚", "February 10, 2025"]]  # fmt: skip


def test_grouped_by_a_property(bases_index: VaultIndex) -> None:
    result = run(bases_index, "LIST rows.file.name\nFROM #book\nGROUP BY status")
    assert [(display_text(k), display_text(v)) for k, v in result.rows] == [
        ("assigned", "Textbook"), ("done", "Dune"), ("reading", "The Left Hand of Darkness"),
        ("to read", "Piranesi 📚")]  # fmt: skip


def test_inline_query_of_the_page(bases_index: VaultIndex) -> None:
    data = dataset(bases_index)
    assert (
        evaluate_inline("this.file.name", data, "Notes/Reading log.md", Budget()) == "Reading log"
    )
    assert evaluate_inline("[[Dune]].rating * 2", data, "Notes/Reading log.md", Budget()) == 10
