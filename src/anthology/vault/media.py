"""What an audio or video file of the vault is, and how long it plays, read from its header
in pure Python (no Qt, no codec, nothing run): the card an ``![[talk.mp3]]`` embed draws.

Each container keeps its length near its start (or, for Ogg, in its last page):

- **MP3**: an ID3v2 tag is skipped, two MPEG audio frames in a row must follow; a Xing/Info
  or VBRI header gives the frame count, else the first frame's bitrate and the file's size
  (a constant-bitrate estimate, as players show it before they scan).
- **WAV** (RIFF): the ``fmt`` chunk's byte rate and the ``data`` chunk's size.
- **FLAC**: the STREAMINFO block's sample rate and sample count.
- **Ogg** (Vorbis, Opus, Theora): the codec's first page, then the granule position of the
  stream's last page (in the last :data:`TAIL_BYTES`).
- **MP4 / M4A / MOV / 3GP** (ISO boxes): ``moov › mvhd``'s duration and time scale, wherever
  ``moov`` lies (box headers are read, ``mdat`` is skipped over, never read); a ``trak`` whose
  handler is ``vide`` makes it a video.
- **WebM / Matroska** (EBML): ``Segment › Info``'s Duration and TimestampScale; a track of
  type 1 makes it a video.

The file is sniffed, not trusted by its extension: an ``.mp3`` that holds an M4A is read as
an M4A (and said so), one that holds text or nothing is "not a playable file". Every read is
counted against :data:`MAX_PROBE_BYTES` and :data:`MAX_PROBE_STEPS` (a truncated file, a
header that lies about its sizes, a million tiny boxes: a few hundred KB read at most, then
"length unknown"), and the file is opened as every vault file is
(:func:`anthology.vault.files.open_regular`: inside the vault, regular files only).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .files import open_regular, os_reason

MAX_PROBE_BYTES = 256 * 1024  # read from one file at most, headers and tail together
MAX_PROBE_STEPS = 2_000  # seeks and reads (box and element headers) at most
HEAD_BYTES = 64 * 1024  # where an MP3's first frame or an Ogg stream's first pages are sought
TAIL_BYTES = 64 * 1024  # where an Ogg stream's last page is sought

# extension → (what it usually holds, the format it names)
MEDIA_EXTENSIONS: dict[str, tuple[str, str]] = {
    "mp3": ("audio", "mp3"),
    "wav": ("audio", "wav"),
    "flac": ("audio", "flac"),
    "ogg": ("audio", "ogg"),
    "oga": ("audio", "ogg"),
    "opus": ("audio", "ogg"),
    "m4a": ("audio", "mp4"),
    "3gp": ("video", "mp4"),
    "mp4": ("video", "mp4"),
    "m4v": ("video", "mp4"),
    "mov": ("video", "mp4"),
    "webm": ("video", "mkv"),
    "mkv": ("video", "mkv"),
    "ogv": ("video", "ogg"),
}
FORMAT_NAMES = {
    "mp3": "MP3",
    "wav": "WAV",
    "flac": "FLAC",
    "ogg": "Ogg",
    "mp4": "MP4",
    "mkv": "Matroska",
}


@dataclass(frozen=True)
class MediaInfo:
    """What the card says: ``kind`` "audio" or "video", ``container`` the format found
    ("MP3", "WebM"…; None when the bytes are of no media format), ``duration`` in seconds
    (None: unknown), ``size`` in bytes, ``problem`` a short reason when the file is not what
    its name says or could not be read."""

    kind: str
    container: str | None
    duration: float | None
    size: int
    problem: str | None = None

    @property
    def playable(self) -> bool:
        return self.container is not None


class _OutOfBudget(Exception):
    pass


class _Reader:
    """Reads of one file, counted against the probe's budget."""

    def __init__(self, fh: BinaryIO, size: int) -> None:
        self.fh = fh
        self.size = size
        self.read_bytes = 0
        self.steps = 0
        self.brand = b""  # an ISO file's major brand (ftyp): "M4A ", "qt  ", "3gp4"…

    def at(self, offset: int, n: int) -> bytes:
        """Up to ``n`` bytes at ``offset`` (fewer at the end of the file)."""
        if offset < 0 or offset >= self.size or n <= 0:
            return b""
        n = min(n, self.size - offset)
        self.steps += 1
        self.read_bytes += n
        if self.steps > MAX_PROBE_STEPS or self.read_bytes > MAX_PROBE_BYTES:
            raise _OutOfBudget
        self.fh.seek(offset)
        return self.fh.read(n) or b""


# ------------------------------------------------------------------ sniffing
def sniff(head: bytes) -> str | None:
    """The media format ``head`` (a file's first bytes) starts like, or None."""
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "wav"
    if head[:4] == b"fLaC":
        return "flac"
    if head[:4] == b"OggS":
        return "ogg"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "mkv"
    if len(head) >= 8 and head[4:8] in (b"ftyp", b"moov", b"mdat", b"wide", b"free", b"skip"):
        return "mp4"
    if head[:3] == b"ID3":
        inner = head[_id3_size(head) :]
        return "flac" if inner[:4] == b"fLaC" else "mp3"
    if _first_mp3_frame(head, 0) is not None:
        return "mp3"
    return None


def _what_else(head: bytes) -> str:
    """What a file that is no media looks like, for the card: "it holds text"."""
    signatures = (
        (b"%PDF", "a PDF"),
        (b"\x89PNG", "a PNG picture"),
        (b"\xff\xd8\xff", "a JPEG picture"),
        (b"GIF8", "a GIF picture"),
        (b"PK\x03\x04", "a ZIP archive"),
        (b"\x7fELF", "a program"),
        (b"MZ", "a program"),
    )
    for magic, name in signatures:
        if head.startswith(magic):
            return f"it is {name}"
    sample = head[:4096]
    if b"\x00" not in sample:
        try:
            sample.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(sample) - 4:  # not a character cut at the sample's end
                return "its format is unknown"
        return "it holds text"
    return "its format is unknown"


# ------------------------------------------------------------------ MP3
_MP3_BITRATES = {
    (1, 1): (0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (1, 2): (0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (1, 3): (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (2, 1): (0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (2, 2): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    (2, 3): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
_MP3_RATES = {1: (44100, 48000, 32000), 2: (22050, 24000, 16000), 25: (11025, 12000, 8000)}


@dataclass(frozen=True)
class _Frame:
    version: int  # 1, 2 or 25 (MPEG 2.5)
    layer: int
    bitrate: int  # kbit/s
    rate: int  # Hz
    length: int  # bytes
    samples: int  # per frame
    mono: bool


def _mp3_frame(b: bytes) -> _Frame | None:
    """The MPEG audio frame header in ``b[:4]``, or None."""
    if len(b) < 4 or b[0] != 0xFF or (b[1] & 0xE0) != 0xE0:
        return None
    version = {0: 25, 2: 2, 3: 1}.get((b[1] >> 3) & 3)
    layer = {1: 3, 2: 2, 3: 1}.get((b[1] >> 1) & 3)
    bitrate_index, rate_index = b[2] >> 4, (b[2] >> 2) & 3
    if version is None or layer is None or bitrate_index in (0, 15) or rate_index == 3:
        return None
    bitrate = _MP3_BITRATES[(1 if version == 1 else 2, layer)][bitrate_index]
    rate = _MP3_RATES[version][rate_index]
    padding = (b[2] >> 1) & 1
    if layer == 1:
        length, samples = (12 * bitrate * 1000 // rate + padding) * 4, 384
    elif layer == 2 or version == 1:
        length, samples = 144 * bitrate * 1000 // rate + padding, 1152
    else:  # layer III of MPEG 2 / 2.5
        length, samples = 72 * bitrate * 1000 // rate + padding, 576
    return _Frame(version, layer, bitrate, rate, length, samples, (b[3] >> 6) == 3)


def _first_mp3_frame(data: bytes, start: int) -> tuple[int, _Frame] | None:
    """The first frame at or after ``start`` that another frame follows (two in a row: one
    lone sync pattern in text or noise is no MP3)."""
    pos = data.find(b"\xff", start)
    while 0 <= pos < len(data) - 4:
        frame = _mp3_frame(data[pos : pos + 4])
        if frame is not None:
            nxt = pos + frame.length
            if nxt + 4 <= len(data):
                follower = _mp3_frame(data[nxt : nxt + 4])
                if follower is not None and (follower.version, follower.layer) == (
                    frame.version,
                    frame.layer,
                ):
                    return pos, frame
            elif nxt == len(data) and pos == start:  # one whole frame fills the file
                return pos, frame
        pos = data.find(b"\xff", pos + 1)
    return None


def _id3_size(head: bytes) -> int:
    """Bytes of the ID3v2 tag at the start of ``head`` (0 if none)."""
    if head[:3] != b"ID3" or len(head) < 10:
        return 0
    size = 0
    for byte in head[6:10]:
        size = (size << 7) | (byte & 0x7F)
    footer = 10 if head[5] & 0x10 else 0
    return 10 + size + footer


def _probe_mp3(r: _Reader) -> float | None:
    head = r.at(0, 10)
    start = _id3_size(head)
    data = r.at(start, 4096)  # the first frame is most often right there
    found = _first_mp3_frame(data, 0)
    if found is None and len(data) == 4096:  # junk or padding first: look further
        data = r.at(start, HEAD_BYTES)
        found = _first_mp3_frame(data, 0)
    if found is None:
        return None
    pos, frame = found
    first = data[pos : pos + frame.length]
    side = (32 if not frame.mono else 17) if frame.version == 1 else (17 if not frame.mono else 9)
    xing = first[4 + side : 4 + side + 16]
    if xing[:4] in (b"Xing", b"Info") and len(xing) >= 12:
        flags = struct.unpack(">I", xing[4:8])[0]
        if flags & 1:
            frames = struct.unpack(">I", xing[8:12])[0]
            return frames * frame.samples / frame.rate
    vbri = first[36:54]
    if vbri[:4] == b"VBRI" and len(vbri) >= 18:
        frames = struct.unpack(">I", vbri[14:18])[0]
        return frames * frame.samples / frame.rate
    audio = r.size - start - pos
    if r.size >= 128 and r.at(r.size - 128, 3) == b"TAG":  # ID3v1 at the end
        audio -= 128
    return max(0, audio) * 8 / (frame.bitrate * 1000)


# ------------------------------------------------------------------ WAV
def _probe_wav(r: _Reader) -> float | None:
    offset, byte_rate = 12, 0
    while offset + 8 <= r.size:
        header = r.at(offset, 8)
        if len(header) < 8:
            return None
        cid, size = header[:4], struct.unpack("<I", header[4:])[0]
        if cid == b"fmt ":
            fmt = r.at(offset + 8, 16)
            if len(fmt) < 16:
                return None
            byte_rate = struct.unpack("<I", fmt[8:12])[0]
        elif cid == b"data":
            if not byte_rate:
                return None
            there = r.size - offset - 8
            # a streamed file writes 0 or 0xFFFFFFFF; a truncated one claims more than is left
            if size in (0, 0xFFFFFFFF) or size > there:
                size = there
            return size / byte_rate
        offset += 8 + size + (size & 1)
    return None


# ------------------------------------------------------------------ FLAC
def _probe_flac(r: _Reader) -> float | None:
    start = _id3_size(r.at(0, 10))
    if r.at(start, 4) != b"fLaC":
        return None
    block = r.at(start + 4, 4 + 34)
    if len(block) < 38 or block[0] & 0x7F != 0:  # STREAMINFO comes first
        return None
    info = int.from_bytes(block[4 + 10 : 4 + 18], "big")
    rate = info >> 44
    total = info & ((1 << 36) - 1)
    return total / rate if rate and total else None


# ------------------------------------------------------------------ Ogg
_OGG_PAGE = struct.Struct("<4sBBqIIIB")  # capture, version, type, granule, serial, seq, crc, segs


def _ogg_pages(data: bytes, start: int = 0):
    """(offset, granule, serial, header type, first packet's bytes) of the pages in ``data``."""
    pos = data.find(b"OggS", start)
    while 0 <= pos <= len(data) - _OGG_PAGE.size:
        _capture, version, kind, granule, serial, _seq, _crc, segs = _OGG_PAGE.unpack_from(
            data, pos
        )
        if version == 0:
            table = data[pos + 27 : pos + 27 + segs]
            body = pos + 27 + segs
            yield pos, granule, serial, kind, data[body : body + min(sum(table), 64)]
        pos = data.find(b"OggS", pos + 4)


def _probe_ogg(r: _Reader) -> tuple[float | None, bool]:
    """(duration, holds video)."""
    streams: dict[int, tuple[str, int, int, int]] = {}  # serial → (codec, rate, pre-skip, shift)
    for _pos, _granule, serial, kind, packet in _ogg_pages(r.at(0, HEAD_BYTES)):
        if not kind & 2:  # past the first pages (beginning of stream)
            break
        if packet[:7] == b"\x01vorbis" and len(packet) >= 16:
            streams[serial] = ("vorbis", struct.unpack("<I", packet[12:16])[0], 0, 0)
        elif packet[:8] == b"OpusHead" and len(packet) >= 12:
            streams[serial] = ("opus", 48000, struct.unpack("<H", packet[10:12])[0], 0)
        elif packet[:7] == b"\x80theora" and len(packet) >= 42:
            num, den = struct.unpack(">II", packet[22:30])
            shift = ((packet[40] & 0x03) << 3) | (packet[41] >> 5)
            # frames per second as num/den: a "rate" of frames, counted in den units
            streams[serial] = ("theora", num, den, shift)
        elif packet[:5] == b"\x7fFLAC" and len(packet) >= 51:
            # mapping header (9), "fLaC", a block header (4), STREAMINFO (34) from byte 17
            info = int.from_bytes(packet[27:35], "big")
            streams[serial] = ("flac", info >> 44, 0, 0)
    video = any(codec == "theora" for codec, *_ in streams.values())
    if not streams:
        return None, video
    tail_at = max(0, r.size - TAIL_BYTES)
    last: dict[int, int] = {}
    for _pos, granule, serial, _kind, _packet in _ogg_pages(r.at(tail_at, TAIL_BYTES)):
        if serial in streams and granule >= 0:
            last[serial] = granule
    lengths = []
    for serial, granule in last.items():
        codec, rate, extra, shift = streams[serial]
        if codec == "theora":
            frames = (granule >> shift) + (granule & ((1 << shift) - 1))
            if rate:
                lengths.append(frames * extra / rate)
        elif rate:
            lengths.append(max(0, granule - extra) / rate)
    return (max(lengths) if lengths else None), video


# ------------------------------------------------------------------ MP4 / MOV (ISO boxes)
_ISO_BRANDS = {b"M4A": "M4A", b"M4B": "M4A", b"qt ": "QuickTime", b"3gp": "3GP", b"3g2": "3GP"}


def _boxes(r: _Reader, start: int, end: int):
    """(type, body offset, end offset) of the boxes between ``start`` and ``end``; a box
    that claims more than the file holds is cut at its end (a truncated file)."""
    pos = start
    while pos + 8 <= end:
        header = r.at(pos, 16)
        if len(header) < 8:
            return
        size, kind = struct.unpack(">I4s", header[:8])
        body = pos + 8
        if size == 1:
            if len(header) < 16:
                return
            size, body = struct.unpack(">Q", header[8:16])[0], pos + 16
        elif size == 0:
            size = end - pos
        if size < body - pos or not all(32 <= c < 127 for c in kind):
            return  # not a box: the rest is no ISO file
        yield kind.decode("latin-1"), body, min(pos + size, end)
        pos += size


def _probe_mp4(r: _Reader) -> tuple[float | None, bool | None, bool]:
    """(duration, holds video (None: unknown), the file is a box file at all)."""
    duration: float | None = None
    video: bool | None = None
    any_box = False
    for kind, body, end in _boxes(r, 0, r.size):
        any_box = True
        if kind == "ftyp":
            r.brand = r.at(body, 4)
        if kind != "moov":
            continue
        video = False
        for child, cbody, cend in _boxes(r, body, end):
            if child == "mvhd":
                data = r.at(cbody, 32)
                if data[:1] == b"\x01" and len(data) >= 32:
                    scale, length = struct.unpack(">IQ", data[20:32])
                elif len(data) >= 20:
                    scale, length = struct.unpack(">II", data[12:20])
                else:
                    continue
                if scale and length not in (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF):
                    duration = length / scale
            elif child == "trak" and not video:
                video = _trak_is_video(r, cbody, cend)
        break
    return duration, video, any_box


def _trak_is_video(r: _Reader, start: int, end: int) -> bool:
    for kind, body, stop in _boxes(r, start, end):
        if kind == "mdia":
            for sub, sbody, _send in _boxes(r, body, stop):
                if sub == "hdlr":
                    return r.at(sbody + 8, 4) == b"vide"
    return False


# ------------------------------------------------------------------ WebM / Matroska (EBML)
_EBML_HEADER, _DOCTYPE = 0x1A45DFA3, 0x4282
_SEGMENT, _INFO, _TRACKS, _CLUSTER = 0x18538067, 0x1549A966, 0x1654AE6B, 0x1F43B675
_SCALE, _DURATION, _TRACK_ENTRY, _TRACK_TYPE = 0x2AD7B1, 0x4489, 0xAE, 0x83


def _vint(data: bytes, pos: int, *, keep_marker: bool) -> tuple[int, int] | None:
    """An EBML variable-length integer at ``pos``: (value, length); None if malformed. An
    element's size of all ones (unknown) is -1."""
    if pos >= len(data) or data[pos] == 0:
        return None
    first = data[pos]
    length = 9 - first.bit_length()
    if pos + length > len(data):
        return None
    value = first if keep_marker else first & ((1 << (8 - length)) - 1)
    for byte in data[pos + 1 : pos + length]:
        value = (value << 8) | byte
    if not keep_marker and value == (1 << (7 * length)) - 1:
        value = -1
    return value, length


def _elements(r: _Reader, start: int, end: int):
    """(id, body offset, end offset) of the EBML elements between ``start`` and ``end``."""
    pos = start
    while pos < end:
        header = r.at(pos, 12)
        ident = _vint(header, 0, keep_marker=True)
        if ident is None:
            return
        size = _vint(header, ident[1], keep_marker=False)
        if size is None:
            return
        body = pos + ident[1] + size[1]
        stop = end if size[0] < 0 else min(body + size[0], end)
        yield ident[0], body, stop
        pos = stop


def _probe_mkv(r: _Reader) -> tuple[float | None, bool | None, str]:
    """(duration, holds video (None: unknown), "WebM" or "Matroska")."""
    name = "Matroska"
    duration: float | None = None
    video: bool | None = None
    for ident, body, end in _elements(r, 0, r.size):
        if ident == _EBML_HEADER:
            for sub, sbody, send in _elements(r, body, end):
                if sub == _DOCTYPE and r.at(sbody, min(send - sbody, 16)) == b"webm":
                    name = "WebM"
        elif ident == _SEGMENT:
            scale, raw, info_seen = 1_000_000, None, False
            for sub, sbody, send in _elements(r, body, end):
                if sub == _CLUSTER and info_seen:
                    break  # the media itself: Info and Tracks come before it
                if sub == _INFO:
                    info_seen = True
                    for item, ibody, iend in _elements(r, sbody, send):
                        value = r.at(ibody, min(iend - ibody, 8))
                        if item == _SCALE and value:
                            scale = int.from_bytes(value, "big")
                        elif item == _DURATION and len(value) in (4, 8):
                            raw = struct.unpack(">f" if len(value) == 4 else ">d", value)[0]
                elif sub == _TRACKS:
                    video = False
                    for entry, ebody, eend in _elements(r, sbody, send):
                        if entry != _TRACK_ENTRY:
                            continue
                        for item, ibody, _iend in _elements(r, ebody, eend):
                            if item == _TRACK_TYPE and r.at(ibody, 1) == b"\x01":
                                video = True
                if raw is not None and video is not None:
                    break
            if raw is not None and raw == raw and raw > 0:  # not NaN
                duration = raw * scale / 1e9
            break
    return duration, video, name


# ------------------------------------------------------------------ the probe
def probe_file(fh: BinaryIO, size: int, extension: str) -> MediaInfo:
    """What the open file ``fh`` of ``size`` bytes, named with ``extension`` (lower case,
    no dot), holds; never raises on what the bytes say (a file that is no media, or lies
    about its sizes, is a :class:`MediaInfo` with a ``problem``)."""
    kind, named = MEDIA_EXTENSIONS.get(extension, ("audio", extension))
    if size == 0:
        return MediaInfo(kind, None, None, 0, "the file is empty")
    r = _Reader(fh, size)
    container: str | None = None
    try:
        head = r.at(0, 4096)
        found = sniff(head)
        if found is None:
            return MediaInfo(kind, None, None, size, _what_else(head))
        container = FORMAT_NAMES[found]
        duration: float | None = None
        video: bool | None = None
        if found == "mp3":
            duration = _probe_mp3(r)
        elif found == "wav":
            duration = _probe_wav(r)
        elif found == "flac":
            duration = _probe_flac(r)
        elif found == "ogg":
            duration, video = _probe_ogg(r)
        elif found == "mp4":
            duration, video, _ = _probe_mp4(r)
            container = _ISO_BRANDS.get(r.brand[:3], "MP4")
        else:
            duration, video, container = _probe_mkv(r)
    except _OutOfBudget:
        return MediaInfo(kind, container, None, size, "its header is too long to read")
    except (OSError, ValueError, struct.error) as exc:
        return MediaInfo(kind, None, None, size, f"it could not be read ({exc})")
    if found in ("mp3", "wav", "flac"):
        video = False
    if video is not None:
        kind = "video" if video else "audio"
    problem = None
    if found != named:  # played all the same by a system player that sniffs, as most do
        problem = f"it holds {container}, though named .{extension}"
    if duration is not None and not (0 <= duration < 1e9):  # a header that lies
        duration = None
    return MediaInfo(kind, container, duration, size, problem)


def probe_media(vault_root: Path, rel: str) -> MediaInfo:
    """:func:`probe_file` of the vault file ``rel``, opened inside the vault only."""
    extension = rel.rsplit(".", 1)[-1].lower() if "." in rel else ""
    kind = MEDIA_EXTENSIONS.get(extension, ("audio", ""))[0]
    try:
        fh, st = open_regular(vault_root, rel)
    except OSError as exc:
        return MediaInfo(kind, None, None, 0, f"it could not be read: {os_reason(exc)}")
    with fh:
        return probe_file(fh, st.st_size, extension)


# ------------------------------------------------------------------ as the card shows it
def duration_text(seconds: float) -> str:
    """``3:25``, ``1:02:03``, ``0:04``."""
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def size_text(size: int) -> str:
    """``12 bytes``, ``312 KB``, ``4.1 MB``, ``1.2 GB`` (powers of 1,000, as file managers)."""
    if size < 1000:
        return f"{size} byte{'s' if size != 1 else ''}"
    for unit, scale in (("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12)):
        value = size / scale
        if value < 999.5 or unit == "TB":
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{size} bytes"  # pragma: no cover - the loop always returns
