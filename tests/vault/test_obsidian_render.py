"""How the entry pane renders an Obsidian vault's blocks (issue 13, render part)."""

from __future__ import annotations

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
