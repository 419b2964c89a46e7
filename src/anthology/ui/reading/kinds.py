"""The kinds of document besides the entry page, registered at start without importing their
views: a PDF, an Excalidraw drawing, a canvas, a base. Each view module (and what it reads:
PDFium, the drawing and canvas models, the query engine) is imported when a document of its
kind is first opened — the window's start paid ~60 ms for them otherwise. Importing a view
module registers its kind again, the same, with the view's own class."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from anthology.ui.common.document import DocumentKind, DocumentView, OpenVault, register
from anthology.ui.reading.vault_images import vault_file


def _view(module: str, name: str) -> Callable[[], DocumentView]:
    def make() -> DocumentView:
        view_class = getattr(importlib.import_module(f"anthology.ui.reading.{module}"), name)
        view: DocumentView = view_class()
        return view

    return make


def _file_exists(vault: OpenVault, ref: str) -> bool:
    """A document that is a file of the vault (``ref`` its path; "#…" a place in it)."""
    target = vault_file(Path(vault.root).resolve(), ref.partition("#")[0])
    return target is not None and target.is_file()


def _canvas_exists(vault: OpenVault, ref: str) -> bool:
    return ref.lower().endswith(".canvas") and _file_exists(vault, ref)


def _base_exists(vault: OpenVault, ref: str) -> bool:
    from anthology.ui.reading.base_view import base_exists  # (it reads with the query engine)

    return base_exists(vault, ref)


def _ends(*suffixes: str) -> Callable[[str], bool]:
    return lambda rel: rel.endswith(suffixes)


register(
    DocumentKind("pdf", _view("pdf_view", "PdfView"), _file_exists, "PDF", opens=_ends(".pdf"))
)
register(DocumentKind("drawing", _view("drawing_view", "DrawingView"), _file_exists, "Drawing",
                      opens=_ends(".excalidraw", ".excalidraw.md")))  # fmt: skip
register(DocumentKind("canvas", _view("canvas_view", "CanvasView"), _canvas_exists, "Canvas",
                      opens=_ends(".canvas"), shows_entries=True))  # fmt: skip
register(DocumentKind("base", _view("base_view", "BaseView"), _base_exists, "Base",
                      opens=_ends(".base")))  # fmt: skip
