"""One rule for vault strings shown by Qt: escape them, never trust them as markup.

Qt treats any label or tooltip text that *looks like* HTML (``Qt::mightBeRichText``) as rich
text, so a title of ``<img src='/abs/x.png'>`` would load that file and 3,000 nested
``<table>`` would crash the layout. Every string that comes from a vault (ids, titles, keys,
values, paths) goes through :func:`html_text` before it is put inside HTML, and through
:func:`tooltip_html` when it becomes a tooltip on its own; as plain text, through
:func:`plain_text` (:mod:`anthology.vault.shown`: bidi controls removed). Pure Python: no
Qt here.
"""

from __future__ import annotations

from html import escape

from ..shown import plain_text

__all__ = ["MAX_SHOWN_CHARS", "html_text", "plain_text", "tooltip_html"]

MAX_SHOWN_CHARS = 2000  # a 100,000-character title is shown cut, with an ellipsis


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
