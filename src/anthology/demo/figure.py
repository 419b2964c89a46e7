"""The attention-scaling demo's evidence as a figure in the entry that embeds it.

An entry read, printed or exported carries no live widget, so the ```` ```demo ```` block
shows, above its "Open the demo" control, two panels drawn from a real sweep
(:func:`anthology.demo.attention_scaling.sweep`): the logits' variance and the largest
attention weight against d_k, for the four scalings, each in its own colour, line and
marker (:mod:`anthology.demo.styles`), with a caption saying what to look for.

The sweep is computed once (≈ 0.5 s) and kept twice: in memory for the process, and as a
small JSON file in the user cache folder for later launches (a cache: deleting it loses
nothing; an unreadable or stale one is recomputed). The SVG itself is cheap and drawn per
theme, so a theme change re-renders the entry with the figure in the new colours.

Qt-free: plain SVG text that the entry pane hands to QSvgRenderer.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass
from html import escape
from pathlib import Path

from anthology.palette import theme as palette_theme
from anthology.paths import user_cache_dir

from . import attention_scaling as maths
from .styles import PANEL_CAPTIONS, SCALING_STYLES, CurveStyle, draw_order


@dataclass(frozen=True)
class FigureSweep:
    """The sweep behind the figure; changing it (or the version) invalidates the cache."""

    d_ks: tuple[int, ...] = tuple(2**i for i in range(13))  # 1 … 4096
    n: int = 64
    samples: int = 500
    seed: int = 0


FIGURE_SWEEP = FigureSweep()
_CACHE_VERSION = 1
_lock = threading.Lock()
_memo: dict[str, dict] = {}


def cache_dir() -> Path:
    return user_cache_dir() / "demo"


def _cache_key() -> str:
    p = FIGURE_SWEEP
    return f"attention-scaling-v{_CACHE_VERSION}-n{p.n}-s{p.samples}-seed{p.seed}"


def figure_data() -> dict:
    """The figure's numbers: ``{"d_ks": [...], "var_logit": {scaling: [...]}, "max_p":
    {...}, "n": 64, "samples": 500}``, from memory, the cache file, or a fresh sweep."""
    key = _cache_key()
    with _lock:
        if key in _memo:
            return _memo[key]
        path = cache_dir() / f"{key}.json"
        data = _read(path)
        if data is None:
            data = _compute()
            _write(path, data)
        _memo[key] = data
        return data


def _compute() -> dict:
    p = FIGURE_SWEEP
    result = maths.sweep(d_ks=p.d_ks, n=p.n, samples=p.samples, seed=p.seed)
    out: dict = {"d_ks": [int(d) for d in result.d_ks], "n": result.n, "samples": result.samples}
    for metric in ("var_logit", "max_p"):
        means = result.summary[metric]["mean"]
        out[metric] = {s: [float(v) for v in means[i]] for i, s in enumerate(result.scalings)}
    return out


def _read(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    d_ks = list(FIGURE_SWEEP.d_ks)
    try:  # a file from another version, or damaged: recompute rather than trust it
        ok = data["d_ks"] == d_ks and all(
            len(data[m][s]) == len(d_ks) and all(math.isfinite(v) for v in data[m][s])
            for m in ("var_logit", "max_p")
            for s in maths.SCALINGS
        )
    except (KeyError, TypeError):
        ok = False
    return data if ok else None


def _write(path: Path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache folder costs a recomputation next launch, nothing more


# --------------------------------------------------------------------------- drawing

WIDTH = 660
_PANEL_W, _PANEL_H = 250, 170
_LEFT = (52, 382)  # x of each panel's plot area
_TOP = 62


@dataclass
class _Axis:
    lo: float
    hi: float
    log: bool

    def __call__(self, v: float) -> float:
        if self.log:
            v = math.log10(max(v, 1e-300))
        return (v - self.lo) / (self.hi - self.lo)


def _marker(kind: str, x: float, y: float, r: float, colour: str) -> str:
    if kind == "o":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{colour}"/>'
    if kind == "s":
        return (
            f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" height="{2 * r:.1f}" '
            f'fill="{colour}"/>'
        )
    if kind == "t":
        pts = f"{x - r:.1f},{y - r * 0.8:.1f} {x + r:.1f},{y - r * 0.8:.1f} {x:.1f},{y + r:.1f}"
    else:  # "d"
        r *= 1.25
        pts = f"{x:.1f},{y - r:.1f} {x + r:.1f},{y:.1f} {x:.1f},{y + r:.1f} {x - r:.1f},{y:.1f}"
    return f'<polygon points="{pts}" fill="{colour}"/>'


def _stroke(style: CurveStyle, colour: str) -> str:
    dash = f' stroke-dasharray="{",".join(f"{v:g}" for v in style.dash)}"' if style.dash else ""
    return (
        f'fill="none" stroke="{colour}" stroke-width="{style.width:g}" '
        f'stroke-opacity="{style.alpha:g}" stroke-linejoin="round"{dash}'
    )


def _panel(
    x0: float,
    title: str,
    xs: list[float],
    series: dict[str, list[float]],
    y: _Axis,
    y_ticks: list[tuple[float, str]],
    threshold: float,
    colours: dict[str, str],
    fg: str,
    grid: str,
) -> list[str]:
    x = _Axis(math.log10(xs[0]), math.log10(xs[-1]), True)
    px = lambda v: x0 + x(v) * _PANEL_W  # noqa: E731
    py = lambda v: _TOP + (1.0 - min(max(y(v), -0.02), 1.02)) * _PANEL_H  # noqa: E731
    out = [f'<text x="{x0 + _PANEL_W / 2:.0f}" y="{_TOP - 8}" text-anchor="middle" '
           f'font-weight="bold" fill="{fg}">{escape(title)}</text>']  # fmt: skip
    for value, label in y_ticks:
        ty = py(value)
        out.append(f'<line x1="{x0}" x2="{x0 + _PANEL_W}" y1="{ty:.1f}" y2="{ty:.1f}" '
                   f'stroke="{grid}" stroke-width="1"/>')  # fmt: skip
        out.append(f'<text x="{x0 - 5}" y="{ty + 4:.1f}" text-anchor="end" fill="{fg}" '
                   f'font-size="11">{label}</text>')  # fmt: skip
    for d in (1, 4, 16, 64, 256, 1024, 4096):
        tx = px(d)
        out.append(f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="{_TOP}" y2="{_TOP + _PANEL_H}" '
                   f'stroke="{grid}" stroke-width="1"/>')  # fmt: skip
        out.append(f'<text x="{tx:.1f}" y="{_TOP + _PANEL_H + 13}" text-anchor="middle" '
                   f'fill="{fg}" font-size="11">{d}</text>')  # fmt: skip
    out.append(f'<text x="{x0 + _PANEL_W / 2:.0f}" y="{_TOP + _PANEL_H + 27}" '
               f'text-anchor="middle" fill="{fg}" font-size="11">dₖ</text>')  # fmt: skip
    tx = px(threshold)
    out.append(f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="{_TOP}" y2="{_TOP + _PANEL_H}" '
               f'stroke="{fg}" stroke-width="1" stroke-dasharray="3,3"/>')  # fmt: skip
    out.append(f'<rect x="{x0}" y="{_TOP}" width="{_PANEL_W}" height="{_PANEL_H}" '
               f'fill="none" stroke="{fg}" stroke-width="1"/>')  # fmt: skip
    for s in draw_order(list(series)):
        style, colour = SCALING_STYLES[s], colours[s]
        pts = [(px(d), py(v)) for d, v in zip(xs, series[s], strict=True) if v > 0 or not y.log]
        path = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
        out.append(f'<polyline points="{path}" {_stroke(style, colour)}/>')
        for i, (a, b) in enumerate(pts):
            if i % 2 == style.marker_phase:
                out.append(_marker(style.marker, a, b, 3.2, colour))
    return out


def _decade_label(e: int) -> str:
    return {0: "1", 1: "10", -1: "0.1"}.get(e, f"1e{e}")


def _plain(text: str) -> str:
    """Subscripts as Unicode, for SVG text (no markup inside a <text>)."""
    return text.replace("d_k", "dₖ").replace("τ_c", "τ꜀")


def _wrap(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line] if line else lines


def figure_svg(theme: str) -> str:
    """The two-panel figure as SVG text, in ``theme``'s colours ("light" or "dark"),
    with a transparent background so it sits on the entry's own."""
    data = figure_data()
    t = palette_theme(theme)
    colours, fg = t.demo.scalings, t.entry.text
    grid = t.entry.table_border
    xs = [float(d) for d in data["d_ks"]]
    n = int(data["n"])
    threshold = 2 * math.log(n)  # unscaled τ = √d_k passes τ_c = √(2 ln n) here (σ = 1)

    var = data["var_logit"]
    positive = [v for s in maths.SCALINGS for v in var[s] if v > 0]
    lo_e = math.floor(math.log10(min(positive)))
    hi_e = math.ceil(math.log10(max(positive)))
    var_axis = _Axis(lo_e, hi_e, True)
    step = max(1, math.ceil((hi_e - lo_e) / 5))
    var_ticks = [(10.0**e, _decade_label(e)) for e in range(lo_e, hi_e + 1, step)]
    p_ticks = [(v, f"{v:g}") for v in (0.0, 0.25, 0.5, 0.75, 1.0)]

    captions = {m: _wrap(_plain(PANEL_CAPTIONS[m]), 44) for m in ("var_logit", "max_p")}
    cap_y = _TOP + _PANEL_H + 46
    height = cap_y + 14 * max(len(lines) for lines in captions.values())
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">'
    ]
    # legend: one sample of each line with its marker, in drawing style
    lx = 40.0
    for s in maths.SCALINGS:
        style, colour = SCALING_STYLES[s], colours[s]
        parts.append(f'<line x1="{lx:.0f}" x2="{lx + 34:.0f}" y1="14" y2="14" '
                     f'{_stroke(style, colour)}/>')  # fmt: skip
        parts.append(_marker(style.marker, lx + 17, 14, 3.2, colour))
        label = maths.SCALING_LABELS[s].replace("d_k", "dₖ")
        parts.append(f'<text x="{lx + 40:.0f}" y="18" fill="{fg}">{escape(label)}</text>')
        lx += 40 + 7.5 * len(label) + 30
    parts.append(f'<line x1="{lx:.0f}" x2="{lx:.0f}" y1="7" y2="21" stroke="{fg}" '
                 f'stroke-dasharray="3,3"/>')  # fmt: skip
    parts.append(f'<text x="{lx + 6:.0f}" y="18" fill="{fg}">saturation (τ = τ꜀)</text>')

    parts += _panel(_LEFT[0], "Var(s): variance of the logits", xs, var, var_axis, var_ticks,
                    threshold, colours, fg, grid)  # fmt: skip
    parts += _panel(_LEFT[1], "E[max p]: the largest weight", xs, data["max_p"],
                    _Axis(0.0, 1.0, False), p_ticks, threshold, colours, fg, grid)  # fmt: skip
    for x0, metric in zip(_LEFT, ("var_logit", "max_p"), strict=True):
        for k, line in enumerate(captions[metric]):
            parts.append(f'<text x="{x0 - 40}" y="{cap_y + 14 * k}" fill="{fg}" '
                         f'font-size="11.5">{escape(line)}</text>')  # fmt: skip
    parts.append("</svg>")
    return "\n".join(parts)


def figure_caption() -> str:
    """One line under the figure: what was measured, with its own numbers."""
    data = figure_data()
    last = -1
    none_p = data["max_p"]["none"][last]
    sqrt_p = data["max_p"]["1/sqrt(d)"][last]
    d = data["d_ks"][last]
    return (
        f"Measured by the demo's own sweep ({data['samples']} sampled queries per point, "
        f"n = {data['n']} keys, unit-variance components of q and k): at dₖ = {d} the "
        f"largest weight averages {none_p:.2f} unscaled and {sqrt_p:.2f} with 1/√dₖ."
    )
