"""One line of Markdown as safe inline HTML: a backlink's context, a search snippet.

What a reader sees in a backlinks row or a search result is the line as it reads, not as it
is written: ``[[LIT-008|the paper]]`` is *the paper* in the link colour, ``**bold**`` bold,
```code``` code, ``$d_k$`` typeset (or its TeX, clean, when typesetting is off or fails);
never a raw ``[[``, ``**`` or ``$…$``. Lines are cut at word boundaries around the link
(or the search match) with an ellipsis where text was left out.

Everything from the vault is escaped: the HTML made here holds only the tags written here
(``b i s code span img``), so Qt's rich-text reader cannot be made to load anything.
Hostile input (unclosed ``**`` or ``$``, a megabyte line, thousands of backticks) costs
time linear in the part shown: the raw line is first cut to a window around the focus.
Pure Python: no Qt here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape, unescape

from anthology.palette import EntryColours

from ..model import MATCH_END, MATCH_START
from . import mathtex
from .safe_text import plain_text
from .theme import palette

LIMIT = 160  # characters shown of a line, about two rows of a side panel
RAW_WINDOW = 6  # the raw line is first cut to LIMIT × this around the focus
MAX_FORMULAS = 8  # formulas typeset per line; the rest are shown as TeX
ELLIPSIS = "…"

_BLOCK_PREFIX_RE = re.compile(
    r"^\s*(?:#{1,6}\s+|>\s*(?:\[![^\]\n]*\][+-]?\s*)?|[-*+]\s+(?:\[[ xX/-]\]\s+)?|\d{1,9}[.)]\s+)"
)
_BLOCK_ID_RE = re.compile(r"\s\^[A-Za-z0-9-]+\s*$")
_TOKEN_RE = re.compile(
    r"(?P<esc>\\[!-/:-@\[-`{-~])"
    r"|(?P<code>(?P<ticks>`{1,3})(?P<codebody>[^`\n]+?)(?P=ticks))"
    r"|(?P<dmath>(?<!\\)\$\$(?!\$)(?P<dtex>[^$\n]+?)(?<!\\)\$\$)"
    r"|(?P<imath>(?<![\\$])\$(?![\s$])(?P<itex>(?:\\\$|[^$\n]){1,2000}?)(?<![\s\\])\$(?![\d$]))"
    r"|(?P<wiki>!?\[\[(?P<wbody>[^\]\n]{0,1000})\]\])"
    r"|(?P<brackets>!?\[\[|\]\])"  # half a wikilink (a cut line): not shown
    # a linked picture (a README's badge): its alt text, as a link
    r"|(?P<imglink>\[!\[(?P<ialt>[^\]\n]{0,1000})\]\([^)\n]{0,2000}\)\]\([^)\n]{0,2000}\))"
    r"|(?P<img>!\[(?P<alt>[^\]\n]{0,1000})\]\([^)\n]{0,2000}\))"
    r"|(?P<md>\[(?P<mdtext>[^\]\n]{1,1000})\]\([^)\n]{0,2000}\))"
    r"|(?P<fn>\[\^[^\]\n]{0,200}\])"
    r"|(?P<comment>%%.*?(?:%%|$))"
    r"|(?P<tag></?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]{0,500})?/?>)"
    r"|(?P<delim>\*\*|__|~~|==|\*|_)"
    r"|(?P<mark>[\x02\x03])"
)
# strong, emphasis, strike, highlight
_PAIRED = {"**": "b", "__": "b", "*": "i", "_": "i", "~~": "s", "==": "mark"}
_DROPPED_UNPAIRED = {"**", "__"}  # shown literally they are only noise


@dataclass
class InlineHtml:
    """A line as HTML (``html``), as plain text (``text``), and the typeset formulas its
    ``<img src="math:…">`` name (resource key → SVG bytes)."""

    html: str
    text: str
    resources: dict[str, bytes] = field(default_factory=dict)


@dataclass
class _Atom:
    kind: str  # text, link, code, math, open, close, mark_on, mark_off
    text: str = ""  # what a reader sees
    tag: str = ""  # for open/close: the HTML tag
    target: str = ""  # for a link: its target as written (for the focus)

    @property
    def size(self) -> int:
        return len(self.text) if self.kind in ("text", "link", "code", "math") else 0


def _wiki_text(body: str) -> tuple[str, str]:
    """(what a reader sees, the target) of the inside of ``[[…]]``."""
    body = body.replace("\\|", "|")
    target, bar, alias = body.partition("|")
    if bar and alias.strip():
        shown = alias.strip()
    else:
        name, _hash, heading = target.partition("#")
        name = name.strip()
        if name.lower().endswith(".md"):
            name = name[:-3]
        heading = heading.strip()
        if heading.startswith("^"):  # a block link reads as its entry
            heading = ""
        shown = f"{name} › {heading}" if name and heading else (name or heading)
    return shown, target.partition("#")[0].strip()


def _tokens(line: str) -> list[_Atom]:
    """The line as atoms; emphasis delimiters come as ``delim`` atoms to pair."""
    atoms: list[_Atom] = []
    pos = 0

    def text(s: str) -> None:
        if s:
            s = unescape(s)
            if atoms and atoms[-1].kind == "text":
                atoms[-1].text += s
            else:
                atoms.append(_Atom("text", s))

    for m in _TOKEN_RE.finditer(line):
        text(line[pos : m.start()])
        pos = m.end()
        kind = m.lastgroup
        if kind == "esc":
            text(m.group()[1])
        elif kind == "code":
            atoms.append(_Atom("code", m.group("codebody").strip() or m.group("codebody")))
        elif kind == "dmath":
            atoms.append(_Atom("math", m.group("dtex").strip()))
        elif kind == "imath":
            atoms.append(_Atom("math", m.group("itex").replace("\\$", "$").strip()))
        elif kind == "wiki":
            shown, target = _wiki_text(m.group("wbody"))
            if shown:
                atoms.append(_Atom("link", shown, target=target))
        elif kind == "imglink":
            shown = _plain(m.group("ialt").partition("|")[0].strip())
            if shown.strip(MATCH_START + MATCH_END):
                atoms.append(_Atom("link", shown, target=shown))
        elif kind == "img":
            alt = m.group("alt").partition("|")[0].strip()
            if alt:
                atoms.append(_Atom("text", alt))
        elif kind == "md":
            shown = _plain(m.group("mdtext"))
            atoms.append(_Atom("link", shown, target=shown))
        elif kind in ("fn", "comment", "tag", "brackets"):
            continue
        elif kind == "delim":
            d = m.group()
            before = line[m.start() - 1] if m.start() else " "
            after = line[m.end()] if m.end() < len(line) else " "
            if d in ("_", "__") and before.isalnum() and after.isalnum():
                text(d)  # snake_case, not emphasis
                continue
            can = "open" * (not after.isspace()) + "close" * (not before.isspace())
            atoms.append(_Atom("delim", d, tag=can))
        elif kind == "mark":
            atoms.append(_Atom("mark_on" if m.group() == MATCH_START else "mark_off"))
    text(line[pos:])
    return atoms


def _unmarked(text: str) -> str:
    return text.replace(MATCH_START, "").replace(MATCH_END, "")


def _marked(text: str, pal: EntryColours) -> str:
    """Text inside a code span or a link as HTML, a search match in it marked as in the
    rest of the line (the markers were drawn as boxes there: "infranodus-▯graph▯-view");
    markers that do not pair up inside it are dropped."""
    html = escape(text, quote=False)
    if MATCH_START not in html and MATCH_END not in html:
        return html
    if html.count(MATCH_START) != html.count(MATCH_END):
        return _unmarked(html)
    return html.replace(MATCH_START, f'<b style="background-color: {pal.highlight_bg};">').replace(
        MATCH_END, "</b>"
    )


def _plain(markdown: str) -> str:
    """A link's own text with its markup taken off (``[**x**](…)`` reads "x")."""
    return "".join(
        MATCH_START if a.kind == "mark_on" else MATCH_END if a.kind == "mark_off" else a.text
        for a in _pair(_tokens(markdown))
        if a.kind in ("text", "link", "code", "math", "mark_on", "mark_off")
    )


def _pair(atoms: list[_Atom]) -> list[_Atom]:
    """Delimiters paired into properly nested open/close atoms; the unpaired ones are
    dropped (``**``, ``__``) or kept as text (``*``, ``_``, ``~~``, ``==``)."""
    stack: list[int] = []  # indexes of delimiters that may open
    paired: dict[int, int] = {}
    for i, a in enumerate(atoms):
        if a.kind != "delim":
            continue
        opener = next((k for k in range(len(stack) - 1, -1, -1)
                       if atoms[stack[k]].text == a.text), None)  # fmt: skip
        if "close" in a.tag and opener is not None:
            paired[stack[opener]] = i
            paired[i] = -1
            del stack[opener:]  # what opened inside and never closed stays unpaired
        elif "open" in a.tag:
            stack.append(i)
    out: list[_Atom] = []
    for i, a in enumerate(atoms):
        if a.kind != "delim":
            out.append(a)
        elif i in paired:
            tag = _PAIRED[a.text]
            out.append(_Atom("open" if paired[i] >= 0 else "close", tag=tag))
        elif a.text not in _DROPPED_UNPAIRED:
            if out and out[-1].kind == "text":
                out[-1].text += a.text
            else:
                out.append(_Atom("text", a.text))
    return out


def _focus_at(line: str, focus_link: str | None) -> int:
    """Where in the raw line the focus is: the link to ``focus_link``, else the first search
    match, else the start."""
    if focus_link:
        low = line.lower()
        for needle in (f"[[{focus_link.lower()}", f"({focus_link.lower()}", focus_link.lower()):
            at = low.find(needle)
            if at >= 0:
                return at
    at = line.find(MATCH_START)
    return max(at, 0)


def _raw_window(line: str, focus: int, limit: int) -> tuple[str, bool, bool]:
    """The raw line cut to a window around ``focus`` wide enough for ``limit`` shown
    characters (markup takes room), at spaces; and whether each side was cut."""
    width = limit * RAW_WINDOW
    if len(line) <= width:
        return line, False, False
    lo = max(0, focus - width // 3)
    hi = min(len(line), lo + width)
    lo = max(0, hi - width)
    if lo:
        space = line.find(" ", lo, lo + limit)
        lo = space + 1 if space >= 0 else lo
    if hi < len(line):
        space = line.rfind(" ", hi - limit, hi)
        hi = space if space > lo else hi
    return line[lo:hi], lo > 0, hi < len(line)


def _focus_atom(atoms: list[_Atom], focus_link: str | None) -> int:
    if focus_link:
        want = focus_link.strip().lower()
        for i, a in enumerate(atoms):
            if a.kind == "link" and want in (a.target.lower(), a.text.lower()):
                return i
        for i, a in enumerate(atoms):
            if a.kind == "link":
                return i
    for i, a in enumerate(atoms):
        if a.kind == "mark_on":
            return i
    return 0


def _word_head(s: str, n: int) -> str:
    """The first ``n`` characters of ``s``, ending at a word's end when there is one."""
    if len(s) <= n:
        return s
    cut = s.rfind(" ", 0, n + 1)
    return s[:cut] if cut > n // 3 else s[:n]


def _word_tail(s: str, n: int) -> str:
    if len(s) <= n:
        return s
    start = len(s) - n
    cut = s.find(" ", start - 1)
    return s[cut + 1 :] if 0 <= cut < start + (2 * n) // 3 else s[start:]


def _cut(atoms: list[_Atom], focus: int, limit: int) -> tuple[list[_Atom], list[_Atom], bool, bool]:
    """The atoms within ``limit`` shown characters around atom ``focus``: the focus whole
    (cut itself if longer), about a third of the room before it, the rest after; text at
    either edge cut at a word boundary. Also the atoms left out before (for :func:`_balance`)."""
    total = sum(a.size for a in atoms)
    if total <= limit or not atoms:
        return atoms, [], False, False
    focus = min(focus, len(atoms) - 1)
    f = atoms[focus]
    if f.size > limit:
        f = _Atom(f.kind, _word_head(f.text, limit - 1), f.tag, f.target)
    room = limit - f.size
    before_room = min(room // 3, sum(a.size for a in atoms[:focus]))
    after_room = room - before_room
    lo, left_cut = focus, False
    while lo > 0:
        a = atoms[lo - 1]
        if a.size <= before_room:
            before_room -= a.size
            lo -= 1
            continue
        left_cut = True
        if a.kind == "text" and before_room > 8:
            atoms = [*atoms[: lo - 1], _Atom("text", _word_tail(a.text, before_room)),
                     *atoms[lo:]]  # fmt: skip
            lo -= 1
        break
    out = [*atoms[lo:focus], f]
    hi, right_cut = focus + 1, False
    while hi < len(atoms):
        a = atoms[hi]
        if a.size <= after_room:
            after_room -= a.size
            out.append(a)
            hi += 1
            continue
        right_cut = True
        if a.kind == "text" and after_room > 8:
            out.append(_Atom("text", _word_head(a.text, after_room)))
        break
    return out, atoms[:lo], left_cut, right_cut


def _balance(atoms: list[_Atom], skipped: list[_Atom]) -> list[_Atom]:
    """Re-open the emphasis open before the cut (``skipped`` precede ``atoms``) and close
    what is still open at the end: the HTML stays properly nested."""
    open_tags: list[str] = []
    for a in skipped:
        if a.kind == "open":
            open_tags.append(a.tag)
        elif a.kind == "close" and a.tag in open_tags:
            open_tags.reverse()
            open_tags.remove(a.tag)
            open_tags.reverse()
    out = [_Atom("open", tag=t) for t in open_tags]
    depth = list(open_tags)
    for a in atoms:
        if a.kind == "open":
            depth.append(a.tag)
        elif a.kind == "close":
            if not depth or depth[-1] != a.tag:
                continue
            depth.pop()
        out.append(a)
    out += [_Atom("close", tag=t) for t in reversed(depth)]
    return out


def inline_html(
    line: str,
    *,
    focus_link: str | None = None,
    limit: int = LIMIT,
    theme: str = "light",
    colours: EntryColours | None = None,
    typeset: bool = False,
    math_colour: str | None = None,
    math_scale: float = 1.0,
) -> InlineHtml:
    """``line`` (one line of Markdown; search snippets' match markers allowed) as inline
    HTML, cut to about ``limit`` characters around the link to ``focus_link`` (or the first
    match). ``typeset``: formulas become ``<img src="math:…">`` with their SVG in
    ``resources`` (drawn ``math_scale`` times their size: a side panel's font is smaller
    than the page's); otherwise (or when one cannot be typeset) their TeX in italics."""
    pal = colours or palette(theme)
    line = plain_text(" ".join(str(line).split()))
    line, raw_left, raw_right = _raw_window(line, _focus_at(line, focus_link), limit)
    m = _BLOCK_PREFIX_RE.match(line)
    if m and not raw_left:
        line = line[m.end() :]
    if not raw_right:
        line = _BLOCK_ID_RE.sub("", line)
    atoms = _pair(_tokens(line))
    focus = _focus_atom(atoms, focus_link)
    kept, skipped, left_cut, right_cut = _cut(atoms, focus, limit)
    kept = _balance(kept, skipped)
    html: list[str] = []
    text: list[str] = []
    resources: dict[str, bytes] = {}
    formulas = 0
    starts_cut = bool(kept) and kept[0].kind == "text" and kept[0].text.startswith(ELLIPSIS)
    if (raw_left or left_cut) and not starts_cut:
        html.append(ELLIPSIS)
        text.append(ELLIPSIS)
    colour = math_colour or pal.text
    mark_open = False
    for a in kept:
        if a.kind == "text":
            html.append(escape(a.text, quote=False))
            text.append(a.text)
        elif a.kind == "link":
            html.append(f'<span style="color: {pal.link};">{_marked(a.text, pal)}</span>')
            text.append(_unmarked(a.text))
        elif a.kind == "code":
            html.append(
                f'<code style="background-color: {pal.inline_code_bg};">'
                f"{_marked(a.text, pal)}</code>"
            )
            text.append(_unmarked(a.text))
        elif a.kind == "math":
            text.append(a.text)
            image = None
            if typeset and formulas < MAX_FORMULAS:
                try:
                    image = mathtex.tex_to_svg(a.text, color=colour)
                    formulas += 1
                except mathtex.TexError:
                    image = None
            if image is not None:
                resources[image.key] = image.svg
                html.append(
                    f'<img src="{image.key}" width="{image.width * math_scale:.0f}" '
                    f'height="{image.height * math_scale:.0f}" style="vertical-align: middle;" '
                    f'alt="{escape(a.text)}" />'
                )
            else:
                html.append(
                    f'<i style="font-family: serif; color: {pal.math};">'
                    f"{escape(a.text, quote=False)}</i>"
                )
        elif a.kind == "open":
            if a.tag == "mark":
                html.append(f'<span style="background-color: {pal.highlight_bg};">')
            else:
                html.append(f"<{a.tag}>")
        elif a.kind == "close":
            html.append("</span>" if a.tag == "mark" else f"</{a.tag}>")
        elif a.kind == "mark_on" and not mark_open:
            mark_open = True
            html.append(f'<b style="background-color: {pal.highlight_bg};">')
        elif a.kind == "mark_off" and mark_open:
            mark_open = False
            html.append("</b>")
    if mark_open:
        html.append("</b>")
    ends_cut = bool(kept) and kept[-1].kind == "text" and kept[-1].text.endswith(ELLIPSIS)
    if (raw_right or right_cut) and not ends_cut:
        html.append(ELLIPSIS)
        text.append(ELLIPSIS)
    # (a picture left out, a badge with no alt text, leaves two spaces where it stood)
    return InlineHtml("".join(html), re.sub(r"  +", " ", "".join(text)).strip(), resources)
