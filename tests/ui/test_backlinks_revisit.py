"""Coming back to an entry: its backlinks are shown again as they were (kept until the index
changes), a changed file is seen, and the rows still read as text with formulas typeset."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QTextDocument
from reader_window import panel_rows, window_opener

from anthology.ui.panels.backlinks_panel import PAGE, ROLE_HTML, ROLE_MORE, BacklinksPanel
from anthology.ui.window.main_window import MainWindow
from anthology.vault.index import VaultIndex
from sample_vault import write_newer

write = write_newer  # a note written with a visibly newer mtime


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """An Obsidian-like vault: folders with spaces, a name twice, no id properties; a hub
    linked from a page and a half of notes (one of them twice, across the page's end),
    cited in front matter, and a note whose line around the link has a formula."""
    root = tmp_path / "Reading Vault"
    write(root / "Topics" / "Attention hub.md", "# Attention hub\n\nThe centre.\n")
    write(root / "Topics" / "Side note.md", "# Side note\n\nSee [[Attention hub]].\n")
    for i in range(PAGE + 20):
        extra = "\nAnd once more: [[Attention hub|the hub]] again.\n" if i == PAGE - 1 else ""
        write(
            root / "Daily" / f"2024-01-{i:02d} note.md",
            f"# Day {i}\n\nRead [[Attention hub]] on **day {i}**.\n{extra}",
        )
    write(root / "Papers" / "Side note.md", '---\nsource: "[[Attention hub]]"\n---\nA twin.\n')
    write(
        root / "Concepts" / "Scaled scores.md",
        "# Scaled\n\nScores over $\\sqrt{d_k}$ as in [[Attention hub]] keep gradients alive.\n",
    )
    write(root / "Loose" / "plain mention.md", "# Plain\n\nWe reread Attention hub today.\n")
    return root


@pytest.fixture
def open_window(qtbot, tmp_path: Path, vault: Path, settings: QSettings):
    yield from window_opener(qtbot, vault, tmp_path, settings)


HUB = "Topics/Attention hub"


def shown(panel: BacklinksPanel) -> tuple[str, dict[str, list[str]], list[str]]:
    """What a reader sees: the header, each group's rows, and each row's painted text."""
    texts = [row.data(ROLE_HTML) or row.data() for row in panel_rows(panel)]
    return panel.title.text(), panel.groups(), texts


def quiet(win: MainWindow) -> bool:
    return not win.live.debounce.isActive() and not win.indexing


def test_a_revisit_shows_the_same_backlinks_and_a_changed_file_is_seen(
    qtbot, open_window, vault: Path
) -> None:
    win = open_window(HUB)
    panel = win.backlinks
    qtbot.waitUntil(lambda: not panel.finding_unlinked, timeout=10000)
    first = shown(panel)
    header, groups, _texts = first
    mentions = f"mentions ({PAGE + 22})"  # the note linking twice is listed once
    assert header == f"Backlinks · {PAGE + 22 + 1}"  # the groups' entries, summed
    assert groups["source (1)"] == ["Papers/Side note"]
    assert len(groups[mentions]) == PAGE  # a page of 50 links: the last note's first
    kept = [row for group in panel.model.groups if group.paged for row in group.rows]
    panel.tree.viewport().repaint()  # its rows painted: their documents made

    # "Show more" on the hub, then away and back: the first page again, as it was.
    more = panel.model.index(panel.model.rowCount(panel.model.index(1, 0)) - 1, 0,
                             panel.model.index(1, 0))  # fmt: skip
    assert more.data(ROLE_MORE) is not None
    panel.model.request(more.parent())
    assert len(panel.groups()[mentions]) == PAGE + 22  # all of them now
    joined = panel.item_for("mentions", f"Daily/2024-01-{PAGE - 1:02d} note")
    assert "the hub" in joined.data(ROLE_HTML)  # its second link, from the second page
    assert win.show_entry("Topics/Side note")
    assert win.show_entry(HUB)
    again = shown(panel)
    assert again[0] == first[0] and again[1] == first[1]
    assert again[2][: len(first[2]) - 1] == first[2][:-1]  # the rows, before the mentions
    # the kept rows themselves, their documents laid out already (nothing built again);
    # the last source of the first page was joined to its next link on a new row, the
    # kept one shows its first page's line only
    assert [row for group in panel.model.groups if group.paged for row in group.rows] == kept
    assert any(row.doc is not None for row in kept)

    # A new note linking here (a file written while the window is open): the next visit
    # shows it, counted in its group and in the header.
    write(vault / "Papers" / "Fresh paper.md", '---\nsource: "[[Attention hub]]"\n---\nNew.\n')
    assert win.show_entry("Topics/Side note")
    qtbot.waitUntil(lambda: win.index.entry_ref("Papers/Fresh paper") is not None, timeout=10000)
    qtbot.waitUntil(lambda: quiet(win), timeout=10000)
    assert win.show_entry(HUB)
    header, groups, _texts = shown(panel)
    assert groups["source (2)"] == ["Papers/Fresh paper", "Papers/Side note"]
    assert header == f"Backlinks · {PAGE + 22 + 2}"


def test_revisited_rows_read_as_text_with_formulas_typeset(qtbot, open_window) -> None:
    win = open_window(HUB)
    panel = win.backlinks
    assert win.show_entry("Topics/Side note")
    assert win.show_entry(HUB)
    row = panel.item_for("mentions", "Concepts/Scaled scores")
    assert row is not None
    html = row.data(ROLE_HTML)
    assert '<img src="math:' in html and "$" not in html  # \sqrt{d_k} typeset
    assert "[[" not in html and "Attention hub</span> keep gradients" in html
    panel.tree.scrollTo(row)
    panel.tree.viewport().repaint()
    painted = panel.model.row_at(row).doc
    assert painted is not None
    doc = painted[2]
    text = doc.toPlainText()
    assert "Scores over" in text and "as in Attention hub keep gradients alive" in text
    key = html.split('<img src="', 1)[1].split('"', 1)[0]
    assert not doc.resource(QTextDocument.ResourceType.ImageResource, key).isNull()
    assert panel.delegate.asked == []  # painting loaded nothing


def test_a_theme_change_paints_a_revisited_entry_in_its_colours(qtbot, open_window) -> None:
    win = open_window(HUB)
    panel = win.backlinks
    light = panel.item_for("mentions", "Daily/2024-01-00 note").data(ROLE_HTML)
    panel.set_theme("dark")
    assert win.show_entry("Topics/Side note")
    assert win.show_entry(HUB)
    dark = panel.item_for("mentions", "Daily/2024-01-00 note").data(ROLE_HTML)
    assert dark != light and "Attention hub</span>" in dark
    assert panel.model.theme == "dark"


@pytest.fixture
def index(vault: Path, tmp_path: Path) -> Iterator[VaultIndex]:
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:
        yield idx


def test_keyboard_and_ctrl_click_open_a_revisited_row(qtbot, index: VaultIndex) -> None:
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    panel.resize(420, 600)
    panel.show()
    view = index.backlinks_view(HUB)
    panel.show_backlinks(view, [])
    panel.show_backlinks(index.backlinks_view("Topics/Side note"), [])
    assert index.backlinks_view(HUB) is view  # the index answers the same view
    panel.show_backlinks(view, [])
    row = panel.item_for("source", "Papers/Side note")
    assert row is not None
    panel.tree.setFocus()
    panel.tree.setCurrentIndex(row)
    with qtbot.waitSignal(panel.entryActivated) as opened:
        qtbot.keyClick(panel.tree, Qt.Key.Key_Return)
    assert opened.args == ["Papers/Side note"]
    rect = panel.tree.visualRect(row)
    with qtbot.waitSignal(panel.entryActivatedNewTab) as tab:
        qtbot.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ControlModifier, rect.center())  # fmt: skip
    assert tab.args == ["Papers/Side note"]
    # the tooltip: the row as plain text (escaped for Qt's rich text)
    assert row.data(Qt.ItemDataRole.ToolTipRole) == "<qt>Side note<br/>source: Attention hub</qt>"


def test_unlinked_mentions_are_searched_once_per_state_of_the_index(
    qtbot, open_window, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    real = VaultIndex.unlinked_mentions

    def counted(self, entry_id: str, limit: int = 50):
        asked.append(entry_id)
        return real(self, entry_id, limit)

    monkeypatch.setattr(VaultIndex, "unlinked_mentions", counted)
    win = open_window(HUB)
    panel = win.backlinks
    qtbot.waitUntil(lambda: "Unlinked mentions (1)" in panel.groups(), timeout=10000)
    assert panel.groups()["Unlinked mentions (1)"] == ["Loose/plain mention"]
    searched = asked.count(HUB)
    assert win.show_entry("Topics/Side note")
    qtbot.waitUntil(lambda: not panel.finding_unlinked, timeout=10000)
    assert win.show_entry(HUB)
    # shown again at once, collapsed as before, without searching again
    assert panel.groups()["Unlinked mentions (1)"] == ["Loose/plain mention"]
    assert not panel.finding_unlinked and asked.count(HUB) == searched
    group = next(i for i, g in enumerate(panel.model.groups) if g.title.startswith("Unlinked"))
    assert not panel.tree.isExpanded(panel.model.index(group, 0))

    # another note names it: the index changed, the next visit searches again
    write(vault / "Loose" / "second mention.md", "# Second\n\nAttention hub, once more.\n")
    assert win.show_entry("Topics/Side note")
    qtbot.waitUntil(lambda: win.index.entry_ref("Loose/second mention") is not None, timeout=10000)
    qtbot.waitUntil(lambda: quiet(win), timeout=10000)
    assert win.show_entry(HUB)
    qtbot.waitUntil(lambda: "Unlinked mentions (2)" in panel.groups(), timeout=10000)
    assert asked.count(HUB) == searched + 1
