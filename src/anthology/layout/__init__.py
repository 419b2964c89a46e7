"""Force-directed graph layout (d3-force semantics, pure numpy; no Qt here)."""

from anthology.layout.force_layout import ForceLayout, ForceParams

__all__ = ["ForceLayout", "ForceParams"]
