"""A small thread-safe LRU cache: renders are made on worker threads and read on the GUI's;
the index keeps its backlinks views and pages in them too."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class LockedLru(Generic[V]):
    """At most ``size`` values, the least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, key: Hashable) -> V | None:
        """The value for ``key`` if cached (its recency unchanged), else None."""
        with self._lock:
            return self._items.get(key)

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        """The cached value for ``key``, or ``make()``'s, cached (made outside the lock:
        two threads may both make it; the last one stays)."""
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def rekey(self, new_key: Callable[[Hashable, V], Hashable | None]) -> None:
        """Give each value the key ``new_key(key, value)`` says (None: drop it), in the
        same order of use; where two values take one key, the more recent stays. The
        check runs outside the lock (it may ask an index): a value made meanwhile stays."""
        with self._lock:
            items = list(self._items.items())
        moves = [(key, new_key(key, value)) for key, value in items]
        with self._lock:
            for key, moved in moves:
                if moved == key:
                    continue
                value = self._items.pop(key, None)
                if value is not None and moved is not None:
                    self._items[moved] = value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
