"""The canvas tab (issue 32) in a real window on a real vault: a ``.canvas`` opened from the
explorer, the switcher or a link shows its board; pan, zoom and fit by mouse and keys; the
level of detail (far out no card is laid out); text cards rendered as Markdown, file cards
showing the note (or its heading or block) and opening it on a click (Ctrl: a new tab),
link cards following the external-link rule; the embed in a note opening the canvas;
backlinks grouped "from canvas Name"; a bad file a notice; an edit on disk redrawn where the
reader was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt, QUrl
from reader_window import window_opener

from anthology.ui.common.document import kind_for_file
from anthology.ui.reading.canvas_view import CanvasView
from anthology.ui.window.main_window import MainWindow
from anthology.vault.canvas.geometry import FULL, SHAPES, detail
from canvas_vault import big_board, write_canvas_vault

BOARD = "Boards/Project board.canvas"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_canvas_vault(tmp_path / "vault")


@pytest.fixture
def open_window(qtbot, vault: Path, tmp_path: Path, settings: QSettings):
    yield from window_opener(qtbot, vault, tmp_path, settings, entry="Home")


def _board(win: MainWindow) -> CanvasView:
    view = win.tabs.document()
    assert isinstance(view, CanvasView)
    return view


def _spot(view: CanvasView, node_id: str) -> QPoint:
    """Where the node ``node_id`` is drawn, in the view's pixels (its middle)."""
    node = view.canvas.node(node_id)
    assert node is not None
    return view.to_view(*node.centre).toPoint()


def _close_up(view: CanvasView, node_id: str) -> None:
    node = view.canvas.node(node_id)
    assert node is not None
    view.centre_on(node)
    view.scale = 1.0
    view.centre_on(node)
    view.render_visible()


def test_a_canvas_opens_in_a_tab_from_the_explorer_and_the_switcher(open_window, qtbot) -> None:
    win = open_window()
    assert kind_for_file(BOARD) is not None and kind_for_file(BOARD).name == "canvas"
    win.explorer.entryActivated.emit(BOARD)  # what a click in the file explorer emits
    view = _board(win)
    assert view.isVisible() and not win.entry_pane.isVisible()
    assert view.document_id() == BOARD and win.current_id() is None
    assert win.tabs.tabText(win.tabs.currentIndex()) == "Project board"
    assert len(view.canvas.nodes) == 9 and len(view.board.edges) == 5
    assert not view.notice.isVisible()  # a clean file: no notice
    # opened fitted: the whole board in view
    x, y, w, h = view.board.bounds()
    seen = view.visible_rect()
    assert seen.contains(QPointF(x, y)) and seen.contains(QPointF(x + w, y + h))
    win.go_back()
    assert win.current_id() == "Home"
    win.switcher.entryChosen.emit(BOARD)  # the quick switcher
    assert _board(win).document_id() == BOARD
    assert win.history[-2:] == ["Home", BOARD]


def test_pan_zoom_and_fit_by_keys_and_mouse(open_window, qtbot) -> None:
    win = open_window()
    assert win.show_entry(BOARD)
    view = _board(win)
    view.setFocus()
    fitted = view.scale
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    assert view.scale == pytest.approx(fitted * 1.25)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    assert view.scale == pytest.approx(fitted / 1.25)
    before = QPointF(view.origin)
    qtbot.keyClick(view, Qt.Key.Key_Right)  # the board moves left: we look further right
    assert view.origin.x() > before.x() and view.origin.y() == before.y()
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.origin.y() > before.y()
    qtbot.keyClick(view, Qt.Key.Key_0)
    assert view.scale == pytest.approx(fitted)
    # a drag pans (the board follows the hand), and is no click
    start = view.origin
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=QPoint(300, 300))
    qtbot.mouseMove(view, QPoint(340, 320))
    qtbot.mouseMove(view, QPoint(400, 350))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=QPoint(400, 350))
    assert view.origin.x() == pytest.approx(start.x() - 100 / view.scale)
    assert view.origin.y() == pytest.approx(start.y() - 50 / view.scale)
    assert win.tabs.document() is view  # nothing opened by the drag
    # zoom about a point keeps that point where it is
    at = QPointF(200, 150)
    fixed = view.to_board(at)
    view.zoom(2.0, at)
    assert view.to_board(at).x() == pytest.approx(fixed.x())
    assert view.to_board(at).y() == pytest.approx(fixed.y())


def test_far_out_a_board_of_a_thousand_cards_lays_out_none(
    qtbot, vault: Path, tmp_path: Path, settings: QSettings
) -> None:
    (vault / "Boards" / "Big.canvas").write_text(json.dumps(big_board(1000, 1500)), "utf-8")
    for opener in window_opener(qtbot, vault, tmp_path, settings, entry="Home"):
        win = opener()
        assert win.show_entry("Boards/Big.canvas")
        view = _board(win)
        assert detail(view.scale) == SHAPES  # fitted: 1,000 cards are shapes
        assert view.render_visible() == 0 and view._cards == {}
        _close_up(view, "n0")
        assert detail(view.scale) == FULL
        laid_out = len(view._cards)
        assert 0 < laid_out < 40  # only the cards in view
        card = view._cards[view.canvas.nodes.index(view.canvas.node("n0"))]
        assert card.doc is not None and "Some text of card 0" in card.doc.toPlainText()
        assert "Card 0" in card.doc.toPlainText()  # the heading, rendered (no "##")
        assert "##" not in card.doc.toPlainText()


def test_file_cards_show_the_note_its_heading_or_its_block(open_window, qtbot) -> None:
    win = open_window()
    assert win.show_entry(BOARD)
    view = _board(win)
    texts = {}
    for node_id in ("file-note", "file-heading", "file-block", "text-1"):
        _close_up(view, node_id)
        i = view.canvas.nodes.index(view.canvas.node(node_id))
        card = view._cards[i]
        assert card.doc is not None
        texts[node_id] = card.doc.toPlainText()
    assert "Intro of the plan." in texts["file-note"] and "Not shown" in texts["file-note"]
    assert "Too many cards." in texts["file-heading"]
    assert "Not shown under Risks" not in texts["file-heading"]
    assert "Intro" not in texts["file-block"] and "Too many cards." in texts["file-block"]
    assert "Kick-off" in texts["text-1"] and "Idea 💡" in texts["text-1"]  # a link, as its text
    # an image card is the picture
    _close_up(view, "file-image")
    card = view._cards[view.canvas.nodes.index(view.canvas.node("file-image"))]
    assert card.image is not None and not card.image.isNull()
    background = view._backgrounds.get("Attachments/paper.png")  # the group's, in the vault
    assert background is not None and not background.isNull()


def test_a_click_on_a_file_card_opens_the_note_ctrl_in_a_new_tab(open_window, qtbot) -> None:
    win = open_window()
    assert win.show_entry(BOARD)
    view = _board(win)
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=_spot(view, "file-note"))
    assert win.current_id() == "Notes/Project plan" and win.entry_pane.isVisible()
    win.go_back()
    view = _board(win)
    assert view.document_id() == BOARD
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                     pos=_spot(view, "file-heading"))  # fmt: skip
    assert win.tabs.count() == 2 and win.tabs.currentIndex() == 1
    assert win.current_id() == "Notes/Project plan"
    win.tabs.setCurrentIndex(0)
    assert _board(win).document_id() == BOARD  # the first tab kept the board


def test_a_link_card_follows_the_external_link_rule(open_window, qtbot) -> None:
    win = open_window()
    assert win.show_entry(BOARD)
    view = _board(win)
    opened: list[str] = []
    view.open_external = lambda url: opened.append(url.toString())
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=_spot(view, "link-1"))
    assert opened == ["https://www.example.org/docs/page?x=1"]
    # nothing fetched, nothing followed that is not http(s) or mailto
    assert not view._follow("javascript:alert(1)", False)
    assert not view._follow("file:///etc/passwd", False)
    assert opened == ["https://www.example.org/docs/page?x=1"]
    # a click on empty board does nothing
    assert not view.click_at(QPointF(2, 2))


def test_the_embed_in_a_note_opens_the_canvas(open_window, qtbot) -> None:
    win = open_window()
    assert win.current_id() == "Home"
    html = win.entry_pane.rendered.html
    assert 'href="vault:Boards/Project%20board.canvas"><img src="figure:canvas-' in html
    win.entry_pane.anchorClicked.emit(QUrl("vault:Boards/Project%20board.canvas"))
    assert _board(win).document_id() == BOARD
    win.go_back()
    win.entry_pane.anchorClicked.emit(QUrl("entry:Boards%2FProject%20board.canvas"))
    assert _board(win).document_id() == BOARD  # [[Project board.canvas]]: the same board


def test_backlinks_list_the_canvas_in_a_group_of_its_own(open_window, qtbot) -> None:
    win = open_window()
    assert win.show_entry("Notes/Project plan")
    model = win.backlinks.model
    titles = [model.data(model.index(r, 0)) for r in range(model.rowCount())]
    assert "from canvas (1)" in titles  # one canvas, three of its cards


def test_a_bad_canvas_is_a_notice_and_what_can_be_drawn_is_drawn(
    open_window, qtbot, vault: Path
) -> None:
    bad = {"nodes": [
        {"id": "ok", "type": "text", "text": "Still here", "x": 0, "y": 0, "width": 200,
         "height": 80},
        {"id": "far", "type": "text", "text": "x", "x": 1e300, "y": 0, "width": 9, "height": 9},
        {"id": "evil", "type": "file", "file": "../../etc/passwd", "x": 0, "y": 200,
         "width": 200, "height": 80},
    ], "edges": [{"id": "e", "fromNode": "ok", "toNode": "ghost"}]}  # fmt: skip
    (vault / "Boards" / "Bad.canvas").write_text(json.dumps(bad), encoding="utf-8")
    (vault / "Boards" / "Not json.canvas").write_text("{ oops", encoding="utf-8")
    win = open_window()
    assert win.open_document("canvas", "Boards/Bad.canvas")
    view = _board(win)
    assert view.notice.isVisible()
    assert "far" in view.notice.text() and "beyond the board" in view.notice.text()
    assert "../../etc/passwd" in view.notice.toolTip() and "ghost" in view.notice.toolTip()
    assert [n.id for n in view.canvas.nodes] == ["ok", "evil"]
    _close_up(view, "evil")
    assert not view.click_at(view.to_view(*view.canvas.node("evil").centre))  # refused
    assert win.open_document("canvas", "Boards/Not json.canvas")
    view = _board(win)
    assert view.canvas.nodes == [] and view.notice.text().startswith("⚠ not JSON (line 1")
    view.repaint()  # "Nothing to draw", no exception
    assert win.show_entry("Home")  # the window goes on
    assert not win.open_document("canvas", "../outside.canvas")


def test_an_edit_on_disk_redraws_the_board_where_the_reader_was(
    open_window, qtbot, vault: Path
) -> None:
    win = open_window()
    assert win.show_entry(BOARD)
    view = _board(win)
    view.zoom(1.6, QPointF(100, 100))
    view.pan(-37, 21)
    scale, origin = view.scale, QPointF(view.origin)
    board = json.loads((vault / BOARD).read_text(encoding="utf-8"))
    board["nodes"].append({"id": "added", "type": "text", "text": "Added elsewhere",
                           "x": 0, "y": 700, "width": 200, "height": 80})  # fmt: skip
    with qtbot.waitSignal(view.reloaded, timeout=5000):
        (vault / BOARD).write_text(json.dumps(board), encoding="utf-8")
    assert view.canvas.node("added") is not None
    assert view.scale == scale and view.origin == origin  # where the reader was
    assert win.tabs.document() is view


def test_both_themes_and_find(open_window, qtbot) -> None:
    win = open_window()
    assert win.show_entry(BOARD)
    view = _board(win)
    light = view.grab().toImage()
    win.set_theme("dark")
    dark = view.grab().toImage()
    # the board's ground follows the theme
    assert light.pixelColor(3, view.height() - 3) != dark.pixelColor(3, view.height() - 3)
    assert view.find_text("zebrafish")
    node = view.canvas.node("text-1")
    assert node is not None and view.visible_rect().contains(QPointF(*node.centre))
    assert not view.find_text("no such words")
    assert view.scroll_to("link-1") and not view.scroll_to("nope")


def test_hovering_a_file_card_previews_its_note(open_window, qtbot) -> None:
    win = open_window()
    assert win.show_entry(BOARD)
    view = _board(win)
    _close_up(view, "file-heading")
    with qtbot.waitSignal(view.linkHovered) as hovered:
        qtbot.mouseMove(view, _spot(view, "file-heading"))
    assert hovered.args == ["Notes/Project plan", "Risks", False]
    # the window previews it as a link in a page: the heading's section
    qtbot.waitUntil(lambda: win.previews.visible, timeout=5000)
    assert "Too many cards." in win.previews.popup.text()
    assert "Intro of the plan" not in win.previews.popup.text()
    with qtbot.waitSignal(view.linkLeft):
        qtbot.mouseMove(view, QPoint(2, 2))


def test_back_returns_to_where_the_reader_was_on_the_board(open_window, qtbot) -> None:
    win = open_window()
    assert win.show_entry(BOARD)
    view = _board(win)
    assert view.scroll_position() == 0  # fitted: a visit opens fitted again
    view.zoom(2.0, QPointF(300, 200))
    view.pan(-120, 45)
    centre = view.to_board(QPointF(view.width() / 2, view.height() / 2))
    scale = view.scale
    # another board in the same view (it reads and fits that one), then back
    assert win.open_document("canvas", "Boards/Sample.canvas")
    assert _board(win) is view and view.document_id() == "Boards/Sample.canvas"
    win.go_back()
    assert view.document_id() == BOARD
    again = view.to_board(QPointF(view.width() / 2, view.height() / 2))
    assert view.scale == pytest.approx(scale, rel=0.01)
    assert (again.x(), again.y()) == (pytest.approx(centre.x(), abs=1),
                                      pytest.approx(centre.y(), abs=1))  # fmt: skip


def test_a_ten_megabyte_card_and_a_background_outside_the_vault(
    open_window, qtbot, vault: Path, tmp_path: Path
) -> None:
    """A text card of 10 MB is cut (a notice says so) and only its head is laid out; a
    group's background that is a link leading out of the vault is never read."""
    from canvas_vault import png

    outside = tmp_path / "outside.png"
    outside.write_bytes(png(rgb=(0, 0, 255)))
    (vault / "Attachments" / "escape.png").symlink_to(outside)
    huge = "A line of a very long card, with **bold** words.\n" * 210_000
    board = {"nodes": [
        {"id": "g", "type": "group", "x": -50, "y": -50, "width": 700, "height": 500,
         "label": "Walled", "background": "Attachments/escape.png"},
        {"id": "huge", "type": "text", "text": huge, "x": 0, "y": 0, "width": 400, "height": 300},
    ]}  # fmt: skip
    (vault / "Boards" / "Huge.canvas").write_text(json.dumps(board), encoding="utf-8")
    win = open_window()
    assert win.open_document("canvas", "Boards/Huge.canvas")
    view = _board(win)
    assert "a text card of 10,290,000 characters" in view.notice.text()
    _close_up(view, "huge")
    card = view._cards[1]
    assert card.doc is not None
    text = card.doc.toPlainText()
    assert len(text) < 25_000 and "the rest of this card is not drawn" in text
    assert view._backgrounds == {"Attachments/escape.png": None}  # refused, not drawn
    pixel = view.grab().toImage().pixelColor(view.to_view(-40, -40).toPoint())
    assert pixel.blue() < 200 or pixel.red() > 100  # no blue from outside the vault
