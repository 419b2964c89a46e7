"""What surrounds the entry: the graph, the quick switcher's list, the counts and problems
in the status bar, the explorer's listing (asked off the GUI thread, :func:`load_views`),
and the backlinks of the entry shown (its unlinked mentions on a worker).

After a refresh the graph is given the new one only if it differs from what it shows (an
edit of a note's text changes no node nor link; given again, the graph was laid out again
and a local graph jumped).
"""

from __future__ import annotations

import contextlib
import gc
import json
import linecache
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings, QThread, QTimer

from anthology.graph.model import Filters, same_graph
from anthology.graph.settings import DEFAULTS, clean_settings
from anthology.session.backlinks import COUNT_SHOWN, SOURCES_SHOWN
from anthology.ui.common.document import GraphFed
from anthology.ui.common.step_queue import later, step_queue, when_quiet
from anthology.ui.common.task_runner import TaskRunner, describe_error
from anthology.ui.window.views_loader import ViewsData, load_views
from anthology.user_state import GRAPH_VIEW, UserState
from anthology.vault import EntryRef, GraphData, VaultIndex

# The window's first question waits at most this long for its first paint (a window shown
# behind another, on a platform that paints late): then it is asked anyway.
FIRST_PAINT_WAIT_MS = 300

if TYPE_CHECKING:
    from anthology.ui.graph.graph_view import GraphView
    from anthology.ui.window.main_window import MainWindow


class Surroundings(QObject):
    """The views around ``win``'s entry, and the graph view (made with the first graph)."""

    def __init__(self, win: MainWindow) -> None:
        super().__init__(win)
        self.win = win
        # a newer question cancels the older one (see ui/common/task_runner.py)
        self.runner = TaskRunner(self, priority=QThread.Priority.LowPriority)
        self.runner.done.connect(self._apply)
        self.runner.error.connect(self._failed)
        self._pending = False  # a question is out: the window is not settled
        self.switcher_items: list[tuple[EntryRef, list[str]]] = []  # the path finder's
        self.graph: GraphView | None = None
        self._graph_data: GraphData | None = None  # what the graph was last given
        self._mentions: tuple[VaultIndex, VaultIndex] | None = None  # (index, its reader)
        self._steps: list[Callable[[], None]] = []  # an answer's pieces not handed over yet
        self._after: list[Callable[[], None]] = []  # to call once the views are in
        # the window's first question, waiting for its first paint (with_positions)
        self._waiting: bool | None = None
        self._painted = False  # the first question was asked: the next ones go at once
        self._paint_wait = QTimer(self, singleShot=True, interval=FIRST_PAINT_WAIT_MS)
        self._paint_wait.timeout.connect(self._ask_waiting)

    @property
    def pending(self) -> bool:
        """A question is out, or its answer is being handed over: the window is not
        settled. Meanwhile the step queue is held busy: what waits for quiet (the start's
        refresh, the math warm-up, a search for mentions) waits for the views."""
        return self._pending

    @pending.setter
    def pending(self, busy: bool) -> None:
        self._pending = busy
        step_queue().hold(self, busy)

    def load(self, *, with_positions: bool) -> None:
        """Ask for the views off the GUI thread (:func:`load_views`); an older question
        still running is interrupted and its answer dropped. The window's first question
        waits for its first paint (:meth:`_ask_once_painted`)."""
        assert self.win.index is not None
        self.pending = True
        self._steps.clear()  # an older answer still being handed over is dropped
        if self._painted:
            self._ask(with_positions)
            return
        if self._waiting is None:
            QTimer.singleShot(0, self, self._ask_once_painted)  # once show() has been called
        self._waiting = with_positions

    def _ask_once_painted(self) -> None:
        """The first question waits until the window shown has been painted: the loader's
        Python work shares the interpreter lock with the paint, whose Qt calls each wait
        for it (the first paint at 100,000 entries took 56–70 ms in one turn beside the
        loader, 15–17 ms alone). A window not shown (a test's, a script's) asks at once;
        one whose paint does not come within :data:`FIRST_PAINT_WAIT_MS` asks then."""
        if self._waiting is None:
            return
        if self.win.isVisible():
            self.win.tabs.installEventFilter(self)
            self._paint_wait.start()
            return
        self._ask_waiting()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self._waiting is not None:
            watched.removeEventFilter(self)
            later(self._ask_waiting, self)  # after the pass that paints the window
        return False

    def _ask_waiting(self) -> None:
        with_positions, self._waiting = self._waiting, None
        self._paint_wait.stop()
        self.win.tabs.removeEventFilter(self)
        if with_positions is None or self.win.index is None:
            return  # asked already, or the vault was closed meanwhile
        self._painted = True
        self._ask(with_positions)

    def _ask(self, with_positions: bool) -> None:
        win = self.win
        assert win.index is not None
        if self.graph is not None:
            settings = self.graph.scene.settings
        else:  # as the view will open them (a vault without saved ones: the local graph)
            saved = win.state.get(GRAPH_VIEW, clean=clean_settings) if win.state else None
            settings = saved if isinstance(saved, dict) else {"local": True}
        local = bool(settings.get("local", DEFAULTS["local"]))
        depth = int(settings.get("depth", DEFAULTS["depth"]))
        self.runner.start(load_views, win.index, win.state if with_positions else None,
                          Filters.from_settings(settings), local, win.current_id(),
                          depth)  # fmt: skip

    def _apply(self, data: ViewsData) -> None:
        """Hand the answer to the views in pieces, one per event-loop turn (the counts
        and lists, the explorer, the graph): in one turn they froze the window for
        1.3 s at 100,000 entries. ``pending`` stays until the last piece is in."""
        self._steps[:] = [
            lambda: self._apply_lists(data),
            self.win.docks.place_side_panels,  # the explorer and outline made: a turn
            lambda: self.win.docks.update_explorer(
                [ref for ref, _aliases in data.switcher_items], self._attachments()
            ),
            self._make_graph,  # the view made (its widgets: ~40 ms) in a turn of its own
            lambda: self._apply_graph(data),
            self._finish,
        ]
        self._next_step()

    def _next_step(self) -> None:
        if not self._steps:
            return
        if self.win.index is None:  # the vault was closed meanwhile
            self._steps.clear()
            self.pending = False
            return
        step = self._steps.pop(0)
        step()
        if self._steps:  # in a coming pass, taking turns with the other chains' pieces
            later(self._next_step, self)

    def _attachments(self) -> list[str]:
        index = self.win.index
        return index.attachment_paths() if index is not None else []

    def _apply_lists(self, data: ViewsData) -> None:
        win = self.win
        if win.live.root is not None:  # the files to watch, asked off the GUI thread too
            win.live.watch(data.watch)
        stats = data.stats
        partial = win.partial.active  # a never-seen vault, its index still being built
        win.count_label.setText(win.partial.label(stats["entries"]) if partial
                                else f"{stats['entries']} entries")  # fmt: skip
        problems = stats["errors"] + stats["warnings"]
        win.problems_button.setText(f"⚠ {problems} problem{'s' if problems != 1 else ''}"
                                    if problems else "No problems")  # fmt: skip
        win.switcher.set_entries(data.switcher_items)
        self.switcher_items = data.switcher_items
        if win.path_finder is not None:
            win.path_finder.set_entries(data.switcher_items)
        win.docks.refresh_bookmarks()

    def _apply_graph(self, data: ViewsData) -> None:
        """Give the graph view the answer's graph: its pieces (:meth:`GraphView.graph_steps`)
        go first among the steps left, one per turn."""
        win = self.win
        graph = self.ensure_graph()
        if data.positions or not same_graph(self._graph_data, data.graph):
            # the positions come in the graph's order, made on the loader's thread; the
            # entry shown given with the graph: one rebuild, around it (its local graph
            # made on the loader's thread), not one of no centre and then another
            load, *rest = graph.graph_steps(data.graph, data.places, vault_key=win.vault_key(),
                                            pinned=data.pinned, store=win.state,
                                            current=win.current_id())  # fmt: skip
            self._graph_data = data.graph
            self._steps[:0] = [*rest, self._graph_given]
            load()
        else:
            self._graph_given()

    def _graph_given(self) -> None:
        """The graph is drawn: graph tabs draw the same graph; the entry shown followed."""
        win, graph = self.win, self.graph
        assert graph is not None
        for view in win.tabs.views():
            if isinstance(view, GraphFed):
                self.feed(view)
        if (current := win.current_id()) is not None and graph.current_id() != current:
            graph.set_current(current)

    def _finish(self) -> None:
        self.pending = False
        later(self.freeze_heap, self)
        # the views' own pieces still drawing (the graph's images, the explorer's rows)
        # go first too
        when_quiet(self._run_after, self)

    def after_load(self, then: Callable[[], None]) -> None:
        """Call ``then`` once the views asked for are in (or could not be had) and their
        pieces are drawn: what would compete with them for the interpreter waits."""
        self._after.append(then)

    def _run_after(self) -> None:
        after, self._after = self._after, []
        for then in after:
            then()

    def freeze_heap(self) -> None:
        """What the vault loaded (its graph, the switcher's list, the index's caches) lives
        as long as the window: out of Python's cyclic collector's sight. Its full
        collections walked all of it, 106–126 ms each, three times in forty clicks at
        10,000 entries, in the middle of a click; frozen, they take 10–19 ms. The young
        garbage is collected first (a few ms), then what is new is frozen with the rest.
        What a refresh replaces is freed by its reference counts, frozen or not: it has no
        cycles (a full collection after each of six live reloads at 10,000 entries found
        0 unreachable objects), and that full collection, which this did after every
        refresh, held the GUI thread 0.13–0.2 s at 100,000 entries, on every live reload
        and at every step of a never-seen vault's partial index. ``closeEvent`` unfreezes.
        (The views' loader froze what it made already, see :func:`load_views`: on a first
        load only what came after is collected here.)"""
        gc.collect(0)  # (the youngest only: at 100,000 entries the middle one took 50-80 ms)
        gc.freeze()
        # PySide's import hook reads the source of every module that imports it (through
        # linecache): ~19 MB of text lines kept for the session, read again if ever needed
        linecache.clearcache()

    def _failed(self, exc: BaseException) -> None:
        self.pending = False  # nothing more is coming for this state
        self._run_after()
        message = describe_error(exc)
        self.win.statusBar().showMessage(f"Could not load the graph: {message}", 10000)

    def feed(self, view: GraphFed) -> None:
        """Give a graph tab the graph loaded (with the side panel's positions: it opens
        laid out); nothing yet before the first load (it is fed then)."""
        graph = self.graph
        if graph is not None and self._graph_data is not None:
            view.feed_graph(self._graph_data, graph.positions(), self.win.vault_key())
            # a view that filters as the graph does (the timeline) takes its filters
            if (follow := getattr(view, "follow_graph_settings", None)) is not None:
                follow(graph.scene.settings)

    def _make_graph(self) -> None:
        self.ensure_graph()

    def ensure_graph(self) -> GraphView:
        """The graph view, made the first time there is a graph to draw."""
        if self.graph is None:
            from anthology.ui.graph.graph_view import GraphView

            win = self.win
            graph = GraphView()
            graph.entryActivated.connect(win.show_entry)
            graph.entryActivatedNewTab.connect(win.open_in_new_tab)
            graph.layoutSettled.connect(win.save_positions)
            graph.pathRequested.connect(lambda entry_id: win.open_find_path(entry_id))
            graph.timelineRequested.connect(lambda: win.act_timeline_tab.trigger())
            # a node hovered previews its entry (graph_view's own hover signal, untouched)
            nodes = getattr(graph, "nodes", None)
            if nodes is not None and hasattr(nodes, "nodeHovered"):
                nodes.nodeHovered.connect(lambda j, g=graph: win.hover_entry(g.hovered_id() or ""))
            win.themes.follow(graph.set_theme)
            win.right.replaceWidget(0, graph)
            win.graph_slot.deleteLater()
            self.graph = graph
        return self.graph

    # -- backlinks -------------------------------------------------------------------------
    def show_backlinks(self, entry_id: str) -> None:
        index, backlinks = self.win.index, self.win.backlinks
        assert index is not None
        # Rows come without their context lines, cut when a row is first shown: a hub's
        # first pages are 700 links, of which twenty are on screen.
        backlinks.show_backlinks(
            index.backlinks_view(entry_id, sources_cap=SOURCES_SHOWN, count_cap=COUNT_SHOWN)
        )
        # Unlinked mentions of a title that is a common word took minutes on the GUI
        # thread: they are asked on a worker, through a read-only connection of their own
        # (it does not hold the index's lock), interrupted when another entry is opened.
        if self._mentions is None or self._mentions[0] is not index:
            self.close_mentions()
            self._mentions = (index, index.reader())
        reader = self._mentions[1]
        backlinks.find_unlinked(entry_id, reader.unlinked_mentions, reader.interrupt)

    def close_mentions(self) -> None:
        self.win.backlinks.wait_unlinked()
        if self._mentions is not None:
            self._mentions[1].close()
            self._mentions = None

    # -- closing -----------------------------------------------------------------------------
    def stop(self, wait: float | None) -> bool:
        """The vault closes: the question out cancelled (waited for at most ``wait`` s).
        False if it was still running."""
        stopped = self.runner.stop(wait)
        self._waiting = None
        self._steps.clear()
        self._after.clear()  # the vault's: it is closing
        self.pending = False
        return stopped

    def detach(self) -> None:
        """The vault's user state closes: the graph lets go of it; the backlinks of the
        index closing are dropped."""
        self._graph_data = None  # the next vault's graph is given whole
        if self.graph is not None:
            self.graph.detach_store()
        self.win.backlinks.clear()  # its "Show more" rows ask the index being closed
        self.close_mentions()

    def shutdown(self) -> None:
        """Quitting: nothing more is asked; a mentions query running is interrupted."""
        self.runner.cancel()
        if self._mentions is not None:
            self._mentions[1].interrupt()


def adopt_old_graph_settings(settings: QSettings, state: UserState, vault_key: str) -> None:
    """The graph's settings were kept in QSettings before the user state: taken over
    once, then removed there."""
    key = re.sub(r"[^A-Za-z0-9_.-]+", "_", vault_key).strip("_") or "default"
    group = f"graphView/{key[-80:]}"
    raw = settings.value(f"{group}/settings")
    if raw is None:
        return
    if state.get(GRAPH_VIEW) is None:
        with contextlib.suppress(ValueError, TypeError):
            state.put(GRAPH_VIEW, json.loads(str(raw)))
    settings.remove(group)
