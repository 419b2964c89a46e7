"""What the queries a body holds (bases, Dataview blocks and inline queries) add to its
render's cost (``render_size``): apart from the query renderers, so that asking it (at every
click) does not import the query engine. A page holding one renders off the GUI thread."""

from __future__ import annotations

import re

COST = 50_000  # what a query weighs in render_size: always past the background threshold
_FENCE_RE = re.compile(r"^[ \t>]*(?:```|~~~)[ \t]*(?:base|dataview)\b", re.M | re.I)


def query_cost(body: str) -> int:
    """How much the queries ``body`` holds add to its render's cost."""
    if "base" not in body and "dataview" not in body and "`=" not in body:
        return 0
    # counted, not parsed (str.count: linear and fast whatever the body holds)
    embeds = sum(body.count(f".base{end}") for end in ("]]", "#", "|"))
    inline = body.count("`=")
    return COST * min(embeds + inline + len(_FENCE_RE.findall(body)), 10)
