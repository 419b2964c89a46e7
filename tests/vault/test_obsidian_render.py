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
    # a done task is greyed and struck through too (issue 34, item 18); an open one is not
    done = re.search(r'<li class="task done"[^>]*>', html)
    assert done is not None and "line-through" in done.group()
    todo = re.search(r'<li class="task open"[^>]*>', html) or re.search(r"<li[^>]*>☐", html)
    assert todo is not None and "line-through" not in todo.group()
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


def test_foldable_callouts_render_their_state_and_a_fold_link(resolver) -> None:
    from test_render import text_of

    body = (
        "> [!faq]- Closed\n> hidden body\n\n> [!faq]+ Open\n> open body\n\n> [!note] Plain\n> x\n"
    )
    html = _render(body, resolver)
    assert 'href="fold:0"' in html and 'href="fold:1"' in html and "fold:2" not in html
    assert "hidden body" not in text_of(html) and "open body" in text_of(html)
    from anthology.vault.render.entry import render_entry

    flipped = str(
        render_entry(
            lit_008(body=body), resolver, vault_root=resolver.root, folds=frozenset({0, 1})
        ).html
    )
    assert "hidden body" in text_of(flipped) and "open body" not in text_of(flipped)


BLOCKS = """Intro ^p1

- one
- two ^item
  - sub
- three

> quote line
> more

^q1

| a | b |
|---|---|
| 1 | 2 |
^t1
"""


def test_a_block_id_names_its_paragraph_list_item_or_the_block_above() -> None:
    from anthology.vault.render.embeds import block_of

    assert block_of(BLOCKS, "p1") == "Intro ^p1"
    assert block_of(BLOCKS, "item") == "- two ^item\n  - sub"  # that item, not the list
    assert block_of(BLOCKS, "q1") == "> quote line\n> more"  # alone, after a blank line
    assert block_of(BLOCKS, "t1") == "| a | b |\n|---|---|\n| 1 | 2 |"  # right under it
    assert block_of(BLOCKS, "nope") == "*(no block ^nope in this entry)*"


def test_a_block_id_alone_on_its_line_is_an_anchor_not_text(resolver) -> None:
    from test_render import text_of

    html = _render(BLOCKS, resolver)
    text = text_of(html)
    assert "^q1" not in text and "^t1" not in text and "^item" not in text
    assert '<a name="^q1">' in html and '<a name="^t1">' in html


def test_which_ids_are_only_paths() -> None:
    from anthology.vault.model import EntryRef, is_path_id

    assert is_path_id("Projects/Alpha/Plan", "Projects/Alpha/Plan.md")
    assert is_path_id("Home", "Home.md")  # a vault without ids: the title names it
    assert is_path_id("Café ☕ notes", "Café ☕ notes.md")
    assert not is_path_id("LIT-008", "LIT-008.md")  # the anthology: files named by id
    assert not is_path_id("HOME", "HOME.md")
    assert not is_path_id("LIT-008", "papers/attention.md")  # declared in front matter
    assert EntryRef("Home", "Welcome", "Home.md").short_label == "Welcome"
    assert EntryRef("LIT-008", "Attention", "LIT-008.md").short_label == "LIT-008 — Attention"
    html = pending_html(lit_008(id="Home", path="Home.md", title="Welcome"))
    assert '<h1 class="title">Welcome</h1>' in html
