"""A line break inside a paragraph reads as Obsidian shows it: a line break, unless the
vault turned on Settings › Editor › Strict line breaks (``.obsidian/app.json``), where it is
a space as in CommonMark. The setting is read, never written, and followed when it changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

from anthology.vault.index import VaultIndex
from anthology.vault.render import render_entry
from sample_vault import write_vault

NOTE = "Rating:: 9\nPlatform:: Switch\nA third line.\n\nA new paragraph.\n\n- one\n- two\n"


def _html(tmp_path: Path) -> str:
    with VaultIndex.open(tmp_path / "vault", tmp_path / "i.sqlite") as index:
        entry = index.entry("Game")
        assert entry is not None
        return render_entry(entry, index, vault_root=index.root).html


def test_by_default_each_line_is_shown_as_written(tmp_path: Path) -> None:
    write_vault(tmp_path / "vault", {"Game.md": NOTE})
    html = _html(tmp_path)
    assert "Rating:: 9<br>\nPlatform:: Switch<br>\nA third line." in html
    assert "<li>one</li>" in html  # lists stay lists


def test_strict_line_breaks_join_the_lines_and_a_change_is_followed(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault", {"Game.md": NOTE})
    settings = vault / ".obsidian" / "app.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"strictLineBreaks": True, "theme": "obsidian"}))
    html = _html(tmp_path)
    assert "<br" not in html.split("A third line.")[0].split("Rating::")[1]
    assert "Platform:: Switch\nA third line." in html
    settings.write_text(json.dumps({"strictLineBreaks": False}))
    os.utime(settings, ns=(1, 10**18))  # a visibly newer file, however fast the test runs
    assert "Platform:: Switch<br>" in _html(tmp_path)
    before = settings.read_bytes()
    _html(tmp_path)
    assert settings.read_bytes() == before  # read, never written


def test_a_broken_settings_file_means_obsidians_defaults(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault", {"Game.md": NOTE})
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.json").write_text('{"strictLineBreaks": tru')
    assert "Rating:: 9<br>" in _html(tmp_path)
