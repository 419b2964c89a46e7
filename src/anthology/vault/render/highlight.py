"""Syntax colouring with pygments, as inline styles (Qt ignores most class-based CSS)."""

from __future__ import annotations

from functools import lru_cache
from html import escape

MAX_HIGHLIGHT_CHARS = 100_000
# What a first code block would otherwise pay for on a click (~30-80 ms): pygments itself,
# the Python lexer's compiled rules (the language most vaults fence most) and a formatter.
WARM_UP_LANGS = ("python",)


@lru_cache(maxsize=8)
def _formatter(style: str):
    from pygments.formatters import HtmlFormatter

    try:
        return HtmlFormatter(style=style, noclasses=True, nowrap=True)
    except Exception:  # an unknown style name
        return HtmlFormatter(style="default", noclasses=True, nowrap=True)


@lru_cache(maxsize=512)
def highlight_code(code: str, lang: str, style: str) -> str:
    """HTML for the inside of a ``<pre>``: coloured spans, or just escaped text."""
    if not lang or len(code) > MAX_HIGHLIGHT_CHARS:
        return escape(code, quote=False)
    from pygments import highlight
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return escape(code, quote=False)
    html = highlight(code, lexer, _formatter(style))
    # Qt's <pre> keeps spans' background colours as blocks of colour: drop them.
    return html.replace("background-color: #f0f0f0", "").rstrip("\n")


def warm_up(styles: tuple[str, ...] = ("default",)) -> None:
    """Load pygments, the :data:`WARM_UP_LANGS` lexers and the formatters of ``styles``
    (e.g. in a thread once the window is up), so the first code block opens quickly."""
    for style in styles:
        for lang in WARM_UP_LANGS:
            highlight_code("pass\n", lang, style)
