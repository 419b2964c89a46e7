"""Markdown → Qt-friendly HTML for one entry body: python-markdown plus Obsidian's dialect.

One pass over the source (:class:`_SourcePreprocessor`) finds, outside code (by
:func:`anthology.vault.links.mask_code`, the same rule the indexer uses), the spans that
python-markdown must not touch: fenced code (highlighted here, ``demo`` fences too), TeX
math, ``[[wikilinks]]`` and ``![[embeds]]``, ``%%comments%%``, ``^block-ids`` and body
``#tags``. Each becomes finished HTML in python-markdown's stash, so underscores inside TeX
never turn into emphasis. The rest is python-markdown's (tables, footnotes, toc), with
callouts, task lists, ``==highlight==`` and ``~~strike~~`` added, links and images
rewritten by the vault's rules, and raw HTML sanitised (only the raw HTML, not ours).
"""

from __future__ import annotations

import bisect
import posixpath
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from urllib.parse import quote

import markdown
from markdown.blockprocessors import BlockProcessor
from markdown.extensions import Extension
from markdown.extensions.footnotes import FootnoteExtension
from markdown.extensions.sane_lists import SaneListExtension
from markdown.extensions.smarty import SmartyExtension
from markdown.extensions.tables import TableExtension
from markdown.extensions.toc import TocExtension, slugify_unicode
from markdown.inlinepatterns import InlineProcessor
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from anthology.demo import DEMOS
from anthology.palette import EntryColours

from ..links import (
    MDLINK_RE,
    TAG_RE,
    URL_RE,
    WIKILINK_RE,
    is_attachment,
    mask_code,
    split_markdown_target,
    split_wikilink,
)
from ..model import EntryLookup, EntryRef
from . import mathtex
from .sanitize import sanitise_html
from .theme import callout_style

MAX_EMBED_DEPTH = 3
# Work budgets per render (the entry and all it embeds): past them the rest is shown plainer
# and a "Rendering was cut short" notice says what was cut. Each one bounds a stall family
# that froze the GUI: 9,000 formulas (54 s), a [TOC] of 10k headings (87 s), embeds 12 wide
# and 3 deep (22 s), an 800-column table (16 s), 20k <svg> tags (8–11 s).
MAX_FORMULAS = 300  # distinct formulas typeset; the rest are shown as TeX source
MAX_EMBEDS = 40  # entries embedded in all; the rest become links
MAX_TOC_ENTRIES = 1000  # headings listed by [TOC] markers in all
MAX_TABLE_COLUMNS = 64  # cells of a table row past this are dropped
MAX_IMAGES = 300  # pictures shown; the rest become their name
# Qt's HTML importer is quadratic in named anchors (an ``id`` attribute counts as one): 3,000
# headings with both an ``id`` and an ``<a name>`` took 2.4 s in setHtml, with one 0.5 s.
# Headings past this carry no anchor; the pane finds them by their text instead.
MAX_HEADING_ANCHORS = 500
_FOOTNOTE_ID_RE = re.compile(r"fn(?:ref\d*)?:")
_HEADING_TAGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_EXTERNAL_SCHEMES = ("http:", "https:", "mailto:")
_SCHEME_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_FENCE_OPEN_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^`\n]*?)[ \t]*$")
_BLOCK_ID_RE = re.compile(r"(?<=[ \t])\^([A-Za-z0-9][A-Za-z0-9-]*)[ \t]*$", re.M)
_RAW_TAG_RE = re.compile(r"</?[a-zA-Z][^>\n]*>")
_CALLOUT_RE = re.compile(r"^[ ]{0,3}>[ ]?\[!([A-Za-z][\w-]*)\]([+-]?)[ \t]*(.*)$")
_QUOTE_PREFIX_RE = re.compile(r"^[ ]{0,3}>[ ]?")
# Raw elements removed with their content before python-markdown splits them into pieces.
_DANGEROUS_OPEN_RE = re.compile(
    r"<(script|style|iframe|object|embed|noscript|template|textarea|select|svg|math|form|"
    r"applet|frameset|title)\b[^>]*>",
    re.I,
)
# More "[" than this in one paragraph and python-markdown's link scan turns quadratic.
MAX_BRACKETS_PER_PARAGRAPH = 300


def _url(text: str) -> str:
    """``text`` quoted for a URL of ours (``entry:``, ``demo:``…): every reserved character."""
    return quote(text, safe="")


@dataclass
class RenderBudget:
    """Work done so far in one render, shared by the entry and everything it embeds."""

    formulas: set[tuple[str, bool]] = field(default_factory=set)
    embeds: int = 0
    images: int = 0
    toc_entries: int = 0
    heading_anchors: int = 0
    footnote_anchors: int = 0
    cuts: dict[str, str] = field(default_factory=dict)  # what was cut → how it is shown

    def cut(self, what: str, how: str) -> None:
        self.cuts.setdefault(what, how)


@dataclass
class RenderContext:
    """Everything one render needs and collects; embeds share resources and problems."""

    entry_id: str
    source_path: str
    resolver: EntryLookup
    palette: EntryColours
    vault_root: Path | None = None
    resources: dict[str, bytes] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    depth: int = 0
    bracket_stand_ins: dict[str, str] = field(default_factory=dict)  # see _defuse_brackets
    chain: tuple[str, ...] = ()
    headings: list[tuple[int, str, str]] = field(default_factory=list)
    budget: RenderBudget = field(default_factory=RenderBudget)

    def child(self, entry_id: str, source_path: str) -> RenderContext:
        return RenderContext(
            entry_id=entry_id,
            source_path=source_path,
            resolver=self.resolver,
            palette=self.palette,
            vault_root=self.vault_root,
            resources=self.resources,
            problems=self.problems,
            depth=self.depth + 1,
            chain=(*self.chain, self.entry_id),
            budget=self.budget,
        )

    def take_image(self) -> bool:
        """Count one picture; False once :data:`MAX_IMAGES` are shown."""
        if self.budget.images >= MAX_IMAGES:
            self.budget.cut(
                "images", f"only the first {MAX_IMAGES} pictures are shown, the rest by name"
            )
            return False
        self.budget.images += 1
        return True

    # ---------------------------------------------------------------- notices
    def notice(self, text: str, *, error: bool = False, block: bool = False) -> str:
        p = self.palette
        fg, bg = (p.error, p.error_bg) if error else (p.muted, p.box_bg)
        if block:
            return (
                f'<table class="notice" width="100%" cellspacing="0" cellpadding="8" '
                f'bgcolor="{bg}" style="margin-top: 6px; margin-bottom: 10px;"><tr><td>'
                f'<span style="color: {fg};">{text}</span></td></tr></table>'
            )
        return f'<span class="notice" style="color: {fg}; background-color: {bg};">{text}</span>'

    # ---------------------------------------------------------------- links
    def entry_href(self, ref: EntryRef | str, heading: str | None = None) -> str:
        ident = ref if isinstance(ref, str) else ref.id
        return f"entry:{_url(ident)}" + (f"#{_url(heading)}" if heading else "")

    def internal_link(self, ref: EntryRef, text_html: str, heading: str | None) -> str:
        return (
            f'<a class="internal" href="{escape(self.entry_href(ref, heading))}" '
            f'style="color: {self.palette.link}; text-decoration: none;">{text_html}</a>'
        )

    def unresolved_link(self, written: str, text_html: str) -> str:
        p = self.palette
        return (
            f'<a class="unresolved" href="unresolved:{escape(_url(written))}" '
            f'title="No entry named “{escape(written)}”" style="color: {p.unresolved}; '
            f'background-color: {p.unresolved_bg}; text-decoration: none;">{text_html}</a>'
        )

    def _vault_src(self, path: Path) -> str | None:
        """``vault:`` URL of an attachment path, or None when it lies outside the vault."""
        if self.vault_root is None:
            return "vault:" + quote(path.as_posix(), safe="/")
        try:
            rel = path.resolve().relative_to(self.vault_root.resolve())
        except (ValueError, OSError):
            return None
        return "vault:" + quote(rel.as_posix(), safe="/")

    def _escapes_vault(self, target: str) -> bool:
        if target.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", target):
            return True
        joined = posixpath.normpath(
            posixpath.join(posixpath.dirname(self.source_path), target.replace("\\", "/"))
        )
        return joined == ".." or joined.startswith("../")

    def attachment_src(self, target: str) -> tuple[str | None, str | None]:
        """(src, None) for a readable attachment, (None, notice text) otherwise."""
        if self._escapes_vault(target):
            self.problems.append(f"attachment outside the vault refused: {target}")
            return None, f"⊘ Refused: “{escape(target)}” lies outside the vault"
        try:
            path = self.resolver.attachment(target, self.source_path)
        except Exception as exc:  # the resolver is the lead's; never let it break a page
            self.problems.append(f"attachment lookup failed for {target}: {exc}")
            path = None
        if path is None:
            self.problems.append(f"missing attachment: {target}")
            return None, f"⊘ Missing attachment: “{escape(target)}”"
        src = self._vault_src(Path(path))
        if src is None:
            self.problems.append(f"attachment outside the vault refused: {target}")
            return None, f"⊘ Refused: “{escape(target)}” lies outside the vault"
        return src, None

    def image_html(self, target: str, alt: str, size: str | None = None) -> str:
        if not self.take_image():
            return self.notice(f"▣ {escape(target)}")
        src, refusal = self.attachment_src(target)
        if src is None:
            return self.notice(refusal or "", error=True)
        dims = ""
        if size:
            w, _, h = size.partition("x")
            if w.strip().isdigit():
                dims += f' width="{int(w)}"'
            if h.strip().isdigit():
                dims += f' height="{int(h)}"'
        return f'<img src="{escape(src)}" alt="{escape(alt)}"{dims} />'

    def remote_image_html(self, url: str, alt: str) -> str:
        p = self.palette
        shown = escape(url if len(url) <= 120 else url[:117] + "…")
        what = f"“{escape(alt)}” — " if alt else ""
        return (
            f'<span class="remote-image" style="color: {p.muted}; background-color: {p.box_bg};">'
            f"&#160;▣ Remote image not loaded: {what}"
            f'<a href="{escape(url)}" style="color: {p.external};">{shown}</a>&#160;</span>'
        )

    def url_policy(self, url: str, kind: str, attrs: dict[str, str]) -> tuple[str, str] | None:
        """What a link or image URL written in an entry becomes (None: removed)."""
        raw = url.strip()
        squashed = re.sub(r"[\x00-\x20\x7f]+", "", raw)  # "java\tscript:" is javascript:
        m = _SCHEME_RE.match(squashed)
        scheme = m.group(1).lower() + ":" if m else ""
        is_remote = scheme in ("http:", "https:") or squashed.startswith("//")
        if kind == "image":
            alt = attrs.get("alt", "")
            if is_remote:
                link = raw if scheme else "https:" + raw
                return ("html", self.remote_image_html(link, alt))
            if scheme:  # data:, file:, javascript:, vault:, math: … written by an author
                self.problems.append(f"image source refused: {raw[:80]}")
                return (
                    "html",
                    self.notice(f"⊘ Refused image source “{escape(raw[:80])}”", error=True),
                )
            parts = split_markdown_target(raw)
            if parts is None or not parts[0]:
                return None
            if not self.take_image():
                return ("html", self.notice(f"▣ {escape(parts[0])}"))
            src, refusal = self.attachment_src(parts[0])
            if src is None:
                return ("html", self.notice(refusal or "", error=True))
            return ("href", src)
        # links
        if scheme in _EXTERNAL_SCHEMES:
            return ("href", raw)
        if scheme or squashed.startswith("//"):
            self.problems.append(f"link removed: {raw[:80]}")
            return None
        if raw.startswith("#"):
            return ("href", raw)
        parts = split_markdown_target(raw)
        if parts is None:
            return None
        path, heading, block = parts
        frag = heading or (f"^{block}" if block else None)
        if not path:
            return ("href", self.entry_href(self.entry_id, frag))
        if is_attachment(path):
            src, _ = self.attachment_src(path)
            return ("href", src) if src else None
        ref = self._resolve(path)
        if ref is None:
            self.problems.append(f"unresolved link: {path}")
            return ("href", f"unresolved:{_url(path)}")
        return ("href", self.entry_href(ref, frag))

    def _resolve(self, target: str) -> EntryRef | None:
        try:
            return self.resolver.resolve(target, self.source_path)
        except Exception as exc:
            self.problems.append(f"link lookup failed for {target}: {exc}")
            return None

    def wikilink_html(self, inner: str, embed: bool) -> tuple[str, bool]:
        """HTML for ``[[inner]]`` / ``![[inner]]``; the flag says it is block-level."""
        target, heading, block, alias = split_wikilink(inner)
        frag = heading or (f"^{block}" if block else None)
        if embed and target and self._escapes_vault(target):
            self.problems.append(f"embed outside the vault refused: {target}")
            return self.notice(
                f"⊘ Refused: “{escape(target)}” lies outside the vault", error=True
            ), False
        if embed and is_attachment(target):
            ext = target.rsplit(".", 1)[-1].lower()
            size = alias if alias and re.fullmatch(r"\d+(x\d+)?", alias) else None
            if ext in ("png", "jpg", "jpeg", "gif", "webp", "svg", "bmp"):
                return self.image_html(target, alias if not size and alias else target, size), False
            src, refusal = self.attachment_src(target)
            if src is None:
                return self.notice(refusal or "", error=True), False
            return f'<a href="{escape(src)}">▤ {escape(target)}</a>', False
        if embed:
            return self.embed_html(target, heading, block), True
        if not target:  # [[#Heading]]: this entry
            shown = alias or (heading or block or "")
            return self.internal_link(EntryRef(self.entry_id, "", ""), escape(shown), frag), False
        if is_attachment(target):
            src, _ = self.attachment_src(target)
            if src:
                return f'<a href="{escape(src)}">{escape(alias or target)}</a>', False
        shown = alias or (f"{target} › {heading or block}" if frag else target)
        ref = self._resolve(target)
        if ref is None:
            self.problems.append(f"unresolved link: {target}")
            return self.unresolved_link(target, escape(shown)), False
        return self.internal_link(ref, escape(shown), frag), False

    # ---------------------------------------------------------------- embeds
    def embed_html(self, target: str, heading: str | None, block: str | None) -> str:
        p = self.palette
        ref = self._resolve(target)
        if ref is None:
            self.problems.append(f"unresolved embed: {target}")
            return self.notice(
                f"Embedded entry not found: {self.unresolved_link(target, escape(target))}",
                error=True,
                block=True,
            )
        if ref.id == self.entry_id or ref.id in self.chain:
            path = " → ".join((*self.chain, self.entry_id, ref.id))
            self.problems.append(f"embed cycle: {path}")
            return self.notice(
                f"↻ Embed cycle: {escape(path)} — not embedded again", error=True, block=True
            )
        if self.depth + 1 > MAX_EMBED_DEPTH:
            self.problems.append(f"embed too deep: {ref.id}")
            return self.notice(
                f"Embeds nest deeper than {MAX_EMBED_DEPTH}: "
                + self.internal_link(ref, escape(ref.label), heading),
                block=True,
            )
        if self.budget.embeds >= MAX_EMBEDS:
            self.budget.cut(
                "embeds", f"only the first {MAX_EMBEDS} embeds are shown, the rest as links"
            )
            return self.notice(
                "↪ Not embedded (too many embeds): "
                + self.internal_link(ref, escape(ref.label), heading),
                block=True,
            )
        self.budget.embeds += 1
        try:
            body = self.resolver.embed_body(ref.id)
        except Exception as exc:
            self.problems.append(f"embed lookup failed for {ref.id}: {exc}")
            body = None
        if body is None:
            return self.notice(
                f"Embedded entry has no body: {escape(ref.label)}", error=True, block=True
            )
        if heading:
            body = section_of(body, heading)
        elif block:
            body = block_of(body, block)
        child = self.child(ref.id, ref.path)
        inner = markdown_to_html(body, child)
        title = self.internal_link(
            ref, escape(ref.label + (f" › {heading}" if heading else "")), heading
        )
        return (
            f'<table class="embed" width="100%" cellspacing="0" cellpadding="10" border="1" '
            f'style="border-color: {p.box_border}; border-style: solid; margin-top: 8px; '
            f'margin-bottom: 12px;"><tr><td>'
            f'<p style="font-size: small; margin-top: 0;">↪ {title}</p>{inner}</td></tr></table>'
        )

    # ---------------------------------------------------------------- math
    def math_html(self, tex: str, display: bool, block: bool) -> str:
        key = (tex.strip(), display)
        if key not in self.budget.formulas and len(self.budget.formulas) >= MAX_FORMULAS:
            self.budget.cut(
                "formulas", f"only the first {MAX_FORMULAS} formulas are typeset, the rest as TeX"
            )
            delim = "$$" if display else "$"
            return (
                f'<code class="math-source" style="background-color: '
                f'{self.palette.inline_code_bg};">{escape(delim + tex + delim)}</code>'
            )
        self.budget.formulas.add(key)
        try:
            img = mathtex.tex_to_svg(tex, display=display, color=self.palette.math)
        except mathtex.TexError as exc:
            self.problems.append(f"TeX error in “{tex[:60]}”: {exc}")
            delim = "$$" if display else "$"
            return (
                f'<span class="math-error" title="TeX error: {escape(str(exc))}" '
                f'style="color: {self.palette.error}; background-color: {self.palette.error_bg}; '
                f'font-family: monospace;">{escape(delim + tex + delim)}</span>'
            )
        self.resources[img.key] = img.svg
        tag = (
            f'<img src="{img.key}" width="{round(img.width)}" height="{round(img.height)}" '
            f'alt="{escape(tex)}" style="vertical-align: middle;" />'
        )
        if display and block:
            return f'<p class="math-display" align="center">{tag}</p>'
        return tag

    # ---------------------------------------------------------------- code and demos
    def code_html(self, code: str, lang: str) -> str:
        from .highlight import highlight_code

        p = self.palette
        body = highlight_code(code, lang, p.pygments_style)
        label = (
            f'<p style="color: {p.muted}; font-size: small; margin: 0;">{escape(lang)}</p>'
            if lang
            else ""
        )
        return (
            f'<table class="code" width="100%" cellspacing="0" cellpadding="10" '
            f'bgcolor="{p.code_bg}" '
            f'style="margin-top: 6px; margin-bottom: 12px;"><tr><td>{label}'
            f'<pre style="margin: 0; white-space: pre-wrap;">{body}</pre></td></tr></table>'
        )

    def demo_html(self, name: str) -> str:
        p = self.palette
        name = name.strip()
        if name not in DEMOS:
            self.problems.append(f"unknown demo: {name}")
            known = ", ".join(sorted(DEMOS))
            return self.notice(
                f"Unknown demo “{escape(name)}” (known: {escape(known)})", error=True, block=True
            )
        return (
            f'<table class="demo" cellspacing="0" cellpadding="0" style="margin-top: 8px; '
            f'margin-bottom: 12px;"><tr><td bgcolor="{p.link}" style="padding: 8px 16px;">'
            f'<a href="demo:{_url(name)}" style="color: {p.background}; text-decoration: none; '
            f'font-weight: bold;">▶ Open the {escape(name)} demo</a></td></tr></table>'
            f'<p style="color: {p.muted}; margin-top: 0;">{escape(DEMOS[name].description)}</p>'
        )

    def tag_html(self, tag: str) -> str:
        return tag_chip(tag, self.palette)


def tag_chip(tag: str, pal: EntryColours) -> str:
    return (
        f'<a class="tag" href="tag:{escape(_url(tag))}" style="color: {pal.chip_text}; '
        f'background-color: {pal.chip_bg}; text-decoration: none;">&#160;#{escape(tag)}&#160;</a>'
    )


def section_of(body: str, heading: str) -> str:
    """The part of ``body`` under the heading named ``heading`` (case-insensitive)."""
    lines = body.splitlines()
    masked = mask_code(body).splitlines()
    want = heading.strip().lower()
    start = level = None
    for i, line in enumerate(masked):
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        if start is None and m.group(2).strip().lower() == want:
            start, level = i, len(m.group(1))
        elif start is not None and level is not None and len(m.group(1)) <= level:
            return "\n".join(lines[start:i])
    if start is None:
        return f"*(no heading “{heading}” in this entry)*"
    return "\n".join(lines[start:])


def block_of(body: str, block: str) -> str:
    for para in re.split(r"\n\s*\n", body):
        if re.search(rf"\s\^{re.escape(block)}\s*$", para, re.M):
            return para
    return f"*(no block ^{block} in this entry)*"


# ---------------------------------------------------------------------- source pass
def _find_fences(text: str) -> list[tuple[int, int, str, str, str]]:
    """(start, end, prefix, info, code) of each fenced block, including those in quotes."""
    found = []
    pos = 0
    open_: tuple[int, str, str, str] | None = None  # start, fence, prefix, info
    code: list[str] = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        stripped = body.lstrip(" >")
        prefix = body[: len(body) - len(stripped)]
        if open_ is None:
            m = _FENCE_OPEN_RE.match(stripped)
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                open_ = (pos, m.group(1), prefix, m.group(2))
                code = []
        else:
            m = _FENCE_OPEN_RE.match(stripped)
            fence = open_[1]
            if m and not m.group(2) and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                found.append((open_[0], pos + len(body), open_[2], open_[3], "\n".join(code)))
                open_ = None
            else:
                pfx = open_[2]
                if body.startswith(pfx):
                    code.append(body[len(pfx) :])
                elif ">" in pfx:
                    code.append(re.sub(r"^[ >]*> ?", "", body))
                else:
                    code.append(body)
        pos += len(line)
    if open_ is not None:
        found.append((open_[0], len(text), open_[2], open_[3], "\n".join(code)))
    return found


_LIST_ITEM_RE = re.compile(r"^( *)([-*+]|\d{1,9}[.)])( {1,4}|$)")


def _normalise_list_indent(lines: list[str]) -> list[str]:
    """Re-indent nested lists by python-markdown's rule (4 spaces a level).

    Obsidian and CommonMark nest an item indented to its parent's content column (2 spaces
    under "- ", 3 under "1. ") and let a list start right under a paragraph line;
    python-markdown wants 4 spaces and a blank line, and would otherwise flatten them.
    """
    stack: list[int] = []  # content column of each open list item
    out: list[str] = []
    prev_blank, prev_text = True, False  # previous line: blank / paragraph text
    for line in lines:
        if not line.strip():
            out.append(line)
            prev_blank, prev_text = True, False
            continue
        indent = len(line) - len(line.lstrip(" "))
        m = _LIST_ITEM_RE.match(line)
        if m and (stack or indent < 4):
            while stack and indent < stack[-1]:
                stack.pop()
            if not stack and prev_text and m.group(2) in ("-", "*", "+", "1.", "1)"):
                out.append("")  # a list may interrupt a paragraph
            out.append(" " * (4 * len(stack)) + line[indent:])
            stack.append(indent + len(m.group(2)) + max(1, len(m.group(3))))
            prev_blank, prev_text = False, False
            continue
        if stack and indent > 0:
            while stack and indent < stack[-1]:
                stack.pop()
            out.append(" " * (4 * len(stack)) + line[indent:] if stack else line)
        else:
            if prev_blank and indent == 0:
                stack = []  # the list has ended
            out.append(line)
        prev_blank, prev_text = False, not stack
    return out


def _dangerous_elements(text: str) -> list[tuple[int, int]]:
    """(start, end) of each raw ``<script>…</script>``-like element, in linear time.

    What ``<(name)…>.*?</\1>`` would find, without its lazy ``.*?`` rescanning the rest of
    the text from every unclosed ``<svg>`` (20k of them took 8–11 s): each search
    for a closing tag starts where the last one ended, and a name found unclosed once is
    never searched for again.
    """
    found: list[tuple[int, int]] = []
    unclosed: set[str] = set()
    pos = 0
    while True:
        m = _DANGEROUS_OPEN_RE.search(text, pos)
        if m is None:
            return found
        name = m.group(1).lower()
        if name in unclosed:
            pos = m.end()
            continue
        close = re.compile(rf"</{name}\s*>", re.I).search(text, m.end())
        if close is None:
            unclosed.add(name)
            pos = m.end()
            continue
        found.append((m.start(), close.end()))
        pos = close.end()


# The brackets of such a paragraph become two private-use characters the entry does not
# use, put back after python-markdown: escaping them (``\[``) made each one an inline
# placeholder that rebuilds the paragraph's string, quadratic again (10⁶ unclosed ``[[``,
# cut to 100,000 characters: 21 s).
_PRIVATE_USE = (
    range(0xF8FF, 0xDFFF, -1),
    range(0xFFFFD, 0xEFFFF, -1),
    range(0x10FFFD, 0xFFFFF, -1),
)


def _stand_ins(text: str) -> tuple[str, str] | None:
    """Two private-use characters absent from ``text`` (stand-ins for ``[`` and ``]``), or
    None when it holds all 137,000 of them."""
    free = (c for r in _PRIVATE_USE for cp in r if (c := chr(cp)) not in text)
    pair = (next(free, None), next(free, None))
    return None if pair[1] is None else pair  # type: ignore[return-value]


def _defuse_brackets(text: str, ctx: RenderContext) -> str:
    """Take the brackets of paragraphs that hold hundreds of them out of python-markdown's
    sight (links there are lost): stand-ins, put back by :func:`markdown_to_html`."""
    paragraphs = re.split(r"(\n[ \t>]*\n)", text)
    pair = _stand_ins(text)
    opening, closing = pair or ("[", "]")
    stand_in = {"[": opening, "]": closing, "\\[": opening, "\\]": closing}  # \[ shows as [
    hit = False
    for i in range(0, len(paragraphs), 2):
        if paragraphs[i].count("[") > MAX_BRACKETS_PER_PARAGRAPH:
            if pair is None:  # escaped: slow (quadratic), and only past the body's length cap
                paragraphs[i] = re.sub(r"(?<!\\)([\[\]])", r"\\\1", paragraphs[i])
            else:
                paragraphs[i] = re.sub(r"\\?[\[\]]", lambda m: stand_in[m[0]], paragraphs[i])
            hit = True
    if hit and pair is not None:
        ctx.bracket_stand_ins.update({opening: "[", closing: "]"})
    if hit:
        ctx.problems.append("a paragraph with hundreds of brackets is shown without links")
    return "".join(paragraphs)


class _TrustedStash:
    """Our own HTML goes through python-markdown's stash, marked trusted: the sanitiser
    cleans only what the entry's author wrote, never the renderer's markup."""

    md: markdown.Markdown  # set by the python-markdown processor this is mixed into

    def __init__(self, md: markdown.Markdown, ctx: RenderContext, trusted: set[int]) -> None:
        super().__init__(md)  # type: ignore[call-arg]  # the processor's, next in the MRO
        self.ctx = ctx
        self.trusted = trusted

    def stash(self, html: str) -> str:
        placeholder = self.md.htmlStash.store(html)
        self.trusted.add(self.md.htmlStash.html_counter - 1)
        return placeholder


class _SourcePreprocessor(_TrustedStash, Preprocessor):
    def _block(self, html: str, prefix: str) -> str:
        """A placeholder on a paragraph of its own, for a span that starts mid-line."""
        ph = self.stash(html)
        return f"\n\n{prefix}{ph}\n\n"

    def _block_lines(self, html: str, prefix: str) -> str:
        """The same for a span of whole lines (a fence), inside a quote or list if it was."""
        quote_pfx = prefix.rstrip() if ">" in prefix else ""
        return f"{quote_pfx}\n{prefix}{self.stash(html)}\n{quote_pfx}"

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        ctx = self.ctx
        spans: list[tuple[int, int, str]] = []
        starts: list[int] = []  # taken spans, sorted and disjoint
        ends: list[int] = []

        def free(s: int, e: int) -> bool:
            i = bisect.bisect_right(starts, s)
            if i and ends[i - 1] > s:
                return False
            return i == len(starts) or starts[i] >= e

        def add(s: int, e: int, html: str) -> None:
            i = bisect.bisect_right(starts, s)
            starts.insert(i, s)
            ends.insert(i, e)
            spans.append((s, e, html))

        for start, end, prefix, info, code in _find_fences(text):
            lang = info.split()[0].lower() if info.split() else ""
            if lang == "demo":
                html = ctx.demo_html(code.strip().splitlines()[0] if code.strip() else "")
            elif lang == "math":
                html = ctx.math_html(code, True, True)
            else:
                html = ctx.code_html(code, lang)
            add(start, end, self._block_lines(html, prefix))

        if "%%" in text:
            masked_no_comments = mask_code(text.replace("%%", "\x00\x00"))
            for m in re.finditer(r"\x00\x00.*?(?:\x00\x00|\Z)", masked_no_comments, re.S):
                if free(m.start(), m.end()):
                    add(m.start(), m.end(), "")
        masked = mask_code(text)
        # (skipped when there are hundreds: the scan would turn quadratic; the sanitiser
        # still drops the tags, only their text would show)
        if "<" in masked:
            for start, end in _dangerous_elements(masked):
                if free(start, end):
                    add(start, end, "")

        def line_bounds(s: int, e: int) -> tuple[str, bool]:
            ls = text.rfind("\n", 0, s) + 1
            le = text.find("\n", e)
            le = len(text) if le == -1 else le
            before, after = text[ls:s], text[e:le]
            alone = not before.strip(" >") and not after.strip()
            return before, alone

        if "$" in masked:
            for m in mathtex.DISPLAY_MATH_RE.finditer(masked):
                if not free(m.start(), m.end()):
                    continue
                before, alone = line_bounds(m.start(), m.end())
                tex = text[m.start(1) : m.end(1)]
                if ">" in before:  # display math inside a callout: drop the quote markers
                    tex = re.sub(r"(?m)^[ >]*> ?", "", tex)
                html = ctx.math_html(tex, True, alone)
                if alone and ">" not in before:
                    add(m.start(), m.end(), self._block(html, before))
                else:
                    add(m.start(), m.end(), self.stash(html))
        if "[[" in masked:
            for m in WIKILINK_RE.finditer(masked):
                if not free(m.start(), m.end()):
                    continue
                html, is_block = ctx.wikilink_html(text[m.start(2) : m.end(2)], m.group(1) == "!")
                before, alone = line_bounds(m.start(), m.end())
                if is_block and alone and ">" not in before:
                    add(m.start(), m.end(), self._block(html, before))
                else:
                    add(m.start(), m.end(), self.stash(html))
        if "$" in masked:
            for m in mathtex.INLINE_MATH_RE.finditer(masked):
                if free(m.start(), m.end()):
                    add(
                        m.start(),
                        m.end(),
                        self.stash(ctx.math_html(text[m.start(1) : m.end(1)], False, False)),
                    )
        if "^" in masked:
            for m in _BLOCK_ID_RE.finditer(masked):
                if free(m.start(), m.end()):
                    add(
                        m.start(),
                        m.end(),
                        self.stash(f'<a name="^{escape(m.group(1))}">&#8203;</a>'),
                    )
        if "#" in masked:
            blocked = [
                (m.start(), m.end())
                for rx in (URL_RE, MDLINK_RE, _RAW_TAG_RE)
                for m in rx.finditer(masked)
            ]
            for m in TAG_RE.finditer(masked):
                s, e = m.start(), m.end()
                if not free(s - 1, e) or any(a <= s < b for a, b in blocked):
                    continue
                tag = m.group(1).strip("/")
                if tag:
                    add(s - 1, e, self.stash(ctx.tag_html(tag)))
        if spans:
            spans.sort()
            out: list[str] = []
            pos = 0
            for s, e, html in spans:
                out.append(text[pos:s])
                out.append(html)
                pos = e
            out.append(text[pos:])
            text = "".join(out)
        if text.count("[") > MAX_BRACKETS_PER_PARAGRAPH:
            text = _defuse_brackets(text, ctx)
        return _normalise_list_indent(text.split("\n"))


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
        kind, accent, bg, icon = callout_style(self.ctx.palette, m.group(1))
        title = m.group(3).strip() or m.group(1).strip().capitalize()
        table = etree.SubElement(
            parent,
            "table",
            {
                "class": f"callout callout-{kind}",
                "width": "100%",
                "cellspacing": "0",
                "cellpadding": "0",
                "style": "margin-top: 8px; margin-bottom: 14px;",
            },
        )
        tr = etree.SubElement(table, "tr")
        bar = etree.SubElement(tr, "td", {"width": "4", "bgcolor": accent})
        bar.text = "\u200a"
        cell = etree.SubElement(tr, "td", {"bgcolor": bg, "style": "padding: 8px 14px;"})
        head = etree.SubElement(
            cell, "p", {"class": "callout-title", "style": "margin-top: 2px; margin-bottom: 4px;"}
        )
        span = etree.SubElement(head, "span", {"style": f"color: {accent}; font-weight: bold;"})
        span.text = f"{icon}  {title}"
        body = (
            "\n".join(_QUOTE_PREFIX_RE.sub("", line) for line in rest.split("\n")) if rest else ""
        )
        if body.strip():
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


class _PageTreeprocessor(_TrustedStash, Treeprocessor):
    """Anchors on headings, task boxes, table styling, and the vault's link/image rules."""

    def run(self, root: etree.Element) -> None:
        p = self.ctx.palette
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
        bar = etree.SubElement(tr, "td", {"width": "3", "bgcolor": self.ctx.palette.table_border})
        bar.text = "\u200a"
        cell = etree.SubElement(tr, "td", {"style": "padding: 0px 0px 0px 14px;"})
        cell.text = text
        cell.extend(kids)

    def _link(self, parent: etree.Element, a: etree.Element) -> None:
        href = a.get("href", "")
        cls = a.get("class", "")
        if cls.startswith("footnote") or href.startswith("#"):
            a.set("style", f"color: {self.ctx.palette.link}; text-decoration: none;")
            return
        decision = self.ctx.url_policy(href, "link", {})
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
        attrs = {"alt": img.get("alt", "")}
        decision = self.ctx.url_policy(img.get("src", ""), "image", attrs)
        if decision is not None and decision[0] == "href":
            img.set("src", decision[1])
            img.attrib.pop("title", None)
            return
        html = decision[1] if decision else ""
        span = etree.Element("span")
        span.text = self.stash(html)
        span.tail = img.tail
        idx = list(parent).index(img)
        parent.remove(img)
        parent.insert(idx, span)

    def _task(self, parent: etree.Element, li: etree.Element) -> None:
        holder = li
        if not (li.text or "").strip() and len(li) and li[0].tag == "p":
            holder = li[0]
        text = holder.text or ""
        m = re.match(r"^\s*\[([ xX])\]\s+", text)
        if not m:
            return
        done = m.group(1) != " "
        holder.text = ("☑ " if done else "☐ ") + text[m.end() :]
        li.set("class", "task done" if done else "task")
        parent.set("style", "list-style-type: none; margin-left: -8px;")
        if done:
            li.set("style", f"color: {self.ctx.palette.muted};")


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
                block, self.ctx.url_policy, highlight_bg=self.ctx.palette.highlight_bg
            )
        return text


class AnthologyExtension(Extension):
    def __init__(self, ctx: RenderContext) -> None:
        super().__init__()
        self.ctx = ctx

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        trusted: set[int] = set()
        ctx = self.ctx
        md.preprocessors.register(_SourcePreprocessor(md, ctx, trusted), "anthology-source", 28)
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


def markdown_to_html(body: str, ctx: RenderContext) -> str:
    """Render one Markdown body; raises RecursionError on pathological nesting."""
    md = markdown.Markdown(
        extensions=[
            TableExtension(),
            FootnoteExtension(UNIQUE_IDS=ctx.depth > 0),
            TocExtension(
                marker="[TOC]", anchorlink=False, permalink=False, slugify=slugify_unicode
            ),
            SmartyExtension(),
            SaneListExtension(),
            AnthologyExtension(ctx),
        ],
        output_format="html",
    )
    html = md.convert(body)
    if ctx.bracket_stand_ins:  # see _defuse_brackets
        html = html.translate(str.maketrans(ctx.bracket_stand_ins))
    if ctx.depth == 0:
        _flatten_toc(getattr(md, "toc_tokens", []), ctx.headings)
    return html
