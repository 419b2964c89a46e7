"""The explorer's tree without Qt (vault/file_tree.py): folders first, then entries by
label and attachments by name, each in natural order; every folder's count of the entries
under it; a folder's rows made only when asked; the filter's words in a row's label or file
name, the folders above a match kept."""

from __future__ import annotations

from anthology.vault import EntryRef
from anthology.vault.file_tree import ATTACHMENT, FOLDER, FileTree, natural_key

REFS = [
    EntryRef("Home", "Home", "Home.md"),
    EntryRef("Projects/2024/Note 10", "Note 10", "Projects/2024/Note 10.md"),
    EntryRef("Projects/2024/Note 2", "Note 2", "Projects/2024/Note 2.md"),
    EntryRef("LIT-7", "Attention", "Projects/lit seven.md"),
    EntryRef("🌱 Seeds/Idea", "Idea", "🌱 Seeds/Idea.md"),
    EntryRef("inbox/Plan", "Plan", "inbox/Plan.md"),
    EntryRef("Projects/Plan", "Plan", "Projects/Plan.md"),
]
ATTACHMENTS = ["Projects/2024/figure 10.png", "Projects/2024/figure 9.png", "scans/page.pdf"]


def _labels(tree: FileTree, node=None, depth: int = 0) -> list[str]:
    out = []
    for kid in tree.shown_of(node or tree.root):
        out.append("  " * depth + kid.label)
        if kid.kind == FOLDER:
            out.extend(_labels(tree, kid, depth + 1))
    return out


def test_natural_order_folders_first_and_counts() -> None:
    assert sorted(["Note 10", "note 2", "Note 1b"], key=natural_key) == [
        "Note 1b",
        "note 2",
        "Note 10",
    ]
    tree = FileTree(REFS, ATTACHMENTS)
    tree.set_filter([], attachments=True)
    assert _labels(tree) == [
        "inbox", "  Plan",
        "Projects", "  2024", "    Note 2", "    Note 10", "    figure 9.png", "    figure 10.png",
        "  LIT-7 — Attention", "  Plan",
        "scans", "  page.pdf",
        "🌱 Seeds", "  Idea",
        "Home",
    ]  # fmt: skip
    counts = {n.key: n.count for n in tree.folders.values()}
    assert counts == {"": 7, "inbox": 1, "Projects": 4, "Projects/2024": 2, "scans": 0,
                      "🌱 Seeds": 1}  # fmt: skip


def test_a_folder_s_rows_are_made_when_asked_and_the_attachments_switch() -> None:
    tree = FileTree(REFS, ATTACHMENTS)
    tree.set_filter([], attachments=False)
    projects = tree.folders["Projects"]
    assert projects.pending is not None and tree.rows_to_make(projects) == 2 + 1
    assert [n.label for n in tree.shown_of(projects)] == ["2024", "LIT-7 — Attention",
                                                          "Plan"]  # fmt: skip
    assert projects.pending is None and tree.folders["inbox"].pending is not None
    scans = tree.folders["scans"]
    assert not tree.may_have_rows(scans)  # attachments only, not listed
    tree.set_filter([], attachments=True)
    assert tree.may_have_rows(scans)
    assert [n.kind for n in tree.shown_of(scans)] == [ATTACHMENT]


def test_the_filter_keeps_the_folders_above_a_match_and_reads_file_names() -> None:
    tree = FileTree(REFS, ATTACHMENTS)
    tree.set_filter(["seven"], attachments=False)  # in the file's name, not its label
    assert _labels(tree) == ["Projects", "  LIT-7 — Attention"]
    tree.set_filter(["note", "1"], attachments=False)  # every word
    assert _labels(tree) == ["Projects", "  2024", "    Note 10"]
    tree.set_filter(["seeds"], attachments=False)  # a folder's own name keeps it
    assert _labels(tree) == ["🌱 Seeds"]
    tree.set_filter(["figure"], attachments=False)  # attachments only when switched on
    assert _labels(tree) == []
    tree.set_filter(["figure"], attachments=True)
    assert _labels(tree) == ["Projects", "  2024", "    figure 9.png", "    figure 10.png"]
    assert not tree.visible(tree.folders["inbox"])


def test_each_entry_s_folder_is_looked_up_a_slice_a_step() -> None:
    tree = FileTree(REFS, [])
    assert tree.folder_of is None
    steps = tree.map_steps(3)
    next(steps)
    assert tree.folder_of is None  # not done after one slice
    node = tree.entry_node("LIT-7", steps)  # the slices left, now
    assert tree.folder_of is not None and len(tree.folder_of) == len(REFS)
    assert node is not None and node.parent is tree.folders["Projects"]
    assert node.tip == "LIT-7 — Attention\nProjects/lit seven.md"
    assert tree.entry_node("nowhere") is None
