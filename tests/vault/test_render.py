"""The entry renderer: what a reader sees at the top of an entry and in its body."""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

from test_render_sample import REF, FakeResolver, lit_008

from anthology.vault.model import EntryRef
from anthology.vault.render import (
    RenderedEntry,
    clear_render_cache,
    find_heading,
    preview_html,
    render_entry,
)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag == "style":
            self.skip += 1
        if tag in ("p", "tr", "li", "h1", "h2", "h3", "br", "table", "pre"):
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag == "style":
            self.skip -= 1
        if tag in ("td", "th"):
            self.parts.append("\t")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def text_of(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return re.sub(r"[ \xa0]+", " ", unescape("".join(parser.parts)))


def hrefs(html: str) -> list[str]:
    return [unescape(h) for h in re.findall(r'href="([^"]*)"', html)]


def render(body: str, resolver: FakeResolver, **kw) -> RenderedEntry:
    return render_entry(lit_008(body=body), resolver, vault_root=resolver.root, **kw)


def test_header_shows_title_byline_reading_time_and_tags(resolver: FakeResolver) -> None:
    out = render_entry(lit_008(), resolver, vault_root=resolver.root)
    text = text_of(out.html)
    assert "LIT-008: Attention Is All You Need" in text
    assert "Vaswani et al. (2017) — arXiv 1706.03762" in text
    assert "https://arxiv.org/abs/1706.03762" in hrefs(out.html)
    assert "2 min read" in text
    assert hrefs(out.html).count("tag:model-architecture") == 1  # in the Properties box
    assert "tag:attention-techniques" in hrefs(out.html)
    loose = render_entry(lit_008(tags=["model-architecture", "from-body"]), resolver)
    meta = text_of(loose.html).split("Properties")[0]
    assert "#from-body" in meta and "#model-architecture" not in meta


def test_properties_box_matches_the_seed_page(resolver: FakeResolver) -> None:
    out = render_entry(lit_008(), resolver, vault_root=resolver.root)
    text = text_of(out.html)
    box = text[text.index("Properties") : text.index("Vaswani et al. (2017) introduced")]
    rows = [line.strip() for line in box.splitlines() if line.strip()]
    assert rows[0] == "Properties 7"
    assert [r.split("\t")[0] for r in rows[1:]] == [
        "Status",
        "Version",
        "Tags",
        "Compared against",
        "Cited as “introduced by” by",
        "Cited as “paper” by",
        "Cited as “source” by",
    ]
    assert "Active" in rows[1]
    assert "LIT-709 — Primer: Searching for Efficient Transformers for Language Modeling" in rows[4]
    assert "SOTA-050 — Scale attention weights by 1/sqrt(head_dim)" in rows[5]
    assert "NOTE-011 — Attention Is All You Need" in rows[6]
    for hidden in ("Arxiv", "Authors", "Kind", "Year"):
        assert f"\n{hidden}\t" not in box
    assert "entry:SOTA-050" in hrefs(out.html)


def test_several_citing_entries_share_one_row(resolver: FakeResolver) -> None:
    from anthology.vault.model import Relation

    entry = lit_008(
        cited_by=[
            Relation("source", REF["NOTE-011"], "[[LIT-008]]"),
            Relation("source", REF["SOTA-050"], "[[LIT-008]]"),
        ]
    )
    text = text_of(render_entry(entry, resolver).html)
    assert text.count("Cited as “source” by") == 1
    assert "Properties 5" in text


def test_wikilinks_resolve_to_entry_urls(resolver: FakeResolver) -> None:
    out = render(
        "[[SOTA-050]], [[NOTE-011|the reading note]], [[LIT-709#Results]], [[LIT-709#^b1]], "
        "[md](LIT-709.md), [[#Local heading]], [[LIT-999]] and [ext](https://example.org/x)",
        resolver,
    )
    links = hrefs(out.html)
    for expected in (
        "entry:SOTA-050",
        "entry:NOTE-011",
        "entry:LIT-709#Results",
        "entry:LIT-709#%5Eb1",
        "entry:LIT-709",
        "entry:LIT-008#Local%20heading",
        "unresolved:LIT-999",
        "https://example.org/x",
    ):
        assert expected in links
    text = text_of(out.html)
    assert "the reading note" in text and "LIT-709 › Results" in text
    assert 'class="unresolved"' in out.html
    assert "unresolved link: LIT-999" in out.problems


def test_ids_are_percent_encoded(resolver: FakeResolver) -> None:
    resolver.refs["A B"] = EntryRef("notes/a b#1", "Odd", "notes/a b#1.md")
    out = render("[[a b]]", resolver)
    assert "entry:notes%2Fa%20b%231" in hrefs(out.html)


def test_links_inside_code_stay_text(resolver: FakeResolver) -> None:
    out = render("`[[SOTA-050]]` and\n\n```\n[[NOTE-011]] $x$\n```\n", resolver)
    body = out.html[out.html.index('<div class="body">') :]
    assert "entry:SOTA-050" not in body and "entry:NOTE-011" not in body
    assert "[[SOTA-050]]" in text_of(out.html) and "[[NOTE-011]] $x$" in text_of(out.html)
    assert not out.resources


def test_callouts_tasks_highlight_strike(resolver: FakeResolver) -> None:
    body = (
        "> [!note] Why the square root\n> Keeps the variance at 1.\n\n"
        "> [!tip]- Folded\n> Still shown.\n\n"
        "> [!warning]\n> Careful.\n\n"
        "- [ ] open task\n- [x] done task\n\n"
        "==marked== and ~~gone~~\n"
    )
    out = render(body, resolver)
    text = text_of(out.html)
    assert "Why the square root" in text and "Keeps the variance at 1." in text
    assert "Folded" in text and "Still shown." not in text  # "-": starts closed (issue 13)
    assert "Warning" in text and "Careful." in text
    assert (
        "callout-note" in out.html and "callout-tip" in out.html and "callout-warning" in out.html
    )
    assert "☐ open task" in text and "☑ done task" in text
    assert re.search(r'<span style="background-color: [^"]+;">marked</span>', out.html)
    assert "<s>gone</s>" in out.html


def test_obsidian_style_lists_nest_and_quotes_get_a_bar(resolver: FakeResolver) -> None:
    out = render("Intro:\n- a\n  - b\n    - c\n\n1. one\n   - inner\n\n> quoted *text*\n", resolver)
    body = out.html[out.html.index('<div class="body">') :]
    assert body.count("<ul>") == 4  # a > b > c, and the one under "1. one"
    assert "<p>Intro:</p>" in body
    assert 'class="quote"' in body and "<em>text</em>" in body


def test_headings_footnotes_toc_and_code(resolver: FakeResolver) -> None:
    out = render_entry(lit_008(), resolver, vault_root=resolver.root)
    assert (2, "Key takeaways", "key-takeaways") in out.headings
    assert '<a name="key-takeaways">' in out.html
    assert 'href="#key-takeaways"' in out.html  # [TOC]
    assert 'id="fn:var"' in out.html and 'href="#fn:var"' in out.html
    assert re.search(r'<span style="color: #[0-9a-fA-F]{3,6}[^"]*">def</span>', out.html)
    assert "<table" in out.html and "BLEU EN-DE" in text_of(out.html)


def test_demo_block_and_unknown_demo(resolver: FakeResolver) -> None:
    out = render("```demo\nattention-scaling\n```\n\n```demo\nwarp-drive\n```\n", resolver)
    assert "demo:attention-scaling" in hrefs(out.html)
    text = text_of(out.html)
    assert "▶ Open the attention-scaling demo" in text
    assert "Unknown demo “warp-drive”" in text
    assert "demo:warp-drive" not in hrefs(out.html)


def test_the_demo_block_shows_the_sweep_figure_above_its_button(resolver: FakeResolver) -> None:
    from anthology.palette import theme

    light = render("```demo\nattention-scaling\n```\n", resolver)
    srcs = re.findall(r'<img src="(figure:[^"]+)"', light.html)
    assert srcs == ["figure:attention-scaling-light"]
    assert light.html.index(srcs[0]) < light.html.index("demo:attention-scaling")
    svg = light.resources[srcs[0]].decode()
    assert svg.startswith("<svg") and theme("light").demo.scalings["none"] in svg
    assert "Measured by the demo's own sweep" in text_of(light.html)

    dark = render("```demo\nattention-scaling\n```\n", resolver, theme="dark")
    assert "figure:attention-scaling-dark" in dark.resources  # a theme change redraws it
    assert theme("dark").entry.text in dark.resources["figure:attention-scaling-dark"].decode()


def test_embeds_transclude_with_title_link(resolver: FakeResolver) -> None:
    resolver.bodies["SOTA-050"] = "Scale by $1/\\sqrt{d}$. See [[NOTE-011]].\n\n## Why\nBecause."
    out = render("Before\n\n![[SOTA-050]]\n\nAfter ![[SOTA-050#Why]]", resolver)
    text = text_of(out.html)
    assert "See NOTE-011" in text and "Because." in text
    assert "SOTA-050 — Scale attention weights by 1/sqrt(head_dim)" in text
    assert 'class="embed"' in out.html and "entry:NOTE-011" in hrefs(out.html)
    assert any(k.startswith("math:") for k in out.resources), (out.problems, out.html[-1500:])


def test_embed_cycle_and_depth_are_visible(resolver: FakeResolver) -> None:
    resolver.bodies["SOTA-050"] = "B embeds A: ![[LIT-008]]"
    out = render("A embeds B: ![[SOTA-050]]", resolver)
    assert "Embed cycle" in text_of(out.html)
    assert any("embed cycle" in p for p in out.problems)
    resolver.bodies.update(
        {
            "SOTA-050": "one ![[NOTE-011]]",
            "NOTE-011": "two ![[LIT-709]]",
            "LIT-709": "three ![[SOTA-050]]",
        }
    )
    clear_render_cache()
    out = render("zero ![[SOTA-050]]", resolver)
    text = text_of(out.html)
    assert "one" in text and "two" in text and "three" in text
    assert "Embed cycle" in text or "nest deeper" in text


def test_images_inside_and_outside_the_vault(resolver: FakeResolver) -> None:
    out = render(
        "![[img/dot.png]] ![alt](img/dot.png) ![[../../etc/passwd]] ![x](../../etc/passwd.png) "
        "![[img/missing.png]]",
        resolver,
    )
    assert out.html.count('src="vault:img/dot.png"') == 2
    text = text_of(out.html)
    assert text.count("lies outside the vault") == 2
    assert "Missing attachment: “img/missing.png”" in text
    assert "passwd" not in "".join(re.findall(r'src="([^"]*)"', out.html))


def test_obsidian_comments_and_block_ids_are_hidden(resolver: FakeResolver) -> None:
    out = render("Visible %%secret note%% text.\n\nA paragraph ^para-1\n", resolver)
    text = text_of(out.html)
    assert "secret note" not in text and "Visible" in text
    assert "^para-1" not in text and '<a name="^para-1">' in out.html


def test_body_tags_are_clickable(resolver: FakeResolver) -> None:
    out = render("Filed under #nested/tag and #114 is an issue. `#code`", resolver)
    assert "tag:nested%2Ftag" in hrefs(out.html)
    assert "tag:114" not in hrefs(out.html) and "tag:code" not in hrefs(out.html)


def test_renders_are_cached_by_content_and_theme(resolver: FakeResolver) -> None:
    a = render_entry(lit_008(), resolver)
    assert render_entry(lit_008(), resolver) is a
    dark = render_entry(lit_008(), resolver, theme="dark")
    assert dark is not a and dark.theme == "dark" and "#1e1e21" in dark.html
    changed = render_entry(lit_008(body="new body", mtime=2.0), resolver)
    assert "new body" in text_of(changed.html)


def test_find_heading_by_text_anchor_or_slug(resolver: FakeResolver) -> None:
    out = render("## Über die Skalierung!\n\n## Results (2017)\n", resolver)
    assert find_heading(out.headings, "über die skalierung!") == out.headings[0][2]
    assert find_heading(out.headings, "Results 2017") == out.headings[1][2]
    assert find_heading(out.headings, out.headings[1][2]) == out.headings[1][2]
    assert find_heading(out.headings, "Nothing") is None


def test_aliases_are_shown_under_the_title(resolver: FakeResolver) -> None:
    out = render_entry(lit_008(aliases=["Transformer paper"]), resolver)
    assert "Also called Transformer paper" in text_of(out.html)


def test_preview_html_has_title_and_first_lines() -> None:
    html = preview_html(lit_008())
    text = text_of(html)
    assert "LIT-008 — Attention Is All You Need" in text
    assert "literature · Active · 2 min read" in text
    assert "Vaswani et al. (2017) introduced the Transformer. SOTA-050 rests on it" in text
    assert "[[" not in text


def test_renderer_never_imports_qt() -> None:
    import subprocess
    import sys

    code = (
        "import sys, anthology.vault.render as r; "
        "assert not any(m.startswith(('PySide6', 'shiboken')) for m in sys.modules), 'Qt!'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_demo_block_reads_the_one_registry(resolver: FakeResolver) -> None:
    from anthology.demo import DEMOS

    out = render("```demo\nattention-scaling\n```\n", resolver)
    assert DEMOS["attention-scaling"].description in text_of(out.html)
