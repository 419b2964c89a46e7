"""TeX math: typeset offline to SVG, protected from Markdown, never raising."""

from __future__ import annotations

import re

import pytest
from test_render import text_of
from test_render_sample import FakeResolver, lit_008

from anthology.vault.render import render_entry
from anthology.vault.render.mathtex import TexError, tex_to_svg


def body_html(body: str, resolver: FakeResolver, theme: str = "light"):
    out = render_entry(lit_008(body=body), resolver, theme=theme)
    return out, out.html[out.html.index('<div class="body">') :]


def test_inline_and_display_math_become_svg_images(resolver: FakeResolver) -> None:
    out, html = body_html(
        "Inline $a_1 * b_2 * c_3$ here.\n\n$$\n\\frac{QK^\\top}{\\sqrt{d_k}}\n$$\n", resolver
    )
    keys = re.findall(r'<img src="(math:[0-9a-f]+)"', html)
    assert len(keys) == 2
    for key in keys:
        assert out.resources[key].startswith(b"<svg")
        assert b"<path" in out.resources[key]
    assert "<em>" not in html  # the underscores and asterisks stayed TeX
    assert 'style="vertical-align: middle;"' in html
    assert '<p class="math-display" align="center">' in html


def test_dollar_amounts_and_code_are_not_math(resolver: FakeResolver) -> None:
    out, html = body_html(
        "It costs $5 and $10 today. Escaped \\$x\\$ too. `$y$` in code.\n\n```\n$$z$$\n```\n",
        resolver,
    )
    assert not out.resources
    text = text_of(html)
    assert "$5 and $10" in text and "$y$" in text and "$$z$$" in text


def test_math_in_tables_callouts_and_lists(resolver: FakeResolver) -> None:
    out, _ = body_html(
        "| a | b |\n|---|---|\n| $x^2$ | $y_i$ |\n\n> [!note] T\n> $\\alpha$\n\n- item $\\beta$\n",
        resolver,
    )
    assert len(out.resources) == 4


def test_broken_tex_shows_an_error_in_place(resolver: FakeResolver) -> None:
    out, html = body_html("Good $x$, bad $\\frac{a$ and $$\\left( x$$ end.", resolver)
    text = text_of(html)
    assert "$\\frac{a$" in text and "$$\\left( x$$" in text
    assert html.count('class="math-error"') == 2
    assert sum("TeX error" in p for p in out.problems) == 2
    assert "end." in text


def test_math_colour_follows_the_theme(resolver: FakeResolver) -> None:
    light, _ = body_html("$x$", resolver)
    dark, _ = body_html("$x$", resolver, theme="dark")
    (light_svg,) = light.resources.values()
    (dark_svg,) = dark.resources.values()
    assert b"#222222" in light_svg and b"#dcddde" in dark_svg


def test_tex_to_svg_is_cached() -> None:
    first = tex_to_svg(r"\sum_{i=1}^{n} x_i^2 + \frac{a}{b}", color="#123456")
    assert tex_to_svg(r"\sum_{i=1}^{n} x_i^2 + \frac{a}{b}", color="#123456") is first
    assert first.width > 0 and first.height > 0


@pytest.mark.parametrize("tex", ["", r"\frac{a", "x^^", "{" * 600 + "x" + "}" * 600, "x" * 5000])
def test_bad_tex_raises_only_tex_error(tex: str) -> None:
    with pytest.raises(TexError):
        tex_to_svg(tex)
