"""Real PDF files for the tests and the benchmark, written as PDF bytes: pages of text and
a frame, and the bad ones of issue 31 (truncated, password-protected; a 50,000-point page
and 10,000 pages are :func:`make_pdf` with those numbers)."""

from __future__ import annotations

from pathlib import Path


def _pdf(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF file of ``objects`` (numbered from 1; object 1 is the catalog), with its
    cross-reference table, written as the PDF reference (ISO 32000-1, 7.5) lays one out."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, trailer, xref)  # fmt: skip
    return bytes(out)


def _stream(data: bytes) -> bytes:
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def pdf_bytes(
    pages: int = 3,
    size: tuple[float, float] = (612, 792),
    *,
    lines: int = 12,
    sizes: list[tuple[float, float]] | None = None,
) -> bytes:
    """A PDF of ``pages`` pages of ``size`` points, each with "Page N" in large type, a
    frame and ``lines`` lines of Helvetica (each page has something to draw); ``sizes``:
    each page's own size, in turn. Written
    directly (linear in pages: PDFium's own page making is quadratic in them)."""
    kids = b" ".join(b"%d 0 R" % (4 + 2 * n) for n in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for n in range(pages):
        w, h = sizes[n % len(sizes)] if sizes else size
        big = min(48.0, h / 10)
        ops = [b"2 w 20 20 %.1f %.1f re S" % (w - 40, h - 40),
               b"BT /F1 %.1f Tf 60 %.1f Td (Page %d) Tj ET" % (big, h - 100, n + 1)]  # fmt: skip
        for i in range(lines):
            ops.append(b"BT /F1 12 Tf 60 %.1f Td (Line %d of page %d: the quick brown fox.) Tj ET"
                       % (h - 160 - 18 * i, i + 1, n + 1))  # fmt: skip
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.1f %.1f] /Contents %d 0 R "
            b"/Resources << /Font << /F1 3 0 R >> >> >>" % (w, h, 5 + 2 * n)
        )
        objects.append(_stream(b"\n".join(ops)))
    return _pdf(objects)


def make_pdf(
    path: Path,
    pages: int = 3,
    size: tuple[float, float] = (612, 792),
    *,
    lines: int = 12,
    sizes: list[tuple[float, float]] | None = None,
) -> Path:
    """:func:`pdf_bytes` written to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pdf_bytes(pages, size, lines=lines, sizes=sizes))
    return path


def truncated_pdf(path: Path) -> Path:
    """A real PDF cut after its first 300 bytes (a download that stopped)."""
    whole = make_pdf(path.with_name("whole-" + path.name), pages=4)
    path.write_bytes(whole.read_bytes()[:300])
    whole.unlink()
    return path


def encrypted_pdf(path: Path) -> Path:
    """A PDF with the standard security handler (RC4, revision 2) and a user password
    that is not empty: PDFium asks for a password (its O and U strings are made up, so
    no password opens it; that is all a reader without one sees)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -44 >>" % (b"11" * 32, b"22" * 32),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_pdf(objects, b"/Encrypt 4 0 R /ID [<%s> <%s>] " % (b"ab" * 16, b"ab" * 16)))
    return path
