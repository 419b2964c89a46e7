"""The backlinks of the entry shown, as the backlinks panel lists them, without Qt.

An entry's :class:`~anthology.vault.backlinks.BacklinksView` becomes :class:`Group` s (typed
relations first, untyped body links under "mentions", the unlinked mentions last) whose
:class:`Row` s are fetched a :data:`PAGE` at a time; a row is one source, its links' context
lines under its label, made into escaped rich text only when first asked (a page holds
:data:`PAGE` links, a screen shows some twenty rows). :class:`KeptViews` keeps the first
pages of the views shown last, and their unlinked mentions once found: a reader goes back
and forth between a hub and its notes.

Every string from the vault (titles, ids, contexts, snippets, relation names) goes through
:mod:`anthology.vault.render.safe_text` here: a row is painted as rich text and its tooltip
read as rich text, so a title of 3,000 nested ``<table>`` must reach the widget escaped.

The panel (:mod:`anthology.ui.panels.backlinks_panel`) is the Qt model and delegate over
these; the search panel takes :func:`snippet_html` from here, and the window the index's
query caps (:data:`SOURCES_SHOWN`, :data:`COUNT_SHOWN`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from anthology.tasks import TaskState
from anthology.vault import BacklinksView, LinkRow, SearchHit, display_labels
from anthology.vault.render.inline import InlineHtml, inline_html
from anthology.vault.render.safe_text import MAX_SHOWN_CHARS, html_text, plain_text, tooltip_html

LINES_SHOWN = 6  # context lines under one source; past them "and N more"
# links per page: a screen shows some twenty rows, and a click on an entry next to a hub built
# 100 rows in each of its groups (50 cut the backlinks' share of a click by ~5 ms at 10k)
PAGE = 50
MENTIONS = "mentions"
UNLINKED = "Unlinked mentions"
NO_BACKLINKS = "No backlinks"
MATH_SCALE = 0.8  # formulas typeset for the page, drawn at the panel's smaller size
# Entries linking here are counted up to this many (a hub's 100,000 took 0.2 s to count;
# to 10,000, 18 ms): the title says "1,000+" past it. See VaultIndex.backlink_groups.
SOURCES_SHOWN = 1_000
# A group's links likewise (a hub's 750,000 mentions took 60 ms): "mentions (50,000+)",
# paged on until a page comes back short. See VaultIndex.backlink_groups(count_cap=…).
COUNT_SHOWN = 50_000
# Views whose first pages are kept as rows (see KeptViews).
BUILT_KEPT = 16

PageFn = Callable[[str | None, int, int], list[LinkRow]]
ContextFn = Callable[[LinkRow], str]


def highlight_link(context: str, text: str, alias: str | None, *, typeset: bool = False,
                   theme: str = "light") -> InlineHtml:  # fmt: skip
    """The context line as it reads (see :mod:`anthology.vault.render.inline`): links as
    their text, emphasis, code and math as such, cut at words around the link to ``text``."""
    return inline_html(context, focus_link=text or alias, theme=theme, typeset=typeset,
                       math_scale=MATH_SCALE)  # fmt: skip


def snippet_html(snippet: str, *, theme: str = "light") -> str:
    """A search snippet as inline HTML: the line as it reads, each match marked."""
    return inline_html(snippet, limit=MAX_SHOWN_CHARS, theme=theme).html


def find_mentions(
    _state: TaskState, entry_id: str, search: Callable[[str], list[SearchHit]]
) -> tuple[str, list[SearchHit]]:
    """``search(entry_id)`` on a runner's thread (the unlinked mentions); touches no widget."""
    try:
        return entry_id, search(entry_id)
    except Exception:  # a closed or replaced index: the mentions are simply not shown
        return entry_id, []


def no_page(relation: str | None, offset: int, limit: int) -> list[LinkRow]:
    return []


class Row:
    """A row: the source's label over its context lines (each link's, or an unlinked
    mention's snippet), a source with several links in a group once. Its strings are made
    when first asked."""

    __slots__ = ("_context_of", "_contexts", "_html", "_images", "_label", "_muted",
                 "_sources", "_theme", "_tooltip", "doc", "entry_id")  # fmt: skip

    def __init__(
        self,
        source: LinkRow | SearchHit,
        muted: str,
        context_of: ContextFn | None = None,
        label: str | None = None,
        theme: str = "light",
    ) -> None:
        ref = source.source if isinstance(source, LinkRow) else source.entry
        self._theme = theme
        self.entry_id = ref.id
        # As display_labels gives it over the row's page; alone, the source's own.
        self._label = ref.short_label if label is None else label
        self._sources: list[LinkRow | SearchHit] = [source]
        self._muted, self._context_of = muted, context_of
        self._contexts: list[str] | None = None
        self._html: str | None = None
        self._images: dict[str, bytes] = {}
        self._tooltip: str | None = None
        # What the view keeps to paint it (the panel's laid-out document), dropped whenever
        # its strings change; the view's own business.
        self.doc: object | None = None

    def joins(self, other: Row) -> bool:
        """Whether ``other`` is another link of this row's source (to be shown here)."""
        return (
            other.entry_id == self.entry_id
            and isinstance(self._sources[0], LinkRow)
            and isinstance(other._sources[0], LinkRow)
        )

    def restyle(self, muted: str, theme: str) -> None:
        """Drawn again in another theme's colours (its strings are made anew when asked)."""
        self._muted, self._theme = muted, theme
        self._html = self.doc = None

    def add(self, other: Row) -> None:
        self._sources.extend(other._sources)
        self._contexts = self._html = self._tooltip = self.doc = None

    def joined(self, other: Row) -> Row:
        """This row with ``other``'s links too, as a new row: a row once shown is kept as
        it is (the panel shows it again when its entry is revisited)."""
        row = Row.__new__(Row)
        row._theme, row.entry_id, row._label = self._theme, self.entry_id, self._label
        row._sources = [*self._sources, *other._sources]
        row._muted, row._context_of = self._muted, self._context_of
        row._contexts = row._html = row._tooltip = row.doc = None
        row._images = {}
        return row

    @property
    def links(self) -> int:
        """How many links (or mentions) of its source the row holds."""
        return len(self._sources)

    @property
    def lines(self) -> int:
        """Context lines under the label (the "and N more" line counted)."""
        n = len(self._sources)
        return n if n <= LINES_SHOWN else LINES_SHOWN + 1

    def _context(self, src: LinkRow) -> str:
        found = src.context
        if not found and src.span is not None and self._context_of is not None:
            try:
                found = self._context_of(src)
            except Exception:  # a closed or replaced index: the line is left out
                found = ""
        return found

    @property
    def contexts(self) -> list[str]:
        """Each link's context line: as it came, or cut from its source when first shown
        (a page of links read every body to show twenty)."""
        if self._contexts is None:
            self._contexts = [
                self._context(src) if isinstance(src, LinkRow) else src.snippet
                for src in self._sources[:LINES_SHOWN]
            ]
        return self._contexts

    @property
    def context(self) -> str:
        """The first link's context line."""
        return self.contexts[0] if self.contexts else ""

    def _inline(self) -> list[InlineHtml]:
        out = []
        for src, context in zip(self._sources, self.contexts, strict=False):
            if isinstance(src, LinkRow):
                out.append(
                    highlight_link(context, src.text, src.alias, typeset=True, theme=self._theme)
                )
            else:
                out.append(inline_html(context, limit=MAX_SHOWN_CHARS, theme=self._theme))
        return out

    @property
    def html(self) -> str:
        """Escaped rich text: the label in bold, then each muted context line."""
        if self._html is None:
            lines = self._inline()
            self._images = {k: v for line in lines for k, v in line.resources.items()}
            more = len(self._sources) - LINES_SHOWN
            shown = [line.html for line in lines]
            if more > 0:
                shown.append(f"<i>and {more} more</i>")
            self._html = f"<b>{html_text(self._label, MAX_SHOWN_CHARS)}</b>" + "".join(
                f"<br><span style='color:{self._muted}'>{line}</span>" for line in shown
            )
        return self._html

    @property
    def images(self) -> dict[str, bytes]:
        """The typeset formulas :attr:`html` names, by resource key."""
        if self._html is None:
            _ = self.html
        return self._images

    def _plain_lines(self) -> list[str]:
        return [line.text for line in self._inline()]

    @property
    def text(self) -> str:
        """The same as plain text (a screen reader, DisplayRole)."""
        lines = [plain_text(line, 500) for line in self._plain_lines()]
        return "\n".join([plain_text(self._label, MAX_SHOWN_CHARS), *lines])

    @property
    def tooltip(self) -> str:
        # Qt would read a tooltip that looks like HTML as HTML: give it escaped text only.
        if self._tooltip is None:
            self._tooltip = tooltip_html("\n".join([self._label, *self._plain_lines()]))
        return self._tooltip


def rows_of(
    links: list[LinkRow],
    muted: str,
    context_of: ContextFn | None = None,
    theme: str = "light",
) -> list[Row]:
    """A row per source, its consecutive links (a page's links come by source) in it."""
    labels = display_labels([link.source for link in links])  # told apart per page
    rows: list[Row] = []
    for link, label in zip(links, labels, strict=True):
        row = Row(link, muted, context_of, label, theme)
        if rows and rows[-1].joins(row):
            rows[-1].add(row)
        else:
            rows.append(row)
    return rows


def mention_rows(hits: list[SearchHit], muted: str, theme: str = "light") -> list[Row]:
    """A row per unlinked mention (its snippet the one line), labels told apart."""
    labels = display_labels([hit.entry for hit in hits])
    pairs = zip(hits, labels, strict=True)
    return [Row(hit, muted, label=label, theme=theme) for hit, label in pairs]


@dataclass
class Group:
    title: str
    relation: str | None = None
    count: int = 0  # links under it; only these groups page
    paged: bool = False
    rows: list[Row] = field(default_factory=list)
    wanted: bool = False  # the reader asked for the next page (clicked or scrolled to it)
    open_ended: bool = False  # counted only up to COUNT_SHOWN: more than ``count``
    fetched: int = 0  # links fetched so far (a row holds all of one source's)

    @property
    def left(self) -> int:
        """Links not fetched yet (a page's worth while the count is open-ended)."""
        if not self.paged:
            return 0
        return PAGE if self.open_ended else self.count - self.fetched

    @property
    def more_label(self) -> str:
        """What the "Show more" row after the rows says."""
        if self.open_ended:
            return f"Show {PAGE} more"
        return f"Show {min(self.left, PAGE)} more ({self.left} not shown)"

    def take(self, rows: list[Row]) -> list[Row]:
        """Add a page's rows: the first one joins the last row when both are the same
        source's (a source's links come together, a page may end among them). The rows
        that are new are returned."""
        if rows and self.rows and self.rows[-1].joins(rows[0]):
            self.rows[-1] = self.rows[-1].joined(rows[0])
            rows = rows[1:]
        self.rows.extend(rows)
        return rows

    def first_page(self, page: PageFn, rows: Callable[[list[LinkRow]], list[Row]]) -> None:
        """Fetch the group's first page (as the panel opens) with ``page``, made into rows
        by ``rows``; a page shorter than asked ends the group."""
        links = page(self.relation, self.fetched, PAGE) if self.left > 0 else []
        self.fetched += len(links)
        self.take(rows(links))
        if not links or (self.open_ended and len(links) < PAGE):
            self.count = self.fetched  # the index changed under us: stop asking
            self.open_ended = False

    def is_last(self, links: list[LinkRow]) -> bool:
        """Whether ``links``, the page fetched after :attr:`fetched`, is the group's last."""
        if self.open_ended:  # how many there are is not known: a short page is the last
            return len(links) < PAGE
        return self.fetched + len(links) >= self.count or not links


@dataclass
class Header:
    """The panel's title over the groups, and its tooltip."""

    title: str
    tooltip: str


def groups_of(view: BacklinksView | None) -> tuple[list[Group], Header]:
    """The groups ``view`` lists (no rows fetched yet) and the header counting them: the
    entries each group lists (a source with several links in a group once), summed; without
    those counts, the links. None: no entry."""
    if view is None:
        return [], Header("Backlinks", "")
    per_group = view.group_sources
    shown: list[Group] = []
    total, capped = 0, False
    for k, (relation, count) in enumerate(view.groups):
        # A group's title is drawn as plain text; the relation is a front-matter key, cut
        # and rid of bidi controls all the same.
        name = plain_text(relation, 200) if relation is not None else MENTIONS
        listed, cap = count, COUNT_SHOWN
        if per_group is not None and k < len(per_group):
            listed, cap = per_group[k], SOURCES_SHOWN
        if listed > cap or (per_group is None and count > COUNT_SHOWN):
            total, capped = total + cap, True
            title = f"{name} ({cap:,}+)"
        else:
            total += listed
            title = f"{name} ({listed:,})"
        shown.append(Group(title, relation, count, paged=True, open_ended=count > COUNT_SHOWN))
    if not view.groups:
        shown.append(Group(NO_BACKLINKS))
    many = f"{total:,}+" if capped else f"{total:,}"
    tip = "Entries linking here, counted once per group they are listed in"
    return shown, Header(f"Backlinks · {many}", tip)


def unlinked_group(hits: list[SearchHit], muted: str, theme: str = "light") -> Group:
    """The (collapsed) group of the unlinked mentions ``hits``."""
    return Group(f"{UNLINKED} ({len(hits)})", rows=mention_rows(hits, muted, theme))


# A group's first page as built: its rows, links fetched, links counted, open-ended.
Shown = tuple[tuple[Row, ...], int, int, bool]


@dataclass
class Kept:
    """What is kept of a view shown (see :class:`KeptViews`)."""

    view: BacklinksView  # kept with the rest, so that its id is not another's
    pages: list[Shown]  # each paged group's first page
    unlinked: list[SearchHit] | None = None  # the mentions found for it, once found


class KeptViews:
    """The first pages of the views shown last, as rows (their paint kept by the rows), by
    view: the index answers the same view for an entry until it changes
    (``VaultIndex.backlinks_view``), and a reader goes back and forth between a hub and its
    notes. Its unlinked mentions too, once found: a search each visit took a worker's time
    (and the interpreter's) from the next click."""

    def __init__(self, size: int = BUILT_KEPT) -> None:
        self.size = size
        self._kept: OrderedDict[int, Kept] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, view: BacklinksView | None) -> Kept | None:
        """What is kept of ``view``, if it was shown before (the same object)."""
        kept = self._kept.get(id(view)) if view is not None else None
        return kept if kept is not None and kept.view is view else None

    def restore(self, view: BacklinksView, paged: list[Group]) -> bool:
        """Give ``paged`` (the view's paged groups, made anew) the first pages kept for
        ``view``; False when nothing is kept of it."""
        kept = self.get(view)
        if kept is None:
            return False
        self._kept.move_to_end(id(view))
        for group, (rows, fetched, count, open_ended) in zip(paged, kept.pages, strict=True):
            group.rows, group.fetched = list(rows), fetched
            group.count, group.open_ended = count, open_ended
        return True

    def keep(self, view: BacklinksView, paged: list[Group]) -> None:
        """Keep the first pages of ``paged`` (just fetched) for ``view``."""
        pages = [(tuple(g.rows), g.fetched, g.count, g.open_ended) for g in paged]
        self._kept[id(view)] = Kept(view, pages)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

    def clear(self) -> None:
        self._kept.clear()
