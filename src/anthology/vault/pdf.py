"""PDF documents of the vault, read with PDFium (``pypdfium2``): page count and sizes
without drawing anything, and one page drawn to RGBA bytes within a pixel budget.

Qt-free: the entry pane's embeds (:mod:`anthology.vault.render.pdf_embed`) and the viewer
tab (:mod:`anthology.ui.reading.pdf_view`) both come here.

**PDFium is not thread-safe** (pypdfium2's documentation: no two threads may call into the
library at once, even on different documents). Every call into it, from any thread, holds
the one process-wide lock :data:`PDFIUM_LOCK`. Work that may be long (drawing a page) is
cut into strips of at most :data:`STRIP_PIXELS` pixels, the lock taken for one strip at a
time, so another thread (the GUI thread asking a page count for an embed) waits at most
one strip, and a cancelled drawing stops at the next strip. Documents and pages are closed
explicitly under the lock, never left to a garbage collector on whatever thread it runs.

A file is opened only inside the vault, after resolving links, and never a FIFO or a
device (:func:`~anthology.vault.files.open_regular`); PDFium reads it through that handle,
never by a path of its own. A page is never allocated at its declared size: a 50,000 × 50,000-point
page is drawn scaled down to :data:`MAX_PAGE_PIXELS`.
"""

from __future__ import annotations

import ctypes
import io
import math
import os
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .files import open_regular

# One lock for every call into PDFium, from any thread (see the module docstring).
PDFIUM_LOCK = threading.RLock()
MAX_PAGE_PIXELS = 16_000_000  # one page drawn: 64 MB of RGBA at most, whatever it declares
STRIP_PIXELS = 2_000_000  # drawn per hold of the lock (a cancel or another caller waits less)
# Page sizes read when a document opens (~5 µs a page, no page drawn); past this the rest
# are taken to be the size of the last one read, and the report says so.
MAX_SIZED_PAGES = 100_000
_INFO_CACHE = 64  # documents whose page count and sizes are kept (by path, size, mtime)


class PdfError(Exception):
    """A PDF that cannot be shown; ``str()`` is the reader's one-line reason."""


class PdfPasswordProtected(PdfError):
    pass


@dataclass(frozen=True)
class PdfInfo:
    """What a PDF is, read without drawing: its page sizes in points (1/72 in)."""

    sizes: tuple[tuple[float, float], ...]
    pages: int  # may exceed len(sizes) (see MAX_SIZED_PAGES)

    def size(self, index: int) -> tuple[float, float]:
        """The size of page ``index`` (0-based) in points."""
        if not self.sizes:
            return (612.0, 792.0)
        return self.sizes[min(max(0, index), len(self.sizes) - 1)]


@dataclass(frozen=True)
class PageImage:
    """One page drawn: ``width`` × ``height`` pixels of RGBA (premultiplied is not needed:
    the page is drawn on opaque white), at ``scale`` pixels per point."""

    width: int
    height: int
    rgba: bytes | bytearray
    scale: float


def fit_scale(size: tuple[float, float], scale: float, max_pixels: int = MAX_PAGE_PIXELS) -> float:
    """``scale`` (pixels per point), made smaller when the page drawn at it would exceed
    ``max_pixels`` pixels (a page declaring 50,000 × 50,000 points)."""
    width, height = max(1.0, size[0]), max(1.0, size[1])
    if width * scale * height * scale > max_pixels:
        scale = math.sqrt(max_pixels / (width * height))
    # and never a side of more than 32,767 px (what a raster image may have)
    return min(scale, 32_767 / width, 32_767 / height)


def _raw():  # the library, loaded when a PDF is first met (not at the app's start)
    import pypdfium2.raw as raw

    return raw


def _reason(code: int) -> PdfError:
    raw = _raw()
    if code == raw.FPDF_ERR_PASSWORD:
        return PdfPasswordProtected("this PDF is password-protected")
    if code == raw.FPDF_ERR_FORMAT:
        return PdfError("this file is not a readable PDF (damaged, truncated or not a PDF)")
    if code == raw.FPDF_ERR_SECURITY:
        return PdfError("this PDF uses a protection Anthology cannot read")
    return PdfError(f"this PDF could not be opened (PDFium error {code})")


class PdfFile:
    """One PDF of the vault, open. Every method may be called from any thread (they take
    :data:`PDFIUM_LOCK`); :meth:`close` it when done (a drawing under way then stops)."""

    def __init__(self, root: str | os.PathLike[str], rel: str) -> None:
        """Open the vault file ``rel``; raises :class:`PdfError` with the reason (missing,
        outside the vault, not a PDF, password-protected…)."""
        import pypdfium2 as pdfium

        try:
            fh, st = open_regular(root, rel)
        except OSError as exc:
            raise PdfError(f"this file cannot be read ({exc.strerror or exc})") from None
        self.file_size = st.st_size
        self._fh = fh
        self._closed = False
        with PDFIUM_LOCK:
            try:
                # a handle: PDFium reads through it (the file already checked inside the vault)
                self._doc = pdfium.PdfDocument(io.BufferedReader(fh), autoclose=True)
            except pdfium.PdfiumError as exc:
                fh.close()
                raise _reason(getattr(exc, "err_code", -1) or -1) from None
            except Exception as exc:
                fh.close()
                raise PdfError(f"this PDF could not be opened ({exc})") from None
            try:
                count = len(self._doc)
            except Exception as exc:
                self._close_locked()
                raise PdfError(f"this PDF's pages cannot be read ({exc})") from None
        if count <= 0:
            self.close()
            raise PdfError("this PDF has no pages")
        self.pages = count
        self._sizes: tuple[tuple[float, float], ...] | None = None

    def page_size(self, index: int) -> tuple[float, float]:
        """The size of page ``index`` (0-based) in points, read without drawing it."""
        if self._sizes is not None:
            return PdfInfo(self._sizes, self.pages).size(index)
        with PDFIUM_LOCK:
            if self._closed:
                raise PdfError("the PDF was closed")
            try:
                return self._doc.get_page_size(min(max(0, index), self.pages - 1))
            except Exception as exc:
                raise PdfError(f"page {index + 1} of this PDF cannot be read ({exc})") from None

    def sizes(self, start: int, stop: int) -> list[tuple[float, float]]:
        """The sizes of pages ``start`` to ``stop`` (0-based, ``stop`` excluded) in points,
        read in one hold of the lock (a viewer reads a long PDF's in chunks, between the
        pages it draws)."""
        with PDFIUM_LOCK:
            if self._closed:
                raise PdfError("the PDF was closed")
            try:
                get = self._doc.get_page_size
                return [get(i) for i in range(max(0, start), min(stop, self.pages))]
            except Exception as exc:
                raise PdfError(f"this PDF's pages cannot be read ({exc})") from None

    @property
    def info(self) -> PdfInfo:
        """Every page's size (the first :data:`MAX_SIZED_PAGES`): read once, ~5-30 µs a
        page (a viewer lays its pages out from them, off the GUI thread)."""
        if self._sizes is None:
            with PDFIUM_LOCK:
                if self._closed:
                    raise PdfError("the PDF was closed")
                try:
                    get = self._doc.get_page_size
                    self._sizes = tuple(get(i) for i in range(min(self.pages, MAX_SIZED_PAGES)))
                except Exception as exc:
                    raise PdfError(f"this PDF's pages cannot be read ({exc})") from None
        return PdfInfo(self._sizes, self.pages)

    def render(
        self,
        index: int,
        scale: float,
        *,
        max_pixels: int = MAX_PAGE_PIXELS,
        check: Callable[[], None] | None = None,
    ) -> PageImage:
        """Page ``index`` (0-based) drawn at ``scale`` pixels per point, or smaller to stay
        within ``max_pixels``; on white, annotations included. ``check`` is called between
        strips (a cancelled task raises there). Raises :class:`PdfError` when the page
        cannot be drawn or the file was closed."""
        raw = _raw()
        if not 0 <= index < self.pages:
            raise PdfError(f"this PDF has no page {index + 1}")
        size = self.page_size(index)
        scale = fit_scale(size, scale, max_pixels)
        width = max(1, round(size[0] * scale))
        height = max(1, round(size[1] * scale))
        stride = width * 4
        buffer = bytearray(stride * height)
        view = (ctypes.c_ubyte * len(buffer)).from_buffer(buffer)  # held while drawing
        base = ctypes.addressof(view)
        rows = max(1, STRIP_PIXELS // width)
        flags = raw.FPDF_ANNOT | raw.FPDF_REVERSE_BYTE_ORDER  # RGBA, not BGRA
        page = None
        try:
            for top in range(0, height, rows):
                if check is not None:
                    check()
                strip = min(rows, height - top)
                with PDFIUM_LOCK:
                    if self._closed:
                        raise PdfError("the PDF was closed")
                    if page is None:
                        page = raw.FPDF_LoadPage(self._doc.raw, index)
                        if not page:
                            raise PdfError(f"page {index + 1} of this PDF cannot be read")
                    bitmap = raw.FPDFBitmap_CreateEx(
                        width, strip, raw.FPDFBitmap_BGRA, ctypes.c_void_p(base + top * stride),
                        stride,
                    )  # fmt: skip
                    try:
                        raw.FPDFBitmap_FillRect(bitmap, 0, 0, width, strip, 0xFFFFFFFF)
                        # the page placed so that this strip's rows land in the bitmap
                        raw.FPDF_RenderPageBitmap(bitmap, page, 0, -top, width, height, 0, flags)
                    finally:
                        raw.FPDFBitmap_Destroy(bitmap)
        finally:
            if page is not None:
                with PDFIUM_LOCK:
                    raw.FPDF_ClosePage(page)
            del view
        return PageImage(width, height, buffer, scale)

    def close(self) -> None:
        with PDFIUM_LOCK:
            self._close_locked()

    def _close_locked(self) -> None:
        if not self._closed:
            self._closed = True
            self._doc.close()  # and the handle with it (autoclose)

    def __enter__(self) -> PdfFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class PageInfo:
    """What an embed needs of a PDF: its page count and one page's size in points."""

    pages: int
    size: tuple[float, float]


_infos: OrderedDict[tuple[str, int, int, int], PageInfo | PdfError] = OrderedDict()
_infos_lock = threading.Lock()


def page_info(root: str | os.PathLike[str], rel: str, index: int = 0) -> PageInfo:
    """The page count of the vault's PDF ``rel`` and the size of its page ``index``
    (0-based; the last one when past it), read without drawing. Kept per file size and
    mtime: a second render of the entry asks PDFium nothing. Raises :class:`PdfError`."""
    try:
        st = (Path(root) / rel).stat()
        key = (os.path.realpath(Path(root) / rel), st.st_size, st.st_mtime_ns, index)
    except OSError as exc:
        raise PdfError(f"this file cannot be read ({exc.strerror or exc})") from None
    with _infos_lock:
        hit = _infos.get(key)
        if hit is not None:
            _infos.move_to_end(key)
    if hit is None:
        try:
            with PdfFile(root, rel) as doc:
                hit = PageInfo(doc.pages, doc.page_size(index))
        except PdfError as exc:
            hit = exc
        with _infos_lock:
            _infos[key] = hit
            while len(_infos) > _INFO_CACHE:
                _infos.popitem(last=False)
    if isinstance(hit, PdfError):
        raise hit
    return hit


def render_page(
    root: str | os.PathLike[str],
    rel: str,
    index: int,
    width_px: int,
    *,
    max_pixels: int = MAX_PAGE_PIXELS,
    check: Callable[[], None] | None = None,
) -> PageImage:
    """Page ``index`` of the vault's PDF ``rel`` drawn ``width_px`` pixels wide (or smaller,
    within ``max_pixels``): an embed's picture. Opens and closes the file."""
    with PdfFile(root, rel) as doc:
        size = doc.page_size(index)
        return doc.render(index, width_px / max(1.0, size[0]), max_pixels=max_pixels,
                          check=check)  # fmt: skip


def png_bytes(page: PageImage) -> bytes:
    """A drawn page as a PNG file (RGB; the paper is opaque): for an export, Qt-free."""
    rows = bytearray()
    rgba = memoryview(page.rgba)
    stride = page.width * 4
    for y in range(page.height):
        row = rgba[y * stride : (y + 1) * stride]
        rgb = bytearray(page.width * 3)
        rgb[0::3], rgb[1::3], rgb[2::3] = row[0::4], row[1::4], row[2::4]
        rows += b"\0" + rgb  # filter type 0 for every row

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", page.width, page.height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 6))
        + chunk(b"IEND", b"")
    )
