"""The media card's header reading (issue 31, item 4): bytes read, reads and time to tell the
length of each container, for a small file and the same file grown to 2 GB (sparse: its
header says so, the middle is a hole), and the render of an entry of 10 and of 100 media
embeds. The probe should read the same few KB whatever the file's size.

    python benchmarks/bench_media.py [PySide6_Addons-….whl]

Given the Addons wheel (``pip download --no-deps PySide6-Addons==6.11.3``), it also prints
what an inline player (QtMultimedia) would add to an install.
"""

from __future__ import annotations

import statistics
import struct
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "vault"))

import media_samples as ms

from anthology.vault import media
from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache, render_entry

BIG = 2 * 1024**3


class Counting:
    def __init__(self, fh) -> None:
        self.fh, self.reads, self.bytes = fh, 0, 0

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.fh.seek(offset, whence)

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(n)
        self.reads += 1
        self.bytes += len(data)
        return data


def grown(name: str, small: bytes) -> tuple[bytes, bytes]:
    """(head, tail) of the 2 GB version of ``small``: the header that claims the size, and
    what must stand at the end (the hole is between)."""
    if name == "mp4 (moov at the end)":
        ftyp = small[: struct.unpack(">I", small[:4])[0]]
        moov = small[small.index(b"moov") - 4 :]
        mdat_size = BIG - len(ftyp) - len(moov)
        return ftyp + struct.pack(">I4sQ", 1, b"mdat", mdat_size), moov
    if name == "wav":
        head = bytearray(small[:44])
        struct.pack_into("<I", head, 40, BIG - 44)
        return bytes(head), b""
    if name in ("ogg vorbis", "ogg opus"):
        last = small.rindex(b"OggS")
        return small[:last], small[last:]
    return small, b""  # mp3 (bitrate × size), flac and webm say their length at the start


def probe(path: Path, extension: str) -> tuple[media.MediaInfo, int, int, float]:
    times = []
    for _ in range(7):
        with path.open("rb", buffering=0) as fh:
            counting = Counting(fh)
            t0 = time.perf_counter()
            info = media.probe_file(counting, path.stat().st_size, extension)  # type: ignore[arg-type]
            times.append(time.perf_counter() - t0)
    return info, counting.reads, counting.bytes, statistics.median(times)


def main() -> None:
    samples = {
        "mp3": ("mp3", ms.mp3(400)),
        "mp3 (Xing)": ("mp3", ms.mp3(400, xing=True)),
        "wav": ("wav", ms.wav(3.0)),
        "flac": ("flac", ms.flac(44100 * 60)),
        "ogg vorbis": ("ogg", ms.ogg_vorbis(5.0)),
        "ogg opus": ("ogg", ms.ogg_opus(7.0)),
        "mp4 (moov at the end)": ("mp4", ms.mp4(12.5, moov_last=True)),
        "webm": ("webm", ms.webm(9.5)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{'format':24} {'size':>9} {'length':>9} {'reads':>6} {'bytes read':>11} {'ms':>7}")
        for name, (extension, small) in samples.items():
            head, tail = grown(name, small)
            small_path = folder / f"small.{extension}"
            big_path = folder / f"big.{extension}"
            small_path.write_bytes(small)
            with big_path.open("wb") as fh:
                fh.write(head)
                fh.truncate(BIG - len(tail))  # a hole: nothing written, nothing read
                fh.seek(BIG - len(tail))
                fh.write(tail)
            for label, path in (("", small_path), ("2 GB", big_path)):
                info, reads, read, seconds = probe(path, extension)
                length = media.duration_text(info.duration) if info.duration else "?"
                size = media.size_text(path.stat().st_size)
                print(f"{name + (' ' + label if label else ''):24} {size:>9} {length:>9} "
                      f"{reads:>6} {read:>11,} {seconds * 1000:>7.2f}")  # fmt: skip
            big_path.unlink()
        # an entry of N recordings: its render (one probe each, up to MAX_MEDIA_PROBES)
        vault = folder / "vault"
        (vault / "media").mkdir(parents=True)
        (vault / "media" / "talk.mp3").write_bytes(ms.mp3(400, xing=True))
        print()
        for n in (10, 100):
            body = "".join(f"![[talk.mp3|take {i}]]\n\n" for i in range(n))
            (vault / f"Takes {n}.md").write_text(body, encoding="utf-8")
        with VaultIndex.open(vault, folder / "i.sqlite") as index:
            for n in (10, 100):
                entry = index.entry(f"Takes {n}")
                assert entry is not None
                times = []
                for _ in range(5):
                    clear_render_cache()
                    t0 = time.perf_counter()
                    render_entry(entry, index, vault_root=vault.resolve())
                    times.append(time.perf_counter() - t0)
                print(f"render of an entry of {n:>3} media embeds: "
                      f"{statistics.median(times) * 1000:7.1f} ms")  # fmt: skip
    if len(sys.argv) > 1:
        wheel = zipfile.ZipFile(sys.argv[1])
        infos = wheel.infolist()
        multimedia = [i for i in infos if any(k in i.filename for k in
                      ("ultimedia", "libav", "libsw", "ffmpeg"))]  # fmt: skip
        print(f"\nPySide6-Addons wheel: {Path(sys.argv[1]).stat().st_size / 1e6:.1f} MB "
              f"download, {sum(i.file_size for i in infos) / 1e6:.1f} MB installed; "
              f"QtMultimedia and its FFmpeg: {sum(i.file_size for i in multimedia) / 1e6:.1f} "
              "MB installed")  # fmt: skip


if __name__ == "__main__":
    main()
