"""The entry pane: one entry rendered as a document, its links turned into signals.

The pane is three layers: :class:`~anthology.ui.reading.page_links.PageLinks` (what a link
of the page does), :class:`~anthology.ui.reading.page_diagrams.PageDiagrams` (its Mermaid
diagrams) and :class:`EntryPane` here (rendering, the pages kept, pictures, the looks).

Rendering is :func:`anthology.vault.render.render_entry` (pure Python, cached); this widget
only shows the result, serves its images (``math:`` from the render, ``vault:`` from disk,
inside the vault only) and never touches the network: ``http(s)`` and ``mailto`` links open
in the system browser on a click, remote images are never loaded.

Attachments open with the system only when :func:`anthology.vault.attachments.open_policy`
says so (documents and media); anything else asks first, naming the real file, and offers
only "Show in folder". Pictures are loaded by :mod:`anthology.ui.reading.vault_images` (inside the
vault only; SVGs lose their external references before Qt draws them, and every picture is
rasterised at most ``MAX_IMAGE_SIDE`` device pixels a side: a 105-byte SVG declaring
12000×12000 would otherwise cost gigabytes).

Bodies longer than :attr:`EntryPane.background_render_chars` render on a
:class:`~anthology.ui.common.task_runner.TaskRunner` (pure Python, no widgets there); the pane
shows the title and "Rendering…" meanwhile, and a newer navigation cancels it (a late result
is dropped). A worker never asks the window's index: it borrows the
:class:`~anthology.vault.shared_reader.SharedReader` given to :meth:`EntryPane.set_vault`
(a connection and a lock of its own, closed only once the last worker gives it back), so
the GUI thread never waits on a lock a render holds and closing a vault closes nothing a
render still reads.

Mermaid diagrams (``mermaid:`` resources, :mod:`anthology.vault.render.mermaid`) are never
drawn here: the page shows a "Drawing diagram…" box for each one not drawn before, a
:class:`~anthology.ui.reading.diagram_images.DiagramDrawer` draws them on a worker (each in
the drawing process, with a timeout) and each is swapped in as it comes, only its lines laid
out again; one that cannot be drawn is replaced by its source and the reason. Leaving the
entry cancels the drawing (the process is killed). A click on a node of class
``internal-link`` is hit-tested on the picture against the node boxes read from its SVG.

A page once laid out is kept: the pane holds the :class:`QTextDocument` of the last
:data:`PAGE_CACHE_SIZE` pages it showed (with their pictures; the Qt-free
:class:`~anthology.session.pages.KeptPages` says which) and swaps one back in with
``setDocument`` when the same render comes up again (a revisit, back and forward), instead
of parsing its HTML again. A page is reused only for the very render it was made from (the
render cache keys it by the file's mtime and contents, the index generation, the theme and
the folds) and the same reading settings and pane width: an edited file, another theme or
font size makes a new page. The document shown may be a cached one, so nothing writes
into it: :meth:`EntryPane.setHtml` and :meth:`EntryPane.clear` start a fresh document.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QPoint, Qt, QThread, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QIcon,
    QImage,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QTextBrowser,
    QWidget,
)

from anthology.session.pages import PAGE_CACHE_SIZE, KeptPages, Page, PageLook, heading_key
from anthology.tasks import Cancelled, TaskState
from anthology.ui.common.document import (
    ENTRY,
    DocumentKind,
    OpenVault,
    register,
)
from anthology.ui.common.step_queue import when_quiet
from anthology.ui.common.task_runner import TaskRunner
from anthology.ui.reading.diagram_images import (
    DiagramDrawer,
    diagram_image,
    drawing_placeholder,
    outcome_of,
)
from anthology.ui.reading.page_diagrams import PageDiagrams
from anthology.ui.reading.page_links import split_href
from anthology.ui.reading.paper import paper_copy
from anthology.ui.reading.pdf_pages import PdfPictures
from anthology.ui.reading.text_find import TextMatches
from anthology.ui.reading.vault_images import load_vault_image, placeholder, svg_picture, vault_file
from anthology.vault import Entry, EntryLookup
from anthology.vault.render import (
    RenderedEntry,
    find_heading,
    highlight,
    mathtex,
    mermaid,
    render_entry,
)
from anthology.vault.render.entry import cached_render, pending_html, render_size
from anthology.vault.render.reading import BASE_SIZE, ReadingStyle, restyle
from anthology.vault.render.safe_text import html_text
from anthology.vault.render.theme import palette
from anthology.vault.shared_reader import Lend, SharedReader, lend

BACKGROUND_RENDER_CHARS = 20_000  # what the app passes: longer bodies render in a thread
READING_WIDTH = 760  # px of text column (readable line width's default); the rest is margin
NARROW_MARGIN = 24  # px each side when the readable line width is off
_PAGE_NAME = "entryPage"  # the documents the pane makes (Qt's own first one is unnamed)
# A link pointed at this long is likely to be clicked: its page is made meanwhile (a click
# comes a few hundred ms after the pointer, the preview popover after 400 ms).
PREFETCH_DELAY_MS = 120

__all__ = ["PAGE_CACHE_SIZE", "EntryPane"]  # PAGE_CACHE_SIZE: the session's, named here too


# The one warm-up of the process, on the project's task runner (parentless: it outlives the
# pane that started it, as the typesetter it loads does).
_warm_up: TaskRunner | None = None


def _warm_up_off_thread(_state: TaskState) -> None:
    """Pygments (:func:`highlight.warm_up`, both themes' styles), then the TeX typesetter:
    the highlighter is ready in ~0.1 s, the typesetter takes ~0.3 s more; in the other
    order a code block clicked as the window settled compiled its lexer itself (~70 ms)."""
    highlight.warm_up(tuple(palette(theme).pygments_style for theme in ("light", "dark")))
    mathtex.warm_up()


def _warm_up_math() -> None:
    """Load the TeX typesetter and the code highlighter in the background, so the first
    formula and the first code block open quickly."""
    global _warm_up
    if _warm_up is None:
        _warm_up = TaskRunner(priority=QThread.Priority.LowPriority)
        _warm_up.start(_warm_up_off_thread)


_Page = Page[QTextDocument, QImage]


def _render_off_thread(
    _state: TaskState,
    token: int,
    lend: Lend,
    entry: Entry,
    theme: str,
    root: Path | None,
    folds: frozenset[int | str],
) -> tuple[int, object]:
    """On a runner's thread: pure Python, no widget touched. ``lend()`` is the lookup the
    render asks, held for the time of the render (:func:`~anthology.vault.shared_reader.lend`)."""
    try:
        with lend() as lookup:
            result: object = render_entry(entry, lookup, theme=theme, vault_root=root,
                                          folds=folds)  # fmt: skip
    except Cancelled:  # the vault was closed before the render began
        raise
    except Exception as exc:  # handed back and shown, never lost in the thread
        result = exc
    return token, result


class EntryPane(PageDiagrams):
    """An entry page: the first kind of :class:`~anthology.ui.common.document.DocumentView`."""

    kind = ENTRY
    renderFinished = Signal(str)  # entry id, once its rendered page is shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("entryPane")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QTextBrowser.Shape.NoFrame)
        self._links_start()  # the links' layer (page_links.py): signals, opener, asker
        self._resolver: EntryLookup | None = None
        self._vault_root: Path | None = None
        self._theme = "light"
        self._entry: Entry | None = None
        # per entry id, the foldable callouts the reader flipped and the headings folded
        # (kept while the pane lives)
        self._folds: dict[str, set[int | str]] = {}
        self._rendered: RenderedEntry | None = None
        self._images: dict[str, QImage] = {}
        # the pages shown lately, and the one made for the entry link pointed at
        self._pages: KeptPages[QTextDocument, QImage] = KeptPages(PAGE_CACHE_SIZE)
        # (entry id) → the entry as the window shows it: set, the page of a link pointed
        # at for PREFETCH_DELAY_MS is made before the click (see _prefetch_hovered)
        self.fetch_entry: Callable[[str], Entry | None] | None = None
        self._prefetch_timer = QTimer(self)
        self._prefetch_timer.setSingleShot(True)
        self._prefetch_timer.setInterval(PREFETCH_DELAY_MS)
        self._prefetch_timer.timeout.connect(self._prefetch_hovered)
        self._prefetch_token = 0
        self._pointed: str | None = None  # the entry pointed at: a link, a node, a backlink
        # where the page of a link pointed at is rendered (one at a time; never cancelled
        # by the pointer moving on: its render lands in the render cache)
        self._prefetches = TaskRunner(self)
        self._prefetches.done.connect(self._on_prefetched)
        # what background work asks instead of the resolver (see set_vault)
        self._reader: SharedReader | None = None
        self._preview: Callable[[str], str | None] | None = None
        # find in the page: the matches of the text sought, the one selected strong
        self._found = TextMatches(self, lambda: (QColor(palette(self._theme).highlight_bg),
                                                 QColor(palette(self._theme).link)))  # fmt: skip
        # 0: always render on the GUI thread (what the tests of the pane alone expect).
        self.background_render_chars = 0
        self._token = 0
        # the reader's settings (ui/reading/reading_settings.py): body size and family, and the
        # readable line width (a centred column of ``line_width`` px) or the whole pane
        self.reading_style = ReadingStyle()
        self.readable_width = True
        self.line_width = READING_WIDTH
        self._pending_scroll: tuple[int, str | None] | None = None  # (position, heading)
        self._renders = TaskRunner(self)  # the long entry being opened (one at a time)
        self._renders.done.connect(self._on_rendered)
        # embedded PDF pages (pdf: pictures): blank at once, drawn by a worker, swapped in
        self._pdf_pages = PdfPictures(self)
        self._pdf_pages.drawn.connect(self._on_pdf_page)
        # the page's Mermaid diagrams, drawn off the GUI thread and swapped in as they come
        self._diagrams = DiagramDrawer(self)
        self._diagrams.arrived.connect(self._on_diagram)
        self._over_node = None  # the linked node of a diagram under the pointer
        self._apply_theme_palette()
        # Warm the TeX typesetter once the window is up and its views are drawn, not while
        # it starts: the worker holds the GIL for ~0.2 s (it delayed the first painted
        # entry, and doubled the start's pieces of work at 100,000 entries)
        QTimer.singleShot(1500, lambda: when_quiet(_warm_up_math))
        self._refit_timer = QTimer(self)
        self._refit_timer.setSingleShot(True)
        self._refit_timer.setInterval(120)  # once the resize settles, not on every step
        self._refit_timer.timeout.connect(self._refit_figures)

    # ------------------------------------------------------------------ API
    @property
    def current_entry_id(self) -> str | None:
        return self._entry.id if self._entry else None

    @property
    def shown_entry(self) -> Entry | None:
        """The entry shown, as it was read when shown (its text, even once it is gone)."""
        return self._entry

    @property
    def rendered(self) -> RenderedEntry | None:
        return self._rendered

    @property
    def ran_query(self) -> bool:
        """The page shown evaluated a query (a base): any change to the index may change it."""
        rendered = self._rendered
        return rendered is not None and any(k[0] == "query" for k in rendered.lookups)

    # -- what a tab asks of its document (anthology.ui.common.document.DocumentView) -------
    def widget(self) -> QWidget:
        return self

    def document_id(self) -> str | None:
        return self.current_entry_id

    def open_document(self, ref: str) -> bool:
        """Show entry ``ref``, read through :attr:`fetch_entry` (as the window reads it)."""
        entry = self.fetch_entry(ref) if self.fetch_entry is not None else None
        if entry is None:
            return False
        self.show_entry(entry)
        return True

    def title(self) -> str:
        entry = self._entry
        return (entry.title or entry.id) if entry is not None else ""

    def tooltip(self) -> str:
        entry = self._entry
        return f"{entry.title or entry.id}\n{entry.path}" if entry is not None else ""

    def icon(self) -> QIcon:
        return QIcon()  # entries need none: they are what a tab shows unless told otherwise

    def scroll_position(self) -> int:
        return self.verticalScrollBar().value()

    def scroll_to(self, anchor: str) -> bool:
        return self.scroll_to_heading(anchor)

    def find_text(self, text: str, *, backward: bool = False) -> bool:
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        return bool(text) and self.find(text, flags)

    # -- find in the page (ui/reading/find_bar.py, ui/reading/text_find.py) ----------------
    def find_all(self, text: str, limit: int = 10_000) -> int:
        """Highlight every match of ``text`` on the page as shown (plain, any case), up
        to ``limit``; how many. An empty ``text`` clears them."""
        return self._found.find_all(text, limit)

    def find_step(self, backward: bool = False) -> int:
        """Select the next (previous) match and show it; its number from 0 (-1: none)."""
        return self._found.step(backward)

    def current_match(self) -> str:
        """The text of the match the find bar is on ("" for none)."""
        return self._found.current()

    def printable(self) -> QTextDocument | None:
        """The page as shown, for paper (see :func:`~anthology.ui.reading.paper.paper_copy`)."""
        if self._rendered is None:
            return None
        self._draw_diagrams_now()
        return paper_copy(self.document(), self._images, self)

    def export_html(self) -> str | None:
        """The shown page as one self-contained HTML file
        (:func:`~anthology.vault.render.standalone.standalone_html`)."""
        from anthology.vault.render.standalone import standalone_html  # asked rarely

        rendered, entry = self._rendered, self._entry
        if rendered is None or entry is None:
            return None
        return standalone_html(
            rendered,
            title=entry.title or entry.id,
            style=self.reading_style,
            line_width=self.line_width if self.readable_width else None,
            vault_root=self._vault_root,
        )

    def attach_vault(self, vault: OpenVault) -> None:
        self.set_vault(vault.lookup, vault.root, reader=vault.reader)

    def shutdown(self) -> None:
        self.clear_entry()

    def set_vault(
        self, resolver: EntryLookup, vault_root: Path, *, reader: SharedReader | None = None
    ) -> None:
        """Render with ``resolver`` (the window's index) on the GUI thread; off it, with
        ``reader`` when given (a reader of that index: see the module docstring), else
        with ``resolver`` itself (one that is safe to share, e.g. a vault read from disk)."""
        self._renders.cancel()
        self._prefetches.cancel()
        self._pdf_pages.cancel()
        self._resolver = resolver
        self._reader = reader
        self._vault_root = Path(vault_root).resolve()
        self._images = {}
        self._drop_pages()

    def _lend(self) -> Lend:
        """What a worker's render asks (made here, on the GUI thread)."""
        assert self._resolver is not None
        return lend(self._resolver, self._reader)

    @property
    def busy(self) -> bool:
        """A render of this pane's is under way on a worker (the entry's, or the page of
        a link pointed at)."""
        return self._renders.busy or self._prefetches.busy

    def set_preview_provider(self, fn: Callable[[str], str | None] | None) -> None:
        self._preview = fn

    def set_theme(self, theme: str) -> None:
        if theme not in ("light", "dark") or theme == self._theme:
            return
        self._theme = theme
        self._apply_theme_palette()
        self._drop_pages()  # the other theme's pages are never shown again as they are
        if self._entry is not None:
            self.show_entry(self._entry, keep_scroll=True)

    def theme(self) -> str:
        return self._theme

    def set_reading(self, style: ReadingStyle, *, readable: bool = True,
                    width: int = READING_WIDTH) -> None:  # fmt: skip
        """Set the body's size and family and the text column; the entry shown is set
        again at once, where the reader is."""
        style = style.clamped()
        width = max(300, int(width))
        if (style, readable, width) == (self.reading_style, self.readable_width,
                                        self.line_width):  # fmt: skip
            return
        self.reading_style, self.readable_width, self.line_width = style, readable, width
        self._images = {
            k: v for k, v in self._images.items() if not k.startswith(("figure:", "mermaid:"))
        }
        self._drop_pages()
        if self._entry is not None and self._rendered is not None:
            bar = self.verticalScrollBar()
            share = bar.value() / bar.maximum() if bar.maximum() else 0.0
            self._show_rendered(self._entry, self._rendered, 0)
            bar.setValue(round(share * bar.maximum()))  # the same place in the longer page
        else:
            self._apply_margins()

    def show_entry(self, entry: Entry, *, keep_scroll: bool = False) -> None:
        if self._resolver is None:
            raise RuntimeError("EntryPane.set_vault() must be called before show_entry()")
        bar = self.verticalScrollBar()
        keep = keep_scroll and self._entry is not None and self._entry.id == entry.id
        position = bar.value() if keep else 0
        self._token += 1
        self._cancel_prefetch()  # the link pointed at is the one followed, or gone
        if self._entry is None or self._entry.id != entry.id:
            self._diagrams.cancel()  # a diagram of the entry left is drawn no more
        resolver, theme, root = self._resolver, self._theme, self._vault_root
        folds = frozenset(self._folds.get(entry.id, ()))
        rendered = cached_render(entry, resolver, theme=theme, vault_root=root, folds=folds)
        limit = self.background_render_chars
        if rendered is None and limit and render_size(entry) > limit:
            self._entry, self._rendered = entry, None
            self._pending_scroll = (position, None)
            self._set_page_html(restyle(pending_html(entry, theme=theme), theme,
                                        self.reading_style))  # fmt: skip
            self._renders.start(_render_off_thread, self._token, self._lend(), entry, theme,
                                root, folds)  # fmt: skip
            return
        self._renders.cancel()  # an older long entry still rendering is not shown
        self._pending_scroll = None
        if rendered is None:
            rendered = render_entry(entry, resolver, theme=theme, vault_root=root, folds=folds)
        self._show_rendered(entry, rendered, position)

    @property
    def rendering(self) -> bool:
        """True while a background render of the current entry is under way."""
        return self._pending_scroll is not None

    def _on_rendered(self, answer: tuple[int, object]) -> None:
        token, result = answer
        if token != self._token or self._entry is None or self._pending_scroll is None:
            return  # a newer navigation came first: this page is stale
        position, heading = self._pending_scroll
        self._pending_scroll = None
        if isinstance(result, RenderedEntry):
            self._show_rendered(self._entry, result, position)
            if heading:
                self.scroll_to_heading(heading)
        else:
            self.setHtml(f"<p>This entry could not be rendered: {html_text(repr(result), 300)}</p>")
            self.renderFinished.emit(self._entry.id)

    def _show_rendered(self, entry: Entry, rendered: RenderedEntry, position: int) -> None:
        bar = self.verticalScrollBar()
        page = self._page_for(rendered)
        self._entry, self._rendered, self._images = entry, rendered, page.images
        if page is self._pages.prefetched:  # the page of the link pointed at: kept now
            self._keep(page)
        self._swap_in(page.doc)
        self._pdf_pages.refill(self._images)  # its PDF pages to draw, and no others
        self._ask_diagrams(rendered)
        bar.setValue(min(position, bar.maximum()))
        self.renderFinished.emit(entry.id)

    def _page_for(self, rendered: RenderedEntry) -> _Page:
        """The page of ``rendered``: a kept one (laid out before: swapped back in), the
        one made for the link pointed at, or a new one. A new one is built aside and
        swapped in whole: the shown page is never emptied first (which would hide the
        scroll bar, resize the viewport and lay it out again)."""
        look = self._look()
        if (found := self._pages.find(rendered, look)) is not None:
            return found
        images = {k: v for k, v in self._images.items() if k.startswith("vault:")}
        doc = self._new_document()
        doc.setHtml(restyle(rendered.html, rendered.theme, self.reading_style))
        page = _Page(rendered, doc, images, look)
        self._keep(page)
        return page

    def _keep(self, page: _Page) -> None:
        for doc in self._pages.keep(page):
            self._forget(doc)

    # ------------------------------------------------------------------ prefetch
    def _prefetch_hovered(self) -> None:
        """The reader has pointed at an entry (a link, a node, a backlink: :meth:`point_at`)
        for :data:`PREFETCH_DELAY_MS`: make its page meanwhile, so the click only swaps it
        in. The render runs in a worker thread (a page of formulas takes a TeX typesetter
        ~0.1-0.5 s: pointing must not freeze the pane) and lands in the render cache; its
        document is then made here. One such page is held (the last entry pointed at); it
        joins the kept pages once shown."""
        pointed, fetch, resolver = self._pointed, self.fetch_entry, self._resolver
        if pointed is None or fetch is None or resolver is None or self.rendering:
            return
        if self._entry is not None and pointed == self._entry.id:
            return
        try:
            entry = fetch(pointed)
        except Exception:  # a failed look-up costs the click its head start, nothing more
            return
        if entry is None:
            return
        theme, root = self._theme, self._vault_root
        folds = frozenset(self._folds.get(entry.id, ()))
        self._cancel_prefetch()
        rendered = cached_render(entry, resolver, theme=theme, vault_root=root, folds=folds)
        if rendered is not None:
            self._prefetch_page(rendered)
            return
        if self._prefetches.busy:  # one render at a time; the link pointed at then comes next
            return
        self._prefetches.start(_render_off_thread, self._prefetch_token, self._lend(), entry,
                               theme, root, folds)  # fmt: skip

    def _cancel_prefetch(self) -> None:
        """Stop waiting on the pointer; a render under way makes no page when it lands."""
        self._prefetch_timer.stop()
        self._prefetch_token += 1

    def _on_prefetched(self, answer: tuple[int, object]) -> None:
        token, result = answer
        if token == self._prefetch_token and isinstance(result, RenderedEntry):
            self._prefetch_page(result)
        elif self._pointed is not None:  # pointed elsewhere meanwhile: that one now
            self._prefetch_timer.start()

    def point_at(self, entry_id: str) -> None:
        """The reader points at ``entry_id`` outside the page (a graph node, a backlinks
        row; "" when the pointer left it): its page is made after :data:`PREFETCH_DELAY_MS`,
        as for a link in the page."""
        self._pointed = entry_id or None
        if self._pointed is None:
            self._prefetch_timer.stop()
        else:
            self._prefetch_timer.start()

    def _prefetch_page(self, rendered: RenderedEntry) -> None:
        if rendered in self._pages or self.rendering:
            return
        if self._rendered is not None and rendered.entry_id == self._rendered.entry_id:
            return
        images = {k: v for k, v in self._images.items() if k.startswith("vault:")}
        doc = self._new_document()
        doc.setHtml(restyle(rendered.html, rendered.theme, self.reading_style))
        old = self._pages.make_ahead(_Page(rendered, doc, images, self._look()))
        if old is not None:
            self._forget(old)

    # ------------------------------------------------------------------ documents
    def _look(self) -> PageLook:
        """What a page's layout and pictures depend on besides its render: the reading
        settings and the pane's width (figures and pictures are drawn to fit the column)."""
        return PageLook(self.reading_style, self.readable_width, self.line_width, self.width())

    def _new_document(self) -> QTextDocument:
        """An empty page for this pane (it answers the page's pictures: loadResource)."""
        doc = QTextDocument(self)
        doc.setObjectName(_PAGE_NAME)
        doc.setUndoRedoEnabled(False)
        font = QFont(self.font())  # what relative sizes ("small") are relative to
        font.setPointSizeF(self.reading_style.font_size)
        doc.setDefaultFont(font)
        return doc

    def _swap_in(self, doc: QTextDocument) -> None:
        """Show ``doc``, its margins set for the viewport first (one layout, not two); the
        page left is deleted unless it is kept for a revisit.

        A long page coming after a short one (or the first page) would be laid out at the
        whole width, then again when its scroll bar shows (the viewport narrows), then
        again for the new margins: the scroll bar is shown first instead (the short page,
        cheap to lay out, takes that), so the long one is laid out once."""
        old = self.document()
        if old is doc:
            self._apply_margins(doc)
            return
        as_needed = Qt.ScrollBarPolicy.ScrollBarAsNeeded
        bar_first = (
            self.verticalScrollBarPolicy() == as_needed
            and not self.verticalScrollBar().isVisibleTo(self)
            and self._surely_scrolls(doc)
        )
        if bar_first:
            self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self._apply_margins(doc)
        # else Qt's first page, which setDocument deletes (named, not asked for its parent:
        # wrapping Qt's private text control for parent() costs ~40 ms on the first page)
        ours = old.objectName() == _PAGE_NAME
        self.setDocument(doc)
        if bar_first:  # as needed again: it stays, the page being longer than the view
            self.setVerticalScrollBarPolicy(as_needed)
        self._apply_margins(doc)  # the scroll bar came or went: the viewport's width moved
        if ours:
            self._forget(old)

    def _surely_scrolls(self, doc: QTextDocument) -> bool:
        """Whether ``doc`` is longer than the view, judged from its characters alone (set
        in lines of the column's width at the body font: headings, spacing and pictures
        only make a page longer, so a page judged long is)."""
        metrics = QFontMetricsF(doc.defaultFont())
        per_line = self._text_width() / max(1.0, metrics.averageCharWidth())
        lines = self.viewport().height() / max(1.0, metrics.lineSpacing())
        return doc.characterCount() > per_line * lines

    def _forget(self, doc: QTextDocument) -> None:
        """Delete a page the pane made once it is neither shown nor kept."""
        if doc is self.document() or self._pages.holds(doc):
            return
        doc.deleteLater()

    def _drop_pages(self) -> None:
        for doc in self._pages.drop():
            self._forget(doc)

    def _set_page_html(self, text: str) -> None:
        """Show ``text`` on a fresh page (the one shown may be kept for a revisit)."""
        doc = self._new_document()
        doc.setHtml(text)
        self._swap_in(doc)

    def setHtml(self, text: str) -> None:
        """Qt's setHtml, on a fresh page: a page kept for a revisit is never written into."""
        self._set_page_html(text)

    def clear(self) -> None:
        self._set_page_html("")

    def restore_scroll(self, position: int) -> None:
        """Put the view at ``position`` (a reading position saved earlier); a page still
        rendering is put there once it is shown."""
        if self._pending_scroll is not None:
            self._pending_scroll = (position, self._pending_scroll[1])
        else:
            bar = self.verticalScrollBar()
            bar.setValue(min(max(0, position), bar.maximum()))

    def clear_entry(self) -> None:
        self._token += 1
        self._renders.cancel()
        self._diagrams.cancel()
        self._pending_scroll = None
        self._entry = self._rendered = None
        self.clear()

    def scroll_to_heading(self, text: str) -> bool:
        """Scroll to the heading whose text (or anchor) is ``text``; False if there is none."""
        if text and self._pending_scroll is not None:  # scrolled to once it is rendered
            self._pending_scroll = (self._pending_scroll[0], text)
            return True
        if not text or self._rendered is None:
            return False
        want = text.strip().lstrip("#").strip()
        if want.startswith("^"):  # a block id: its anchor is named "^id"
            self.scrollToAnchor(want)
            return True
        headings = self._rendered.headings
        anchor = find_heading(headings, want)
        if anchor is None:
            return False
        if f'<a name="{html.escape(anchor)}"' in self._rendered.html:
            self.scrollToAnchor(anchor)
            return True
        # Past the renderer's anchor budget a heading carries no anchor: find its block.
        at = next(i for i, h in enumerate(headings) if h[2] == anchor)
        key = heading_key(headings[at][1])
        nth = sum(1 for h in headings[:at] if heading_key(h[1]) == key)
        block = self.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() and heading_key(block.text()) == key:
                if nth == 0:
                    layout = self.document().documentLayout()
                    top = layout.blockBoundingRect(block).top()
                    # Qt lays a long page out in steps and the scroll range follows them:
                    # a heading below what the range covers yet would be scrolled short of
                    bar = self.verticalScrollBar()
                    height = int(layout.documentSize().height()) - self.viewport().height()
                    bar.setMaximum(max(bar.maximum(), height))
                    bar.setValue(int(top))
                    return True
                nth -= 1
            block = block.next()
        return False

    # ------------------------------------------------------------------ folds
    def toggle_fold(self, number: str) -> None:
        """Open or close foldable callout ``number`` (``"3"``) or fold or unfold heading
        ``"h3"`` of the entry shown, where the reader is."""
        if self._entry is None:
            return
        key: int | str
        if number.isdigit():
            key = int(number)
        elif number[:1] == "h" and number[1:].isdigit():
            key = number
        else:
            return
        flipped = self._folds.setdefault(self._entry.id, set())
        flipped ^= {key}
        self.show_entry(self._entry, keep_scroll=True)

    def show_query_page(self, where: str) -> None:
        """Show page N of the page's Dataview query K (``where`` is ``"K:N"``), where the
        reader is: kept with the page's folds (as ``"qK:N"``), so the page comes back
        there while the window is open."""
        number, _, page = where.partition(":")
        if self._entry is None or not number.isdigit() or not page.isdigit():
            return
        state = self._folds.setdefault(self._entry.id, set())
        state -= {k for k in state if isinstance(k, str) and k.startswith(f"q{number}:")}
        if int(page):
            state.add(f"q{number}:{int(page)}")
        self.show_entry(self._entry, keep_scroll=True)

    # ------------------------------------------------------------------ resources
    def _vault_path(self, rel: str) -> Path | None:
        return vault_file(self._vault_root, rel)

    def loadResource(self, type_: int, url: QUrl | str) -> object:
        url = url if isinstance(url, QUrl) else QUrl(url)
        if int(type_) != int(QTextDocument.ResourceType.ImageResource):
            return QByteArray()  # no style sheets, no documents: nothing outside the page
        key = url.toString()
        cached = self._images.get(key)
        if cached is not None:
            return cached
        scheme, path, _ = split_href(url)
        image: QImage | None = None
        dpr = max(2.0, self.devicePixelRatioF())
        if scheme in ("math", "figure") and self._rendered is not None:
            data = self._rendered.resources.get(key)
            if scheme == "math":  # drawn as large as the reading size shows it (restyle)
                dpr *= max(1.0, self.reading_style.clamped().font_size / BASE_SIZE)
            if data is not None:  # our own SVG (typesetter, demo figure): nothing to strip
                image = svg_picture(
                    data, self._text_width(), dpr, trusted=True, fit=scheme == "figure"
                )
        elif scheme == "vault":
            image = load_vault_image(self._vault_root, path, self._text_width(), dpr)
        elif scheme == "pdf":  # a page of an embedded PDF: blank now, drawn by a worker
            image = self._pdf_pages.picture(key, self._vault_root, self._text_width() - 48, dpr)
        elif scheme == "mermaid" and self._rendered is not None:
            _diagram, outcome = outcome_of(self._rendered.resources, key)
            if not isinstance(outcome, mermaid.Drawn):  # coming (or failed: see _ask_diagrams)
                return drawing_placeholder(self._theme, self.font(), dpr)  # not kept
            image = diagram_image(outcome, self._text_width(), dpr)
        if image is None or image.isNull():
            image = placeholder(self._theme, self.font(), scheme == "vault")
        self._images[key] = image
        return image

    def _on_pdf_page(self, key: str, image: QImage) -> None:
        """A PDF page drawn: shown where its blank stood (the same size: no new layout)."""
        if key not in self._images:
            return  # of a page not shown now (drawn again should it be shown)
        self._images[key] = image
        self.document().addResource(QTextDocument.ResourceType.ImageResource, QUrl(key), image)
        self.viewport().update()

    # ------------------------------------------------------------------ looks
    def _apply_theme_palette(self) -> None:
        pal = palette(self._theme)
        self.setStyleSheet(
            f"QTextBrowser#entryPane {{ background-color: {pal.background}; color: {pal.text};"
            f" selection-background-color: {pal.chip_bg}; selection-color: {pal.text}; }}"
        )

    def _column(self) -> int:
        """The text column's width in px: the readable line width, else the whole pane."""
        if self.readable_width:
            return self.line_width
        return max(200, self.viewport().width() - 2 * NARROW_MARGIN)

    def _text_width(self) -> int:
        return min(self._column(), max(200, self.viewport().width() - 2 * NARROW_MARGIN))

    def _apply_margins(self, doc: QTextDocument | None = None) -> None:
        doc = doc if doc is not None else self.document()
        side = max(NARROW_MARGIN, (self.viewport().width() - self._column()) // 2)
        frame = doc.rootFrame()
        fmt = frame.frameFormat()
        if (fmt.leftMargin(), fmt.rightMargin()) == (side, side):
            return
        fmt.setLeftMargin(side)
        fmt.setRightMargin(side)
        fmt.setTopMargin(20)
        fmt.setBottomMargin(48)
        frame.setFrameFormat(fmt)

    def resizeEvent(self, event) -> None:
        # The reading position survives a change of width: the text at the top of the view
        # stays there (rewrapped, the same scroll value showed a section earlier or later:
        # a panel opened, or the window made 1000 × 700, moved the reader back a section).
        bar = self.verticalScrollBar()
        keep = event.oldSize().width() != event.size().width() and bar.value() > 0
        anchor = self.cursorForPosition(QPoint(0, 0)).position() if keep else -1
        super().resizeEvent(event)
        self._apply_margins()
        if anchor >= 0:
            cursor = QTextCursor(self.document())
            cursor.setPosition(min(anchor, self.document().characterCount() - 1))
            bar.setValue(bar.value() + self.cursorRect(cursor).top())
        if any(k.startswith(("figure:", "mermaid:")) for k in self._images):
            self._refit_timer.start()  # the page fits the new width once they are redrawn
        else:
            self._page_fits_now()

    def _refit_figures(self) -> None:
        """Redraw our figures for the new text column (they are drawn to fit it): a pane
        made narrower shrinks them instead of scrolling sideways, a wider one lets them
        grow back to their natural size."""
        if self._rendered is None:
            return
        changed = False
        for key in [k for k in self._images if k.startswith(("figure:", "mermaid:"))]:
            data = self._rendered.resources.get(key)
            old = self._images[key]
            dpr = max(2.0, self.devicePixelRatioF())
            if key.startswith("mermaid:"):
                _diagram, drawn = outcome_of(self._rendered.resources, key)
                image = (
                    diagram_image(drawn, self._text_width(), dpr)
                    if isinstance(drawn, mermaid.Drawn)
                    else None
                )
            else:
                image = (
                    svg_picture(data, self._text_width(), dpr, trusted=True, fit=True)
                    if data
                    else None
                )
            if image is None or image.size() == old.size():
                continue
            self._images[key] = image
            self.document().addResource(QTextDocument.ResourceType.ImageResource, QUrl(key), image)
            changed = True
        if changed:  # the image's layout size changed: lay the document out again
            doc = self.document()
            doc.markContentsDirty(0, doc.characterCount())
        self._page_fits_now()

    def _page_fits_now(self) -> None:
        """The page shown is laid out, its figures drawn, for the pane as it is now: a
        revisit at this width may swap it back in."""
        page = self._pages.get(self._rendered) if self._rendered is not None else None
        if page is not None and page.doc is self.document():
            page.look = self._look()


# Whether an entry is still there is the window's index to say (TabHistory's ``keep``).
register(DocumentKind(ENTRY, EntryPane, label="Entry"))
