"""Audio and video embeds (issue 31, item 4): ``![[talk.mp3]]`` and ``![](clip.mp4)`` are a
card with the name, the kind, the length read from the file's header and the size, and a ▶
that opens the file with the system; a file that is not what its name says, a truncated or
empty one is said so on its card, and nothing outside the vault is read."""

from __future__ import annotations

import io
import os
import re
from html import unescape
from pathlib import Path

import media_samples as ms
import pytest

from anthology.vault import media
from anthology.vault.attachments import open_policy
from anthology.vault.index import VaultIndex
from anthology.vault.media import MediaInfo, duration_text, probe_file, probe_media, size_text
from anthology.vault.render import clear_render_cache, render_entry
from anthology.vault.render.embeds import ATTACHMENT_EMBEDS
from anthology.vault.render.media_card import MAX_MEDIA_PROBES

MP3_FRAMES = 400  # 400 × 1,152 samples at 44.1 kHz: 10.45 s


def probe(data: bytes, extension: str) -> MediaInfo:
    return probe_file(io.BytesIO(data), len(data), extension)


# ------------------------------------------------------------------ the header readers
@pytest.mark.parametrize(
    ("extension", "data", "container", "kind", "seconds"),
    [
        ("wav", ms.wav(3.5), "WAV", "audio", 3.5),
        ("mp3", ms.mp3(MP3_FRAMES, xing=True), "MP3", "audio", MP3_FRAMES * 1152 / 44100),
        ("flac", ms.flac(44100 * 61), "FLAC", "audio", 61.0),
        ("ogg", ms.ogg_vorbis(5.0), "Ogg", "audio", 5.0),
        ("ogg", ms.ogg_opus(7.25), "Ogg", "audio", 7.25),
        ("ogv", ms.ogg_theora(84.0), "Ogg", "video", 84.0),
        ("m4a", ms.mp4(200.0, video=False, brand=b"M4A "), "M4A", "audio", 200.0),
        ("mp4", ms.mp4(12.5), "MP4", "video", 12.5),
        ("mov", ms.mp4(3.0, brand=b"qt  ", moov_last=True), "QuickTime", "video", 3.0),
        ("3gp", ms.mp4(4.0, brand=b"3gp4"), "3GP", "video", 4.0),
        ("webm", ms.webm(9.5), "WebM", "video", 9.5),
        ("webm", ms.webm(42.0, video=False), "WebM", "audio", 42.0),
        ("mkv", ms.webm(3725.0, doctype=b"matroska"), "Matroska", "video", 3725.0),
    ],
)
def test_each_container_tells_its_length_and_kind(
    extension: str, data: bytes, container: str, kind: str, seconds: float
) -> None:
    info = probe(data, extension)
    assert (info.container, info.kind, info.problem) == (container, kind, None)
    assert info.duration == pytest.approx(seconds, abs=0.01)
    assert info.size == len(data)


def test_an_mp3_without_a_length_header_is_estimated_from_its_bitrate() -> None:
    info = probe(ms.mp3(MP3_FRAMES), "mp3")  # constant bitrate, no Xing/VBRI header
    assert info.duration == pytest.approx(MP3_FRAMES * 1152 / 44100, rel=0.01)


def test_the_card_texts() -> None:
    assert [duration_text(s) for s in (4.4, 205, 3723)] == ["0:04", "3:25", "1:02:03"]
    assert [size_text(n) for n in (1, 380, 312_000, 4_100_000, 1_234_000_000)] == [
        "1 byte", "380 bytes", "312 KB", "4.1 MB", "1.2 GB"
    ]  # fmt: skip


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "the file is empty"),
        (b"These are my notes about the talk, not the talk.\n" * 40, "it holds text"),
        (b"%PDF-1.7\n" + bytes(500), "it is a PDF"),
        (bytes(range(256)) * 16, "its format is unknown"),
        (b"\xff\xfb\x90\x00" + b"noise" * 10, "its format is unknown"),  # one lone frame sync
    ],
)
def test_a_file_that_is_no_media_says_so(data: bytes, problem: str) -> None:
    info = probe(data, "mp3")
    assert not info.playable and info.problem == problem and info.duration is None


def test_a_file_holding_another_container_is_read_as_what_it_holds() -> None:
    info = probe(ms.mp4(30.0, video=False, brand=b"M4A "), "mp3")  # an M4A renamed .mp3
    assert info.playable and info.container == "M4A" and info.duration == pytest.approx(30.0)
    assert info.problem == "it holds M4A, though named .mp3"


@pytest.mark.parametrize(
    ("extension", "data"),
    [
        ("mp4", ms.mp4(60.0, moov_last=True)[:3000]),  # cut before its moov: length unknown
        ("mp4", ms.mp4(60.0)[:30]),  # cut inside its moov's header
        ("webm", ms.webm(9.5)[:50]),  # cut inside the EBML header
        ("ogg", ms.ogg_vorbis(5.0)[:40]),  # cut inside the first page
        ("wav", ms.wav(2.0)[:30]),  # cut inside the fmt chunk
        ("flac", ms.flac(44100)[:20]),  # cut inside STREAMINFO
        ("mp3", ms.id3v2(bytes(5000))),  # a tag and no audio after it
    ],
)
def test_a_truncated_file_has_no_length_and_raises_nothing(extension: str, data: bytes) -> None:
    info = probe(data, extension)
    assert info.duration is None and info.size == len(data)


def test_a_truncated_wav_plays_what_it_holds() -> None:
    data = ms.wav(4.0)[: 44 + 8000 * 2]  # the header says 4 s, 1 s is there
    assert probe(data, "wav").duration == pytest.approx(1.0)


def test_headers_that_lie_cost_a_bounded_read() -> None:
    """A file of a million empty-ish boxes, an MKV of 100,000 tiny elements before its
    Info, a WAV of chunks pointing at each other: the probe stops at its budget."""
    boxes = ms.box(b"ftyp", b"isom" + bytes(4)) + ms.box(b"free", b"") * 200_000
    mkv_head = ms.element(0x1A45DFA3, ms.element(0x4282, b"webm"))
    junk = ms.element(0xEC, b"") * 100_000  # Void elements inside the Segment
    segment = bytes.fromhex("18538067") + b"\x01\xff\xff\xff\xff\xff\xff\xff" + junk

    class Counting(io.BytesIO):
        reads: list[int]

        def read(self, n: int | None = -1) -> bytes:
            out = super().read(n)
            self.reads.append(len(out))
            return out

    for data, extension in ((boxes, "mp4"), (mkv_head + segment, "webm")):
        fh = Counting(data)
        fh.reads = []
        info = probe_file(fh, len(data), extension)
        assert info.duration is None and info.playable
        assert len(fh.reads) <= media.MAX_PROBE_STEPS + 1
        assert sum(fh.reads) <= media.MAX_PROBE_BYTES


def test_nothing_outside_the_vault_is_read(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    outside = tmp_path / "secret.mp3"
    outside.write_bytes(ms.mp3(50))
    (root / "talk.mp3").symlink_to(outside)
    info = probe_media(root.resolve(), "talk.mp3")
    assert not info.playable and info.problem is not None and "could not be read" in info.problem
    fifo = root / "pipe.mp3"
    os.mkfifo(fifo)  # never opened for a blocking read
    assert not probe_media(root.resolve(), "pipe.mp3").playable


# ------------------------------------------------------------------ the card in an entry
NOTE = """# Talks

Opening keynote:

![[media/keynote talk 🎤.mp3]]

![[clips/demo.webm|The demo]]

Recorded as a Markdown embed: ![](clips/interview.m4a)

![[notes-not-audio.mp3]]

![[empty.wav]]

![[cut.mp4]]

Text after the media.
"""


def write_media_vault(root: Path) -> Path:
    (root / "media").mkdir(parents=True)
    (root / "clips").mkdir()
    (root / "Talks.md").write_text(NOTE, encoding="utf-8")
    (root / "media" / "keynote talk 🎤.mp3").write_bytes(ms.mp3(MP3_FRAMES, xing=True))
    (root / "clips" / "demo.webm").write_bytes(ms.webm(95.0))
    (root / "clips" / "interview.m4a").write_bytes(ms.mp4(3725.0, video=False, brand=b"M4A "))
    (root / "notes-not-audio.mp3").write_text("just some words\n" * 10, encoding="utf-8")
    (root / "empty.wav").write_bytes(b"")
    (root / "cut.mp4").write_bytes(ms.mp4(60.0, moov_last=True)[:3000])
    return root


def render(tmp_path: Path, note: str | None = None):
    root = write_media_vault(tmp_path / "vault")
    if note is not None:
        (root / "Talks.md").write_text(note, encoding="utf-8")
    clear_render_cache()
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        entry = index.entry("Talks")
        assert entry is not None
        return render_entry(entry, index, vault_root=root.resolve())


def cards(html: str) -> list[str]:
    """Each card's text, tags stripped."""
    found = re.findall(r'<table class="media".*?</table>', html, re.S)
    return [" ".join(unescape(re.sub(r"<[^>]+>", " ", c)).split()) for c in found]


def test_every_media_embed_is_a_card_with_length_and_size(tmp_path: Path) -> None:
    rendered = render(tmp_path)
    shown = cards(rendered.html)
    assert shown == [
        "▶ keynote talk 🎤.mp3 Audio · MP3 · 0:10 · 167 KB",
        "▶ The demo Video · WebM · 1:35 · 2.2 KB",
        "▶ interview.m4a Audio · M4A · 1:02:05 · 5.3 KB",
        "⊘ notes-not-audio.mp3 Not a playable file: it holds text · 160 bytes",
        "⊘ empty.wav Not a playable file: the file is empty",
        "▶ cut.mp4 Video · MP4 · length unknown · 3.0 KB",
    ]
    assert "Text after the media." in rendered.html  # the rest of the entry is shown
    # the ▶ is the file's vault: link (the pane opens it with the system, or asks)
    plays = re.findall(r'class="media-play" href="([^"]*)"', rendered.html)
    assert [unescape(h) for h in plays][:2] == [
        "vault:media/keynote%20talk%20%F0%9F%8E%A4.mp3",
        "vault:clips/demo.webm",
    ]
    assert "▤" not in rendered.html  # never a bare link


def test_every_media_extension_has_a_card_and_opens_in_the_system_player() -> None:
    for extension in (
        "mp3",
        "m4a",
        "ogg",
        "wav",
        "webm",
        "mp4",
        "mov",
        "mkv",
        "ogv",
        "flac",
        "3gp",
    ):
        assert extension in ATTACHMENT_EMBEDS
        assert open_policy(f"talk.{extension}") == "open"


def test_media_outside_the_vault_or_missing_is_a_notice(tmp_path: Path) -> None:
    note = "![[../secret.mp3]]\n\n![](../../etc/x.mp4)\n\n![[gone.mp3]]\n\nStill here.\n"
    html = render(tmp_path, note).html
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
    assert text.count("lies outside the vault") == 2
    assert "Missing attachment: “gone.mp3”" in text and "Still here." in text
    assert not cards(html)


def test_an_entry_of_many_recordings_reads_a_bounded_number_of_headers(tmp_path: Path) -> None:
    note = "".join(f"![[media/keynote talk 🎤.mp3|take {i}]]\n\n" for i in range(150))
    rendered = render(tmp_path, note)
    shown = cards(rendered.html)
    assert len(shown) == 150
    assert sum("0:10" in c for c in shown) == MAX_MEDIA_PROBES
    assert shown[-1] == "▶ take 149 Audio"  # named and playable, its header not read
    assert "Rendering was cut short" in rendered.html
    assert f"the length of only the first {MAX_MEDIA_PROBES} media files is read" in rendered.html


def test_a_markdown_embed_alone_on_its_line_is_a_block(tmp_path: Path) -> None:
    note = "Before.\n\n![](clips/demo.webm)\n\nIn a sentence ![](clips/demo.webm) too.\n"
    html = render(tmp_path, note).html
    assert '<p>Before.</p>\n<table class="media"' in html  # no empty paragraph around it
    assert len(cards(html)) == 2 and "In a sentence" in html and "too." in html
