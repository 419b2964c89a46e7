"""What a tab holds: a document view, of one kind among those registered.

A tab of the entry area (:mod:`anthology.ui.reading.entry_tabs`) shows one document at a
time — an entry page, a canvas, a PDF, a drawing, the graph — and its back/forward history
may go from one kind to another. Every kind answers the same small :class:`DocumentView`
protocol (what it shows, its title and icon, where the reader is in it, find, print and
export, theme and reading settings, the vault it reads, shutdown), and is registered here
by name with :func:`register`. A new kind of document is then a new module in its room
(``ui/reading/`` for pages, ``ui/graph/`` for the graph tab) and, for a file, a renderer in
the core, registered once: the tabs and the window ask the registry and the protocol,
never for a class of their own. (The registry lives in ``common/`` so that every room may
register a kind without importing another room.)

The entry page (:class:`~anthology.ui.reading.entry_pane.EntryPane`) is the first kind,
:data:`ENTRY`; it is registered by its module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from PySide6.QtGui import QIcon, QTextDocument
from PySide6.QtWidgets import QWidget

from anthology.session.history import ENTRY  # the kind of an entry page
from anthology.vault import EntryLookup
from anthology.vault.graph_data import GraphData
from anthology.vault.render.reading import ReadingStyle
from anthology.vault.shared_reader import SharedReader


@dataclass(frozen=True)
class OpenVault:
    """The vault a document view reads: its folder, the window's index (on the GUI thread)
    and, for background work, a reader of that index (None: ``lookup`` may be shared)."""

    root: Path
    lookup: EntryLookup
    reader: SharedReader | None = None


@runtime_checkable
class DocumentView(Protocol):
    """A document a tab shows. The view is a widget (:meth:`widget`, usually itself); the
    window keeps its history (a :class:`~anthology.session.history.Visit` per
    document: kind, :meth:`document_id` and :meth:`scroll_position`)."""

    kind: str  # the name it is registered under

    def widget(self) -> QWidget:
        """What the tab shows."""
        ...

    def document_id(self) -> str | None:
        """What it shows, as the window names it (an entry id, a vault-relative path…);
        None while it shows nothing."""
        ...

    def open_document(self, ref: str) -> bool:
        """Show the document ``ref``; False (and a message in the view) when there is none."""
        ...

    def title(self) -> str:
        """Its short title (the tab's text)."""
        ...

    def tooltip(self) -> str:
        """The tab's tooltip: the whole title, where it is."""
        ...

    def icon(self) -> QIcon:
        """The tab's icon (a null icon: none)."""
        ...

    def scroll_position(self) -> int:
        """Where the reader is in it (kept in the history when they leave it)."""
        ...

    def restore_scroll(self, position: int) -> None:
        """Put the reader back at ``position`` (back, forward, a restored tab)."""
        ...

    def scroll_to(self, anchor: str) -> bool:
        """Show ``anchor`` (a heading, a block…); False when there is none."""
        ...

    def find_text(self, text: str, *, backward: bool = False) -> bool:
        """Select the next (previous) occurrence of ``text``; False when there is none."""
        ...

    def printable(self) -> QTextDocument | None:
        """A copy of what it shows for paper (the caller deletes it); None: nothing to print."""
        ...

    def export_html(self) -> str | None:
        """What it shows as one self-contained HTML page; None when it cannot."""
        ...

    def set_theme(self, theme: str) -> None:
        """Restyle for ``theme`` ("light" or "dark")."""
        ...

    def set_reading(self, style: ReadingStyle, *, readable: bool = True, width: int = 760) -> None:
        """The reader's settings: body size and family, the readable line width."""
        ...

    def attach_vault(self, vault: OpenVault) -> None:
        """Read documents from ``vault`` from now on (another vault opened)."""
        ...

    def shutdown(self) -> None:
        """Its tab is closing: stop any background work; it is deleted next."""
        ...


@runtime_checkable
class GraphFed(Protocol):
    """A document view that draws the vault's graph (the graph tab): the window gives it
    the graph it has loaded, and again after each refresh that changed it."""

    def feed_graph(
        self, data: GraphData, positions: Mapping[str, tuple[float, float]], vault_key: str
    ) -> None: ...


@dataclass(frozen=True)
class DocumentKind:
    """A kind of document: its name, how a view of it is made, and whether a document of
    it is still in a vault (a restored tab's history drops the ones gone)."""

    name: str
    make: Callable[[], DocumentView]
    exists: Callable[[OpenVault, str], bool] = lambda vault, ref: True
    label: str = ""  # what the reader calls it ("Entry", "Canvas"…)
    # the files (vault-relative paths, lower case) a link opens as this kind rather than
    # with the system: e.g. ``lambda rel: rel.endswith(".pdf")``
    opens: Callable[[str], bool] = lambda rel: False
    # an entry whose file this kind opens is shown as this kind, not as a page (a canvas is
    # an entry of the index and shows as its board); False: the entry shows as a page and
    # only a link to its file opens this kind (a drawing note: its page, then the tab)
    shows_entries: bool = False


_KINDS: dict[str, DocumentKind] = {}


def register(kind: DocumentKind) -> None:
    """Make documents of ``kind`` openable in a tab (a kind of the same name is replaced)."""
    _KINDS[kind.name] = kind


def unregister(name: str) -> None:
    """Forget the kind ``name`` (the entry page stays: the window needs it)."""
    if name != ENTRY:
        _KINDS.pop(name, None)


def document_kind(name: str) -> DocumentKind | None:
    """The kind registered as ``name``, if any."""
    return _KINDS.get(name)


def kind_for_file(rel: str) -> DocumentKind | None:
    """The kind that opens the vault file ``rel`` in a tab (a link to a PDF, a canvas, a
    drawing…), or None: the file is an attachment the system opens."""
    low = rel.lower()
    return next((k for k in _KINDS.values() if k.name != ENTRY and k.opens(low)), None)


def kinds() -> list[str]:
    """The names of the kinds registered, the entry page first."""
    return sorted(_KINDS, key=lambda name: (name != ENTRY, name))
