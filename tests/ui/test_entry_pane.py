"""The entry pane, offscreen: what it shows and what clicking in it does."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QColor, QImage, QTextCursor, QTextDocument
from PySide6.QtWidgets import QToolTip

from anthology.ui.reading.entry_pane import EntryPane
from anthology.vault.render import clear_render_cache

_SAMPLE = Path(__file__).resolve().parents[1] / "vault" / "test_render_sample.py"
_spec = importlib.util.spec_from_file_location("render_sample_for_ui", _SAMPLE)
assert _spec and _spec.loader
sample = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = sample
_spec.loader.exec_module(sample)


@pytest.fixture
def pane(qtbot, tmp_path: Path) -> EntryPane:
    clear_render_cache()
    resolver = sample.make_vault(tmp_path)
    widget = EntryPane()
    qtbot.addWidget(widget)
    widget.resize(900, 1000)
    widget.set_vault(resolver, tmp_path)
    widget.opened: list[QUrl] = []  # type: ignore[attr-defined]
    widget.open_external = widget.opened.append  # type: ignore[attr-defined]
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def anchor_point(pane: EntryPane, href: str) -> QPoint:
    """Viewport coordinates of the middle of the first anchor whose href is ``href``."""
    doc = pane.document()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.charFormat().anchorHref() == href:
                pos = frag.position() + max(1, frag.length() // 2)
                cursor = QTextCursor(doc)
                cursor.setPosition(pos)
                pane.setTextCursor(cursor)
                pane.ensureCursorVisible()
                return pane.cursorRect(cursor).center()
            it += 1
        block = block.next()
    raise AssertionError(f"no anchor {href!r}")


def click(qtbot, pane: EntryPane, href: str) -> None:
    point = anchor_point(pane, href)
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_pane_shows_the_entry_like_the_seed(pane: EntryPane) -> None:
    assert pane.objectName() == "entryPane"
    pane.show_entry(sample.lit_008())
    text = pane.toPlainText()
    assert pane.current_entry_id == "LIT-008"
    assert "LIT-008: Attention Is All You Need" in text
    assert "2 min read" in text
    assert "Properties\xa0\xa07" in text or "Properties  7" in text
    assert "Cited as “introduced by” by" in text
    assert "SOTA-050 — Scale attention weights by 1/sqrt(head_dim)" in text
    assert "Compared against" in text and "Key takeaways" in text


def test_clicking_an_entry_link_emits_its_id(qtbot, pane: EntryPane) -> None:
    pane.show_entry(sample.lit_008(body="Go to [[LIT-709#Results|Primer results]] now."))
    with qtbot.waitSignal(pane.entryLinkActivated, timeout=2000) as blocker:
        click(qtbot, pane, "entry:LIT-709#Results")
    assert blocker.args == ["LIT-709", "Results"]
    assert pane.opened == []  # type: ignore[attr-defined]


def test_external_links_open_only_on_click(qtbot, pane: EntryPane) -> None:
    pane.show_entry(sample.lit_008(body="See [the site](https://example.org/page)."))
    assert pane.opened == []  # type: ignore[attr-defined]
    click(qtbot, pane, "https://example.org/page")
    assert [u.toString() for u in pane.opened] == ["https://example.org/page"]  # type: ignore[attr-defined]


def test_tag_demo_and_unresolved_links_emit_signals(qtbot, pane: EntryPane) -> None:
    pane.show_entry(sample.lit_008(body="[[Nowhere]] #idea\n\n```demo\nattention-scaling\n```\n"))
    with qtbot.waitSignal(pane.tagActivated) as tag:
        click(qtbot, pane, "tag:idea")
    with qtbot.waitSignal(pane.demoRequested) as demo:
        click(qtbot, pane, "demo:attention-scaling")
    with qtbot.waitSignal(pane.unresolvedLinkActivated) as unresolved:
        click(qtbot, pane, "unresolved:Nowhere")
    assert tag.args == ["idea"] and demo.args == ["attention-scaling"]
    assert unresolved.args == ["Nowhere"]
    with qtbot.waitSignal(pane.entryLinkActivated) as entry:
        pane.anchorClicked.emit(QUrl("entry:notes%2Fa%20b#Some%20heading"))
    assert entry.args == ["notes/a b", "Some heading"]
    pane.anchorClicked.emit(QUrl("javascript:alert(1)"))
    pane.anchorClicked.emit(QUrl("file:///etc/passwd"))
    assert pane.opened == []  # type: ignore[attr-defined]


def test_math_is_served_as_an_image(pane: EntryPane) -> None:
    pane.show_entry(sample.lit_008(body="Variance $d_k$ and\n\n$$\\sqrt{d_k}$$\n"))
    keys = [k for k in pane.rendered.resources if k.startswith("math:")]
    assert len(keys) == 2
    for key in keys:
        image = pane.document().resource(QTextDocument.ResourceType.ImageResource, QUrl(key))
        assert isinstance(image, QImage) and not image.isNull()
        assert image.devicePixelRatio() >= 2  # drawn sharp on HiDPI screens


def test_the_demo_figure_is_drawn_and_fits_the_text_column(qtbot, pane: EntryPane) -> None:
    pane.show_entry(sample.lit_008(body="```demo\nattention-scaling\n```\n"))
    key = "figure:attention-scaling-light"
    assert key in pane.rendered.resources
    image = pane.document().resource(QTextDocument.ResourceType.ImageResource, QUrl(key))
    assert isinstance(image, QImage) and not image.isNull()
    assert image.width() / image.devicePixelRatio() <= pane._text_width() + 1
    # drawn, not a placeholder: the unscaled curve's colour is on it
    from anthology.palette import theme

    want = QColor(theme("light").demo.scalings["none"])
    rgb = {image.pixelColor(x, y).rgb() for x in range(0, image.width(), 3)
           for y in range(0, image.height(), 3)}  # fmt: skip
    assert want.rgb() in rgb

    def shown_width(key: str) -> float:
        image = pane.document().resource(QTextDocument.ResourceType.ImageResource, QUrl(key))
        return image.width() / image.devicePixelRatio()

    wide = shown_width(key)
    pane.resize(420, 800)  # a narrow pane shrinks the figure instead of scrolling sideways
    qtbot.waitUntil(lambda: shown_width(key) < wide)
    assert shown_width(key) <= pane._text_width() + 1 < 420
    assert pane.horizontalScrollBar().maximum() == 0
    pane.set_theme("dark")  # (a scroll bar coming or going refits it too)
    qtbot.waitUntil(lambda: shown_width("figure:attention-scaling-dark") <= pane._text_width() + 1)


def test_remote_images_are_never_requested(pane: EntryPane) -> None:
    requested: list[str] = []
    original = pane.loadResource

    def spy(kind, url):
        requested.append(url.toString())
        return original(kind, url)

    pane.loadResource = spy  # type: ignore[method-assign]
    pane.show_entry(
        sample.lit_008(body='![chart](https://example.com/a.png) <img src="http://e.vil/x.png">')
    )
    pane.grab()
    text = pane.toPlainText()
    assert "Remote image not loaded" in text and "https://example.com/a.png" in text
    assert not [u for u in requested if "example.com" in u or "e.vil" in u]
    placeholder = original(QTextDocument.ResourceType.ImageResource, QUrl("https://e.vil/y.png"))
    assert isinstance(placeholder, QImage) and placeholder.size().width() == 160


def test_vault_images_load_from_inside_the_vault_only(pane: EntryPane, tmp_path: Path) -> None:
    pane.show_entry(sample.lit_008(body="![[img/dot.png]]"))
    image = pane.document().resource(
        QTextDocument.ResourceType.ImageResource, QUrl("vault:img/dot.png")
    )
    assert isinstance(image, QImage) and image.width() == 2
    (tmp_path.parent / "secret.png").write_bytes((tmp_path / "img" / "dot.png").read_bytes())
    kind = QTextDocument.ResourceType.ImageResource
    for sneaky in ("vault:../secret.png", "vault:%2E%2E/secret.png", "vault:/etc/passwd"):
        image = pane.loadResource(kind, QUrl(sneaky))
        assert isinstance(image, QImage) and image.width() == 160, sneaky  # the placeholder


def test_keep_scroll_keeps_the_readers_place(pane: EntryPane) -> None:
    entry = sample.lit_008()
    pane.show_entry(entry)
    bar = pane.verticalScrollBar()
    assert bar.maximum() > 300
    bar.setValue(300)
    pane.show_entry(sample.lit_008(body=entry.body + "\nmore", mtime=2.0), keep_scroll=True)
    assert bar.value() == 300
    pane.show_entry(sample.lit_008(mtime=3.0))
    assert bar.value() == 0


def test_scroll_to_heading(pane: EntryPane) -> None:
    pane.show_entry(sample.lit_008())
    assert pane.scroll_to_heading("Standing in the anthology")
    assert pane.verticalScrollBar().value() > 0
    assert not pane.scroll_to_heading("No such heading")
    pane.verticalScrollBar().setValue(0)
    pane.show_entry(
        sample.lit_008(body="top\n\n" + "filler\n\n" * 80 + "The block ^blk-1\n", mtime=5.0)
    )
    assert pane.scroll_to_heading("^blk-1")
    assert pane.verticalScrollBar().value() > 0


def test_scroll_to_a_heading_past_the_anchor_budget(pane: EntryPane) -> None:
    from anthology.vault.render.context import MAX_HEADING_ANCHORS

    n = MAX_HEADING_ANCHORS + 600
    body = "\n\n".join(f"## Part {i % 20}\n\nText {i}." for i in range(n))  # repeated names
    pane.background_render_chars = 0  # render on this thread
    pane.show_entry(sample.lit_008(body=body, mtime=7.0))
    bar = pane.verticalScrollBar()
    assert pane.scroll_to_heading("Part 7")  # the first "Part 7", which has an anchor
    first = bar.value()
    assert 0 < first < bar.maximum() // 10
    # the 40th "Part 7" (anchor part-7_39) lies past the budget: found by its text
    assert pane.scroll_to_heading("part-7_39")
    late = bar.value()
    assert late > bar.maximum() * 0.6
    cursor = pane.cursorForPosition(QPoint(10, 10))
    assert "Part 7" in cursor.block().text() or "Part 7" in cursor.block().next().text()
    assert pane.scroll_to_heading("part-7_10")  # one that still has an anchor
    assert first < bar.value() < late


def test_set_theme_rerenders_dark(pane: EntryPane) -> None:
    pane.show_entry(sample.lit_008())
    pane.set_theme("dark")
    assert pane.theme() == "dark" and pane.rendered.theme == "dark"
    assert "#1e1e21" in pane.styleSheet()
    assert pane.current_entry_id == "LIT-008"
    assert "Cited as “paper” by" in pane.toPlainText()


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # offscreen tool tips
def test_hovering_an_entry_link_shows_the_preview(qtbot, pane: EntryPane) -> None:
    asked: list[str] = []

    def provider(entry_id: str) -> str:
        asked.append(entry_id)
        return f"<b>{entry_id}</b> preview"

    pane.set_preview_provider(provider)
    pane.show_entry(sample.lit_008(body="[[SOTA-050]]"))
    pane.highlighted.emit(QUrl("entry:SOTA-050"))
    assert asked == ["SOTA-050"]
    assert QToolTip.text() == "<b>SOTA-050</b> preview"
    pane.highlighted.emit(QUrl())
    pane.highlighted.emit(QUrl("https://example.org"))
    assert asked == ["SOTA-050"]


def test_hostile_entry_renders_in_the_pane(pane: EntryPane) -> None:
    body = (
        "<script>alert(1)</script>"
        + "<div>" * 3000
        + "deep"
        + "</div>" * 3000
        + "\n\n"
        + ">" * 5000
        + " quote\n\n"
        + "x" * 20_000_000
    )
    pane.show_entry(sample.lit_008(body=body))
    text = pane.toPlainText()
    assert "deep" in text and "alert" not in text
    assert "only the first" in text
    pane.grab()


def test_screenshot_of_a_realistic_entry(pane: EntryPane, tmp_path: Path) -> None:
    pane.show_entry(sample.lit_008())
    image = pane.grab()
    assert image.width() == 900 and image.height() == 1000
    assert image.save(str(tmp_path / "entry.png"))


def test_foldable_callouts_open_and_close_where_the_reader_is(qtbot, pane: EntryPane) -> None:
    body = (
        "top\n\n" + "filler\n\n" * 60
        + "> [!faq]- Why scale?\n> Because the variance grows.\n\n"
        + "> [!tip]+ Open one\n> Shown at first.\n\n> [!note] Fixed\n> Always shown.\n"
    )  # fmt: skip
    pane.show_entry(sample.lit_008(body=body))
    text = pane.toPlainText()
    assert "▸" in text and "Why scale?" in text
    assert "Because the variance grows." not in text  # "-": starts closed
    assert "Shown at first." in text and "Always shown." in text
    bar = pane.verticalScrollBar()
    bar.setValue(200)
    pane.anchorClicked.emit(QUrl("fold:0"))  # the title's link, as a click sends it
    assert "Because the variance grows." in pane.toPlainText()
    assert bar.value() == 200  # the reader stays where they were
    pane.anchorClicked.emit(QUrl("fold:1"))
    assert "Shown at first." not in pane.toPlainText()
    pane.anchorClicked.emit(QUrl("fold:0"))
    assert "Because the variance grows." not in pane.toPlainText()
    assert "Always shown." in pane.toPlainText()  # no fold marker: no fold control
