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
