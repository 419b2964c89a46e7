"""What one render of an entry needs and collects (:class:`RenderContext`), the work it may
do (:class:`RenderBudget` and the ``MAX_*`` limits), and the small HTML pieces of links.

The embeds, the attachments and the stashed blocks (math, code, demos) that a render
makes are functions of a context, in :mod:`.embeds`, :mod:`.urls` and :mod:`.blocks`.
"""

from __future__ import annotations

from collections.abc import Callable
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
# headings listed by [TOC] markers in all: each is a styled link, ~0.17 ms of Qt's HTML
# import on the GUI thread (1,000 of them: 0.17 s)
MAX_TOC_ENTRIES = 300
MAX_TABLE_COLUMNS = 64  # cells of a table row past this are dropped
MAX_IMAGES = 300  # pictures shown; the rest become their name
# Qt's HTML importer is quadratic in named anchors (an ``id`` attribute counts as one): 3,000
# headings with both an ``id`` and an ``<a name>`` took 2.4 s in setHtml, with one 0.5 s.
# Headings past this carry no anchor; the pane finds them by their text instead.
MAX_HEADING_ANCHORS = 500
# Nesting (see .nesting): python-markdown sees at most MAX_NESTING quote or list markers at
# the start of a line and lists indented at most MAX_LIST_INDENT columns; Qt draws at most
# MAX_BOXES quotes, callouts, embeds and tables framed inside one another, fewer when the
# text inside them would weigh more than MAX_BOX_WEIGHT (a character 2**depth: Qt lays a
# table's content out about twice per table around it; 20 nested quotes took 46 s).
MAX_NESTING = 20
MAX_LIST_INDENT = 48
MAX_BOXES = 6
MAX_BOX_WEIGHT = 200_000
# The Properties box shows the first MAX_PROPERTY_ROWS properties (each row is laid out
# inside two tables: 200 rows took the pane ~20 ms more than 100) and the first
# MAX_VALUE_ITEMS items of a list (tags too), then how many more: 100k front-matter keys
# were a 16 MB table Qt took 25 s to lay out.
MAX_PROPERTY_ROWS = 100
# Each chip costs Qt's HTML import ~16 µs on the GUI thread (100k body #tags, 14,000 in
# the 100 KB shown: 0.35 s, and 5 s of layout with the first at a line's start, an <h1>)
MAX_TAG_CHIPS = 1000
MAX_VALUE_ITEMS = 100
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
    tags: int = 0  # body #tags drawn as chips
    callouts: int = 0  # callouts numbered so far: a fold link names one by its number
    media_probes: int = 0  # audio and video files whose header was read (media_card)
    markup_cells: int = 0  # query cells whose text was rendered as Markdown (dataview)
    cuts: dict[str, str] = field(default_factory=dict)  # what was cut → how it is shown
    # every question the render asked the index, with its answer: ("entry", target, source
    # path) → the id it resolved to (None: unresolved); ("file", target, source path) → the
    # attachment's path and stat signature (None: missing). A cached render is still true
    # after a refresh when every answer is the same and no entry it resolved to changed
    # (see freshness.py): the window keeps it instead of rendering every page again.
    lookups: dict[tuple[str, str, str], str | None] = field(default_factory=dict)
    # the text of each code block, in order: its "Copy" link (copy:N) copies code_blocks[N]
    code_blocks: list[str] = field(default_factory=list)

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
    # private-use characters python-markdown saw instead of what they stand for (source.py:
    # brackets of crowded paragraphs, "<" of tags that never close): put back after it
    stand_ins: dict[str, str] = field(default_factory=dict)
    chain: tuple[str, ...] = ()
    headings: list[tuple[int, str, str]] = field(default_factory=list)
    budget: RenderBudget = field(default_factory=RenderBudget)
    # the reader's view of the page: the foldable callouts (by number) flipped from how they
    # are written, the headings (as "hN", N in reading order) whose sections are folded, and
    # the page of results shown of a Dataview query (as "qK:N": query K, page N > 0)
    folds: frozenset[int | str] = frozenset()
    # Renders a Markdown body as a page within this render (an embed is one): set by
    # markdown_ext.markdown_to_html, so the embeds it meets call back into it without
    # importing it (the render's modules form no import cycle).
    render_body: Callable[[str, RenderContext], str] | None = None

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
            render_body=self.render_body,
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
            ref = self.resolver.resolve(target, self.source_path)
        except Exception as exc:
            self.problems.append(f"link lookup failed for {target}: {exc}")
            ref = None
        self.budget.lookups[("entry", target, self.source_path)] = ref.id if ref else None
        return ref

    def attachment(self, target: str) -> Path | None:
        """The vault file ``target`` names (written in this entry), or None; raises what
        the resolver raises. Recorded with the file's stat signature."""
        path = self.resolver.attachment(target, self.source_path)
        self.budget.lookups[("file", target, self.source_path)] = file_signature(path)
        return path

    def tag_html(self, tag: str) -> str:
        """A body ``#tag`` as a chip (a link), or as text past :data:`MAX_TAG_CHIPS`."""
        if self.budget.tags >= MAX_TAG_CHIPS:
            self.budget.cut("tags", f"only the first {MAX_TAG_CHIPS} tags are drawn as chips")
            return escape(f"#{tag}")
        self.budget.tags += 1
        return tag_chip(tag, self.palette)


def file_signature(path: Path | str | None) -> str | None:
    """A vault file as a render depends on it: its path, size and modification time (None:
    no file)."""
    if path is None:
        return None
    try:
        st = Path(path).stat()
    except OSError:
        return f"{path}\0gone"
    return f"{path}\0{st.st_size}:{st.st_mtime_ns}"


def tag_chip(tag: str, pal: EntryColours) -> str:
    return (
        f'<a class="tag" href="tag:{escape(quote_all(tag))}" style="color: {pal.chip_text}; '
        f'background-color: {pal.chip_bg}; text-decoration: none;">&#160;#{escape(tag)}&#160;</a>'
    )
