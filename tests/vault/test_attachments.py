"""Which attachments open on a click, and SVGs made self-contained (pure Python)."""

from __future__ import annotations

import pytest

from anthology.vault.attachments import describe, open_policy
from anthology.vault.render.svg_safety import UnsafeSvg, sanitise_svg


@pytest.mark.parametrize(
    "name",
    ["paper.pdf", "img/Fig 1.PNG", "a.jpeg", "talk.mp4", "song.flac", "data.csv", "book.epub"],
)
def test_documents_and_media_open(name: str) -> None:
    assert open_policy(name) == "open"


@pytest.mark.parametrize(
    "name",
    [
        "paper.sh",
        "setup.exe",
        "run.bat",
        "x.hta",
        "page.html",
        "page.htm",
        "drawing.svg",
        "macro.docm",
        "slides.pptx",
        "sheet.xlsx",
        "Makefile",
        "script.py",
        "paper.pdf.exe",
        "trailing.exe.",
        ".bashrc",
        "app.desktop",
        "x.lnk",
        "x.jar",
    ],
)
def test_programs_scripts_html_and_unknowns_ask(name: str) -> None:
    assert open_policy(name) == "ask"


def test_the_question_names_the_type() -> None:
    assert describe("dir/paper.sh") == "a .sh file"
    assert describe("Makefile") == "a file without an extension"


SVG_HEAD = (
    b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    b'width="10" height="10">'
)


def test_external_references_are_stripped_from_svgs() -> None:
    svg = SVG_HEAD + (
        b"<style>@import url(http://e.vil/x.css); .a { fill: url(#g) } "
        b".b { background: url(/etc/x.png) }</style>"
        b"<image xlink:href='/abs/path.png' width='5' height='5'/>"
        b"<image href='file:///abs/p.png'/><use href='other.svg#a'/><use xlink:href='#a'/>"
        b"<image href='data:image/png;base64,iVBORw0KGgo='/>"
        b"<script>alert(1)</script><foreignObject><p>html</p></foreignObject>"
        b"<rect onload='x()' fill='url(#g)' style='fill: url(file:///x)'/></svg>"
    )
    clean, removed = sanitise_svg(svg)
    text = clean.decode()
    for bad in ("/abs/path.png", "file:", "other.svg", "@import", "/etc/x.png", "script",
                "foreignObject", "onload", "e.vil"):  # fmt: skip
        assert bad not in text, bad
    assert "#a" in text and "url(#g)" in text and "data:image/png" in text  # kept
    assert removed == 8  # an <image> or <use> pointing outside goes whole


@pytest.mark.parametrize(
    "data",
    [
        b'<!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><svg>&b;</svg>',
        b"<svg><unclosed></svg>",
        b"not xml at all",
    ],
)
def test_unsafe_or_broken_svgs_are_refused(data: bytes) -> None:
    with pytest.raises(UnsafeSvg):
        sanitise_svg(data)
