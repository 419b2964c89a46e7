"""Tabs of documents in the middle of the window: one :class:`DocumentTab` a tab, each with
its own back/forward history (:class:`TabHistory`).

A tab holds a document (:mod:`anthology.ui.common.document`): an entry page, or any kind
registered there. It keeps one view per kind it has shown (made when first needed; its
:class:`EntryPane` always), the one of the current visit on top, so back and forward go
from an entry to another kind of document and back without making either view again.

A tab keeps its views (and so its rendered page and scroll position) while it is open, so
switching tabs costs no render. Tabs restored from the user state are made empty and
filled when first shown (the window asks for that through :attr:`EntryTabs.paneChanged`):
ten restored tabs do not cost ten renders at start-up.

The history is plain data: a list of :class:`Visit` (a document — an entry unless its kind
says otherwise — and the reading position in it, saved when the reader leaves it) and where
in the list the reader is. It is what the user state keeps of the tabs (``reader.tabs``,
see :mod:`anthology.user_state`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QIcon, QMouseEvent
from PySide6.QtWidgets import QStackedWidget, QTabBar, QTabWidget, QWidget

from anthology.session.history import TabHistory
from anthology.ui.common.document import ENTRY, DocumentView
from anthology.ui.reading.entry_pane import EntryPane
from anthology.vault.render.safe_text import plain_text, tooltip_html

TAB_TEXT_PX = 180  # a tab's title is elided past this width (the whole is its tooltip)


class DocumentTab(QStackedWidget):
    """One tab: its history, and a view per kind of document it has shown (its entry pane
    always), the current visit's on top. ``make`` makes (and wires) a view of a kind."""

    def __init__(self, make: Callable[[str], DocumentView], history: TabHistory) -> None:
        super().__init__()
        self.setObjectName("documentTab")
        self.history = history
        self._make = make
        self._views: dict[str, DocumentView] = {}
        self.show_kind(ENTRY)

    @property
    def pane(self) -> EntryPane:
        """The tab's entry page (shown or not)."""
        view = self._views[ENTRY]
        assert isinstance(view, EntryPane)
        return view

    @property
    def current(self) -> DocumentView:
        """The view on top: the document the reader sees in this tab."""
        for view in self._views.values():
            if view.widget() is self.currentWidget():
                return view
        return self.pane

    @property
    def shown_kind(self) -> str:
        return self.current.kind

    def views(self) -> list[DocumentView]:
        return list(self._views.values())

    def view(self, kind: str) -> DocumentView:
        """The tab's view of ``kind``, made the first time it is asked for."""
        view = self._views.get(kind)
        if view is None:
            view = self._views[kind] = self._make(kind)
            self.addWidget(view.widget())
        return view

    def show_kind(self, kind: str) -> DocumentView:
        """Put the view of ``kind`` on top (made if need be), keeping focus in the tab."""
        view = self.view(kind)
        if self.currentWidget() is not view.widget():
            shown = self.currentWidget()
            had_focus = shown is not None and shown.hasFocus()
            self.setCurrentWidget(view.widget())
            if had_focus:
                view.widget().setFocus()
        return view

    def open(
        self, kind: str, ref: str, *, push: bool = True, scroll: int | None = None
    ) -> DocumentView | None:
        """Show document ``ref`` of ``kind`` here, at ``scroll``; with ``push``, as the next
        step of the history (the reading position in the document left kept in its visit).
        None when the view cannot open it (the document shown stays)."""
        left = self.current
        leaving = left.scroll_position() if left.document_id() else None
        view = self.show_kind(kind)
        same = view.document_id() == ref
        if not same and not view.open_document(ref):
            self.show_kind(left.kind)
            return None
        if scroll is not None:
            view.restore_scroll(scroll)
        if push and not (same and left is view):
            self.history.push(ref, leaving_scroll=leaving, kind=kind)
        elif self.history.current is None:  # a tab's first document, shown without a push
            self.history.push(ref, kind=kind)
        return view

    def drop_other_kinds(self) -> None:
        """Only the entry page stays (another vault opens: the other views read the old)."""
        self.show_kind(ENTRY)
        for kind in [k for k in self._views if k != ENTRY]:
            self._close(self._views.pop(kind))

    def close_views(self) -> None:
        """The tab closes: every view stops its work and goes."""
        for view in self._views.values():
            self._close(view)
        self._views.clear()

    def _close(self, view: DocumentView) -> None:
        view.shutdown()
        self.removeWidget(view.widget())
        view.widget().deleteLater()


class EntryTabs(QTabWidget):
    """The entry area: closable, movable tabs of documents (:class:`DocumentTab`); a single
    tab looks like a title bar over the page, as in Obsidian. ``make_view(kind)`` makes (and
    wires) a view of a kind of document (an :class:`EntryPane` for :data:`ENTRY`)."""

    paneChanged = Signal(object)  # the active tab's EntryPane (after a switch, an open or a close)

    def __init__(
        self, make_view: Callable[[str], DocumentView], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("entryTabs")
        self._make_view = make_view
        self.setDocumentMode(True)
        self.setTabsClosable(True)
        self.setMovable(True)
        self.setUsesScrollButtons(True)
        self.setElideMode(Qt.TextElideMode.ElideRight)
        self.tabBar().setExpanding(False)
        self.tabCloseRequested.connect(self.close_tab)
        self.tabBar().installEventFilter(self)  # a middle-click on a tab closes it
        self.currentChanged.connect(self._on_current_changed)
        self.add_tab()

    # -- tabs, their views and histories ------------------------------------------------------
    def tab(self, i: int | None = None) -> DocumentTab:
        """Tab ``i`` (default: the active one)."""
        widget = self.widget(self.currentIndex() if i is None else i)
        assert isinstance(widget, DocumentTab)
        return widget

    def tab_of(self, view: QWidget | DocumentView | None) -> DocumentTab:
        """The tab holding ``view`` (a tab, one of its views; None: the active tab)."""
        widget = view.widget() if isinstance(view, DocumentView) else view
        while widget is not None and not isinstance(widget, DocumentTab):
            widget = widget.parentWidget()
        return widget if widget is not None else self.tab()

    def pane(self, i: int | None = None) -> EntryPane:
        """The entry page of tab ``i`` (default: the active one), shown or not."""
        return self.tab(i).pane

    def panes(self) -> list[EntryPane]:
        return [self.pane(i) for i in range(self.count())]

    def document(self, i: int | None = None) -> DocumentView:
        """The document tab ``i`` (default: the active one) shows."""
        return self.tab(i).current

    def views(self) -> list[DocumentView]:
        """Every view of every tab (to restyle them all)."""
        return [view for i in range(self.count()) for view in self.tab(i).views()]

    def history(self, view: QWidget | DocumentView | None = None) -> TabHistory:
        return self.tab_of(view).history

    def set_history(self, view: QWidget | DocumentView, history: TabHistory) -> None:
        self.tab_of(view).history = history

    def add_tab(
        self, *, at: int | None = None, activate: bool = True, history: TabHistory | None = None
    ) -> EntryPane:
        """A new, empty tab (after the active one unless ``at`` says where); its entry page."""
        tab = DocumentTab(self._make_view, history or TabHistory())
        where = self.currentIndex() + 1 if at is None else at
        i = self.insertTab(where if self.count() else 0, tab, "New tab")
        self.setTabToolTip(i, "New tab")
        if activate:
            self.setCurrentIndex(i)
        return tab.pane

    def close_tab(self, i: int) -> None:
        """Close tab ``i``; the last tab is never closed (it is emptied by the window)."""
        if self.count() <= 1 or not 0 <= i < self.count():
            return
        tab = self.tab(i)
        self.removeTab(i)  # currentChanged (and so paneChanged) follows if it was active
        tab.close_views()
        tab.deleteLater()

    def reset(self) -> EntryPane:
        """One empty tab (another vault opens)."""
        while self.count() > 1:
            self.close_tab(self.count() - 1)
        tab = self.tab(0)
        tab.drop_other_kinds()
        tab.pane.clear_entry()
        tab.history = TabHistory()
        self.set_title(tab, "New tab")
        return tab.pane

    def set_title(
        self,
        view: QWidget | DocumentView,
        label: str,
        tooltip: str | None = None,
        icon: QIcon | None = None,
    ) -> None:
        i = self.indexOf(self.tab_of(view))
        if i < 0:
            return
        text = plain_text(label, 200)
        shown = self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, TAB_TEXT_PX)
        self.setTabText(i, shown.replace("&", "&&"))  # "&" is not a mnemonic here
        self.setTabToolTip(i, tooltip_html(tooltip or label, 500))
        self.setTabIcon(i, icon if icon is not None else QIcon())

    def cycle(self, step: int) -> None:
        """Ctrl+Tab (step 1) and Ctrl+Shift+Tab (step -1): the next or previous tab, round."""
        if self.count() > 1:
            self.setCurrentIndex((self.currentIndex() + step) % self.count())

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            obj is self.tabBar()
            and event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.MiddleButton
        ):
            i = self.tabBar().tabAt(event.position().toPoint())
            if i >= 0:
                self.close_tab(i)
                return True
        return super().eventFilter(obj, event)

    # A lone tab has no close button: the entry area is never empty.
    def tabInserted(self, index: int) -> None:
        super().tabInserted(index)
        self._show_close_buttons()

    def tabRemoved(self, index: int) -> None:
        super().tabRemoved(index)
        self._show_close_buttons()

    def _show_close_buttons(self) -> None:
        bar = self.tabBar()
        for i in range(self.count()):
            for side in (QTabBar.ButtonPosition.RightSide, QTabBar.ButtonPosition.LeftSide):
                if (button := bar.tabButton(i, side)) is not None:
                    button.setVisible(self.count() > 1)

    def _on_current_changed(self, i: int) -> None:
        if i >= 0:
            self.paneChanged.emit(self.pane(i))
