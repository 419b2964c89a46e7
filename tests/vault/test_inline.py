"""One line of Markdown as inline HTML (vault/render/inline.py): no Qt here."""

from __future__ import annotations

import re

import pytest

from anthology.vault.model import MATCH_END, MATCH_START
from anthology.vault.render.inline import LIMIT, inline_html

RAW = re.compile(r"\[\[|\]\]|\*\*|\$")


def _tags(html: str) -> set[str]:
    return set(re.findall(r"</?([a-z]+)", html))


def test_links_read_as_their_text_in_the_link_colour() -> None:
    out = inline_html("See [[LIT-008|the paper]], [[papers/Note 2]] and [[Alpha#Two]].")
    assert out.text == "See the paper, papers/Note 2 and Alpha › Two."
    assert out.html.count('<span style="color:') == 3
    assert not RAW.search(out.html)


def test_markdown_links_embeds_and_block_ids() -> None:
    out = inline_html("A [**bold** link](https://x.org) and ![alt](p.png) end ^block-1")
    assert out.text == "A bold link and alt end"


def test_bold_italic_strike_highlight_and_code() -> None:
    out = inline_html("**bold** *it* _em_ ~~gone~~ ==hi== `a ** b` snake_case_name")
    assert "<b>bold</b>" in out.html and "<i>it</i>" in out.html and "<i>em</i>" in out.html
    assert "<s>gone</s>" in out.html
    assert "<code" in out.html and ">a ** b</code>" in out.html  # code is literal
    assert "snake_case_name" in out.text
    assert out.text == "bold it em gone hi a ** b snake_case_name"


def test_math_is_typeset_or_clean_tex() -> None:
    out = inline_html(r"scale by $1/\sqrt{d_k}$ per head", typeset=True)
    assert '<img src="math:' in out.html and len(out.resources) == 1
    assert next(iter(out.resources.values())).startswith(b"<svg")
    assert "$" not in out.html
    tex = inline_html(r"scale by $1/\sqrt{d_k}$ per head")
    assert not tex.resources and "$" not in tex.html
    assert r"1/\sqrt{d_k}" in tex.text and "<i" in tex.html


def test_prices_are_not_math_and_unclosed_markup_is_not_shown() -> None:
    assert inline_html("costs $5 and $10").text == "costs $5 and $10"
    out = inline_html("an **unclosed bold and a [[broken link and `tick")
    assert "**" not in out.html
    assert "unclosed bold" in out.text
    assert inline_html("a snippet cut in a link: see [[Other no…").text == (
        "a snippet cut in a link: see Other no…"
    )
    out = inline_html("a $x^2 unclosed formula")
    assert out.text == "a $x^2 unclosed formula"  # one dollar: a dollar


def test_html_in_the_line_is_escaped_or_dropped() -> None:
    out = inline_html("<img src='/etc/passwd'> <b onclick=x>hi</b> &lt;script&gt; a < b")
    assert _tags(out.html) <= {"b", "i", "s", "code", "span", "img"}
    assert "img" not in _tags(out.html) and "onclick" not in out.html
    assert "&lt;script&gt;" in out.html and "a &lt; b" in out.html


def test_block_markers_are_taken_off() -> None:
    assert inline_html("- [ ] task with [[X]]").text == "task with X"
    assert inline_html("> [!note] Seen in [[X]]").text == "Seen in X"
    assert inline_html("## Heading [[X]]").text == "Heading X"


def test_long_lines_are_cut_at_words_around_the_link() -> None:
    before = " ".join(f"before{i}" for i in range(100))
    after = " ".join(f"after{i}" for i in range(100))
    out = inline_html(f"{before} [[Target|the target]] {after}", focus_link="Target")
    assert "the target" in out.text
    assert out.text.startswith("…") and out.text.endswith("…")
    assert len(out.text) <= LIMIT + 2
    words = out.text.strip("…").split()
    assert all(w in ("the", "target") or re.fullmatch(r"(before|after)\d+", w) for w in words)


def test_emphasis_open_across_the_cut_stays_nested() -> None:
    words = " ".join(f"w{i}" for i in range(80))
    out = inline_html(f"**{words} [[T]] {words}** tail", focus_link="T")
    assert out.html.count("<b>") == out.html.count("</b>") >= 1
    assert "T" in out.text


def test_search_snippets_mark_the_match() -> None:
    out = inline_html(f"…the {MATCH_START}attention{MATCH_END} of **all** [[X|heads]]…")
    assert '<b style="background-color:' in out.html and "attention</b>" in out.html
    assert out.text == "…the attention of all heads…"
    assert "\x02" not in out.html and "\x03" not in out.html


def test_a_match_inside_code_or_a_link_is_marked_not_drawn_as_boxes() -> None:
    """Search snippets of a real vault: "infranodus-▯graph▯-▯view▯" — the markers inside a
    code span or a link were drawn as boxes (issue 34, item 7)."""
    s, e = MATCH_START, MATCH_END
    out = inline_html(
        f"Try `infranodus-{s}graph{e}-{s}view{e}` or [the {s}graph{e}](https://g.io)."
    )
    assert s not in out.html and e not in out.html
    assert out.html.count("<b style=") == 3 and out.html.count("</b>") == 3
    assert out.text == "Try infranodus-graph-view or the graph."
    # a marker whose pair lies outside the span is dropped, not drawn
    out = inline_html(f"`half {s}open` and {e} rest")
    assert s not in out.html and e not in out.html


def test_a_linked_badge_reads_as_its_alt_text() -> None:
    """A README's badge row ``[![build](…svg)](…)`` showed as raw Markdown."""
    line = (
        "[![build status](https://img.shields.io/badge/build-passing-green.svg)]"
        "(https://ci.example.org/x) [![](https://img.shields.io/x.svg)](https://x.org) "
        "the graph view"
    )
    out = inline_html(line)
    assert out.text == "build status the graph view"
    assert "](" not in out.html and "shields" not in out.html


@pytest.mark.parametrize(
    "line",
    ["*" * 100_000, "`" * 100_000, "$" * 100_000, "[[" * 50_000, "_a" * 50_000,
     "x" * 1_000_000, "**a " * 20_000 + "[[T]]", "$a$ " * 5000, "\\" * 10_001],
)  # fmt: skip
def test_hostile_lines_are_cut_and_safe(line: str) -> None:
    out = inline_html(line, focus_link="T", typeset=True)
    assert len(out.text) <= LIMIT + 2
    assert len(out.resources) <= 8
    assert _tags(out.html) <= {"b", "i", "s", "code", "span", "img"}
