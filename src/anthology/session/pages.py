"""The pages an entry pane keeps, without Qt: what a laid-out page is keyed by, and the
last few kept for a revisit.

A page is the laid-out document of one render (:class:`~anthology.vault.render.RenderedEntry`)
at one :class:`PageLook` (the reading settings and the pane's width: figures and pictures
are drawn to fit the column). :class:`KeptPages` holds the last :data:`PAGE_CACHE_SIZE`
pages a pane showed, by render (each page keeps its render alive, so a render's id is never
another's while its page is kept), and the one page made ahead for the link pointed at. It
never deletes a document: it says which ones it let go, and the pane deletes those it does
not show. The documents and pictures are the pane's (``D`` and ``I``): any object will do.

:func:`heading_key` is how a heading's text is matched between the renderer's table of
contents and the laid-out page (the pane scrolls to it, the outline follows it).
"""

from __future__ import annotations

import html
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, TypeVar

from anthology.vault.render import RenderedEntry
from anthology.vault.render.reading import ReadingStyle

PAGE_CACHE_SIZE = 8  # laid-out pages kept per pane (a revisit swaps one back in)
FOLD_MARKERS = ("▾\u00a0", "▸\u00a0")  # before each heading (render: fold:hN links)

D = TypeVar("D")  # a laid-out document
I = TypeVar("I")  # noqa: E741 — a picture the document shows


def heading_key(text: str) -> str:
    """A heading's text as compared across the TOC token and the laid-out block (the
    block's fold marker, and a folded one's " …", left out; case and spacing ignored)."""
    text = html.unescape(text)
    if text.startswith(FOLD_MARKERS):
        text = text[2:].removesuffix(" …")
    return " ".join(text.split()).casefold()


@dataclass(frozen=True)
class PageLook:
    """What a page's layout and pictures depend on besides its render."""

    style: ReadingStyle
    readable: bool  # a centred column of ``line_width`` px, else the whole pane
    line_width: int
    pane_width: int


@dataclass
class Page(Generic[D, I]):
    """A page a pane made: its document, the render it came from, the pictures it loaded,
    and the look it was made for."""

    rendered: RenderedEntry
    doc: D
    images: dict[str, I]
    look: PageLook


class KeptPages(Generic[D, I]):
    """The pages shown lately (the last :attr:`size`, oldest first out) and the one made
    for the link pointed at (:attr:`prefetched`), which joins them once it is shown."""

    def __init__(self, size: int = PAGE_CACHE_SIZE) -> None:
        self.size = size
        self._pages: OrderedDict[int, Page[D, I]] = OrderedDict()
        self.prefetched: Page[D, I] | None = None

    def __len__(self) -> int:
        return len(self._pages)

    def __contains__(self, rendered: RenderedEntry) -> bool:
        page = self._pages.get(id(rendered))
        return page is not None and page.rendered is rendered

    def get(self, rendered: RenderedEntry) -> Page[D, I] | None:
        """The kept page of ``rendered`` (at whatever look)."""
        page = self._pages.get(id(rendered))
        return page if page is not None and page.rendered is rendered else None

    def find(self, rendered: RenderedEntry, look: PageLook) -> Page[D, I] | None:
        """A page of ``rendered`` at ``look``, kept or made ahead; a kept one becomes the
        last to go."""
        page = self.get(rendered)
        if page is not None and page.look == look:
            self._pages.move_to_end(id(rendered))
            return page
        ahead = self.prefetched
        if ahead is not None and ahead.rendered is rendered and ahead.look == look:
            return ahead
        return None

    def keep(self, page: Page[D, I]) -> list[D]:
        """Keep ``page`` (the page made ahead, if it is that one, is kept from now on);
        the documents of the pages that no longer fit are returned."""
        if page is self.prefetched:
            self.prefetched = None
        self._pages[id(page.rendered)] = page
        self._pages.move_to_end(id(page.rendered))
        gone: list[D] = []
        while len(self._pages) > self.size:
            gone.append(self._pages.popitem(last=False)[1].doc)
        return gone

    def make_ahead(self, page: Page[D, I]) -> D | None:
        """``page`` is the one made for the link pointed at; the document of the one it
        replaces is returned."""
        old, self.prefetched = self.prefetched, page
        return old.doc if old is not None and old is not page else None

    def holds(self, doc: D) -> bool:
        """Whether ``doc`` is a kept page's or the page made ahead's."""
        ahead = self.prefetched
        return (ahead is not None and ahead.doc is doc) or any(
            p.doc is doc for p in self._pages.values()
        )

    def drop(self) -> list[D]:
        """Forget every page (another vault, theme or reading settings); their documents."""
        docs = [p.doc for p in self._pages.values()]
        if self.prefetched is not None:
            docs.append(self.prefetched.doc)
        self._pages.clear()
        self.prefetched = None
        return docs
