"""The explorer's rows are a QTreeWidget's items, held and laid out by Qt: a big folder
opened by a click shows its rows a few turns later, made a slice a turn, every one in
natural order; painting asks Python only for the rows painted, not for every row of the
open folders; the tooltip (label and path) and the muted colour of the counts and the
attachments are worked out for the row painted or pointed at, in the theme of the moment.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QHelpEvent, QImage
from PySide6.QtWidgets import QApplication, QToolTip

from anthology.palette import theme
from anthology.ui.common.theme import apply_theme
from anthology.ui.panels import file_explorer
from anthology.ui.panels.file_explorer import FileExplorer
from anthology.vault import EntryRef


def _refs(folder: str, n: int) -> list[EntryRef]:
    # titles in an order natural sort changes: "Note 2" before "Note 10"
    return [EntryRef(f"{folder}/Note {i}", f"Note {i}", f"{folder}/Note {i}.md")
            for i in range(n, 0, -1)]  # fmt: skip


def _explorer(qtbot, refs: list[EntryRef], attachments: list[str] = ()) -> FileExplorer:
    explorer = FileExplorer()
    qtbot.addWidget(explorer)
    explorer.resize(300, 500)
    explorer.show()
    qtbot.waitExposed(explorer)
    explorer.set_entries(refs, list(attachments))
    return explorer


def _click(qtbot, explorer: FileExplorer, index) -> None:
    rect = explorer.tree.visualRect(index)
    assert rect.isValid()
    qtbot.mouseClick(explorer.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


@pytest.fixture
def small_slices(monkeypatch) -> None:
    """A folder of more than 40 rows is big; its rows are made 15 a slice."""
    monkeypatch.setattr(file_explorer, "BIG_FOLDER", 40)
    monkeypatch.setattr(file_explorer, "FOLDER_CHUNK", 15)


def test_a_big_folder_opened_by_a_click_shows_every_row_in_natural_order_after_the_slices(
    qtbot, small_slices, monkeypatch
) -> None:
    steps = []
    real = FileExplorer._step
    monkeypatch.setattr(FileExplorer, "_step", lambda self: (steps.append(1), real(self)))
    explorer = _explorer(qtbot, [*_refs("inbox", 3), *_refs("papers", 100)])
    papers = explorer.folder_index("papers")
    assert explorer.model.hasChildren(papers)  # an arrow before any row is made
    _click(qtbot, explorer, papers)
    assert explorer.tree.isExpanded(papers)  # open at once; the rows a moment later
    assert explorer.model.rowCount(papers) < 100
    qtbot.waitUntil(lambda: explorer.model.rowCount(papers) == 100, timeout=5000)
    assert len(steps) >= 100 // 15  # a slice a turn, not the folder in the click's turn
    labels = explorer.visible_labels()
    assert labels == ["inbox", "papers", *(f"Note {i}" for i in range(1, 101))]
    assert explorer.expanded == {"papers"}  # the reader's, kept in the user state
    # a click on a row of it opens that entry
    opened = []
    explorer.entryActivated.connect(opened.append)
    _click(qtbot, explorer, explorer.index_of("papers/Note 3"))
    assert opened == ["papers/Note 3"]
    # a small folder opens with its rows in the same turn
    inbox = explorer.folder_index("inbox")
    _click(qtbot, explorer, inbox)
    assert explorer.model.rowCount(inbox) == 3


def test_a_big_folder_revealed_while_its_rows_are_made_selects_the_entry_once_they_are(
    qtbot, small_slices
) -> None:
    explorer = _explorer(qtbot, [*_refs("inbox", 3), *_refs("papers", 100)])
    _click(qtbot, explorer, explorer.folder_index("papers"))
    explorer.follow("papers/Note 90")  # the reader navigates there meanwhile
    qtbot.waitUntil(lambda: explorer.current_id() == "papers/Note 90", timeout=5000)
    tree = explorer.tree
    assert tree.model().rowCount(explorer.folder_index("papers")) == 100
    row = tree.currentIndex()
    assert tree.viewport().rect().intersects(tree.visualRect(row))  # brought into view
    # a filter lists the matches of every folder, each open; a big one's a slice a turn
    explorer.box.setText("note 9")
    explorer.apply_filter()
    nines = [9, *range(19, 90, 10), *range(90, 100)]
    assert explorer.visible_labels() == ["papers", *(f"Note {i}" for i in nines)]
    explorer.box.setText("note")
    explorer.apply_filter()
    qtbot.waitUntil(lambda: len(explorer.visible_labels()) == 2 + 103, timeout=5000)
    assert explorer.visible_labels()[:6] == [
        "inbox",
        "Note 1",
        "Note 2",
        "Note 3",
        "papers",
        "Note 1",
    ]
    explorer.box.clear()
    explorer.apply_filter()  # the folders the reader had open, again, and the entry
    qtbot.waitUntil(lambda: explorer.current_id() == "papers/Note 90", timeout=5000)
    assert len(explorer.visible_labels()) == 2 + 100


def test_painting_an_open_folder_asks_python_for_the_rows_painted_only(qtbot, monkeypatch) -> None:
    """3,000 rows open; a paint styles the ~30 rows in view (two cells each), and laying
    them out calls no Python per row (a Python model was asked twice a row, every layout)."""
    styled = []
    real = file_explorer._RowLook.initStyleOption

    def counted(self, option, index):
        styled.append(index.row())
        real(self, option, index)

    monkeypatch.setattr(file_explorer._RowLook, "initStyleOption", counted)
    explorer = _explorer(qtbot, _refs("papers", 3000))
    explorer.reveal("papers/Note 1500")
    qtbot.wait(50)  # laid out and painted
    in_view = explorer.tree.viewport().height() // explorer.tree.sizeHintForRow(0) + 2
    styled.clear()
    explorer.tree.viewport().grab()
    assert 0 < len(styled) <= 2 * in_view
    assert 1499 in styled  # the entry revealed, in view


def test_the_tooltip_gives_the_label_and_the_path_of_the_row_pointed_at(qtbot) -> None:
    explorer = _explorer(qtbot, [EntryRef("LIT-7", "A <b>long</b> title", "papers/lit 7.md")])
    explorer.reveal("LIT-7")
    tree = explorer.tree
    tips = []
    for index in (explorer.index_of("LIT-7"), explorer.folder_index("papers")):
        point = tree.visualRect(index).center()
        event = QHelpEvent(QEvent.Type.ToolTip, point, tree.viewport().mapToGlobal(point))
        QApplication.sendEvent(tree.viewport(), event)
        qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
        tips.append(QToolTip.text())
        QToolTip.hideText()
        qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=2000)
    entry, folder = tips
    # the label as text (its markup shown, not obeyed), then the file's path
    assert "A &lt;b&gt;long&lt;/b&gt; title" in entry and "papers/lit 7.md" in entry
    assert entry.index("title") < entry.index("papers/lit 7.md")
    assert folder == "<qt>papers</qt>"


def _ink(image: QImage, rect, base: QColor) -> QColor:
    """The pixel of ``rect`` furthest from the background: the text's own colour."""

    def far(c: QColor) -> int:
        return (
            abs(c.red() - base.red()) + abs(c.green() - base.green()) + abs(c.blue() - base.blue())
        )

    best = base
    for x in range(rect.left(), rect.right()):
        for y in range(rect.top(), rect.bottom()):
            c = image.pixelColor(x, y)
            if far(c) > far(best):
                best = c
    return best


def _nearer(c: QColor, a: str, b: str) -> bool:
    """Whether ``c`` is nearer to colour ``a`` than to ``b``."""

    def dist(x: str) -> int:
        q = QColor(x)
        return abs(c.red() - q.red()) + abs(c.green() - q.green()) + abs(c.blue() - q.blue())

    return dist(a) < dist(b)


@pytest.mark.parametrize("name", ["light", "dark"])
def test_counts_and_attachments_are_muted_in_the_theme_of_the_moment(qtbot, name) -> None:
    app = QApplication.instance()
    sheet, palette = app.styleSheet(), app.palette()  # (the style is Fusion either way)
    try:
        apply_theme(app, "dark" if name == "light" else "light")  # then the theme changes
        explorer = _explorer(qtbot, [EntryRef("papers/Note 1", "Note 1", "papers/Note 1.md")],
                             ["papers/figure 1.png"])  # fmt: skip
        explorer.attachments_button.click()
        explorer.reveal("papers/Note 1")
        explorer.tree.clearSelection()
        explorer.tree.setCurrentItem(None)
        apply_theme(app, name)
        colours = theme(name).window
        image = explorer.tree.viewport().grab().toImage()
        base = image.pixelColor(explorer.tree.viewport().width() - 2, image.height() - 2)
        assert _nearer(base, colours.base, colours.text)
        tree = explorer.tree
        count = tree.visualRect(explorer.folder_index("papers").siblingAtColumn(1))
        entry = tree.visualRect(explorer.index_of("papers/Note 1"))
        figure = entry.translated(0, entry.height())
        assert tree.indexAt(figure.center()).data() == "figure 1.png"
        assert _nearer(_ink(image, count, base), colours.muted, colours.text)
        assert _nearer(_ink(image, figure, base), colours.muted, colours.text)
        assert _nearer(_ink(image, entry, base), colours.text, colours.muted)
    finally:
        app.setStyleSheet(sheet)
        app.setPalette(palette)


def test_no_item_is_made_for_a_folder_never_opened(qtbot) -> None:
    """At a start only the top rows are items; a folder's rows when it is opened."""
    explorer = _explorer(qtbot, [*_refs("a", 500), *_refs("b", 500), *_refs("c/d", 5)])
    tree = explorer.tree
    assert tree.topLevelItemCount() == 3
    assert sum(tree.topLevelItem(i).childCount() for i in range(3)) == 0
    c = explorer.folder_index("c")
    tree.expand(c)
    assert explorer.visible_labels() == ["a", "b", "c", "d"]
    assert tree.topLevelItem(0).childCount() == tree.topLevelItem(1).childCount() == 0
    assert [tree.topLevelItem(i).text(1) for i in range(3)] == ["500", "500", "5"]


def test_a_breadcrumb_s_folder_under_a_big_folder_is_shown_once_its_rows_are_made(
    qtbot, small_slices
) -> None:
    explorer = _explorer(qtbot, [*_refs("papers", 100), *_refs("papers/old", 3)])
    assert explorer.reveal_folder("papers/old")  # listed: shown a few turns later
    tree = explorer.tree

    def shown() -> bool:
        return explorer.node_at(tree.currentIndex()) is explorer.files.folders["papers/old"]

    qtbot.waitUntil(shown, timeout=5000)
    assert tree.isExpanded(explorer.folder_index("papers"))
    assert tree.isExpanded(tree.currentIndex())
    labels = explorer.visible_labels()
    assert labels[:5] == ["papers", "old", "Note 1", "Note 2", "Note 3"]
    assert len(labels) == 2 + 3 + 100
    assert not explorer.reveal_folder("nowhere")
