"""What ``anthology check``, ``export`` and the unlinked mentions say of the notes in
``tests/vaults/obsidian-rules/report/`` (links written as Obsidian's help pages write them).

The whole fixture vault is indexed (other folders belong to other tests); every assertion
names a file or a link of ``report/``, never a whole-vault total.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from anthology.vault import VaultIndex
from anthology.vault.links import heading_key
from anthology.vault.model import MATCH_END, MATCH_START
from anthology.vault.reports import PROBLEM_KINDS, SEVERITIES, summarize
from anthology.vault.search import mention_snippet, mention_text

README = Path(__file__).resolve().parents[2] / "README.md"
CHECKS = "report/Report checks.md"


@pytest.fixture
def index(obsidian_index: VaultIndex) -> VaultIndex:
    return obsidian_index


def _problems_of(index: VaultIndex, path: str) -> list[tuple[int | None, str, str]]:
    return [(p.line, p.kind, p.severity) for p in index.problems() if p.path == path]


def test_each_link_of_the_checks_note_gets_its_one_finding(index: VaultIndex) -> None:
    assert _problems_of(index, CHECKS) == [
        (6, "unresolved-link", "warning"),
        (10, "heading-not-found", "warning"),
        (12, "block-not-found", "warning"),
        (14, "missing-attachment", "warning"),
    ]


def test_the_messages_name_what_is_missing(index: VaultIndex) -> None:
    messages = {p.kind: p.message for p in index.problems() if p.path == CHECKS}
    assert messages["heading-not-found"] == (
        "“Report target#Nowhere to be found”: no heading “Nowhere to be found” in "
        "report/Report target.md"
    )
    assert messages["block-not-found"] == (
        "“Report target#^gone”: no block ^gone in report/Report target.md"
    )
    assert "A note not yet written" in messages["unresolved-link"]


def test_a_linked_entry_is_no_orphan_and_an_unlinked_one_is_only_info(index: VaultIndex) -> None:
    assert _problems_of(index, "report/Report target.md") == []
    assert _problems_of(index, "report/mentions/Plain mention.md") == [(None, "orphan", "info")]


def test_heading_keys_ignore_case_punctuation_and_spacing() -> None:
    assert heading_key("What is the Obsidian Hub?") == heading_key("what is the  obsidian hub")
    assert heading_key("Réal: heading!") == "réal heading"
    assert heading_key("A") != heading_key("B")


def test_every_kind_made_anywhere_is_in_the_table() -> None:
    src = Path(__file__).resolve().parents[2] / "src" / "anthology" / "vault"
    made = set()
    for path in src.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        made |= set(re.findall(r'(?:ParseProblem|ProblemRow)\(\s*(?:[\w.]+, None, )?"([a-z-]+)"',
                               text))  # fmt: skip
        made |= set(re.findall(r'\(\s*"([a-z-]+)",\s*$', text, re.M)) & {"too-large", "encoding"}
    assert made, "the pattern found no kind"
    assert made <= set(PROBLEM_KINDS), made - set(PROBLEM_KINDS)
    assert {severity for severity, _ in PROBLEM_KINDS.values()} <= set(SEVERITIES)


def test_the_readme_lists_every_kind_with_its_severity() -> None:
    readme = README.read_text(encoding="utf-8")
    for kind, (severity, _what) in PROBLEM_KINDS.items():
        assert re.search(rf"^\| `{kind}` \| {severity} \|", readme, re.M), kind


def test_summary_counts_per_kind_and_severity(index: VaultIndex) -> None:
    mine = [p for p in index.problems() if p.path == CHECKS]
    summary = summarize(mine)
    assert summary["by_severity"] == {"error": 0, "warning": 4, "info": 0}
    assert summary["by_kind"] == {"missing-attachment": 1, "block-not-found": 1,
                                  "heading-not-found": 1, "unresolved-link": 1}  # fmt: skip


def _mentioning(index: VaultIndex, entry_id: str) -> dict[str, str]:
    return {h.entry.path: h.snippet for h in index.unlinked_mentions(entry_id)}


def test_a_name_in_prose_is_an_unlinked_mention(index: VaultIndex) -> None:
    found = _mentioning(index, "report/mentions/Zettel Garden")
    assert found["report/mentions/Plain mention.md"] == (
        f"I tend the {MATCH_START}Zettel Garden{MATCH_END} every morning.\n"
    )


def test_no_mention_inside_a_url_code_or_link(index: VaultIndex) -> None:
    found = _mentioning(index, "report/mentions/Zettel Garden")
    # Each of these names "obsidian-help" or "Zettel Garden" only in a URL, inline or fenced
    # code, a wikilink's alias, a Markdown link's text: full-text search finds them all.
    assert index.search('"obsidian help"', limit=50)
    for path in ("In a URL.md", "In code.md", "In a link.md"):
        assert f"report/mentions/{path}" not in found, path


def test_a_mention_after_a_url_is_found_and_only_it_is_marked(index: VaultIndex) -> None:
    found = _mentioning(index, "report/mentions/Zettel Garden")
    snippet = found["report/mentions/Mention after a URL.md"]
    assert snippet.count(MATCH_START) == 1
    assert f"obsidianmd/obsidian-help we learn that {MATCH_START}obsidian-help{MATCH_END}" in (
        snippet
    )


@pytest.mark.parametrize(
    "text",
    [
        "see https://github.com/obsidianmd/obsidian-help/issues",
        "see <https://example.org/obsidian-help>",
        "see www.obsidian-help.org today",
        "run `obsidian-help` now",
        "``code with ` obsidian-help``",
        "```\nobsidian-help\n```",
        "[[Other|obsidian-help]] and ![[obsidian-help.png]]",
        "[obsidian-help](https://example.org) and ![obsidian-help](pic.png)",
        "%% obsidian-help %% and <!-- obsidian-help -->",
    ],
)
def test_what_is_not_prose_holds_no_mention(text: str) -> None:
    assert mention_snippet(text, [(("obsidian", "help"), False)]) is None
    assert len(mention_text(text)) == len(text)


def test_prose_around_the_blanked_parts_still_mentions() -> None:
    text = "`obsidian-help` then obsidian-help, https://x.org/obsidian-help"
    snippet = mention_snippet(text, [(("obsidian", "help"), False)])
    assert snippet == f"`obsidian-help` then {MATCH_START}obsidian-help{MATCH_END}, " + (
        "https://x.org/obsidian-help"
    )
