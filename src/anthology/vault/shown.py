"""A vault's strings (titles, ids, paths, relation names) shown as one line of plain text,
outside the rendered page: the one place bidirectional controls are dealt with.

An RTL override in a title reverses what follows it on the line: "\\u202egnp.exe" reads
"exe.png" in a graph label or a window title. Qt's labels, tabs, lists, the graph and the
window title get :func:`plain_text` (the controls removed); a terminal gets
:func:`one_line` (they, and every control character, written as escapes, so a listing
shows that they are there). Pure Python and light to import: the CLI uses it before
anything else of the core is loaded.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["BIDI_CONTROLS", "one_line", "plain_text"]

# Bidirectional embeddings, overrides and isolates (LRE…RLO, LRI…PDI) and the invisible
# direction marks (LRM, RLM, ALM): each reorders or redirects what follows on the line.
BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)
_BIDI_RE = re.compile("[" + "".join(sorted(BIDI_CONTROLS)) + "]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def plain_text(text: object, limit: int | None = None) -> str:
    """``text`` as a one-string label: bidi controls removed, cut to ``limit`` characters
    (the last one an ellipsis)."""
    s = str(text)
    if not s.isascii():  # ASCII has none (and a graph asks for 100,000 labels at once)
        s = _BIDI_RE.sub("", s)
    if limit is not None and len(s) > limit:
        s = s[: max(1, limit - 1)] + "…"
    return s


def one_line(text: str) -> str:
    """``text`` safe for one line of a terminal: control characters (a newline in a file
    name, an ESC starting a terminal sequence, C1 controls), line and paragraph separators
    and bidi controls are written as escapes (``\\n``, ``\\t``, ``\\x1b``, ``\\u202e``).
    Backslashes are left as they are: a file name rarely has one."""
    if text.isprintable():  # bidi controls are not (Unicode's Cf)
        return text
    out = []
    for c in text:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif unicodedata.category(c) in ("Cc", "Zl", "Zp", "Cs") or c in BIDI_CONTROLS:
            out.append(f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return "".join(out)
