"""A drawing read from its file in a vault: ``*.excalidraw`` (JSON) or ``*.excalidraw.md``
(the plugin's Markdown, compressed or not), through :func:`anthology.vault.open_regular`
(never outside the vault, never a FIFO), within a budget, cached by file and budget.

The budget (:class:`Limits`) bounds the work of one load: the bytes read, the characters
the compressed block may decode to, the shapes kept. The inline picture of an entry page
(made while the page renders) has a small one; the drawing tab (off the GUI thread, with
cancellation) a large one. Past a budget the load raises :class:`DrawingError` with a
one-line reason a notice shows, or keeps the first shapes and says so.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from anthology.tasks import TaskState
from anthology.vault.files import open_regular
from anthology.vault.lru import LockedLru

from ..excalidraw_md import drawing_block, embedded_files
from .lzstring import LZStringError, decompress_from_base64
from .scene import MAX_IMAGE_BYTES, Drawing, DrawingError, Picture, scene_from_json


@dataclass(frozen=True)
class Limits:
    """How much work one load may do."""

    max_bytes: int  # of the file
    max_chars: int  # of the JSON (after decompression)
    max_elements: int  # shapes kept


# The drawing tab (a worker thread, cancellable). JSON parsed takes ~8× its size in
# memory: a file of 100,000 elements (75 MB) would hold 600 MB; this one is said instead.
TAB = Limits(max_bytes=32 * 1024 * 1024, max_chars=48 * 1024 * 1024, max_elements=20_000)
# A picture inside a page, made while the page renders (maybe on the GUI thread): a real
# drawing of 2,000 elements is ~1 MB of JSON, 200 KB compressed.
INLINE = Limits(max_bytes=2 * 1024 * 1024, max_chars=4 * 1024 * 1024, max_elements=5_000)

# Finds a vault file a drawing names (the plugin's "[[picture.png]]"), from the drawing's
# folder: its vault-relative path, or None.
FindFile = Callable[[str], str | None]

_WIKI_RE = re.compile(r"^!?\[\[([^\[\]|#]+)(?:[|#][^\[\]]*)?\]\]$")
_cache: LockedLru[Drawing] = LockedLru(16)


def clear_cache() -> None:
    _cache.clear()


def read_scene_text(root: Path, rel: str, limits: Limits) -> tuple[str, str]:
    """The text of the vault file ``rel`` and the drawing JSON in it; :class:`DrawingError`
    when there is none."""
    try:
        fh, st = open_regular(root, rel)
    except OSError as exc:
        raise DrawingError(f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    with fh:
        if st.st_size > limits.max_bytes:
            raise DrawingError(
                f"too large to draw here ({st.st_size / 2**20:.1f} MB; "
                f"{limits.max_bytes / 2**20:.0f} MB at most)"
            )
        data = fh.readall()
    text = data.decode("utf-8", "replace")
    if not rel.lower().endswith(".md"):
        return text, text
    block = drawing_block(text)
    if block is None:
        raise DrawingError("holds no drawing (no “## Drawing” block)")
    _start, _end, lang, payload = block
    if lang == "json":
        return text, payload
    try:
        return text, decompress_from_base64(payload, max_chars=limits.max_chars)
    except LZStringError as exc:
        raise DrawingError(f"its compressed drawing is corrupt ({exc})") from None


def load_drawing(
    root: Path,
    rel: str,
    limits: Limits = TAB,
    *,
    find_file: FindFile | None = None,
    state: TaskState | None = None,
) -> Drawing:
    """The drawing of the vault file ``rel``, cached by (file, size, mtime, budget)."""
    try:
        fh, st = open_regular(root, rel)
        fh.close()
        key = (str(root), rel, st.st_size, st.st_mtime_ns, limits, find_file is not None)
    except OSError as exc:
        raise DrawingError(f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    hit = _cache.peek(key)
    if hit is not None:
        return hit
    return _cache.get_or_make(key, lambda: _load(root, rel, limits, find_file, state))


def _load(
    root: Path, rel: str, limits: Limits, find_file: FindFile | None, state: TaskState | None
) -> Drawing:
    whole, text = read_scene_text(root, rel, limits)
    if state is not None:
        state.check()
    if len(text) > limits.max_chars:
        raise DrawingError(f"too large to draw here ({len(text) / 1e6:.1f} million characters)")
    # the plugin cuts what follows the last "}" (a sync may have glued two versions)
    last = text.rfind("}")
    try:
        scene = json.loads(text[: last + 1] if last >= 0 else text)
    except (ValueError, RecursionError) as exc:
        raise DrawingError(f"its drawing is not valid JSON ({str(exc)[:80]})") from None
    if state is not None:
        state.check()
    drawing = scene_from_json(scene, max_elements=limits.max_elements, state=state)
    if rel.lower().endswith(".md"):
        _vault_pictures(root, rel, whole, drawing, find_file)
    return drawing


def _vault_pictures(
    root: Path, rel: str, text: str, drawing: Drawing, find_file: FindFile | None
) -> None:
    """The pictures the plugin's ``## Embedded Files`` names, read from the vault: never a
    file outside it, never a URL (named instead, not fetched)."""
    used = {s.image for s in drawing.shapes if s.image}
    for file_id, written in embedded_files(text).items():
        if file_id not in used or drawing.images.get(file_id, Picture()).data is not None:
            continue
        drawing.images[file_id] = vault_picture(root, rel, written, find_file)


def vault_picture(root: Path, rel: str, written: str, find_file: FindFile | None) -> Picture:
    """The picture ``written`` (``[[pic.png]]``, a URL…) names, for the drawing ``rel``."""
    shown = written[:80]
    if re.match(r"^[a-zA-Z][\w+.-]*://", written):
        return Picture(refused=f"a web picture, not loaded: {shown}", name=shown)
    m = _WIKI_RE.match(written)
    if m is None:
        return Picture(refused=f"not a picture Anthology draws: {shown}", name=shown)
    target = m.group(1).strip()
    if target.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", target):
        return Picture(refused=f"outside the vault, not read: {target}", name=target)
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(rel), target))
    if joined == ".." or joined.startswith("../"):
        return Picture(refused=f"outside the vault, not read: {target}", name=target)
    found = find_file(target) if find_file is not None else None
    path = found or joined
    try:
        fh, st = open_regular(root, path)
        with fh:
            if st.st_size > MAX_IMAGE_BYTES:
                return Picture(refused=f"picture larger than 20 MB: {target}", name=target)
            return Picture(data=fh.readall(), name=target)
    except OSError:
        return Picture(refused=f"missing picture: {target}", name=target)
