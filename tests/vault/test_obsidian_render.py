"""How the entry pane renders an Obsidian vault's blocks (issue 13, render part)."""

from __future__ import annotations

import re

from test_render_sample import lit_008

from anthology.vault.render.entry import pending_html


def test_path_id_title_shows_title_alone() -> None:
    entry = lit_008(id="Projects/Alpha/Plan", path="Projects/Alpha/Plan.md", title="Plan")
    html = pending_html(entry)
    assert '<h1 class="title">Plan</h1>' in html
    assert "Projects/Alpha/Plan:" not in html


def test_anthology_id_keeps_its_prefix() -> None:
    html = pending_html(lit_008())
    assert '<h1 class="title">LIT-008: Attention Is All You Need</h1>' in html


def test_display_math_inside_list_item_keeps_the_list(tmp_path) -> None:
    from test_render_sample import FakeResolver

    from anthology.vault.render.entry import render_entry

    body = "- one\n  $$a+b$$\n  more\n- two\n- three\n"
    resolver = FakeResolver(tmp_path)
    html = str(render_entry(lit_008(body=body), resolver, vault_root=tmp_path).html)
    assert "- two" not in html and "- three" not in html
    assert html.count("<li>") >= 3


def _render(body: str, resolver) -> str:
    from anthology.vault.render import clear_render_cache
    from anthology.vault.render.entry import render_entry

    clear_render_cache()
    return str(render_entry(lit_008(body=body), resolver, vault_root=resolver.root).html)


def test_every_task_state_is_a_task_with_its_own_marker(resolver) -> None:
    from test_render import text_of

    body = (
        "- [ ] open\n- [x] done\n- [-] dropped\n- [/] half\n- [>] later\n- [?] unsure\n- [%] odd\n"
    )
    html = _render(body, resolver)
    text = text_of(html)
    for line in ("☐ open", "☑ done", "☒ dropped", "◐ half", "▷ later", "? unsure", "[%] odd"):
        assert line in text
    assert "[-]" not in text and "[/]" not in text and "[?]" not in text
    assert 'class="task cancelled"' in html and "line-through" in html
    assert 'title="Task: question"' in html


def test_markdown_image_takes_obsidian_size(resolver) -> None:
    body = "![a dot|100](img/dot.png) ![|40x30](img/dot.png) ![plain](img/dot.png)"
    images = re.findall(r"<img[^>]*>", _render(body, resolver))
    assert images == [
        '<img alt="a dot" src="vault:img/dot.png" width="100">',
        '<img alt="" height="30" src="vault:img/dot.png" width="40">',
        '<img alt="plain" src="vault:img/dot.png">',
    ]


def test_inline_footnotes_are_footnotes_numbered_with_the_others(resolver) -> None:
    from test_render import text_of

    body = (
        "Claim^[See [[SOTA-050]] for the [why].] and more[^a].\n\n"
        "`^[in code]` and ^[unclosed\n\n[^a]: A regular one.\n"
    )
    html = _render(body, resolver)
    text = text_of(html)
    refs = re.findall(r'href="#fn:([^"]+)"[^>]*>(\d+)<', html)
    assert refs == [("inline-1", "1"), ("a", "2")]  # in the order they are read
    assert "See SOTA-050 for the [why]." in " ".join(text.split())
    assert 'href="entry:SOTA-050"' in html  # the note's link is a link
    assert "^[in code]" in text and "^[unclosed" in text
    assert "^[See" not in text


def test_inline_footnotes_pair_brackets_in_one_pass() -> None:
    from anthology.vault.render import markdown_ext

    # Unclosed ^[ repeated: the text comes back, and the bracket pass does work in
    # proportion to the input (counted, not timed): twice the input, twice the matches.
    calls: list[int] = []
    real = markdown_ext._bracket_pairs

    def counting(text: str) -> dict[int, int]:
        calls.append(text.count("[") + text.count("]"))
        return real(text)

    markdown_ext._bracket_pairs = counting
    try:
        for n in (20_000, 40_000):
            body = "^[" * n
            assert markdown_ext.inline_footnotes(body) == body
    finally:
        markdown_ext._bracket_pairs = real
    assert calls == [20_000, 40_000]
    assert markdown_ext.inline_footnotes("a^[b^[c]d]e") == "a[^inline-1]e\n\n[^inline-1]: b^[c]d\n"
