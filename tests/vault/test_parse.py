"""The parser on one file: properties, title, tags, headings, links, reading time."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from anthology.vault.links import iter_links, mask_code
from anthology.vault.parse import parse_entry, relation_name


def links_of(text: str) -> list[tuple[str, str | None, str | None, str | None, bool]]:
    return [(lk.target, lk.alias, lk.heading, lk.block, lk.embed) for lk in iter_links(text)]


def test_every_wikilink_form() -> None:
    text = "[[A]] [[B|bee]] [[C#Head]] [[D#^blk]] ![[E]] ![[pic.png]] [[#Local]]"
    assert links_of(text) == [
        ("A", None, None, None, False),
        ("B", "bee", None, None, False),
        ("C", None, "Head", None, False),
        ("D", None, None, "blk", False),
        ("E", None, None, None, True),
        ("pic.png", None, None, None, True),
        ("", None, "Local", None, False),
    ]


def test_escaped_pipe_in_a_table_is_an_alias() -> None:
    assert links_of("| x | [[LIT-709\\|Primer]] |") == [("LIT-709", "Primer", None, None, False)]


def test_markdown_links_are_url_decoded_and_urls_ignored() -> None:
    text = "[n](my%20note.md#Sec) [w](https://x.org/a.md) [m](mailto:a@b) [r](<with space.md>)"
    assert links_of(text) == [
        ("my note.md", "n", "Sec", None, False),
        ("with space.md", "r", None, None, False),
    ]


def test_links_in_code_and_comments_do_not_count() -> None:
    text = (
        "```\n[[fenced]]\n```\n~~~md\n[[tilde]]\n~~~\n`[[inline]]` ``[[double]]``\n"
        "<!-- [[html]] --> %%[[obsidian]]%% [[real]]\n    ```\n"
    )
    assert [t for t, *_ in links_of(text)] == ["real"]


def test_unclosed_fence_runs_to_the_end() -> None:
    assert links_of("[[before]]\n```\n[[inside]]\n") == [("before", None, None, None, False)]


def test_mask_keeps_offsets_and_lines() -> None:
    text = "a `b` c\n```\nx\n```\nd"
    masked = mask_code(text)
    assert len(masked) == len(text)
    assert masked.count("\n") == text.count("\n")


def test_link_lines_count_from_the_file_start() -> None:
    text = "---\nid: X\nrel: '[[T]]'\n---\nline five\n\n[[A]] on seven\n"
    entry = parse_entry(text, "X.md")
    by_target = {link.text: link for link in entry.links}
    assert by_target["A"].line == 7
    assert by_target["A"].relation is None
    assert by_target["A"].context == "[[A]] on seven"
    assert by_target["T"].relation == "rel"
    assert by_target["T"].line == 3


def test_front_matter_relations_are_typed() -> None:
    text = '---\ncompared_against: ["[[B]]", "[[C|see]]"]\nintroduced-by: "[[D]]"\n---\n[[E]]'
    entry = parse_entry(text, "A.md")
    typed = [(link.text, link.relation) for link in entry.links]
    assert typed == [
        ("B", "compared against"),
        ("C", "compared against"),
        ("D", "introduced by"),
        ("E", None),
    ]
    assert relation_name("compared_against") == "compared against"


def test_title_falls_back_to_heading_then_file_name() -> None:
    assert parse_entry("---\ntitle: T\n---\n# H", "f.md").title == "T"
    assert parse_entry("intro\n# First Heading\n# Second", "f.md").title == "First Heading"
    assert parse_entry("no heading", "dir/Some Name.md").title == "Some Name"
    # an empty first heading (a template's blank title) leaves the file's name, not a later one
    closing = "# \n\nThe note.\n\n# This note in GitHub\n"
    assert parse_entry(closing, "Tools/Zotero 7.md").title == "Zotero 7"
    assert parse_entry("#\ntext\n# Later\n", "a/Plain.md").title == "Plain"
    assert parse_entry("#tag line\n# Real Title ##\n", "x.md").title == "Real Title"
    assert parse_entry("```\n# in code\n```\n# Outside\n", "x.md").title == "Outside"


def test_id_is_the_property_else_the_path() -> None:
    assert parse_entry("---\nid: LIT-1\n---\n", "a/b.md").id == "LIT-1"
    assert parse_entry("body", "a/b c.md").id == "a/b c"


def test_tags_from_front_matter_and_body_but_not_code_urls_or_headings() -> None:
    text = (
        "---\ntags: [alpha, '#beta']\ntag: gamma\n---\n# Heading #nope\n"
        "Text #delta and #nested/tag, not #123 nor http://x.org/#frag nor `#code`.\n"
        "[[Note#Heading]] is a link; &#123; is an entity.\n"
    )
    assert parse_entry(text, "t.md").tags == ["alpha", "beta", "gamma", "nope", "delta",
                                               "nested/tag"]  # fmt: skip


def test_aliases_headings_words_and_reading_time() -> None:
    body = "# Title\n\n## Part one\n\n" + "word " * 450 + "\n```\ncode not counted " * 3 + "\n```"
    entry = parse_entry("---\naliases: [One, Two]\n---\n" + body, "x.md")
    assert entry.aliases == ["One", "Two"]
    assert entry.headings == [(1, "Title"), (2, "Part one")]
    assert 450 <= entry.words <= 460
    assert entry.reading_minutes == 3  # 200 words a minute, rounded up


def test_properties_keep_their_types() -> None:
    entry = parse_entry('---\nversion: 2\nyear: 2017\narxiv: "1706.03762"\ndate: 2024-01-02\n---\n',
                        "x.md")  # fmt: skip
    assert entry.properties == {
        "version": 2, "year": 2017, "arxiv": "1706.03762", "date": "2024-01-02",
    }  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400))
def test_parser_never_raises_on_any_text(text: str) -> None:
    entry = parse_entry(text, "fuzz.md")
    assert entry.title
    for link in entry.links:
        assert link.line >= 1


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["[[", "]]", "|", "\\", "#", "^", "!", "`", "a", "\n", "-", "%%"]),
                max_size=60))  # fmt: skip
def test_link_grammar_survives_bracket_soup(parts: list[str]) -> None:
    text = "".join(parts)
    for link in iter_links(text):
        assert "[" not in link.target and "]" not in link.target


@given(st.text(st.characters(max_codepoint=0x3000)))
@settings(max_examples=300, deadline=None)
def test_word_count_is_split_length(text: str) -> None:
    from anthology.vault.parse import count_words

    for t in (text, text.encode("ascii", "ignore").decode(), " a\x1cb\x1f c\t\n"):
        assert count_words(t) == len(t.split())


def test_the_indexer_rows_leave_body_contexts_to_the_index() -> None:
    from anthology.vault.parse import link_context
    from sample_vault import REALISTIC_VAULT

    for path, text in REALISTIC_VAULT.items():
        full = parse_entry(text, path)
        rows = parse_entry(text, path, for_index=True)
        assert rows._replace(links=[]) == full._replace(links=[])
        assert len(rows.links) == len(full.links)
        for row, want in zip(rows.links, full.links, strict=True):
            if want.relation is None:  # a body link: the index cuts its context from the body
                assert row == want._replace(context=None)
                assert link_context(full.body, row.body_start, row.body_end) == want.context
            else:  # a front-matter link keeps its "key: value" context, no body offsets
                assert row == want._replace(body_start=None, body_end=None)


@given(
    st.lists(
        st.sampled_from(
            [
                "# H",
                "## H ##",
                "####### no",
                "#tag",
                "[[a]]",
                "[[b|c]] ",
                "x" * 130,
                "[m](n.md\n)",
                "\n",
                "\n#",
                "word ",
                "`[[code]]`",
                "![[e.png]]",
            ]
        ),
        max_size=30,
    ).map("".join)
)
@settings(max_examples=300, deadline=None)
def test_headings_and_link_contexts_match_their_plain_definitions(body: str) -> None:
    from anthology.vault.parse import _body_link_rows, _headings, link_context

    # The plain (but quadratic on a long run of blanks) definition of an ATX heading.
    heading_re = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)
    masked = mask_code(body)
    plain = [(len(m.group(1)), m.group(2).strip()) for m in heading_re.finditer(masked)]
    assert _headings(masked) == [h for h in plain if h[1]]
    rows = _body_link_rows(body, masked, 1)
    assert [r.context for r in rows] == [link_context(body, r.body_start, r.body_end)
                                         for r in rows]  # fmt: skip
    # The index's rows (no contexts) agree.
    bare = _body_link_rows(body, masked, 1, contexts=False)
    assert bare == [r._replace(context=None) for r in rows]


def _naive_context(text: str, start: int, end: int) -> str:
    """The rule link_contexts keeps, written the obvious (quadratic) way."""
    from anthology.vault.parse import CONTEXT_CHARS, _tidy_window

    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    if len(line) > CONTEXT_CHARS:
        lo = max(0, start - line_start - CONTEXT_CHARS // 2)
        hi = min(len(line), lo + CONTEXT_CHARS)
        rel, rel_end = start - line_start, min(end - line_start, hi)
        shown = _tidy_window(line[lo:hi], lo > 0, hi < len(line), rel - lo, rel_end - lo)
        line = ("…" if lo else "") + shown + ("…" if hi < len(line) else "")
    return line.strip()


def test_a_context_is_cut_at_words_and_outside_formulas() -> None:
    """A backlink context read "…rt d$ (central limit theorem)" (issue 34, item 14): the
    raw cut fell inside a word of a formula."""
    from anthology.vault.parse import CONTEXT_CHARS, link_contexts

    head = "The variance of a dot product grows with the dimension, so the logits are divided by "
    formula = "$\\sqrt d$ (central limit theorem), which keeps the softmax away from flat regions"
    # the link stands so that the raw cut (half the window before it) falls in "\sqrt"
    gap = CONTEXT_CHARS // 2 - len(formula) + 3
    filler = ("; and so on " * 20)[:gap]
    tail = " for where this was argued first, " + "and more words after it, " * 8 + "$x^2$ end."
    line = head + formula + filler + "[[LIT-008]]" + tail
    start = line.index("[[LIT-008]]")
    assert line[start - CONTEXT_CHARS // 2 : start].startswith("qrt")  # the raw cut, mid-formula
    (context,) = link_contexts(line, [(start, start + len("[[LIT-008]]"))])
    assert "[[LIT-008]]" in context and context.startswith("…") and context.endswith("…")
    inner = context.strip("…")
    assert "$" not in inner  # not the end of a formula: its start is not shown
    words = set(line.split())
    assert inner.split()[0] in words and inner.split()[-1] in words  # whole words only


@given(
    st.text(st.sampled_from("ab \n[]"), max_size=800),
    st.lists(st.tuples(st.integers(0, 800), st.integers(0, 40)), max_size=30),
)
@settings(max_examples=300, deadline=None)
def test_link_contexts_cut_each_links_line(text: str, raw: list[tuple[int, int]]) -> None:
    from anthology.vault.parse import link_contexts

    spans = [(min(a, len(text)), min(a + w, len(text))) for a, w in raw]
    assert link_contexts(text, spans) == [_naive_context(text, a, b) for a, b in spans]
