"""The row every benchmark returns to ``run.py``."""

from __future__ import annotations


def row(name, size, unit, ours, peer, peer_value, *, lower_is_better: bool = True) -> dict:
    """``ratio`` reads "above 1: we are better": peer ÷ ours for times, ours ÷ peer for rates."""
    if not ours or not peer_value:
        ratio = None
    else:
        ratio = peer_value / ours if lower_is_better else ours / peer_value
    return {"name": name, "size": size, "unit": unit, "ours": ours, "peer": peer,
            "peer_value": peer_value, "ratio": ratio}  # fmt: skip
