"""render_preview (vault/render/previews.py): the target of a link, its section or block."""

from __future__ import annotations

from pathlib import Path

from anthology.vault.index import VaultIndex
from anthology.vault.render.previews import cached_preview, render_preview

BODY = (
    "Intro with $a+b$.\n\n## First\n\nFirst text.\n\n### Sub\n\nSub text.\n\n"
    "## Second\n\nSecond text with [[Other]].\n\nA claim worth linking. ^claim\n"
)


def _index(tmp_path: Path) -> VaultIndex:
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    front = '---\nyear: 2021\nsource: "[[Other|the other note]]"\n---\n'
    (root / "notes" / "Long note.md").write_text(front + BODY)
    (root / "Other.md").write_text("Other.\n")
    return VaultIndex.open(root, tmp_path / "i.sqlite")


def test_a_heading_link_previews_its_section_with_subsections(tmp_path: Path) -> None:
    with _index(tmp_path) as index:
        entry = index.entry("notes/Long note")
        out = render_preview(entry, index, fragment="First")
        assert "First text." in out.html and "Sub text." in out.html
        assert "Second text" not in out.html and "Intro" not in out.html
        assert "2021" in out.html  # the properties line
        assert "the other note" in out.html and "[[" not in out.html  # its links as text
        assert cached_preview(entry, index, fragment="First") is out  # cached
        assert cached_preview(entry, index, fragment="First", theme="dark") is None


def test_a_block_link_previews_the_block_and_none_the_body(tmp_path: Path) -> None:
    with _index(tmp_path) as index:
        entry = index.entry("notes/Long note")
        block = render_preview(entry, index, fragment="^claim")
        assert "A claim worth linking." in block.html and "First text." not in block.html
        whole = render_preview(entry, index)
        assert "Intro with" in whole.html and "Second text" in whole.html
        assert any(k.startswith("math:") for k in whole.resources)  # $a+b$ typeset
        assert "$a+b$" not in whole.html
        missing = render_preview(entry, index, fragment="No such heading")
        assert "Intro with" in missing.html  # the body, when the heading is not there
