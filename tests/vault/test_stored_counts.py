"""The status bar's counts are kept with the index: a start reads them, it does not list
every problem again (at 100,000 entries that took 2.5 s of every start). They must say what
``anthology check`` lists, after every edit that adds or removes a problem."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

from anthology.vault import VaultIndex
from anthology.vault.schema import STATS_KEY


def _severities(index: VaultIndex) -> dict[str, int]:
    counts = Counter(p.severity for p in index.problems())
    return {"errors": counts["error"], "warnings": counts["warning"], "info": counts["info"]}


def _shown(index: VaultIndex) -> dict[str, int]:
    stats = index.stats()
    return {k: stats[k] for k in ("errors", "warnings", "info")}


def _vault(root: Path) -> Path:
    (root / "Topics").mkdir(parents=True)
    (root / "Home.md").write_text("# Home\n\nSee [[Alpha]] and [[Beta#Method]].\n")
    (root / "Topics" / "Alpha.md").write_text("# Alpha\n\nBack [[Home]]. Then [[Beta]].\n")
    (root / "Topics" / "Beta 🌱.md").write_text(
        "---\naliases: [Beta]\n---\n# Beta\n\n## Method\n\nBack to [[Alpha]].\n"
    )
    (root / "Loose note.md").write_text("Nothing links here.\n")
    return root


def _stored(db: Path) -> str | None:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (STATS_KEY,)).fetchone()
    return row[0] if row else None


def test_counts_equal_the_problems_listed_after_each_edit(tmp_path: Path) -> None:
    root = _vault(tmp_path / "vault")
    db = tmp_path / "index.sqlite"
    with VaultIndex.open(root, db) as index:
        assert _shown(index) == _severities(index) == {"errors": 0, "warnings": 0, "info": 1}
        assert _stored(db) is not None  # kept with the index by the refresh

        # a link to a note not written yet, a missing heading and a bad front matter
        (root / "Topics" / "Alpha.md").write_text(
            "# Alpha\n\nBack [[Home]]. [[Not yet written]] and [[Beta 🌱#Nowhere]].\n"
        )
        (root / "Broken.md").write_text("---\ntitle: [unclosed\n---\nLinks [[Home]].\n")
        index.refresh()
        assert _shown(index) == _severities(index)
        assert _shown(index)["errors"] == 1 and _shown(index)["warnings"] == 2

        # the problems fixed, the loose note linked: fewer of each
        (root / "Topics" / "Alpha.md").write_text("# Alpha\n\nBack [[Home]]. [[Loose note]].\n")
        (root / "Broken.md").unlink()
        index.refresh()
        assert _shown(index) == _severities(index) == {"errors": 0, "warnings": 0, "info": 0}
        assert index.stats()["entries"] == len(index.entries()) == 4


def test_a_start_reads_the_counts_kept_and_a_reader_sees_them(tmp_path: Path) -> None:
    root = _vault(tmp_path / "vault")
    db = tmp_path / "index.sqlite"
    VaultIndex.open(root, db).close()
    with VaultIndex.open(root, db, refresh=False) as index:
        reader = index.reader()
        try:
            assert reader.stats() == index.count_stats()  # as counted from the rows now
        finally:
            reader.close()


def test_counts_dropped_by_an_edit_are_counted_when_not_kept(tmp_path: Path) -> None:
    """A refresh cut off after its write (the counts not stored yet): the counts are
    counted from the index then, never the old ones shown."""
    root = _vault(tmp_path / "vault")
    db = tmp_path / "index.sqlite"
    VaultIndex.open(root, db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM meta WHERE key = ?", (STATS_KEY,))
    (root / "Topics" / "Alpha.md").write_text("# Alpha\n\n[[Nowhere at all]].\n")
    with VaultIndex.open(root, db, refresh=False) as index:
        assert _shown(index) == _severities(index)  # nothing kept: counted
        index.refresh()
        assert _stored(db) is not None
        assert _shown(index) == _severities(index)
        assert _shown(index)["warnings"] == 1
