"""An edit of the open note's text on disk: the note is shown again, and the graph — global
or local — stays where its layout had put every node (before, the window gave the view the
whole graph again after every refresh, and a local graph was laid out anew from the global
positions: its nodes jumped, ~290 px at 10,000 entries)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from reader_window import window_opener

from anthology.ui.window.main_window import MainWindow
from sample_vault import write_newer

N = 40  # notes around the hub


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Live Vault"
    write_newer(root / "Hub.md", "# Hub\n\nThe centre. #topic/hub\n\n[[Leaf 0]] [[Leaf 1]]\n")
    for i in range(N):
        write_newer(root / "Leaves" / f"Leaf {i}.md", f"# Leaf {i}\n\nAbout [[Hub]], {i}.\n")
    return root


@pytest.fixture
def window(qtbot, vault: Path, tmp_path: Path, settings: QSettings):
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Hub")


def caught_up(qtbot, win: MainWindow) -> None:
    """Until no refresh is running or waiting and the window has settled (twice, over a
    pause: the watcher's late events start one more refresh)."""

    def quiet() -> bool:
        return not win.indexing and not win.live.debounce.isActive() and win.settled

    for _ in range(3):
        qtbot.waitUntil(quiet, timeout=30000)
        qtbot.wait(300)
    qtbot.waitUntil(quiet, timeout=30000)


def test_an_edit_of_the_open_notes_text_leaves_the_graph_where_it_is(window, qtbot) -> None:
    win = window()
    graph = win.graph
    assert graph is not None and win.root is not None
    path = win.root / "Hub.md"

    def places() -> dict[str, tuple[float, float]]:
        return {k: (p.x(), p.y()) for k in graph.shown_ids() if (p := graph.node_scene_pos(k))}

    def still() -> dict[str, tuple[float, float]]:  # the layout has cooled: nothing moves
        last = places()
        for _ in range(120):
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
    """What changes the graph (a link added) still reaches it."""
    win = window()
    graph = win.graph
    assert graph is not None and win.root is not None
    caught_up(qtbot, win)
    assert ("Hub", "Leaves/Leaf 5") not in graph.shown_edges()
    path = win.root / "Hub.md"
    write_newer(path, path.read_text(encoding="utf-8") + "\nAnd [[Leaf 5]].\n")
    win.reindex()
    qtbot.waitUntil(lambda: ("Hub", "Leaves/Leaf 5") in graph.shown_edges(), timeout=30000)
