"""The graph's link pairs are kept beside the index under its revision (at 100,000 entries
asking for them took ~0.8 s of every start): the graph drawn from the copy must be the one
asked of the index, an edit must never be drawn from an older copy, and a copy that is torn,
foreign or cannot be written is asked again, never shown and never an error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from anthology.vault import VaultIndex
from anthology.vault.graph_cache import LinkPairs, cache_path, load, save
from anthology.vault.index_file import remove_index
from anthology.vault.schema import REVISION_KEY


def _vault(root: Path) -> Path:
    (root / "Papers").mkdir(parents=True)
    (root / "Home.md").write_text("# Home\n\n[[Alpha]] [[Beta 🌱]] [[Not written]]\n")
    (root / "Papers" / "Alpha.md").write_text(
        "---\nintroduced by: '[[Beta 🌱]]'\n---\n# Alpha\n\nSee [[Beta 🌱]], [[Home]].\n"
    )
    (root / "Papers" / "Beta 🌱.md").write_text("# Beta\n\nBack to [[Home]].\n")
    (root / "Papers" / "v1.2 notes.md").write_text("# Notes\n\nNothing links here.\n")
    return root


def _pairs(index: VaultIndex) -> dict[tuple[str, str], str | None]:
    data = index.graph(ghosts=True)
    return {
        (data.ids[a], data.ids[b]): rel
        for (a, b), rel in zip(data.edges.tolist(), data.relations, strict=True)
    }


def _asked(index: VaultIndex) -> dict[tuple[str, str], str | None]:
    """The pairs as asked of the index now, no copy in the way."""
    cache_path(index.db_path).unlink(missing_ok=True)
    with sqlite3.connect(index.db_path) as conn:
        conn.execute("DELETE FROM meta WHERE key = ?", (REVISION_KEY,))
    try:
        return _pairs(index)
    finally:
        index.store_stats()  # a revision again


def test_the_graph_from_the_copy_is_the_graph_asked(tmp_path: Path) -> None:
    root = _vault(tmp_path / "vault")
    db = tmp_path / "index.sqlite"
    with VaultIndex.open(root, db) as index:
        first = _pairs(index)
        assert cache_path(db).is_file()  # kept by the first question
        assert first[("Papers/Alpha", "Papers/Beta 🌱")] == "introduced by"
        assert first[("Home", "?Not written")] is None
    with VaultIndex.open(root, db, refresh=False) as index:
        revision = index.revision()
        assert revision is not None
        kept = load(cache_path(db), revision, len(index.entries()))
        assert kept is not None and len(kept.pairs) == 5  # the resolved pairs, no ghost
        assert _pairs(index) == first == _asked(index)


def test_an_edit_is_drawn_as_edited_never_from_the_older_copy(tmp_path: Path) -> None:
    root = _vault(tmp_path / "vault")
    db = tmp_path / "index.sqlite"
    with VaultIndex.open(root, db) as index:
        before = index.revision()
        assert ("Papers/Beta 🌱", "Home") in _pairs(index)
        (root / "Papers" / "Beta 🌱.md").write_text("# Beta\n\nNow to [[v1.2 notes]] only.\n")
        index.refresh()
        assert index.revision() not in (None, before)
        after = _pairs(index)
        assert ("Papers/Beta 🌱", "Home") not in after
        assert after[("Papers/Beta 🌱", "Papers/v1.2 notes")] is None
        assert after == _asked(index)
        # a refresh that changes nothing keeps the revision, and with it the copy
        kept = index.revision()
        index.refresh()
        assert index.revision() == kept


def test_a_copy_of_another_index_at_the_same_place_is_not_used(tmp_path: Path) -> None:
    root = _vault(tmp_path / "vault")
    db = tmp_path / "index.sqlite"
    with VaultIndex.open(root, db) as index:
        _pairs(index)
    kept = cache_path(db).read_bytes()
    remove_index(db)
    assert not cache_path(db).exists()  # removed with the index
    cache_path(db).write_bytes(kept)  # as if it had been left behind
    (root / "Home.md").write_text("# Home\n\nOnly [[v1.2 notes]].\n")
    with VaultIndex.open(root, db) as index:
        pairs = _pairs(index)
        assert ("Home", "Papers/Alpha") not in pairs and ("Home", "Papers/v1.2 notes") in pairs


def test_a_torn_or_foreign_copy_is_asked_again_and_replaced(tmp_path: Path) -> None:
    root = _vault(tmp_path / "vault")
    db = tmp_path / "index.sqlite"
    with VaultIndex.open(root, db) as index:
        truth = _pairs(index)
        revision = index.revision()
        n = len(index.entries())
        assert revision is not None
        whole = cache_path(db).read_bytes()
        np.save(tmp_path / "one.npy", np.arange(4))  # an array file, not an archive
        one = (tmp_path / "one.npy").read_bytes()
        for bad in (b"", b"not a zip at all", whole[: len(whole) // 2], one):
            cache_path(db).write_bytes(bad)
            assert _pairs(index) == truth
            assert load(cache_path(db), revision, n) is not None  # replaced by a whole one
        # the right key over pairs that point past the graph: not believed
        wrong = LinkPairs(np.array([[0, n + 7]]), np.array([-1]), [])
        save(cache_path(db), revision, n, wrong)
        assert load(cache_path(db), revision, n) is None
        assert _pairs(index) == truth


def test_a_place_that_cannot_be_written_keeps_nothing_and_the_graph_still_comes(
    tmp_path: Path,
) -> None:
    root = _vault(tmp_path / "vault")
    db = tmp_path / "index.sqlite"
    with VaultIndex.open(root, db) as index:
        cache_path(db).mkdir()  # a folder where the file would go: it cannot be replaced
        assert ("Papers/Alpha", "Papers/Beta 🌱") in _pairs(index)
        assert cache_path(db).is_dir() and not list(tmp_path.glob("*.part"))
