"""Every scanner the indexer runs over a note is linear: a hostile file cannot stall `index`.

Each family is a note shaped to make a backtracking regex (or a search back to the line
start per match) retry its work at every character. Parsing it at n and at 4n characters in
the same run must take about 4× as long (quadratic work: 16×). No wall-clock limit: n grows
until the small note takes at least 20 ms, so the ratio is not noise, and each size is timed
best of three.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from math import isqrt

import pytest

from anthology.vault.parse import parse_entry

MIN_SECONDS = 0.02
MAX_RATIO = 8.0  # linear ≈ 4, quadratic ≈ 16


def _front(yaml: str) -> str:
    return f"---\n{yaml}\n---\nbody\n"


# name → (note of size about n, for_index)
FAMILIES: dict[str, tuple[Callable[[int], str], bool]] = {
    # a heading whose text is followed by a long run of blanks, or of " #"
    "heading-spaces": (lambda n: "# h" + " " * n + "x\n", True),
    "heading-space-hashes": (lambda n: "# h" + " #" * (n // 2) + "x\n", True),
    # inline code: one long unclosed run of backticks, or runs of every length
    "backtick-run": (lambda n: "x " + "`" * n + " a ` b", True),
    "backtick-runs": (lambda n: "x " + " ".join("`" * i for i in range(1, isqrt(2 * n))), True),
    # a front-matter flow list with a long run of spaces inside an item
    "flow-list-spaces": (lambda n: _front("tags: [a" + " " * n + "b, c]"), True),
    # many #tags on one long line, also after an unclosed [[ or ](
    "tags-one-line": (lambda n: "#t " * (n // 3), True),
    "tags-after-open-wikilink": (lambda n: "[[" + "#a " * (n // 3), True),
    "tags-after-open-mdlink": (lambda n: "](" + "#a " * (n // 3), True),
    "tags-in-long-token": (lambda n: "x://" + "-#a" * (n // 3), True),
    # many links on one long line: each link's context is cut from that line
    # many links on one long line: each link's context is cut from that line (sparse links
    # make searching back to the line's start per link dominate the work)
    "links-one-line": (lambda n: ("[[a]]" + "x" * 295) * (n // 300), False),
    "links-one-line-dense": (lambda n: "[[a]] " * (n // 6), False),
    # "[[" that never closes; %% and backticks interleaved; comments left open; indented
    # code after empty lines, in and out of lists (the comment/code scan, the line walk)
    "unclosed-wikilinks": (lambda n: "[[" * (n // 2), True),
    "percent-in-code": (lambda n: "`%%` %% `x` %% " * (n // 15), True),
    "comments-left-open": (lambda n: "` <!-- %%" * (n // 9), True),
    "indented-code": (lambda n: "\n\n    [[a]] #t" * (n // 16), True),
    "indented-in-lists": (lambda n: "- i\n\n    [[a]]\n" * (n // 17), True),
    # Dataview's list items and inline fields (vault/list_items.py, note_fields.py): tasks
    # past the items kept, nesting in and out, lines of unclosed fields, fields in comments
    "list-items-many": (lambda n: "- [ ] t [due:: 1] 📅 2024-01-01\n" * (n // 32), True),
    "list-items-nesting": (lambda n: "- a\n  - b\n    - [x] c\n  d\n" * (n // 26), True),
    "inline-fields-unclosed": (lambda n: ("[k:: (k:: " * 50 + "\n") * (n // 501), True),
    "inline-fields-in-comments": (lambda n: "%% a:: b %% [c:: d]\n" * (n // 20), True),
}

# One line given to Dataview's inline-field reader (query/inline_fields.py), every bracket
# a field that may open: Dataview's own loop scans to the end of the line from each one.
# (A line longer than MAX_LINE is skipped whole, so these stay under it.)
LINE_FAMILIES: dict[str, Callable[[int], str]] = {
    "field-openers-unclosed": lambda n: "[k:: " * (n // 5),
    "field-openers-mixed": lambda n: "(k:: [k:: " * (n // 10),
    "field-nested-value": lambda n: "[a:: " + "[" * (n // 2) + "]" * (n // 2 - 1),
    "field-escapes": lambda n: "[a:: " + "\\" * n + "]" + "[b:: " * 10,
    "field-brackets-then-sep": lambda n: "[" * n + ":: x]",
}


def _best(text: str, for_index: bool) -> float:
    # Python's cyclic collector off while timing: a full collection walks the whole test
    # process (its cost has nothing to do with the note) and, landing in the 4n parse, made
    # linear work look quadratic in a full suite run
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            start = time.perf_counter()
            parse_entry(text, "note.md", for_index=for_index)
            best = min(best, time.perf_counter() - start)
    finally:
        gc.enable()
    return best


def _ratio(make: Callable[[int], str], for_index: bool) -> float:
    n = 1000
    while _best(make(n), for_index) < MIN_SECONDS:
        n *= 2
    return _best(make(4 * n), for_index) / _best(make(n), for_index)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_parse_time_grows_linearly(family: str) -> None:
    make, for_index = FAMILIES[family]
    ratio = _ratio(make, for_index)
    for _ in range(2):  # a busy machine can spoil a measurement; quadratic work spoils all
        if ratio < MAX_RATIO:
            break
        ratio = min(ratio, _ratio(make, for_index))
    assert ratio < MAX_RATIO, f"{family}: 4× the text took {ratio:.1f}× as long"


def _best_line(line: str, repeat: int) -> float:
    from anthology.query.inline_fields import extract_inline_fields

    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            start = time.perf_counter()
            for _ in range(repeat):
                extract_inline_fields(line, task_fields=True)
            best = min(best, time.perf_counter() - start)
    finally:
        gc.enable()
    return best


@pytest.mark.parametrize("family", sorted(LINE_FAMILIES))
def test_inline_field_reading_grows_linearly(family: str) -> None:
    """The same reading repeated until the short line takes 20 ms: 2,000 and 8,000
    characters (both under MAX_LINE, past which a line is not read)."""
    from anthology.query.inline_fields import MAX_LINE

    make = LINE_FAMILIES[family]
    small, large = make(2000), make(8000)
    assert len(large) <= MAX_LINE
    repeat = 1
    while _best_line(small, repeat) < MIN_SECONDS:
        repeat *= 2
    ratio = _best_line(large, repeat) / _best_line(small, repeat)
    for _ in range(2):
        if ratio < MAX_RATIO:
            break
        ratio = min(ratio, _best_line(large, repeat) / _best_line(small, repeat))
    assert ratio < MAX_RATIO, f"{family}: 4× the line took {ratio:.1f}× as long"
