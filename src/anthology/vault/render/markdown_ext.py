"""Markdown → Qt-friendly HTML for one entry body: python-markdown plus Obsidian's dialect.

One pass over the source (:class:`~.source.SourcePreprocessor`) finds, outside code (by
:func:`anthology.vault.links.mask_code`, the same rule the indexer uses), the spans that
python-markdown must not touch: fenced code (highlighted here, ``demo`` fences too), TeX
math, ``[[wikilinks]]`` and ``![[embeds]]``, ``%%comments%%``, ``^block-ids`` and body
``#tags``. Each becomes finished HTML in python-markdown's stash, so underscores inside TeX
never turn into emphasis. The rest is python-markdown's (tables, footnotes, toc), with
callouts, task lists, ``==highlight==`` and ``~~strike~~`` added, links and images
rewritten by the vault's rules, and raw HTML sanitised (only the raw HTML, not ours).

What a render needs and collects is :mod:`.context`; the HTML of links and embeds is
:mod:`.embeds`, of attachments and URLs :mod:`.urls`, of math, code and demos :mod:`.blocks`.
"""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as etree

import markdown
from markdown.blockprocessors import BlockProcessor
from markdown.extensions import Extension
from markdown.extensions.footnotes import FootnoteExtension
from markdown.extensions.nl2br import Nl2BrExtension
from markdown.extensions.sane_lists import SaneListExtension
from markdown.extensions.smarty import SmartyExtension
from markdown.extensions.tables import TableExtension
from markdown.extensions.toc import TocExtension, slugify_unicode
from markdown.inlinepatterns import InlineProcessor
from markdown.postprocessors import Postprocessor
from markdown.treeprocessors import Treeprocessor

from ..links import mask_code
from ..obsidian_settings import settings_of
from .callouts import callout_shell
from .context import (
    MAX_HEADING_ANCHORS,
    MAX_NESTING,
    MAX_TABLE_COLUMNS,
    MAX_TOC_ENTRIES,
    RenderContext,
)
from .embeds import markdown_embed_html
from .nesting import clamp_source, fit_boxes
from .sanitize import sanitise_html
from .source import SourcePreprocessor, TrustedStash
from .urls import url_policy

_FOOTNOTE_ID_RE = re.compile(r"fn(?:ref\d*)?:")
_HEADING_TAGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_CALLOUT_RE = re.compile(r"^[ ]{0,3}>[ ]?\[!([A-Za-z][\w-]*)\]([+-]?)[ \t]*(.*)$")
_QUOTE_PREFIX_RE = re.compile(r"^[ ]{0,3}>[ ]?")
# A task: one character in brackets at the start of a list item, then a space.
_TASK_RE = re.compile(r"^\s*\[([^\]\[\n])\]\s+")
# Task state → (marker, what it means), the states of Obsidian's common task themes.
TASK_MARKERS = {
    " ": ("☐", "open"),
    "x": ("☑", "done"),
    "-": ("☒", "cancelled"),
    "/": ("◐", "in progress"),
    ">": ("▷", "forwarded"),
    "<": ("◁", "scheduled"),
    "?": ("?", "question"),
    "!": ("⚠", "important"),
}

__all__ = ["AnthologyExtension", "markdown_to_html"]


class _CalloutProcessor(BlockProcessor):
    """``> [!kind]± Title`` blocks: a table with a coloured bar, as Qt draws no div borders."""

    def __init__(self, parser, ctx: RenderContext) -> None:
        super().__init__(parser)
        self.ctx = ctx

    def test(self, parent: etree.Element, block: str) -> bool:
        return bool(_CALLOUT_RE.match(block.split("\n", 1)[0]))

    def run(self, parent: etree.Element, blocks: list[str]) -> None:
        block = blocks.pop(0)
        first, _, rest = block.partition("\n")
        m = _CALLOUT_RE.match(first)
        assert m is not None
        title = m.group(3).strip() or m.group(1).strip().capitalize()
        _table, cell, collapsed = callout_shell(parent, self.ctx, m.group(1), title, m.group(2))
        body = (
            "\n".join(_QUOTE_PREFIX_RE.sub("", line) for line in rest.split("\n")) if rest else ""
        )
        if body.strip() and not collapsed:
            self.parser.parseChunk(cell, body.strip("\n"))


class _StyledInline(InlineProcessor):
    def __init__(self, pattern: str, tag: str, style: str | None, md: markdown.Markdown) -> None:
        super().__init__(pattern, md)
        self.tag, self.style = tag, style

    def handleMatch(self, m: re.Match[str], data: str):
        el = etree.Element(self.tag)
        if self.style:
            el.set("style", self.style)
        el.text = m.group(1)
        return el, m.start(0), m.end(0)


class _PageTreeprocessor(TrustedStash, Treeprocessor):
    """Anchors on headings, task boxes, table styling, and the vault's link/image rules."""

    def run(self, root: etree.Element) -> None:
        p = self.ctx.palette
        if self.ctx.depth == 0:
            self._fold_headings(root)
        for toc in root.iter("div"):
            if toc.get("class") == "toc":
                self._prune_toc(toc)
                label = etree.Element("p", {"style": f"color: {p.muted}; margin-bottom: 2px;"})
                label.text = "Contents"
                toc.insert(0, label)
        unanchored = self._footnote_anchors(root)
        quotes = list(root.iter("blockquote"))
        for bq in reversed(quotes):  # innermost first
            self._quote(bq)
        for parent in root.iter():
            for child in list(parent):
                tag = child.tag
                if tag in _HEADING_TAGS and child.get("id"):
                    self._heading_anchor(child)
                elif tag == "a" and child.get("href") is not None:
                    if child.get("href", "")[1:] in unanchored:
                        child.tag = "span"  # its anchor is gone: the number stays, unlinked
                        child.attrib.clear()
                    else:
                        self._link(parent, child)
                elif tag == "img":
                    self._image(parent, child)
                elif tag == "table" and not child.get("class"):
                    self._cap_columns(child)
                    child.set("class", "md-table")
                    child.set("cellspacing", "0")
                    child.set("cellpadding", "6")
                    child.set("border", "1")
                    child.set(
                        "style",
                        f"border-collapse: collapse; border-color: {p.table_border}; "
                        "border-style: solid; margin-top: 6px; margin-bottom: 12px;",
                    )
                elif tag == "th":
                    child.set("bgcolor", p.box_bg)
                elif tag == "code" and parent.tag != "pre":
                    child.set("style", f"background-color: {p.inline_code_bg};")
                elif tag == "li":
                    self._task(parent, child)

    def _fold_headings(self, root: etree.Element) -> None:
        """A fold marker before each of the entry's own headings (a ``fold:hN`` link, N in
        reading order); a folded heading's section (up to the next heading of its level or
        higher) is left out. Embedded entries' headings are not the entry's: not folded."""
        muted = self.ctx.palette.muted
        kids = list(root)
        folding_level = 0  # inside a folded section of this level (0: none)
        number = 0
        for kid in kids:
            level = int(kid.tag[1]) if kid.tag in _HEADING_TAGS else 0
            if folding_level and (not level or level > folding_level):
                root.remove(kid)
                continue
            folding_level = 0
            if not level:
                continue
            if number >= MAX_HEADING_ANCHORS:  # each marker is a link Qt's import pays for
                self.ctx.budget.cut(
                    "folds", f"only the first {MAX_HEADING_ANCHORS} headings can be folded"
                )
                break
            folded = f"h{number}" in self.ctx.folds
            marker = etree.Element(
                "a",
                {
                    "href": f"fold:h{number}",
                    "class": "fold",
                    "title": "Unfold the section" if folded else "Fold the section",
                    "style": f"color: {muted}; text-decoration: none; font-weight: normal;",
                },
            )
            marker.text = "▸\u00a0" if folded else "▾\u00a0"
            marker.tail = kid.text
            kid.text = None
            kid.insert(0, marker)
            if folded:
                folding_level = level
                if len(kid) > 1:
                    kid[-1].tail = (kid[-1].tail or "") + " …"
                else:
                    marker.tail = (marker.tail or "") + " …"
            number += 1

    def _heading_anchor(self, heading: etree.Element) -> None:
        """One ``<a name>`` per heading, and none past :data:`MAX_HEADING_ANCHORS`."""
        name = heading.attrib.pop("id", "")
        budget = self.ctx.budget
        if budget.heading_anchors + budget.footnote_anchors >= MAX_HEADING_ANCHORS:
            return  # nothing visible is lost: links to it scroll by the heading's text
        budget.heading_anchors += 1
        anchor = etree.Element("a", {"name": name})
        anchor.tail = heading.text
        heading.text = None
        heading.insert(0, anchor)

    def _footnote_anchors(self, root: etree.Element) -> set[str]:
        """Drop footnote anchors past :data:`MAX_HEADING_ANCHORS` (shared with headings):
        each footnote is two (its reference and its note), and Qt's HTML import is
        quadratic in anchors. Returns the ids dropped; links to them are unlinked."""
        budget = self.ctx.budget
        # headings come first: their anchors are given out later, in the main pass
        headings = sum(1 for el in root.iter() if el.tag in _HEADING_TAGS and el.get("id"))
        room = MAX_HEADING_ANCHORS - budget.heading_anchors - headings
        anchors: dict[str, list[etree.Element]] = {}  # footnote → its number(s) and note
        for el in root.iter():
            name = el.get("id")
            if name is not None and _FOOTNOTE_ID_RE.match(name):  # fn:x, fnref:x, fnref2:x
                anchors.setdefault(name.split(":", 1)[1], []).append(el)
        dropped: set[str] = set()
        for els in anchors.values():  # whole footnotes, first referenced first
            if len(els) <= room:
                room -= len(els)
                budget.footnote_anchors += len(els)
                continue
            room = 0
            for el in els:
                dropped.add(el.attrib.pop("id"))
        if dropped:
            notes = len({n.split(":", 1)[1] for n in dropped})
            budget.cut(
                "footnote-links", f"the last {notes} footnotes without links to and from them"
            )
        return dropped

    def _prune_toc(self, toc: etree.Element) -> None:
        """Keep the first :data:`MAX_TOC_ENTRIES` headings of all [TOC] lists together."""
        budget = self.ctx.budget
        items = list(toc.iter("li"))  # document order
        room = max(0, MAX_TOC_ENTRIES - budget.toc_entries)
        budget.toc_entries += min(room, len(items))
        if len(items) <= room:
            return
        budget.cut("toc", f"the contents list only its first {MAX_TOC_ENTRIES} headings")
        keep = {id(li) for li in items[:room]}
        for parent in list(toc.iter()):
            for kid in list(parent):
                if kid.tag == "li" and id(kid) not in keep:
                    parent.remove(kid)

    def _cap_columns(self, table: etree.Element) -> None:
        """Drop the cells of each row past :data:`MAX_TABLE_COLUMNS`."""
        cut = False
        for tr in table.iter("tr"):
            cells = [c for c in tr if c.tag in ("td", "th")]
            for cell in cells[MAX_TABLE_COLUMNS:]:
                tr.remove(cell)
                cut = True
        if cut:
            self.ctx.budget.cut(
                "columns", f"tables show only their first {MAX_TABLE_COLUMNS} columns"
            )

    def _quote(self, quote: etree.Element) -> None:
        """A block quote as a table with a bar on its left (Qt draws no div borders)."""
        kids, text = list(quote), quote.text
        for kid in kids:
            quote.remove(kid)
        quote.tag, quote.text = "table", None
        quote.attrib = {
            "class": "quote",
            "cellspacing": "0",
            "cellpadding": "0",
            "width": "100%",
            "style": "margin-top: 4px; margin-bottom: 12px;",
        }
        tr = etree.SubElement(quote, "tr")
        bar = etree.SubElement(
            tr, "td", {"class": "bar", "width": "3", "bgcolor": self.ctx.palette.table_border}
        )
        bar.text = "\u200a"
        cell = etree.SubElement(tr, "td", {"style": "padding: 0px 0px 0px 14px;"})
        cell.text = text
        cell.extend(kids)

    def _link(self, parent: etree.Element, a: etree.Element) -> None:
        href = a.get("href", "")
        cls = a.get("class", "")
        if cls == "fold" and href.startswith("fold:"):
            return  # a foldable callout's title: the entry pane flips it
        if cls.startswith("footnote") or href.startswith("#"):
            a.set("style", f"color: {self.ctx.palette.link}; text-decoration: none;")
            return
        decision = url_policy(self.ctx, href, "link", {})
        if decision is None or decision[0] != "href":
            a.tag = "span"
            a.attrib.clear()
            a.set("title", f"Link removed: {href[:200]}")
            a.set("class", "blocked-link")
            return
        new = decision[1]
        a.set("href", new)
        p = self.ctx.palette
        if new.startswith("unresolved:"):
            a.set("class", "unresolved")
            a.set(
                "style",
                f"color: {p.unresolved}; background-color: {p.unresolved_bg}; "
                "text-decoration: none;",
            )
        elif new.startswith("entry:"):
            a.set("class", "internal")
            a.set("style", f"color: {p.link}; text-decoration: none;")
        else:
            a.set("class", "external")
            a.set("style", f"color: {p.external};")

    def _image(self, parent: etree.Element, img: etree.Element) -> None:
        alt = img.get("alt", "")
        # ![alt|100](p.png) / ![alt|100x50](p.png): Obsidian's size, as ![[p.png|100]]
        size = re.fullmatch(r"(.*?)\|\s*(\d{1,5})(?:x(\d{1,5}))?\s*", alt, re.S)
        if size:
            alt = size.group(1).strip()
            img.set("alt", alt)
        attrs = {"alt": alt}
        # a file drawn in place (a media card, a PDF page…), else a picture by the URL rules
        drawn = markdown_embed_html(self.ctx, img.get("src", ""), alt)
        decision = ("html", drawn) if drawn is not None else None
        decision = decision or url_policy(self.ctx, img.get("src", ""), "image", attrs)
        if decision is not None and decision[0] == "href":
            img.set("src", decision[1])
            img.attrib.pop("title", None)
            if size:
                img.set("width", size.group(2))
                if size.group(3):
                    img.set("height", size.group(3))
            return
        html = decision[1] if decision else ""
        alone = len(parent) == 1 and not (parent.text or "").strip()
        if drawn is not None and parent.tag == "p" and alone and not (img.tail or "").strip():
            # a card or a page alone on its line: the block in place of the paragraph
            # (python-markdown writes an element of no tag as its text alone)
            parent.tag, parent.text = None, self.stash(html)  # type: ignore[assignment]
            parent.remove(img)
            return
        span = etree.Element("span")
        span.text = self.stash(html)
        span.tail = img.tail
        idx = list(parent).index(img)
        parent.remove(img)
        parent.insert(idx, span)

    def _task(self, parent: etree.Element, li: etree.Element) -> None:
        """``- [ ]`` and ``- [x]`` as boxes; any other character in the brackets (``[?]``,
        ``[-]``, ``[/]``, ``[>]``…, as Obsidian's task themes use them) is a task too, with
        its own marker (:data:`TASK_MARKERS`; an unknown one shows its character)."""
        holder = li
        if not (li.text or "").strip() and len(li) and li[0].tag == "p":
            holder = li[0]
        text = holder.text or ""
        m = _TASK_RE.match(text)
        if not m:
            return
        state = m.group(1)
        marker, label = TASK_MARKERS.get(state.lower(), (f"[{state}]", "other"))
        holder.text = f"{marker} " + text[m.end() :]
        li.set("class", f"task {label}".rstrip())
        li.set("title", f"Task: {label}")
        parent.set("style", "list-style-type: none; margin-left: -8px;")
        if label in ("done", "cancelled"):  # greyed and struck through, as Obsidian draws them
            li.set("style", f"color: {self.ctx.palette.muted}; text-decoration: line-through;")


class _SanitisePostprocessor(Postprocessor):
    """Sanitise the raw HTML python-markdown stashed from the source; ours is trusted."""

    def __init__(self, md: markdown.Markdown, ctx: RenderContext, trusted: set[int]) -> None:
        super().__init__(md)
        self.ctx = ctx
        self.trusted = trusted

    def run(self, text: str) -> str:
        blocks = self.md.htmlStash.rawHtmlBlocks
        for i, block in enumerate(blocks):
            if i in self.trusted or not isinstance(block, str):
                continue
            blocks[i] = sanitise_html(
                block,
                functools.partial(url_policy, self.ctx),
                highlight_bg=self.ctx.palette.highlight_bg,
            )
        return text


class AnthologyExtension(Extension):
    def __init__(self, ctx: RenderContext) -> None:
        super().__init__()
        self.ctx = ctx

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        trusted: set[int] = set()
        ctx = self.ctx
        md.preprocessors.register(SourcePreprocessor(md, ctx, trusted), "anthology-source", 28)
        md.parser.blockprocessors.register(_CalloutProcessor(md.parser, ctx), "callout", 21)
        md.inlinePatterns.register(
            _StyledInline(
                r"==(?=\S)(.+?)(?<=\S)==",
                "span",
                f"background-color: {ctx.palette.highlight_bg};",
                md,
            ),
            "highlight",
            66,
        )
        md.inlinePatterns.register(
            _StyledInline(r"~~(?=\S)(.+?)(?<=\S)~~", "s", None, md), "strike", 67
        )
        md.treeprocessors.register(_PageTreeprocessor(md, ctx, trusted), "anthology-page", 1)
        md.postprocessors.register(
            _SanitisePostprocessor(md, ctx, trusted), "anthology-sanitise", 35
        )


def _flatten_toc(tokens: list[dict], out: list[tuple[int, str, str]]) -> None:
    for tok in tokens:
        out.append((int(tok["level"]), str(tok["name"]), str(tok["id"])))
        _flatten_toc(tok.get("children", []), out)


def _bracket_pairs(text: str) -> dict[int, int]:
    """Each ``[``'s matching ``]`` (by index) in one pass; a blank line closes nothing."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in re.finditer(r"[\[\]]|\n[ \t]*\n", text):
        c = m.group()
        if c == "[":
            stack.append(m.start())
        elif c == "]":
            if stack:
                pairs[stack.pop()] = m.start()
        else:
            stack.clear()  # a paragraph ends: its open brackets stay open
    return pairs


def inline_footnotes(body: str) -> str:
    """Obsidian's inline footnotes ``^[a note]`` as python-markdown footnotes: each becomes a
    reference ``[^inline-N]`` with its definition appended, numbered with the others.
    Outside code only; brackets nest; an unclosed ``^[`` stays text. Linear: the brackets
    are paired in one pass (a scan from each ``^[`` was quadratic in unclosed ones)."""
    if "^[" not in body:
        return body
    masked = mask_code(body)
    pairs = _bracket_pairs(masked)
    out: list[str] = []
    notes: list[str] = []
    pos = 0
    for m in re.finditer(r"\^\[", masked):
        start = m.start()
        end = pairs.get(start + 1)
        if start < pos or end is None or not (text := body[start + 2 : end].strip()):
            continue
        notes.append(" ".join(text.split()))
        out.append(body[pos:start])
        out.append(f"[^inline-{len(notes)}]")
        pos = end + 1
    if not notes:
        return body
    out.append(body[pos:])
    defs = "\n".join(f"[^inline-{n}]: {note}" for n, note in enumerate(notes, start=1))
    return "".join(out) + "\n\n" + defs + "\n"


def markdown_to_html(body: str, ctx: RenderContext) -> str:
    """Render one Markdown body within the nesting budget (:mod:`.nesting`): what is nested
    too deeply is flattened, and said in ``ctx.budget``. The whole render's boxes are
    fitted at its outermost call (``ctx.depth == 0``: the entry, the preview), so
    what embeds bring in is counted where it is shown."""
    if ctx.render_body is None:
        ctx.render_body = markdown_to_html  # what the embeds of this render call back
    body, clamped = clamp_source(body)
    if clamped:
        ctx.budget.cut(
            "nesting",
            f"quotes and lists nested more than {MAX_NESTING} deep are shown at that depth",
        )
    md = markdown.Markdown(
        extensions=[
            TableExtension(),
            # numbered in the order they are referenced, as Obsidian numbers them
            FootnoteExtension(UNIQUE_IDS=ctx.depth > 0, USE_DEFINITION_ORDER=False),
            TocExtension(
                marker="[TOC]", anchorlink=False, permalink=False, slugify=slugify_unicode
            ),
            SmartyExtension(),
            SaneListExtension(),
            AnthologyExtension(ctx),
            # a line break in a paragraph shows as one, as Obsidian shows it (unless the
            # vault turned on Settings › Editor › Strict line breaks)
            *([] if settings_of(ctx.vault_root).strict_line_breaks else [Nl2BrExtension()]),
        ],
        output_format="html",
    )
    html = md.convert(inline_footnotes(body))
    if ctx.stand_ins:  # see source._defuse_brackets, source._unclosed_tag_starts
        html = html.translate(str.maketrans(ctx.stand_ins))
    if ctx.depth == 0:
        _flatten_toc(getattr(md, "toc_tokens", []), ctx.headings)
        html = fit_boxes(html, ctx)
    return html
