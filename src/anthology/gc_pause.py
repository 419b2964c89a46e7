"""Python's cyclic garbage collector paused where much is allocated and almost none of it is
cyclic garbage: queries, the index's refresh (``VaultIndex.refresh``), the views' loader.

A dataset is ~10 objects a note (rows, their lists, typed values), all alive for as long as
the index does not change; a query allocates many short-lived values, which start the
collector's full passes, and each pass walks every object of the dataset again. Measured
over 10,000 notes (``benchmarks/bench_bases.py``'s views, CPU time): the table 158 → 84 ms,
grouped cards 198 → 141 ms with the collector paused. What a query allocates is freed by
reference counting as before; cycles it made are collected once no query runs. Pausing is
process-wide, so the pauses of queries running at once (a page's render and a base's tab)
are counted and the collector resumes when the last one ends, as it was before the first.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

_lock = threading.Lock()
_holders = 0
_was_enabled = True

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic collector paused for the block (and for any that overlap it)."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()


def with_gc_paused(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run within :func:`gc_paused`."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return fn(*args, **kwargs)

    return run
