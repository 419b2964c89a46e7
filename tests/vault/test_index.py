"""The index and its query API on a realistic vault written to a temp folder."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import networkx as nx
import pytest

from anthology.vault.index import VaultIndex
from anthology.vault.model import MATCH_END, MATCH_START
from anthology.vault.schema import SCHEMA_VERSION


def test_entry_has_properties_and_both_directions_of_typed_relations(index: VaultIndex) -> None:
    e = index.entry("LIT-008")
    assert e is not None
    assert e.title == "Attention Is All You Need"
    assert e.properties["status"] == "active" and e.properties["version"] == 2
    assert [(r.relation, r.other.id if r.other else None) for r in e.relations] == [
        ("compared against", "LIT-709")
    ]
    assert [(r.relation, r.other.label if r.other else None) for r in e.cited_by] == [
        ("introduced by", "SOTA-050 — Scale attention weights by 1/sqrt(head_dim)"),
        ("paper", "NOTE-011 — Attention Is All You Need"),
        ("source", "SOTA-050 — Scale attention weights by 1/sqrt(head_dim)"),
    ]
    assert e.tags[:2] == ["model-architecture", "attention-techniques"]
    assert "transformers" in e.tags and "area/attention" in e.tags
    assert "not-a-tag" not in e.tags
    assert e.body.lstrip().startswith("# Attention Is All You Need")


def test_ids_are_case_insensitive(index: VaultIndex) -> None:
    assert index.entry("lit-008").id == "LIT-008"


def test_resolution_by_id_alias_path_and_markdown_link(index: VaultIndex) -> None:
    out = {(o.text, o.target.id if o.target else None) for o in index.outgoing("HOME")}
    assert ("LIT-008", "LIT-008") in out
    assert ("SOTA-050", "SOTA-050") in out
    assert ("papers/LIT-709", "LIT-709") in out  # path suffix
    assert ("notes/Reading note.md", "notes/Reading note") in out  # URL-decoded Markdown link
    sota = {(o.text, o.target.id if o.target else None) for o in index.outgoing("SOTA-050")}
    assert ("Primer", "LIT-709") in sota  # by alias
    assert ("Missing Entry", None) in sota  # kept, unresolved


def test_links_in_code_and_comments_are_not_indexed(index: VaultIndex) -> None:
    texts = {o.text for o in index.outgoing("LIT-008")}
    assert texts == {"LIT-709", "SOTA-050", "NOTE-011"}
    rows = [(o.text, o.alias, o.heading) for o in index.outgoing("LIT-008")]
    assert ("NOTE-011", "the reading note", None) in rows
    assert ("LIT-709", None, "Results") in rows
    assert ("LIT-709", "Primer", None) in rows  # the escaped pipe in the table


def test_backlinks_carry_relation_and_context(index: VaultIndex) -> None:
    rows = index.backlinks("LIT-008")
    typed = [(b.source.id, b.relation) for b in rows if b.relation]
    assert typed == [("SOTA-050", "introduced by"), ("NOTE-011", "paper"), ("SOTA-050", "source")]
    mention = next(b for b in rows if b.source.id == "HOME")
    assert mention.relation is None
    assert "[[LIT-008]]" in mention.context and mention.line == 8


def test_unlinked_mentions_find_the_title_without_a_link(index: VaultIndex) -> None:
    hits = index.unlinked_mentions("LIT-008")
    # LIT-709 names "Attention Is All You Need" in prose but does not link to LIT-008.
    assert [h.entry.id for h in hits] == ["LIT-709"]
    assert MATCH_START in hits[0].snippet


def test_neighbourhood_to_depth(index: VaultIndex) -> None:
    assert index.neighbourhood("NOTE-011", 1) == ["NOTE-011", "LIT-008", "SOTA-050"]
    g = index.link_graph().to_undirected()
    expected = set(nx.ego_graph(g, "NOTE-011", radius=2))
    assert set(index.neighbourhood("NOTE-011", 2)) == expected


def test_search_with_snippets_and_filters(index: VaultIndex) -> None:
    hits = index.search("primer")
    assert hits[0].entry.id == "LIT-709"  # title matches rank first
    assert f"{MATCH_START}" in hits[0].snippet and MATCH_END in hits[0].snippet
    assert [h.entry.id for h in index.search("kind:note")] == ["NOTE-011"]
    assert [h.entry.id for h in index.search("tag:area")] == ["LIT-008"]  # nested tag
    assert [h.entry.id for h in index.search("status:active")] == ["LIT-008"]
    assert {h.entry.id for h in index.search("attention kind:literature")} >= {"LIT-008"}
    assert "LIT-008" not in {h.entry.id for h in index.search("attention -primer")}
    assert index.search('"unbalanced') is not None  # user syntax never raises
    assert index.search("prim")[0].entry.id == "LIT-709"  # the last word is a prefix


def test_problems_are_reported_with_places(index: VaultIndex) -> None:
    problems = {(p.path, p.kind) for p in index.problems()}
    assert ("practices/SOTA-050.md", "unresolved-link") in problems
    assert not any(kind == "orphan" and path == "HOME.md" for path, kind in problems)
    unresolved = next(p for p in index.problems() if p.kind == "unresolved-link")
    assert unresolved.line == 9 and "Missing Entry" in unresolved.message


def test_attachments_are_not_entries(index: VaultIndex) -> None:
    link = next(o for o in index.outgoing("LIT-709") if o.embed)
    assert link.target is None
    assert index.attachment("diagram.png", "papers/LIT-709.md") is not None
    assert index.stats()["attachments"] == 1
    assert not any(p.kind == "missing-attachment" for p in index.problems())


def test_graph_data_and_ghosts(index: VaultIndex) -> None:
    g = index.graph()
    i = g.index_of()
    pairs = {(g.ids[s], g.ids[t]): r for (s, t), r in zip(g.edges.tolist(), g.relations,
                                                          strict=True)}  # fmt: skip
    assert pairs[("SOTA-050", "LIT-008")] in ("introduced by", "source")
    assert pairs[("NOTE-011", "LIT-008")] == "paper"
    assert ("LIT-008", "LIT-008") not in pairs and len(set(pairs)) == len(g.edges)
    assert g.kinds[i["LIT-008"]] == "literature"
    ghosts = index.graph(ghosts=True)
    assert "?Missing Entry" in ghosts.ids and ghosts.ghost[ghosts.ids.index("?Missing Entry")]


def test_schema_version_and_location(index: VaultIndex, vault: Path) -> None:
    assert index.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert index.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert not index.db_path.is_relative_to(vault)


def _touch(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))  # a visibly new mtime


def test_an_entrys_citers_are_kept_only_until_the_index_changes(vault: Path, db_path: Path) -> None:
    """The typed citers of an entry are cached (a hub's take tens of ms to count); a
    refresh that adds one shows it."""
    with VaultIndex.open(vault, db_path) as index:
        before = [(r.relation, r.other.id) for r in index.entry("LIT-709").cited_by]
        assert ("paper", "NOTE-011") not in before
        assert [(r.relation, r.other.id) for r in index.entry("LIT-709").cited_by] == before
        _touch(
            vault / "notes/NOTE-011.md",
            '---\nid: NOTE-011\ntitle: Renamed\npaper: "[[LIT-709]]"\n---\n',
        )
        index.refresh()
        after = [(r.relation, r.other.id) for r in index.entry("LIT-709").cited_by]
        assert ("paper", "NOTE-011") in after


def test_incremental_refresh_reads_only_what_changed(vault: Path, db_path: Path) -> None:
    with VaultIndex.open(vault, db_path) as index:
        again = index.refresh()
        assert (again.added, again.changed, again.removed) == (0, 0, 0)
        assert again.unchanged == 6

        _touch(
            vault / "notes/NOTE-011.md",
            '---\nid: NOTE-011\ntitle: Renamed\npaper: "[[LIT-709]]"\n---\n',
        )
        report = index.refresh()
        assert (report.added, report.changed, report.removed) == (0, 1, 0)
        assert index.entry("NOTE-011").title == "Renamed"
        assert [r.other.id for r in index.entry("LIT-008").cited_by] == ["SOTA-050", "SOTA-050"]

        # A new entry named "Missing Entry" makes the unresolved link elsewhere resolve.
        _touch(vault / "Missing Entry.md", "now here")
        report = index.refresh()
        assert report.added == 1
        target = next(o for o in index.outgoing("SOTA-050") if o.text == "Missing Entry").target
        assert target is not None and target.id == "Missing Entry"

        (vault / "Missing Entry.md").unlink()
        report = index.refresh()
        assert report.removed == 1 and index.entry("Missing Entry") is None
        assert (
            next(o for o in index.outgoing("SOTA-050") if o.text == "Missing Entry").target is None
        )
        assert index.search("now") == []


def test_a_rerun_finds_every_change_the_folders_do_not_show(vault: Path, db_path: Path) -> None:
    """A re-run compares each file's own size, mtime and ctime with the index (never the
    folders'): a note moved to another folder, a same-size edit whose mtime was put back,
    and a note removed while another is added (the count of files unchanged) are all found."""
    with VaultIndex.open(vault, db_path) as index:
        assert index.refresh().unchanged == 6
        (vault / "notes" / "Reading note.md").rename(vault / "papers" / "Reading note.md")
        report = index.refresh()
        assert (report.added, report.removed) == (1, 1)
        assert index.entry("notes/Reading note") is None  # a note's id is its path here
        assert index.entry("papers/Reading note").path == "papers/Reading note.md"

        note = vault / "notes" / "NOTE-011.md"
        before = note.stat()
        text = note.read_text(encoding="utf-8")
        assert "NOTE-011" in text
        note.write_text(text.replace("NOTE-011", "NOTE-012"), encoding="utf-8")
        os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns))  # as a sync tool leaves it
        assert note.stat().st_size == before.st_size
        report = index.refresh()
        assert report.changed == 1 and index.entry("NOTE-012") is not None

        (vault / "papers" / "LIT-709.md").unlink()
        _touch(vault / "practices" / "Fresh idea.md", "a new note, found")
        report = index.refresh()
        assert (report.added, report.changed, report.removed) == (1, 0, 1)
        assert index.entry("LIT-709") is None
        assert [h.entry.id for h in index.search("found")] == ["practices/Fresh idea"]
        assert index.refresh().unchanged == 6


def test_a_reopened_index_is_reused_not_rebuilt(vault: Path, db_path: Path) -> None:
    VaultIndex.open(vault, db_path).close()
    with VaultIndex.open(vault, db_path) as index:
        assert not index.created and index.last_report.unchanged == 6


def test_a_stale_schema_version_rebuilds(vault: Path, db_path: Path) -> None:
    VaultIndex.open(vault, db_path).close()
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    with VaultIndex.open(vault, db_path) as index:
        assert index.created and index.entry("LIT-008") is not None


def test_a_corrupt_or_stale_index_of_ours_is_rebuilt(vault: Path, db_path: Path) -> None:
    with VaultIndex.open(vault, db_path):
        pass
    data = bytearray(db_path.read_bytes())
    data[100:] = b"this is not sqlite at all" * ((len(data) - 100) // 25 + 1)
    db_path.write_bytes(bytes(data[: len(db_path.read_bytes())]))  # our header, torn inside
    with VaultIndex.open(vault, db_path) as index:
        assert index.entry("LIT-008") is not None
    foreign = sqlite3.connect(db_path)
    foreign.execute("PRAGMA user_version = 0")
    foreign.execute("CREATE TABLE IF NOT EXISTS other(x)")
    foreign.commit()
    foreign.close()
    with VaultIndex.open(vault, db_path) as index:
        assert index.created and index.stats()["entries"] == 6


def test_indexing_never_writes_into_the_vault(vault: Path, db_path: Path) -> None:
    before = {p: p.stat().st_mtime_ns for p in vault.rglob("*")}
    time.sleep(0.01)
    with VaultIndex.open(vault, db_path) as index:
        index.search("attention")
        index.entry("LIT-008")
    after = {p: p.stat().st_mtime_ns for p in vault.rglob("*")}
    assert before == after


def test_tag_filter_folds_case_and_takes_wildcards_literally(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    for name, tags in {"a": "[Deep_Learning]", "b": "[deepXlearning]", "c": "[deep_learning/rl]",
                       "d": "['100%']", "e": "[100x/y]"}.items():  # fmt: skip
        (vault / f"{name}.md").write_text(f"---\ntags: {tags}\n---\nText.\n", encoding="utf-8")
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:

        def ids(query: str) -> list[str]:
            return sorted(h.entry.id for h in idx.search(query))

        assert ids("tag:deep_learning") == ["a", "c"]  # "_" is not a wildcard; nested counts
        assert ids("tag:DEEP_LEARNING/RL") == ["c"]
        assert ids("tag:100%") == ["d"]
        assert ids("-tag:deep_learning tag:deepxlearning") == ["b"]


def test_a_hubs_citing_entries_can_be_capped_per_relation(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Hub.md").write_text("# Hub\n", encoding="utf-8")
    for i in range(14):
        (vault / f"s{i:02d}.md").write_text('---\nsource: "[[Hub]]"\n---\n', encoding="utf-8")
    for i in range(3):
        (vault / f"p{i}.md").write_text('---\npaper: ["[[Hub]]"]\n---\n', encoding="utf-8")
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:
        whole = idx.entry("Hub")
        capped = idx.entry("Hub", cited_by_limit=10)
    assert whole.cited_by_total == capped.cited_by_total == {"paper": 3, "source": 14}
    assert len(whole.cited_by) == 17
    # The first ten by id of each relation, in the order the whole list has them.
    assert [(r.relation, r.other.id) for r in capped.cited_by] == [
        (r.relation, r.other.id) for r in whole.cited_by if r.other.id < "s10"
    ]


@pytest.mark.parametrize("plan", ["walk", "sources", "sort"])
def test_a_hubs_first_citing_entries_are_the_same_however_they_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plan: str
) -> None:
    """The first citing entries of each relation (by id, any case), each with its link's
    text, whether the entries are walked in id order, the citing entries sorted, or the
    links joined and sorted whole (the index picks by the relation's size and density)."""
    vault = tmp_path / "My Vault"
    (vault / "Reading list").mkdir(parents=True)
    (vault / "Hub note.md").write_text("# Hub note\n", encoding="utf-8")
    for i in range(130):
        name = f"{'Zeta' if i % 3 else 'alpha'} {i:03d}.md"  # ids sort case-insensitively
        twice = ', "[[Hub note|again]]"' if i % 11 == 0 else ""
        (vault / "Reading list" / name).write_text(
            f'---\nsource: ["[[Hub note]]"{twice}]\npaper: "[[Hub note|the hub]]"\n---\n',
            encoding="utf-8",
        )
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:
        whole = idx.entry("Hub note")
        monkeypatch.setattr(VaultIndex, "_read_plan", lambda self, size, wanted: plan)
        idx._cited.clear()
        capped = idx.entry("Hub note", cited_by_limit=10)
    assert capped.cited_by_total == whole.cited_by_total == {"paper": 130, "source": 130}
    first = {}
    for r in whole.cited_by:
        first.setdefault(r.relation, []).append((r.other.id, r.text))
    assert [(r.relation, r.other.id, r.text) for r in capped.cited_by] == [
        (relation, other, text) for relation, rows in first.items() for other, text in rows[:10]
    ]


OBSIDIAN_SHAPED = {
    "Home.md": "Start at [[Getting started]], [[Folder A/Note]] and [[Note]].\n"
    "See [[Café ☕ notes|the café]], [[v1.2 release#Changes]], ![[diagram.png]], "
    "![[Missing picture.png]] and [[Nowhere]].\n",
    "Getting started.md": "---\naliases: [Intro]\n---\nBack to [[Home]]; also [[Intro]].\n",
    "Folder A/Note.md": "In A: [[Note]] (the one beside me) and [[../Home]].\n",
    "Folder B/Note.md": "In B: [[Note]], [[Folder A/Note]], ![[diagram.png|200]].\n",
    "Café ☕ notes.md": '---\nsource: "[[Getting started]]"\n---\nA [[Home#Start]].\n',
    "v1.2 release.md": "# Changes\n[[Note]] and [[Intro]].\n",
    "assets/diagram.png": "",
}


def test_a_render_asks_the_links_the_entry_holds_not_a_name_map(tmp_path: Path) -> None:
    """The full name map took 2.4 s to build at 100,000 entries, on the first render of a
    freshly opened vault; the entry's own indexed links answer the same."""
    from anthology.vault.indexer import Indexer
    from anthology.vault.links import WIKILINK_RE, split_wikilink
    from sample_vault import write_vault

    root = write_vault(tmp_path / "vault", OBSIDIAN_SHAPED)
    (root / "assets/diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    with VaultIndex.open(root, tmp_path / "idx.sqlite") as built:
        built.refresh()
    with VaultIndex.open(root, tmp_path / "idx.sqlite", refresh=False) as index:
        full = Indexer(index.conn, root).resolver()
        asked = 0
        for path, text in OBSIDIAN_SHAPED.items():
            for m in WIKILINK_RE.finditer(text):
                target = split_wikilink(m.group(2))[0]
                res = full.resolve(target, path)
                want = (
                    index.entry_ref(res.target) if res.status in ("resolved", "ambiguous") else None
                )
                assert index.resolve(target, path) == want, (path, target)
                assert (index.attachment(target, path) is not None) == (res.status == "attachment")
                asked += 1
        assert asked == 19
        assert index._resolver is None  # every answer came from the entries' own links
        assert index.resolve("Note", "Folder B/Note.md").id == "Folder B/Note"
        assert index.attachment("diagram.png", "Folder B/Note.md") == root / "assets/diagram.png"
        # a link the entry does not hold (a hover, a typed address) still resolves
        assert index.resolve("Intro", "Folder A/Note.md").id == "Getting started"
        assert index._resolver is not None
