"""Search and unlinked-mention snippets stay bounded however many hits one document holds.

FTS5's ``snippet()`` scores every window around every hit: quadratic in the hits of one
document (40k hits took 10-20 s, a 200 MB note a search past 10 minutes). The index ranks
with MATCH over the whole text and cuts the snippet itself from a bounded head of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from anthology.vault.index import VaultIndex
from anthology.vault.model import MATCH_END, MATCH_START
from anthology.vault.search import SNIPPET_WINDOW

HITS = 5_000


def vault_with(tmp_path: Path, name: str, files: dict[str, str]) -> VaultIndex:
    root = tmp_path / name
    root.mkdir()
    for rel, text in files.items():
        (root / rel).write_text(text, encoding="utf-8")
    return VaultIndex.open(root, tmp_path / f"{name}.sqlite")


def best_time(fn: Callable[[], object], runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def growth(small: Callable[[], object], big: Callable[[], object]) -> float:
    """How many times longer `big` takes than `small`, measured in the same run.

    A busy machine can spoil one pair of timings; quadratic work spoils every pair, so the
    ratio is retaken (up to three times) only while it looks too large.
    """
    ratio = best_time(big) / best_time(small)
    for _ in range(2):
        if ratio < 8:
            break
        ratio = min(ratio, best_time(big) / best_time(small))
    return ratio


def hits_body(n: int) -> str:
    return "# Many\n\n" + " ".join(["needle in the hay"] * n) + "\n"


def test_search_work_grows_at_most_linearly_with_hits_in_one_document(tmp_path: Path) -> None:
    small = vault_with(tmp_path, "small", {"many.md": hits_body(HITS)})
    big = vault_with(tmp_path, "big", {"many.md": hits_body(4 * HITS)})
    with small, big:
        assert [h.entry.id for h in big.search("needle")] == ["many"]
        # Quadratic (FTS5 snippet) was ×16 for ×4 the hits; linear is ×4 at most.
        ratio = growth(lambda: small.search("needle"), lambda: big.search("needle"))
        assert ratio < 8, ratio
        snippet = big.search("needle")[0].snippet
    assert snippet.startswith("# Many")
    assert snippet.count(f"{MATCH_START}needle{MATCH_END}") >= 3
    assert snippet.endswith("…") and len(snippet) < 200


def test_mentions_work_grows_at_most_linearly_with_hits_in_one_document(
    tmp_path: Path,
) -> None:
    target = {"Needle.md": "# Needle\n\nThe entry.\n"}
    small = vault_with(tmp_path, "small", {**target, "many.md": hits_body(HITS)})
    big = vault_with(tmp_path, "big", {**target, "many.md": hits_body(4 * HITS)})
    with small, big:
        hits = big.unlinked_mentions("Needle")
        assert [h.entry.id for h in hits] == ["many"]
        assert f"{MATCH_START}needle{MATCH_END}" in hits[0].snippet
        ratio = growth(
            lambda: small.unlinked_mentions("Needle"), lambda: big.unlinked_mentions("Needle")
        )
        assert ratio < 8, ratio


@pytest.fixture
def index(tmp_path: Path):
    far = "# Far\n\n" + "hay " * (SNIPPET_WINDOW // 4 + 100) + "lonelyword at the end\n"
    files = {
        "mid.md": "# Mid\n\n" + "one two three four five six seven eight nine ten "
        "eleven twelve Attention is all you need, said the paper, and more words follow "
        "after it so that the window ends before the text does.\n",
        "cafe.md": "# Le café\n\nUn café noir.\n",
        "titled.md": "---\ntitle: Zebra crossing\n---\nNothing else here.\n",
        "far.md": far,
    }
    with vault_with(tmp_path, "v", files) as idx:
        yield idx


def test_snippets_mark_the_match_with_ellipses_where_text_is_left_out(index) -> None:
    (hit,) = index.search('"attention is all"')
    assert hit.snippet.startswith("…")
    assert f"{MATCH_START}Attention is all{MATCH_END}" in hit.snippet
    assert hit.snippet.endswith("…")
    (prefix,) = index.search("attent")  # the last word matches as a prefix while typing
    assert f"{MATCH_START}Attention{MATCH_END}" in prefix.snippet
    (accent,) = index.search("cafe noir")  # diacritics fold as FTS5 folds them
    assert f"{MATCH_START}café{MATCH_END} {MATCH_START}noir{MATCH_END}" in accent.snippet
    (title,) = index.search("zebra")  # only the title matches: the snippet is the title
    assert title.snippet == f"{MATCH_START}Zebra{MATCH_END} crossing"


def test_a_match_past_the_snippet_window_is_found_and_shown_by_its_start(index) -> None:
    (hit,) = index.search("lonelyword")
    assert hit.entry.id == "far"
    assert hit.snippet.startswith("# Far") and hit.snippet.endswith("…")
    assert MATCH_START not in hit.snippet
