"""Small audio and video files written from their formats' specifications (headers and
framing only, silence or zeros for the media), for the tests of :mod:`anthology.vault.media`
and the media card: WAV by the standard library's ``wave``, the rest by hand."""

from __future__ import annotations

import io
import struct
import wave


def wav(seconds: float, rate: int = 8000) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\x00\x00" * int(seconds * rate))
    return out.getvalue()


def id3v2(payload: bytes = b"TIT2\x00\x00\x00\x05\x00\x00\x03Talk") -> bytes:
    size = len(payload)
    syncsafe = bytes((size >> s) & 0x7F for s in (21, 14, 7, 0))
    return b"ID3\x03\x00\x00" + syncsafe + payload


# MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, stereo, no padding: 417-byte frames of 1,152 samples
MP3_HEADER = b"\xff\xfb\x90\x00"
MP3_FRAME = 417


def mp3(frames: int, *, xing: bool = False, tag: bool = True) -> bytes:
    """``frames`` frames of MPEG audio (an ID3v2 tag first): 1,152 samples each at 44.1 kHz.
    With ``xing``, the first frame carries a Xing header counting them (as a VBR file's)."""
    body = bytearray()
    for i in range(frames):
        frame = bytearray(MP3_HEADER + bytes(MP3_FRAME - 4))
        if i == 0 and xing:
            frame[36:48] = b"Xing" + struct.pack(">II", 1, frames)
        body += frame
    return (id3v2() if tag else b"") + bytes(body)


def flac(samples: int, rate: int = 44100) -> bytes:
    info = (rate << 44) | ((2 - 1) << 41) | ((16 - 1) << 36) | samples
    streaminfo = struct.pack(">HH", 4096, 4096) + bytes(6) + info.to_bytes(8, "big") + bytes(16)
    return b"fLaC" + bytes([0x80]) + len(streaminfo).to_bytes(3, "big") + streaminfo + bytes(64)


def ogg_page(packet: bytes, *, granule: int, serial: int, seq: int, kind: int) -> bytes:
    segments = [255] * (len(packet) // 255) + [len(packet) % 255]
    header = struct.pack("<4sBBqIIIB", b"OggS", 0, kind, granule, serial, seq, 0, len(segments))
    return header + bytes(segments) + packet


def ogg_vorbis(seconds: float, rate: int = 44100) -> bytes:
    ident = (
        b"\x01vorbis" + struct.pack("<IBI", 0, 2, rate) + struct.pack("<iii", 0, 128000, 0)
    ) + b"\xb8\x01"
    first = ogg_page(ident, granule=0, serial=7, seq=0, kind=2)
    middle = ogg_page(bytes(3000), granule=rate, serial=7, seq=1, kind=0)
    last = ogg_page(bytes(200), granule=int(seconds * rate), serial=7, seq=2, kind=4)
    return first + middle + last


def ogg_opus(seconds: float, pre_skip: int = 312) -> bytes:
    head = b"OpusHead" + struct.pack("<BBHIhB", 1, 2, pre_skip, 48000, 0, 0)
    first = ogg_page(head, granule=0, serial=3, seq=0, kind=2)
    last = ogg_page(bytes(100), granule=int(seconds * 48000) + pre_skip, serial=3, seq=1, kind=4)
    return first + last


def box(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", 8 + len(body)) + kind + body


def mp4(
    seconds: float, *, video: bool = True, brand: bytes = b"isom", moov_last: bool = False
) -> bytes:
    """An ISO file: ``ftyp``, ``moov`` (``mvhd`` at a time scale of 600, one ``trak``
    whose handler is ``vide`` or ``soun``) and an ``mdat`` of zeros."""
    mvhd = box(b"mvhd", struct.pack(">IIIII", 0, 0, 0, 600, round(seconds * 600)) + bytes(80))
    hdlr = box(b"hdlr", bytes(8) + (b"vide" if video else b"soun") + bytes(12) + b"\x00")
    trak = box(b"trak", box(b"tkhd", bytes(84)) + box(b"mdia", box(b"mdhd", bytes(24)) + hdlr))
    moov = box(b"moov", mvhd + trak)
    ftyp = box(b"ftyp", brand + b"\x00\x00\x02\x00" + brand + b"mp41")
    mdat = box(b"mdat", bytes(5000))
    return ftyp + mdat + moov if moov_last else ftyp + moov + mdat


def _ebml_size(n: int) -> bytes:
    return bytes([0x01]) + n.to_bytes(7, "big")


def element(ident: int, body: bytes) -> bytes:
    return ident.to_bytes((ident.bit_length() + 7) // 8, "big") + _ebml_size(len(body)) + body


def webm(seconds: float, *, video: bool = True, doctype: bytes = b"webm") -> bytes:
    header = element(0x1A45DFA3, element(0x4286, b"\x01") + element(0x4282, doctype))
    info = element(
        0x1549A966,
        element(0x2AD7B1, (1_000_000).to_bytes(3, "big"))
        + element(0x4489, struct.pack(">d", seconds * 1000)),
    )
    tracks = element(
        0x1654AE6B,
        element(0xAE, element(0xD7, b"\x01") + element(0x83, b"\x01" if video else b"\x02")),
    )
    cluster = element(0x1F43B675, element(0xE7, b"\x00") + bytes(2000))
    segment = (
        bytes.fromhex("18538067") + b"\x01\xff\xff\xff\xff\xff\xff\xff" + info + tracks + cluster
    )
    return header + segment


def ogg_theora(seconds: float, fps: int = 25, shift: int = 6) -> bytes:
    """A Theora video stream: its identification header (frame rate, keyframe granule
    shift) and a last page whose granule says the last frame (a keyframe 10 frames back)."""
    ident = (
        b"\x80theora\x03\x02\x01"
        + struct.pack(">HH", 40, 30)  # frame size in macroblocks
        + (640).to_bytes(3, "big") + (480).to_bytes(3, "big") + b"\x00\x00"
        + struct.pack(">II", fps, 1)  # frame rate fps/1
        + bytes(6) + b"\x00" + bytes(3)  # aspect, colour space, bitrate
        + bytes([shift >> 3, (shift & 7) << 5])  # quality, keyframe shift, pixel format
    )  # fmt: skip
    frames = int(seconds * fps)
    granule = ((frames - 10) << shift) + 10
    first = ogg_page(ident, granule=0, serial=9, seq=0, kind=2)
    last = ogg_page(bytes(500), granule=granule, serial=9, seq=1, kind=4)
    return first + last
