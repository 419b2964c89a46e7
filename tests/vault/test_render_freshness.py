"""A refresh keeps the cached pages and previews it leaves true (issue 30: "a live reload of
one note re-renders that note … and repaints only the panels it touches"): the renders of
other notes come back from the cache, the same objects, while a page that links to, embeds
or waits for what changed is made again.

Real files in a temp vault, a real index read by one connection while another refreshes it
(as the window's background indexer does)."""

from __future__ import annotations

from pathlib import Path

from anthology.session import Changes
from anthology.vault.index import VaultIndex
from anthology.vault.render import render_entry
from anthology.vault.render.entry import cached_render
from anthology.vault.render.freshness import carry_renders
from anthology.vault.render.previews import cached_preview, render_preview
from sample_vault import write_newer, write_vault

FILES = {
    "Projects/Plan 🚀.md": "# Plan\n\nSee [[Budget v2.1]] and ![[Notes/Minutes]].\n\n"
    "Later: [[Someday]].\n\n![[pics/chart.png]]\n",
    "Budget v2.1.md": "---\ntitle: Budget\n---\nNumbers.\n",
    "Notes/Minutes.md": "# Minutes\n\nWe met.\n",
    "Notes/Minutes of another.md": "# Elsewhere\n\nLinks to [[Budget v2.1]] only.\n",
    "Diary/Monday.md": "# Monday\n\nNothing linked.\n",
    "pics/chart.png": "not really a PNG",
}


def _refresh(root: Path, db: Path) -> frozenset[str]:
    """Refresh the index from another connection; the ids to check renders against."""
    with VaultIndex.open(root, db, refresh=False) as writer:
        changes = Changes.from_report(writer.refresh())
    return changes.changed | changes.removed | {old for old, _new in changes.renamed}


def test_an_edit_keeps_the_pages_it_does_not_touch(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "vault", FILES)
    db = tmp_path / "index.sqlite"
    with VaultIndex.open(root, db) as index:
        plan = _id(index, "Plan 🚀")
        other, monday = _id(index, "Minutes of another"), _id(index, "Monday")

        def render(entry_id: str):
            entry = index.entry(entry_id)
            assert entry is not None
            return render_entry(entry, index, vault_root=root)

        def cached(entry_id: str):
            entry = index.entry(entry_id)
            assert entry is not None
            return cached_render(entry, index, vault_root=root)

        pages = {i: render(i) for i in (plan, other, monday)}
        preview = render_preview(index.entry(monday), index, vault_root=root)

        # the embedded note is edited: the page embedding it goes, the others stay
        write_newer(root / "Notes" / "Minutes.md", "# Minutes\n\nWe met, and decided.\n")
        carry_renders(index, _refresh(root, db))
        assert cached(plan) is None
        assert cached(other) is pages[other] and cached(monday) is pages[monday]
        assert cached_preview(index.entry(monday), index) is preview
        assert "decided" in render(plan).html

        # the linked note's title changes: the pages linking to it go (they show it)
        pages[plan] = render(plan)
        write_newer(root / "Budget v2.1.md", "---\ntitle: Budget, revised\n---\nNumbers.\n")
        carry_renders(index, _refresh(root, db))
        assert cached(plan) is None and cached(other) is None
        assert cached(monday) is pages[monday]

        # a note the plan waits for ([[Someday]]) is written: its link resolves now
        pages[plan], pages[other] = render(plan), render(other)
        assert 'href="unresolved:Someday"' in pages[plan].html
        write_newer(root / "Someday.md", "# Someday\n")
        carry_renders(index, _refresh(root, db))
        assert cached(plan) is None and cached(other) is pages[other]
        assert 'href="entry:Someday"' in render(plan).html

        # the picture it shows is replaced: the page goes (its size may differ)
        pages[plan] = render(plan)
        write_newer(root / "pics" / "chart.png", "another picture, longer than before")
        carry_renders(index, _refresh(root, db))
        assert cached(plan) is None and cached(other) is pages[other]

        # a note that nothing shown links to is removed: every page stays
        pages[plan] = render(plan)
        (root / "Diary" / "Monday.md").unlink()
        carry_renders(index, _refresh(root, db))
        assert cached(plan) is pages[plan] and cached(other) is pages[other]
        assert _id(index, "Monday") is None


def _id(index: VaultIndex, name: str) -> str | None:
    """The id of the note whose file is named ``name`` (the vault has no id properties)."""
    return next((e.id for e in index.entries() if Path(e.path).stem == name), None)
