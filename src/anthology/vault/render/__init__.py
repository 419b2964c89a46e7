"""Entries as HTML for Qt's QTextBrowser. Pure Python: never imports Qt.

``render_entry(entry, resolver, theme=…)`` gives a :class:`RenderedEntry` (a complete
document plus the images it names); ``preview_html(entry)`` the hover card of a link.
"""

from __future__ import annotations

from .entry import (
    MAX_BODY_CHARS,
    RenderedEntry,
    clear_render_cache,
    find_heading,
    humanise,
    plain_excerpt,
    preview_html,
    render_entry,
)
from .markdown_ext import MAX_EMBED_DEPTH
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
