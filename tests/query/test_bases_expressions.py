"""The expression language against the examples of Obsidian's help pages *Functions* and
*Bases syntax* (each expected value copied by hand from the page), and its JavaScript-like
semantics."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from anthology.query.env import Context, Env
from anthology.query.expr import compile_expression
from anthology.query.rows import Budget, Dataset
from anthology.query.values import Date, Duration, display, equals


def evaluate(text: str, **names: Any) -> Any:
    ctx = Context(Dataset([], lambda target, source: None), Budget())
    return compile_expression(text)(Env(ctx, None, names or None))


HELP_FUNCTIONS = [
    # Any type
    ("1.isTruthy()", True),
    ('"example".isType("string")', True),
    ('true.isType("boolean")', True),
    ("123.toString()", "123"),
    # String type
    ('"hello".contains("ell")', True),
    ('"hello".containsAll("h", "e")', True),
    ('"hello".containsAny("x", "y", "e")', True),
    ('"hello".endsWith("lo")', True),
    ('"Hello world".isEmpty()', False),
    ('"".isEmpty()', True),
    ('"a:b:c:d".replace(/:/, "-")', "a-b:c:d"),
    ('"a:b:c:d".replace(/:/g, "-")', "a-b-c-d"),
    (r'"John Smith".replace(/(\w+) (\w+)/, "$2, $1")', "Smith, John"),
    ('"123".repeat(2)', "123123"),
    ('"hello".reverse()', "olleh"),
    ('"hello".slice(1, 4)', "ell"),
    ('"a,b,c,d".split(",", 3)', ["a", "b", "c"]),
    ('"a,b,c,d".split(/,/, 3)', ["a", "b", "c"]),
    ('"hello".startsWith("he")', True),
    ('"hello world".title()', "Hello World"),
    ('"  hi  ".trim()', "hi"),
    # Number type
    ("(-5).abs()", 5),
    ("(2.1).ceil()", 3),
    ("(2.9).floor()", 2),
    ("5.isEmpty()", False),
    ("(2.5).round()", 3),
    ("(2.3333).round(2)", 2.33),
    ("(3.14159).toFixed(2)", "3.14"),
    # List type
    ("[1,2,3].contains(2)", True),
    ("[1,2,3].containsAll(2,3)", True),
    ("[1,2,3].containsAny(3,4)", True),
    ("[1,2,3,4].filter(value > 2)", [3, 4]),
    ("[1,[2,3]].flat()", [1, 2, 3]),
    ("[1,2,3].isEmpty()", False),
    ('[1,2,3].join(",")', "1,2,3"),
    ("[1,2,3,4].map(value + 1)", [2, 3, 4, 5]),
    ("[1,2,3].reduce(acc + value, 0)", 6),
    ("[1,2,3].reverse()", [3, 2, 1]),
    ("[1,2,3,4].slice(1,3)", [2, 3]),
    ("[3, 1, 2].sort()", [1, 2, 3]),
    ('["c", "a", "b"].sort()', ["a", "b", "c"]),
    ("[1,2,2,3].unique()", [1, 2, 3]),
    # Object and regular expression types
    ("{}.isEmpty()", True),
    ('/abc/.matches("abcde")', True),
    # Global
    ('list("value")', ["value"]),
    ('number("3.4")', 3.4),
    ('escapeHTML("<b>&</b>")', "&lt;b&gt;&amp;&lt;/b&gt;"),
    ('if(1 > 2, "Modified", "Unmodified")', "Unmodified"),
    ('if(false, "x")', None),
    ("max(1, 5, 3)", 5),
    ("min(4, 2, 8)", 2),
    # Bases syntax: arithmetic and booleans
    ("3 * (2 * 3.5)", 21),
    ("7 % 3", 1),
    ("!true || (1 < 2 && 2 >= 2)", True),
]


@pytest.mark.parametrize(("text", "expected"), HELP_FUNCTIONS)
def test_the_help_pages_examples(text: str, expected: Any) -> None:
    assert evaluate(text) == expected


def test_reduce_finds_the_largest_number_as_the_help_shows() -> None:
    text = (
        'values.filter(value.isType("number"))'
        ".reduce(if(acc == null || value > acc, value, acc), null)"
    )
    assert evaluate(text, values=[3, "x", 12, None, 7]) == 12
    assert evaluate(text, values=["a", "b"]) is None


def test_date_arithmetic_of_the_bases_syntax_page() -> None:
    # date("2024-12-01") + "1M" + "4h" + "3m" returns 2025-01-01 04:03:00
    d = evaluate('date("2024-12-01") + "1M" + "4h" + "3m"')
    assert isinstance(d, Date) and d.at == dt.datetime(2025, 1, 1, 4, 3)
    # a day's difference is 86400000 milliseconds
    span = evaluate('(date("2025-01-01") + "1d") - date("2025-01-01")')
    assert isinstance(span, Duration) and span.total_ms == 86_400_000
    assert evaluate('(date("2025-01-01") + "1d") - date("2025-01-01") == 86400000') is True
    assert evaluate('date("2025-05-27").format("YYYY-MM-DD")') == "2025-05-27"
    assert evaluate('now().date().format("YYYY-MM-DD HH:mm:ss")').endswith(" 00:00:00")
    assert evaluate('date("2025-01-31") + "1M"').at == dt.datetime(2025, 2, 28)  # a month
    assert evaluate("duration('5h') * 2").total_ms == 10 * 3_600_000
    assert evaluate('date("2025-03-04 05:06:07").hour') == 5
    assert evaluate('today() + "7d" > now()') is True
    assert evaluate('(now() - "1 week") < now()') is True


def test_moment_format_tokens() -> None:
    d = 'date("2025-01-02 15:04:05")'
    assert evaluate(f'{d}.format("dddd, MMMM Do YYYY, h:mm:ss a")') == (
        "Thursday, January 2nd 2025, 3:04:05 pm"
    )
    assert evaluate(f'{d}.format("[Week] W, ddd D MMM YY")') == "Week 1, Thu 2 Jan 25"
    assert evaluate(f"{d}.time()") == "15:04:05"


def test_relative_dates_read_as_moment_writes_them() -> None:
    assert evaluate('(now() - "3d").relative()') == "3 days ago"
    assert evaluate('(now() + "2h").relative()') == "in 2 hours"
    assert evaluate('(now() - "1y").relative()') == "a year ago"


def test_javascript_semantics() -> None:
    assert evaluate('"1" == 1') is True  # loose equality
    assert evaluate('1 + "2"') == "12"  # a string makes + a concatenation
    assert evaluate('"3" * "4"') == 12
    assert display(evaluate("1 / 0")) == "Infinity"
    assert display(evaluate("0.1 + 0.2")) == "0.30000000000000004"
    assert evaluate("null == null") is True and evaluate("null == 0") is False
    assert evaluate('"b" > "a"') is True and evaluate('"10" < 9') is False
    assert evaluate('"" || "fallback"') == "fallback"
    assert evaluate("0 && 1") == 0
    assert evaluate("[1, [2]] == [1, [2]]") is True  # Bases compares lists by their elements
    assert evaluate("[].isTruthy()") is False  # an empty list is empty, as Bases treats it
    assert evaluate('{"a": {"b": 2}}.a.b') == 2
    assert evaluate('{"a": 1}["a"]') == 1
    assert evaluate("[10, 20, 30][1]") == 20 and evaluate("[10][5]") is None
    assert evaluate('"abc".length') == 3


def test_links_compare_by_the_file_they_name() -> None:
    rows: list = []
    paths = {"Books": "Categories/Books.md"}
    ctx = Context(Dataset(rows, lambda target, source: paths.get(target)), Budget())
    env = Env(ctx, None)
    assert compile_expression('link("Books") == link("[[Books]]")')(env) is True
    assert compile_expression('link("Books", "shown").toString()')(env) == "shown"
    assert compile_expression('link("Nowhere") == link("nowhere")')(env) is False
    assert equals(compile_expression('link("Books")')(env), "Categories/Books.md")
