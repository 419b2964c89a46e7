"""The reading window end to end: real widgets, offscreen, a real index of real files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget

from anthology.paths import entries_dir
from anthology.ui.window.main_window import MainWindow


@pytest.fixture
def window(qtbot, tmp_path: Path, settings: QSettings):
    vault = tmp_path / "entries"
    shutil.copytree(entries_dir(), vault)
    win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.resize(1300, 850)
    win.show()
    qtbot.waitUntil(lambda: win.settled, timeout=20000)
    qtbot.waitUntil(lambda: not win.indexing, timeout=20000)
    yield win
    win.close()


def properties_rows(win: MainWindow) -> list[str]:
    text = win.entry_pane.toPlainText()
    start = text.index("Properties")
    end = text.index("Key takeaways") if "Key takeaways" in text else len(text)
    return [line.strip() for line in text[start:end].splitlines() if line.strip()]


def test_the_reading_journey(window: MainWindow, qtbot) -> None:
    win = window
    for name in ("entryPane", "backlinksPanel", "graphView", "searchBox", "quickSwitcher"):
        assert win.findChild(QWidget, name) is not None, name
    assert win.current_id() == "HOME"

    # Open LIT-008 through the quick switcher, as a user would.
    win.open_switcher()
    switcher_input = win.switcher.findChild(QLineEdit)
    qtbot.keyClicks(switcher_input, "attention is all")
    assert win.switcher.visible_ids()[0] in ("LIT-008", "NOTE-011")
    win.switcher.list.setCurrentRow(win.switcher.visible_ids().index("LIT-008"))
    qtbot.keyClick(switcher_input, Qt.Key.Key_Return)
    assert win.current_id() == "LIT-008"

    # The Properties box shows the seed's seven rows, the three reverse relations among them.
    text = win.entry_pane.toPlainText()
    assert "Properties" in text and "7" in properties_rows(win)[0]
    assert "Cited as “introduced by” by" in text
    assert "Cited as “paper” by" in text and "Cited as “source” by" in text
    assert "SOTA-050 — Scale attention weights by 1/sqrt(head_dim)" in text
    assert "2 min read" in text

    # The backlinks panel groups by relation; a click on a backlink navigates.
    groups = win.backlinks.groups()
    # As on the seed page, SOTA-050 alone (issue #36: Post-LN names LIT-008 in its body only).
    assert groups["introduced by (1)"] == ["SOTA-050"]
    assert groups["paper (1)"] == ["NOTE-011"]
    item = win.backlinks.item_for("paper", "NOTE-011")
    rect = win.backlinks.tree.visualRect(item)
    qtbot.mouseClick(win.backlinks.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert win.current_id() == "NOTE-011"

    # Back returns to LIT-008 (Alt+Left), forward goes on again.
    qtbot.keyClick(win.entry_pane, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert win.current_id() == "LIT-008"
    win.act_forward.trigger()
    assert win.current_id() == "NOTE-011"

    # Full-text search with a filter, then open a result.
    qtbot.keyClick(win, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)  # fmt: skip
    assert win.search_dock.isVisible()
    box = win.search_panel.box
    qtbot.keyClicks(box, "rmsnorm kind:literature")
    qtbot.waitUntil(lambda: bool(win.search_panel.result_ids()), timeout=3000)
    first = win.search_panel.result_ids()[0]
    assert win.index.entry(first).kind == "literature"
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert win.current_id() == first


def test_an_internal_link_click_navigates(window: MainWindow, qtbot) -> None:
    win = window
    win.show_entry("LIT-008")
    with qtbot.waitSignal(win.entry_pane.entryLinkActivated, timeout=2000):
        win.entry_pane.anchorClicked.emit(__import__("PySide6.QtCore").QtCore.QUrl("entry:LIT-709"))
    assert win.current_id() == "LIT-709"


def test_a_tag_chip_searches_the_tag(window: MainWindow) -> None:
    window.entry_pane.tagActivated.emit("normalization")
    ids = window.search_panel.result_ids()
    assert ids and all("normalization" in window.index.entry(i).tags for i in ids)


def test_live_reload_shows_edits_and_keeps_the_place(window: MainWindow, qtbot) -> None:
    win = window
    win.show_entry("NOTE-011")
    path = win.root / "NOTE-011.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\n\nA freshly added paragraph about [[LIT-709]].\n", encoding="utf-8")
    qtbot.waitUntil(lambda: "freshly added paragraph" in win.entry_pane.toPlainText(),
                    timeout=5000)  # fmt: skip
    assert win.current_id() == "NOTE-011"
    qtbot.waitUntil(lambda: any(b.source.id == "NOTE-011" for b in win.index.backlinks("LIT-709")),
                    timeout=5000)  # fmt: skip

    # A new entry appears in the switcher; a broken one lands in the problems list.
    (win.root / "NEW-001.md").write_text("---\nid: NEW-001\ntitle: Brand new\n---\n[[HOME]]\n")
    (win.root / "BROKEN.md").write_text("---\ntitle: [oops\n---\n")
    qtbot.waitUntil(lambda: win.index.entry_ref("NEW-001") is not None, timeout=5000)
    qtbot.waitUntil(lambda: "problem" in win.problems_button.text(), timeout=5000)
    win.show_problems()
    paths = [win.problems_dialog.tree.topLevelItem(i).text(0)
             for i in range(win.problems_dialog.tree.topLevelItemCount())]  # fmt: skip
    assert "BROKEN.md" in paths

    # Deleting the entry on screen takes the reader home, with a message.
    win.show_entry("NEW-001")
    os.remove(win.root / "NEW-001.md")
    qtbot.waitUntil(lambda: win.current_id() == "HOME", timeout=5000)


def test_settings_persist_geometry_theme_and_last_entry(qtbot, tmp_path, settings) -> None:
    vault = tmp_path / "v"
    shutil.copytree(entries_dir(), vault)
    win = MainWindow(vault, db=tmp_path / "i.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.settled, timeout=20000)
    win.show_entry("SOTA-050")
    win.set_theme("dark")
    win.resize(701, 503)  # inside the offscreen screen (800×600)
    win.close()
    again = MainWindow(None, db=tmp_path / "i.sqlite", settings=settings)
    qtbot.addWidget(again)
    again.show()
    qtbot.waitUntil(lambda: again.settled, timeout=20000)
    assert again.root == vault.resolve()
    assert again.current_id() == "SOTA-050"
    assert again.theme == "dark" and again.act_dark.isChecked()
    assert (again.width(), again.height()) == (701, 503)
    again.close()
    QApplication.instance().setPalette(QApplication.style().standardPalette())


def test_a_missing_entry_is_a_message_not_a_crash(window: MainWindow) -> None:
    assert window.show_entry("NOPE-404") is False
    assert "NOPE-404" in window.statusBar().currentMessage()


def test_the_demo_link_in_sota_050_opens_the_demo_beside_the_entry(window: MainWindow) -> None:
    window.show_entry("SOTA-050")
    assert "Open the attention-scaling demo" in window.entry_pane.toPlainText()
    window.entry_pane.demoRequested.emit("attention-scaling")
    dock = window.demo_dock
    assert dock is not None and dock.isVisible()
    assert dock.widget().objectName() == "attentionDemo"
    # Its links to the papers navigate the entry pane.
    dock.widget().entryLinkActivated.emit("NOTE-011")
    assert window.current_id() == "NOTE-011"


def test_opening_another_vault_clears_the_backlinks_of_the_last(
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    window.show_entry("LIT-008")
    assert window.backlinks.groups()
    other = tmp_path / "other"
    other.mkdir()
    (other / "Solo.md").write_text("# Solo\n\nNo links here.\n", encoding="utf-8")
    window.db = tmp_path / "other.sqlite"  # the other vault gets its own index
    window.open_vault(other)
    # Until the new index is ready, nothing of the closed one is offered (its "Show more"
    # rows would query a closed index).
    assert window.backlinks.groups() == {}
    qtbot.waitUntil(lambda: window.settled and window.current_id() == "Solo", timeout=20000)
    assert window.backlinks.groups() == {"No backlinks": []}


def test_screenshot_command_renders_the_real_window(tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    from anthology.cli import main

    out = tmp_path / "shot.png"
    code = main(["screenshot", "--entry", "LIT-008", "--out", str(out), "--size", "900x600",
                 "--db", str(tmp_path / "i.sqlite")])  # fmt: skip
    assert code == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (900, 600)
    # Not a blank picture: many distinct colours (text, graph nodes, chips).
    colours = {image.pixel(x, y) for x in range(0, 900, 7) for y in range(0, 600, 7)}
    assert len(colours) > 50


def test_a_hub_lists_some_citing_entries_and_counts_the_rest(
    qtbot, tmp_path: Path, settings: QSettings
) -> None:
    from anthology.ui.window.main_window import CITED_BY_SHOWN

    vault = tmp_path / "hubvault"
    vault.mkdir()
    (vault / "Hub.md").write_text("# Hub\n\nCited a lot.\n", encoding="utf-8")
    for i in range(CITED_BY_SHOWN + 4):
        (vault / f"s{i:02d}.md").write_text(f'---\nsource: "[[Hub]]"\n---\n# S{i}\n', "utf-8")
    (vault / "p0.md").write_text('---\npaper: "[[Hub]]"\n---\n# P0\n', encoding="utf-8")
    win = MainWindow(vault, db=tmp_path / "hub.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.settled, timeout=20000)
    assert win.show_entry("Hub")
    text = win.entry_pane.toPlainText()
    assert text.count("and 4 more, listed under Backlinks") == 1  # under "source" only
    assert f"S{CITED_BY_SHOWN - 1}" in text and f"S{CITED_BY_SHOWN}" not in text
    assert "P0" in text
    # The backlinks panel has every one of them.
    n = CITED_BY_SHOWN + 4
    assert win.backlinks.groups()[f"source ({n})"] == [f"s{i:02d}" for i in range(n)]
    win.close()


def test_backlinks_show_at_once_and_unlinked_mentions_fill_in_later(
    window: MainWindow, qtbot, monkeypatch
) -> None:
    import threading

    from anthology.vault.index import VaultIndex

    win = window
    (win.root / "mention.md").write_text(
        "# Mention\n\nWe read Attention Is All You Need again, without a link.\n", "utf-8"
    )
    qtbot.waitUntil(lambda: win.index.entry_ref("mention") is not None, timeout=10000)

    def quiet() -> bool:  # the write's later watcher events refresh again: wait them out
        return not win.live.debounce.isActive() and (not win.indexing)

    qtbot.waitUntil(quiet, timeout=10000)
    qtbot.wait(300)
    qtbot.waitUntil(quiet, timeout=10000)
    qtbot.waitUntil(lambda: not win.backlinks.finding_unlinked, timeout=10000)
    release = threading.Event()
    asked: list[tuple[str, int]] = []
    real = VaultIndex.unlinked_mentions

    def slow(self, entry_id: str, limit: int = 50):  # a title that is a common word
        asked.append((entry_id, threading.get_ident()))
        release.wait(10)
        return real(self, entry_id, limit)

    monkeypatch.setattr(VaultIndex, "unlinked_mentions", slow)
    assert win.show_entry("LIT-008")
    # The window did not wait for the mentions: the typed backlinks are there already.
    groups = win.backlinks.groups()
    assert groups["paper (1)"] == ["NOTE-011"]
    assert not any(g.startswith("Unlinked mentions") for g in groups)
    qtbot.waitUntil(lambda: bool(asked), timeout=5000)
    assert asked[0][0] == "LIT-008" and asked[0][1] != threading.get_ident()
    release.set()
    qtbot.waitUntil(lambda: "Unlinked mentions (1)" in win.backlinks.groups(), timeout=10000)
    assert win.backlinks.groups()["Unlinked mentions (1)"] == ["mention"]

    # Back on it while the index is the same: its mentions are shown at once, not searched.
    assert win.show_entry("SOTA-050")
    qtbot.waitUntil(lambda: not win.backlinks.finding_unlinked, timeout=10000)
    del asked[1:]
    assert win.show_entry("LIT-008")
    assert win.backlinks.groups()["Unlinked mentions (1)"] == ["mention"]
    assert len(asked) == 1 and not win.backlinks.finding_unlinked

    # Once the index has changed (the refresh shows the entry's backlinks anew) they are
    # searched again; a slow answer for the entry left behind is dropped, not shown under
    # the next one.
    release.clear()
    (win.root / "other.md").write_text("# Other\n\nUnrelated.\n", "utf-8")
    qtbot.waitUntil(lambda: len(asked) == 2, timeout=10000)
    assert win.show_entry("SOTA-050")
    release.set()
    qtbot.waitUntil(lambda: not win.backlinks.finding_unlinked, timeout=10000)
    qtbot.wait(50)
    assert real(win.index, "SOTA-050") == []  # nothing names SOTA-050 without a link
    assert not any(g.startswith("Unlinked mentions") for g in win.backlinks.groups())
    # its backlinks stay shown (QK-norm and, since issue #16, μP are compared against it)
    assert "compared against (2)" in win.backlinks.groups()
    assert [a[0] for a in asked][:3] == ["LIT-008", "LIT-008", "SOTA-050"]


def test_a_never_seen_vault_shows_its_first_entry_while_it_is_indexed(
    qtbot, tmp_path: Path, settings: QSettings
) -> None:
    from sample_vault import write_vault

    vault = write_vault(tmp_path / "My vault", {
        "Daily notes/2024-01-01.md": "# Monday\n\nMet about [[Project plan]].\n",
        "Projects/Project plan.md": "# The plan\n\nBack to [[2024-01-01]].\n",
    })  # fmt: skip
    win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.show()
    # before the first build has answered: the entry is on screen, read from disk
    assert win.index is None and win.ready
    assert "Met about Project plan" in win.entry_pane.toPlainText()
    assert "Indexing My vault" in win.statusBar().currentMessage()
    assert "once the vault is indexed" in win.backlinks.title.text()
    # a link followed meanwhile opens once the index is ready, resolved by its name
    win.entry_pane.entryLinkActivated.emit("Project plan", "")
    qtbot.waitUntil(lambda: win.settled, timeout=20000)
    assert win.current_id() == "Projects/Project plan"
    assert "The plan" in win.entry_pane.toPlainText()
    assert win.backlinks.groups()  # the indexed entry, with its backlinks
    win.close()


def test_the_first_look_entry_stays_on_screen_once_indexed(
    qtbot, tmp_path: Path, settings: QSettings
) -> None:
    from sample_vault import write_vault

    vault = write_vault(tmp_path / "v", {"b.md": "# Bee\n", "a/deep.md": "# Deep\n"})
    win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.show()
    assert "Bee" in win.entry_pane.toPlainText()  # the top's first note, read from disk
    qtbot.waitUntil(lambda: win.settled, timeout=20000)
    assert win.current_id() == "b" and "Bee" in win.entry_pane.toPlainText()
    win.close()


def test_a_refresh_that_found_nothing_costs_the_window_nothing(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big vault is polled; each poll found nothing and still listed every entry on the
    GUI thread to re-watch them (100,000 of them, every 2 s), and polled every 2 s however
    long a poll took."""
    from anthology.vault.indexer import RefreshReport

    listed = []
    real = window.index.entries
    monkeypatch.setattr(window.index, "entries", lambda: listed.append(1) or real())
    asked = []
    load = window.surroundings.load
    monkeypatch.setattr(window.surroundings, "load", lambda **k: asked.append(1) or load(**k))
    window.live.indexing.done.emit(RefreshReport(scanned=52, unchanged=52, seconds=0.01))
    assert listed == asked == [] and window.settled
    window.live.indexing.done.emit(RefreshReport(scanned=100_000, unchanged=100_000, seconds=2.0))
    assert window.live.poll.interval() == 20_000  # a 2 s poll runs at most a tenth of the time
    window.live.indexing.done.emit(RefreshReport(scanned=53, added=1, seconds=0.01))
    # a new file: its folder may need a watch; the files to watch come with the views,
    # asked off the GUI thread (a Path per entry there took 0.9 s at 100,000 entries)
    assert asked == [1] and listed == []
    assert window.live.poll.interval() == 2000


# ---- the user state: graph layout, pins and view settings, apart from the index -----------


def open_window(qtbot, vault: Path, db: Path, settings: QSettings) -> MainWindow:
    win = MainWindow(vault, db=db, settings=settings)
    qtbot.addWidget(win)
    win.resize(1300, 850)
    win.show()
    qtbot.waitUntil(lambda: win.settled and win.graph is not None, timeout=20000)
    return win


def test_positions_and_pins_survive_deleting_the_index(qtbot, tmp_path: Path, settings) -> None:
    from anthology.user_state import default_state_path

    vault = tmp_path / "entries"
    shutil.copytree(entries_dir(), vault)
    db = tmp_path / "index.sqlite"
    win = open_window(qtbot, vault, db, settings)
    win.graph.set_local(False)
    qtbot.waitUntil(lambda: "LIT-008" in win.graph.positions(), timeout=20000)
    win.graph.pin("LIT-008", 123.0, -45.0)
    win.close()
    placed = win.graph.positions()
    assert placed["LIT-008"] == pytest.approx((123.0, -45.0))
    state = default_state_path(vault.resolve())
    assert state.is_file() and not state.is_relative_to(vault)
    assert state.parent == tmp_path / "user-state"  # tests/conftest.py: never the real folder

    for suffix in ("", "-wal", "-shm"):  # the index is a cache: deleting it loses nothing
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    again = open_window(qtbot, vault, db, settings)
    assert not again.graph.is_local()  # the graph's settings came back too
    assert again.graph.pinned_ids() == ["LIT-008"]
    assert again.graph.positions()["LIT-008"] == pytest.approx((123.0, -45.0))
    now = again.graph.positions()
    assert max(abs(now[k][i] - xy[i]) for k, xy in placed.items() for i in (0, 1)) < 1e-6
    again.close()


def test_graph_settings_are_kept_per_vault(qtbot, tmp_path: Path, settings) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(entries_dir(), a)
    shutil.copytree(entries_dir(), b)
    win = open_window(qtbot, a, tmp_path / "a.sqlite", settings)
    win.graph.set_setting("repel", -150.0)
    win.graph.set_depth(2)
    win.open_vault(b)
    qtbot.waitUntil(lambda: win.settled and win.root == b.resolve(), timeout=20000)
    assert win.graph.settings()["repel"] != -150.0 and win.graph.depth_spin.value() == 1
    win.graph.set_depth(3)
    win.open_vault(a)
    qtbot.waitUntil(lambda: win.settled and win.root == a.resolve(), timeout=20000)
    assert win.graph.settings()["repel"] == -150.0 and win.graph.depth_spin.value() == 2
    win.close()
    again = open_window(qtbot, b, tmp_path / "b.sqlite", settings)
    assert again.graph.depth_spin.value() == 3
    again.close()


def test_a_damaged_state_file_is_reported_and_the_window_opens(
    qtbot, tmp_path: Path, settings, capsys
) -> None:
    from anthology.user_state import default_state_path

    vault = tmp_path / "entries"
    shutil.copytree(entries_dir(), vault)
    state = default_state_path(vault.resolve())
    state.parent.mkdir(parents=True)
    state.write_bytes(b"\x00garbage, not SQLite\xff" * 500)
    win = open_window(qtbot, vault, tmp_path / "index.sqlite", settings)
    assert win.current_id() == "HOME" and win.graph.shown_ids()
    assert state.with_name(state.name + ".corrupt").is_file()  # kept, moved aside
    assert "was damaged" in capsys.readouterr().err  # and in the status bar, for a while
    win.close()
    again = open_window(qtbot, vault, tmp_path / "index.sqlite", settings)  # a new file
    assert again.state is not None and again.state.path == state
    again.close()


def test_graph_settings_kept_in_qsettings_before_are_taken_over_once(
    qtbot, tmp_path: Path, settings
) -> None:
    import json
    import re

    vault = tmp_path / "entries"
    shutil.copytree(entries_dir(), vault)
    key = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(vault.resolve())).strip("_")
    settings.setValue(f"graphView/{key[-80:]}/settings", json.dumps({"depth": 3}))
    win = open_window(qtbot, vault, tmp_path / "index.sqlite", settings)
    assert win.graph.depth_spin.value() == 3
    assert not [k for k in settings.allKeys() if k.startswith("graphView")]
    win.close()


def test_the_theme_reaches_every_widget_through_one_signal(window: MainWindow) -> None:
    from anthology.demo import DEMOS

    titles = [a.text().replace("&", "") for a in window.demo_actions]
    assert titles == [d.title for d in DEMOS.values()]  # the View menu reads the registry
    window.demo_actions[0].trigger()
    demo = window.demo_dock.widget()
    seen: list[str] = []
    window.themes.themeChanged.connect(seen.append)
    window.set_theme("dark")
    assert seen == ["dark"] and window.theme == "dark"
    assert (window.entry_pane.theme(), window.graph.theme(), demo.theme()) == ("dark",) * 3
    window.set_theme("light")
    assert (window.entry_pane.theme(), window.graph.theme(), demo.theme()) == ("light",) * 3
    QApplication.instance().setPalette(QApplication.style().standardPalette())


def test_what_the_vault_loaded_is_kept_out_of_the_cyclic_collectors_walks(
    qtbot, tmp_path: Path, settings: QSettings
) -> None:
    """Once the window has settled, what it loaded is frozen out of Python's full
    collections (each walked it for ~0.1 s at 10,000 entries, in the middle of clicks);
    closing the window gives it back to the collector."""
    import gc
    import weakref

    vault = tmp_path / "entries"
    shutil.copytree(entries_dir(), vault)
    gc.unfreeze()
    win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.settled, timeout=20000)
    qtbot.waitUntil(lambda: gc.get_freeze_count() > 0, timeout=10000)
    graph_data = win.graph.scene.data
    assert not any(o is graph_data for o in gc.get_objects())  # not walked any more
    assert win.show_entry("SOTA-050")  # the window reads on as before
    frozen = gc.get_freeze_count()
    win.surroundings.freeze_heap()  # as after a refresh: what is new joins what was frozen
    assert gc.get_freeze_count() >= frozen and win.show_entry("LIT-008")
    # a refresh replaces the graph: the frozen old one is freed all the same (no cycles)
    old = weakref.ref(graph_data)
    del graph_data
    note = next(vault.rglob("SOTA-050*.md"))
    note.write_text(note.read_text(encoding="utf-8") + "\nSee [[LIT-008]].\n", encoding="utf-8")
    win.live.reindex()
    qtbot.waitUntil(lambda: win.graph.scene.data is not old() and win.settled, timeout=20000)
    qtbot.waitUntil(lambda: old() is None, timeout=5000)
    win.close()
    assert gc.get_freeze_count() == 0


def test_a_cached_start_refreshes_after_its_views_and_still_sees_an_edit(
    qtbot, tmp_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With an index on disk the window shows its views first and only then scans the
    vault (the scan shared the interpreter with their question); a note added while it
    was closed is still found, counted and listed."""
    from anthology.ui.window.live_reload import LiveReload
    from anthology.ui.window.surroundings import Surroundings

    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "Home.md").write_text("# Home\n\nSee [[Alpha]].\n")
    (vault / "notes" / "Alpha.md").write_text("# Alpha\n\nBack [[Home]].\n")
    db = tmp_path / "index.sqlite"
    first = MainWindow(vault, db=db, settings=settings)
    qtbot.addWidget(first)
    qtbot.waitUntil(lambda: first.settled and not first.indexing, timeout=20000)
    first.close()
    (vault / "notes" / "Beta 🌱.md").write_text("# Beta\n\nNew, links [[Nowhere yet]].\n")

    order: list[str] = []
    finish, reindex = Surroundings._finish, LiveReload.reindex
    monkeypatch.setattr(Surroundings, "_finish", lambda s: order.append("views") or finish(s))
    monkeypatch.setattr(LiveReload, "reindex", lambda s: order.append("scan") or reindex(s))
    win = MainWindow(vault, db=db, settings=settings)
    qtbot.addWidget(win)
    win.show()
    # the scan waits for the views and their pieces; what it found is shown (views again)
    qtbot.waitUntil(lambda: "scan" in order and order[-1] == "views" and win.settled
                    and not win.indexing, timeout=20000)  # fmt: skip
    assert order[:2] == ["views", "scan"]  # the views of the index first, then the scan
    assert win.count_label.text() == "3 entries"
    assert "1 problem" in win.problems_button.text()  # the new note's link
    win.switcher.open_switcher()
    qtbot.keyClicks(win.switcher.input, "beta")
    assert win.switcher.visible_ids() == ["notes/Beta 🌱"]
    win.close()
