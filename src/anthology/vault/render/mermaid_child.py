"""The process that draws Mermaid diagrams with ``mmdr`` (native code) for
:mod:`anthology.vault.render.mermaid`.

Run as ``python -I mermaid_child.py`` (isolated: no script folder, no user site): it
imports nothing of Anthology, only ``mmdr`` and the standard library. Requests come on
stdin, one JSON object a line (``{"source", "scale", "max_width", "max_height",
"max_pixels"}``); each gets
one JSON line on stdout: ``{"ok": true, "png": base64, "svg", "width", "height"}`` (the
diagram's own size in CSS px) or ``{"ok": false, "error": "…"}``. A diagram the renderer
never finishes is the parent's to stop: it kills this process (a thread running native
code cannot be stopped).
"""

from __future__ import annotations

import base64
import json
import math
import re
import struct
import sys
import zlib

_VIEWBOX_RE = re.compile(r'viewBox="\s*([-\d.e]+)[\s,]+([-\d.e]+)[\s,]+([\d.e]+)[\s,]+([\d.e]+)')
# Nothing outside the picture is drawn: merman drops label images' hrefs itself; this keeps
# a later version's from reaching the rasteriser (which could read a file by its path).
_HREF_RE = re.compile(r'\s(?:xlink:)?href\s*=\s*("(?!#)[^"]*"|\'(?!#)[^\']*\')', re.I)
_URL_RE = re.compile(r"url\(\s*(?!['\"]?#)[^)]*\)", re.I)
_IMPORT_RE = re.compile(r"@import[^;]*;?", re.I)
MEMORY_LIMIT = 2 * 1024**3  # bytes of address space: a runaway layout fails, the app goes on


def _limit_memory() -> None:
    try:
        import resource  # POSIX only

        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ImportError, ValueError, OSError):
        pass


def encode_png(rgba: bytes, width: int, height: int) -> bytes:
    """RGBA pixels (straight alpha) as a PNG, compressed lightly: novasvg's own encoder
    took 50-200 ms a diagram, this one 2-50 ms, for files a third smaller."""
    stride = width * 4
    rows = b"".join(b"\x00" + rgba[y * stride : (y + 1) * stride] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 1))
        + chunk(b"IEND", b"")
    )


def draw(request: dict) -> dict:
    import mmdr
    import novasvg

    svg = mmdr.render(request["source"]).svg()
    m = _VIEWBOX_RE.search(svg)
    if not m:
        return {"ok": False, "error": "the renderer drew no picture"}
    width, height = float(m.group(3)), float(m.group(4))
    if not (width > 0 and height > 0):
        return {"ok": False, "error": "the renderer drew an empty picture"}
    safe = _IMPORT_RE.sub("", _URL_RE.sub("none", _HREF_RE.sub("", svg)))
    # device pixels: the asked scale, within the side and area caps (novasvg returns a
    # null bitmap past its own limits: a 38,000 px wide tree did)
    scale = min(
        float(request["scale"]),
        request["max_width"] / width,
        request["max_height"] / height,
        math.sqrt(request["max_pixels"] / (width * height)),
    )
    doc = novasvg.Document.load_from_data(safe)
    if doc is None:
        return {"ok": False, "error": "the renderer's picture could not be read"}
    pixels = max(1, round(width * scale))
    bitmap = doc.render_to_bitmap(pixels, -1, novasvg.Color(0, 0, 0, 0))
    if bitmap.width < 1 or bitmap.height < 1:
        return {"ok": False, "error": "it is too large to draw as a picture (null Bitmap)"}
    png = encode_png(bitmap.tobytes(rgba=True), bitmap.width, bitmap.height)
    return {
        "ok": True,
        "png": base64.b64encode(png).decode("ascii"),
        "svg": svg,
        "width": width,
        "height": height,
    }


def main() -> None:
    _limit_memory()
    out = sys.stdout
    for line in sys.stdin:
        try:
            answer = draw(json.loads(line))
        except MemoryError:
            answer = {"ok": False, "error": "the diagram needs more memory than allowed"}
        except Exception as exc:  # mmdr raises ValueError with its reason
            answer = {"ok": False, "error": str(exc).strip() or type(exc).__name__}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
