"""One read-only connection to an index, lent to the work done off the GUI thread.

The render of a long entry, the page of a link pointed at and a page preview run on worker
threads and ask the index about every link they meet. Asked of the window's own
:class:`~anthology.vault.index.VaultIndex`, they held its lock while the GUI thread wanted
it, and used its connection, which closing the vault (a switch, a quit) closed under them:
a segfault in SQLite, 9 of 10 quits with a long entry rendering. They ask a
:class:`SharedReader` instead: a connection and a lock of its own (SQLite's WAL lets it read
while the window's connection reads and the indexer writes), closed only once its owner has
let go of it *and* the last work that borrowed it has given it back.

What a worker renders is cached under the window's index, as a render on the GUI thread
would be (:attr:`LentLookup.render_key`): the pane finds it there when the entry comes
back.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from anthology.tasks import Cancelled
from anthology.vault.model import EntryLookup, EntryRef
from anthology.vault.render.entry import render_key

# What a render on a worker calls for its lookup, holding it for the time of the render.
Lend = Callable[[], AbstractContextManager[EntryLookup]]

if TYPE_CHECKING:
    from anthology.vault.index import VaultIndex


class LentLookup:
    """The renderer's questions (:class:`~anthology.vault.model.EntryLookup`) answered by
    a borrowed reader. ``render_key`` is the window's index as the render caches know it
    (which index, in which state), read on the GUI thread when the work was asked for."""

    def __init__(self, reader: VaultIndex, render_key: Hashable) -> None:
        self._reader = reader
        self.render_key = render_key
        self.root: Path = reader.root

    def resolve(self, target: str, source_path: str) -> EntryRef | None:
        return self._reader.resolve(target, source_path)

    def attachment(self, target: str, source_path: str) -> Path | None:
        return self._reader.attachment(target, source_path)

    def embed_body(self, entry_id: str) -> str | None:
        return self._reader.embed_body(entry_id)

    @property
    def index(self) -> VaultIndex:
        """The borrowed reader itself, for the questions a query asks of the whole index
        (:func:`anthology.vault.query_rows.dataset`)."""
        return self._reader


class SharedReader:
    """A reader of ``index`` (:meth:`VaultIndex.reader`), opened by the first work that
    borrows it and shared by all (its own lock keeps them one at a time: a worker may
    wait behind another worker, never the GUI thread behind a worker).

    Thread-safe. :meth:`close` is the owner's letting go: the connection is closed then if
    no work holds it, else by the last borrower as it gives it back, on its own thread.
    Work that comes after :meth:`close` is :class:`~anthology.tasks.Cancelled`.
    """

    def __init__(self, index: VaultIndex) -> None:
        self.root = index.root
        self._open: Callable[[], VaultIndex] = index.reader  # touches the file, not the index
        self._lock = threading.Lock()
        self._reader: VaultIndex | None = None
        self._borrowers = 0
        self._closed = False

    @property
    def borrowers(self) -> int:
        """How many pieces of work hold the reader now."""
        with self._lock:
            return self._borrowers

    @property
    def closed(self) -> bool:
        """The owner has let go and the connection is closed (no work holds it)."""
        with self._lock:
            return self._closed and self._borrowers == 0

    @contextlib.contextmanager
    def borrow(self, render_key: Hashable) -> Iterator[LentLookup]:
        """The reader, as a :class:`LentLookup` whose renders are cached under
        ``render_key``, for the time of the ``with`` block (on any thread)."""
        with self._lock:
            if self._closed:
                raise Cancelled  # the vault was closed: what this work was for is gone
            if self._reader is None:
                self._reader = self._open()
            self._borrowers += 1
            reader = self._reader
        try:
            yield LentLookup(reader, render_key)
        finally:
            with self._lock:
                self._borrowers -= 1
                last = self._closed and self._borrowers == 0
            if last:
                reader.close()

    def close(self) -> None:
        """Let go of the reader (idempotent): closed now, or by its last borrower."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            idle = self._reader if self._borrowers == 0 else None
        if idle is not None:
            idle.close()


def lend(resolver: EntryLookup, reader: SharedReader | None) -> Lend:
    """What a render off the GUI thread asks instead of ``resolver`` (the window's index):
    ``reader`` borrowed, its renders cached as ``resolver``'s (the key is read here, on the
    GUI thread); without a reader, ``resolver`` itself (one safe to share, e.g. a vault
    read from disk before it is indexed)."""
    if reader is None:
        return lambda: contextlib.nullcontext(resolver)
    key = render_key(resolver)
    return lambda: reader.borrow(key)
