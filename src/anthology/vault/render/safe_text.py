"""One rule for vault strings shown by Qt: escape them, never trust them as markup.

Qt treats any label or tooltip text that *looks like* HTML (``Qt::mightBeRichText``) as rich
text, so a title of ``<img src='/abs/x.png'>`` would load that file and 3,000 nested
``<table>`` would crash the layout. Every string that comes from a vault (ids, titles, keys,
values, paths) goes through :func:`html_text` before it is put inside HTML, and through
:func:`tooltip_html` when it becomes a tooltip on its own. Pure Python: no Qt here.
"""

from __future__ import annotations

import re
from html import escape

# Bidirectional controls (LRE…RLO, LRI…PDI) and a few invisible formatting marks: an RTL
# override in a title would reverse the rest of a window title or a tooltip.
_BIDI_RE = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
MAX_SHOWN_CHARS = 2000  # a 100,000-character title is shown cut, with an ellipsis


def plain_text(text: object, limit: int | None = None) -> str:
    """``text`` as a one-string label: bidi controls removed, cut to ``limit`` characters."""
    s = _BIDI_RE.sub("", str(text))
    if limit is not None and len(s) > limit:
        s = s[: max(1, limit - 1)] + "…"
    return s


def html_text(text: object, limit: int | None = None) -> str:
    """``text`` escaped for inclusion in Qt rich text (``<``, ``>``, ``&``, quotes)."""
    return escape(plain_text(text, limit), quote=True)


def tooltip_html(text: object, limit: int = MAX_SHOWN_CHARS) -> str:
    """A tooltip Qt cannot misread: escaped text in a known-safe wrapper.

    The ``<qt>`` wrapper makes Qt take it as rich text always, so the escaped ``&lt;`` shows
    as ``<`` (plain text would be shown as the entity) and nothing in it is markup. Newlines
    become line breaks.
    """
    lines = [html_text(line) for line in plain_text(text, limit).split("\n")]
    return "<qt>" + "<br/>".join(lines) + "</qt>"
