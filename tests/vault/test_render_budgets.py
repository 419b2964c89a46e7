"""Each family of render stall is cut at a budget, counted in work done, with a notice.

No wall clock: the tests count formulas typeset, embeds expanded, headings listed, table
cells, pictures and boxes kept; the scaling tests compare the work at two sizes in one run.
"""

from __future__ import annotations

import re
import time

import pytest
from test_render import text_of
from test_render_sample import FakeResolver, lit_008

from anthology.vault.model import EntryRef
from anthology.vault.render import clear_render_cache, mathtex, render_entry, source
from anthology.vault.render.context import (
    MAX_BOX_WEIGHT,
    MAX_BOXES,
    MAX_EMBEDS,
    MAX_FORMULAS,
    MAX_HEADING_ANCHORS,
    MAX_IMAGES,
    MAX_NESTING,
    MAX_PROPERTY_ROWS,
    MAX_TABLE_COLUMNS,
    MAX_TAG_CHIPS,
    MAX_TOC_ENTRIES,
    MAX_VALUE_ITEMS,
)
from anthology.vault.render.previews import render_preview
from anthology.vault.render.standalone import standalone_html

CUT = "Rendering was cut short"


def render(body: str, resolver: FakeResolver):
    return render_entry(lit_008(body=body), resolver)


def test_a_plain_entry_has_no_cut_notice(resolver: FakeResolver) -> None:
    out = render("# A\n\n$x$ and [TOC]\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", resolver)
    assert CUT not in text_of(out.html)


def test_formulas_past_the_budget_are_shown_as_tex(
    resolver: FakeResolver, monkeypatch: pytest.MonkeyPatch
) -> None:
    typeset: list[str] = []
    real = mathtex.tex_to_svg

    def counting(tex: str, **kw):
        typeset.append(tex)
        return real(tex, **kw)

    monkeypatch.setattr(mathtex, "tex_to_svg", counting)
    n = MAX_FORMULAS + 150
    body = "\n\n".join(f"Formula $x_{{{i}}}$ here, again $x_{{{i}}}$." for i in range(n))
    out = render(body, resolver)
    text = text_of(out.html)
    assert len(set(typeset)) == MAX_FORMULAS  # the rest never reach the typesetter
    assert CUT in text and f"first {MAX_FORMULAS} formulas" in text
    assert f"$x_{{{n - 1}}}$" in text  # shown as its TeX source
    assert len(out.resources) == MAX_FORMULAS


def test_toc_lists_at_most_the_budget(resolver: FakeResolver) -> None:
    n = MAX_TOC_ENTRIES + 500
    body = "[TOC]\n\n" + "\n\n".join(f"## Heading {i}" for i in range(n))
    out = render(body, resolver)
    toc = out.html[
        out.html.index('class="toc"') : out.html.index("</div>", out.html.index('class="toc"'))
    ]
    assert toc.count("<li") == MAX_TOC_ENTRIES
    assert "Heading 0<" in toc and f"Heading {n - 1}<" not in toc
    assert CUT in text_of(out.html)
    assert len(out.headings) == n  # every heading still has its anchor for links


def test_headings_past_the_anchor_budget_carry_no_anchor(resolver: FakeResolver) -> None:
    # Qt's HTML import is quadratic in named anchors (3,000 headings: 2.4 s in setHtml);
    # an ``id`` attribute is an anchor too, so headings get one ``<a name>`` and no ``id``.
    n = MAX_HEADING_ANCHORS + 700
    out = render("\n\n".join(f"## Heading {i}" for i in range(n)), resolver)
    assert out.html.count("<a name=") == MAX_HEADING_ANCHORS
    assert not re.search(r"<h[1-6][^>]* id=", out.html)
    assert f'<a name="{out.headings[0][2]}">' in out.html
    assert len(out.headings) == n and f"Heading {n - 1}<" in out.html
    # a fold marker is a link too: past the budget a heading cannot be folded, and is
    # shown in full (nothing else a reader sees was cut)
    assert out.html.count('class="fold"') == MAX_HEADING_ANCHORS
    text = text_of(out.html)
    assert f"{CUT}: only the first {MAX_HEADING_ANCHORS} headings can be folded." in text


def test_embeds_past_the_budget_become_links(tmp_path) -> None:
    # 12 wide and 3 deep: 12 + 144 + 1,728 embeds without a budget
    refs = {
        f"E{d}-{i}": EntryRef(f"E{d}-{i}", f"Entry {d}-{i}", f"E{d}-{i}.md")
        for d in range(4)
        for i in range(12)
    }
    bodies = {
        f"E{d}-{i}": "\n\n".join(f"![[E{d + 1}-{j}]]" for j in range(12))
        for d in range(3)
        for i in range(12)
    }
    bodies.update({f"E3-{i}": f"Leaf {i}." for i in range(12)})
    resolver = FakeResolver(tmp_path, bodies)
    resolver.refs.update({k.upper(): v for k, v in refs.items()})
    expanded: list[str] = []
    real = resolver.embed_body

    def counting(entry_id: str):
        expanded.append(entry_id)
        return real(entry_id)

    resolver.embed_body = counting  # type: ignore[method-assign]
    out = render("\n\n".join(f"![[E0-{j}]]" for j in range(12)), resolver)
    assert len(expanded) == MAX_EMBEDS
    text = text_of(out.html)
    assert CUT in text and "Not embedded (too many embeds)" in text


def test_wide_tables_keep_their_first_columns(resolver: FakeResolver) -> None:
    cols = 800
    row = "|" + "|".join(f"c{i}" for i in range(cols)) + "|\n"
    body = row + "|" + "|".join("-" for _ in range(cols)) + "|\n" + row * 3
    out = render(body, resolver)
    rows = re.findall(r"<tr>(.*?)</tr>", out.html[out.html.index('class="md-table"') :], re.S)
    assert len(rows) == 4
    assert all(len(re.findall(r"<t[dh][\s>]", r)) == MAX_TABLE_COLUMNS for r in rows)
    assert CUT in text_of(out.html) and f"first {MAX_TABLE_COLUMNS} columns" in text_of(out.html)


def test_pictures_past_the_budget_are_named(resolver: FakeResolver) -> None:
    n = MAX_IMAGES + 50
    out = render(
        "\n\n".join(f"![dot {i}](img/dot.png) ![[img/dot.png]]" for i in range(n)), resolver
    )
    assert out.html.count("<img") == MAX_IMAGES
    assert CUT in text_of(out.html) and "img/dot.png" in text_of(out.html)


def test_unclosed_svg_tags_cost_linear_work(resolver: FakeResolver) -> None:
    """20k unclosed <svg> took 8–11 s: each one rescanned the rest of the text."""

    def cost(n: int) -> float:
        text = "a <svg> b <math> c <svg width=1>\n" * n
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            source._dangerous_elements(text)
            best = min(best, time.perf_counter() - t)
        return best

    # linear is 4, the old lazy regex 16; a busy machine can spoil one pair of timings,
    # quadratic work spoils every pair
    ratio = cost(8000) / cost(2000)
    for _ in range(2):
        if ratio < 8:
            break
        ratio = min(ratio, cost(8000) / cost(2000))
    assert ratio < 8
    out = render("a <svg> b <math> c\n" * 2000, resolver)
    assert "<svg" not in out.html and "<math" not in out.html


def test_dangerous_elements_match_the_old_rule() -> None:
    text = "x<svg a=1>in</SVG>y<script>z</script><svg>never closed <math>m</math>"
    spans = [text[s:e] for s, e in source._dangerous_elements(text)]
    assert spans == ["<svg a=1>in</SVG>", "<script>z</script>", "<math>m</math>"]


def test_footnotes_share_the_anchor_budget(resolver: FakeResolver) -> None:
    # each footnote is two anchors (its number and its note): 3,000 footnotes made Qt's
    # quadratic anchor import the slowest part of showing the entry
    n = MAX_HEADING_ANCHORS
    heads = "\n\n".join(f"## Part {i}" for i in range(10))
    claims = "\n\n".join(f"Claim {i}.[^n{i}] Again.[^n{i}]" for i in range(n))
    notes = "\n\n".join(f"[^n{i}]: Note {i}." for i in range(n))
    out = render(f"{heads}\n\n{claims}\n\n{notes}\n", resolver)
    ids = re.findall(r' id="(fn(?:ref\d*)?:[^"]+)"', out.html)
    assert out.html.count("<a name=") == 10  # headings keep theirs
    # whole footnotes only: each is referenced twice, so three anchors
    assert len(ids) == 3 * ((MAX_HEADING_ANCHORS - 10) // 3)
    assert {"fnref:n0", "fnref2:n0", "fn:n0"} <= set(ids)  # the first link both ways
    assert 'href="#fn:n0"' in out.html
    gone = f"fn:n{n - 1}"
    assert gone not in ids and f'href="#{gone}"' not in out.html  # no link to nowhere
    text = text_of(out.html)
    assert f"Note {n - 1}." in text  # every note is still shown
    assert CUT in text and "footnotes without links" in text


def test_a_paragraph_of_unclosed_brackets_is_not_escaped_bracket_by_bracket(
    resolver: FakeResolver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """10⁶ unclosed ``[[`` (cut to 100,000 characters) took 21 s: each bracket was escaped,
    and python-markdown made every escape an inline placeholder, rebuilding the text."""
    from markdown.inlinepatterns import EscapeInlineProcessor

    escapes = 0
    real = EscapeInlineProcessor.handleMatch

    def counting(self, m, data):
        nonlocal escapes
        escapes += 1
        return real(self, m, data)

    monkeypatch.setattr(EscapeInlineProcessor, "handleMatch", counting)
    out = render("[[" * 20_000 + r" and \[x\]", resolver)
    assert escapes == 0  # was 40,002
    shown = text_of(out.html).replace("\u200b", "")  # break opportunities in long runs
    assert "[[" * 20_000 + " and [x]" in shown


def test_brackets_of_a_crowded_paragraph_are_shown_as_written(resolver: FakeResolver) -> None:
    # the entry itself uses the first private-use characters: the stand-ins must avoid them
    own = "\uf8ff\uf8fe"
    body = f"{own} " + "[a] " * 400 + r"\[b\] [[c" + "\n\nAfter [[d]]."
    out = render(body, resolver)
    text = text_of(out.html)
    assert text.count("[a]") == 400 and "[b] [[c" in text
    assert own in text  # the entry's own characters are left alone
    assert 'href="unresolved:d"' in out.html or "entry:" in out.html  # next paragraph links


# -- nesting (issue 28, case 2) ------------------------------------------------------------
# Quotes, callouts, embeds and code blocks are drawn as tables, and Qt lays a cell's
# content out about twice per table around it: 20 nested quotes held the GUI thread 46 s.
def table_depths(html: str) -> list[int]:
    """Characters of text at each depth of nested <table>s (an independent count)."""
    chars, depth, pos = [0], 0, 0
    for m in re.finditer(r"<(/?)table\b[^>]*>|<[^>]*>", html):
        chars[depth] += m.start() - pos
        pos = m.end()
        if m.group(0).startswith("<table"):
            depth += 1
            chars += [0] * (depth + 1 - len(chars))
        elif m.group(0).startswith("</table"):
            depth -= 1
    return chars


def qt_work(html: str) -> int:
    """What Qt's layout will do for ``html``: each character 2**(tables around it)."""
    return sum(n << d for d, n in enumerate(table_depths(html)))


NESTINGS = {
    "quotes": lambda n: "> " * n + "deep text\n",
    "quotes after a list marker": lambda n: "- " + "> " * n + "deep text\n",
    "lists and quotes mixed": lambda n: "- > " * n + "deep text\n",
    "numbered items and quotes": lambda n: "1. > " * n + "deep text\n",
    "callouts": lambda n: (
        "".join("> " * i + "[!note] Level\n" for i in range(n)) + "> " * n + "deep text\n"
    ),
}


@pytest.mark.parametrize("name", NESTINGS)
def test_nesting_costs_qt_the_same_at_16_and_20_levels(resolver: FakeResolver, name) -> None:
    """The nesting family as a size ratio: 4 more levels were 16 times Qt's work."""
    deep = {n: render(NESTINGS[name](n), resolver) for n in (16, 20)}
    for out in deep.values():
        assert len(table_depths(out.html)) - 1 <= MAX_BOXES + 1  # the body's, in the page
        text = text_of(out.html)
        assert "deep text" in text  # flattened, not lost
        assert f"{CUT}:" in text and "shown indented, without their frames" in text
    assert qt_work(deep[20].html) < 1.5 * qt_work(deep[16].html)


def test_a_deep_email_thread_keeps_every_reply_in_order(resolver: FakeResolver) -> None:
    body = "\n".join("> " * k + f"Reply {k} says hello.\n" + "> " * k for k in range(19))
    out = render(body, resolver)
    text = text_of(out.html)
    at = [text.index(f"Reply {k} says hello.") for k in range(19)]
    assert at == sorted(at)
    body_html = out.html[out.html.index('<div class="body">') :]
    assert len(table_depths(body_html)) - 1 == MAX_BOXES
    # the replies past the frames are indented blocks: the nesting still shows
    assert body_html.count('<div style="margin-left: 12px;">') == 18 - MAX_BOXES


def test_an_embed_inside_quotes_counts_the_quotes_around_it(tmp_path) -> None:
    resolver = FakeResolver(tmp_path, {"DEEP": "> " * 10 + "inner text"})
    resolver.refs["DEEP"] = EntryRef("DEEP", "Deep", "DEEP.md")
    out = render("> " * 10 + "![[DEEP]]", resolver)
    body_html = out.html[out.html.index('<div class="body">') :]
    assert len(table_depths(body_html)) - 1 == MAX_BOXES  # was 21 tables deep
    assert "inner text" in text_of(out.html) and "↪ DEEP — Deep" in text_of(out.html)


def test_the_page_preview_goes_through_the_same_budget(resolver: FakeResolver) -> None:
    entry = lit_008(body="- > " * 20 + "deep text\n")
    out = render_preview(entry, resolver)
    assert len(table_depths(out.html)) - 1 <= MAX_BOXES
    text = text_of(out.html)
    assert "deep text" in text and "Shown in part:" in text


def test_an_export_of_a_deep_entry_is_flattened_as_the_pane_shows_it(
    resolver: FakeResolver,
) -> None:
    out = render("> " * 20 + "deep text\n", resolver)
    page = standalone_html(out, title="LIT-008")
    assert len(table_depths(page[page.index('<div class="body">') :])) - 1 == MAX_BOXES
    assert "deep text" in text_of(page)


def test_a_long_quote_inside_boxes_loses_frames_before_qt_lays_it_out_many_times(
    resolver: FakeResolver,
) -> None:
    # 60 KB three boxes deep would be 480k characters of layout: past the weight budget
    words = "\n>>>\n".join(">>> " + "word " * 60 for _ in range(200))
    out = render(words, resolver)
    body_html = out.html[out.html.index('<div class="body">') :]
    assert qt_work(body_html) <= MAX_BOX_WEIGHT
    assert len(table_depths(body_html)) - 1 < 3
    assert text_of(out.html).count("word") == 200 * 60


@pytest.mark.parametrize(
    "body",
    ["- > " * 5_000 + "x", "1. > " * 5_000 + "x", "> - " * 5_000 + "x", ">" * 10_000 + " x"],
    ids=["list-quote", "numbered-quote", "quote-list", "quotes"],
)
def test_ten_thousand_mixed_levels_reach_python_markdown_clamped(
    resolver: FakeResolver, body: str
) -> None:
    out = render(body, resolver)
    text = text_of(out.html)
    assert "shown as plain text" not in text  # no RecursionError: rendered, flattened
    assert f"nested more than {MAX_NESTING} deep are shown at that depth" in text
    assert text.rstrip().endswith("x") or " x" in text
    assert len(table_depths(out.html)) - 1 <= MAX_BOXES + 1


# -- big legal notes (issue 28, case 7) ----------------------------------------------------
def test_a_hundred_thousand_properties_show_the_first_and_count_the_rest(
    resolver: FakeResolver,
) -> None:
    props = {f"k{i}": i for i in range(100_000)}
    out = render_entry(lit_008(body="A note.", properties=props, relations=[]), resolver)
    box = out.html[out.html.index('class="properties"') :]
    assert box.count("<tr><td width=") == MAX_PROPERTY_ROWS + 1
    text = text_of(box)
    assert "K0\t0" in text and f"K{MAX_PROPERTY_ROWS - 1}\t" in text
    assert f"K{MAX_PROPERTY_ROWS}\t" not in text
    cited = len({r.relation for r in lit_008().cited_by})  # its "Cited as … by" rows
    more = 100_000 + cited - MAX_PROPERTY_ROWS
    assert f"…\tand {more:,} more, not shown" in text
    assert f"Properties {100_000 + cited:,}" in text
    assert len(out.html) < 100_000  # was 16 MB


def test_a_long_list_value_shows_its_first_items(resolver: FakeResolver) -> None:
    props = {"parties": [f"party {i}" for i in range(5_000)], "tags": list(range(5_000))}
    out = render_entry(lit_008(body="A note.", properties=props, relations=[]), resolver)
    text = text_of(out.html)
    assert f"party {MAX_VALUE_ITEMS - 1}," not in text or f"party {MAX_VALUE_ITEMS}," not in text
    assert f"and {5_000 - MAX_VALUE_ITEMS:,} more items" in text
    assert f"and {5_000 - MAX_VALUE_ITEMS:,} more tags" in text
    assert out.html.count('class="tag"') <= MAX_VALUE_ITEMS + len(lit_008().tags)


def test_body_tags_past_the_budget_are_text(resolver: FakeResolver) -> None:
    n = MAX_TAG_CHIPS + 500
    out = render("A legal note.\n\n" + " ".join(f"#t{i}" for i in range(n)), resolver)
    body_html = out.html[out.html.index('<div class="body">') :]
    assert body_html.count('class="tag"') == MAX_TAG_CHIPS
    text = text_of(body_html)
    assert f"#t{n - 1}" in text and "<h1" not in body_html
    assert f"only the first {MAX_TAG_CHIPS} tags are drawn as chips" in text_of(out.html)


def test_a_tag_at_the_start_of_a_line_is_a_tag_not_a_heading(resolver: FakeResolver) -> None:
    out = render("#first words\n\n#second", resolver)
    body_html = out.html[out.html.index('<div class="body">') :]
    assert "<h1" not in body_html
    assert body_html.count('class="tag"') == 2
    assert "#first words" in text_of(body_html).replace("\xa0", " ").replace("  ", " ")


def test_runs_of_unclosed_tags_cost_linear_work(resolver: FakeResolver) -> None:
    """80 KB of ``<a<a<a…`` took 3.9 s: python-markdown's HTML parser looked for each tag's
    end through the rest of the text; then each ``&lt;`` was an inline placeholder."""

    def cost(n: int) -> float:
        best = float("inf")
        for _ in range(3):
            clear_render_cache()
            t = time.perf_counter()
            render("<a" * n + "\n", resolver)
            best = min(best, time.perf_counter() - t)
        return best

    ratio = cost(16_000) / cost(4_000)  # linear is 4, quadratic 16
    for _ in range(2):
        if ratio < 8:
            break
        ratio = min(ratio, cost(16_000) / cost(4_000))
    assert ratio < 8
    out = render("<a" * 4_000 + " and <b>bold</b>\n", resolver)
    text = text_of(out.html).replace("\u200b", "")
    assert "<a" * 4_000 + " and bold" in text  # shown as written; a real tag still works
    assert "<b>bold</b>" in out.html


def test_a_few_unclosed_tags_are_left_to_python_markdown(resolver: FakeResolver) -> None:
    out = render("x <y and <b>bold</b> z", resolver)
    assert "<b>bold</b>" in out.html and not any(
        0xE000 <= ord(c) <= 0xF8FF for c in out.html
    )  # no stand-in left behind


def test_a_run_of_dotted_words_costs_linear_work(resolver: FakeResolver) -> None:
    """80 KB of ``a.a.a…`` under a heading took 3.2 s: the URL pattern's scheme ran from
    every word start to the end of the run looking for ``://``."""

    def cost(n: int) -> float:
        best = float("inf")
        for _ in range(3):
            clear_render_cache()
            t = time.perf_counter()
            render("# Exhibit A #legal\n\n" + "a." * n + "\n", resolver)
            best = min(best, time.perf_counter() - t)
        return best

    ratio = cost(16_000) / cost(4_000)  # linear is 4, quadratic 16
    for _ in range(2):
        if ratio < 8:
            break
        ratio = min(ratio, cost(16_000) / cost(4_000))
    assert ratio < 8
    out = render("# Exhibit #legal\n\nSee <https://example.org/a.b#x> and a.a.a", resolver)
    assert 'href="https://example.org/a.b#x"' in out.html and 'href="tag:legal"' in out.html
    assert 'href="tag:x"' not in out.html  # a URL's fragment is not a tag


def test_a_changed_property_of_a_huge_front_matter_is_rendered_again(
    resolver: FakeResolver,
) -> None:
    # the cache key holds the first 1,000 properties and their count, not a repr of 100k
    props = {f"k{i}": i for i in range(100_000)}
    first = render_entry(lit_008(body="A note.", properties=props, relations=[]), resolver)
    edited = dict(props, k5="changed")
    again = render_entry(lit_008(body="A note.", properties=edited, relations=[]), resolver)
    assert again is not first and "changed" in text_of(again.html)
    grown = dict(props, extra=1)
    assert render_entry(lit_008(body="A note.", properties=grown, relations=[]), resolver) not in (
        first,
        again,
    )
    same = render_entry(lit_008(body="A note.", properties=dict(props), relations=[]), resolver)
    assert same is first  # an equal entry is a cache hit
