"""The blocks the source pass stashes as finished HTML: typeset math, highlighted code, demo
buttons and the Admonition plugin's callouts; fenced blocks go through one registry by
language (:func:`fenced_html`), so a new kind of block is one function here."""

from __future__ import annotations

import importlib
import re
import xml.etree.ElementTree as etree
from collections.abc import Callable
from html import escape

from anthology.demo import DEMOS

from . import mathtex
from .callouts import callout_shell
from .context import (
    MAX_FORMULAS,
    RenderContext,
    quote_all,
)
from .lazy import lazy


# ---------------------------------------------------------------- math
def math_html(ctx: RenderContext, tex: str, display: bool, block: bool) -> str:
    key = (tex.strip(), display)
    if key not in ctx.budget.formulas and len(ctx.budget.formulas) >= MAX_FORMULAS:
        ctx.budget.cut(
            "formulas", f"only the first {MAX_FORMULAS} formulas are typeset, the rest as TeX"
        )
        delim = "$$" if display else "$"
        return (
            f'<code class="math-source" style="background-color: '
            f'{ctx.palette.inline_code_bg};">{escape(delim + tex + delim)}</code>'
        )
    ctx.budget.formulas.add(key)
    try:
        img = mathtex.tex_to_svg(tex, display=display, color=ctx.palette.math)
    except mathtex.TexError as exc:
        ctx.problems.append(f"TeX error in “{tex[:60]}”: {exc}")
        delim = "$$" if display else "$"
        return (
            f'<span class="math-error" title="TeX error: {escape(str(exc))}" '
            f'style="color: {ctx.palette.error}; background-color: {ctx.palette.error_bg}; '
            f'font-family: monospace;">{escape(delim + tex + delim)}</span>'
        )
    ctx.resources[img.key] = img.svg
    tag = (
        f'<img src="{img.key}" width="{round(img.width)}" height="{round(img.height)}" '
        f'alt="{escape(tex)}" style="vertical-align: middle;" />'
    )
    if display and block:
        return f'<p class="math-display" align="center">{tag}</p>'
    return tag


# ---------------------------------------------------------------- code and demos
def code_html(ctx: RenderContext, code: str, lang: str) -> str:
    from .highlight import highlight_code

    p = ctx.palette
    body = highlight_code(code, lang, p.pygments_style)
    number = len(ctx.budget.code_blocks)
    ctx.budget.code_blocks.append(code)
    copy = (  # a control: left out on paper and in exports (paper.py, standalone.py)
        f'<a class="copy-code" href="copy:{number}" title="Copy the code" '
        f'style="color: {p.muted}; text-decoration: none;">Copy</a>'
    )
    label = (
        f'<table width="100%" cellspacing="0" cellpadding="0" style="margin: 0;"><tr>'
        f'<td><span style="color: {p.muted}; font-size: small;">{escape(lang)}</span></td>'
        f'<td align="right"><span style="font-size: small;">{copy}</span></td></tr></table>'
    )
    return (
        f'<table class="code" width="100%" cellspacing="0" cellpadding="10" '
        f'bgcolor="{p.code_bg}" '
        f'style="margin-top: 6px; margin-bottom: 12px;"><tr><td>{label}'
        f'<pre style="margin: 0; white-space: pre-wrap;">{body}</pre></td></tr></table>'
    )


def demo_html(ctx: RenderContext, name: str) -> str:
    p = ctx.palette
    name = name.strip()
    if name not in DEMOS:
        ctx.problems.append(f"unknown demo: {name}")
        known = ", ".join(sorted(DEMOS))
        return ctx.notice(
            f"Unknown demo “{escape(name)}” (known: {escape(known)})", error=True, block=True
        )
    return demo_figure_html(ctx, name) + (
        f'<table class="demo" cellspacing="0" cellpadding="0" style="margin-top: 8px; '
        f'margin-bottom: 12px;"><tr><td bgcolor="{p.link}" style="padding: 8px 16px;">'
        f'<a href="demo:{quote_all(name)}" style="color: {p.background}; text-decoration: none; '
        f'font-weight: bold;">▶ Open the {escape(name)} demo</a></td></tr></table>'
        f'<p style="color: {p.muted}; margin-top: 0;">{escape(DEMOS[name].description)}</p>'
    )


def demo_figure_html(ctx: RenderContext, name: str) -> str:
    """The demo's result as a still figure (SVG, in the theme's colours) with its caption,
    so the entry carries its evidence when read, printed or exported; "" for a demo
    without one. The pane draws ``figure:`` resources as trusted SVG, fitted to the text
    column (no ``width`` here, so a narrow pane shrinks it instead of scrolling)."""
    module_name = DEMOS[name].figure
    if not module_name:
        return ""
    try:
        module = importlib.import_module(module_name)
        svg = module.figure_svg(ctx.palette.name)
        caption = module.figure_caption()
    except Exception as exc:  # the figure is a bonus: the entry and its button still show
        ctx.problems.append(f"demo figure {name}: {exc}")
        return ctx.notice(f"The {escape(name)} figure could not be drawn: {escape(str(exc))}")
    key = f"figure:{quote_all(name)}-{ctx.palette.name}"
    ctx.resources[key] = svg.encode("utf-8")
    return (
        # line-height 100 %: the body's 150 % would stretch the line the figure sits on
        f'<p class="demo-figure" align="center" '
        f'style="margin-top: 10px; margin-bottom: 2px; line-height: 100%;">'
        f'<img src="{escape(key)}" alt="{escape(DEMOS[name].title)}: the sweep" /></p>'
        f'<p class="demo-caption" style="color: {ctx.palette.muted}; font-size: small; '
        f'margin-top: 0;">{escape(caption)}</p>'
    )


# ---------------------------------------------------------------- admonitions
# The Admonition plugin's parameters, each on a line of its own at the top of the block.
_ADMONITION_PARAM_RE = re.compile(r"^(title|collapse|icon|color):[ \t]*(.*)$", re.IGNORECASE)
_STASHED_BODY = "\ue000admonition-body\ue000"  # stands for the body's HTML in the shell


def admonition_html(ctx: RenderContext, kind: str, code: str) -> str:
    """```` ```ad-kind ```` (the Admonition plugin) as the callout of that kind: ``title:``
    (empty: no title line; absent: the kind's name), ``collapse: open|closed`` (foldable,
    as ``[!kind]+`` / ``[!kind]-``); ``icon:`` and ``color:`` are read and left to the
    theme. The body is Markdown, rendered as a page of its own within this render."""
    lines = code.split("\n")
    params: dict[str, str] = {}
    while lines and (m := _ADMONITION_PARAM_RE.match(lines[0].strip())):
        params[m.group(1).lower()] = m.group(2).strip()
        lines.pop(0)
    title = params.get("title", kind.replace("-", " ").capitalize())
    fold = {"open": "+", "closed": "-"}.get(params.get("collapse", "").lower(), "")
    table, cell, collapsed = callout_shell(None, ctx, kind, title, fold)
    body = "\n".join(lines).strip("\n")
    inner = ""
    if body.strip() and not collapsed and ctx.render_body is not None:
        inner = ctx.render_body(body, ctx.child(ctx.entry_id, ctx.source_path))
    etree.SubElement(cell, "div").text = _STASHED_BODY
    shell = etree.tostring(table, encoding="unicode", method="html")
    return shell.replace(f"<div>{_STASHED_BODY}</div>", inner)


# ---------------------------------------------------------------- the registry
# (ctx, language as written, the block's text) → HTML; by language, or by a prefix ("ad-").
FencedRenderer = Callable[[RenderContext, str, str], str]
FENCED: dict[str, FencedRenderer] = {
    "math": lambda ctx, _lang, code: math_html(ctx, code, True, True),
    "mermaid": lazy("mermaid", "mermaid_html"),  # drawn by whoever shows the page (see .mermaid)
    "demo": lambda ctx, _lang, code: demo_html(
        ctx, code.strip().splitlines()[0] if code.strip() else ""
    ),
    "base": lazy("bases", "base_block_html"),
    "dataview": lazy("dataview", "dataview_block_html"),
    "dataviewjs": lazy("dataview", "dataviewjs_block_html"),  # shown as code: JS never runs
}
FENCED_PREFIXES: dict[str, FencedRenderer] = {
    "ad-": lambda ctx, lang, code: admonition_html(ctx, lang[3:], code),
}


def fenced_html(ctx: RenderContext, lang: str, code: str) -> str:
    """A fenced block of ``lang`` (lower case, as the info string's first word) as HTML:
    its registered renderer, else highlighted code."""
    render = FENCED.get(lang) or next(
        (r for p, r in FENCED_PREFIXES.items() if lang.startswith(p) and len(lang) > len(p)),
        None,  # a bare prefix ("ad-") names no kind: shown as code
    )
    return render(ctx, lang, code) if render is not None else code_html(ctx, code, lang)
