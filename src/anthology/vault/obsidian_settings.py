"""The settings of Obsidian's own that change how a vault's notes read, from the vault's
``.obsidian/app.json`` (read, never written; a missing or broken file means Obsidian's
defaults, as Obsidian itself falls back to them).

Only what a reader must honour to show a note as its owner sees it is taken: today
``strictLineBreaks`` (Settings › Editor › *Strict line breaks*, off by default: a single
line break in a paragraph is shown as a line break; on: as CommonMark, a space).
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

MAX_BYTES = 1_000_000  # app.json is a few hundred bytes; past this it is not one


@dataclass(frozen=True)
class ObsidianSettings:
    strict_line_breaks: bool = False  # Obsidian's default


DEFAULTS = ObsidianSettings()
_cache: dict[str, tuple[tuple[int, int] | None, ObsidianSettings]] = {}
_lock = threading.Lock()


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_mtime_ns, st.st_size


def settings_of(root: Path | None) -> ObsidianSettings:
    """The settings of the vault at ``root`` (its defaults when it has none); re-read when
    ``app.json`` changes, so a setting changed in Obsidian shows at the next render."""
    if root is None:
        return DEFAULTS
    path = Path(root) / ".obsidian" / "app.json"
    stamp = _stamp(path)
    key = str(path)
    with _lock:
        hit = _cache.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    found = DEFAULTS if stamp is None else _read(path)
    with _lock:
        _cache[key] = (stamp, found)
    return found


def _read(path: Path) -> ObsidianSettings:
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return DEFAULTS
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError):
        return DEFAULTS
    if not isinstance(data, dict):
        return DEFAULTS
    strict = data.get("strictLineBreaks", DEFAULTS.strict_line_breaks)
    return ObsidianSettings(strict_line_breaks=strict is True)
