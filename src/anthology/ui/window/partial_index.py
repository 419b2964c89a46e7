"""A never-seen vault's index shown while it is built: search and the graph before the end.

A cold build of 100,000 entries takes most of a minute on two cores; until it ended, the
window showed one entry read from disk and nothing else (search and the graph waited
37-47 s). The build writes its entries a batch at a time, each batch one transaction, in WAL
mode: a read-only connection (:meth:`VaultIndex.being_built`) sees every committed batch.
Once ``PARTIAL_FIRST`` entries are written the window attaches that view: search answers
from the entries indexed so far, the switcher lists them and the graph draws them; each time
the entries written have grown ``PARTIAL_GROWTH`` times, the graph and switcher are asked for
again (not at every batch: at 100,000 entries each ask costs seconds of the CPU the build
needs); the count follows every batch. The status bar and the count say that this is part
of the vault and how much ("12,000 of 100,000 entries indexed so far"). When the build
ends, the partial view is let go and the index attached as on any first build.

The window is not :attr:`~anthology.ui.window.main_window.MainWindow.settled` while it shows
a partial index.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from anthology.vault import VaultIndex

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel, QStatusBar

    from anthology.ui.window.surroundings import Surroundings

#: Entries written before search and the graph are shown (a smaller vault is quick anyway).
PARTIAL_FIRST = 5_000
#: The graph, switcher and counts are asked for again each time the entries written have
#: grown this many times (search needs no asking: it reads the index as it grows). Each ask
#: costs the GUI thread what a start costs (the explorer's tree, the graph's arrays): at
#: 100,000 entries seconds of it, and of the CPU the build needs.
PARTIAL_GROWTH = 8.0


class PartialHost(Protocol):
    """What :class:`PartialIndex` asks of the window (read only, but for attaching)."""

    @property
    def root(self) -> Path | None: ...

    @property
    def db_path(self) -> Path | None: ...

    @property
    def index(self) -> VaultIndex | None: ...

    @property
    def surroundings(self) -> Surroundings: ...

    @property
    def count_label(self) -> QLabel: ...

    def attach_partial(self, index: VaultIndex) -> None: ...

    def statusBar(self) -> QStatusBar: ...


class PartialIndex:
    """The window's partial view of an index being built (one per window)."""

    def __init__(self, win: PartialHost) -> None:
        self.win = win
        self.active = False  # the window's index is the partial view
        self.shown = 0  # entries written when the views were last asked for
        self.total = 0  # entries the build will write

    def reset(self) -> None:
        self.active = False
        self.shown = self.total = 0

    def label(self, entries: int) -> str:
        """The status bar's count while partial."""
        return f"{entries:,} of {self.total:,} entries indexed so far"

    def on_progress(self, done: int, total: int, stage: str) -> None:
        """The build's progress (``done`` entries written of ``total``)."""
        win = self.win
        if stage != "parsing" or win.root is None or win.db_path is None:
            return
        if win.index is not None and not self.active:
            return  # a refresh of an index the window already reads
        if done < PARTIAL_FIRST or done >= total:
            return
        if self.active and (done < self.shown * PARTIAL_GROWTH or win.surroundings.pending):
            if not win.surroundings.pending:  # the count follows the build (search does)
                win.count_label.setText(self.label(done))
            return
        self.shown, self.total = done, total
        if not self.active:
            try:
                index = VaultIndex.being_built(win.root, win.db_path)
            except Exception:
                return
            self.active = True
            win.attach_partial(index)
        else:
            win.surroundings.load(with_positions=False)
        win.statusBar().showMessage(
            f"Indexing {win.root.name}: search and the graph show the "
            f"{self.label(done)}; the rest follows"
        )
