"""Excalidraw drawings in the core: the plugin's Markdown read as the plugin writes it
(compressed or not, old and new layouts), its text searchable and its links in the index,
the compressed JSON never indexed; the drawing drawn in an entry page and in embeds at the
size written; and bad input (a corrupt payload, 100,000 elements, pictures outside the vault
or on the web, invalid JSON) a notice in place, the rest of the page shown."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from anthology.vault.drawing import load
from anthology.vault.drawing.load import INLINE, TAB, load_drawing
from anthology.vault.drawing.lzstring import (
    LZStringError,
    compress_to_base64,
    decompress_from_base64,
)
from anthology.vault.drawing.scene import DrawingError, parse_colour, scene_from_json, themed
from anthology.vault.drawing.svg import drawing_svg
from anthology.vault.excalidraw_md import drawing_block, text_elements
from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache, preview_html, render_entry
from anthology.vault.render.previews import render_preview
from drawing_files import element, many_elements, plugin_markdown, scene, wrap
from sample_vault import write_vault

MAP = scene([
    element("rectangle", "box00001", 0, 0, 200, 100, backgroundColor="#a5d8ff"),
    element("text", "txt00001", 20, 35, 160, 25, text="Read Alpha first",
            originalText="Read Alpha first", rawText="Read [[Alpha]] first",
            containerId="box00001"),
    element("arrow", "arr00001", 200, 50, 100, 0, points=[[0, 0], [100, 0]],
            link="[[Beta]]"),
    element("ellipse", "ell00001", 300, 0, 150, 100, strokeColor="#e03131"),
    element("text", "txt00002", 300, 120, 200, 25, text="quokka habitat",
            originalText="quokka habitat"),
    element("rectangle", "gone0001", 900, 900, 50, 50, isDeleted=True),
])  # fmt: skip


def vault(tmp_path: Path, files: dict[str, str]) -> Path:
    return write_vault(tmp_path / "vault", files)


def page(root: Path, tmp_path: Path, entry_id: str, theme: str = "light"):
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        clear_render_cache()
        load.clear_cache()
        entry = index.entry(entry_id)
        assert entry is not None, entry_id
        return render_entry(entry, index, vault_root=root, theme=theme)


def picture(rendered) -> bytes:
    keys = [k for k in rendered.resources if k.startswith("figure:drawing-")]
    assert len(keys) == 1, keys
    return rendered.resources[keys[0]]


# ---------------------------------------------------------------- LZ-String
@pytest.mark.parametrize(
    "text",
    ['{"type": "excalidraw"}', "a" * 5000, "Grüße, 東京 😀 and 𝄞", json.dumps(MAP, indent="\t")],
)
def test_lzstring_decodes_what_the_plugin_encodes(text: str) -> None:
    payload = compress_to_base64(text)
    assert decompress_from_base64(payload) == text
    assert decompress_from_base64(wrap(payload, 16)) == text  # wrapped over lines


# What the JavaScript library (lz-string 1.5.0, the plugin's) writes for these texts:
# LZString.compressToBase64(text), run under Node.
REFERENCE = {
    '{"type": "excalidraw"}': "N4IgLgngDgpiBcACEMAeBjAhgGwJYBMAnTAdxAF8g===",
    "Grüße, 東京 😀 and 𝄞": "OIJwPw+wpgNABIR3NA1cnQvBuAA9uBDAdgEzkBYNwPF2g===",
}


@pytest.mark.parametrize(("text", "payload"), REFERENCE.items())
def test_lzstring_agrees_with_the_javascript_library(text: str, payload: str) -> None:
    assert decompress_from_base64(payload) == text
    assert compress_to_base64(text) == payload  # byte for byte: the test files are real


def test_a_corrupt_or_cut_payload_is_an_error_not_garbage() -> None:
    payload = compress_to_base64(json.dumps(MAP))
    with pytest.raises(LZStringError, match="cut short"):
        decompress_from_base64(payload[: len(payload) // 2])
    with pytest.raises(LZStringError, match="not Base64"):
        decompress_from_base64(payload[:40] + "$%" + payload[40:])
    with pytest.raises(LZStringError):
        decompress_from_base64("////" * 50)
    with pytest.raises(LZStringError, match="more than 1,000"):
        decompress_from_base64(compress_to_base64("x" * 5000), max_chars=1000)


# ---------------------------------------------------------------- the plugin's Markdown
def test_the_plugins_sections_are_read_in_both_layouts() -> None:
    new = plugin_markdown(MAP)
    assert text_elements(new) == [("txt00001", "Read [[Alpha]] first"),
                                  ("txt00002", "quokka habitat")]  # fmt: skip
    start, _end, lang, payload = drawing_block(new)  # type: ignore[misc]
    assert lang == "compressed-json" and new[start:].startswith("## Drawing")
    assert json.loads(decompress_from_base64(payload))["elements"][0]["id"] == "box00001"
    # before 2.0: "# Text Elements" outside the comment, "# Drawing", plain JSON
    old = ("---\nexcalidraw-plugin: parsed\n---\n# Text Elements\nHello ^abcdefgh\n\n"
           f"%%\n# Drawing\n```json\n{json.dumps(MAP)}\n```\n%%")  # fmt: skip
    assert text_elements(old) == [("abcdefgh", "Hello")]
    assert drawing_block(old)[2] == "json"  # type: ignore[index]


def test_a_drawings_text_and_links_are_indexed_and_its_payload_is_not(tmp_path: Path) -> None:
    root = vault(tmp_path, {
        "Drawings/Mind map.excalidraw.md": plugin_markdown(
            MAP, notes="My notes on the map.", links={"arr00001": "[[Beta]]"}),
        "notes/Alpha.md": "# Alpha\n",
        "notes/Beta.md": "# Beta\n",
    })  # fmt: skip
    payload = drawing_block(plugin_markdown(MAP))[3]  # type: ignore[index]
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        (hit,) = index.search("quokka")  # a text element's words
        assert hit.entry.id == "Drawings/Mind map.excalidraw"
        assert index.search("Switch EXCALIDRAW VIEW") == []  # the plugin's banner
        assert index.search(re.sub(r"[^A-Za-z]", "", payload[:30])) == []  # its Base64
        for target in ("notes/Alpha", "notes/Beta"):  # text element and element link
            sources = {row.source.id for row in index.backlinks(target)}
            assert sources == {"Drawings/Mind map.excalidraw"}, target
        entry = index.entry("Drawings/Mind map.excalidraw")
        assert entry is not None
        headings = [text for _level, text in entry.headings]
        assert "Drawing" not in headings and "Text Elements" not in headings


# ---------------------------------------------------------------- drawn in a page
def test_a_drawing_entry_shows_its_drawing_then_its_text(tmp_path: Path) -> None:
    root = vault(tmp_path, {
        "Mind map.excalidraw.md": plugin_markdown(MAP, notes="My notes on the map."),
        "Alpha.md": "# Alpha\n",
    })  # fmt: skip
    rendered = page(root, tmp_path, "Mind map.excalidraw")
    html = rendered.html
    svg = picture(rendered).decode()
    assert "quokka habitat" in svg and "#a5d8ff" in svg and 'stroke="#e03131"' in svg
    assert svg.count("<rect") == 2  # the background and the box; the deleted one is gone
    assert 'href="vault:Mind%20map.excalidraw.md"' in html  # a click opens the tab
    assert "My notes on the map." in html and "entry:Alpha" in html  # text, live links
    for source in ("compressed-json", "N4KAk", "^txt00001", "Switch to EXCALIDRAW"):
        assert source not in html


def test_dark_theme_draws_the_colours_as_excalidraws_dark_mode(tmp_path: Path) -> None:
    root = vault(tmp_path, {"Map.excalidraw.md": plugin_markdown(MAP)})
    light = picture(page(root, tmp_path, "Map.excalidraw")).decode()
    dark = picture(page(root, tmp_path, "Map.excalidraw", "dark")).decode()
    assert 'fill="#ffffff"' in light and 'fill="#ffffff"' not in dark
    background = themed(("#ffffff", 1.0), True)
    assert background is not None and f'fill="{background[0]}"' in dark
    red = themed(parse_colour("#e03131"), True)  # a red stays red, lighter
    assert red is not None and int(red[0][1:3], 16) > int(red[0][3:5], 16)


def test_embeds_draw_the_drawing_at_the_size_written(tmp_path: Path) -> None:
    root = vault(tmp_path, {
        "Note.md": "# Note\n\nBefore.\n\n![[Mind map.excalidraw|400]]\n\n![[sketch.excalidraw]]"
                   "\n\n![[plain drawing]]\n\n![[Mind map.excalidraw.md|300x50]]\n\nAfter.\n",
        "Mind map.excalidraw.md": plugin_markdown(MAP),
        "files/sketch.excalidraw": json.dumps(MAP),
        "plain drawing.md": plugin_markdown(MAP, compressed=False),  # not named .excalidraw
    })  # fmt: skip
    rendered = page(root, tmp_path, "Note")
    keys = [k for k in rendered.resources if k.startswith("figure:drawing-")]
    assert len(keys) == 3  # the same drawing at its own size thrice: one picture
    sizes = sorted(
        tuple(float(v) for v in re.search(rb'width="([\d.]+)" height="([\d.]+)"',
                                          rendered.resources[k]).groups())  # type: ignore[union-attr]
        for k in keys
    )  # fmt: skip
    drawing = load_drawing(root, "files/sketch.excalidraw", TAB)
    ratio = (drawing.width + 20) / (drawing.height + 20)  # with the picture's padding
    assert sizes[0] == pytest.approx((50 * ratio, 50), rel=0.01)  # fits 300x50: 50 high
    assert sizes[1] == pytest.approx((400, 400 / ratio), rel=0.01)  # |400: 400 wide
    html = rendered.html
    assert html.count('<img src="figure:drawing-') == 4
    for href in ("vault:Mind%20map.excalidraw.md", "vault:files/sketch.excalidraw"):
        assert f'href="{href}"' in html  # a click opens the tab
    assert "vault:plain%20drawing.md" not in html  # drawn; the tab opens drawings by name
    assert "Before." in html and "After." in html and "compressed-json" not in html


# ---------------------------------------------------------------- bad input
def test_bad_drawings_are_notices_in_place_and_the_page_goes_on(tmp_path: Path) -> None:
    good = plugin_markdown(MAP)
    payload = drawing_block(good)[3]  # type: ignore[index]
    corrupt = good.replace(payload, payload[:300] + "!!" + payload[302:])
    cut = good.replace(payload, payload[: len(payload) // 3])
    root = vault(tmp_path, {
        "Note.md": "# Note\n\nBefore.\n\n![[corrupt.excalidraw]]\n\n![[cut.excalidraw]]\n\n"
                   "![[broken.excalidraw]]\n\n![[nothing.excalidraw]]\n\nAfter.\n",
        "corrupt.excalidraw.md": corrupt,
        "cut.excalidraw.md": cut,
        "broken.excalidraw": '{"type": "excalidraw", "elements": [',
        "nothing.excalidraw": '{"type": "excalidraw"}',
    })  # fmt: skip
    rendered = page(root, tmp_path, "Note")
    html = rendered.html
    assert "Before." in html and "After." in html
    assert html.count("is not drawn here") == 4
    assert "compressed drawing is corrupt (not Base64" in html
    assert "compressed drawing is corrupt (payload cut short)" in html
    assert "not valid JSON" in html and "no list of elements" in html
    assert len([p for p in rendered.problems if p.startswith("drawing not drawn")]) == 4


def test_pictures_outside_the_vault_or_on_the_web_are_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG secret bytes")
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 20
    data = scene(
        [element("image", f"img0000{i}", i * 150, 0, 100, 80, fileId=f"f{i}") for i in range(5)],
        files={"f4": {"id": "f4", "mimeType": "image/png", "dataURL": "https://example.com/x.png"}},
    )
    root = vault(tmp_path, {"Pics.excalidraw.md": plugin_markdown(data, embedded={
        "f0": "[[inside.png]]", "f1": "[[../secret.png]]", "f2": "https://example.com/p.png",
        "f3": "[[/etc/passwd]]"})})  # fmt: skip
    (root / "inside.png").write_bytes(png)
    opened: list[str] = []
    real_open = load.open_regular

    def spy(base, rel):
        opened.append(rel)
        return real_open(base, rel)

    load.open_regular = spy  # type: ignore[assignment]
    try:
        drawing = load_drawing(root, "Pics.excalidraw.md", TAB)
    finally:
        load.open_regular = real_open  # type: ignore[assignment]
    assert drawing.images["f0"].data == png
    assert "outside the vault" in drawing.images["f1"].refused
    assert "outside the vault" in drawing.images["f3"].refused
    assert "web picture, not loaded" in drawing.images["f2"].refused
    assert "web picture, not loaded" in drawing.images["f4"].refused
    assert sorted(set(opened)) == ["Pics.excalidraw.md", "inside.png"]  # nothing else read
    svg = drawing_svg(drawing).decode()
    assert svg.count("<image ") == 1 and svg.count("▣ ") == 4
    assert base64.b64encode(secret.read_bytes()).decode() not in svg
    assert "example.com" in svg  # named, not fetched


def test_a_hundred_thousand_elements_are_bounded_and_said(tmp_path: Path) -> None:
    root = vault(tmp_path, {
        "Note.md": "# Note\n\nBefore.\n\n![[huge.excalidraw]]\n\nAfter.\n",
        "huge.excalidraw": json.dumps(scene(many_elements(100_000))),
        "big.excalidraw": json.dumps(scene(many_elements(21_000))),
    })  # fmt: skip
    html = page(root, tmp_path, "Note").html  # inline: over the page's budget, said
    assert "Before." in html and "After." in html
    assert re.search(
        r"is not drawn here: too large to draw here \(7\d\.\d MB; 2 MB at most\)", html
    )
    with pytest.raises(DrawingError, match=r"too large to draw here \(7\d\.\d MB; 32 MB"):
        load_drawing(root, "huge.excalidraw", TAB)  # the tab says so too, before reading it
    drawing = load_drawing(root, "big.excalidraw", TAB)  # under its size: 20,000 drawn
    assert drawing.elements == 21_000 and len(drawing.shapes) == TAB.max_elements
    assert drawing.notices == ["This drawing has 21,000 elements; the first 20,000 are drawn."]


def test_shape_fields_are_checked_not_trusted() -> None:
    data = scene([
        element("rectangle", "a", 0, 0, strokeColor='red" onload="x', backgroundColor="#12345678"),
        element("text", "b", 0, 0, text="<script>&", originalText="", fontSize=float("nan")),
        element("rectangle", "c", "x", None, width=-5),
        {"type": "star", "id": "d"}, "not an element",
    ])  # fmt: skip
    drawing = scene_from_json(data)
    assert [s.kind for s in drawing.shapes] == ["rectangle", "text", "rectangle"]
    assert drawing.shapes[0].stroke is None and drawing.shapes[0].fill == ("#123456", 0x78 / 255)
    assert drawing.skipped == 1 and drawing.elements == 4
    svg = drawing_svg(drawing).decode()
    assert "onload" not in svg and "&lt;script&gt;&amp;" in svg
    with pytest.raises(DrawingError):
        scene_from_json([1, 2])


def test_inline_budget_is_smaller_than_the_tabs() -> None:
    assert INLINE.max_bytes < TAB.max_bytes and INLINE.max_elements < TAB.max_elements


def test_the_previews_of_a_drawing_show_it_not_its_data(tmp_path: Path) -> None:
    root = vault(tmp_path, {"Map.excalidraw.md": plugin_markdown(MAP, notes="Seen at dusk.")})
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        entry = index.entry("Map.excalidraw")
        assert entry is not None
        card = preview_html(entry)  # the hover card: its words
        assert "Seen at dusk." in card and "quokka habitat" in card
        assert "EXCALIDRAW VIEW" not in card and "compressed" not in card
        rendered = render_preview(entry, index, vault_root=root)  # the page preview
        assert "quokka habitat" in picture(rendered).decode()
        assert "Seen at dusk." in rendered.html and "EXCALIDRAW VIEW" not in rendered.html
