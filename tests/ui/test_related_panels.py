"""The Related entries and Relations docks as a reader meets them: opened from the View
menu, following the entry read, their rows, order and explaining words, a click opening
an entry, Ctrl+click and a middle-click opening it in a new tab, and what they say when
there is nothing to show."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtWidgets import QTreeWidgetItem
from reader_window import window_opener

from anthology.ui.panels.ladder_panel import LadderPanel
from anthology.ui.panels.related_panel import FINDING, LINKED, NOT_LINKED, RelatedPanel
from anthology.ui.window.main_window import MainWindow
from related_vault import write_related_vault

STARTER = "Baking/Sourdough starter 🍞"


@pytest.fixture
def open_window(qtbot, tmp_path: Path, settings):
    vault = write_related_vault(tmp_path / "my vault")
    yield from window_opener(qtbot, vault, tmp_path, settings, entry=STARTER)


def _related(qtbot, win: MainWindow) -> RelatedPanel:
    n = win.neighbours
    if not n.related_dock.isVisible():
        n.act_related.trigger()
    panel = n.related
    qtbot.waitUntil(lambda: panel.shown is not None and not panel.busy, timeout=10000)
    return panel


def _click(qtbot, tree, item: QTreeWidgetItem, button=Qt.MouseButton.LeftButton,
           modifier=Qt.KeyboardModifier.NoModifier) -> None:  # fmt: skip
    tree.scrollToItem(item)
    rect = tree.visualItemRect(item)
    qtbot.mouseClick(tree.viewport(), button, modifier, rect.center() + QPoint(0, 0))


def test_the_view_menu_opens_related_entries_of_the_entry_read(qtbot, open_window) -> None:
    win = open_window()
    assert not win.neighbours.related_dock.isVisible()  # hidden until asked for
    view = next(a.menu() for a in win.menuBar().actions() if a.text() == "&View")
    assert "&Related Entries" in [a.text() for a in view.actions()]
    assert "Re&lations" in [a.text() for a in view.actions()]
    panel = _related(qtbot, win)
    groups = panel.groups()
    assert list(groups) == [f"{NOT_LINKED} (4)", f"{LINKED} (3)"]
    not_linked = groups[f"{NOT_LINKED} (4)"]
    assert not_linked[0][0] == "Baking/Rye bread"
    assert "flour" in not_linked[0][1].split(" · ")  # the words it shares, shown under it
    assert {i for i, _t in groups[f"{LINKED} (3)"]} == {
        "Baking/Wild yeast", "Baking/Country loaf", "Reading/Links to read"}  # fmt: skip
    assert panel.title.text() == f"Related to {STARTER}"


def test_a_click_opens_a_related_entry_and_the_panel_follows(qtbot, open_window) -> None:
    win = open_window()
    panel = _related(qtbot, win)
    _click(qtbot, panel.tree, panel.item_for("Baking/Rye bread"))
    qtbot.waitUntil(lambda: win.current_id() == "Baking/Rye bread", timeout=5000)
    # the panel now shows the rye bread's related entries
    qtbot.waitUntil(lambda: panel.shown is not None
                    and panel.shown.entry_id == "Baking/Rye bread", timeout=10000)  # fmt: skip
    assert panel.title.text() == "Related to Baking/Rye bread"
    assert panel.item_for(STARTER) is not None


def test_ctrl_click_and_middle_click_open_in_a_new_tab(qtbot, open_window) -> None:
    win = open_window()
    panel = _related(qtbot, win)
    tabs = win.tabs.count()
    _click(qtbot, panel.tree, panel.item_for("Baking/Rye bread"),
           modifier=Qt.KeyboardModifier.ControlModifier)  # fmt: skip
    qtbot.waitUntil(lambda: win.tabs.count() == tabs + 1, timeout=5000)
    shown = win.current_id()  # the new tab's entry, or the one read still: the panel follows
    qtbot.waitUntil(lambda: panel.shown is not None and panel.shown.entry_id == shown
                    and not panel.busy, timeout=10000)  # fmt: skip
    other = panel.groups()[next(iter(panel.groups()))][0][0]
    _click(qtbot, panel.tree, panel.item_for(other),
           button=Qt.MouseButton.MiddleButton)  # fmt: skip
    qtbot.waitUntil(lambda: win.tabs.count() == tabs + 2, timeout=5000)


def test_an_entry_with_nothing_related_says_why(qtbot, open_window) -> None:
    win = open_window(entry="Loop/Alpha")
    panel = _related(qtbot, win)
    assert panel.groups() == {}
    assert panel.status.isVisibleTo(panel)
    assert panel.status.text().startswith("No other entry shares its words.")


def test_the_relations_ladder_and_its_chain(qtbot, open_window) -> None:
    win = open_window()
    win.neighbours.act_ladder.trigger()
    panel: LadderPanel = win.neighbours.ladder
    qtbot.waitUntil(lambda: panel.shown is not None, timeout=5000)
    assert panel.lines() == [
        "Introduced by → (1)",
        "  Wild yeast",
        "← Cited as “source” by (1)",
        "  Country loaf",
        "Chains",
        "  Introduced by → … (2 steps)",
        "    1. Wild yeast",
        "    2. Fermentation history",
        "    ■ end",
    ]
    _click(qtbot, panel.tree, panel.item_for("Baking/Fermentation history"))
    qtbot.waitUntil(lambda: win.current_id() == "Baking/Fermentation history", timeout=5000)
    assert panel.lines()[:2] == ["← Cited as “introduced by” by (1)", "  Wild yeast"]


def test_a_loop_is_said_in_the_ladder(qtbot, open_window) -> None:
    win = open_window(entry="Loop/Beta")
    win.neighbours.act_ladder.trigger()
    panel = win.neighbours.ladder
    qtbot.waitUntil(lambda: panel.shown is not None, timeout=5000)
    lines = panel.lines()
    assert "  Follows → … (2 steps)" in lines
    at = lines.index("  Follows → … (2 steps)")
    assert lines[at + 1 : at + 4] == ["    1. Gamma", "    2. Alpha", "    ↺ loops back to Beta"]


def test_a_related_answer_that_comes_late_is_dropped(qtbot) -> None:
    """The panel alone: an answer for an entry left meanwhile is not shown over the new one."""
    panel = RelatedPanel()
    qtbot.addWidget(panel)
    panel.ask_for("A", lambda _i: None)
    assert panel.status.text() == FINDING
    panel._on_found(("Other", None, ""))
    assert panel.status.text() == FINDING
    qtbot.waitUntil(lambda: not panel.busy, timeout=5000)
    assert panel.status.text() == "Could not find related entries."


def test_the_page_preview_adds_the_entries_related_and_not_linked(qtbot, tmp_path: Path) -> None:
    """Its section comes under the preview once found; its links open their entry."""
    from PySide6.QtWidgets import QWidget

    from anthology.ui.reading.page_preview import PreviewController
    from anthology.vault.index import VaultIndex

    vault = write_related_vault(tmp_path / "my vault")
    parent = QWidget()
    qtbot.addWidget(parent)
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:
        reader = idx.reader()  # the section's own, as the window gives it
        asker = (reader.related, reader.interrupt)
        previews = PreviewController(parent, idx.entry, lambda: idx, lambda: "light",
                                     lambda: idx.root, related_of=lambda: asker)  # fmt: skip
        previews.hover("Birds/Robin", immediate=True)
        qtbot.waitUntil(lambda: "Related, not linked yet" in previews.popup.text(), timeout=8000)
        text = previews.popup.text()
        assert text.index("Robin") < text.index("Related, not linked yet")
        after = text.split("Related, not linked yet", 1)[1]
        assert after.strip().splitlines()[0].startswith("Garden birds · feeder, sings")
        opened: list[tuple[str, str]] = []
        previews.linkActivated.connect(lambda i, h: opened.append((i, h)))
        previews.popup.browser.anchorClicked.emit(
            QUrl("entry:Birds%2FGarden%20birds%20%F0%9F%90%A6")
        )
        assert opened == [("Birds/Garden birds 🐦", "")]
        previews.hide()
        previews.stop_related()
        reader.close()


def test_the_page_preview_has_no_section_unless_asked(qtbot, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QWidget

    from anthology.ui.reading.page_preview import PreviewController
    from anthology.vault.index import VaultIndex

    vault = write_related_vault(tmp_path / "my vault")
    parent = QWidget()
    qtbot.addWidget(parent)
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:
        previews = PreviewController(parent, idx.entry, lambda: idx, lambda: "light")
        previews.hover("Birds/Robin", immediate=True)
        qtbot.waitUntil(lambda: previews.visible, timeout=5000)
        qtbot.wait(200)
        assert "Related" not in previews.popup.text()
        previews.hide()
