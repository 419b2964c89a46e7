"""What one render of an entry needs and collects (:class:`RenderContext`), the work it may
do (:class:`RenderBudget` and the ``MAX_*`` limits), and the small HTML pieces of links.

The embeds, the attachments and the stashed blocks (math, code, demos) that a render
makes are functions of a context, in :mod:`.embeds`, :mod:`.urls` and :mod:`.blocks`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from urllib.parse import quote

from anthology.palette import EntryColours

from ..model import EntryLookup, EntryRef

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
# More "[" than this in one paragraph and python-markdown's link scan turns quadratic.
MAX_BRACKETS_PER_PARAGRAPH = 300


def quote_all(text: str) -> str:
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
    callouts: int = 0  # callouts numbered so far: a fold link names one by its number
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
    # the foldable callouts (by number) the reader has flipped from how they are written,
    # and the entry's headings (as "hN", N in reading order) whose sections are folded
    folds: frozenset[int | str] = frozenset()

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
            folds=self.folds,
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
        return f"entry:{quote_all(ident)}" + (f"#{quote_all(heading)}" if heading else "")

    def internal_link(self, ref: EntryRef, text_html: str, heading: str | None) -> str:
        return (
            f'<a class="internal" href="{escape(self.entry_href(ref, heading))}" '
            f'style="color: {self.palette.link}; text-decoration: none;">{text_html}</a>'
        )

    def unresolved_link(self, written: str, text_html: str) -> str:
        p = self.palette
        return (
            f'<a class="unresolved" href="unresolved:{escape(quote_all(written))}" '
            f'title="No entry named “{escape(written)}”" style="color: {p.unresolved}; '
            f'background-color: {p.unresolved_bg}; text-decoration: none;">{text_html}</a>'
        )

    def resolve(self, target: str) -> EntryRef | None:
        try:
            return self.resolver.resolve(target, self.source_path)
        except Exception as exc:
            self.problems.append(f"link lookup failed for {target}: {exc}")
            return None

    def tag_html(self, tag: str) -> str:
        return tag_chip(tag, self.palette)


def tag_chip(tag: str, pal: EntryColours) -> str:
    return (
        f'<a class="tag" href="tag:{escape(quote_all(tag))}" style="color: {pal.chip_text}; '
        f'background-color: {pal.chip_bg}; text-decoration: none;">&#160;#{escape(tag)}&#160;</a>'
    )
