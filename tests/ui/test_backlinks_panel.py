"""The backlinks panel on a hub: pages of links, contexts cut only for the rows shown."""

from __future__ import annotations

import functools
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractSlider

from anthology.ui.panels.backlinks_panel import PAGE, ROLE_HTML, ROLE_MORE, UNLINKED, BacklinksPanel
from anthology.vault.backlinks import BacklinksView
from anthology.vault.index import VaultIndex
from anthology.vault.model import MATCH_END, MATCH_START, EntryRef, LinkRow, SearchHit

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
    panel.show_backlinks(
        BacklinksView("Hub", groups, sources, page), index.unlinked_mentions("Hub")
    )

    assert panel.title.text() == f"Backlinks · {MENTIONERS + 3}"
    groups = panel.groups()
    assert len(groups["source (3)"]) == 3
    assert len(groups[f"mentions ({MENTIONERS:,})"]) == PAGE
    assert pages == [("source", 0, PAGE), (None, 0, PAGE)]  # only what is shown is fetched
    rows = labels(panel, "mentions")
    assert rows[0].startswith("<b>Note 0</b><br>")  # the source by title, then the line
    assert 'Note 0 builds on <span style="color: #5b47c9;">Hub</span> for its ending' in rows[0]
    assert "[[" not in rows[0]
    assert "source: <span" in labels(panel, "source")[0]
    assert rows[-1] == f"Show {PAGE} more ({MENTIONERS - PAGE} not shown)"

    click(qtbot, panel, children(panel, "mentions")[-1])
    assert len(panel.groups()[f"mentions ({MENTIONERS:,})"]) == 2 * PAGE
    assert pages[-1] == (None, PAGE, PAGE)
    assert labels(panel, "mentions")[-1] == "Show 50 more (50 not shown)"
    click(qtbot, panel, children(panel, "mentions")[-1])
    shown = panel.groups()[f"mentions ({MENTIONERS:,})"]
    assert shown == sorted(f"notes/n{i:03d}" for i in range(MENTIONERS))
    assert not any(
        row.data(ROLE_MORE) is not None for row in children(panel, "mentions")
    )  # all shown: no "Show more" row left
    assert f"Note {MENTIONERS - 1} builds on <span" in labels(panel, "mentions")[-1]
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
    started: list[str] = []

    def slow(entry_id: str) -> list[SearchHit]:  # the common-word title of entry A
        started.append(entry_id)
        release.wait(10)
        return [mention("from-A")]

    panel.show_backlinks(BacklinksView("A", [], 0, lambda r, o, n: []))
    panel.find_unlinked("A", slow, lambda: cancelled.append("A"))
    assert panel.groups() == {"No backlinks": []}  # shown at once, mentions still to come
    assert panel.finding_unlinked
    qtbot.waitUntil(lambda: started == ["A"], timeout=5000)  # once the panel has painted
    panel.show_backlinks(
        BacklinksView("B", [], 0, lambda r, o, n: [])
    )  # the user opens B meanwhile
    assert cancelled == ["A"]  # A's search was told to stop
    panel.find_unlinked("B", lambda entry_id: [mention("from-B")])
    release.set()
    qtbot.waitUntil(lambda: not panel.finding_unlinked, timeout=10000)
    qtbot.waitUntil(lambda: "Unlinked mentions (1)" in panel.groups(), timeout=5000)
    qtbot.wait(50)  # A's answer, had it been sent, is delivered by now
    assert panel.groups() == {"Unlinked mentions (1)": ["from-B"]}
    assert not panel.tree.isExpanded(panel.model.index(0, 0))  # collapsed until the reader opens it


def test_a_search_for_mentions_starts_after_the_panel_is_painted(qtbot) -> None:
    """The search runs on a worker that shares the interpreter: it starts once the click's
    paint is done, and not at all for an entry left before then."""
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    events: list[str] = []
    painted = panel.tree.viewport()

    class Painted(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if obj is painted and event.type() == QEvent.Type.Paint:
                events.append("painted")
            return False

    spy = Painted()
    painted.installEventFilter(spy)

    def search(entry_id: str) -> list[SearchHit]:
        events.append(f"searched {entry_id}")
        return [mention(f"names-{entry_id}")]

    panel.show_backlinks(BacklinksView("A", [], 0, lambda r, o, n: []))
    panel.find_unlinked("A", search)
    panel.show_backlinks(BacklinksView("B", [], 0, lambda r, o, n: []))  # A left at once
    panel.find_unlinked("B", search)
    assert events == []  # nothing searched yet
    qtbot.waitUntil(lambda: "Unlinked mentions (1)" in panel.groups(), timeout=5000)
    assert panel.groups()["Unlinked mentions (1)"] == ["names-B"]
    assert "searched A" not in events
    assert events.index("painted") < events.index("searched B")


def test_mentions_of_the_shown_entry_fill_the_collapsed_group(qtbot, index: VaultIndex) -> None:
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    groups, sources = index.backlink_groups("Hub")
    reader = index.reader()
    try:
        page = functools.partial(index.backlinks_page, "Hub")
        panel.show_backlinks(BacklinksView("Hub", groups, sources, page))
        panel.find_unlinked("Hub", reader.unlinked_mentions, reader.interrupt)
        qtbot.waitUntil(lambda: not panel.finding_unlinked, timeout=10000)
        qtbot.wait(20)
        # Hub's title is only ever linked here: no unlinked mentions group, the rest intact.
        assert list(panel.groups()) == ["source (3)", f"mentions ({MENTIONERS:,})"]
    finally:
        panel.wait_unlinked()
        reader.close()


# ---------------------------------------------------------------------------------------
# a big hub: rows are painted, not widgets, and only the pages asked for are fetched
# ---------------------------------------------------------------------------------------
NO_KEYS = Qt.KeyboardModifier.NoModifier
CITERS, BODY_LINKS = 300, 1700  # 2,000 entries cite the hub


@pytest.fixture(scope="module")
def big_hub(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("big")
    vault = tmp / "v"
    (vault / "n").mkdir(parents=True)
    (vault / "Big.md").write_text("# Big\n\nThe hub.\n", encoding="utf-8")
    for i in range(CITERS):
        (vault / "n" / f"c{i:04d}.md").write_text(
            f'---\nsource: "[[Big]]"\n---\nCiter {i}.\n', encoding="utf-8"
        )
    for i in range(BODY_LINKS):
        (vault / "n" / f"m{i:04d}.md").write_text(
            f"# M {i}\n\nM {i} leans on [[Big]] here.\n", encoding="utf-8"
        )
    with VaultIndex.open(vault, tmp / "i.sqlite") as idx:
        yield idx


def fetched(panel: BacklinksPanel) -> dict[str, int]:
    """Group title → link rows the model holds (the "Show more" row not counted)."""
    return {title: len(ids) for title, ids in panel.groups().items()}


def test_a_big_hub_materialises_a_page_per_group_and_no_widget(qtbot, big_hub) -> None:
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    panel.resize(400, 600)
    pages: list[tuple] = []

    def page(relation, offset, limit):
        pages.append((relation, offset, limit))
        return big_hub.backlinks_page("Big", relation, offset, limit)

    groups, sources = big_hub.backlink_groups("Big")
    assert groups == [("source", CITERS), (None, BODY_LINKS)] and sources == CITERS + BODY_LINKS
    panel.show_backlinks(BacklinksView("Big", groups, sources, page), [])
    panel.show()
    qtbot.waitExposed(panel)
    panel.resize(420, 900)  # layouts of every kind: none may fetch behind the reader's back
    panel.tree.expandAll()
    qtbot.wait(20)
    panel.grab()

    assert fetched(panel) == {f"source ({CITERS:,})": PAGE, f"mentions ({BODY_LINKS:,})": PAGE}
    assert pages == [("source", 0, PAGE), (None, 0, PAGE)]
    model, view = panel.model, panel.tree
    for g in range(model.rowCount()):
        group = model.index(g, 0)
        assert model.rowCount(group) == PAGE + 1  # the rows, then "Show 100 more (…)"
        assert not model.canFetchMore(group)  # until the reader asks
        assert all(
            view.indexWidget(model.index(k, 0, group)) is None for k in range(model.rowCount(group))
        )
    assert labels(panel, "source")[-1] == f"Show {PAGE} more ({CITERS - PAGE} not shown)"

    # Scrolling to the end brings the last group's next page, and only that.
    view.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderToMaximum)
    qtbot.waitUntil(lambda: len(pages) == 3, timeout=5000)
    qtbot.wait(50)
    assert pages[-1] == (None, PAGE, PAGE)
    assert fetched(panel) == {f"source ({CITERS:,})": PAGE, f"mentions ({BODY_LINKS:,})": 2 * PAGE}
    assert labels(panel, "mentions")[-1] == f"Show {PAGE} more ({BODY_LINKS - 2 * PAGE} not shown)"
    assert panel.groups()[f"mentions ({BODY_LINKS:,})"] == [f"n/m{i:04d}" for i in range(2 * PAGE)]

    # fetchMore, as a view would ask it once the reader wants the page, brings the next.
    source = group_index(panel, "source")
    assert model.request(source)
    assert fetched(panel)[f"source ({CITERS:,})"] == 2 * PAGE and len(pages) == 4


def test_clicking_a_painted_row_opens_its_entry(qtbot, big_hub) -> None:
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    panel.resize(400, 600)
    groups, sources = big_hub.backlink_groups("Big")
    page = functools.partial(big_hub.backlinks_page, "Big")
    panel.show_backlinks(BacklinksView("Big", groups, sources, page), [])
    panel.show()
    qtbot.waitExposed(panel)
    view = panel.tree
    for group, k, expected in [("source", 3, "n/c0003"), ("mentions", 42, "n/m0042")]:
        row = children(panel, group)[k]
        view.scrollTo(row)
        assert view.indexWidget(row) is None  # painted by the delegate
        with qtbot.waitSignal(panel.entryActivated) as opened:
            at = view.visualRect(row).center()
            QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, NO_KEYS, at)
        assert opened.args == [expected]
    # Enter on the current row opens it too, as before.
    row = children(panel, "source")[5]
    view.setCurrentIndex(row)
    with qtbot.waitSignal(panel.entryActivated) as opened:
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert opened.args == ["n/c0005"]


def test_a_hostile_title_and_context_are_painted_as_literal_text(qtbot) -> None:
    title = "<img src=/etc/x> <b>bold</b> &amp;"
    source = EntryRef("E<1>", title, "e.md")
    link = LinkRow(source, None, "Hub", None, False, 3, f"{title} links [[Hub]] <a href=x>y</a>")
    hit = SearchHit(source, "note", f"{title} names {MATCH_START}<i>Hub</i>{MATCH_END}", 1.0)
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    panel.show_backlinks(
        BacklinksView("Hub", [(None, 1)], 1, lambda r, o, n: [link][o:][:n]), [hit]
    )
    panel.tree.expandAll()
    panel.show()
    qtbot.waitExposed(panel)
    panel.grab()
    rows = [children(panel, "mentions")[0], children(panel, UNLINKED)[0]]
    for row in rows:
        html = row.data(ROLE_HTML)
        assert "<img" not in html and "&lt;img src=/etc/x&gt;" in html
        assert "<a " not in html and "<i>" not in html
        doc = QTextDocument()
        doc.setHtml(html)  # what the delegate paints
        assert doc.toPlainText().startswith("E<1> — <img src=/etc/x> <b>bold</b> &amp;\n")
        tip = row.data(Qt.ItemDataRole.ToolTipRole)
        assert tip.startswith("<qt>") and "<img" not in tip and "&lt;img" in tip
        assert "<img src=/etc/x>" in row.data()  # the plain text, for a screen reader
    # the line as it reads: the link as its text, the tags in it not shown at all
    assert 'links <span style="color: #5b47c9;">Hub</span> y' in rows[0].data(ROLE_HTML)
    assert "Hub</b>" in rows[1].data(ROLE_HTML) and "&lt;i&gt;" not in rows[1].data(ROLE_HTML)
    assert panel.delegate.asked == []  # painting loaded nothing


def test_a_group_counted_only_up_to_the_cap_pages_to_its_end(
    qtbot, big_hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting a hub's 750,000 mentions took 60 ms of opening it: past the cap a group
    says "1,000+" and pages on until a page comes back short."""
    from anthology.session import backlinks

    monkeypatch.setattr(backlinks, "COUNT_SHOWN", 1000)
    monkeypatch.setattr(backlinks, "SOURCES_SHOWN", 1000)
    groups, sources = big_hub.backlink_groups("Big", sources_cap=1000, count_cap=1000)
    assert groups == [("source", CITERS), (None, 1001)] and sources == 1001
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    panel.show_backlinks(
        BacklinksView("Big", groups, sources, functools.partial(big_hub.backlinks_page, "Big"))
    )
    assert panel.title.text() == f"Backlinks · {CITERS + 1000:,}+"  # what the groups say
    assert "mentions (1,000+)" in panel.groups()
    assert labels(panel, "mentions")[-1] == f"Show {PAGE} more"  # how many is not known
    mentions = group_index(panel, "mentions")
    while panel.model.request(mentions):
        pass
    ids = panel.groups()["mentions (1,000+)"]
    assert len(ids) == BODY_LINKS and len(set(ids)) == BODY_LINKS  # every one, once
    assert not labels(panel, "mentions")[-1].startswith("Show")  # and then no "Show more"


def test_context_lines_are_cut_only_for_rows_on_screen(qtbot, big_hub) -> None:
    """A hub's first pages are hundreds of links; reading every source's body to cut their
    context lines was most of the panel's part in opening it."""
    asked: list[str] = []

    def context_of(link):
        asked.append(link.source.id)
        return big_hub.link_context(link)

    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    panel.resize(400, 500)
    groups, sources = big_hub.backlink_groups("Big")
    page = functools.partial(big_hub.backlinks_page, "Big", contexts=False)
    panel.show_backlinks(BacklinksView("Big", groups, sources, page, context_of), [])
    panel.show()
    qtbot.waitExposed(panel)
    panel.grab()
    assert sum(fetched(panel).values()) == 2 * PAGE  # two pages held …
    # … the lines cut for the rows painted only (a row's height is its number of links)
    assert len(asked) < PAGE // 2 and "n/m0050" not in asked
    before = len(asked)
    row = children(panel, "mentions")[PAGE // 2]  # far below the screen
    assert "leans on" in row.data(ROLE_HTML)  # its line, cut when it is asked for
    assert len(asked) == before + 1
