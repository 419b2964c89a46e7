"""Notes edited, renamed and deleted while a refresh of the index is running: once the
window has caught up, every panel agrees with a window started afresh on the vault as it
ended (its own new index, settings and user state), and the graph did not move for an edit
of a note's text alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from reader_window import panel_rows, window_opener

from anthology.ui.window.main_window import MainWindow
from sample_vault import write_newer

N = 120  # notes around the hub: a refresh of them is not instant


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Race Vault"
    write_newer(root / "Hub.md", "# Hub\n\nThe centre. #topic/hub\n\n[[Leaf 0]] [[Leaf 1]]\n")
    for i in range(N):
        write_newer(root / "Leaves" / f"Leaf {i}.md", f"# Leaf {i}\n\nAbout [[Hub]], {i}.\n")
    write_newer(root / "Named.md", "---\nid: NAMED-1\n---\n# Named\n\nSee [[Hub]].\n")
    return root


@pytest.fixture
def window(qtbot, vault: Path, tmp_path: Path, settings: QSettings):
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Hub")


def caught_up(qtbot, win: MainWindow) -> None:
    """Until no refresh is running or waiting and the window has settled, twice over a
    pause (the watcher's late events start one more refresh)."""

    def quiet() -> bool:
        return not win.indexing and not win.live.debounce.isActive() and win.settled

    for _ in range(3):
        qtbot.waitUntil(quiet, timeout=30000)
        qtbot.wait(400)
    qtbot.waitUntil(quiet, timeout=30000)
    qtbot.waitUntil(lambda: not win.backlinks.finding_unlinked, timeout=10000)


def panels(win: MainWindow) -> dict[str, object]:
    """What the reader sees in each panel, comparable between two windows."""
    win.tags_dock.show()
    win.docks.build_tags()
    graph = win.graph
    assert graph is not None
    return {
        "entry": win.current_id(),
        "page": win.entry_pane.toPlainText(),
        "backlinks": [row.data() for row in panel_rows(win.backlinks)],
        "switcher": sorted(
            (ref.id, ref.title, ref.path) for ref, _a in win.surroundings.switcher_items
        ),
        "graph nodes": sorted(graph.shown_ids()),
        "graph edges": sorted(graph.shown_edges()),
        "tags": win.tag_panel.tags(),
        "count": win.count_label.text(),
        "problems": win.problems_button.text(),
    }


def test_edits_renames_and_deletes_during_a_refresh_end_as_a_fresh_start(
    window, qtbot, vault: Path, tmp_path: Path
) -> None:
    win = window()
    assert win.current_id() == "Hub"
    win.open_in_new_tab("Leaves/Leaf 5")  # a background tab whose note changes meanwhile
    win.tabs.setCurrentIndex(0)
    assert win.current_id() == "Hub"
    caught_up(qtbot, win)
    during = []

    # Each change lands while the refresh started just before it is running.
    win.reindex()
    during.append(win.indexing)
    write_newer(vault / "Hub.md", "# Hub\n\nThe centre, edited. #topic/edited\n\n[[Leaf 2]]\n")
    win.reindex()
    during.append(win.indexing)
    (vault / "Leaves" / "Leaf 1.md").rename(vault / "Leaves" / "Leaf one.md")
    (vault / "Leaves" / "Leaf 3.md").unlink()
    win.reindex()
    during.append(win.indexing)
    write_newer(vault / "Leaves" / "Leaf 5.md", "# Leaf 5\n\nNo longer about the hub.\n")
    write_newer(vault / "Named.md", "---\nid: NAMED-2\n---\n# Named\n\nSee [[Hub]] again.\n")
    write_newer(vault / "New.md", "# New\n\nA new note on [[Hub]]. #topic/new\n")
    qtbot.wait(50)
    win.reindex()
    during.append(win.indexing)
    (vault / "Leaves" / "Leaf 7.md").unlink()
    caught_up(qtbot, win)
    assert any(during)  # the changes did race a running refresh

    seen = panels(win)
    assert "The centre, edited." in str(seen["page"])  # the open note shows the edit
    fresh = MainWindow(vault, db=tmp_path / "fresh.sqlite", entry="Hub",
                       settings=QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat),
                       state_dir=tmp_path / "fresh-state")  # fmt: skip
    qtbot.addWidget(fresh)
    fresh.resize(1280, 800)
    fresh.show()
    caught_up(qtbot, fresh)
    try:
        assert seen == panels(fresh)
        # the background tab shows its note as it is now once it is shown again
        win.tabs.setCurrentIndex(1)
        qtbot.waitUntil(lambda: "No longer about the hub" in win.entry_pane.toPlainText())
    finally:
        fresh.previews.hide()
        fresh.close()


def test_an_edit_of_the_open_notes_text_leaves_the_graph_where_it_is(window, qtbot) -> None:
    """The open note re-rendered; the graph (global, then local) not given again, so not
    laid out again: every node where the settled layout had put it. (Given again, a local
    graph started over from the global positions: its nodes jumped, ~290 px at 10,000.)"""
    win = window()
    graph = win.graph
    assert graph is not None
    path = win.root / "Hub.md"

    def places() -> dict[str, tuple[float, float]]:
        return {k: (p.x(), p.y()) for k in graph.shown_ids() if (p := graph.node_scene_pos(k))}

    def still() -> dict[str, tuple[float, float]]:  # the layout has cooled: nothing moves
        last = places()
        for _ in range(100):
            qtbot.wait(250)
            if (now := places()) == last:
                return now
            last = now
        raise AssertionError("the layout never stood still")

    for local in (False, True):
        graph.set_local(local)
        caught_up(qtbot, win)
        before = still()
        assert len(before) > 2
        write_newer(path, path.read_text(encoding="utf-8") + f"\nA line, local={local}.\n")
        win.reindex()
        qtbot.waitUntil(lambda loc=local: f"local={loc}" in win.entry_pane.toPlainText())
        qtbot.waitUntil(lambda: not win.indexing and win.settled, timeout=30000)
        assert places() == before  # the moment the refresh is applied
        assert still() == before  # and once any layout it started has cooled


def test_a_new_link_is_given_to_the_graph(window, qtbot) -> None:
    """What changes the graph (a link added) still reaches it: only an unchanged graph is
    kept from the view."""
    win = window()
    graph = win.graph
    assert graph is not None and win.root is not None
    caught_up(qtbot, win)
    assert ("Hub", "Leaves/Leaf 5") not in graph.shown_edges()
    path = win.root / "Hub.md"
    write_newer(path, path.read_text(encoding="utf-8") + "\nAnd [[Leaf 5]].\n")
    win.reindex()
    qtbot.waitUntil(lambda: ("Hub", "Leaves/Leaf 5") in graph.shown_edges(), timeout=30000)

    # under the local graph, a new link: the nodes shown stay where they are drawn (a
    # rebuilt local graph used to start again from the global places, and jump)
    graph.set_local(True)
    caught_up(qtbot, win)
    assert ("Hub", "Leaves/Leaf 9") not in graph.shown_edges()

    def places() -> dict[str, tuple[float, float]]:
        return {k: (p.x(), p.y()) for k in graph.shown_ids() if (p := graph.node_scene_pos(k))}

    before = places()
    write_newer(path, path.read_text(encoding="utf-8") + "\nAnd [[Leaf 9]].\n")
    win.reindex()
    qtbot.waitUntil(lambda: ("Hub", "Leaves/Leaf 9") in graph.shown_edges(), timeout=30000)
    after = places()
    shift = max(abs(after[k][0] - x) + abs(after[k][1] - y) for k, (x, y) in before.items())
    span = max(abs(x) + abs(y) for x, y in before.values())
    assert set(before) <= set(after) and shift < 0.05 * span  # (before: 85 px of 563)


def test_an_edit_keeps_the_pages_it_does_not_touch(window, qtbot) -> None:
    """An edit of one note on disk: the open page and a page read before are not made
    again (the same renders come back, a revisit is instant); the page that embeds the
    edited note is."""
    win = window()
    assert win.root is not None
    write_newer(win.root / "Digest.md", "# Digest\n\n![[Leaf 7]]\n")
    win.reindex()
    caught_up(qtbot, win)
    assert win.show_entry("Leaves/Leaf 3")
    leaf = win.entry_pane.rendered
    assert win.show_entry("Digest")
    assert "About Hub, 7." in win.entry_pane.toPlainText()
    assert win.show_entry("Hub")
    hub = win.entry_pane.rendered
    assert leaf is not None and hub is not None

    write_newer(win.root / "Leaves" / "Leaf 7.md", "# Leaf 7\n\nAbout [[Hub]], rewritten.\n")
    win.reindex()
    caught_up(qtbot, win)
    assert win.entry_pane.rendered is hub  # the open page: untouched by the edit
    assert win.show_entry("Leaves/Leaf 3")
    assert win.entry_pane.rendered is leaf  # a page read before: kept
    assert win.show_entry("Digest")  # the page that embeds the edited note: made again
    assert "About Hub, rewritten." in win.entry_pane.toPlainText()


def test_the_open_note_renamed_on_disk_is_followed(window, qtbot) -> None:
    """Renamed or moved on disk, the open note stays open under its new name, where the
    reader was in it (it used to send the reader home: "… was deleted on disk"); the tab's
    history, the bookmarks and a background tab follow it; so does a storm of renames."""
    win = window()
    assert win.root is not None
    assert win.show_entry("Leaves/Leaf 4")
    win.toggle_bookmark()
    assert win.bookmarks == ["Leaves/Leaf 4"]
    win.open_in_new_tab("Leaves/Leaf 8")
    win.tabs.setCurrentIndex(0)
    assert win.show_entry("Hub")
    assert win.show_entry("Leaves/Leaf 4")
    win.entry_pane.verticalScrollBar().setValue(0)

    (win.root / "Archive 📦").mkdir()
    (win.root / "Leaves" / "Leaf 4.md").rename(win.root / "Archive 📦" / "Leaf 4.md")
    (win.root / "Leaves" / "Leaf 8.md").rename(win.root / "Archive 📦" / "Leaf 8.md")
    win.reindex()
    caught_up(qtbot, win)
    assert win.current_id() == "Archive 📦/Leaf 4"
    assert "About Hub, 4." in win.entry_pane.toPlainText()
    assert "renamed on disk" in win.statusBar().currentMessage()
    assert win.history[-3:] == ["Archive 📦/Leaf 4", "Hub", "Archive 📦/Leaf 4"]
    assert win.bookmarks == ["Archive 📦/Leaf 4"]
    win.tabs.setCurrentIndex(1)
    assert win.current_id() == "Archive 📦/Leaf 8"
    win.tabs.setCurrentIndex(0)

    # renamed in place, a new name: found by the text the reader has open
    (win.root / "Archive 📦" / "Leaf 4.md").rename(win.root / "Archive 📦" / "Leaf four.md")
    win.reindex()
    caught_up(qtbot, win)
    assert win.current_id() == "Archive 📦/Leaf four"

    # a storm: every leaf moved at once while the note is open
    leaves = win.root / "Leaves"
    moved = win.root / "Moved"
    moved.mkdir()
    for path in sorted(leaves.glob("*.md")):
        path.rename(moved / path.name)
    (win.root / "Archive 📦" / "Leaf four.md").rename(moved / "Leaf four.md")
    win.reindex()
    caught_up(qtbot, win)
    assert win.current_id() == "Moved/Leaf four"
    assert win.index is not None and win.index.entry_ref("Moved/Leaf 100") is not None
