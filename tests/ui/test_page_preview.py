"""The page preview on its own (the popover a hovered link opens), on a real index."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument
from PySide6.QtWidgets import QWidget
from reader_window import images_in, tiny_png, write_files

from anthology.ui.reading.page_preview import PreviewController
from anthology.vault.index import VaultIndex


def _png(colour: str) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor(colour))
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG")
    return bytes(data.data())


def test_the_preview_shows_the_vaults_picture_and_never_a_file_of_the_working_folder(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = write_files(
        tmp_path / "v", {"Pic.md": "A picture: ![[pic.png]]\n", "pic.png": None}, tiny_png
    )
    # The canary: what Qt would read itself, relative to the working folder, for the
    # picture's URL (vault:pic.png) and the name alone.
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    for name in ("vault:pic.png", "pic.png"):
        (cwd / name).write_bytes(_png("blue"))
    monkeypatch.chdir(cwd)
    parent = QWidget()
    qtbot.addWidget(parent)
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:
        previews = PreviewController(
            parent, idx.entry, lambda: idx, lambda: "light", lambda: idx.root
        )
        previews.hover("Pic", immediate=True)
        qtbot.waitUntil(lambda: previews.visible, timeout=5000)
        doc = previews.popup.browser.document()
        assert images_in(doc) == ["vault:pic.png"]
        image = doc.resource(QTextDocument.ResourceType.ImageResource, QUrl("vault:pic.png"))
        assert isinstance(image, QImage) and not image.isNull()
        colour = image.pixelColor(image.width() // 2, image.height() // 2)
        assert colour.name() == "#ff0000"  # the vault's red picture, not the blue canary
        previews.hide()


def test_a_picture_outside_the_vault_is_a_placeholder_in_the_preview(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no vault to read from (or a name that leaves it), the preview draws the
    placeholder: it never asks Qt to find the file."""
    vault = write_files(
        tmp_path / "v", {"Pic.md": "A picture: ![[pic.png]]\n", "pic.png": None}, tiny_png
    )
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "vault:pic.png").write_bytes(_png("blue"))
    monkeypatch.chdir(cwd)
    parent = QWidget()
    qtbot.addWidget(parent)
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:
        previews = PreviewController(parent, idx.entry, lambda: idx, lambda: "light")
        previews.hover("Pic", immediate=True)
        qtbot.waitUntil(lambda: previews.visible, timeout=5000)
        doc = previews.popup.browser.document()
        image = doc.resource(QTextDocument.ResourceType.ImageResource, QUrl("vault:pic.png"))
        assert isinstance(image, QImage) and image.width() == 160  # the placeholder
        assert image.pixelColor(image.width() // 2, image.height() // 2).name() != "#0000ff"
        previews.hide()
