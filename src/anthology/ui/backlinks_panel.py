"""The backlinks panel: who links here, grouped by relation, with the line around each link.

Typed relations come first ("introduced by", "source", …), untyped body links under
"mentions"; unlinked mentions (the title named without a link) sit in a collapsed group.
A click (or Enter) on a row navigates to its source entry. A group shows its first
:data:`PAGE` links and a "Show more" row for the next page, so a hub with tens of thousands
of backlinks opens as fast as any entry; contexts are cut only for the rows shown.

Every string from the vault (titles, ids, contexts, snippets, relation names) goes through
:mod:`anthology.vault.render.safe_text` before Qt sees it: a row's label is rich text and
its tooltip would be read as rich text too, so a title of 3,000 nested ``<table>`` or
``<img src='/abs/…'>`` must reach Qt escaped, never as markup.

Unlinked mentions can take long on a title that is a common word, so the window asks for
them off the GUI thread and hands them over later with :meth:`BacklinksPanel.show_unlinked`.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QSize, Qt, QThreadPool, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from anthology.vault.model import MATCH_END, MATCH_START, LinkRow, SearchHit
from anthology.vault.render.safe_text import MAX_SHOWN_CHARS, html_text, plain_text, tooltip_html

ROLE_ID = Qt.ItemDataRole.UserRole
ROLE_MORE = Qt.ItemDataRole.UserRole + 1  # on a "Show more" row: its group's index
PAGE = 100
MENTIONS = "mentions"
UNLINKED = "Unlinked mentions"
NO_BACKLINKS = "No backlinks"


def highlight_link(context: str, text: str, alias: str | None) -> str:
    """The context line as HTML (escaped), with the link itself in bold."""
    escaped = html_text(context, MAX_SHOWN_CHARS)
    for needle in (f"[[{text}", alias or "", text):
        needle = html_text(needle)
        if needle and needle in escaped:
            start = escaped.index(needle)
            if needle.startswith("[["):
                end = escaped.find("]]", start)
                end = end + 2 if end >= 0 else start + len(needle)
            else:
                end = start + len(needle)
            return f"{escaped[:start]}<b>{escaped[start:end]}</b>{escaped[end:]}"
    return escaped


def snippet_text(snippet: str) -> str:
    """A search snippet as one plain line, its match markers removed."""
    return " ".join(snippet.replace(MATCH_START, "").replace(MATCH_END, "").split())


def snippet_html(snippet: str) -> str:
    """A search snippet as HTML: the text escaped, each match in bold."""
    out = (
        html_text(" ".join(snippet.split()), MAX_SHOWN_CHARS)
        .replace(MATCH_START, "<b>")
        .replace(MATCH_END, "</b>")
    )
    return out + "</b>" * (out.count("<b>") - out.count("</b>"))  # a cut inside a match


class _Relay(QObject):
    """Carries a worker's mentions to the GUI thread (a queued signal)."""

    done = Signal(int, str, object)  # token, entry id, list[SearchHit]


class _MentionsTask(QRunnable):
    """Asks ``fn(entry_id)`` on a pool thread; touches no widget."""

    def __init__(self, token: int, entry_id: str, fn: Callable[[str], list[SearchHit]],
                 current: Callable[[int], bool], relay: _Relay) -> None:  # fmt: skip
        super().__init__()
        self.token, self.entry_id, self.fn, self.current, self.relay = (
            token, entry_id, fn, current, relay)  # fmt: skip

    def run(self) -> None:
        if not self.current(self.token):
            return  # superseded before it started: the user has opened another entry
        try:
            hits: list[SearchHit] = self.fn(self.entry_id)
        except Exception:  # a closed or replaced index: the mentions are simply not shown
            hits = []
        self.relay.done.emit(self.token, self.entry_id, hits)


class BacklinksPanel(QWidget):
    entryActivated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("backlinksPanel")
        self.title = QLabel("Backlinks")
        self.title.setObjectName("panelTitle")
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setColumnCount(1)
        self.tree.setWordWrap(True)
        self.tree.setIndentation(14)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.setUniformRowHeights(False)
        self.tree.itemActivated.connect(self._activate)
        self.tree.itemClicked.connect(self._activate)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.title)
        layout.addWidget(self.tree)
        self._entry_id: str | None = None
        # The groups shown: (relation or None for mentions, number of links), and where
        # their pages come from.
        self._groups: list[tuple[str | None, int]] = []
        self._page: Callable[[str | None, int, int], list[LinkRow]] = lambda r, o, n: []
        # Unlinked mentions come from a one-thread pool; each request has a token, and a
        # result whose token is not the latest (another entry was opened) is dropped.
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._token = 0
        self._cancel: Callable[[], None] | None = None
        self._relay = _Relay()
        self._relay.done.connect(self._on_unlinked)

    def show_backlinks(
        self,
        entry_id: str | None,
        groups: list[tuple[str | None, int]],
        sources: int,
        page: Callable[[str | None, int, int], list[LinkRow]],
        unlinked: list[SearchHit] | None = None,
    ) -> None:
        """Show the backlinks of ``entry_id`` a page at a time: ``groups`` are (relation,
        number of links) in order (None: untyped mentions), ``sources`` the number of
        entries linking here, ``page(relation, offset, limit)`` the links to show.

        ``unlinked``: the unlinked mentions, or None when they come later through
        :meth:`show_unlinked` (they are searched off the GUI thread)."""
        self._supersede()
        self._entry_id = entry_id
        self._groups = groups
        self._page = page
        self.tree.clear()
        self.title.setText(f"Backlinks · {sources}" if entry_id else "Backlinks")
        for index, (relation, count) in enumerate(groups):
            # An item's text is drawn as plain text; the relation is a front-matter key,
            # cut and rid of bidi controls all the same.
            name = plain_text(relation, 200) if relation is not None else MENTIONS
            group = QTreeWidgetItem(self.tree, [f"{name} ({count})"])
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            self._add_page(group, index)
            group.setExpanded(True)
        if not groups and entry_id:
            empty = QTreeWidgetItem(self.tree, [NO_BACKLINKS])
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
        if unlinked is not None:
            self.show_unlinked(entry_id, unlinked)

    def show_unlinked(self, entry_id: str | None, hits: list[SearchHit]) -> bool:
        """Fill the collapsed "Unlinked mentions" group of ``entry_id`` with ``hits``; a
        result for another entry than the one shown (it came too late) is dropped."""
        if entry_id != self._entry_id or entry_id is None:
            return False
        for i in reversed(range(self.tree.topLevelItemCount())):
            text = self.tree.topLevelItem(i).text(0)
            if text.startswith(UNLINKED) or (hits and text == NO_BACKLINKS):
                self.tree.takeTopLevelItem(i)
        if hits:
            group = QTreeWidgetItem(self.tree, [f"{UNLINKED} ({len(hits)})"])
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            for hit in hits:
                self._add_row(group, hit.entry.id, hit.entry.label,
                              snippet_html(hit.snippet), snippet_text(hit.snippet))  # fmt: skip
            group.setExpanded(False)
        return True

    def find_unlinked(
        self,
        entry_id: str,
        search: Callable[[str], list[SearchHit]],
        cancel: Callable[[], None] | None = None,
    ) -> None:
        """Ask ``search(entry_id)`` for the unlinked mentions off the GUI thread (a title
        that is a common word can take long) and show them when they come, unless another
        entry has been shown by then. ``cancel`` (from the GUI thread) stops a search that
        is superseded, e.g. by interrupting its SQLite connection."""
        self._supersede()
        self._cancel = cancel
        task = _MentionsTask(self._token, entry_id, search, self._is_current, self._relay)
        self._pool.start(task)

    @property
    def finding_unlinked(self) -> bool:
        """Whether a search for unlinked mentions is still running or queued."""
        return self._pool.activeThreadCount() > 0

    def wait_unlinked(self) -> None:
        """Stop waiting for any unlinked mentions and let their search end (before the
        index it reads is closed)."""
        self._supersede()
        self._pool.waitForDone()

    def _is_current(self, token: int) -> bool:  # asked from the worker thread: reads an int
        return token == self._token

    def _supersede(self) -> None:
        self._token += 1
        cancel, self._cancel = self._cancel, None
        if cancel is not None:
            cancel()

    def _on_unlinked(self, token: int, entry_id: str, hits: list[SearchHit]) -> None:
        if token == self._token:
            self._cancel = None
            self.show_unlinked(entry_id, hits)

    def clear(self) -> None:
        """Show nothing, and forget where pages came from (the vault is closing)."""
        self.show_backlinks(None, [], 0, lambda relation, offset, limit: [], [])

    def _add_page(self, group: QTreeWidgetItem, index: int) -> None:
        """Show the next :data:`PAGE` links of group ``index``, and a "Show more" row after
        them while some are left."""
        last = group.child(group.childCount() - 1) if group.childCount() else None
        if last is not None and last.data(0, ROLE_MORE) is not None:
            group.takeChild(group.childCount() - 1)
        shown = group.childCount()
        relation, count = self._groups[index]
        for link in self._page(relation, shown, PAGE):
            self._add_row(group, link.source.id, link.source.label,
                          highlight_link(link.context, link.text, link.alias),
                          link.context)  # fmt: skip
        left = count - group.childCount()
        if left > 0:
            more = QTreeWidgetItem(group, [f"Show {min(left, PAGE)} more ({left} not shown)"])
            more.setData(0, ROLE_MORE, index)
            more.setToolTip(0, "Show the next backlinks of this group")

    def _add_row(
        self, group: QTreeWidgetItem, entry_id: str, label: str, context_html: str, context: str
    ) -> None:
        """A row: the source's label over its context line. ``context_html`` is already
        escaped; ``label`` and ``context`` are vault text, escaped here."""
        item = QTreeWidgetItem(group)
        item.setData(0, ROLE_ID, entry_id)
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        text = QLabel(
            f"<b>{html_text(label, MAX_SHOWN_CHARS)}</b><br>"
            f"<span style='color:{muted}'>{context_html}</span>"
        )
        # Two unwrapped lines (source, then context) clipped at the panel's edge: rows stay
        # one height, and the whole context is in the tooltip.
        text.setWordWrap(False)
        text.setTextFormat(Qt.TextFormat.RichText)
        text.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        text.setContentsMargins(2, 2, 2, 4)
        text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # Qt would read a tooltip that looks like HTML as HTML: give it escaped text only.
        item.setToolTip(0, tooltip_html(f"{label}\n{' '.join(context.split())}"))
        self.tree.setItemWidget(item, 0, text)
        line = text.fontMetrics().lineSpacing()
        item.setSizeHint(0, QSize(0, 2 * line + 14))

    def _activate(self, item: QTreeWidgetItem) -> None:
        index = item.data(0, ROLE_MORE)
        if index is not None:
            if item.parent() is not None:  # not yet replaced by the page it asked for
                self._add_page(item.parent(), index)
            return
        entry_id = item.data(0, ROLE_ID)
        if entry_id:
            self.entryActivated.emit(entry_id)

    # What a test or a screen reader asks.
    def groups(self) -> dict[str, list[str]]:
        """Group title → the source ids listed under it, in order."""
        out: dict[str, list[str]] = {}
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            out[group.text(0)] = [
                group.child(k).data(0, ROLE_ID)
                for k in range(group.childCount())
                if group.child(k).data(0, ROLE_ID)
            ]
        return out

    def item_for(self, group_prefix: str, entry_id: str) -> QTreeWidgetItem | None:
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            if group.text(0).startswith(group_prefix):
                for k in range(group.childCount()):
                    if group.child(k).data(0, ROLE_ID) == entry_id:
                        return group.child(k)
        return None
