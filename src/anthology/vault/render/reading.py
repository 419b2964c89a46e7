"""The reader's settings as they change a rendered page: body font size and family.

The renderer writes its stylesheet (``resources/entry.css``) at the default size, 12 pt, in
a sans family; :func:`restyle` swaps that stylesheet in a rendered page for one scaled to
the reader's size (every ``pt`` of it, headings and code included, keeps its proportion)
and in the reader's family. Qt-free: the pane, print and the HTML export all use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .entry import stylesheet

BASE_SIZE = 12.0  # pt: what entry.css is written for
MIN_SIZE, MAX_SIZE = 8.0, 32.0
# Only fonts a machine already has (nothing is fetched): the first one installed is used.
SANS = '"Inter", "Segoe UI", "Noto Sans", "Helvetica Neue", "Arial", "DejaVu Sans", sans-serif'
SERIF = (
    '"Charter", "Georgia", "Noto Serif", "DejaVu Serif", "Liberation Serif", '
    '"Times New Roman", serif'
)
_PT_RE = re.compile(r"(\d+(?:\.\d+)?)pt")
_BODY_FAMILY_RE = re.compile(r"(body \{\s*font-family: )[^;]*;")


@dataclass(frozen=True)
class ReadingStyle:
    """How the body text is set: size in points and serif or sans."""

    font_size: float = BASE_SIZE
    serif: bool = False

    def clamped(self) -> ReadingStyle:
        return ReadingStyle(min(MAX_SIZE, max(MIN_SIZE, float(self.font_size))), self.serif)


def styled_stylesheet(theme: str, style: ReadingStyle) -> str:
    """``stylesheet(theme)`` at ``style``'s size and family."""
    css = stylesheet(theme)
    style = style.clamped()
    scale = style.font_size / BASE_SIZE
    if scale != 1.0:
        css = _PT_RE.sub(lambda m: f"{float(m.group(1)) * scale:.4g}pt", css)
    if style.serif:
        css = _BODY_FAMILY_RE.sub(lambda m: m.group(1) + SERIF + ";", css, count=1)
    return css


# a typeset formula's size, as the renderer writes it (blocks.math_html)
_MATH_SIZE_RE = re.compile(r'(<img src="math:[^"]{0,4000}" width=")(\d+)(" height=")(\d+)"')


def restyle(html: str, theme: str, style: ReadingStyle) -> str:
    """A page from the renderer with its stylesheet set to ``style``, and its formulas
    drawn at the same scale as the text (they stayed at the default size while the text
    grew); unchanged at the defaults, or when the page carries no stylesheet of ours."""
    style = style.clamped()
    if style == ReadingStyle():
        return html
    css = stylesheet(theme)
    if not css or css not in html:
        return html
    html = html.replace(css, styled_stylesheet(theme, style), 1)
    scale = style.font_size / BASE_SIZE
    if scale != 1.0 and 'src="math:' in html:
        html = _MATH_SIZE_RE.sub(
            lambda m: (
                f"{m.group(1)}{round(int(m.group(2)) * scale)}{m.group(3)}"
                f'{round(int(m.group(4)) * scale)}"'
            ),
            html,
        )
    return html
