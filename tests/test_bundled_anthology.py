"""The bundled anthology is the first thing every user reads: it must be sound."""

from __future__ import annotations

import re
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


def test_it_has_at_least_80_entries_and_a_home(anthology: VaultIndex) -> None:
    assert anthology.stats()["entries"] >= 80
    assert anthology.home_id() == "HOME"


def test_every_entry_is_reachable_from_home_and_named_in_its_map(anthology: VaultIndex) -> None:
    links = anthology.export_json()["links"]
    out: dict[str, set[str]] = {}
    for lk in links:
        if lk["target"]:
            out.setdefault(lk["source"], set()).add(lk["target"])
    seen, todo = {"HOME"}, ["HOME"]
    while todo:
        for nxt in out.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    ids = {ref.id for ref in anthology.entries()}
    assert ids - seen == set()
    # The map names every entry itself, not only through a neighbour.
    assert ids - out["HOME"] - {"HOME"} == set()


# The practices issue #16 asked for, each with the arXiv id of the paper that introduced it (or,
# issue #36, None where the practice predates the paper the entry takes its facts from).
COVERAGE = {
    "SOTA-071": "1211.5063",  # gradient-norm clipping (Pascanu et al.)
    "SOTA-072": "1710.03740",  # mixed precision with loss scaling (Micikevicius et al.)
    "SOTA-073": "1701.06538",  # sparse mixture-of-experts (Shazeer et al.)
    "SOTA-074": None,  # warmup-stable-decay: constant-then-cool-down predates MiniCPM
    "SOTA-075": "2306.15595",  # RoPE position interpolation (Chen et al.)
    "SOTA-076": "1608.05859",  # tied input/output embeddings (Press & Wolf)
    "SOTA-077": None,  # MinHash deduplication predates Lee et al.
    "SOTA-078": "2305.10429",  # data-mixture weighting (DoReMi)
    "SOTA-079": "1910.02054",  # sharded optimizer state (ZeRO)
    "SOTA-080": "1811.02084",  # tensor model parallelism (Mesh-TensorFlow, before Megatron-LM)
}


# Where the practice is older than the paper, that paper is its "source" (issue #36).
SOURCE_ONLY = {"SOTA-074": "2404.06395", "SOTA-077": "2107.06499", "SOTA-080": "1909.08053"}


@pytest.mark.parametrize(("practice", "arxiv"), sorted(COVERAGE.items()))
def test_each_coverage_practice_is_introduced_by_its_paper(
    anthology: VaultIndex, practice: str, arxiv: str | None
) -> None:
    entry = anthology.entry(practice)
    assert entry is not None and entry.kind == "practice" and entry.status == "active"
    for section in ("## What to do", "## Why", "## When it does not apply", "## Compared against"):
        assert section in entry.body, (practice, section)
    if practice in SOURCE_ONLY:
        sources = [r.other for r in entry.relations if r.relation == "source" and r.other]
        assert SOURCE_ONLY[practice] in {
            str(s.properties.get("arxiv")) for s in (anthology.entry(o.id) for o in sources)
        }
    introduced = [r.other for r in entry.relations if r.relation == "introduced by"]
    if arxiv is None:
        assert introduced == []
        return
    assert len(introduced) == 1 and introduced[0] is not None
    paper = anthology.entry(introduced[0].id)
    assert paper is not None and paper.kind == "literature"
    assert str(paper.properties["arxiv"]) == arxiv
    # The paper shows the practice back, as the Properties box reads it.
    assert ("introduced by", practice) in [(r.relation, r.other.id) for r in paper.cited_by]


def test_switch_transformer_is_a_source_of_the_mixture_of_experts_practice(
    anthology: VaultIndex,
) -> None:
    sources = [r.other.id for r in anthology.entry("SOTA-073").relations
               if r.relation == "source" and r.other]  # fmt: skip
    arxivs = {str(anthology.entry(s).properties["arxiv"]) for s in sources}
    assert "2101.03961" in arxivs


def test_the_coverage_papers_argue_their_standing(anthology: VaultIndex) -> None:
    """Each paper added for the coverage practices has takeaways and a "Standing in the
    anthology" of at least ~80 words, as the seed page's LIT-008 does."""
    papers = [r.other.id for p in COVERAGE for r in anthology.entry(p).relations
              if r.relation in ("introduced by", "source") and r.other]  # fmt: skip
    for paper in set(papers) - {"LIT-120"}:  # ST-MoE predates this coverage
        body = anthology.entry(paper).body
        assert "## Key takeaways" in body, paper
        standing = body.split("## Standing in the anthology", 1)[1]
        assert len(re.findall(r"\w+", standing)) >= 80, paper


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
