"""The entry pane's kept pages: a revisit swaps the laid-out page back in, and what the
reader sees is what a fresh render shows (text, pictures, math, theme, font size, folds,
links, the reading position), an edited file never showing its old page.

A small Obsidian-shaped vault (folders, names with spaces, a dot and an emoji, no id/kind,
the same name in two folders) is written to tmp_path and indexed in a real SQLite file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import (
    QEvent,
    QObject,
    QPoint,
    QSettings,
    Qt,
    QUrl,
)
from PySide6.QtGui import QColor, QImage, QTextDocument
from reader_window import images_in, link_point, paragraphs, tiny_png, window_opener, write_files

from anthology.ui.reading.entry_pane import PAGE_CACHE_SIZE, PREFETCH_DELAY_MS, EntryPane
from anthology.ui.reading.outline_panel import heading_tops
from anthology.vault import VaultIndex
from anthology.vault.render import clear_render_cache
from anthology.vault.render.entry import cached_render
from anthology.vault.render.reading import ReadingStyle
from anthology.vault.render.theme import palette
from sample_vault import write_newer

ALPHA, BETA = "notes/Alpha v1.2", "notes/Beta 🌿"


FILES = {
    "HOME.md": "Start at [[Alpha v1.2]].\n",
    "notes/Alpha v1.2.md": (
        "---\ntags: [reading]\n---\nSee [[Beta 🌿]] and ![[pics/dot.png]].\n\n"
        "## Method\n\n" + paragraphs("method", 6) + "\n\nThe energy is $E = mc^2$ and\n\n"
        "$$\\sqrt{d_k}$$\n\n## Results\n\n" + paragraphs("results", 12) + "\n\n"
        "```python\ndef f(x):\n    return x + 1\n```\n"
    ),
    "notes/Beta 🌿.md": "Back to [[Alpha v1.2]].\n\n" + paragraphs("beta", 20) + "\n",
    "archive/Beta 🌿.md": "The archived beta.\n",
    **{f"more/Note {i}.md": f"Note number {i} links [[Alpha v1.2]].\n" for i in range(12)},
    "pics/dot.png": None,
}


@pytest.fixture
def index(tmp_path: Path):
    clear_render_cache()
    root = write_files(tmp_path / "vault", FILES, tiny_png)
    idx = VaultIndex.open(root, tmp_path / "index.sqlite")
    yield idx
    idx.close()


@pytest.fixture
def make_pane(qtbot, index: VaultIndex):
    def make() -> EntryPane:
        pane = EntryPane()
        qtbot.addWidget(pane)
        pane.resize(900, 700)
        pane.set_vault(index, index.root)
        pane.show()
        qtbot.waitExposed(pane)
        return pane

    return make


def show(pane: EntryPane, index: VaultIndex, entry_id: str) -> None:
    entry = index.entry(entry_id)
    assert entry is not None, entry_id
    pane.show_entry(entry)


def images(pane: EntryPane) -> dict[str, tuple[int, int]]:
    """Every picture the page shows (name → size), as the document draws it."""
    doc = pane.document()
    found = {}
    for name in images_in(doc):
        image = doc.resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
        assert isinstance(image, QImage) and not image.isNull(), name
        found[name] = (image.width(), image.height())
    return found


def page(pane: EntryPane) -> tuple[str, str, dict[str, tuple[int, int]]]:
    return pane.toPlainText(), pane.toHtml(), images(pane)


def body_point_size(pane: EntryPane) -> float:
    found = pane.document().find("lorem ipsum")
    assert not found.isNull()
    return found.charFormat().font().pointSizeF()


def test_a_revisit_shows_the_same_page_with_its_pictures(make_pane, index) -> None:
    pane = make_pane()
    show(pane, index, ALPHA)
    first = page(pane)
    assert "method paragraph 0" in first[0] and "results paragraph 11" in first[0]
    names = set(first[2])
    assert any(n.startswith("math:") for n in names) and "vault:pics/dot.png" in names
    kept = pane.document()

    show(pane, index, BETA)
    assert "beta paragraph 0" in pane.toPlainText()
    assert "method paragraph" not in pane.toPlainText()
    show(pane, index, ALPHA)
    assert pane.document() is kept  # swapped back in, not parsed again
    assert page(pane) == first

    fresh = make_pane()  # what a pane that never saw it shows
    show(fresh, index, ALPHA)
    assert page(fresh) == first


def test_a_revisit_after_the_file_changed_shows_the_new_text(make_pane, index) -> None:
    pane = make_pane()
    show(pane, index, ALPHA)
    show(pane, index, BETA)
    path = index.root / "notes" / "Alpha v1.2.md"
    write_newer(path, "Rewritten: only [[Beta 🌿]] now.\n\n" + paragraphs("fresh", 2))
    index.refresh()
    show(pane, index, ALPHA)
    text = pane.toPlainText()
    assert "Rewritten: only" in text and "fresh paragraph 1" in text
    assert "method paragraph" not in text and not any(images(pane))


def test_theme_and_font_size_are_honoured_on_a_revisit(make_pane, index) -> None:
    pane = make_pane()
    show(pane, index, ALPHA)
    light_size = body_point_size(pane)
    show(pane, index, BETA)
    pane.set_theme("dark")
    show(pane, index, ALPHA)
    assert pane.rendered is not None and pane.rendered.theme == "dark"
    dark_link = QColor(palette("dark").link)
    assert QColor(pane.document().find("Beta").charFormat().foreground().color()) == dark_link

    pane.set_reading(ReadingStyle(font_size=18.0), readable=True)
    show(pane, index, BETA)
    show(pane, index, ALPHA)
    assert body_point_size(pane) == pytest.approx(light_size * 18.0 / 12.0)

    fresh = make_pane()
    fresh.set_theme("dark")
    fresh.set_reading(ReadingStyle(font_size=18.0), readable=True)
    show(fresh, index, ALPHA)
    assert page(fresh) == page(pane)


def test_back_to_a_kept_page_restores_the_reading_position(make_pane, index) -> None:
    pane = make_pane()
    show(pane, index, ALPHA)
    bar = pane.verticalScrollBar()
    assert bar.maximum() > 900
    bar.setValue(900)
    show(pane, index, BETA)
    assert bar.value() == 0
    show(pane, index, ALPHA)
    pane.restore_scroll(900)
    assert bar.value() == 900
    assert pane.cursorForPosition(QPoint(10, 10)).block().text() != ""  # text drawn there


def test_folds_work_on_a_kept_page_and_are_kept_per_entry(make_pane, index) -> None:
    pane = make_pane()
    show(pane, index, ALPHA)
    show(pane, index, BETA)
    show(pane, index, ALPHA)  # the kept page
    pane.toggle_fold("h0")  # "Method" folded: its section goes, the heading stays
    text = pane.toPlainText()
    assert "Method" in text and "method paragraph 0" not in text
    assert "results paragraph 0" in text
    show(pane, index, BETA)
    show(pane, index, ALPHA)
    assert "method paragraph 0" not in pane.toPlainText()
    pane.toggle_fold("h0")
    assert "method paragraph 0" in pane.toPlainText()
    assert page(pane)[0] == pane.toPlainText()


def test_links_on_a_kept_page_are_hovered_and_followed(qtbot, make_pane, index) -> None:
    pane = make_pane()
    show(pane, index, ALPHA)
    show(pane, index, BETA)
    show(pane, index, ALPHA)
    point = link_point(pane, BETA)
    qtbot.mouseMove(pane.viewport(), QPoint(1, pane.viewport().height() - 1))  # off any link
    with qtbot.waitSignal(pane.linkHovered, timeout=3000) as hovered:
        qtbot.mouseMove(pane.viewport(), point)
    assert hovered.args[:2] == [BETA, ""]
    with qtbot.waitSignal(pane.entryLinkActivated, timeout=3000) as followed:
        qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert followed.args == [BETA, ""]
    # the outline measures the kept page's headings where they are drawn
    assert pane.rendered is not None
    tops = heading_tops(pane, pane.rendered.headings)
    assert len(tops) == 2 and 0 <= tops[0] < tops[1]


def test_html_written_to_the_pane_never_changes_a_kept_page(make_pane, index) -> None:
    pane = make_pane()
    show(pane, index, ALPHA)
    text = pane.toPlainText()
    pane.setHtml("<h2>Cannot open the index</h2>")
    assert pane.toPlainText() == "Cannot open the index"
    show(pane, index, ALPHA)
    assert pane.toPlainText() == text
    pane.clear_entry()
    assert pane.toPlainText() == "" and pane.current_entry_id is None
    show(pane, index, ALPHA)
    assert pane.toPlainText() == text


def test_pages_past_the_kept_ones_are_made_again(make_pane, index, qtbot) -> None:
    pane = make_pane()
    show(pane, index, ALPHA)
    first = page(pane)
    for i in range(PAGE_CACHE_SIZE + 2):
        show(pane, index, f"more/Note {i}")
        assert pane.toPlainText().endswith(f"Note number {i} links Alpha v1.2.")
    qtbot.wait(10)  # the pages let go are deleted (deleteLater) meanwhile
    show(pane, index, ALPHA)
    assert page(pane) == first
    show(pane, index, "archive/Beta 🌿")
    assert "The archived beta." in pane.toPlainText()


def _hover(qtbot, pane: EntryPane, target: str) -> QPoint:
    point = link_point(pane, target)
    qtbot.mouseMove(pane.viewport(), QPoint(1, pane.viewport().height() - 1))  # off any link
    with qtbot.waitSignal(pane.linkHovered, timeout=3000):
        qtbot.mouseMove(pane.viewport(), point)
    return point


def test_the_page_of_a_link_pointed_at_is_made_before_the_click(qtbot, make_pane, index) -> None:
    pane = make_pane()
    pane.fetch_entry = index.entry
    followed: list[str] = []
    pane.entryLinkActivated.connect(lambda target, _frag: pane.show_entry(index.entry(target)))
    pane.entryLinkActivated.connect(lambda target, _frag: followed.append(target))
    show(pane, index, ALPHA)
    beta = index.entry(BETA)
    assert beta is not None and cached_render(beta, index, vault_root=index.root) is None
    point = _hover(qtbot, pane, BETA)
    qtbot.waitUntil(lambda: cached_render(beta, index, vault_root=index.root) is not None)

    def made() -> list[QTextDocument]:  # the pane's pages holding Beta's text
        return [
            d for d in pane.findChildren(QTextDocument) if "beta paragraph 19" in d.toPlainText()
        ]

    qtbot.waitUntil(lambda: len(made()) == 1)
    ready = made()[0]
    assert pane.document() is not ready and "method paragraph 0" in pane.toPlainText()
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert followed == [BETA] and pane.current_entry_id == BETA
    assert pane.document() is ready  # the page made while pointing is the one shown
    shown = page(pane)
    assert "beta paragraph 19" in shown[0]
    fresh = make_pane()
    show(fresh, index, BETA)
    assert page(fresh) == shown
    show(pane, index, ALPHA)  # and it is kept like any page shown
    show(pane, index, BETA)
    assert page(pane) == shown


def test_a_link_passed_over_quickly_is_not_made(qtbot, make_pane, index) -> None:
    pane = make_pane()
    pane.fetch_entry = index.entry
    show(pane, index, ALPHA)
    _hover(qtbot, pane, BETA)
    qtbot.mouseMove(pane.viewport(), QPoint(2, pane.viewport().height() - 2))  # off it
    qtbot.wait(3 * PREFETCH_DELAY_MS)
    beta = index.entry(BETA)
    assert beta is not None and cached_render(beta, index, vault_root=index.root) is None


def test_an_edit_after_the_pointing_shows_the_new_text(qtbot, make_pane, index) -> None:
    pane = make_pane()
    pane.fetch_entry = index.entry
    show(pane, index, ALPHA)
    beta = index.entry(BETA)
    assert beta is not None
    _hover(qtbot, pane, BETA)
    qtbot.waitUntil(lambda: cached_render(beta, index, vault_root=index.root) is not None)
    path = index.root / "notes" / "Beta 🌿.md"
    write_newer(path, "Beta, edited meanwhile.\n")
    index.refresh()
    show(pane, index, BETA)
    assert "Beta, edited meanwhile." in pane.toPlainText()
    assert "beta paragraph" not in pane.toPlainText()


def test_a_long_entry_pointed_at_renders_in_the_background_and_opens_at_once(
    qtbot, make_pane, index
) -> None:
    pane = make_pane()
    pane.fetch_entry = index.entry
    pane.background_render_chars = 500  # Alpha's body is longer: rendered in a thread
    show(pane, index, "HOME")
    qtbot.waitUntil(lambda: not pane.rendering)
    alpha = index.entry(ALPHA)
    assert alpha is not None and len(alpha.body) > 500
    _hover(qtbot, pane, ALPHA)
    qtbot.waitUntil(lambda: cached_render(alpha, index, vault_root=index.root) is not None)
    show(pane, index, ALPHA)
    assert not pane.rendering  # no "Rendering…" page: it was ready
    assert "results paragraph 11" in pane.toPlainText()


def test_a_page_kept_through_a_resize_matches_a_fresh_one(qtbot, make_pane, index) -> None:
    pane = make_pane()
    show(pane, index, ALPHA)
    pane.resize(520, 700)  # narrower: the page is laid out again for the new column
    qtbot.waitUntil(lambda: pane.width() == 520)
    kept = pane.document()
    show(pane, index, BETA)
    show(pane, index, ALPHA)
    assert pane.document() is kept  # no figure to redraw: the page fits the new width
    fresh = make_pane()
    fresh.resize(520, 700)
    qtbot.waitUntil(lambda: fresh.width() == 520)
    show(fresh, index, ALPHA)
    assert page(pane) == page(fresh)
    margins = [p.document().rootFrame().frameFormat().leftMargin() for p in (pane, fresh)]
    assert margins[0] == margins[1]
    assert pane.document().size().width() == fresh.document().size().width()


class _PaintPositions(QObject):
    """The pane's scroll position at each paint of its viewport."""

    def __init__(self, pane: EntryPane) -> None:
        super().__init__()
        self.pane, self.seen = pane, []

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.seen.append(self.pane.verticalScrollBar().value())
        return False


def test_back_and_forward_paint_the_page_only_where_it_was_left(
    qtbot, tmp_path: Path, settings: QSettings
) -> None:
    root = write_files(tmp_path / "vault", FILES, tiny_png)
    opener = window_opener(qtbot, root, tmp_path, settings, entry=ALPHA)
    win = next(opener)()
    try:
        pane = win.entry_pane
        bar = pane.verticalScrollBar()
        bar.setValue(900)
        win.show_entry(BETA)
        bar.setValue(300)
        watch = _PaintPositions(pane)
        pane.viewport().installEventFilter(watch)
        win.go_back()
        assert win.current_id() == ALPHA and bar.value() == 900
        qtbot.wait(50)
        assert watch.seen and set(watch.seen) == {900}  # never a flash of the page's top
        watch.seen.clear()
        win.go_forward()
        assert win.current_id() == BETA and bar.value() == 300
        qtbot.wait(50)
        assert watch.seen and set(watch.seen) == {300}
        pane.viewport().removeEventFilter(watch)
    finally:
        next(opener, None)


def test_an_entry_pointed_at_outside_the_page_is_made_before_the_click(
    qtbot, make_pane, index
) -> None:
    pane = make_pane()  # a graph node or a backlinks row pointed at: point_at(entry id)
    pane.fetch_entry = index.entry
    show(pane, index, ALPHA)

    def made(text: str) -> list[QTextDocument]:
        return [d for d in pane.findChildren(QTextDocument) if text in d.toPlainText()]

    pane.point_at(BETA)
    pane.point_at("")  # left before the delay: nothing is made
    qtbot.wait(3 * PREFETCH_DELAY_MS)
    assert not made("beta paragraph 19")
    pane.point_at(BETA)
    qtbot.waitUntil(lambda: len(made("beta paragraph 19")) == 1)
    ready = made("beta paragraph 19")[0]
    show(pane, index, BETA)
    assert pane.document() is ready
    fresh = make_pane()
    show(fresh, index, BETA)
    assert page(fresh) == page(pane)


def test_the_scroll_bar_follows_short_and_long_pages(make_pane, index) -> None:
    pane = make_pane()
    bar = pane.verticalScrollBar()
    as_needed = Qt.ScrollBarPolicy.ScrollBarAsNeeded
    show(pane, index, "HOME")  # short: no scroll bar
    assert not bar.isVisible() and bar.maximum() == 0
    show(pane, index, ALPHA)  # long, after a short one: its bar shown before it is laid out
    assert bar.isVisible() and bar.maximum() > 900
    assert pane.verticalScrollBarPolicy() == as_needed
    fresh = make_pane()
    show(fresh, index, ALPHA)
    assert page(fresh) == page(pane)
    left = [p.document().rootFrame().frameFormat().leftMargin() for p in (pane, fresh)]
    assert left[0] == left[1]
    show(pane, index, "more/Note 3")  # short again: the bar goes
    assert not bar.isVisible() and pane.verticalScrollBarPolicy() == as_needed
    assert pane.toPlainText().endswith("Note number 3 links Alpha v1.2.")
