"""The explorer makes a folder's rows when the reader opens it (or a filter, or a reveal
needs them), and the quick switcher what it matches when it is opened: at 100,000 entries
making all of it took 1.5 s of each start. What they show must not change: the same rows,
in the same order, with the same counts; the same notes found."""

from __future__ import annotations

from PySide6.QtCore import Qt

from anthology.ui.panels.file_explorer import FileExplorer
from anthology.ui.panels.quick_switcher import QuickSwitcher
from anthology.vault import EntryRef

REFS = [
    EntryRef("Home", "Home", "Home.md"),
    EntryRef("papers/Note 10", "Note 10", "papers/Note 10.md"),
    EntryRef("papers/Note 2", "Note 2", "papers/Note 2.md"),
    EntryRef("papers/deep/🌱 Seed", "🌱 Seed", "papers/deep/🌱 Seed.md"),
    EntryRef("inbox/Plan", "Plan", "inbox/Plan.md"),
    EntryRef("papers/Plan", "Plan", "papers/Plan.md"),
]
ATTACHMENTS = ["papers/figure 1.png", "papers/deep/data.csv"]


def _explorer(qtbot) -> FileExplorer:
    explorer = FileExplorer()
    qtbot.addWidget(explorer)
    explorer.resize(300, 600)
    explorer.show()
    explorer.set_entries(REFS, ATTACHMENTS)
    return explorer


def test_the_tree_opened_shows_every_row_in_natural_order_with_counts(qtbot) -> None:
    explorer = _explorer(qtbot)
    explorer.tree.expandAll()
    assert explorer.visible_labels() == [
        "inbox", "Plan", "papers", "deep", "🌱 Seed", "Note 2", "Note 10", "Plan", "Home",
    ]  # fmt: skip
    model = explorer.model
    counts = {model.index(r, 0).data(): model.index(r, 1).data() for r in range(model.rowCount())}
    assert counts == {"inbox": "1", "papers": "4", "Home": None}
    explorer.attachments_button.click()
    explorer.tree.expandAll()
    labels = explorer.visible_labels()
    assert labels.index("data.csv") == labels.index("🌱 Seed") + 1
    assert labels[-3:] == ["Plan", "figure 1.png", "Home"]


def test_a_closed_folder_makes_no_rows_until_it_is_opened_or_revealed(qtbot) -> None:
    explorer = _explorer(qtbot)
    explorer.tree.collapseAll()
    papers = explorer.node_at(explorer.folder_index("papers"))
    assert papers is not None and papers.pending is not None  # nothing made yet
    assert explorer.visible_labels() == ["inbox", "papers", "Home"]
    assert explorer.tree.model().hasChildren(explorer.folder_index("papers"))
    # revealing an entry of it (the reader navigated there) makes its rows and opens it
    assert explorer.reveal("papers/deep/🌱 Seed")
    assert explorer.current_id() == "papers/deep/🌱 Seed"
    assert papers.pending is None
    assert "🌱 Seed" in explorer.visible_labels()
    inbox = explorer.node_at(explorer.folder_index("inbox"))
    assert inbox is not None and inbox.pending is not None  # still not asked for


def test_a_filter_finds_rows_of_folders_never_opened(qtbot) -> None:
    explorer = _explorer(qtbot)
    explorer.tree.collapseAll()
    explorer.box.setText("seed")
    explorer.apply_filter()
    assert explorer.visible_labels() == ["papers", "deep", "🌱 Seed"]
    explorer.box.clear()
    explorer.apply_filter()
    explorer.tree.collapseAll()
    assert explorer.visible_labels() == ["inbox", "papers", "Home"]
    assert not explorer.reveal("nowhere/at all")


def test_the_switcher_given_its_entries_while_closed_finds_them_when_opened(qtbot) -> None:
    switcher = QuickSwitcher()
    qtbot.addWidget(switcher)
    switcher.set_entries([(ref, ["Germination"] if "Seed" in ref.id else []) for ref in REFS])
    assert switcher.list.count() == 0  # nothing made while closed
    switcher.set_recent(["papers/Plan"])
    switcher.open_switcher()
    assert switcher.visible_ids()[0] == "papers/Plan"  # the last read first
    assert len(switcher.visible_ids()) == len(REFS)
    qtbot.keyClicks(switcher.input, "germin")  # an alias
    assert switcher.visible_ids() == ["papers/deep/🌱 Seed"]
    # new entries while open: matched at once
    switcher.input.setText("germ")
    switcher.set_entries([(EntryRef("Germ", "Germ", "Germ.md"), [])])
    assert switcher.visible_ids() == ["Germ"]
    chosen = []
    switcher.entryChosen.connect(chosen.append)
    qtbot.keyClick(switcher.input, Qt.Key.Key_Return)
    assert chosen == ["Germ"]
