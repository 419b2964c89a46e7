"""Mermaid diagrams in the entry pane (issue 31): the text at once, each diagram as it
comes, drawn off the GUI thread; a revisit draws nothing; a linked node opens its entry;
a diagram that cannot be drawn shows its source and why; leaving the entry stops a
diagram the renderer does not finish."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage, QTextDocument

from anthology.palette import theme
from anthology.ui.reading.diagram_images import line_x, picture_positions
from anthology.ui.reading.entry_pane import EntryPane
from anthology.ui.reading.page_preview import PreviewBrowser
from anthology.ui.window.print_export import export_html, pdf_bytes
from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache, mermaid
from anthology.vault.render.previews import render_preview

VAULT = Path(__file__).resolve().parents[1] / "vaults" / "mermaid"
HELP = "Diagrams/Mermaid from the help page"
ENDLESS = "journey\n  title Every day\n  section Work\n" + "\n".join(
    f"    Task {i}: 5: Me" for i in range(2000)
)  # mmdr takes seconds over it (quadratic): stands for a diagram it never finishes


@pytest.fixture
def index(tmp_path: Path):
    mermaid.clear_memory()
    clear_render_cache()
    root = tmp_path / "vault"
    shutil.copytree(VAULT, root)
    (root / "Diagrams" / "Endless.md").write_text(
        f"Before.\n\n```mermaid\n{ENDLESS}\n```\n\nAfter.\n", encoding="utf-8"
    )
    with VaultIndex.open(root, tmp_path / "i.sqlite") as idx:
        yield idx


@pytest.fixture
def pane(qtbot, index: VaultIndex) -> EntryPane:
    widget = EntryPane()
    qtbot.addWidget(widget)
    widget.resize(900, 1400)
    widget.set_vault(index, index.root)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def show(pane: EntryPane, index: VaultIndex, entry_id: str) -> None:
    entry = index.entry(entry_id)
    assert entry is not None, entry_id
    pane.show_entry(entry)


def diagram_keys(pane: EntryPane) -> list[str]:
    assert pane.rendered is not None
    return list(mermaid.diagrams_of(pane.rendered.resources))


def shown_image(pane: EntryPane, key: str) -> QImage:
    image = pane.document().resource(QTextDocument.ResourceType.ImageResource, key)
    assert isinstance(image, QImage)
    return image


def test_text_first_then_each_diagram_as_it_comes(qtbot, pane: EntryPane, index) -> None:
    show(pane, index, HELP)
    # the page is there at once, every diagram still to come
    text = pane.toPlainText()
    assert "The diagrams of Obsidian" in text and "The end of the page." in text
    assert pane.drawing_diagrams
    keys = diagram_keys(pane)
    assert len(keys) == 4
    assert not any(k in pane._images for k in keys)
    qtbot.waitUntil(lambda: all(k in pane._images for k in keys), timeout=30_000)
    for key in keys:
        image = shown_image(pane, key)
        outcome = mermaid.cached(mermaid.Diagram.from_bytes(pane.rendered.resources[key]))
        assert isinstance(outcome, mermaid.Drawn)
        # crisp: at least two device pixels a px, at the diagram's own size
        assert image.devicePixelRatio() >= 2
        assert round(image.width() / image.devicePixelRatio()) == round(outcome.width)
    assert "The end of the page." in pane.toPlainText()


def test_a_revisit_draws_nothing(qtbot, pane: EntryPane, index) -> None:
    show(pane, index, HELP)
    keys = diagram_keys(pane)
    qtbot.waitUntil(lambda: all(k in pane._images for k in keys), timeout=30_000)
    show(pane, index, "Sciences/Biology")
    mermaid.stop_child()
    show(pane, index, HELP)
    assert not pane.drawing_diagrams
    assert all(k in pane._images for k in keys)
    assert mermaid.child_pid() is None  # the renderer was not asked again


def test_a_new_pane_takes_the_diagrams_from_the_cache(qtbot, pane, index) -> None:
    show(pane, index, HELP)
    keys = diagram_keys(pane)
    qtbot.waitUntil(lambda: all(k in pane._images for k in keys), timeout=30_000)
    mermaid.stop_child()
    mermaid.clear_memory()  # as after a restart: the disk cache only
    other = EntryPane()
    qtbot.addWidget(other)
    other.resize(900, 1400)
    other.set_vault(index, index.root)
    show(other, index, HELP)
    assert not other.drawing_diagrams
    assert all(k in other._images for k in keys)
    assert mermaid.child_pid() is None


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_nodes_are_in_the_themes_colours(qtbot, pane: EntryPane, index, theme_name) -> None:
    pane.set_theme(theme_name)
    show(pane, index, HELP)
    keys = diagram_keys(pane)
    qtbot.waitUntil(lambda: all(k in pane._images for k in keys), timeout=30_000)
    linked = keys[2]  # Biology → Chemistry, linked: its node boxes are known
    outcome = mermaid.cached(mermaid.Diagram.from_bytes(pane.rendered.resources[linked]))
    assert isinstance(outcome, mermaid.Drawn)
    image = shown_image(pane, linked)
    left, top, _right, bottom = outcome.links[0].box
    x = round((left + 0.06) * image.width())  # inside the node, off its label
    y = round((top + bottom) / 2 * image.height())
    fill = QColor(image.pixel(x, y))
    want = QColor(theme(theme_name).entry.chip_bg)
    assert max(abs(fill.red() - want.red()), abs(fill.green() - want.green()),
               abs(fill.blue() - want.blue())) <= 3  # fmt: skip


def node_point(pane: EntryPane, key: str, which: int) -> QPoint:
    """Viewport coordinates of the middle of linked node ``which`` of diagram ``key``."""
    outcome = mermaid.cached(mermaid.Diagram.from_bytes(pane.rendered.resources[key]))
    assert isinstance(outcome, mermaid.Drawn)
    left, top, right, bottom = outcome.links[which].box
    return picture_point(pane, key, (left + right) / 2, (top + bottom) / 2)


def picture_point(pane: EntryPane, key: str, fx: float, fy: float) -> QPoint:
    """Viewport coordinates of the point (``fx``, ``fy``: fractions) of picture ``key``,
    scrolled into view."""
    doc = pane.document()
    at = picture_positions(doc, key)[0]
    block = doc.findBlock(at)
    line = block.layout().lineForTextPosition(at - block.position())
    origin = doc.documentLayout().blockBoundingRect(block).topLeft()
    image = shown_image(pane, key)
    width = image.width() / image.devicePixelRatio()
    height = image.height() / image.devicePixelRatio()
    left = origin.x() + line_x(line, at - block.position())
    top = origin.y() + line.y() + line.ascent() - height
    point = QPointF(left + fx * width, top + fy * height)
    pane.verticalScrollBar().setValue(int(point.y()) - 200)
    return QPoint(round(point.x()), round(point.y()) - pane.verticalScrollBar().value())


# a click off any link is left unaccepted by QTextBrowser, and QTest says so
@pytest.mark.qt_log_ignore('Mouse event "MouseRelease" not accepted')
def test_clicking_a_linked_node_opens_its_entry(qtbot, pane: EntryPane, index) -> None:
    show(pane, index, HELP)
    keys = diagram_keys(pane)
    qtbot.waitUntil(lambda: all(k in pane._images for k in keys), timeout=30_000)
    for key, which, want in ((keys[2], 0, "Sciences/Biology"), (keys[3], 1, "Sciences/Chemistry")):
        point = node_point(pane, key, which)
        with qtbot.waitSignal(pane.entryLinkActivated, timeout=2000) as blocker:
            qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=point)
        assert blocker.args == [want, ""]
    # Ctrl+click: a new tab
    point = node_point(pane, keys[2], 1)
    with qtbot.waitSignal(pane.entryLinkActivatedNewTab, timeout=2000) as blocker:
        qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ControlModifier, point)  # fmt: skip
    assert blocker.args == ["Sciences/Chemistry", ""]
    # the same nodes not linked (the help page's plain Biology → Chemistry) open nothing,
    # nor does the linked diagram off its nodes
    for key, fx, fy in ((keys[1], 0.5, 0.2), (keys[1], 0.5, 0.8), (keys[2], 0.5, 0.5)):
        point = picture_point(pane, key, fx, fy)
        with qtbot.assertNotEmitted(pane.entryLinkActivated, wait=50):
            qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_a_diagram_that_cannot_be_drawn_shows_its_source(qtbot, pane, index) -> None:
    show(pane, index, "Diagrams/Broken diagrams")
    qtbot.waitUntil(lambda: not pane.drawing_diagrams, timeout=30_000)
    qtbot.waitUntil(lambda: pane.toPlainText().count("could not be drawn") == 2, timeout=5000)
    text = pane.toPlainText()
    assert "unexpected edge operator" in text and "A --> --> B[[[" in text
    assert "names no kind of Mermaid diagram" in text and "this is not a diagram" in text
    assert "Before the broken ones." in text and "After the broken ones." in text
    assert not any(picture_positions(pane.document(), k) for k in diagram_keys(pane))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_leaving_the_entry_stops_a_diagram_never_finished(qtbot, pane, index) -> None:
    mermaid.stop_child()
    show(pane, index, "Diagrams/Endless")
    assert "Before." in pane.toPlainText() and "After." in pane.toPlainText()
    qtbot.waitUntil(lambda: mermaid.child_pid() is not None, timeout=10_000)
    pid = mermaid.child_pid()
    assert pid is not None
    show(pane, index, HELP)  # the reader goes on
    qtbot.waitUntil(lambda: not alive(pid), timeout=10_000)
    keys = diagram_keys(pane)  # and the new page's diagrams are drawn by a new process
    qtbot.waitUntil(lambda: all(k in pane._images for k in keys), timeout=30_000)
    assert mermaid.cached(mermaid.Diagram(ENDLESS)) is None  # not taken for a failure


def test_the_window_waits_on_no_diagram(qtbot, pane, index, monkeypatch) -> None:
    """show_entry never draws: the renderer is asked only from the drawer's thread."""
    asked: list[str] = []
    real = mermaid._ask_child

    def ask(request, state, timeout):
        import threading

        asked.append(threading.current_thread().name)
        return real(request, state, timeout)

    monkeypatch.setattr(mermaid, "_ask_child", ask)
    import threading

    gui = threading.current_thread().name
    show(pane, index, HELP)
    keys = diagram_keys(pane)
    qtbot.waitUntil(lambda: all(k in pane._images for k in keys), timeout=30_000)
    assert len(asked) == 4 and gui not in asked


def test_exports_carry_the_diagrams(qtbot, pane, index, tmp_path) -> None:
    show(pane, index, HELP)  # exported at once: the diagrams still coming are drawn now
    data = pdf_bytes(pane)
    assert data.startswith(b"%PDF") and data.count(b"/Subtype /Image") >= 4
    out = tmp_path / "help.html"
    export_html(pane, out)
    page = out.read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 4 and "mermaid:" not in page


def test_the_page_preview_draws_the_diagrams(qtbot, index) -> None:
    entry = index.entry(HELP)
    assert entry is not None
    browser = PreviewBrowser()
    qtbot.addWidget(browser)
    browser.resize(480, 380)
    rendered = render_preview(entry, index, fragment="", theme="light")
    browser.show_rendered(rendered, "", index.root)
    browser.show()
    keys = list(mermaid.diagrams_of(rendered.resources))
    assert keys
    qtbot.waitUntil(
        lambda: all(isinstance(mermaid._memory.peek(k), mermaid.Drawn) for k in keys[:1]),
        timeout=30_000,
    )
    qtbot.waitUntil(lambda: shown_image_of(browser, keys[0]).width() > 240 * 2, timeout=5000)


def shown_image_of(browser: PreviewBrowser, key: str) -> QImage:
    image = browser.document().resource(QTextDocument.ResourceType.ImageResource, key)
    return image if isinstance(image, QImage) else QImage()


def test_pointing_at_a_linked_node_says_where_it_leads(qtbot, pane, index) -> None:
    show(pane, index, HELP)
    keys = diagram_keys(pane)
    qtbot.waitUntil(lambda: all(k in pane._images for k in keys), timeout=30_000)
    point = node_point(pane, keys[3], 0)
    with qtbot.waitSignal(pane.linkHovered, timeout=2000) as blocker:
        qtbot.mouseMove(pane.viewport(), point)
    assert blocker.args == ["Sciences/Biology", "", False]
    assert pane.viewport().cursor().shape() == Qt.CursorShape.PointingHandCursor
    off = picture_point(pane, keys[1], 0.5, 0.5)  # a diagram without links
    with qtbot.waitSignal(pane.linkLeft, timeout=2000):
        qtbot.mouseMove(pane.viewport(), off)


def test_a_wide_diagram_fits_the_column_and_follows_the_pane(qtbot, pane, index) -> None:
    show(pane, index, "Diagrams/Every kind 📊")
    keys = diagram_keys(pane)
    qtbot.waitUntil(lambda: all(k in pane._images for k in keys), timeout=30_000)
    flowchart = keys[0]  # left to right: wider than the column
    drawn = mermaid.cached(mermaid.Diagram.from_bytes(pane.rendered.resources[flowchart]))
    assert isinstance(drawn, mermaid.Drawn) and drawn.width > pane._text_width()

    def shown_width() -> float:
        image = shown_image(pane, flowchart)
        return image.width() / image.devicePixelRatio()

    assert shown_width() == pane._text_width()
    pane.set_reading(pane.reading_style, readable=False)  # the text as wide as the pane
    assert shown_width() == pane._text_width()
    pane.resize(520, 1400)
    qtbot.waitUntil(lambda: shown_width() == pane._text_width(), timeout=5000)
    assert shown_width() < 500
    assert shown_image(pane, flowchart).devicePixelRatio() >= 2  # still crisp


@pytest.mark.qt_log_ignore('Mouse event "MouseRelease" not accepted')
def test_a_linked_node_naming_no_entry_is_an_unresolved_link(qtbot, pane, index) -> None:
    (index.root / "Physics links.md").write_text(
        "```mermaid\nflowchart LR\nP[Physics] --> B[Biology]\nclass P,B internal-link;\n```\n",
        encoding="utf-8",
    )
    index.refresh()
    show(pane, index, "Physics links")
    keys = diagram_keys(pane)
    qtbot.waitUntil(lambda: all(k in pane._images for k in keys), timeout=30_000)
    with qtbot.waitSignal(pane.unresolvedLinkActivated, timeout=2000) as blocker:
        qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton,
                         pos=node_point(pane, keys[0], 0))  # fmt: skip
    assert blocker.args == ["Physics"]
    with qtbot.waitSignal(pane.entryLinkActivated, timeout=2000) as blocker:
        qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton,
                         pos=node_point(pane, keys[0], 1))  # fmt: skip
    assert blocker.args == ["Sciences/Biology", ""]


def test_the_page_preview_shows_a_failure_as_source(qtbot, index) -> None:
    entry = index.entry("Diagrams/Broken diagrams")
    assert entry is not None
    browser = PreviewBrowser()
    qtbot.addWidget(browser)
    browser.resize(480, 380)
    browser.show_rendered(render_preview(entry, index, fragment="", theme="dark"), "", index.root)
    browser.show()
    qtbot.waitUntil(lambda: browser.toPlainText().count("could not be drawn") == 2, timeout=30_000)
    text = browser.toPlainText()
    assert "A --> --> B[[[" in text and "After the broken ones." in text
