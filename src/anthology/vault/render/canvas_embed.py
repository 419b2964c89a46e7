"""``![[board.canvas]]`` in a note: the board small, its shapes and arrows without the
cards' text (as Obsidian's embeds show it), drawn as an SVG of ours (a ``figure:``
resource the pane draws fitted to the column) inside a link that opens the canvas.

:func:`board_svg` is the drawing; :func:`canvas_embed` the entry of
``render.embeds.ATTACHMENT_EMBEDS`` for the ``canvas`` extension."""

from __future__ import annotations

import hashlib
import re
from html import escape
from pathlib import PurePosixPath
from urllib.parse import quote

from ..canvas.model import Canvas
from ..canvas.read import load_canvas
from .context import RenderContext

EMBED_WIDTH = 640  # px, at most (the pane fits it to its column)
EMBED_HEIGHT = 400
MARGIN = 40.0  # board px around the drawing


def _rgba(hex_colour: str, alpha: float) -> str:
    return f'{hex_colour}" fill-opacity="{alpha:.2f}'


def board_svg(canvas: Canvas, theme: str, width: int = EMBED_WIDTH,
              height: int = EMBED_HEIGHT) -> tuple[str, int, int]:  # fmt: skip
    """The board as SVG text no larger than ``width`` × ``height`` px (its aspect kept):
    groups, cards (coloured shapes, no text), edges with their arrowheads. ``(svg, w, h)``."""
    from ..canvas.geometry import Board, colour

    board = Board(canvas)
    bx, by, bw, bh = board.bounds()
    bx, by, bw, bh = bx - MARGIN, by - MARGIN, bw + 2 * MARGIN, bh + 2 * MARGIN
    scale = min(width / bw, height / bh)
    w, h = max(1, round(bw * scale)), max(1, round(bh * scale))
    stroke = 2.0 / scale  # about 2 px on screen, whatever the board's size
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="{bx:.1f} {by:.1f} {bw:.1f} {bh:.1f}">'
    ]
    for i in board.order:
        node = board.nodes[i]
        c = colour(node.color, theme)
        x, y, nw, nh = node.rect
        radius = min(12.0, nw / 4, nh / 4)
        if node.type == "group":
            out.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{nw:.1f}" height="{nh:.1f}" '
                f'rx="{radius:.1f}" fill="{_rgba(c, 0.08)}" stroke="{c}" '
                f'stroke-width="{stroke:.2f}" stroke-dasharray="{4 * stroke:.1f}"/>'
            )
    for shape in board.edges:
        c = colour(shape.edge.color, theme)
        (sx, sy), (ax, ay), (bx2, by2), (ex, ey) = shape.start, shape.c1, shape.c2, shape.end
        out.append(
            f'<path d="M{sx:.1f},{sy:.1f} C{ax:.1f},{ay:.1f} {bx2:.1f},{by2:.1f} '
            f'{ex:.1f},{ey:.1f}" fill="none" stroke="{c}" stroke-width="{stroke:.2f}"/>'
        )
        for tip, left, right in shape.heads:
            size = max(1.0, stroke / 2)
            pts = " ".join(
                f"{tip[0] + (p[0] - tip[0]) * size:.1f},{tip[1] + (p[1] - tip[1]) * size:.1f}"
                for p in (tip, left, right)
            )
            out.append(f'<polygon points="{pts}" fill="{c}"/>')
    for i in board.order:
        node = board.nodes[i]
        if node.type == "group":
            continue
        c = colour(node.color, theme)
        x, y, nw, nh = node.rect
        radius = min(12.0, nw / 4, nh / 4)
        out.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{nw:.1f}" height="{nh:.1f}" '
            f'rx="{radius:.1f}" fill="{_rgba(c, 0.18 if node.color else 0.10)}" stroke="{c}" '
            f'stroke-width="{stroke:.2f}"/>'
        )
    out.append("</svg>")
    return "".join(out), w, h


def _size(alias: str | None) -> tuple[int, int]:
    """``![[b.canvas|300]]`` / ``|300x200``: the embed's width (and height) in px."""
    m = re.fullmatch(r"\s*(\d{1,4})(?:x(\d{1,4}))?\s*", alias or "")
    if not m:
        return EMBED_WIDTH, EMBED_HEIGHT
    w = max(40, min(int(m.group(1)), 2000))
    return w, max(40, min(int(m.group(2)), 2000)) if m.group(2) else round(w * 0.625)


def canvas_embed(ctx: RenderContext, target: str, alias: str | None, frag: str | None) -> str:
    """``![[target.canvas]]``: the board drawn small in a link that opens it, or a notice."""
    root = ctx.vault_root
    # A canvas is an entry (vault/canvas/index.py): found as links find it, and recorded so
    # a refresh that changes the canvas drops this render (render/freshness.py).
    ref = ctx.resolve(target)
    rel = ref.path if ref is not None and ref.path.lower().endswith(".canvas") else None
    if rel is None or root is None:
        ctx.problems.append(f"missing canvas: {target}")
        return ctx.notice(f"⊘ Canvas not found: “{escape(target)}”", error=True, block=True)
    canvas = load_canvas(root, rel)
    href = escape("vault:" + quote(rel, safe="/"))
    name = escape(PurePosixPath(rel).stem)
    link = (f'<a href="{href}" style="color: {ctx.palette.link}; text-decoration: none;">'
            f"▦ {name}</a>")  # fmt: skip
    notes = ""
    if canvas.problems:
        first = canvas.problems[0]
        more = f" (and {len(canvas.problems) - 1} more)" if len(canvas.problems) > 1 else ""
        ctx.problems.append(f"canvas {rel}: {first.message}{more}")
        notes = ctx.notice(f"⚠ {escape(first.message)}{escape(more)}",
                           error=first.severity == "error")  # fmt: skip
    if not canvas.nodes:
        return (f'<p class="canvas-embed">{link} <span style="color: {ctx.palette.muted};">'
                f"(an empty canvas)</span> {notes}</p>")  # fmt: skip
    want_w, want_h = _size(alias)
    svg, w, h = board_svg(canvas, ctx.palette.name, want_w, want_h)
    digest = hashlib.sha1(svg.encode("utf-8")).hexdigest()[:16]
    key = f"figure:canvas-{digest}"
    ctx.resources[key] = svg.encode("utf-8")
    return (
        # line-height 100 %: the body's 150 % would stretch the line the picture sits on
        f'<p class="canvas-embed" style="margin-bottom: 2px; line-height: 100%;">'
        f'<a href="{href}">'
        f'<img src="{escape(key)}" width="{w}" height="{h}" alt="{name}" /></a></p>'
        f'<p class="canvas-caption" style="margin-top: 0;">{link} {notes}</p>'
    )
