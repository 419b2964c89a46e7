"""PDFs of the vault (anthology.vault.pdf): page count and sizes read without drawing, a
page drawn within its pixel budget, and the bad ones of issue 31 refused with a reason."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from anthology.tasks import Cancelled, TaskState
from anthology.vault.pdf import (
    MAX_PAGE_PIXELS,
    PdfError,
    PdfFile,
    PdfPasswordProtected,
    page_info,
    render_page,
)
from pdf_samples import encrypted_pdf, make_pdf, truncated_pdf


def pixel(image, x: int, y: int) -> tuple[int, ...]:
    at = (y * image.width + x) * 4
    return tuple(image.rgba[at : at + 4])


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    make_pdf(root / "papers" / "Annual report 📄.pdf", pages=3, size=(612, 792))
    make_pdf(root / "wide.pdf", pages=2, size=(842, 595))
    return root


def test_page_count_and_sizes_without_drawing(vault: Path) -> None:
    with PdfFile(vault, "papers/Annual report 📄.pdf") as doc:
        assert doc.pages == 3
        assert doc.page_size(2) == (612.0, 792.0)
        assert doc.info.sizes == ((612.0, 792.0),) * 3
    info = page_info(vault, "wide.pdf", 1)
    assert (info.pages, info.size) == (2, (842.0, 595.0))
    assert page_info(vault, "wide.pdf", 99).size == (842.0, 595.0)  # past the end: the last


def test_a_page_is_drawn_white_with_its_ink(vault: Path) -> None:
    image = render_page(vault, "papers/Annual report 📄.pdf", 1, 1224)  # 2 px a point
    assert (image.width, image.height) == (1224, 1584)
    assert len(image.rgba) == 1224 * 1584 * 4
    assert pixel(image, 5, 5) == (255, 255, 255, 255)  # the paper, opaque white
    assert pixel(image, 40, 800)[:3] < (80, 80, 80)  # the frame, 20 pt in: black

    # "Page 2" in 48 pt Helvetica, its baseline 100 pt from the top: ink above it
    def inked(top: int, bottom: int) -> int:
        return sum(
            pixel(image, x, y)[0] < 128 for x in range(120, 400, 4) for y in range(top, bottom, 4)
        )

    assert inked(140, 200) > 20 and inked(60, 110) == 0


def test_a_huge_page_is_drawn_within_the_pixel_budget(tmp_path: Path) -> None:
    make_pdf(tmp_path / "v" / "huge.pdf", pages=1, size=(50_000, 50_000))
    info = page_info(tmp_path / "v", "huge.pdf")
    assert info.size == (50_000.0, 50_000.0)
    # asked for at 2 px a point (100,000 px a side: 40 GB), drawn at the budget
    image = render_page(tmp_path / "v", "huge.pdf", 0, 100_000, max_pixels=1_000_000)
    assert image.width * image.height <= 1_000_000 and image.width == image.height == 1000
    assert len(image.rgba) == 4 * 1000 * 1000
    image = render_page(tmp_path / "v", "huge.pdf", 0, 100_000)
    assert image.width * image.height <= MAX_PAGE_PIXELS


def test_ten_thousand_pages_open_and_any_page_draws(tmp_path: Path) -> None:
    make_pdf(tmp_path / "v" / "bomb.pdf", pages=10_000, lines=0)
    with PdfFile(tmp_path / "v", "bomb.pdf") as doc:
        assert doc.pages == 10_000 and len(doc.info.sizes) == 10_000
        image = doc.render(9_999, 0.5)
    assert (image.width, image.height) == (306, 396)


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (truncated_pdf, "not a readable PDF"),
        (encrypted_pdf, "password-protected"),
        (lambda p: p.write_text("# not a PDF\n") and p, "not a readable PDF"),
        (lambda p: p.write_bytes(b"") and p, "not a readable PDF"),
    ],
    ids=["truncated", "encrypted", "markdown named .pdf", "empty"],
)
def test_bad_pdfs_are_refused_with_a_reason(tmp_path: Path, make, reason: str) -> None:
    root = tmp_path / "v"
    root.mkdir()
    make(root / "bad.pdf")
    with pytest.raises(PdfError, match=reason) as caught:
        page_info(root, "bad.pdf")
    assert isinstance(caught.value, PdfPasswordProtected) == (reason == "password-protected")
    with pytest.raises(PdfError, match=reason):  # and again from the kept answer
        page_info(root, "bad.pdf")


def test_nothing_outside_the_vault_is_read(tmp_path: Path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    outside = make_pdf(tmp_path / "secret.pdf", pages=1)
    os.symlink(outside, root / "link.pdf")
    os.mkfifo(root / "pipe.pdf")  # would block a reader forever
    for rel in ("link.pdf", "../secret.pdf", "pipe.pdf", "missing.pdf"):
        with pytest.raises(PdfError, match="cannot be read"):
            PdfFile(root, rel)


def test_a_drawing_stops_when_cancelled_and_the_file_stays_usable(tmp_path: Path) -> None:
    make_pdf(tmp_path / "v" / "big.pdf", pages=1, size=(5_000, 5_000))
    state = TaskState()
    strips = []

    def check() -> None:
        strips.append(1)
        if len(strips) == 2:
            state.cancel()
        state.check()

    with PdfFile(tmp_path / "v", "big.pdf") as doc:
        with pytest.raises(Cancelled):
            doc.render(0, 1.0, check=check)  # 25 M px asked, 16 M drawn in 2 M strips
        assert len(strips) == 2  # stopped at the second strip, not after eight
        assert doc.render(0, 0.1).width == 500
    with pytest.raises(PdfError, match="closed"):
        doc.render(0, 0.1)


def test_threads_drawing_at_once_get_the_same_pages(vault: Path) -> None:
    """PDFium is not thread-safe: the module's lock serialises every call, so pages drawn
    from four threads at once are the pages drawn one after another."""
    alone = [bytes(render_page(vault, "wide.pdf", i % 2, 400).rgba) for i in range(2)]
    results: dict[int, bytes] = {}
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            with PdfFile(vault, "wide.pdf") as doc:
                for _ in range(5):
                    results[n] = bytes(doc.render(n % 2, 400 / 842).rgba)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert all(results[n] == alone[n % 2] for n in range(4))
