"""The pages an entry pane keeps, asked without a display: what a page is keyed by, which
pages stay for a revisit and which documents are let go."""

from __future__ import annotations

import pytest

from anthology.session.pages import KeptPages, Page, PageLook, heading_key
from anthology.vault.index import VaultIndex
from anthology.vault.render import RenderedEntry, render_entry
from anthology.vault.render.reading import ReadingStyle

LOOK = PageLook(ReadingStyle(), True, 760, 900)


class Doc:
    """A laid-out document as far as the cache can tell: an object with a name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Doc({self.name})"


@pytest.fixture
def renders(index: VaultIndex) -> list[RenderedEntry]:
    refs = index.entries()[:6]
    assert len(refs) == 6
    out = []
    for ref in refs:
        entry = index.entry(ref.id)
        assert entry is not None
        out.append(render_entry(entry, index, vault_root=index.root))
    return out


def page(rendered: RenderedEntry, look: PageLook = LOOK) -> Page[Doc, bytes]:
    return Page(rendered, Doc(rendered.entry_id), {}, look)


def test_heading_keys_match_the_laid_out_block_to_the_toc() -> None:
    assert heading_key("▾\u00a0Results &amp; Notes") == "results & notes"
    assert heading_key("▸\u00a0Results  &amp;\tNotes …") == "results & notes"  # folded
    assert heading_key("A  Title ") == heading_key("a title")
    assert heading_key("Ends with …") == "ends with …"  # only a folded heading's is cut


def test_the_last_pages_are_kept_and_the_oldest_let_go(renders) -> None:
    kept: KeptPages[Doc, bytes] = KeptPages(size=3)
    pages = [page(r) for r in renders[:4]]
    gone = [doc for p in pages for doc in kept.keep(p)]
    assert gone == [pages[0].doc] and len(kept) == 3
    assert renders[0] not in kept and all(r in kept for r in renders[1:4])
    # a revisit makes a page the last to go
    assert kept.find(renders[1], LOOK) is pages[1]
    assert kept.keep(page(renders[4])) == [pages[2].doc]
    assert kept.holds(pages[1].doc) and not kept.holds(pages[2].doc)


def test_a_page_is_found_only_at_the_look_it_was_made_for(renders) -> None:
    kept: KeptPages[Doc, bytes] = KeptPages()
    first = page(renders[0])
    kept.keep(first)
    wider = PageLook(ReadingStyle(), True, 760, 1200)
    bigger = PageLook(ReadingStyle(font_size=16), True, 760, 900)
    assert kept.find(renders[0], wider) is None and kept.find(renders[0], bigger) is None
    assert kept.get(renders[0]) is first  # asked by render alone (the page fits a new width)
    assert kept.find(renders[1], LOOK) is None


def test_the_page_made_ahead_is_kept_once_shown(renders) -> None:
    kept: KeptPages[Doc, bytes] = KeptPages()
    ahead = page(renders[0])
    assert kept.make_ahead(ahead) is None
    assert kept.find(renders[0], LOOK) is ahead and renders[0] not in kept
    other = page(renders[1])
    assert kept.make_ahead(other) is ahead.doc  # the pointer moved on: that one goes
    assert kept.holds(other.doc) and not kept.holds(ahead.doc)
    kept.keep(other)  # clicked: one of the kept pages now
    assert kept.prefetched is None and renders[1] in kept


def test_dropping_every_page_hands_back_every_document(renders) -> None:
    kept: KeptPages[Doc, bytes] = KeptPages()
    for r in renders[:3]:
        kept.keep(page(r))
    ahead = page(renders[3])
    kept.make_ahead(ahead)
    docs = kept.drop()
    assert sorted(d.name for d in docs) == sorted(r.entry_id for r in renders[:4])
    assert len(kept) == 0 and kept.prefetched is None and not kept.holds(ahead.doc)
