"""TeX → SVG, offline, with ziamath (pure Python; ships the STIX Two Math font).

Also finds math in Markdown: ``$…$`` inline and ``$$…$$`` display, with Pandoc's rule so
prices ("$5 and $10") stay text: an opening ``$`` is followed by a non-space, a closing
``$`` is preceded by a non-space and not followed by a digit; ``\\$`` is a literal dollar.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
import warnings
from dataclasses import dataclass
from functools import lru_cache

# Display math: $$…$$ (may span lines, not empty). Inline: $…$ on one line.
DISPLAY_MATH_RE = re.compile(r"(?<!\\)\$\$(?!\$)(.+?)(?<!\\)\$\$", re.S)
INLINE_MATH_RE = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\\$|[^$\n])+?)(?<![\s\\])\$(?![\d$])")

MAX_TEX_CHARS = 4000
_SIZE_PX = 17.0  # matches a ~12.5pt body font at 96 dpi
# An inline image is padded so that its centre sits LIFT × size above the formula's
# baseline: with `vertical-align: middle` Qt then puts that baseline on the text's (measured).
LIFT = 0.30
_lock = threading.Lock()
_zm = None


def _ziamath():
    global _zm
    if _zm is None:
        import ziamath

        # Qt's SVG renderer draws <symbol>+<use> wrongly; SVG 1.1 paths render everywhere.
        ziamath.config.svg2 = False
        _zm = ziamath
    return _zm


@dataclass(frozen=True)
class MathImage:
    key: str  # resource name, "math:<hash>"
    svg: bytes
    width: float  # px
    height: float  # px


class TexError(ValueError):
    pass


_VIEWBOX_RE = re.compile(r'viewBox="([-\d.e ]+)"')
_SIZE_ATTR_RE = re.compile(r'\s(width|height)="[^"]*"')


@lru_cache(maxsize=2048)
def tex_to_svg(tex: str, *, display: bool = False, color: str = "#000000") -> MathImage:
    """Typeset ``tex``; raises :class:`TexError` (only) when it cannot be typeset.

    Inline formulas are padded vertically so that the image's centre sits a little above
    the formula's baseline: with ``vertical-align: middle`` Qt then lines the formula's
    baseline up with the text's.
    """
    tex = tex.strip()
    if not tex:
        raise TexError("empty formula")
    if len(tex) > MAX_TEX_CHARS:
        raise TexError(f"formula longer than {MAX_TEX_CHARS} characters")
    size = _SIZE_PX * (1.12 if display else 1.0)
    try:
        with _lock, warnings.catch_warnings():  # ziamath keeps global state (config, fonts)
            # ziamath finds its font with a deprecated importlib.resources call
            warnings.simplefilter("ignore", DeprecationWarning)
            svg = _ziamath().Latex(tex, size=size, color=color, inline=not display).svg()
    except RecursionError as exc:
        raise TexError("formula nested too deeply") from exc
    except Exception as exc:  # ziamath/latex2mathml raise anything from KeyError to AssertionError
        msg = str(exc).strip() or type(exc).__name__
        raise TexError(msg.splitlines()[0][:200]) from exc
    m = _VIEWBOX_RE.search(svg)
    if not m:
        raise TexError("typesetter returned no picture")
    x, y, w, h = (float(v) for v in m.group(1).split())
    ascent, descent = -y, h + y  # the baseline is y = 0
    if not display:
        lift = size * LIFT  # where Qt puts an image's centre, above the baseline
        if ascent - descent > 2 * lift:
            descent = ascent - 2 * lift
        else:
            ascent = descent + 2 * lift
        y, h = -ascent, ascent + descent
    head_end = svg.index(">")
    head = _SIZE_ATTR_RE.sub("", svg[:head_end])
    head = _VIEWBOX_RE.sub(f'viewBox="{x:.3f} {y:.3f} {w:.3f} {h:.3f}"', head)
    head += f' width="{w:.3f}" height="{h:.3f}"'
    svg = head + svg[head_end:]
    digest = hashlib.sha1(f"{display}|{color}|{tex}".encode()).hexdigest()[:16]
    return MathImage(f"math:{digest}", svg.encode(), w, h)


def warm_up() -> None:
    """Import the typesetter and load its font (≈0.3 s), e.g. in a thread at start-up."""
    with contextlib.suppress(TexError):
        tex_to_svg("x", color="#000000")


def cache_clear() -> None:
    tex_to_svg.cache_clear()
