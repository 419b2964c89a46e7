"""The backlinks panel on a hub: pages of links, contexts cut only for the rows shown."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt

from anthology.ui.backlinks_panel import PAGE, ROLE_HTML, ROLE_MORE, BacklinksPanel
from anthology.vault.index import VaultIndex
from anthology.vault.model import MATCH_END, MATCH_START, EntryRef, SearchHit

MENTIONERS = 2 * PAGE + 50


@pytest.fixture
def index(tmp_path: Path):
    vault = tmp_path / "v"
    (vault / "notes").mkdir(parents=True)
    (vault / "Hub.md").write_text("# Hub\n\nEverything links here.\n", encoding="utf-8")
    for i in range(MENTIONERS):
        (vault / "notes" / f"n{i:03d}.md").write_text(
            f"# Note {i}\n\nA first line.\nNote {i} builds on [[Hub]] for its ending.\n",
            encoding="utf-8",
        )
    for i in range(3):
        (vault / f"cites{i}.md").write_text(
            f'---\nsource: "[[Hub]]"\n---\nCiting note {i}.\n', encoding="utf-8"
        )
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:
        yield idx


def group_index(panel: BacklinksPanel, group_prefix: str) -> QModelIndex:
    model = panel.model
    for i in range(model.rowCount()):
        group = model.index(i, 0)
        if group.data().startswith(group_prefix):
            return group
    raise AssertionError(f"no group {group_prefix}")


def children(panel: BacklinksPanel, group_prefix: str) -> list[QModelIndex]:
    group = group_index(panel, group_prefix)
    return [panel.model.index(k, 0, group) for k in range(panel.model.rowCount(group))]


def labels(panel: BacklinksPanel, group_prefix: str) -> list[str]:
    """Each row as it is painted: its rich text (escaped), or a plain row's text."""
    return [row.data(ROLE_HTML) or row.data() for row in children(panel, group_prefix)]


def click(qtbot, panel: BacklinksPanel, index: QModelIndex) -> None:
    panel.tree.scrollTo(index)
    rect = panel.tree.visualRect(index)
    qtbot.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_a_hub_shows_a_page_of_backlinks_and_more_on_demand(qtbot, index: VaultIndex) -> None:
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    panel.resize(400, 700)
    panel.show()
    pages: list[tuple] = []

    def page(relation, offset, limit):
        pages.append((relation, offset, limit))
        return index.backlinks_page("Hub", relation, offset, limit)

    groups, sources = index.backlink_groups("Hub")
    assert groups == [("source", 3), (None, MENTIONERS)] and sources == MENTIONERS + 3
    panel.show_backlinks("Hub", groups, sources, page, index.unlinked_mentions("Hub"))

    assert panel.title.text() == f"Backlinks · {MENTIONERS + 3}"
    groups = panel.groups()
    assert len(groups["source (3)"]) == 3
    assert len(groups[f"mentions ({MENTIONERS})"]) == PAGE
    assert pages == [("source", 0, PAGE), (None, 0, PAGE)]  # only what is shown is fetched
    rows = labels(panel, "mentions")
    assert rows[0].startswith("<b>notes/n000 — Note 0</b><br>")  # the source, then the line
    assert "builds on <b>[[Hub]]</b> for its ending" in rows[0]
    assert "source: <b>[[Hub]]</b>" in labels(panel, "source")[0]
    assert rows[-1] == f"Show {PAGE} more ({MENTIONERS - PAGE} not shown)"

    click(qtbot, panel, children(panel, "mentions")[-1])
    assert len(panel.groups()[f"mentions ({MENTIONERS})"]) == 2 * PAGE
    assert pages[-1] == (None, PAGE, PAGE)
    assert labels(panel, "mentions")[-1] == "Show 50 more (50 not shown)"
    click(qtbot, panel, children(panel, "mentions")[-1])
    shown = panel.groups()[f"mentions ({MENTIONERS})"]
    assert shown == sorted(f"notes/n{i:03d}" for i in range(MENTIONERS))
    assert not any(
        row.data(ROLE_MORE) is not None for row in children(panel, "mentions")
    )  # all shown: no "Show more" row left
    assert "Note 249 builds on <b>[[Hub]]</b>" in labels(panel, "mentions")[-1]
    assert len(pages) == 4  # a page per click, none behind the reader's back

    with qtbot.waitSignal(panel.entryActivated) as opened:
        click(qtbot, panel, children(panel, "mentions")[PAGE + 7])
    assert opened.args == [f"notes/n{PAGE + 7:03d}"]


def test_backlinks_with_contexts_are_the_lines_around_each_link(index: VaultIndex) -> None:
    whole = index.backlinks("Hub")
    bare = index.backlinks("Hub", contexts=False)
    assert index.with_contexts(bare) == whole
    paged = [
        link
        for relation, count in index.backlink_groups("Hub")[0]
        for offset in range(0, count, 7)
        for link in index.backlinks_page("hub", relation, offset, 7)
    ]
    assert paged == whole  # the pages, one after another, are the whole list
    mention = next(b for b in whole if b.source.id == "notes/n042")
    assert mention.context == "Note 42 builds on [[Hub]] for its ending."
    assert mention.line == 4 and mention.relation is None


# ---------------------------------------------------------------------------------------
# unlinked mentions: asked off the GUI thread, shown when ready, a stale answer dropped
# ---------------------------------------------------------------------------------------
def mention(entry_id: str) -> SearchHit:
    return SearchHit(EntryRef(entry_id, entry_id, f"{entry_id}.md"), "note",
                     f"names {MATCH_START}it{MATCH_END} here", 1.0)  # fmt: skip


def test_a_stale_mentions_answer_for_a_previous_entry_is_dropped(qtbot) -> None:
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    release = threading.Event()
    cancelled: list[str] = []

    def slow(entry_id: str) -> list[SearchHit]:  # the common-word title of entry A
        release.wait(10)
        return [mention("from-A")]

    panel.show_backlinks("A", [], 0, lambda r, o, n: [])
    panel.find_unlinked("A", slow, lambda: cancelled.append("A"))
    assert panel.groups() == {"No backlinks": []}  # shown at once, mentions still to come
    panel.show_backlinks("B", [], 0, lambda r, o, n: [])  # the user opens B meanwhile
    assert cancelled == ["A"]  # A's search was told to stop
    panel.find_unlinked("B", lambda entry_id: [mention("from-B")])
    release.set()
    qtbot.waitUntil(lambda: not panel.finding_unlinked, timeout=10000)
    qtbot.waitUntil(lambda: "Unlinked mentions (1)" in panel.groups(), timeout=5000)
    qtbot.wait(50)  # A's answer, had it been sent, is delivered by now
    assert panel.groups() == {"Unlinked mentions (1)": ["from-B"]}
    assert not panel.tree.isExpanded(panel.model.index(0, 0))  # collapsed until the reader opens it


def test_mentions_of_the_shown_entry_fill_the_collapsed_group(qtbot, index: VaultIndex) -> None:
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    groups, sources = index.backlink_groups("Hub")
    reader = index.reader()
    try:
        panel.show_backlinks("Hub", groups, sources,
                             lambda r, o, n: index.backlinks_page("Hub", r, o, n))  # fmt: skip
        panel.find_unlinked("Hub", reader.unlinked_mentions, reader.interrupt)
        qtbot.waitUntil(lambda: not panel.finding_unlinked, timeout=10000)
        qtbot.wait(20)
        # Hub's title is only ever linked here: no unlinked mentions group, the rest intact.
        assert list(panel.groups()) == ["source (3)", f"mentions ({MENTIONERS})"]
    finally:
        panel.wait_unlinked()
        reader.close()
