"""The drawing tab: an Excalidraw drawing opened from its picture in an entry page (the
plugin's ``*.excalidraw.md``) or from a link to a ``*.excalidraw`` file, drawn in its own
colours (Excalidraw's dark mode in the dark theme), with pan, zoom and fit; a drawing that
cannot be read is a message in the tab, and the window goes on.

Real window, real index, real files; the view's pixels are read from a grab."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QIODevice,
    QPoint,
    QPointF,
    QSettings,
    Qt,
    QTimer,
    QUrl,
)
from PySide6.QtGui import QColor, QImage, QPainter, QWheelEvent
from PySide6.QtWidgets import QApplication
from reader_window import window_opener, write_files

from anthology.ui.common.document import DocumentView, OpenVault, kind_for_file
from anthology.ui.reading.drawing_view import DrawingView
from anthology.vault.drawing import load
from anthology.vault.drawing.load import TAB
from anthology.vault.render.theme import palette
from drawing_files import element, many_elements, plugin_markdown, scene

BOARD = scene([
    element("rectangle", "box00001", 0, 0, 400, 200, backgroundColor="#a5d8ff"),
    element("text", "txt00001", 20, 80, 360, 25, text="See Alpha",
            originalText="See Alpha", rawText="See [[Alpha]]"),
    element("ellipse", "ell00001", 600, 0, 300, 200, backgroundColor="#ffc9c9"),
    element("text", "txt00002", 600, 300, 300, 25, text="far corner",
            originalText="far corner"),
])  # fmt: skip
GOOD = plugin_markdown(BOARD, notes="Notes under the drawing.")
PAYLOAD = re.search(r"```compressed-json\n(.+?)\n```", GOOD, re.S).group(1)  # type: ignore[union-attr]
FILES = {
    "HOME.md": "# Home\n\nSee [[Board.excalidraw]] and [[sketch.excalidraw]].\n",
    "notes/Alpha.md": "# Alpha\n\nBack [[HOME]].\n",
    "drawings/Board.excalidraw.md": GOOD,
    "drawings/sketch.excalidraw": json.dumps(BOARD),
    "drawings/Broken.excalidraw.md": GOOD.replace(PAYLOAD, PAYLOAD[:200] + "**" + PAYLOAD[202:]),
}


@pytest.fixture
def open_window(qtbot, tmp_path: Path, settings: QSettings):
    load.clear_cache()
    vault = write_files(tmp_path / "vault", FILES)
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="HOME")


def shown_drawing(win, qtbot) -> DrawingView:
    view = win.tabs.document()
    assert isinstance(view, DrawingView) and isinstance(view, DocumentView)
    qtbot.waitUntil(lambda: not view.message.startswith("Loading"), timeout=20000)
    return view


def wheel(view: DrawingView, at: QPointF, delta: int, mods: Qt.KeyboardModifier) -> None:
    phase, button = Qt.ScrollPhase.NoScrollPhase, Qt.MouseButton.NoButton
    event = QWheelEvent(at, view.mapToGlobal(at), QPoint(0, 0), QPoint(0, delta), button, mods,
                        phase, False)  # fmt: skip
    QApplication.sendEvent(view, event)


def pixel(view: DrawingView, x: float, y: float) -> QColor:
    """The colour the view shows at the drawing's point (x, y)."""
    at = view.transform().map(QPointF(x, y))
    return view.grab().toImage().pixelColor(QPoint(round(at.x()), round(at.y())))


def test_a_drawing_entry_opens_in_the_tab_from_its_picture(open_window, qtbot) -> None:
    win = open_window()
    assert kind_for_file("drawings/board.excalidraw.md") is not None
    assert win.show_entry("drawings/Board.excalidraw")
    pane = win.entry_pane
    qtbot.waitUntil(lambda: not pane.rendering, timeout=20000)
    html = pane.rendered.html
    assert "Notes under the drawing." in html and "compressed-json" not in html
    href = "vault:drawings/Board.excalidraw.md"
    assert f'href="{href}"' in html  # the picture and its caption link to the tab

    pane.anchorClicked.emit(QUrl(href))  # a click on the picture
    view = shown_drawing(win, qtbot)
    assert view.document_id() == "drawings/Board.excalidraw.md"
    assert win.tabs.tabText(win.tabs.currentIndex()) == "Board.excalidraw"
    assert view.drawing is not None and len(view.drawing.shapes) == 4
    # fitted on open: the whole drawing in view, in its own colours
    left, top, right, bottom = view.drawing.bounds
    corners = [view.transform().map(QPointF(x, y)) for x, y in ((left, top), (right, bottom))]
    assert all(0 <= c.x() <= view.width() and 0 <= c.y() <= view.height() for c in corners)
    assert pixel(view, 200, 150).name() == "#a5d8ff"  # inside the box, under no text
    assert pixel(view, 750, 100).name() == "#ffc9c9"
    assert pixel(view, 500, 100).name() == "#ffffff"  # the drawing's background

    win.go_back()  # the entry again
    assert win.current_id() == "drawings/Board.excalidraw"


def test_pan_zoom_and_fit(open_window, qtbot) -> None:
    win = open_window()
    assert win.open_document("drawing", "drawings/sketch.excalidraw")
    view = shown_drawing(win, qtbot)
    fitted = view.scale
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    assert view.scale == pytest.approx(fitted * 1.25)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    assert view.scale == pytest.approx(fitted * 0.8)
    before = view.transform().map(QPointF(0, 0))
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=QPoint(300, 300))
    qtbot.mouseMove(view, QPoint(340, 320))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=QPoint(340, 320))
    after = view.transform().map(QPointF(0, 0))
    assert (after.x() - before.x(), after.y() - before.y()) == pytest.approx((40, 20))
    qtbot.keyClick(view, Qt.Key.Key_0)
    assert view.scale == pytest.approx(fitted)
    under = view.transform().inverted()[0].map(QPointF(100, 100))
    wheel(view, QPointF(100, 100), 240, Qt.KeyboardModifier.ControlModifier)  # zoom in
    assert view.scale == pytest.approx(fitted * 1.0015**240)  # two notches: 1.43×
    still = view.transform().inverted()[0].map(QPointF(100, 100))  # the point under it
    assert (still.x(), still.y()) == pytest.approx((under.x(), under.y()))
    before = view.transform().map(QPointF(0, 0))
    wheel(view, QPointF(100, 100), -120, Qt.KeyboardModifier.NoModifier)  # scrolls down
    assert view.transform().map(QPointF(0, 0)).y() == pytest.approx(before.y() - 60)
    assert view.find_text("far corner")  # find: the text centred
    centre = view.transform().inverted()[0].map(QPointF(view.width() / 2, view.height() / 2))
    assert 600 <= centre.x() <= 900 and 300 <= centre.y() <= 325


def test_dark_theme_shows_excalidraws_dark_mode(open_window, qtbot) -> None:
    win = open_window()
    assert win.open_document("drawing", "drawings/sketch.excalidraw")
    view = shown_drawing(win, qtbot)
    with qtbot.waitSignal(view.recorded, timeout=20000):
        view.set_theme("dark")  # recorded again on the worker
    background = pixel(view, 500, 100)
    fill = pixel(view, 200, 150)
    assert background.lightness() < 40  # a dark canvas
    assert fill.blue() > fill.red() and fill.lightness() < 128  # the blue box: still blue


def test_a_corrupt_drawing_is_a_message_and_the_window_goes_on(open_window, qtbot) -> None:
    win = open_window()
    assert win.open_document("drawing", "drawings/Broken.excalidraw.md")
    view = shown_drawing(win, qtbot)
    assert view.drawing is None
    assert "cannot be shown" in view.message and "corrupt" in view.message
    assert not win.open_document("drawing", "../outside.excalidraw")  # never outside
    assert win.show_entry("notes/Alpha") and win.current_id() == "notes/Alpha"


def test_a_link_to_an_excalidraw_file_opens_the_tab(open_window, qtbot) -> None:
    win = open_window()
    html = win.entry_pane.rendered.html
    assert 'href="vault:drawings/sketch.excalidraw"' in html
    win.entry_pane.anchorClicked.emit(QUrl("vault:drawings/sketch.excalidraw"))
    view = shown_drawing(win, qtbot)
    assert view.drawing is not None and view.drawing.texts() == ["See Alpha", "far corner"]
    exported = view.export_html()
    assert exported is not None and "<svg" in exported and "far corner" in exported


def test_a_huge_drawing_loads_while_the_window_goes_on(qtbot, tmp_path: Path) -> None:
    """Over the tab's budget (20,000 shapes): read off the GUI thread (the event loop turns
    all the while), the first 20,000 drawn and a notice says so."""
    load.clear_cache()
    root = tmp_path / "vault"
    root.mkdir()
    (root / "huge.excalidraw").write_text(json.dumps(scene(many_elements(25_000))))
    view = DrawingView()
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.attach_vault(OpenVault(root, lookup=None))  # type: ignore[arg-type]
    view.show()
    turns: list[int] = []
    ticker = QTimer()
    ticker.timeout.connect(lambda: turns.append(1))
    ticker.start(5)
    assert view.open_document("huge.excalidraw")
    assert view.message == "Loading the drawing…" and turns == []  # returned at once
    with qtbot.waitSignal(view.loaded, timeout=60000):
        pass
    ticker.stop()
    assert len(turns) >= 3  # the GUI thread went on while the file was read
    assert view.drawing is not None and len(view.drawing.shapes) == TAB.max_elements
    assert view.drawing.notices == ["This drawing has 25,000 elements; the first 20,000 are drawn."]
    strip = view.grab().toImage().pixelColor(QPoint(view.width() - 5, 5))
    assert strip.name() == palette("light").box_bg.lower()  # the notice's strip
    view.zoom(6.0)  # zoomed in, a frame replays only the tiles it can see
    view.redraw()
    image = QImage(800, 600, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    replayed = view.paint_frame(painter)
    painter.end()
    assert 0 < replayed < len(view._tiles) // 4


def test_a_picture_the_drawing_names_is_found_by_name_in_the_vault(
    qtbot, tmp_path: Path, settings: QSettings
) -> None:
    """The plugin names a pasted picture ``[[pic.png]]`` and keeps it in an attachments
    folder: found as the index resolves the link (on the worker, the index lent), drawn."""
    load.clear_cache()
    red = QImage(40, 30, QImage.Format.Format_RGB32)
    red.fill(QColor("#d00000"))
    png = QByteArray()
    buffer = QBuffer(png)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    red.save(buffer, "PNG")
    data = scene([element("image", "img00001", 0, 0, 400, 300, fileId="pic1"),
                  element("rectangle", "box00001", 500, 0, 100, 100)])  # fmt: skip
    vault = write_files(tmp_path / "vault", {
        "HOME.md": "# Home\n",
        "Excalidraw/Pics.excalidraw.md": plugin_markdown(data, embedded={"pic1": "[[pic.png]]"}),
        "attachments/pic.png": None,
    }, binary=lambda: bytes(png.data()))  # fmt: skip
    opener = window_opener(qtbot, vault, tmp_path, settings, entry="HOME")
    win = next(opener)()
    assert win.open_document("drawing", "Excalidraw/Pics.excalidraw.md")
    view = shown_drawing(win, qtbot)
    assert view.drawing is not None and view.drawing.images["pic1"].data == bytes(png.data())
    assert pixel(view, 200, 150).name() == "#d00000"
    next(opener, None)  # the window closes as the fixtures close theirs


def test_a_pan_past_the_kept_margin_draws_what_a_fresh_frame_draws(qtbot, tmp_path: Path) -> None:
    """Panning keeps an image of the view and a margin; past the margin only the strip
    uncovered is drawn (the tiles there, clipped): the result is the frame drawn afresh."""
    load.clear_cache()
    root = tmp_path / "vault"
    root.mkdir()
    (root / "many.excalidraw").write_text(json.dumps(scene(many_elements(2000))))
    view = DrawingView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.attach_vault(OpenVault(root, lookup=None))  # type: ignore[arg-type]
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=60000):
        assert view.open_document("many.excalidraw")
    view.zoom(5.0)
    view.redraw()
    first = view.grab().toImage()
    for _ in range(40):  # 480 × 360 px: past the 150 px margin, often, both ways
        view.pan(-12, -9)
        view.grab()  # a frame at each step, as a drag paints them
    panned = view.grab().toImage()
    view.redraw()
    fresh = view.grab().toImage()
    assert panned != first  # it moved
    # the same picture: at most a rounding step of antialiased, translucent edges apart
    assert channels(panned).shape == channels(fresh).shape
    assert np.abs(channels(panned) - channels(fresh)).max() <= 3
    assert np.abs(channels(first) - channels(fresh)).max() > 100  # (a real change shows)


def channels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    data = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    return data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 4].astype(int)


def test_a_drawing_tab_follows_the_window_exports_and_survives_a_restart(
    open_window, qtbot, tmp_path: Path
) -> None:
    win = open_window()
    assert win.open_document("drawing", "drawings/sketch.excalidraw", new_tab=True)
    view = shown_drawing(win, qtbot)
    with qtbot.waitSignal(view.recorded, timeout=20000):
        win.set_theme("dark")  # the window's theme reaches the tab
    assert pixel(view, 500, 100).lightness() < 40
    out = win.export_html(tmp_path / "sketch.html")  # File › Export as HTML
    assert out is not None and "<svg" in out.read_text(encoding="utf-8")
    pdf = win.export_pdf(tmp_path / "sketch.pdf")
    assert pdf is not None and pdf.read_bytes().startswith(b"%PDF")
    win.close()

    again = open_window(entry=None)
    assert again.tabs.count() == 2 and again.tabs.currentIndex() == 1
    restored = shown_drawing(again, qtbot)
    assert restored.document_id() == "drawings/sketch.excalidraw"
    assert restored.drawing is not None and len(restored.drawing.shapes) == 4
