"""Bad DQL input: each gets a :class:`QueryError` with a message a person can act on (the
line and column where the parser can tell), never a traceback, and work without end is
stopped by the query's budget."""

from __future__ import annotations

import random

import pytest
from dv_vault import Note, dataset

from anthology.query.dataview import evaluate_inline, parse_query, run_query
from anthology.query.dataview.result import DqlResult
from anthology.query.rows import Budget, BudgetExceeded
from anthology.query.values import QueryError

DS = dataset([Note(f"n{i}.md", props={"n": i % 7, "when": "2024-02-30"}) for i in range(40)])


def run(text: str, budget: Budget | None = None) -> DqlResult:
    return run_query(parse_query(text), DS, this_path="n0.md", budget=budget or Budget())


def test_a_query_of_100_kb_is_refused_before_it_is_parsed() -> None:
    text = "LIST WHERE " + " or ".join(f'file.name = "n{i}"' for i in range(8000))
    assert len(text) > 100_000
    with pytest.raises(QueryError, match="too long"):
        parse_query(text)


@pytest.mark.parametrize(("text", "message"), [
    ('TABLE "abc', r"line 1, column 7: .*closing"),
    ('LIST\nWHERE file.name = "abc', r"line 2, column 19: .*closing"),
    ("LIST\nWHERE (n = 1", r"line 2, column 13: expected .*“\)”"),
    ("LIST\nWHERE n = 1)", r"line 2, column 12: expected"),
    ("TABLE [1, 2", r"line 1, column 12: expected “,” or “\]”"),
    ("TABLE {a: 1", r"expected “,” or “}”"),
    ("LIST WHERE", r"expected"),
    ("SELECT * FROM x", r"line 1, column 1: expected TABLE, LIST, TASK or CALENDAR"),
    ("LIST\nFROM #a\nFROM #b", r"line 3: FROM must come once"),
    ("LIST\nSORT", r"line 2, column 5"),
    ("LIST FROM outgoing(Dashboard)", r"expected a \[\[link\]\]"),
    ("LIST FROM csv(\"x.csv\")", r"csv\(\) sources are not supported"),
    ("", r"expected TABLE, LIST, TASK or CALENDAR"),
])  # fmt: skip
def test_syntax_errors_say_where(text: str, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        parse_query(text)


def test_deep_nesting_is_refused_not_a_recursion_error() -> None:
    with pytest.raises(QueryError, match="nests deeper"):
        parse_query("LIST WHERE " + "(" * 5000 + "1" + ")" * 5000)
    with pytest.raises(QueryError, match="nests deeper"):
        parse_query("LIST WHERE " + "!" * 5000 + "true")
    with pytest.raises(QueryError, match="nests deeper"):
        evaluate_inline("[" * 3000 + "]" * 3000, DS, None, Budget())


def test_unknown_functions_get_dataviews_message() -> None:
    with pytest.raises(QueryError, match="Unrecognized function name 'frobnicate'"):
        parse_query("TABLE frobnicate(file.name)")
    with pytest.raises(QueryError, match="Unrecognized function name 'nope'"):
        evaluate_inline("1 + nope(2)", DS, None, Budget())


def test_a_regex_that_backtracks_catastrophically_is_refused() -> None:
    with pytest.raises(QueryError, match="exponential time"):
        evaluate_inline('regextest("(a+)+$", "' + "a" * 40 + 'b")', DS, None, Budget())
    with pytest.raises(QueryError, match="Every row during operation 'where' failed"):
        run('LIST\nWHERE regexmatch("(x|xx)+y", file.name)')


def test_reduce_over_a_million_elements_is_stopped() -> None:
    with pytest.raises(QueryError, match="a list of more than 100,000 elements"):
        evaluate_inline(
            'reduce(flat(map(split(padleft("", 1000, "x"), ""), '
            '(a) => split(padleft("", 1000, "y"), ""))), "+")',
            DS,
            None,
            Budget(),
        )
    # within the size cap, the steps budget stops it
    with pytest.raises(BudgetExceeded, match="stopped after"):
        evaluate_inline('reduce(split(padleft("", 90000, "1"), ""), (a, b) => a + b)', DS, None,
                        Budget(max_steps=20_000))  # fmt: skip


def test_a_filter_comparing_every_pair_of_notes_is_stopped() -> None:
    big = dataset([Note(f"p{i}.md", props={"n": i % 13}) for i in range(1500)])
    text = ("LIST WITHOUT ID length(filter(rows, (a) => length(filter(rows, (b) => a.n = b.n)) "
            "> 1))\nGROUP BY true")  # fmt: skip
    with pytest.raises(BudgetExceeded, match="stopped after"):
        run_query(parse_query(text), big, this_path=None, budget=Budget(max_steps=200_000))
    cancelled = Budget(cancelled=lambda: True)
    with pytest.raises(BudgetExceeded, match="cancelled"):
        run_query(parse_query(text), big, this_path=None, budget=cancelled)


def test_an_impossible_date() -> None:
    with pytest.raises(QueryError, match=r"line 2, column 7: “2024-02-30” is not a date: day is "
                                         "out of range for month"):  # fmt: skip
        parse_query("LIST\nWHERE date(2024-02-30) < file.ctime")
    # Dataview's date("…") answers null for text that is no date, and a field written so
    # stays the text it is
    assert evaluate_inline('date("2024-02-30")', DS, None, Budget()) is None
    assert evaluate_inline("typeof(this.when)", DS, "n0.md", Budget()) == "string"


def test_texts_built_over_and_over_are_charged_to_the_budget() -> None:
    """A hundred thousand texts of a million characters would fill the memory: their size
    counts as steps, so the budget stops the query after a few."""
    text = 'join(map(split(padleft("", 90000, "x"), ""), (c) => padleft(c, 1000000, "y")))'
    with pytest.raises(BudgetExceeded, match="stopped after"):
        evaluate_inline(text, DS, None, Budget(max_steps=5_000_000))


def test_long_chains_of_operators_run() -> None:
    """A generated query of thousands of ``or`` is evaluated as a loop, not a recursion."""
    names = " or ".join(f'file.name = "n{i}"' for i in range(0, 3000, 3))
    result = run(f"LIST WHERE {names}")
    assert result.total == 14
    assert evaluate_inline("+".join(["1"] * 20_000), DS, None, Budget()) == 20_000


def test_limit_must_be_a_number() -> None:
    with pytest.raises(QueryError, match="limit should be a number, but got 'string'"):
        run('LIST LIMIT "ten"')


def test_huge_texts_are_capped() -> None:
    with pytest.raises(QueryError, match="a text of more than"):
        evaluate_inline('"ab" * 10000000', DS, None, Budget())
    with pytest.raises(QueryError, match="a text of more than"):
        evaluate_inline('padleft("x", 50000000)', DS, None, Budget())


def test_fuzzed_queries_answer_or_refuse() -> None:
    """Pieces of real queries shuffled and cut: every one parses and runs, or is refused
    with a QueryError; nothing else escapes."""
    pieces = ['TABLE', 'LIST', 'TASK', 'CALENDAR', 'WITHOUT ID', 'FROM', '#tag', '"folder"',
              '[[n1]]', 'WHERE', 'SORT', 'GROUP BY', 'FLATTEN', 'LIMIT', 'AS', '"x"', 'n',
              'file.name', '(', ')', '[', ']', '{', '}', ',', '=', '!=', '<', '+', '-', '*',
              '/', '%', 'and', 'or', '!', '1', '2.5', 'null', 'true', 'date(today)',
              'dur(1 day)', '(x) => x', 'contains(', 'map(', 'rows', '.', '"', '\n', '//',
              'length(', 'this', 'row["n"]', 'desc', 'file.tasks', 'sum(']  # fmt: skip
    rng = random.Random(33)
    answered = refused = 0
    for _ in range(400):
        text = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        try:
            run(text, Budget(max_steps=200_000))
            answered += 1
        except QueryError:
            refused += 1
    assert answered > 0 and refused > 0


def test_fuzzed_function_calls_answer_or_refuse() -> None:
    """Every function called with values of every type (NaN and infinities too): a value
    or a QueryError, never another exception."""
    from anthology.query.dataview.functions import FUNCTIONS

    values = ["null", "0", "-1", "2.5", "0/0", "1/0", "-1/0", '"abc"', '""', '"\\\\d+"',
              '"(a"', "true", '[1, "a", null]', "[]", "{a: 1}", "date(2024-01-31)",
              "dur(1 month)", "[[n1]]", "(x) => x", "(x, y) => x + y", "this", "this.file",
              "[[1,2],[3]]", "100000000000", '"2024-02-30"']  # fmt: skip
    rng = random.Random(34)
    names = sorted(FUNCTIONS)
    answered = 0
    for _ in range(3000):
        args = ", ".join(rng.choice(values) for _ in range(rng.randint(0, 4)))
        expr = f"{rng.choice(names)}({args})"
        if rng.random() < 0.3:
            expr = f"{rng.choice(values)} {rng.choice(['+', '-', '*', '/', '%', '<'])} {expr}"
        if rng.random() < 0.2:
            expr = f"{expr}[{rng.choice(values)}]"
        try:
            evaluate_inline(expr, DS, "n0.md", Budget(max_steps=100_000))
            answered += 1
        except QueryError:
            pass
    assert answered > 300  # most random calls are refused: wrong types, as in Dataview
