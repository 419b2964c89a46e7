"""The window as `anthology NOTE.md`, File › Open the Bundled Anthology and `--db` naming
another vault's index leave it: the note asked for, the anthology, this vault's entries."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from reader_window import write_files

from anthology.paths import entries_dir
from anthology.ui.window.main_window import MainWindow
from anthology.vault import VaultIndex

NOTES = {
    ".obsidian/app.json": "{}",
    "Home.md": "# Home\n\nSee [[Plan v2.1]].\n",
    "Projects/Plan v2.1.md": "# Plan\n\nThe plan, with a link [[Home]].\n",
    "Projects/Ideas 💡.md": "# Ideas\n\nSome ideas.\n",
}


def open_window(qtbot, vault: Path, tmp_path: Path, **kwargs) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(vault, settings=settings, state_dir=tmp_path / "state", **kwargs)
    qtbot.addWidget(win)
    win.resize(1100, 700)
    win.show()
    qtbot.waitUntil(lambda: win.settled and not win.indexing, timeout=30000)
    return win


def test_a_note_named_by_its_path_opens_in_a_never_seen_vault_and_after(qtbot, tmp_path):
    vault = write_files(tmp_path / "My vault", NOTES)
    db = tmp_path / "idx.sqlite"
    win = open_window(qtbot, vault, tmp_path, db=db, entry="Projects/Ideas 💡.md")
    assert win.current_id() == "Projects/Ideas 💡"  # not the vault's home
    assert "Some ideas." in win.entry_pane.toPlainText()
    win.close()
    again = open_window(qtbot, vault, tmp_path, db=db, entry="Projects/Plan v2.1.md")
    assert again.current_id() == "Projects/Plan v2.1"  # the index exists: found by path
    again.close()


def test_the_bundled_anthology_is_one_menu_entry_away(qtbot, tmp_path):
    vault = write_files(tmp_path / "vault", NOTES)
    win = open_window(qtbot, vault, tmp_path, db=None)
    assert win.root == vault.resolve()
    file_menu = win.menuBar().actions()[0].menu()
    assert win.act_open_bundled in file_menu.actions()
    win.act_open_bundled.trigger()
    qtbot.waitUntil(lambda: win.settled and not win.indexing, timeout=30000)
    assert win.root == entries_dir().resolve()
    assert win.current_id() == "HOME"
    win.close()


def test_another_vaults_index_is_rebuilt_not_shown(qtbot, tmp_path):
    other = write_files(tmp_path / "other", {"HOME.md": "# Other home\n\nNot yours.\n"})
    vault = write_files(tmp_path / "vault", NOTES)
    db = tmp_path / "idx.sqlite"
    VaultIndex.open(other, db).close()
    win = open_window(qtbot, vault, tmp_path, db=db)
    assert win.current_id() == "Home"
    assert "Not yours" not in win.entry_pane.toPlainText()
    assert win.index is not None and win.index.entry_ref("Projects/Plan v2.1") is not None
    win.close()
