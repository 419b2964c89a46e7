"""The first entry of a never-seen vault, read from disk while its index is built."""

from __future__ import annotations

import os
from pathlib import Path

from anthology.vault.first_look import (
    DiskResolver,
    first_entry_path,
    read_first_entry,
)
from anthology.vault.render import render_entry
from sample_vault import write_vault


def test_the_home_note_at_the_top_comes_first(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "v", {"Alpha.md": "a", "readme.md": "r", "z/Home.md": "h"})
    assert first_entry_path(root) == "readme.md"  # HOME is looked for at the top only
    (root / "HOME.md").write_text("home")
    assert first_entry_path(root) == "HOME.md"


def test_else_the_first_note_at_the_top_or_in_the_first_folders(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "v", {"b note.md": "b", "Ä note.md": "a", "x/c.md": "c"})
    assert first_entry_path(root) == "b note.md"  # by name, case folded
    only_folders = write_vault(tmp_path / "w", {
        ".obsidian/workspace.md": "settings, not a note",
        "Attachments/pic.png": "", "Daily notes/2024-01-01.md": "d", "Projects/p.md": "p",
    })  # fmt: skip
    assert first_entry_path(only_folders) == "Daily notes/2024-01-01.md"
    assert first_entry_path(write_vault(tmp_path / "empty", {"a.txt": "x"})) is None


def test_the_first_entry_renders_without_an_index(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "v", {
        "Start here.md": "---\ntags: [intro]\nsource: \"[[Paper one]]\"\n---\n# Welcome 👋\n\n"
        "Read [[Paper one|the first paper]], then [[Folder/Deep note#Part]].\n\n"
        "![[pics/diagram.png]] and ![[Embedded note]]\n",
        "Paper one.md": "p", "Folder/Deep note.md": "# Part\n",
    })  # fmt: skip
    (root / "pics").mkdir()
    (root / "pics/diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    entry = read_first_entry(root, "Start here.md")
    assert entry is not None and entry.id == "Start here" and entry.tags == ["intro"]
    assert [(r.relation, r.other.id) for r in entry.relations] == [("source", "Paper one")]
    resolver = DiskResolver(root)
    assert resolver.attachment("pics/diagram.png", entry.path) == (root / "pics/diagram.png")
    assert resolver.attachment("../outside.png", entry.path) is None
    out = render_entry(entry, resolver, vault_root=root)
    assert 'href="entry:Paper%20one"' in out.html and "the first paper" in out.html
    assert "Shown here once the vault is indexed" in out.html  # the embed, not an error
    assert "unresolved" not in out.html  # nothing is called missing before the index knows


def test_odd_and_hostile_first_files_are_passed_over(tmp_path: Path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    os.mkdir(root / ".obsidian")
    (root / ".obsidian" / "a.md").write_text("settings")
    os.mkfifo(root / "0 fifo.md")  # never opened: reading it would block
    with open(root.as_posix().encode() + b"/caf\xe9.md", "w") as fh:  # not valid UTF-8
        fh.write("x")
    (root / "z note.md").write_text("# Z\n")
    assert first_entry_path(root) == "z note.md"
    assert read_first_entry(root, "0 fifo.md") is None  # refused, not read
    assert read_first_entry(root, "z note.md").title == "Z"
