"""Hostile or broken entries render safely, quickly, with a visible notice where needed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_render import text_of
from test_render_sample import FakeResolver, lit_008

from anthology.vault.render import render_entry, sanitise_html


def body_html(body: str, resolver: FakeResolver):
    out = render_entry(lit_008(body=body), resolver)
    return out, out.html[out.html.index('<div class="body">') :]


def assert_inert(html: str) -> None:
    low = html.lower()
    for bad in ("<script", "<style", "<iframe", "<object", "<embed", "<form", "<input"):
        assert bad not in low[low.index("</style>") :] if "</style>" in low else bad not in low
    assert not re.search(r"\son\w+\s*=", low)
    for scheme in ("javascript:", "vbscript:", "data:", "file:"):
        assert not re.search(rf'(href|src)="\s*{scheme}', low)
    assert not re.search(r'src="(https?:)?//', low)


def test_scripts_handlers_and_bad_urls_are_removed(resolver: FakeResolver) -> None:
    body = (
        "Hello <script>alert('x')</script> world\n\n"
        '<div onclick="steal()" style="color: red; background: url(http://e.vil/x)">div</div>\n\n'
        '<a href="javascript:alert(1)">js link</a> <a href="jav&#x09;ascript:alert(1)">tab</a>\n\n'
        "[md js](javascript:alert(1)) [vb](vbscript:x) [file](file:///etc/passwd)\n\n"
        '<iframe src="https://e.vil">frame text</iframe><object data="x"></object>\n\n'
        '<style>body { display: none }</style><form action="/x"><input name=q></form>\n\n'
        '<img src="x.png" onerror="alert(1)"> <img src="data:image/png;base64,AAAA">\n\n'
        "<svg onload=alert(1)><circle/></svg> <mark>marked</mark> <b>bold</b>\n"
    )
    _out, html = body_html(body, resolver)
    assert_inert(html)
    text = text_of(html)
    assert "alert" not in text and "display: none" not in text and "frame text" not in text
    for visible in ("Hello", "world", "div", "js link", "md js", "tab", "marked", "bold"):
        assert visible in text
    assert "color: red" in html  # harmless styles survive
    assert "Refused image source" in text


def test_remote_images_become_placeholders_with_their_address(resolver: FakeResolver) -> None:
    _out, html = body_html(
        '![chart](https://example.com/a.png)\n\n<img src="http://example.com/b.png" alt="b">'
        "\n\n![p](//cdn.example.com/c.png)",
        resolver,
    )
    assert_inert(html)
    text = text_of(html)
    assert text.count("Remote image not loaded") == 3
    for url in (
        "https://example.com/a.png",
        "http://example.com/b.png",
        "https://cdn.example.com/c.png",
    ):
        assert url in text and f'href="{url}"' in html
    assert not re.findall(r'<img[^>]*src="http', html)


def test_huge_body_is_truncated_visibly(resolver: FakeResolver) -> None:
    body = ("A paragraph with *emphasis* and [[SOTA-050]] and $x$.\n\n" * 400_000)[:20_000_000]
    out, _html = body_html(body, resolver)
    assert "only the first 99 thousand are shown" in text_of(out.html)
    assert any("truncated" in p for p in out.problems)
    assert len(out.html) < 3_000_000


@pytest.mark.parametrize(
    "body",
    [
        "\n".join("  " * i + "- item" for i in range(10_000)),
        "\n".join("    " * i + "1. item" for i in range(300)),
        ">" * 10_000 + " deep quote",
        "- " * 5_000 + "x",
        "<div>" * 5_000 + "inside" + "</div>" * 5_000,
        "[" * 5_000 + "x" + "]" * 5_000,
        "_*" * 10_000 + "x",
    ],
    ids=[
        "list-10000",
        "ordered-300",
        "quote-10000",
        "markers-5000",
        "divs-5000",
        "brackets",
        "stars",
    ],
)
def test_pathological_nesting_renders(resolver: FakeResolver, body: str) -> None:
    out, html = body_html(body, resolver)
    assert "</html>" in out.html
    assert len(text_of(html).strip()) > 0


def test_endless_words_get_break_opportunities(resolver: FakeResolver) -> None:
    _out, html = body_html(
        "x" * 50_000 + " and a [link](https://example.org/" + "y" * 300 + ")", resolver
    )
    assert "\u200b" in html
    assert max(len(w) for w in text_of(html).replace("\u200b", " ").split()) <= 120
    assert 'href="https://example.org/' + "y" * 300 + '"' in html  # hrefs untouched


def test_embed_of_files_outside_the_vault_reads_nothing(
    resolver: FakeResolver, tmp_path: Path
) -> None:
    calls: list[str] = []
    real = resolver.attachment

    def spy(target: str, source: str):
        calls.append(target)
        return real(target, source)

    resolver.attachment = spy  # type: ignore[method-assign]
    out, html = body_html(
        "![[../../etc/passwd]] ![[/etc/passwd.png]] ![x](../secret.png)", resolver
    )
    assert text_of(html).count("lies outside the vault") == 3
    assert calls == []  # refused before the resolver was even asked
    assert "passwd" not in "".join(re.findall(r'src="([^"]*)"', out.html))


def test_sanitiser_keeps_allowed_markup() -> None:
    def policy(url: str, kind: str, attrs: dict[str, str]):
        return ("href", "vault:" + url) if kind == "image" else ("href", url)

    html = sanitise_html(
        '<table border="1"><tr><td colspan="2" onmouseover="x()">cell</td></tr></table>'
        '<a href="https://ok.example" target="_blank">ok</a><img src="a.png" alt="A">',
        policy,
    )
    assert html == (
        '<table border="1"><tr><td colspan="2">cell</td></tr></table>'
        '<a href="https://ok.example">ok</a><img alt="A" src="vault:a.png" />'
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.sampled_from(
            [
                "<script>",
                "</script>",
                "<img src=",
                "javascript:",
                "[[",
                "]]",
                "![[",
                "$",
                "$$",
                "`",
                "```",
                "> [!note]",
                "\n",
                "\n\n",
                "- [ ] ",
                "==",
                "~~",
                "%%",
                "<a href=",
                '"',
                "'",
                ">",
                "<",
                "|",
                "#tag",
                "[^1]",
                "[x](",
                ")",
                "\\",
                "^id",
                "    ",
                "x",
                "é",
            ]
        ),
        max_size=40,
    )
)
def test_any_mix_of_syntax_renders_without_raising(
    resolver: FakeResolver, parts: list[str]
) -> None:
    out, html = body_html("".join(parts), resolver)
    assert out.html.endswith("</html>")
    assert_inert(html)
