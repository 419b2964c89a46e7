"""Related entries and the relations ladder, asked of a real index of a real-shaped vault
(tests/related_vault.py): what ranks, what explains a row, what is kept out, and each bad
input of issue 37 (one word, 1 MB, every note one template, a loop) answered or said."""

from __future__ import annotations

from pathlib import Path

import pytest

from anthology.vault.index import VaultIndex
from anthology.vault.related import TEXT_READ, RelatedEntries
from related_vault import BOOK, write_related_vault

STARTER = "Baking/Sourdough starter 🍞"


@pytest.fixture
def rindex(tmp_path: Path):
    vault = write_related_vault(tmp_path / "my vault")
    with VaultIndex.open(vault, tmp_path / "index.sqlite") as index:
        yield index


def ids(rows) -> list[str]:
    return [r.ref.id for r in rows]


def test_the_bread_notes_are_related_to_a_bread_book_split_by_links(rindex) -> None:
    found = rindex.related("Reading/Books/The Bread Book")
    assert ids(found.unlinked)[:2] == ["Baking/Rye bread", "Baking/Country loaf"]
    assert found.linked == ()  # a book of the reading list links to nothing
    rye = found.unlinked[0]
    assert {"rye", "bread", "flour"} <= set(rye.terms)  # the words it shares explain it
    # the other books share only their template: never on top, never by its words
    assert not {"highlights", "thoughts", "rating", "finished"} & set(found.terms)
    assert any("template" in note for note in found.notes)


def test_linked_entries_are_apart_in_both_directions(rindex) -> None:
    found = rindex.related(STARTER)
    # the starter links to Wild yeast (its relation); Country loaf and the reading list
    # link to it: all three are "already linked", whichever way the link goes
    assert set(ids(found.linked)) == {"Baking/Wild yeast", "Baking/Country loaf",
                                      "Reading/Links to read"}  # fmt: skip
    assert ids(found.unlinked)[0] == "Baking/Rye bread"
    assert STARTER not in ids(found.unlinked) + ids(found.linked)


def test_a_note_full_of_links_is_related_by_its_words_not_its_urls(rindex) -> None:
    found = rindex.related("Reading/Links to read")
    url_bits = {"https", "http", "www", "github", "com", "example", "org", "net", "blob",
                "utm", "source", "medium", "rss", "md", "html", "readme", "tab", "issues",
                "wiki", "docs", "main"}  # fmt: skip
    assert not url_bits & set(found.terms)
    assert {"levain", "starter"} <= set(found.terms)
    assert ids(found.unlinked)[0] == "Reading/Books/The Bread Book"
    for row in (*found.unlinked, *found.linked):
        assert not url_bits & set(row.terms)


def test_the_birds_stay_with_the_birds(rindex) -> None:
    found = rindex.related("Birds/Robin")
    assert ids(found.unlinked)[:2] == ["Birds/Garden birds 🐦", "Reading/Books/The Robin"]
    assert all(not i.startswith(("Sky/", "Baking/")) for i in ids(found.unlinked))


def test_an_entry_of_one_word_finds_the_entries_holding_it(rindex) -> None:
    found = rindex.related("One word")
    assert found.terms == ("sourdough",)
    assert ids(found.unlinked)[0] == STARTER
    assert all(row.terms == ("sourdough",) for row in found.unlinked)


def test_an_entry_with_no_word_of_its_own_says_so(tmp_path: Path) -> None:
    """A daily note named by its date, holding a URL, numbers and code: nothing to compare."""
    note = "https://example.com/robin/feeder 12 345\n\n```\nrobin = feeder()\n```\n"
    vault = write_related_vault(tmp_path / "v", {"Daily/2024-01-05.md": note})
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as index:
        found = index.related("Daily/2024-01-05")
        assert found.unlinked == found.linked == () and found.terms == ()
        assert found.reason.startswith("Too few words to compare")
        alone = index.related("Loop/Alpha")  # "Alpha", "first", "three": no other has them
        assert alone.reason == "No other entry shares its words."


def test_a_vault_where_every_note_is_one_template(tmp_path: Path) -> None:
    """Twenty notes of the same template, each with one line of its own: the template's
    words are in every note (never asked) and its lines are found repeated; what relates
    two notes is their own line."""
    files = {}
    topics = ["comet tail ice", "comet nucleus ice", "glacier ice melt", "sourdough crumb",
              "sourdough crust", "robin song"] + [f"topic{chr(97 + i)}x unique{chr(97 + i)}y"
                                                  for i in range(14)]  # fmt: skip
    for i, topic in enumerate(topics):
        files[f"Daily/2024-01-{i + 1:02d} note.md"] = (
            f"# Day {i + 1}\n\n## Mood\n\nMood:: fine\nWeather:: grey\n\n## Tasks\n\n"
            f"- [ ] Review the inbox\n- [ ] Water the plants\n\n## Notes\n\n{topic}\n" + BOOK
        )
    vault = tmp_path / "template vault"
    for rel, text in files.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as index:
        found = index.related("Daily/2024-01-01 note")
        template_words = {"mood", "fine", "weather", "grey", "review", "inbox", "water",
                          "plants", "tasks", "notes", "highlights", "thoughts"}  # fmt: skip
        assert not template_words & set(found.terms)
        assert ids(found.unlinked)[0] == "Daily/2024-01-02 note"  # comet … ice
        assert set(found.unlinked[0].terms) == {"comet", "ice"}
        lonely = index.related("Daily/2024-01-10 note")  # only words of its own
        assert lonely.unlinked == ()
        assert lonely.reason  # said why


def test_a_one_megabyte_entry_is_read_by_its_head_and_asks_no_more(tmp_path: Path) -> None:
    """A 1 MB note and one of a quarter of that: the same number of queries (its words
    are read from its first TEXT_READ characters), the part left out said."""
    words = "levain crumb starter flour proof oven steam crust rye tin " * 10 + "\n"
    counts = {}
    for name, size in (("quarter", 250_000), ("whole", 1_000_000)):
        vault = write_related_vault(tmp_path / name, {
            "Big/Huge note.md": "# Huge note\n\n" + words * (size // len(words))})  # fmt: skip
        with VaultIndex.open(vault, tmp_path / f"{name}.sqlite") as index:
            asked: list[str] = []
            index.conn.set_trace_callback(asked.append)
            found = index.related("Big/Huge note")
            index.conn.set_trace_callback(None)
            counts[name] = len(asked)
            assert set(ids(found.unlinked)[:2]) == {"Baking/Rye bread", "Baking/Country loaf"}
            assert found.notes == (f"all past its first {TEXT_READ:,} characters",)
    assert counts["whole"] == counts["quarter"]


def test_an_answer_is_kept_until_the_vault_changes(rindex, tmp_path: Path) -> None:
    first = rindex.related("Birds/Robin")
    asked: list[str] = []
    rindex.conn.set_trace_callback(asked.append)
    assert rindex.related("Birds/Robin") is first
    assert asked == [] or all("data_version" in q for q in asked)
    rindex.conn.set_trace_callback(None)
    (rindex.root / "Birds/Nest box.md").write_text(
        "# Nest box\n\nA robin nests in an open nest box; the robin sings at the feeder "
        "all winter to hold its territory.\n", encoding="utf-8")  # fmt: skip
    rindex.refresh()
    again = rindex.related("Birds/Robin")
    assert isinstance(again, RelatedEntries) and again is not first
    assert ids(again.unlinked)[0] == "Birds/Nest box"


def test_no_such_entry(rindex) -> None:
    assert rindex.related("Nowhere") is None
    assert rindex.ladder("Nowhere") is None


# -- the ladder --------------------------------------------------------------------------------
def test_the_ladder_groups_relations_by_name_and_direction(rindex) -> None:
    ladder = rindex.ladder(STARTER)
    rungs = {r.label: [i.other.id for i in r.items if i.other] for r in ladder.rungs}
    assert rungs == {
        "Introduced by →": ["Baking/Wild yeast"],
        "← Cited as “source” by": ["Baking/Country loaf"],
    }
    chain = ladder.chains[0]
    assert chain.label == "Introduced by →"
    assert [s.id for s in chain.steps] == ["Baking/Wild yeast", "Baking/Fermentation history"]
    assert chain.loops_to is None and chain.ends == "end"


def test_a_chain_that_loops_is_stopped_and_said(rindex) -> None:
    ladder = rindex.ladder("Loop/Alpha")
    forward = next(c for c in ladder.chains if c.outgoing)
    assert [s.id for s in forward.steps] == ["Loop/Beta", "Loop/Gamma"]
    assert forward.loops_to is not None and forward.loops_to.id == "Loop/Alpha"
    assert forward.ends == "loops back to Alpha"
    backward = next(c for c in ladder.chains if not c.outgoing)
    assert [s.id for s in backward.steps] == ["Loop/Gamma", "Loop/Beta"]


def test_an_entry_without_relations_has_an_empty_ladder(rindex) -> None:
    ladder = rindex.ladder("Birds/Robin")
    assert ladder.rungs == () and ladder.chains == ()


def test_a_long_chain_is_walked_to_its_end_at_two_sizes(tmp_path: Path) -> None:
    """A chain of 40 and one of 160 entries: walked whole, one query a step at most (the
    walk's work grows with the chain, not past it)."""
    for n in (40, 160):
        files = {f"Chain/Step {i}.md": f'---\nintroduced by: "[[Step {i + 1}]]"\n---\nstep\n'
                 for i in range(n)}  # fmt: skip
        files[f"Chain/Step {n}.md"] = "the end\n"
        vault = tmp_path / f"chain {n}"
        for rel, text in files.items():
            (vault / rel).parent.mkdir(parents=True, exist_ok=True)
            (vault / rel).write_text(text, encoding="utf-8")
        with VaultIndex.open(vault, tmp_path / f"{n}.sqlite") as index:
            asked: list[str] = []
            index.conn.set_trace_callback(asked.append)
            ladder = index.ladder("Chain/Step 0")
            index.conn.set_trace_callback(None)
            chain = ladder.chains[0]
            assert len(chain.steps) == n and chain.steps[-1].id == f"Chain/Step {n}"
            assert chain.ends == "end"
            assert len(asked) <= n + 12
