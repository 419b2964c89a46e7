"""Our typeset formulas (SVG from :mod:`anthology.vault.render.mathtex`) as images Qt's
rich text can show, drawn at the screen's pixel ratio and kept per key: a backlinks row,
a search result and a page preview ask for the same few formulas over and over."""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QByteArray, QRectF, QSize, Qt, QUrl
from PySide6.QtGui import QImage, QPainter, QTextDocument
from PySide6.QtSvg import QSvgRenderer

CACHE_SIZE = 512
_cache: OrderedDict[tuple[str, float], QImage] = OrderedDict()


def draw_svg(renderer: QSvgRenderer, width: float, height: float, dpr: float) -> QImage:
    """``renderer``'s picture drawn into a transparent image ``width`` × ``height`` device
    pixels, at pixel ratio ``dpr`` (the pane's figures and pictures, and our formulas)."""
    image = QImage(
        QSize(max(1, round(width)), max(1, round(height))),
        QImage.Format.Format_ARGB32_Premultiplied,
    )
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter, QRectF(0, 0, image.width(), image.height()))
    painter.end()
    image.setDevicePixelRatio(dpr)
    return image


def svg_image(key: str, svg: bytes, dpr: float = 2.0) -> QImage | None:
    """The formula ``key`` (its SVG bytes ``svg``, ours: trusted) as an image, or None."""
    dpr = max(1.0, dpr)
    hit = _cache.get((key, dpr))
    if hit is not None:
        _cache.move_to_end((key, dpr))
        return hit
    renderer = QSvgRenderer(QByteArray(svg))
    if not renderer.isValid():
        return None
    size = renderer.defaultSize()
    image = draw_svg(renderer, size.width() * dpr, size.height() * dpr, dpr)
    _cache[(key, dpr)] = image
    while len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return image


def add_math(doc: QTextDocument, images: dict[str, bytes], dpr: float = 2.0) -> None:
    """Give ``doc`` the formulas its HTML names (``<img src="math:…">``)."""
    for key, svg in images.items():
        image = svg_image(key, svg, dpr)
        if image is not None:
            doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(key), image)
