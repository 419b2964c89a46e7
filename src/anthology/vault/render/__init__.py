"""Entries as HTML for Qt's QTextBrowser. Pure Python: never imports Qt.

``render_entry(entry, resolver, theme=…)`` gives a :class:`RenderedEntry` (a complete
document plus the images it names); ``preview_html(entry)`` the hover card of a link.
"""

from __future__ import annotations

from .context import MAX_EMBED_DEPTH
from .entry import (
    MAX_BODY_CHARS,
    RenderedEntry,
    clear_render_cache,
    find_heading,
    render_entry,
)
from .previews import plain_excerpt, preview_html
from .properties import humanise
from .sanitize import sanitise_html

__all__ = [
    "MAX_BODY_CHARS",
    "MAX_EMBED_DEPTH",
    "RenderedEntry",
    "clear_render_cache",
    "find_heading",
    "humanise",
    "plain_excerpt",
    "preview_html",
    "render_entry",
    "sanitise_html",
]
