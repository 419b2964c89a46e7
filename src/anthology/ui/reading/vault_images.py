"""The pictures a rendered page names (``<img src="vault:…">``), loaded for Qt's rich text
the one way: from inside the vault only, opened as every vault file is, SVGs stripped of
what lies outside them, and drawn at most :data:`MAX_IMAGE_SIDE` device pixels a side.

Every widget that shows a render (the entry pane, the page preview) answers its
``loadResource`` with these, never with ``None``: a ``QTextBrowser`` given nothing reads the
name as a file itself, relative to the process's working folder (a ``./vault:pic.png``
there was shown in the preview).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSize, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter

from anthology.ui.common.math_images import draw_svg
from anthology.vault import open_regular
from anthology.vault.render.svg_safety import UnsafeSvg, sanitise_svg
from anthology.vault.render.theme import palette

MAX_IMAGE_BYTES = 50 * 1024 * 1024
MAX_IMAGE_SIDE = 4096  # device pixels: a declared 12000×12000 SVG is drawn smaller


def vault_file(root: Path | None, rel: str) -> Path | None:
    """The real path of ``rel`` (a ``vault:`` URL's decoded path) when it lies inside
    ``root`` (resolved), else None."""
    if root is None or not rel:
        return None
    try:
        target = (root / rel).resolve()
        target.relative_to(root)
    except (ValueError, OSError):
        return None
    return target


def svg_picture(
    data: bytes, column: int, dpr: float, *, trusted: bool = False, fit: bool = False
) -> QImage | None:
    """An SVG drawn at pixel ratio ``dpr``: a vault's (untrusted) sanitised first and never
    larger than :data:`MAX_IMAGE_SIDE` nor wider than the ``column`` (px); one of ours as
    declared, or fitted to the column (``fit``)."""
    from PySide6.QtSvg import QSvgRenderer

    if not trusted:  # a vault's SVG: nothing outside it may be drawn or fetched
        try:
            data, _removed = sanitise_svg(data)
        except UnsafeSvg:
            return None
    renderer = QSvgRenderer(QByteArray(data))
    if not renderer.isValid():
        return None
    size = renderer.defaultSize()
    width, height = max(1.0, size.width() * dpr), max(1.0, size.height() * dpr)
    if not trusted:  # the declared size, not the file size, decides the allocation
        scale = min(1.0, MAX_IMAGE_SIDE / max(width, height))
        scale = min(scale, column * dpr / width)
        width, height = width * scale, height * scale
    elif fit:  # a figure of ours: never wider than the text column
        scale = min(1.0, column * dpr / width)
        width, height = width * scale, height * scale
    return draw_svg(renderer, width, height, dpr)


def load_vault_image(root: Path | None, rel: str, column: int, dpr: float) -> QImage | None:
    """The vault's picture ``rel`` fitted to a text ``column`` px wide, or None (outside the
    vault, missing, not a regular file, too big, not a picture)."""
    target = vault_file(root, rel)
    if target is None or root is None:
        return None
    try:
        # Opened as every vault file is: never outside the vault, never a FIFO (which
        # would block the GUI thread forever).
        fh, st = open_regular(root, target.relative_to(root).as_posix())
        with fh:
            if st.st_size > MAX_IMAGE_BYTES:
                return None
            data = fh.readall()
    except OSError:
        return None
    if target.suffix.lower() == ".svg":
        image = svg_picture(data, column, dpr)
    else:
        image = QImage.fromData(data)
    if image is None or image.isNull():
        return None
    limit = max(200, column)
    if image.width() / image.devicePixelRatio() > limit:
        image = image.scaledToWidth(
            round(limit * image.devicePixelRatio()), Qt.TransformationMode.SmoothTransformation
        )
    return image


def placeholder(theme: str, font: QFont, missing_file: bool) -> QImage:
    """What stands for a picture not shown: "image unavailable" (a vault file that could
    not be read) or "image not loaded" (anything else)."""
    pal = palette(theme)
    image = QImage(QSize(160, 48), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(pal.box_bg))
    painter = QPainter(image)
    painter.setPen(QColor(pal.muted))
    painter.drawRect(0, 0, 159, 47)
    small = QFont(font)
    small.setPointSizeF(8.5)
    painter.setFont(small)
    painter.drawText(
        image.rect(),
        int(Qt.AlignmentFlag.AlignCenter),
        "image unavailable" if missing_file else "image not loaded",
    )
    painter.end()
    return image
