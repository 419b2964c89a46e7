"""What the window shows around the entry, asked off the GUI thread.

At 100,000 entries the graph's arrays, the quick switcher's list and the problem counts
take ~10 s to ask for: on the GUI thread they kept the first entry off the screen and froze
the window on every live reload. The window shows its entry first, then runs
:func:`load_views` on a :class:`~anthology.ui.common.task_runner.TaskRunner`: it asks for the rest
on a read-only connection of its own (``VaultIndex.reader``) and hands it back as one
answer; a newer question cancels the older one, whose query is interrupted and whose answer
is dropped. The
saved graph layout comes with it, from the vault's user state (:mod:`anthology.user_state`).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anthology.graph.model import Filters, place_array
from anthology.graph.scene_prep import prepare_scene
from anthology.query.gc_pause import gc_paused
from anthology.session import WatchSet, vault_watch_set
from anthology.tasks import TaskState
from anthology.user_state import Position, UserState
from anthology.vault import EntryRef, GraphData, VaultIndex


@dataclass
class ViewsData:
    """One consistent answer: all asked on one connection, in one read transaction."""

    stats: dict[str, Any]
    switcher_items: list[tuple[EntryRef, list[str]]]
    graph: GraphData
    positions: dict[str, Position] = field(default_factory=dict)  # from the user state
    watch: WatchSet = field(default_factory=WatchSet)  # what the live reload watches
    # the positions as an (n, 2) array in the graph's order, and the pinned ids
    places: np.ndarray | None = None
    pinned: list[str] = field(default_factory=list)


@contextlib.contextmanager
def _no_collections() -> Iterator[None]:
    """No automatic collection while the views are asked for (the pause queries take too,
    :func:`anthology.query.gc_pause.gc_paused`), then what was made frozen out of the
    collector's sight (``gc.freeze``: no walk, the young generations joined to the
    permanent one). Asking makes a million objects at 100,000 entries that live as long as
    the window; the collections they set off walked all of them, 0.1–0.2 s each holding
    the interpreter, which froze the GUI thread that long several times per start (the
    window freezes them once settled anyway, see ``Surroundings.freeze_heap``)."""
    with gc_paused():
        yield
        gc.freeze()  # before the collector is on: its first pass walked them all (50-65 ms)


def _import_graph_view() -> None:
    import anthology.ui.graph.graph_view  # noqa: F401  (once: later imports find it)


def load_views(
    state: TaskState,
    index: VaultIndex,
    positions: UserState | None,
    filters: Filters | None = None,
    local: bool = True,
    centre: str | None = None,
    depth: int = 1,
) -> ViewsData:
    """Ask for the counts, the switcher's list, the graph and (from ``positions``, the
    vault's user state, for a graph not drawn yet) its saved layout, on the runner's
    thread. ``index.reader()`` only reads the index's paths; the reader is closed here.
    Cancelling ``state`` interrupts the running query, never while the connection is being
    closed nor after (that raises). With ``filters`` (the graph's; ``local``: it shows a
    local graph), what the graph view's first rebuild asks of the whole graph is made
    here too (:func:`~anthology.graph.scene_prep.prepare_scene`: with ``local``, the local graph
    of ``centre``, the entry shown, at ``depth``), the saved positions put in the graph's order, and
    the graph view's module (pyqtgraph: ~0.2–0.7 s) is imported here, not on the GUI
    thread when the first graph is drawn."""
    with _no_collections():
        return _load_views(state, index, positions, filters, local, centre, depth)


def _load_views(
    state: TaskState,
    index: VaultIndex,
    positions: UserState | None,
    filters: Filters | None,
    local: bool,
    centre: str | None,
    depth: int,
) -> ViewsData:
    # imported beside the queries (SQLite lets go of the interpreter while it reads)
    importer = threading.Thread(target=_import_graph_view, name="import-graph", daemon=True)
    importer.start()
    reader = index.reader()
    closing = threading.Lock()
    closed = False

    def interrupt() -> None:  # on the cancelling (GUI) thread
        with closing:
            if not closed:
                reader.interrupt()

    state.when_cancelled(interrupt)
    try:
        state.check()
        with reader.snapshot():
            stats = reader.stats()
            graph = reader.graph(ghosts=True)
            items = reader.switcher_items(graph)  # its strings shared with the graph's
            watch = vault_watch_set(reader)
    except Exception:
        state.check()  # an interrupted query is a cancelled task, not an error
        raise
    finally:
        with closing:
            reader.close()
            closed = True
    importer.join()
    state.check()
    if filters is not None:
        prepare_scene(graph, filters, local=local, centre=centre, depth=depth)
    saved = positions.positions() if positions is not None else {}
    places = place_array(graph, {k: (p.x, p.y) for k, p in saved.items()}) if saved else None
    pinned = [k for k, p in saved.items() if p.pinned]
    state.check()
    return ViewsData(stats, items, graph, saved, watch, places, pinned)
