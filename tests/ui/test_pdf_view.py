"""PDFs in the reader (issue 31, item 3): a page embedded in an entry, drawn off the GUI
thread into the place kept for it, and a PDF in a tab (laid out from its page sizes,
pages drawn only near the view, a bounded cache, zoom, go to page, both themes), with the
bad files of the issue shown as notices. Real widgets, real PDF files in tmp_path."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QColor, QWheelEvent
from PySide6.QtWidgets import QApplication
from reader_window import window_opener, write_files

from anthology.ui.common.document import OpenVault, document_kind, kind_for_file
from anthology.ui.reading import pdf_view
from anthology.ui.reading.entry_pane import EntryPane
from anthology.ui.reading.pdf_pages import is_pending
from anthology.ui.reading.pdf_view import PdfView
from anthology.vault import pdf as core
from anthology.vault.index import VaultIndex
from anthology.vault.render.theme import palette
from pdf_samples import encrypted_pdf, make_pdf, truncated_pdf

REPORT = "Attachments/Annual report 📄.pdf"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = write_files(
        tmp_path / "vault",
        {
            "Reading/Papers.md": "# Papers\n\nThe report, page 3:\n\n"
            "![[Annual report 📄.pdf#page=3]]\n\nA locked one:\n\n![[locked.pdf]]\n\n"
            "And one that is not a PDF: ![[notes.pdf]]\n\nThe end of the papers.\n",
        },
    )
    make_pdf(root / REPORT, pages=12)
    encrypted_pdf(root / "Attachments" / "locked.pdf")
    (root / "Attachments" / "notes.pdf").write_text("# notes\n\nJust text.\n")
    return root


def drawn_on_workers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The threads every page was drawn on (PdfFile.render wrapped)."""
    threads: list[str] = []
    render = core.PdfFile.render

    def spy(self, *args, **kwargs):
        threads.append(threading.current_thread().name)
        return render(self, *args, **kwargs)

    monkeypatch.setattr(core.PdfFile, "render", spy)
    return threads


def test_an_embedded_page_is_drawn_off_the_gui_thread_into_its_place(
    qtbot, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads = drawn_on_workers(monkeypatch)
    with VaultIndex.open(vault, tmp_path / "index.sqlite") as index:
        pane = EntryPane()
        qtbot.addWidget(pane)
        pane.resize(900, 800)
        pane.show()
        pane.set_vault(index, vault)
        entry = index.entry("Reading/Papers")
        assert entry is not None
        pane.show_entry(entry)
        text = pane.toPlainText()
        # shown at once, with the page's place kept: the notices of the bad files in place
        assert "page 3 of 12" in text and "The end of the papers." in text
        assert "locked.pdf: this PDF is password-protected" in text
        assert "notes.pdf: this file is not a readable PDF" in text
        qtbot.waitUntil(lambda: any(k.startswith("pdf:") for k in pane._images), timeout=5000)
        (key,) = [k for k in pane._images if k.startswith("pdf:")]
        height = pane.document().size().height()
        qtbot.waitUntil(lambda: not is_pending(pane._images[key]), timeout=10000)
        page = pane._images[key]
        assert threads and threading.main_thread().name not in threads
        # the page at the column's width, drawn at 2x, its place unchanged
        logical = page.width() / page.devicePixelRatio()
        assert 500 < logical <= pane._text_width() and page.devicePixelRatio() >= 2
        assert abs(page.height() / page.width() - 792 / 612) < 0.01
        assert pane.document().size().height() == height
        assert QColor(page.pixel(10, 10)) == QColor("#ffffff")  # the paper
        assert pane.document().resource(1, QUrl(key)) == page  # what the pane paints


def test_pages_of_an_entry_left_are_not_drawn_and_height_is_kept(
    qtbot, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five pages embedded, the entry left at once for another: the pages still queued
    are not drawn (the new entry's page is); ``#height=200`` is the page's height."""
    five = "\n\n".join(f"![[Annual report 📄.pdf#page={n}]]" for n in range(1, 6))
    (vault / "Reading" / "Five.md").write_text(f"# Five\n\n{five}\n", encoding="utf-8")
    (vault / "Reading" / "Short.md").write_text(
        "# Short\n\n![[Annual report 📄.pdf#page=9&height=200]]\n", encoding="utf-8"
    )
    threads = drawn_on_workers(monkeypatch)
    with VaultIndex.open(vault, tmp_path / "index.sqlite") as index:
        pane = EntryPane()
        qtbot.addWidget(pane)
        pane.resize(900, 4000)  # all five in view: all five asked for
        pane.show()
        pane.set_vault(index, vault)
        pane.show_entry(index.entry("Reading/Five"))
        qtbot.waitUntil(lambda: sum(k.startswith("pdf:") for k in pane._images) == 5)
        pane.show_entry(index.entry("Reading/Short"))
        qtbot.waitUntil(lambda: any(k.startswith("pdf:") for k in pane._images), timeout=5000)
        (key,) = [k for k in pane._images if k.startswith("pdf:")]
        qtbot.waitUntil(lambda: not is_pending(pane._images[key]), timeout=10000)
        qtbot.waitUntil(lambda: not pane._pdf_pages.busy, timeout=10000)
        assert len(threads) <= 2  # the one under way when the entry was left, and page 9
        page = pane._images[key]
        assert round(page.height() / page.devicePixelRatio()) == 200


def wait_open(qtbot, view: PdfView) -> None:
    qtbot.waitUntil(lambda: view.pages > 0 or view.problem is not None, timeout=10000)
    qtbot.waitUntil(lambda: not view.loading, timeout=10000)


@pytest.fixture
def viewer(qtbot, vault: Path):
    def make(ref: str, size: tuple[int, int] = (800, 600)) -> PdfView:
        view = PdfView()
        qtbot.addWidget(view)
        view.resize(*size)
        view.show()
        view.attach_vault(OpenVault(vault, None))  # type: ignore[arg-type]
        assert view.open_document(ref)
        return view

    return make


def test_a_thousand_page_pdf_opens_laid_out_from_its_sizes(
    qtbot, vault: Path, viewer, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_pdf(vault / "big.pdf", pages=1000, lines=2)
    threads = drawn_on_workers(monkeypatch)
    view = viewer("big.pdf")
    assert view.pages == 0  # open_document returned before the file was read
    wait_open(qtbot, view)
    assert view.pages == 1000 and view._count.text() == "of 1000"
    shown = list(view.visible_pages())
    assert shown[0] == 0 and len(shown) <= 2
    # only the pages in view and one ahead were drawn, on workers
    assert view.drawn_pages <= len(shown) + 1
    assert set(view._cache) <= set(range(len(shown) + 1))
    assert threading.main_thread().name not in threads

    assert view.scroll_to("page=500") and view.current_page() == 500
    wait_open(qtbot, view)
    assert 499 in view._cache and view.drawn_pages <= 2 * (len(shown) + 2)
    view._page_box.setValue(20)  # the go-to-page box
    assert view.current_page() == 20
    qtbot.keyClick(view._pages, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert view._page_box.hasFocus()
    assert not view.scroll_to("no such anchor") and not view.go_to_page(1001)


def test_scrolling_end_to_end_keeps_the_cache_bounded(
    qtbot, vault: Path, viewer, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_pdf(vault / "long.pdf", pages=60, lines=2)
    view = viewer("long.pdf", (600, 500))
    wait_open(qtbot, view)
    one_page = view._cache[0].sizeInBytes()
    monkeypatch.setattr(pdf_view, "CACHE_BYTES", 6 * one_page)
    bar = view._pages.verticalScrollBar()
    most = 0
    while bar.value() < bar.maximum():
        bar.setValue(bar.value() + bar.pageStep())
        qtbot.waitUntil(lambda: not view.loading, timeout=10000)
        most = max(most, view.cache_bytes)
        assert all(i in view._cache for i in view.visible_pages())  # what is seen is drawn
    assert view.current_page() == 60 and 59 in view._cache
    assert most <= 6 * one_page and len(view._cache) <= 6
    assert view.drawn_pages < 2 * 60  # each page drawn about once, none redrawn for nothing


def test_pages_of_different_sizes_are_laid_out_as_their_sizes_come(qtbot, vault, viewer) -> None:
    """Laid out at once as if all were the first page's size, then corrected (in chunks)
    with the reader kept on their page."""
    sizes = [(612.0, 792.0), (842.0, 595.0), (300.0, 300.0)]
    make_pdf(vault / "mixed.pdf", pages=30, sizes=sizes)
    view = viewer("mixed.pdf#page=29")
    wait_open(qtbot, view)
    assert view.sized and view.current_page() == 29
    for i in (0, 1, 2, 28):
        rect = view._page_rect(i)
        w, h = sizes[i % 3]
        assert abs(rect.width() - w * view.zoom) < 1 and abs(rect.height() - h * view.zoom) < 1
    below = [view._page_rect(i + 1).top() - view._page_rect(i).bottom() for i in range(29)]
    assert all(abs(gap - pdf_view.GAP) < 1 for gap in below)  # one under another


def test_zoom_keeps_the_page_in_view_and_fit_width_comes_back(qtbot, viewer) -> None:
    view = viewer(REPORT + "#page=5")
    wait_open(qtbot, view)
    assert view.current_page() == 5
    fit = view.zoom
    assert abs(fit * 612 - (view._pages.viewport().width() - 2 * pdf_view.GAP)) < 1
    wheel = QWheelEvent(QPointF(100, 100), QPointF(100, 100), QPoint(0, 0), QPoint(0, 120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.ControlModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)  # fmt: skip
    QApplication.sendEvent(view._pages.viewport(), wheel)
    assert view.zoom == pytest.approx(fit * pdf_view.ZOOM_STEP) and view.current_page() == 5
    qtbot.keyClick(view._pages, Qt.Key.Key_Minus)
    qtbot.keyClick(view._pages, Qt.Key.Key_Minus)
    assert view.zoom == pytest.approx(fit / pdf_view.ZOOM_STEP) and view.current_page() == 5
    wait_open(qtbot, view)
    assert view._cache[4].width() == view._px_width(4)  # drawn anew at the new zoom
    qtbot.keyClick(view._pages, Qt.Key.Key_0)
    assert view.zoom == pytest.approx(fit)
    view.resize(1000, 600)  # fit to the width follows the view
    qtbot.waitUntil(lambda: view.zoom > fit, timeout=2000)


def test_the_page_stays_white_and_the_backdrop_follows_the_theme(qtbot, viewer) -> None:
    view = viewer(REPORT)
    wait_open(qtbot, view)
    for theme in ("light", "dark"):
        view.set_theme(theme)
        shot = view._pages.viewport().grab().toImage()
        rect = view._page_rect(0)
        inside = shot.pixelColor(int(rect.left()) + 5, int(rect.top()) + 5)
        outside = shot.pixelColor(3, int(rect.top()) + 50)
        assert inside == QColor("#ffffff")
        back = QColor(palette("dark").background) if theme == "dark" else None
        assert outside != inside and (back is None or outside == back)


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (truncated_pdf, "not a readable PDF"),
        (encrypted_pdf, "password-protected"),
        (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64), "not a readable PDF"),
    ],
    ids=["truncated", "encrypted", "png named .pdf"],
)
def test_a_bad_pdf_opens_as_a_tab_that_says_why(qtbot, vault: Path, viewer, make, reason) -> None:
    make(vault / "bad.pdf")
    view = viewer("bad.pdf")
    wait_open(qtbot, view)
    assert view.problem is not None and reason in view.problem and view.pages == 0
    assert view.title() == "bad.pdf"
    # the notice is painted where the pages would be, in the error colour
    shot = view._pages.viewport().grab().toImage()
    red = sum(
        1
        for x in range(0, shot.width(), 2)
        for y in range(shot.height() // 2 - 30, shot.height() // 2 + 30, 2)
        if (c := shot.pixelColor(x, y)).red() > 150 and c.green() < 110
    )
    assert red > 20


def test_a_pdf_bomb_opens_and_draws_within_budget(qtbot, vault: Path, viewer) -> None:
    make_pdf(vault / "bomb.pdf", pages=10_000, lines=0)
    make_pdf(vault / "huge.pdf", pages=1, size=(50_000, 50_000))
    view = viewer("bomb.pdf")
    wait_open(qtbot, view)
    assert view.pages == 10_000 and view.drawn_pages <= 3
    assert view.go_to_page(10_000)
    wait_open(qtbot, view)
    assert 9_999 in view._cache
    view.open_document("huge.pdf")
    wait_open(qtbot, view)
    view.set_zoom(pdf_view.MAX_ZOOM)  # 300,000 px a side asked
    wait_open(qtbot, view)
    image = view._cache[0]
    assert image.width() * image.height() <= core.MAX_PAGE_PIXELS


@pytest.fixture
def open_window(qtbot, vault: Path, tmp_path: Path, settings: QSettings):
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Reading/Papers")


def test_a_link_to_a_pdf_page_opens_the_viewer_at_that_page(open_window, qtbot) -> None:
    win = open_window()
    assert document_kind("pdf") is not None and kind_for_file("a/b.pdf") is not None
    href = "vault:Attachments/Annual%20report%20%F0%9F%93%84.pdf#page=3"
    assert href in win.entry_pane.rendered.html
    win.entry_pane.anchorClicked.emit(QUrl(href))
    view = win.tabs.document()
    assert isinstance(view, PdfView) and view.document_id() == REPORT
    wait_open(qtbot, view)
    assert view.current_page() == 3 and view.pages == 12
    assert win.tabs.tabText(win.tabs.currentIndex()) == "Annual report 📄.pdf"
    view.go_to_page(7)
    win.go_back()
    assert win.current_id() == "Reading/Papers"
    win.go_forward()
    assert win.tabs.document() is view
    wait_open(qtbot, view)
    assert view.current_page() == 7
