"""The blocks of tests/vaults/obsidian-rules/render/ as the entry pane shows them, through a
real index (Obsidian's help pages "Basic formatting syntax", "Advanced formatting syntax",
"Callouts", "Link to blocks"). Asserts one note at a time: other folders share the vault."""

from __future__ import annotations

import re

import pytest
from test_render import text_of

from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache, render_entry


@pytest.fixture
def vault_index(obsidian_index: VaultIndex) -> VaultIndex:
    return obsidian_index


def html_of(idx: VaultIndex, entry_id: str, **kw) -> str:
    clear_render_cache()
    entry = idx.entry(entry_id)
    assert entry is not None
    return render_entry(entry, idx, vault_root=idx.root, **kw).html


def test_the_blocks_page(vault_index: VaultIndex) -> None:
    html = html_of(vault_index, "render/Blocks")
    text = " ".join(text_of(html).split())
    for shown in ("☐ open", "☑ done", "☒ cancelled", "◐ in progress", "▷ forwarded"):
        assert shown in text
    assert "[-]" not in text and "[/]" not in text and "^ask" not in text
    # inline and regular footnotes, numbered in reading order, listed at the end
    assert re.findall(r'href="#fn:([^"]+)"[^>]*>(\d+)<', html) == [("inline-1", "1"), ("1", "2")]
    assert "Inline footnotes are written in place." in text
    assert "^[" not in text
    # display math inside a list item keeps the list
    assert "- second" not in text and "- third" not in text
    # sizes
    assert re.search(r'<img alt="a dot" src="vault:render/img/dot.png" width="40">', html)
    assert re.search(r'<img src="vault:render/img/dot.png"[^>]* width="20"', html)
    # a "-" callout starts closed with a fold link; a plain one has none
    assert "Shown open." in text and "Starts collapsed in Obsidian." not in text
    assert len(re.findall(r'href="fold:\d', html)) == 1  # (headings' are fold:hN)
    opened = " ".join(text_of(html_of(vault_index, "render/Blocks", folds=frozenset({0}))).split())
    assert "Starts collapsed in Obsidian." in opened
    assert "^quoted" not in text  # a block id alone on its line is an anchor


def test_block_embeds_show_the_item_or_the_block_above(vault_index: VaultIndex) -> None:
    text = " ".join(text_of(html_of(vault_index, "render/Embeds")).split())
    assert "? a question" in text  # that task only, with its marker
    assert "open" not in text.split("a question")[0].split("One task of a list:")[-1]
    assert "cancelled" not in text and "in progress" not in text
    assert "A quotation to embed." in text
    assert "no block" not in text
    assert not [p for p in vault_index.problems() if p.path.startswith("render/")
                and p.kind in ("block-not-found", "heading-not-found")]  # fmt: skip
