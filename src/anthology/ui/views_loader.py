"""What the window shows around the entry, asked off the GUI thread.

At 100,000 entries the graph's arrays, the quick switcher's list and the problem counts
take ~10 s to ask for: on the GUI thread they kept the first entry off the screen and froze
the window on every live reload. The window shows its entry first, then a :class:`ViewsLoader`
asks for the rest on a read-only connection of its own (``VaultIndex.reader``) and hands it
back in one signal; the window applies the newest answer and drops superseded ones. The
saved graph layout comes with it, from the vault's user state (:mod:`anthology.user_state`).
"""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QThread, Signal

from anthology.user_state import Position, UserState
from anthology.vault.graph_data import GraphData
from anthology.vault.index import VaultIndex
from anthology.vault.model import EntryRef


@dataclass
class ViewsData:
    """One consistent answer: all asked on one connection, in one read transaction."""

    stats: dict[str, Any]
    switcher_items: list[tuple[EntryRef, list[str]]]
    graph: GraphData
    positions: dict[str, Position] = field(default_factory=dict)  # from the user state


class ViewsLoader(QThread):
    loaded = Signal(int, object)  # token, ViewsData
    failed = Signal(int, str)  # token, message

    def __init__(
        self, index: VaultIndex, token: int, *, positions: UserState | None, parent=None
    ) -> None:
        super().__init__(parent)
        self.reader = index.reader()  # made here: the GUI thread owns the index's handle
        self.token = token
        self.state = positions  # where the saved layout is, for a graph not drawn yet
        self._closing = threading.Lock()
        self._closed = False

    def cancel(self) -> None:
        """Stop asking (from the GUI thread): the running query is interrupted. Never
        while the connection is being closed, nor after (that raises; an exception in a
        closeEvent brings the window down)."""
        self.requestInterruption()
        with self._closing:
            if not self._closed:
                self.reader.interrupt()

    def run(self) -> None:
        reader = self.reader
        try:
            with reader.snapshot():
                stats = reader.stats()
                items = reader.switcher_items()
                graph = reader.graph(ghosts=True)
            positions = self.state.positions() if self.state is not None else {}
        except Exception as exc:  # reported in the status bar, never a crash
            if not self.isInterruptionRequested():
                traceback.print_exc()
                self.failed.emit(self.token, f"{type(exc).__name__}: {exc}")
            return
        finally:
            with self._closing:
                reader.close()
                self._closed = True
        if not self.isInterruptionRequested():
            self.loaded.emit(self.token, ViewsData(stats, items, graph, positions))
