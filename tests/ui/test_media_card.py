"""An embedded recording in the entry pane (issue 31, item 4): a card, and its ▶ clicked
with the mouse hands the real file to the system's player; a card for a file that is no
media has nothing to click."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from test_entry_pane import anchor_point

from anthology.ui.reading.entry_pane import EntryPane
from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache

_SAMPLES = Path(__file__).resolve().parents[1] / "vault" / "media_samples.py"
_spec = importlib.util.spec_from_file_location("media_samples_for_ui", _SAMPLES)
assert _spec and _spec.loader
ms = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = ms
_spec.loader.exec_module(ms)


def test_the_play_button_opens_the_recording_with_the_system(qtbot, tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / "Audio notes").mkdir(parents=True)
    (root / "Audio notes" / "standup 2024-05-02.m4a").write_bytes(
        ms.mp4(95.0, video=False, brand=b"M4A ")
    )
    (root / "fake.mp3").write_text("not sound\n", encoding="utf-8")
    (root / "Standup.md").write_text(
        "Standup notes.\n\n![[standup 2024-05-02.m4a]]\n\n![[fake.mp3]]\n\nAfter.\n",
        encoding="utf-8",
    )
    clear_render_cache()
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        pane = EntryPane()
        qtbot.addWidget(pane)
        pane.resize(900, 700)
        pane.set_vault(index, root)
        opened: list[QUrl] = []
        pane.open_external = opened.append  # type: ignore[method-assign]
        pane.show()
        qtbot.waitExposed(pane)
        entry = index.entry("Standup")
        assert entry is not None
        pane.show_entry(entry)
        text = pane.toPlainText()
        assert "standup 2024-05-02.m4a" in text and "Audio · M4A · 1:35" in text
        assert "Not a playable file: it holds text" in text and "After." in text
        href = "vault:Audio%20notes/standup%202024-05-02.m4a"
        point = anchor_point(pane, href)
        qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=point)
        want = (root / "Audio notes" / "standup 2024-05-02.m4a").resolve()
        assert [Path(u.toLocalFile()) for u in opened] == [want]
        hrefs = [f.charFormat().anchorHref() for f in _fragments(pane)]
        assert not any("fake.mp3" in h for h in hrefs)  # nothing to play there
        pane.clear_entry()


def _fragments(pane: EntryPane):
    block = pane.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            yield it.fragment()
            it += 1
        block = block.next()
