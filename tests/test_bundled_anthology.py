"""The bundled anthology is the first thing every user reads: it must be sound."""

from __future__ import annotations

from pathlib import Path

import pytest

from anthology.paths import entries_dir
from anthology.vault.index import VaultIndex


@pytest.fixture(scope="module")
def anthology(tmp_path_factory: pytest.TempPathFactory):
    with VaultIndex.open(entries_dir(), tmp_path_factory.mktemp("idx") / "i.sqlite") as idx:
        yield idx


def test_check_finds_no_problem(anthology: VaultIndex) -> None:
    assert anthology.problems() == []


def test_it_has_at_least_45_entries_and_a_home(anthology: VaultIndex) -> None:
    assert anthology.stats()["entries"] >= 45
    assert anthology.home_id() == "HOME"


def test_lit_008_matches_the_seed_page(anthology: VaultIndex) -> None:
    e = anthology.entry("LIT-008")
    assert e is not None and e.title == "Attention Is All You Need"
    shown = {k: v for k, v in e.properties.items()
             if k not in {"id", "title", "kind", "authors", "year", "arxiv"}}  # fmt: skip
    assert shown == {
        "status": "active",
        "version": 2,
        "tags": ["model-architecture", "attention-techniques"],
        "compared_against": ["[[LIT-709]]"],
    }
    assert [(r.relation, r.other.id) for r in e.relations] == [("compared against", "LIT-709")]
    assert [(r.relation, r.other.label) for r in e.cited_by] == [
        ("introduced by", "SOTA-050 — Scale attention weights by 1/sqrt(head_dim)"),
        # Issue #16: Post-LN is the paper's layout (the seed's rows stay; see
        # test_anthology_content.py for the rendered Properties box).
        ("introduced by", "SOTA-057 — Normalise after each residual addition (Post-LN)"),
        ("paper", "NOTE-011 — Attention Is All You Need"),
        ("source", "SOTA-050 — Scale attention weights by 1/sqrt(head_dim)"),
    ]
    assert e.reading_minutes == 2
    assert "we suspect" in e.body


def test_every_lit_entry_names_its_arxiv_id(anthology: VaultIndex) -> None:
    lit = [r for r in anthology.entries() if r.id.startswith("LIT-")]
    assert len(lit) >= 15
    for ref in lit:
        arxiv = str(anthology.entry(ref.id).properties.get("arxiv", ""))
        assert arxiv.count(".") == 1 and arxiv.replace(".", "").isdigit(), ref.id


def test_sota_050_embeds_the_demo(anthology: VaultIndex) -> None:
    body = anthology.entry("SOTA-050").body
    assert "```demo\nattention-scaling\n```" in body


def test_relations_come_from_the_documented_vocabulary(anthology: VaultIndex) -> None:
    vocabulary = {"introduced by", "source", "paper", "compared against", "refines",
                  "supersedes", "contradicts"}  # fmt: skip
    used = {lk["relation"] for lk in anthology.export_json()["links"] if lk["relation"]}
    assert used <= vocabulary
    home = anthology.entry("HOME").body
    for relation in vocabulary:
        assert relation.replace(" ", "_") in home


def test_entries_are_plain_files_the_app_never_touches() -> None:
    for path in Path(entries_dir()).glob("*.md"):
        assert path.read_text(encoding="utf-8").startswith("---\n"), path.name
