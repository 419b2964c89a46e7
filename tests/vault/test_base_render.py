"""Bases drawn in place in the entry page: ```` ```base ```` blocks, ``![[X.base]]`` and
``![[X.base#View]]`` over a real index of real files (tests/vaults/bases/ and vaults
written to tmp_path), with bad input shown as a notice where the results would be."""

from __future__ import annotations

import re
from pathlib import Path

from anthology.query.bases import load_base, run_view
from anthology.query.rows import Dataset, FileRow
from anthology.vault.index import VaultIndex
from anthology.vault.model import Entry
from anthology.vault.render import render_entry
from anthology.vault.render.bases import PAGE_ROWS, result_html
from anthology.vault.render.context import RenderContext
from anthology.vault.render.entry import render_size
from anthology.vault.render.freshness import still_current
from anthology.vault.render.theme import palette
from sample_vault import write_vault

BASES_VAULT = Path(__file__).resolve().parents[1] / "vaults" / "bases"


def _page(index: VaultIndex, entry_id: str) -> str:
    entry = index.entry(entry_id)
    assert entry is not None
    return render_entry(entry, index, vault_root=index.root).html


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def test_an_embedded_base_and_a_named_view(tmp_path: Path) -> None:
    with VaultIndex.open(BASES_VAULT, tmp_path / "i.sqlite") as index:
        books = _page(index, "Categories/Books")
        assert "Bases/Books.base — <b>Books</b> · Top rated · Author · Genre · 3 results" in books
        for title in ("Books/Dune", "Books/The%20Left%20Hand%20of%20Darkness"):
            assert f'href="entry:{title.replace("/", "%2F")}"' in books
        # ![[Books.base#Author]] in Frank Herbert's note: `this` is that note
        herbert = _page(index, "People/Frank Herbert")
        assert "<b>Author</b>" in herbert and "1 result" in herbert
        assert 'href="entry:Books%2FDune"' in herbert
        assert "The Left Hand" not in _text(herbert.split("⊞", 1)[1])


def test_a_base_block_sorted_with_a_formula(tmp_path: Path) -> None:
    with VaultIndex.open(BASES_VAULT, tmp_path / "i.sqlite") as index:
        html = _page(index, "Notes/Reading log")
    table = html.split('<table class="base"', 1)[1]
    shown = re.findall(
        r'<td><a class="internal"[^>]*>([^<]+)</a></td><td>(\d+)</td><td>(★+)', table
    )
    assert shown == [("Piranesi 📚", "2020", "★★★★★"), ("The Left Hand of Darkness", "1969",
                     "★★★★"), ("Dune", "1965", "★★★★★")]  # fmt: skip


BAD = {
    "Bad/Not yaml.md": "Before.\n\n```base\nfilters: [unclosed\n```\n\nAfter the block.\n",
    "Bad/Cycle.md": "```base\nformulas:\n  a: formula.b\n  b: formula.a\n"
    "views:\n  - type: table\n    order: [file.name, formula.a]\n```\n\nStill here.\n",
    "Bad/Regex.md": "```base\nfilters: '/(a+)+$/.matches(file.name)'\n```\n\nStill here.\n",
    "Bad/Missing view.md": "![[Shelf.base#Nope]]\n\nStill here.\n",
    "Bad/Missing base.md": "![[Nowhere.base]]\n\nStill here.\n",
    "Bad/Bomb.md": "```base\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n```\n\nStill here.\n",
    "Bad/Date.md": '```base\nformulas:\n  d: date("2024-02-30")\nfilters: file.name == '
    '"Date.md"\nviews: [{order: [file.name, formula.d]}]\n```\n\nStill here.\n',
    "Shelf.base": "views:\n  - type: table\n    name: Shelf\n",
}


def test_bad_input_shows_a_notice_in_place_and_the_page_goes_on(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "vault", BAD)
    with VaultIndex.open(root, tmp_path / "i.sqlite") as index:
        names = ("Not yaml", "Cycle", "Regex", "Missing view", "Missing base", "Bomb", "Date")
        pages = {name: _text(_page(index, f"Bad/{name}")) for name in names}
    assert "Base error (base block): the base is not valid YAML" in pages["Not yaml"]
    assert "After the block." in pages["Not yaml"]
    assert "⚠ formula cycle: formula.a → formula.b → formula.a" in pages["Cycle"]
    assert "can take exponential time, and are refused" in pages["Regex"]
    assert "has no view named “Nope” (its views: “Shelf”)" in pages["Missing view"]
    assert "Missing base: “Nowhere.base”" in pages["Missing base"]
    assert "alias bomb" in pages["Bomb"]
    assert "invalid date “2024-02-30”: day is out of range for month" in pages["Date"]
    for text in pages.values():
        assert "Still here." in text or "After the block." in text
        assert "Traceback" not in text


def test_a_page_with_a_base_renders_off_the_gui_thread_and_is_never_carried(
    tmp_path: Path,
) -> None:
    """The pane renders bodies past 20,000 characters of cost on a worker; a render that
    ran a query is dropped, not carried, by a refresh (its rows may have changed)."""
    with VaultIndex.open(BASES_VAULT, tmp_path / "i.sqlite") as index:
        entry = index.entry("Categories/Books")
        assert entry is not None and len(entry.body) < 200
        assert render_size(entry) > 20_000
        rendered = render_entry(entry, index, vault_root=index.root)
        assert not still_current(rendered, index, frozenset())
        plain = index.entry("Categories/People")
        assert plain is not None and render_size(plain) < 1_000


def test_results_are_paged_past_a_thousand_rows() -> None:
    rows = [FileRow(path=f"N/{i:05d}.md", entry_id=f"N/{i:05d}") for i in range(PAGE_ROWS + 234)]
    data = Dataset(rows, lambda t, s: None)
    base = load_base({"views": [{"order": ["file.name"]}]})
    result = run_view(base, data)
    ctx = RenderContext("x", "x.md", resolver=None, palette=palette("light"))  # type: ignore[arg-type]
    first = result_html(ctx, result, data, base)
    assert first.count('<a class="internal"') == PAGE_ROWS
    assert "Rows 1–1,000 of 1,234; 234 more" in first
    second = result_html(ctx, result, data, base, page=1)
    assert second.count('<a class="internal"') == 234
    assert "Rows 1,001–1,234 of 1,234" in second


def test_a_base_without_an_index_says_so() -> None:
    entry = Entry(id="x", path="x.md", title="x", kind="", status="", tags=[], aliases=[],
                  properties={}, relations=[], cited_by=[], body_line=1, words=0,
                  reading_minutes=0, body="```base\nviews: []\n```\n")  # fmt: skip

    class NoIndex:
        def resolve(self, target: str, source_path: str) -> None:
            return None

        def attachment(self, target: str, source_path: str) -> None:
            return None

        def embed_body(self, entry_id: str) -> None:
            return None

    html = render_entry(entry, NoIndex()).html
    assert "answered from the vault's index" in html
