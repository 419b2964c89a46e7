"""``![[file.ext]]`` of a file that is neither a picture nor a note goes to the renderer its
extension names in ``ATTACHMENT_EMBEDS`` (the seam a PDF page, a player or a drawing is drawn
through), with the alias and the part after "#"; a kind nobody draws stays a link."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_render import hrefs

from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache, embeds, render_entry
from sample_vault import write_vault

NOTES = {
    "Talk.md": "# Talk\n\n![[media/talk.mp3#t=30|Keynote]]\n\n![[slides.pdf]]\n",
    "media/talk.mp3": "not really sound",
    "slides.pdf": "%PDF-1.4 not really a PDF",
}


def render(tmp_path: Path) -> str:
    root = write_vault(tmp_path / "vault", NOTES)
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        clear_render_cache()
        entry = index.entry("Talk")
        assert entry is not None
        return render_entry(entry, index, vault_root=root).html


def test_an_embedded_file_goes_to_the_renderer_of_its_extension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, str | None, str | None]] = []

    def player(ctx, target: str, alias: str | None, frag: str | None) -> str:
        seen.append((target, alias, frag))
        return '<p class="player">▶ drawn in place</p>'

    monkeypatch.setitem(embeds.ATTACHMENT_EMBEDS, "mp3", player)
    monkeypatch.delitem(embeds.ATTACHMENT_EMBEDS, "pdf")  # as if nothing drew PDFs
    html = render(tmp_path)
    assert seen == [("media/talk.mp3", "Keynote", "t=30")]
    assert "▶ drawn in place" in html
    # a kind with no renderer is still a link to the file
    assert "vault:slides.pdf" in hrefs(html) and "▤ slides.pdf" in html
