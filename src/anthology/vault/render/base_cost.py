"""What the bases a body holds add to its render's cost (``render_size``): apart from the
Bases renderer, so that asking it (at every click) does not import the query engine."""

from __future__ import annotations

import re

COST = 50_000  # what a base weighs in render_size: always past the background threshold
_FENCE_RE = re.compile(r"^[ \t]*(?:```|~~~)[ \t]*base\b", re.M | re.I)


def query_cost(body: str) -> int:
    """How much the bases ``body`` holds add to its render's cost."""
    if "base" not in body:
        return 0
    # counted, not parsed (str.count: linear and fast whatever the body holds)
    embeds = sum(body.count(f".base{end}") for end in ("]]", "#", "|"))
    return COST * min(embeds + len(_FENCE_RE.findall(body)), 10)
