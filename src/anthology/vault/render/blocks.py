"""The blocks the source pass stashes as finished HTML: typeset math, highlighted code and
demo buttons."""

from __future__ import annotations

from html import escape

from anthology.demo import DEMOS

from . import mathtex
from .context import (
    MAX_FORMULAS,
    RenderContext,
    _url,
)


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
    label = (
        f'<p style="color: {p.muted}; font-size: small; margin: 0;">{escape(lang)}</p>'
        if lang
        else ""
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
    return (
        f'<table class="demo" cellspacing="0" cellpadding="0" style="margin-top: 8px; '
        f'margin-bottom: 12px;"><tr><td bgcolor="{p.link}" style="padding: 8px 16px;">'
        f'<a href="demo:{_url(name)}" style="color: {p.background}; text-decoration: none; '
        f'font-weight: bold;">▶ Open the {escape(name)} demo</a></td></tr></table>'
        f'<p style="color: {p.muted}; margin-top: 0;">{escape(DEMOS[name].description)}</p>'
    )
