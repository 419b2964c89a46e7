"""The same hostile vault strings, fed to every place that shows vault text in Qt.

Qt takes any text that *looks like* HTML as rich text, so each place must escape it: the
reader sees the literal string, and no ``<img>``/``<a>``/``<table>`` written in a vault ever
reaches a document (3,000 nested tables crashed the app; ``<img src='/abs/…'>`` loaded an
outside file; ``<a href='vault:paper.sh'>`` made a link to run a script).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtGui
from PySide6.QtCore import QSettings, Qt, QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument
from PySide6.QtWidgets import QLabel
from reader_window import panel_rows

from anthology.ui.graph.graph_view import GraphView
from anthology.ui.panels.backlinks_panel import ROLE_HTML, BacklinksPanel
from anthology.ui.panels.quick_switcher import QuickSwitcher
from anthology.ui.panels.search_panel import SearchPanel
from anthology.ui.reading.entry_pane import EntryPane
from anthology.ui.reading.vault_images import MAX_IMAGE_SIDE
from anthology.vault.backlinks import BacklinksView
from anthology.vault.graph_data import GraphData
from anthology.vault.model import MATCH_END, MATCH_START, EntryRef, LinkRow, SearchHit
from anthology.vault.render import clear_render_cache, preview_html
from anthology.vault.render.safe_text import plain_text

_SAMPLE = Path(__file__).resolve().parents[1] / "vault" / "test_render_sample.py"
_spec = importlib.util.spec_from_file_location("render_sample_for_hostile", _SAMPLE)
assert _spec and _spec.loader
sample = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = sample
_spec.loader.exec_module(sample)

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")

HOSTILE = {
    "nested tables": "<table><tr><td>" * 3000,
    "link": "<a href='vault:paper.sh'>x</a>",
    "passwd image": "<img src='/etc/passwd'>",
    "outside image": "<img src='/abs/x.png'>",
    "unclosed bold": "<b>bold forever",
    "entity": "&lt;not a tag&gt; &amp;",
    "rtl override": "abc\u202edcba\u202c txt.exe",
    "long title": "word " * 20_000,
}
IMAGE = int(QTextDocument.ResourceType.ImageResource)
FORBIDDEN_RESOURCES = ("/etc/passwd", "/abs/x.png", "paper.sh")


def shown(s: str) -> str:
    """What a reader may see of ``s``: all of it but bidi controls, perhaps cut short."""
    return plain_text(s)[:200].strip()


def check_document(doc: QTextDocument, s: str) -> None:
    """The literal string is the text; no anchor, image or table came from it."""
    # bidi controls may be dropped (window titles, tooltips) or kept (inside one paragraph
    # of the pane, where Qt confines them): compare without them, and without the
    # invisible break opportunities the renderer puts in long runs (entry._break_long_runs)
    text = plain_text(doc.toPlainText()).replace("\u200b", "")
    assert shown(s) in text or shown(s) in " ".join(text.split())
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            assert not any(bad in fmt.anchorHref() for bad in FORBIDDEN_RESOURCES)
            if fmt.isImageFormat():
                name = fmt.toImageFormat().name()
                assert not any(bad in name for bad in FORBIDDEN_RESOURCES)
            it += 1
        block = block.next()
    html = doc.toHtml()  # vault text in it is escaped: "&lt;img", never a real tag
    assert not re.search(r"<img\s", html, re.I)
    assert not re.search(r"<a\s[^>]*paper\.sh", html, re.I)
    assert html.lower().count("<table") == 0 or "<td>" * 3000 not in html


def check_tooltip(tip: str, s: str) -> None:
    """A tooltip Qt reads as rich text must show ``s`` literally and load nothing."""
    doc = QTextDocument()
    if QtGui.Qt.mightBeRichText(tip):
        doc.setHtml(tip)
    else:
        doc.setPlainText(tip)
    check_document(doc, s)


class RecordingPane(EntryPane):
    """The real pane, noting every resource its document asks for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def loadResource(self, type_: int, url: QUrl) -> object:
        self.asked.append(url.toString())
        return super().loadResource(type_, url)


@pytest.fixture
def pane(qtbot, tmp_path: Path) -> RecordingPane:
    clear_render_cache()
    widget = RecordingPane()
    qtbot.addWidget(widget)
    widget.resize(900, 800)
    widget.set_vault(sample.make_vault(tmp_path), tmp_path)
    widget.open_external = lambda url: None  # type: ignore[method-assign]
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def hostile_entry(s: str):
    entry = sample.lit_008(body="A body.")
    props = {s: s, "plain key": s}
    return dataclasses.replace(entry, title=s, properties=props, relations=[], cited_by=[])


@pytest.mark.parametrize("name", list(HOSTILE))
def test_entry_pane_shows_hostile_keys_values_and_titles_as_text(
    pane: RecordingPane, name: str
) -> None:
    s = HOSTILE[name]
    pane.show_entry(hostile_entry(s))
    doc = pane.document()
    check_document(doc, s)
    text = plain_text(doc.toPlainText()).replace("\u200b", "")
    assert text.count(shown(s)[:200]) >= 3  # the title, the key, the value
    assert not any(bad in url for url in pane.asked for bad in FORBIDDEN_RESOURCES)
    pane.grab()  # laid out and painted: the nested-table key once crashed here


@pytest.mark.parametrize("name", list(HOSTILE))
def test_link_preview_tooltip_is_text(name: str) -> None:
    s = HOSTILE[name]
    check_tooltip(preview_html(hostile_entry(s)), s)


@pytest.fixture
def graph(qtbot, tmp_path: Path):
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path))
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    view = GraphView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    qtbot.waitExposed(view)
    yield view
    view.shutdown()


def test_graph_node_tooltips_are_text(graph: GraphView) -> None:
    names = list(HOSTILE)
    data = GraphData(
        ids=[f"E{i}" for i in range(len(names))],
        titles=[HOSTILE[n] for n in names],
        kinds=["note"] * len(names),
        tags=[[] for _ in names],
        edges=np.zeros((0, 2), dtype=np.int64),
        relations=[],
    )
    graph.set_graph(data, {f"E{i}": (i * 40.0, 0.0) for i in range(len(names))})
    for i, name in enumerate(names):
        graph.hover(f"E{i}")
        check_tooltip(graph.nodes.toolTip(), HOSTILE[name])


def test_search_rows_show_hostile_titles_and_paths_as_text(qtbot) -> None:
    panel = SearchPanel()
    qtbot.addWidget(panel)
    hits = [
        SearchHit(EntryRef(f"E{i}", s, s + ".md"), "note", "a snippet", 1.0)
        for i, s in enumerate(HOSTILE.values())
    ]
    panel.set_search_function(lambda q: hits)
    panel.search("x")
    assert panel.results.count() == len(HOSTILE)
    for i, s in enumerate(HOSTILE.values()):
        item = panel.results.item(i)
        label = panel.results.itemWidget(item)
        assert isinstance(label, QLabel)
        check_tooltip(label.text(), s)
        check_tooltip(item.toolTip(), s)


def test_a_search_with_a_thousand_filters_says_so_in_the_panel(qtbot, tmp_path: Path) -> None:
    """SQLite's "Expression tree is too large" was a traceback; the panel says why instead,
    and a search it takes still answers."""
    from anthology.vault.index import VaultIndex
    from anthology.vault.query import MAX_QUERY_PARTS

    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "a.md").write_text("Alpha words. #t1\n", encoding="utf-8")
    panel = SearchPanel()
    qtbot.addWidget(panel)
    with VaultIndex.open(vault, tmp_path / "i.sqlite") as idx:
        panel.set_search_function(idx.search)
        panel.search("alpha")
        assert panel.result_ids() == ["a"]
        panel.search(" ".join(f"tag:t{i}" for i in range(1000)))
        assert panel.result_ids() == []
        assert panel.summary.text() == (
            f"The query has 1000 filters and words; search takes at most {MAX_QUERY_PARTS}"
        )
        panel.search("tag:t1 alpha")
        assert panel.result_ids() == ["a"] and panel.summary.text() == "1 result"


def test_quick_switcher_rows_are_text(qtbot) -> None:
    switcher = QuickSwitcher()
    qtbot.addWidget(switcher)
    refs = [EntryRef(f"E{i}", s, s + ".md") for i, s in enumerate(HOSTILE.values())]
    switcher.set_entries([(ref, []) for ref in refs])
    switcher.open_switcher()  # its rows are made when it is opened
    texts = {switcher.list.item(i).text(): i for i in range(switcher.list.count())}
    for i, s in enumerate(HOSTILE.values()):
        row = next(j for t, j in texts.items() if t.startswith(f"E{i} — "))
        item = switcher.list.item(row)
        assert shown(s) in item.text()  # a list item is drawn as plain text
        check_tooltip(item.toolTip(), s)


def backlink_rows(panel: BacklinksPanel) -> list[tuple[str, str]]:
    """Each link row's painted rich text and its tooltip."""
    return [(row.data(ROLE_HTML), row.data(Qt.ItemDataRole.ToolTipRole))
            for row in panel_rows(panel) if row.data(ROLE_HTML) is not None]  # fmt: skip


@pytest.mark.parametrize("name", list(HOSTILE))
def test_backlink_rows_and_their_tooltips_are_text(qtbot, name: str) -> None:
    s = HOSTILE[name]
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    panel.resize(400, 600)
    source = EntryRef("E1", s, s + ".md")
    links = {
        s: [LinkRow(source, None, s, s, False, 2, f"{s}: [[{s}]]")],  # a typed relation
        None: [LinkRow(source, None, s, None, False, 5, f"before [[{s}|{s}]] {s}", alias=s)],
    }
    mention = SearchHit(source, "note", f"a {MATCH_START}{s}{MATCH_END} b", 1.0)
    panel.show_backlinks(
        BacklinksView("X", [(s, 1), (None, 1)], 1, lambda rel, offset, n: links[rel][offset:][:n]),
        [mention],
    )
    rows = backlink_rows(panel)
    assert len(rows) == 3  # the relation, the body link, the unlinked mention
    for html, tip in rows:
        check_tooltip(html, s)  # the row: the source's label, then its context
        check_tooltip(tip, s)
    model = panel.model
    for i in range(model.rowCount()):  # group titles: plain text, no tooltip
        assert model.index(i, 0).data(Qt.ItemDataRole.ToolTipRole) is None
    assert shown(s)[:150] in model.index(0, 0).data()
    panel.tree.expandAll()
    panel.show()
    qtbot.waitExposed(panel)
    panel.grab()  # laid out and painted: 3,000 nested tables once crashed a label
    assert panel.delegate.asked == []  # painting asked for no image, no file
    assert all(
        panel.tree.indexWidget(model.index(k, 0, model.index(i, 0))) is None
        for i in range(model.rowCount())
        for k in range(model.rowCount(model.index(i, 0)))
    )


# ---------------------------------------------------------------------------------------
# attachments: link text can lie, the real file decides
# ---------------------------------------------------------------------------------------
def hrefs_in(pane: EntryPane) -> dict[str, str]:
    """Anchor text → href, of every link the document shows."""
    found: dict[str, str] = {}
    block = pane.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            href = frag.charFormat().anchorHref()
            if href:
                found[found.get(href, "") + frag.text()] = href
            it += 1
        block = block.next()
    return found


@pytest.fixture
def attachment_pane(pane: RecordingPane, tmp_path: Path):
    for name in ("paper.sh", "setup.exe", "run.bat", "page.html", "paper.pdf", "fig.png"):
        (tmp_path / name).write_bytes(b"#!/bin/sh\necho pwned\n")
    opened: list[str] = []
    asked: list[tuple[str, str]] = []
    pane.open_external = lambda url: opened.append(url.toString())  # type: ignore[method-assign]
    pane.answer = False  # type: ignore[attr-defined]

    def ask(parent, rel: str, kind: str) -> bool:  # stands in for the modal question
        asked.append((rel, kind))
        return pane.answer  # type: ignore[attr-defined]

    pane.ask_attachment = ask  # type: ignore[method-assign]
    pane.show_entry(
        sample.lit_008(
            body="[Read the paper (PDF)](paper.sh) and [[setup.exe|Slides]] and "
            "[notes](run.bat) and [page](page.html) and [the PDF](paper.pdf) "
            "and [figure](fig.png) and [mail](mailto:a@b.c) and [web](https://example.org)"
        )
    )
    return pane, opened, asked, tmp_path


def test_a_lying_link_text_asks_naming_the_real_file(attachment_pane) -> None:
    pane, opened, asked, _root = attachment_pane
    links = hrefs_in(pane)
    for text, rel, kind in [
        ("Read the paper (PDF)", "paper.sh", "a .sh file"),
        ("Slides", "setup.exe", "a .exe file"),
        ("notes", "run.bat", "a .bat file"),
        ("page", "page.html", "a .html file"),
    ]:
        pane.anchorClicked.emit(QUrl(links[text]))
        assert asked[-1] == (rel, kind)
    assert opened == []  # cancelled: nothing was handed to the system


def test_show_in_folder_opens_the_folder_never_the_file(attachment_pane) -> None:
    pane, opened, _asked, root = attachment_pane
    pane.answer = True
    pane.anchorClicked.emit(QUrl(hrefs_in(pane)["Read the paper (PDF)"]))
    assert opened == [QUrl.fromLocalFile(str(root.resolve())).toString()]


def test_documents_and_media_open_directly(attachment_pane) -> None:
    """Without a question: a picture with the system, a PDF in the app's viewer tab."""
    pane, opened, asked, _root = attachment_pane
    links = hrefs_in(pane)
    in_tabs: list[tuple[str, str, bool]] = []
    pane.documentRequested.connect(lambda *request: in_tabs.append(request))
    pane.anchorClicked.emit(QUrl(links["the PDF"]))
    pane.anchorClicked.emit(QUrl(links["figure"]))
    assert asked == [] and in_tabs == [("pdf", "paper.pdf", False)]
    assert [Path(QUrl(u).toLocalFile()).name for u in opened] == ["fig.png"]


def test_only_web_and_mail_urls_reach_the_browser(attachment_pane) -> None:
    pane, opened, asked, _root = attachment_pane
    links = hrefs_in(pane)
    pane.anchorClicked.emit(QUrl(links["web"]))
    pane.anchorClicked.emit(QUrl(links["mail"]))
    for url in ("file:///etc/passwd", "smb://host/x", "javascript:alert(1)", "ftp://x/y"):
        pane.anchorClicked.emit(QUrl(url))
    assert opened == ["https://example.org", "mailto:a@b.c"]
    assert asked == []


# ---------------------------------------------------------------------------------------
# SVG attachments: no outside file drawn, no gigabyte allocation
# ---------------------------------------------------------------------------------------
def test_an_svg_cannot_draw_an_outside_image(pane: RecordingPane, tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.png"
    red = QImage(40, 40, QImage.Format.Format_ARGB32)
    red.fill(QColor("red"))
    assert red.save(str(outside))
    (tmp_path / "img" / "evil.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="40" height="40"><image xlink:href="{outside}" width="40" height="40"/>'
        f'<image href="file://{outside}" width="40" height="40"/></svg>'
    )
    pane.show_entry(sample.lit_008(body="![[img/evil.svg]]"))
    pane.grab()
    image = pane.loadResource(
        int(QTextDocument.ResourceType.ImageResource), QUrl("vault:img/evil.svg")
    )
    assert isinstance(image, QImage) and not image.isNull()
    pixel = image.pixelColor(image.width() // 2, image.height() // 2)
    assert pixel.alpha() == 0  # the outside red picture was not drawn


def test_an_svg_declaring_12000_pixels_is_drawn_small(pane: RecordingPane, tmp_path: Path) -> None:
    bomb = b'<svg xmlns="http://www.w3.org/2000/svg" width="12000" height="12000"/>'
    assert len(bomb) < 110
    (tmp_path / "img" / "bomb.svg").write_bytes(bomb)
    pane.show_entry(sample.lit_008(body="![[img/bomb.svg]]"))
    pane.grab()
    image = pane.loadResource(
        int(QTextDocument.ResourceType.ImageResource), QUrl("vault:img/bomb.svg")
    )
    assert isinstance(image, QImage) and not image.isNull()
    assert max(image.width(), image.height()) <= MAX_IMAGE_SIDE
    assert image.sizeInBytes() < 100 * 1024 * 1024  # was 2.3 GB


# ---------------------------------------------------------------------------------------
# long entries render off the GUI thread; a newer navigation wins
# ---------------------------------------------------------------------------------------
def test_long_entries_render_in_the_background(qtbot, pane: RecordingPane) -> None:
    pane.background_render_chars = 1000
    body = "\n\n".join(f"## Part {i}\n\nText of part {i}." for i in range(300))
    with qtbot.waitSignal(pane.renderFinished, timeout=20000):
        pane.show_entry(sample.lit_008(body=body))
        assert pane.rendering
        text = pane.toPlainText()
        assert "Attention Is All You Need" in text and "Rendering…" in text
        assert pane.scroll_to_heading("Part 250")  # remembered until the page is there
    assert not pane.rendering
    assert "Part 299" in pane.toPlainText() and "Rendering…" not in pane.toPlainText()
    assert pane.verticalScrollBar().value() > 0


def test_a_short_body_under_100k_properties_renders_in_the_background(
    qtbot, pane: RecordingPane
) -> None:
    """Issue 28: a line of body under 100k front-matter keys was rendered on the GUI
    thread (and its Properties box was 16 MB): now off the thread, and the box bounded."""
    pane.background_render_chars = 20_000  # as the window sets it
    props = {f"k{i}": i for i in range(100_000)}
    with qtbot.waitSignal(pane.renderFinished, timeout=20000):
        pane.show_entry(sample.lit_008(body="A legal note.", properties=props, relations=[]))
        assert pane.rendering
    from anthology.vault.render.context import MAX_PROPERTY_ROWS

    lines = pane.toPlainText().splitlines()
    assert "A legal note." in lines and f"K{MAX_PROPERTY_ROWS - 1}" in lines
    assert f"K{MAX_PROPERTY_ROWS}" not in lines
    assert any(line.endswith("more, not shown") for line in lines)


def test_a_stale_background_render_is_dropped(qtbot, pane: RecordingPane) -> None:
    pane.background_render_chars = 1000
    long_body = "\n\n".join(f"Stale paragraph {i}." for i in range(500))
    pane.show_entry(sample.lit_008(body=long_body))
    pane.show_entry(sample.lit_008(body="The short, newer entry."))  # on the GUI thread
    assert "newer entry" in pane.toPlainText()
    qtbot.waitUntil(lambda: not pane.busy, timeout=20000)  # the stale render has ended
    qtbot.wait(50)
    assert "newer entry" in pane.toPlainText()
    assert "Stale paragraph" not in pane.toPlainText()


def test_images_through_a_symlink_out_of_the_vault_are_not_loaded(
    pane: RecordingPane, tmp_path: Path
) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-secret.png"
    red = QImage(40, 40, QImage.Format.Format_ARGB32)
    red.fill(QColor("red"))
    assert red.save(str(outside))
    (tmp_path / "img" / "link.png").symlink_to(outside)
    pane.show_entry(sample.lit_008(body="![[img/link.png]] ![x](img/link.png)"))
    pane.grab()
    image = pane.loadResource(IMAGE, QUrl("vault:img/link.png"))
    assert isinstance(image, QImage)
    assert image.pixelColor(20, 20) != QColor("red")  # a placeholder, not the file


def test_the_window_title_is_cut_and_free_of_bidi_controls(qtbot, tmp_path: Path) -> None:
    from anthology.ui.window.main_window import MainWindow

    vault = tmp_path / "vault"
    vault.mkdir()
    title = "\u202eexe.txt " + "word " * 20_000
    (vault / "X-1.md").write_text(f'---\nid: X-1\ntitle: "{title}"\n---\nBody.\n')
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(vault, db=tmp_path / "index.sqlite", settings=settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.settled, timeout=20000)
    qtbot.waitUntil(lambda: not win.indexing, timeout=20000)
    assert win.show_entry("X-1")
    shown_title = win.windowTitle()
    assert shown_title.startswith("X-1 — exe.txt word word")
    assert "\u202e" not in shown_title and len(shown_title) < 500
    assert shown_title.endswith("— Anthology")
    win.close()


def test_bidi_controls_never_reach_a_title_shown_outside_the_pane(
    qtbot, tmp_path: Path, settings: QSettings
) -> None:
    """Issue 28: "\u202egnp.exe" read "exe.png" in the graph's label. The window title,
    the tab, every graph label, relation label and legend item, the filter lists, the
    backlinks rows, the switcher and the path chain say it without the control."""
    from reader_window import panel_rows, window_opener, write_files

    from anthology.vault.shown import BIDI_CONTROLS

    vault = write_files(
        tmp_path / "vault",
        {
            "HOME.md": '---\ntitle: "\u202egnp.exe"\n---\nSee [[B]].\n',
            "B.md": '---\ntitle: "x\u2067y\u202bz"\n"\u202erel": "[[HOME]]"\n---\nBack [[HOME]].\n',
            "\u202eexe.txt.md": "Named with an override, no title. [[HOME]]\n",
        },
    )
    opener = window_opener(qtbot, vault, tmp_path, settings, entry="HOME")
    make = next(opener)
    win = make()

    def clean(text: str) -> bool:
        return not BIDI_CONTROLS.intersection(text)

    assert "gnp.exe" in win.windowTitle() and clean(win.windowTitle())
    tabs = win.tabs.tabBar()
    assert all(clean(tabs.tabText(i)) for i in range(tabs.count()))
    graph = win.graph
    graph.set_local(False)
    qtbot.waitUntil(lambda: len(graph.shown_ids()) == 3, timeout=10000)
    labels = [graph.labels.label(i, full) for i in range(3) for full in (True, False)]
    assert "gnp.exe" in labels and all(clean(t) for t in labels), labels
    assert all(clean(t) for t in graph.labels._rel_text if t)
    assert all(clean(item) for item in graph.legend._items)
    graph.controls_button.setChecked(True)  # the controls panel opened
    relations = graph.controls.relations
    assert all(clean(relations.item(r).text()) for r in range(relations.count()))
    rows = [row.data(ROLE_HTML) or row.data() for row in panel_rows(win.backlinks)]
    assert rows and all(clean(str(r)) for r in rows)
    win.open_switcher()
    qtbot.keyClicks(win.switcher.input, "exe")
    items = [win.switcher.list.item(r).text() for r in range(win.switcher.list.count())]
    assert items and all(clean(t) for t in items), items
    win.switcher.hide()
    dialog = win.open_find_path("HOME", "B")
    qtbot.waitUntil(lambda: not dialog.searching and bool(dialog.paths()), timeout=10000)
    shown = [dialog.status.text(), dialog.chain.text(), dialog.results.item(0).text()]
    assert all(clean(t) for t in shown), shown
    dialog.reject()
    opener.close()
