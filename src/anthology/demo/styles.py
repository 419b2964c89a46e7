"""How each scaling is drawn, wherever the demo draws it: the live widget's sweep panels
(Qt pens) and the figure in the entry (SVG, :mod:`anthology.demo.figure`).

Colour alone does not tell the curves apart: at σ_q = σ_k = 1 the 1/√d_k and QK-norm curves
are the same numbers and lie exactly on top of each other. So each scaling also has its own
line (width, dash) and marker, and the two that coincide are drawn so that both stay
visible where they overlap: 1/√d_k as a wide translucent band underneath, QK-norm as a thin
dashed line on top, with their markers on alternate points (``marker_phase``) so a square
and a diamond take turns along the shared line. Colours come from
:mod:`anthology.palette` (per theme); this table holds only what does not change with it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CurveStyle:
    width: float  # line width, px
    dash: tuple[float, ...]  # dash pattern in px (on, off, …); () = solid
    marker: str  # "o" circle, "s" square, "t" triangle (pointing down), "d" diamond
    alpha: float  # line opacity (markers are opaque)
    marker_phase: int  # markers sit on the points i with i % 2 == marker_phase
    z: int  # drawing order: higher is drawn later, on top


SCALING_STYLES: dict[str, CurveStyle] = {
    "none": CurveStyle(width=2.0, dash=(), marker="o", alpha=1.0, marker_phase=0, z=1),
    "1/sqrt(d)": CurveStyle(width=6.0, dash=(), marker="s", alpha=0.45, marker_phase=0, z=0),
    "1/d": CurveStyle(width=2.0, dash=(8.0, 3.0, 2.0, 3.0), marker="t", alpha=1.0,
                      marker_phase=1, z=2),
    "qk-norm": CurveStyle(width=2.0, dash=(6.0, 4.0), marker="d", alpha=1.0, marker_phase=1,
                          z=3),
}  # fmt: skip

# What to look for in each sweep panel: one short line under it (the widget and the figure).
PANEL_CAPTIONS: dict[str, str] = {
    "var_logit": "Unscaled, Var(s) grows like d_k; 1/√d_k and QK-norm hold it at 1.",
    "max_p": "Past the dashed line, unscaled attention gives one key nearly all the weight.",
    "entropy_norm": "Unscaled, the entropy collapses: attention turns one-hot.",
    "jac_fro": "Unscaled, the softmax Jacobian, which every gradient passes, vanishes.",
    "grad_q_norm": "Unscaled, the median gradient reaching q falls by orders of magnitude.",
    "zero_grad": "Gradients of exactly zero appear only unscaled (try bfloat16).",
}


def draw_order(scalings: tuple[str, ...] | list[str]) -> list[str]:
    """``scalings`` in the order they are drawn (lowest ``z`` first)."""
    return sorted(scalings, key=lambda s: SCALING_STYLES[s].z)
