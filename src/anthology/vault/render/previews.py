"""The hover card of an ``entry:`` link, and a body as a short plain-text excerpt."""

from __future__ import annotations

import re
from html import escape

from ..model import Entry
from .entry import minutes_to_read
from .safe_text import html_text
from .theme import palette

_STRIP_RES = [
    (re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M), " "),
    (re.compile(r"\$\$.+?\$\$", re.S), " [formula] "),
    (re.compile(r"!\[\[[^\]]*\]\]"), ""),
    (re.compile(r"\[\[([^\]|#]*)(?:#[^\]|]*)?\|([^\]]*)\]\]"), r"\2"),
    (re.compile(r"\[\[([^\]|#]*)(?:#([^\]|]*))?\]\]"), r"\1"),
    (re.compile(r"!\[[^\]]*\]\([^)]*\)"), ""),
    (re.compile(r"\[([^\]]*)\]\([^)]*\)"), r"\1"),
    (re.compile(r"<[^>]+>"), ""),
    (re.compile(r"%%.*?%%", re.S), ""),
    (
        re.compile(r"^\s*(#{1,6}|>\s*\[![^\]]*\][+-]?|>|[-*+]\s+\[[ xX]\]|[-*+]|\d+[.)])\s*", re.M),
        "",
    ),
    (re.compile(r"[*_`~=]{1,3}"), ""),
]


def plain_excerpt(body: str, limit: int = 320) -> str:
    text = body[: limit * 8]
    for rx, repl in _STRIP_RES:
        text = rx.sub(repl, text)
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def preview_html(entry: Entry, *, theme: str = "light") -> str:
    """A hover card for an ``entry:`` link: title, kind/status, the first lines of the body."""
    pal = palette(theme)
    label = html_text(
        entry.id if entry.title in ("", entry.id) else f"{entry.id} — {entry.title}", limit=300
    )
    facts = [f for f in (entry.kind, entry.status.capitalize() if entry.status else "") if f]
    facts.append(f"{minutes_to_read(entry)} min read")
    excerpt = plain_excerpt(entry.body or "")
    return (
        f'<div style="max-width: 420px;"><p style="margin: 0;"><b>{label}</b></p>'
        f'<p style="color: {pal.muted}; margin: 2px 0 6px 0;">{escape(" · ".join(facts))}</p>'
        f'<p style="margin: 0;">{escape(excerpt) if excerpt else "<i>(empty)</i>"}</p></div>'
    )
