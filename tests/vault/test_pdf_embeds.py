"""``![[doc.pdf]]`` in an entry (issue 31, item 3): the page named, its size and "page N
of M" in the HTML, and a clear notice in place of a PDF that cannot be shown, the rest of
the entry rendered. The page itself is drawn by the pane (tests/ui/test_pdf_view.py)."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache, render_entry
from anthology.vault.render.pdf_embed import parse_page_source, pdf_fragment
from pdf_samples import encrypted_pdf, make_pdf, truncated_pdf
from sample_vault import write_vault


def render(root: Path, tmp_path: Path, name: str) -> tuple[str, list[str]]:
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        clear_render_cache()
        entry = index.entry(name)
        assert entry is not None
        rendered = render_entry(entry, index, vault_root=root)
        return rendered.html, rendered.problems


def sources(html: str) -> list[tuple[str, int, tuple[float, float], int | None] | None]:
    return [parse_page_source(unescape(s)) for s in re.findall(r'<img src="(pdf:[^"]+)"', html)]


def test_a_page_is_embedded_with_its_size_count_and_a_link(tmp_path: Path) -> None:
    root = write_vault(
        tmp_path / "vault",
        {
            "Reading/Papers of 2024.md": "# Papers\n\n![[Annual report 📄.pdf]]\n\n"
            "![[Annual report 📄.pdf#page=3]]\n\n![[Annual report 📄.pdf#height=400]]\n\n"
            "![[Annual report 📄.pdf#page=2&height=250|The summary]]\n\n"
            "Markdown: ![](<../attachments/Annual report 📄.pdf#page=2>)\n\nThe end.\n",
        },
    )
    make_pdf(root / "attachments" / "Annual report 📄.pdf", pages=3, size=(612, 792))
    html, problems = render(root, tmp_path, "Reading/Papers of 2024")
    rel = "attachments/Annual report 📄.pdf"
    size = (612.0, 792.0)
    assert sources(html) == [
        (rel, 1, size, None),
        (rel, 3, size, None),
        (rel, 1, size, 400),
        (rel, 2, size, 250),
        (rel, 2, size, None),
    ]
    captions = re.findall(r"page (\d) of (\d)", html)
    assert [c for c in captions if c[1] == "3"][:5] == [("1", "3"), ("3", "3"), ("1", "3"),
                                                       ("2", "3"), ("2", "3")]  # fmt: skip
    # the name and the page open the viewer tab at that page
    assert 'href="vault:attachments/Annual%20report%20%F0%9F%93%84.pdf#page=3"' in html
    assert "The summary" in html and "Annual report 📄.pdf" in html
    assert "The end." in html and problems == []


def test_a_page_past_the_end_shows_the_last(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "vault", {"Note.md": "![[short.pdf#page=9]]\n\nAfter.\n"})
    make_pdf(root / "short.pdf", pages=2, size=(842, 595))
    html, problems = render(root, tmp_path, "Note")
    assert sources(html) == [("short.pdf", 2, (842.0, 595.0), None)]
    assert "page 2 of 2 (page 9 asked: there is none)" in html and "After." in html
    assert problems == ["PDF page 9 asked of short.pdf, which has 2"]


def test_the_fragment_is_read_as_obsidian_writes_it() -> None:
    assert pdf_fragment(None) == (1, None)
    assert pdf_fragment("page=3") == (3, None)
    assert pdf_fragment("height=400&page=12") == (12, 400)
    assert pdf_fragment("page=x&height=-3") == (1, None)
    assert pdf_fragment("page=0&height=99999999") == (1, 4000)


def test_bad_pdfs_show_a_notice_in_place_and_the_rest_of_the_entry(tmp_path: Path) -> None:
    body = "\n\n".join(
        f"Before {n}.\n\n![[{n}.pdf]]"
        for n in ("truncated", "locked", "readme", "huge", "bomb", "missing")
    )
    root = write_vault(
        tmp_path / "vault",
        {"Bad/Bad PDFs.md": f"# Bad PDFs\n\n{body}\n\n![[../../etc/passwd.pdf]]\n\nThe end.\n"},
    )
    truncated_pdf(root / "Bad" / "truncated.pdf")
    encrypted_pdf(root / "Bad" / "locked.pdf")
    (root / "Bad" / "readme.pdf").write_text("# Not a PDF\n\nJust Markdown named .pdf\n")
    make_pdf(root / "Bad" / "huge.pdf", pages=1, size=(50_000, 50_000))
    make_pdf(root / "Bad" / "bomb.pdf", pages=10_000, lines=0)
    html, problems = render(root, tmp_path, "Bad/Bad PDFs")
    text = re.sub(r"<[^>]+>", "", html)
    assert "truncated.pdf: this file is not a readable PDF" in text
    assert "locked.pdf: this PDF is password-protected" in text
    assert "readme.pdf: this file is not a readable PDF" in text
    assert "Missing attachment: “missing.pdf”" in text
    assert "lies outside the vault" in text
    # the bomb and the huge page are shown as pages (drawn later, within a budget)
    assert sources(html) == [
        ("Bad/huge.pdf", 1, (50_000.0, 50_000.0), None),
        ("Bad/bomb.pdf", 1, (612.0, 792.0), None),
    ]
    assert "page 1 of 10000" in text
    assert all(f"Before {n}." in text for n in ("truncated", "locked", "readme", "missing"))
    assert "The end." in text
    assert sum("PDF not shown" in p for p in problems) == 3


def test_an_exported_page_is_a_png_inside_the_html(tmp_path: Path) -> None:
    """File › Export as HTML: the embedded page is drawn into the file (a PNG data: URI,
    read back here as a PNG), nothing refers outside it; a bad PDF keeps its notice."""
    import base64
    import struct
    import zlib

    from anthology.vault.render.standalone import standalone_html

    root = write_vault(
        tmp_path / "vault", {"Note.md": "![[doc.pdf#page=2]]\n\n![[locked.pdf]]\n\nAfter.\n"}
    )
    make_pdf(root / "doc.pdf", pages=2)
    encrypted_pdf(root / "locked.pdf")
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        clear_render_cache()
        entry = index.entry("Note")
        assert entry is not None
        page = standalone_html(render_entry(entry, index, vault_root=root), title="Note",
                               vault_root=root)  # fmt: skip
    assert "pdf:" not in page and "vault:" not in page
    assert "this PDF is password-protected" in page and "After." in page
    (uri,) = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    png = base64.b64decode(uri)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (1520, 1967)
    idat = png.index(b"IDAT")
    (length,) = struct.unpack(">I", png[idat - 4 : idat])
    rows = zlib.decompress(png[idat + 4 : idat + 4 + length])
    assert len(rows) == height * (1 + 3 * width)
    assert rows[1:4] == b"\xff\xff\xff"  # the paper's first pixel: white
