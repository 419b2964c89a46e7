"""The issue's bad input, as far as it applies to Bases: each gives a clear message in
place of the results (or in the one cell it spoils), within a budget of steps and time,
never a traceback and never an unbounded stall."""

from __future__ import annotations

import pytest

from anthology.query.bases import CellError, load_base, run_view
from anthology.query.expr import compile_expression
from anthology.query.rows import Budget, BudgetExceeded, Dataset, FileRow, LinkOut
from anthology.query.values import QueryError
from anthology.vault.query_rows import load_base_text


def small_dataset(n: int = 3) -> Dataset:
    rows = [FileRow(path=f"Notes/Note {i}.md", entry_id=f"Notes/Note {i}",
                    raw_properties={"n": i}) for i in range(n)]  # fmt: skip
    return Dataset(rows, lambda target, source: None)


def column(base_text: str, n: int = 3) -> list:
    result = run_view(load_base_text(base_text), small_dataset(n))
    return [r.cells[-1] for r in result.rows]


def test_a_formula_cycle_is_named_in_its_cells_and_the_rest_stands() -> None:
    cells = column(
        "formulas:\n  a: formula.b + 1\n  b: formula.a * 2\n  ok: n + 1\n"
        "views: [{type: table, order: [file.name, formula.ok, formula.a]}]"
    )
    assert all(isinstance(c, CellError) for c in cells)
    assert "formula cycle: formula.a → formula.b → formula.a" in cells[0].message
    result = run_view(
        load_base_text("formulas:\n  a: formula.a\nviews: [{order: [formula.a, n]}]"),
        small_dataset(),
    )
    assert [r.cells[1] for r in result.rows] == [0, 1, 2]
    assert any("formula cycle" in n for n in result.notices)


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|aa)*b", r"(\w+\s?)*$", "(x*){2,}"])
def test_a_catastrophic_regex_is_refused_when_the_base_is_read(pattern: str) -> None:
    with pytest.raises(QueryError, match="exponential time"):
        load_base_text(f"filters: '/{pattern}/.matches(file.name)'")


def test_a_safe_regex_still_works() -> None:
    cells = column(
        "formulas:\n  m: '/note \\d/i.matches(file.name)'\nviews: [{order: [formula.m]}]"
    )
    assert cells == [True, True, True]


def test_reduce_over_a_million_elements_is_refused_in_its_cell() -> None:
    cells = column(
        'formulas:\n  r: \'"x".repeat(1000000).split("").reduce(acc + 1, 0)\'\n'
        "views: [{order: [formula.r]}]",
        n=1,
    )
    assert isinstance(cells[0], CellError)
    assert "a list of more than 100,000 elements" in cells[0].message


def test_large_reductions_on_every_row_stop_at_the_budget() -> None:
    base = load_base(
        {"formulas": {"r": '"x".repeat(90000).split("").reduce(acc + 1, 0)'},
         "views": [{"order": ["formula.r"]}]}
    )  # fmt: skip
    budget = Budget(max_steps=500_000)
    with pytest.raises(BudgetExceeded, match="500,000 steps"):
        run_view(base, small_dataset(50), budget=budget)
    assert budget.steps < 500_000 + 100_000  # stopped within a split's worth of steps


def test_a_filter_comparing_every_pair_of_notes_stops_at_the_budget() -> None:
    """Every note is asked about every note linking to the hub: n² steps."""
    n = 1500
    hub = FileRow(path="Hub.md", entry_id="Hub")
    rows = [hub] + [
        FileRow(path=f"N{i}.md", entry_id=f"N{i}", links=[LinkOut("Hub", "Hub.md", False)])
        for i in range(n)
    ]
    data = Dataset(rows, lambda target, source: None)
    base = load_base({"filters": "this.file.backlinks.filter(value.asFile().hasLink(file))"
                                 ".length > 0"})  # fmt: skip
    budget = Budget(max_steps=300_000)
    with pytest.raises(BudgetExceeded, match="every note compared with every other"):
        run_view(base, data, this=hub, budget=budget)
    assert budget.steps < 300_000 + 4096 + 2 * n  # checked every 4,096 steps


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('file.name == "abc', 'unterminated string (no closing ") at column 14'),
        ("file.name == 'abc", "unterminated string (no closing ') at column 14"),
        ("(price > 1", "expected “)” but found the end at column 11"),
        ("price > 1)", "unexpected “)” at column 10"),
        ('link("a", "b"', "expected “,” or “)” but found the end"),
        ("[1, 2", "expected “,” or “]”"),
        ("foo(1)", "unknown function “foo()”"),
        ("file.name.frobnicate()", "unknown function “frobnicate()”"),
        ("price >", "the expression ends too soon"),
        ("a # b", "unexpected character “#”"),
        ("(" * 500 + "1" + ")" * 500, "nests deeper than 64 levels"),
        ("!" * 500 + "1", "nests deeper than 64 levels"),
        ("x" * 20_000, "an expression of 20,000 characters"),
    ],
)
def test_bad_expressions_say_what_and_where(text: str, message: str) -> None:
    with pytest.raises(QueryError) as err:
        compile_expression(text)
    assert message in str(err.value)
    with pytest.raises(QueryError) as err:  # the same, from a base's filters
        load_base({"filters": {"and": [text]}})
    assert message in str(err.value)


def test_an_unknown_function_in_one_formula_spoils_only_its_column() -> None:
    result = run_view(
        load_base_text("formulas:\n  bad: nosuch(n)\nviews: [{order: [n, formula.bad]}]"),
        small_dataset(),
    )
    assert [r.cells[0] for r in result.rows] == [0, 1, 2]
    assert all("unknown function “nosuch()”" in r.cells[1].message for r in result.rows)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("filters: [unclosed\n", "the base is not valid YAML"),
        ("views:\n  - type: table\n   name: bad indent\n", "the base is not valid YAML"),
        ("just some words", "not a set of keys"),
        ("- a\n- b\n", "the base is a list, not a set of keys"),
        ("views: 3", "views must be a list"),
        ("filters: {xor: [a]}", "a filter group holds one of and, or, not"),
        ("views: [{type: table, name: V}]\nformulas: [a, b]", "formulas must be a set"),
    ],
)
def test_a_base_that_is_not_a_base(text: str, message: str) -> None:
    with pytest.raises(QueryError) as err:
        load_base_text(text)
    assert message in str(err.value)


def test_a_billion_laughs_is_refused() -> None:
    levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        levels.append(f"{name}: &{name} [{','.join(['*' + prev] * 9)}]")
    with pytest.raises(QueryError, match="alias bomb"):
        load_base_text("\n".join(levels) + "\nviews: [{type: table}]\n")


def test_an_impossible_date() -> None:
    cells = column('formulas:\n  d: date("2024-02-30")\nviews: [{order: [formula.d]}]', n=1)
    assert isinstance(cells[0], CellError)
    assert "invalid date “2024-02-30”: day is out of range for month" in cells[0].message
    # as a property, the text stays text (the index keeps YAML's dates as text)
    rows = [FileRow(path="a.md", entry_id="a", raw_properties={"due": "2024-02-30"})]
    result = run_view(load_base({"views": [{"order": ["due"]}]}),
                      Dataset(rows, lambda t, s: None))  # fmt: skip
    assert result.rows[0].cells == ["2024-02-30"]


def test_an_unknown_view_and_an_unknown_summary() -> None:
    base = load_base({"views": [{"name": "One", "order": ["n"], "summaries": {"n": "Mode"}}]})
    with pytest.raises(QueryError, match="no view named “Two” \\(its views: “One”\\)"):
        run_view(base, small_dataset(), "Two")
    result = run_view(base, small_dataset(), "one")  # a view's name, in any case
    assert result.summaries["note.n"] == CellError("unknown summary “Mode”")
