"""Which attachments the system may open on one click (pure Python, no Qt).

A click on an attachment link hands the file to the desktop, which *runs* programs and
scripts. Link text can lie (``[Read the paper (PDF)](paper.sh)``, ``[[setup.exe|Slides]]``),
so the decision looks only at the real file name:

* ``"open"``: documents and media on the allow-list below open directly;
* ``"ask"``: everything else — executables, scripts, HTML (a local page can load remote
  content), SVG (it can hold script), office files (macros), unknown or missing
  extensions — first asks, naming the real vault-relative path, and offers only
  "Show in folder" or Cancel, never "run".
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Literal

OpenPolicy = Literal["open", "ask"]

# Formats the system viewer shows without running anything the file holds.
SAFE_TO_OPEN = frozenset(
    {
        "pdf",
        "png",
        "jpg",
        "jpeg",
        "gif",
        "webp",
        "bmp",
        "mp3",
        "wav",
        "ogg",
        "oga",
        "flac",
        "m4a",
        "mp4",
        "webm",
        "mov",
        "mkv",  # the rest of the audio and video an embed draws as a card (vault/media.py)
        "ogv",
        "3gp",
        "m4v",
        "opus",
        "txt",
        "csv",
        "epub",
    }
)


def extension(path: str | PurePath) -> str:
    """The last extension of the real file name, lower-case, without the dot ('' if none)."""
    name = PurePath(str(path).replace("\\", "/")).name.rstrip(". ")  # "x.exe." is an .exe
    return name.rsplit(".", 1)[1].lower() if "." in name.lstrip(".") else ""


def open_policy(path: str | PurePath) -> OpenPolicy:
    """``"open"`` when the file may open with the system on a click, else ``"ask"``."""
    return "open" if extension(path) in SAFE_TO_OPEN else "ask"


def describe(path: str | PurePath) -> str:
    """A short type name for the question: "a .sh file", "a file without an extension"."""
    ext = extension(path)
    return f"a .{ext} file" if ext else "a file without an extension"
