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
from PySide6.QtCore import QSettings, QUrl
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from anthology.ui.entry_pane import EntryPane
from anthology.ui.graph_view import GraphView
from anthology.ui.quick_switcher import QuickSwitcher
from anthology.ui.search_panel import SearchPanel
from anthology.vault.graph_data import GraphData
from anthology.vault.model import EntryRef, SearchHit
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
FORBIDDEN_RESOURCES = ("/etc/passwd", "/abs/x.png", "paper.sh")


def shown(s: str) -> str:
    """What a reader may see of ``s``: all of it but bidi controls, perhaps cut short."""
    return plain_text(s)[:200].strip()


def check_document(doc: QTextDocument, s: str) -> None:
    """The literal string is the text; no anchor, image or table came from it."""
    # bidi controls may be dropped (window titles, tooltips) or kept (inside one paragraph
    # of the pane, where Qt confines them): compare without them
    text = plain_text(doc.toPlainText())
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
    text = plain_text(doc.toPlainText())
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


def test_quick_switcher_rows_are_text(qtbot) -> None:
    switcher = QuickSwitcher()
    qtbot.addWidget(switcher)
    refs = [EntryRef(f"E{i}", s, s + ".md") for i, s in enumerate(HOSTILE.values())]
    switcher.set_entries([(ref, []) for ref in refs])
    texts = {switcher.list.item(i).text(): i for i in range(switcher.list.count())}
    for i, s in enumerate(HOSTILE.values()):
        row = next(j for t, j in texts.items() if t.startswith(f"E{i} — "))
        item = switcher.list.item(row)
        assert shown(s) in item.text()  # a list item is drawn as plain text
        check_tooltip(item.toolTip(), s)


def test_backlink_rows_are_left_to_the_backlinks_helper() -> None:
    # TODO(lead): add BacklinksPanel rows (their QLabel text and item tooltips) to the
    # shared places above once backlinks_panel escapes them; today its row tooltip is the
    # raw label (f"{label}\n…"), which Qt reads as rich text. Another helper rewrites the
    # panel; this file does not touch it.
    pytest.skip("backlinks_panel.py is rewritten by another helper; see the TODO")
