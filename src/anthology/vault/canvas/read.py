"""Read a ``.canvas`` of the vault, as every vault file is read (:func:`.files.open_regular`:
never outside the vault, never a FIFO), with a size budget."""

from __future__ import annotations

import os

from ..files import NotRegularFile, OutsideVault, open_regular, os_reason
from .model import Canvas, CanvasProblem, parse_canvas

# A canvas is read whole (JSON cannot be cut); 48 real ones were all under 100 KB, and a
# 10 MB text card still fits.
MAX_CANVAS_BYTES = 32 * 1024 * 1024


def read_canvas_text(root: str | os.PathLike[str], rel: str) -> tuple[str | None, str]:
    """``(the text, "")`` of the canvas ``rel``, or ``(None, why not)``."""
    try:
        fh, st = open_regular(root, rel)
        with fh:
            if st.st_size > MAX_CANVAS_BYTES:
                mib = st.st_size / 1024 / 1024
                return None, (f"{mib:.0f} MiB: larger than the {MAX_CANVAS_BYTES >> 20} MiB a "
                              "canvas may be; not read")  # fmt: skip
            data = fh.read(MAX_CANVAS_BYTES + 1)
    except FileNotFoundError:
        return None, "the file is gone"
    except (NotRegularFile, OutsideVault) as exc:
        return None, f"not read: {exc.strerror}"
    except OSError as exc:
        return None, f"cannot be read: {os_reason(exc)}"
    if b"\x00" in data[:8192]:
        return None, "binary data, not a canvas"
    return data.decode("utf-8", "replace").lstrip("\ufeff"), ""


def load_canvas(root: str | os.PathLike[str], rel: str) -> Canvas:
    """The board of the canvas ``rel`` of the vault at ``root``; what went wrong in its
    problems (an unreadable file is an empty board with one problem)."""
    text, why = read_canvas_text(root, rel)
    if text is None:
        return Canvas(problems=[CanvasProblem(why, "", "error")])
    return parse_canvas(text)
