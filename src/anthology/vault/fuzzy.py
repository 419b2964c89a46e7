"""Fuzzy matching for the quick switcher: id, title and aliases, as a person types them.

A candidate matches when the query's characters appear in order in one of its names. The
score prefers, in this order: an exact name, a prefix, a substring at a word start, any
substring, then a subsequence with few, short gaps. Ties go to the shorter name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")


def _subsequence_score(query: str, name: str) -> float | None:
    pos = -1
    gaps = 0
    starts = 0
    for ch in query:
        nxt = name.find(ch, pos + 1)
        if nxt < 0:
            return None
        if nxt != pos + 1:
            gaps += 1
        if nxt == 0 or not name[nxt - 1].isalnum():
            starts += 1
        pos = nxt
    return 100 - 10 * gaps + 5 * starts - 0.1 * len(name)


def score(query: str, names: Iterable[str]) -> float | None:
    """How well ``query`` matches the best of ``names``; None when none matches."""
    q = query.strip().lower()
    if not q:
        return 0.0
    best: float | None = None
    for raw in names:
        name = raw.lower()
        if not name:
            continue
        if name == q:
            s = 1000.0
        elif name.startswith(q):
            s = 800 - 0.1 * len(name)
        elif (i := name.find(q)) >= 0:
            s = (600 if not name[i - 1].isalnum() else 400) - 0.1 * len(name)
        else:
            sub = _subsequence_score(q, name)
            if sub is None:
                continue
            s = sub
        if best is None or s > best:
            best = s
    return best


def rank(
    query: str, items: Sequence[T], names: Sequence[Sequence[str]], limit: int = 50
) -> list[T]:
    """``items`` that match ``query``, best first (``names[i]`` are the names of item ``i``)."""
    scored = []
    for i, item_names in enumerate(names):
        s = score(query, item_names)
        if s is not None:
            scored.append((-s, i))
    scored.sort()
    return [items[i] for _, i in scored[:limit]]
