"""The backlinks of an entry as the panel lists them, asked without a display: groups and
their titles, pages of rows, the rows' escaped lines, the views kept for a revisit."""

from __future__ import annotations

from pathlib import Path

import pytest

from anthology.session.backlinks import (
    COUNT_SHOWN,
    NO_BACKLINKS,
    PAGE,
    SOURCES_SHOWN,
    Group,
    KeptViews,
    groups_of,
    rows_of,
    snippet_html,
    unlinked_group,
)
from anthology.vault.index import VaultIndex
from anthology.vault.model import MATCH_END, MATCH_START

MENTIONERS = 2 * PAGE + 7


@pytest.fixture
def index(tmp_path: Path):
    vault = tmp_path / "v"
    (vault / "notes").mkdir(parents=True)
    (vault / "Hub.md").write_text("# Hub\n\nEverything links here.\n", encoding="utf-8")
    (vault / "Lonely.md").write_text("# Lonely\n\nNobody links here.\n", encoding="utf-8")
    for i in range(MENTIONERS):
        (vault / "notes" / f"n{i:03d}.md").write_text(
            f"# Note {i}\n\nNote {i} builds on [[Hub]] here.\nAnd [[Hub|again]] there.\n",
            encoding="utf-8",
        )
    for i in range(3):
        (vault / f"cites{i}.md").write_text(
            f'---\nsource: "[[Hub]]"\n---\nCiting note {i}.\n', encoding="utf-8"
        )
    (vault / "bold.md").write_text(
        '---\ntitle: "<b>Bold</b>"\n---\nPoints at [[Hub]] <img src=/etc/x>.\n', "utf-8"
    )
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:
        yield idx


def view_of(index: VaultIndex, entry_id: str):
    return index.backlinks_view(entry_id, sources_cap=SOURCES_SHOWN, count_cap=COUNT_SHOWN)


def test_groups_are_titled_by_relation_and_counted_in_the_header(index: VaultIndex) -> None:
    groups, header = groups_of(view_of(index, "Hub"))
    assert [g.title for g in groups] == ["source (3)", f"mentions ({MENTIONERS + 1})"]
    assert header.title == f"Backlinks · {MENTIONERS + 4}"  # entries, not links
    assert all(g.paged and not g.rows for g in groups)  # nothing fetched yet
    none, header = groups_of(view_of(index, "Lonely"))
    assert [g.title for g in none] == [NO_BACKLINKS] and header.title == "Backlinks · 0"
    assert groups_of(None)[0] == [] and groups_of(None)[1].title == "Backlinks"


def test_a_group_pages_until_every_source_is_listed_once(index: VaultIndex) -> None:
    view = view_of(index, "Hub")
    groups, _ = groups_of(view)
    mentions = groups[1]
    make = lambda links: rows_of(links, "#808080", view.context)  # noqa: E731
    mentions.first_page(view.page, make)
    assert mentions.fetched == PAGE and mentions.left == mentions.count - PAGE
    assert mentions.more_label == f"Show {PAGE} more ({mentions.left} not shown)"
    while mentions.left > 0:
        links = view.page(mentions.relation, mentions.fetched, PAGE)
        last = mentions.is_last(links)
        mentions.take(make(links))
        mentions.fetched += len(links)
        if last:
            break
    ids = [row.entry_id for row in mentions.rows]
    assert len(ids) == MENTIONERS + 1 and len(set(ids)) == len(ids)  # each source once
    row = next(r for r in mentions.rows if r.entry_id == "notes/n010")
    assert row.links == 2 and row.lines == 2  # both links of a note, on one row
    assert row.contexts == ["Note 10 builds on [[Hub]] here.", "And [[Hub|again]] there."]


def test_a_row_reads_as_text_and_its_strings_are_escaped(index: VaultIndex) -> None:
    view = view_of(index, "Hub")
    links = view.page(None, 0, 2 * MENTIONERS)
    rows = rows_of(links, "#808080", view.context)
    bold = next(r for r in rows if r.entry_id == "bold")
    assert "<b>&lt;b&gt;Bold&lt;/b&gt;</b>" in bold.html  # the label bold, its markup text
    assert "<img" not in bold.html and "/etc/x" not in bold.html  # markup in a line: gone
    assert bold.text.startswith("<b>Bold</b>\nPoints at Hub")  # plain text, a screen reader
    assert bold.tooltip.startswith("<qt>") and "<img" not in bold.tooltip
    note = next(r for r in rows if r.entry_id == "notes/n001")
    assert "[[" not in note.html and "Hub</span>" in note.html  # the link as it reads


def test_rows_joined_across_a_page_edge_are_new_rows(index: VaultIndex) -> None:
    view = view_of(index, "Hub")
    links = view.page(None, 0, PAGE)
    k = next(k for k in range(PAGE) if links[k].source.id == links[k + 1].source.id)
    group = Group("mentions", None, 10, paged=True)
    group.take(rows_of(links[: k + 1], "#000"))  # a page ending between a source's links
    kept = group.rows[-1]
    new = group.take(rows_of(links[k + 1 : k + 2], "#000"))
    assert new == [] and len(group.rows) == k + 1
    group = Group("mentions", None, 10, paged=True, rows=[kept])
    group.take(rows_of(links[k + 1 : k + 2], "#000"))
    assert group.rows[0] is not kept and group.rows[0].links == 2 and kept.links == 1


def test_views_shown_lately_are_kept_and_restored(index: VaultIndex) -> None:
    kept = KeptViews(size=2)
    view = view_of(index, "Hub")
    groups, _ = groups_of(view)
    for g in groups:
        g.first_page(view.page, lambda links: rows_of(links, "#000", view.context))
    kept.keep(view, groups)
    again, _ = groups_of(view)
    assert kept.restore(view, again)
    assert [g.rows for g in again] == [g.rows for g in groups]  # the very rows
    assert [g.fetched for g in again] == [3, PAGE]
    for other in ("Lonely", "notes/n001"):
        kept.keep(view_of(index, other), [])
    assert len(kept) == 2 and kept.get(view) is None  # the oldest went
    assert not kept.restore(view, groups_of(view)[0])


def test_unlinked_mentions_and_search_snippets_read_as_lines(index: VaultIndex) -> None:
    hits = index.unlinked_mentions("Hub")
    group = unlinked_group(hits, "#000")
    assert group.title == f"Unlinked mentions ({len(hits)})" and not group.paged
    html = snippet_html(f"a {MATCH_START}hub & co{MATCH_END} b")
    assert html.startswith("a <b style=") and html.endswith(">hub &amp; co</b> b")
