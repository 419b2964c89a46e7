"""``anthology export --entry ID --format html|pdf`` writes what the window's File › Export as
HTML / PDF writes for that entry (issue 31, item 7): the same HTML, byte for byte, and a PDF
of the same pages and text."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from reader_window import tiny_png, window_opener, write_files

from anthology.cli import main

FILES = {
    "Projects/Launch plan.md": (
        "---\ntags: [work]\n---\n# Launch plan\n\nThe budget is $\\sum_i c_i \\le B$.\n\n"
        "![[pics/chart.png|120]]\n\n> [!warning] Dates\n> Not before May.\n\n"
        "See [[Notes on pricing]] and [the site](https://example.org).\n"
    ),
    "Notes on pricing.md": "Cheap, then [[Launch plan|less cheap]].\n",
    "pics/chart.png": None,
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_files(tmp_path / "vault", FILES, tiny_png)


@pytest.fixture
def open_window(qtbot, tmp_path: Path, vault: Path, settings: QSettings):
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Projects/Launch plan")


def export(capsys, vault: Path, tmp_path: Path, fmt: str) -> Path:
    out = tmp_path / f"cli.{fmt}"
    code = main(["export", str(vault), "--db", str(tmp_path / "cli-index.sqlite"),
                 "--entry", "Launch plan", "--format", fmt, "--out", str(out)])  # fmt: skip
    _out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_the_command_writes_the_windows_html(
    open_window, capsys, tmp_path: Path, vault: Path
) -> None:
    win = open_window()
    written = win.export_html(tmp_path / "window.html")
    assert written is not None
    cli = export(capsys, vault, tmp_path, "html")
    assert cli.read_bytes() == written.read_bytes()


def test_the_command_writes_the_windows_pdf(
    open_window, capsys, tmp_path: Path, vault: Path
) -> None:
    import pypdfium2 as pdfium  # the test extra's (pyproject.toml)

    win = open_window()
    written = win.export_pdf(tmp_path / "window.pdf")
    assert written is not None
    cli = export(capsys, vault, tmp_path, "pdf")

    def pages(path: Path) -> list[str]:
        doc = pdfium.PdfDocument(path.read_bytes())
        try:
            return [" ".join(doc[i].get_textpage().get_text_range().split())
                    for i in range(len(doc))]  # fmt: skip
        finally:
            doc.close()

    shown = pages(cli)
    assert shown == pages(written)
    assert "Launch plan" in shown[0] and "Not before May." in shown[0]
