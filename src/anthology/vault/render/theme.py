"""The entry page's colours (from :mod:`anthology.palette`) and its callout types.

Qt's rich-text engine ignores most class-based CSS on tables and cells, so boxes that must
look right (properties, callouts, code, embeds) take their colours from the palette as inline
attributes; ``resources/entry.css`` styles the typography with the same values filled in.
"""

from __future__ import annotations

from anthology.palette import EntryColours, theme

CALLOUT_ALIASES = {
    "summary": "abstract",
    "tldr": "abstract",
    "hint": "tip",
    "important": "tip",
    "check": "success",
    "done": "success",
    "help": "question",
    "faq": "question",
    "caution": "warning",
    "attention": "warning",
    "fail": "failure",
    "missing": "failure",
    "error": "danger",
    "cite": "quote",
}

CALLOUT_ICONS = {
    "note": "✎",
    "info": "ℹ",
    "abstract": "☰",
    "todo": "☑",
    "tip": "✦",
    "success": "✔",
    "question": "?",
    "warning": "⚠",
    "failure": "✘",
    "danger": "⚡",
    "bug": "✱",
    "example": "▤",
    "quote": "❝",
}


def palette(name: str) -> EntryColours:
    """The entry page's colours of the theme ``name``."""
    return theme(name).entry


def callout_style(palette_: EntryColours, kind: str) -> tuple[str, str, str, str]:
    """(canonical kind, accent colour, background colour, icon) of a callout type."""
    kind = CALLOUT_ALIASES.get(kind.lower(), kind.lower())
    accent, bg = palette_.callouts.get(kind, palette_.callouts["note"])
    return kind, accent, bg, CALLOUT_ICONS.get(kind, CALLOUT_ICONS["note"])
