"""Run in a child process by bench_window.py: clicks in the real window, timed.

    python click_child.py VAULT DB SETTINGS HUB ROUNDS

Offscreen, a real MainWindow; each round clicks, through Qt mouse events, a link in the
entry (one round in three to the vault's biggest hub), a node of the graph and a row of
the backlinks panel (when nothing links to the node's entry, of the entry its first link
names, opened untimed). Each click is timed to the entry's first paint (an event filter on
the pane's viewport) and to everything updated (the events the click posted handled, the
backlinks and the graph repainted). Every click, the first too, comes after half a second
of the window's event loop running (the reader reading). Prints one JSON object:
{"painted": {kind: [s…]}, "updated": {kind: [s…]}, "start": s to the first painted entry}.
"""

import json
import os
import sys
import time
from urllib.parse import unquote

t_start = time.time()
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from pathlib import Path  # noqa: E402

from PySide6.QtCore import QEvent, QObject, QSettings, Qt  # noqa: E402
from PySide6.QtGui import QTextCursor  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

try:  # the window in rooms (issue 30); the flat ui/ of a base commit before it
    from anthology.ui.window.main_window import MainWindow
except ImportError:
    from anthology.ui.main_window import MainWindow  # type: ignore[no-redef]

vault, db, ini, hub, rounds = (
    Path(sys.argv[1]),
    Path(sys.argv[2]),
    sys.argv[3],
    sys.argv[4],
    int(sys.argv[5]),
)
app = QApplication([])
win = MainWindow(vault, db=db, settings=QSettings(ini, QSettings.Format.IniFormat))
win.resize(1400, 900)
win.show()
while not win.ready:
    app.processEvents()
app.processEvents()
win.entry_pane.viewport().repaint()
start = time.time() - t_start
deadline = time.monotonic() + 60
while not win.settled and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.002)


LEFT, NO_KEYS = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier


class PaintClock(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.first: float | None = None

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Paint and self.first is None:
            self.first = time.perf_counter()
        return False


clock = PaintClock()
watched = None


def settle(seconds: float = 0.5) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.005)
    win.backlinks.wait_unlinked()
    app.processEvents()


def timed(click) -> tuple[float, float] | None:
    global watched
    viewport = win.entry_pane.viewport()
    if watched is not viewport:
        if watched is not None:
            watched.removeEventFilter(clock)
        viewport.installEventFilter(clock)
        watched = viewport
    before = win.current_id()
    clock.first = None
    t0 = time.perf_counter()
    click()  # Qt delivers the press and release now: the window's handlers run in it
    if win.current_id() == before:
        return None
    if clock.first is None:  # not painted by the handler: the next paint is the pane's
        app.processEvents()
        win.entry_pane.viewport().repaint()
    painted = (clock.first or time.perf_counter()) - t0
    win.backlinks.tree.viewport().repaint()  # the panels as updated by the click
    if win.graph is not None:
        win.graph.view.viewport().repaint()
    updated = time.perf_counter() - t0
    return painted, updated


def first_link(prefer: str | None = None):
    """The first fragment of the entry's text that links to another entry (to ``prefer``
    if given), or None."""
    doc = win.entry_pane.document()
    best = None
    block = doc.begin()
    while block.isValid() and best is None:
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            href = frag.charFormat().anchorHref()
            other = href.startswith("entry:") and not href.startswith(f"entry:{win.current_id()}")
            if other and (prefer is None or href.split("#")[0] == f"entry:{prefer}"):
                best = frag
                break
            it += 1
        block = block.next()
    return best


def link_click(prefer: str | None) -> tuple[float, float] | None:
    pane = win.entry_pane
    doc = pane.document()
    best = first_link(prefer)
    if best is None:
        return None
    cursor = QTextCursor(doc)
    cursor.setPosition(best.position() + max(1, best.length() // 2))
    pane.setTextCursor(cursor)
    pane.ensureCursorVisible()
    app.processEvents()
    point = pane.cursorRect(cursor).center()
    return timed(lambda: QTest.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton,
                                          Qt.KeyboardModifier.NoModifier, point))  # fmt: skip


def node_click() -> tuple[float, float] | None:
    g = win.graph
    if g is None:
        return None
    vp = g.view.viewport()
    # The same node on every commit compared: the entry's first link's, where the graph
    # draws it (the first node in view depended on the layout and the fit, so two commits
    # clicked different entries: one a page kept from before, the other one to render).
    link = first_link()
    if link is not None:
        target = unquote(link.charFormat().anchorHref().removeprefix("entry:").split("#")[0])
        point = g.node_viewport_pos(target)
        if point is not None and vp.rect().adjusted(20, 20, -20, -20).contains(point):
            return timed(lambda p=point: QTest.mouseClick(vp, LEFT, NO_KEYS, p))
    for entry_id in g.shown_ids():
        if entry_id == win.current_id():
            continue
        point = g.node_viewport_pos(entry_id)  # public on this commit and the base alike
        if point is not None and vp.rect().adjusted(20, 20, -20, -20).contains(point):
            return timed(lambda p=point: QTest.mouseClick(vp, LEFT, NO_KEYS, p))
    return None


def backlink_click() -> tuple[float, float] | None:
    try:
        from anthology.ui.panels.backlinks_panel import ROLE_ID
    except ImportError:  # a base commit before the rooms
        from anthology.ui.backlinks_panel import ROLE_ID  # type: ignore[no-redef]

    tree = win.backlinks.tree
    model = tree.model()
    linked = win.backlinks.groups().items()
    if not any(ids for title, ids in linked if not title.startswith("Unlinked")):
        # An entry nothing links to (a graph node often is): first, untimed, to the entry
        # its first link names, which has this one's link at least.
        link = first_link()
        if link is None:
            return None
        href = link.charFormat().anchorHref().removeprefix("entry:").split("#")[0]
        win.show_entry(unquote(href))
        settle()
    tree.expandAll()
    app.processEvents()
    for g in range(model.rowCount()):
        parent = model.index(g, 0)
        for r in range(min(5, model.rowCount(parent))):
            index = model.index(r, 0, parent)
            if index.data(ROLE_ID) and index.data(ROLE_ID) != win.current_id():
                tree.scrollTo(index)
                app.processEvents()
                rect = tree.visualRect(index)
                if rect.isValid():
                    point = rect.center()
                    return timed(lambda p=point: QTest.mouseClick(
                        tree.viewport(), Qt.MouseButton.LeftButton,
                        Qt.KeyboardModifier.NoModifier, p))  # fmt: skip
    return None


# As between clicks, the reader reads before the first: the window's deferred work (the
# explorer's layout, the start-up warm-up of the highlighter) is done by then, as it is for
# anyone who looks at the first entry before clicking; without this the first click of each
# process paid for it (~0.15-0.3 s) and decided the hub's slowest figure.
settle()
painted: dict[str, list[float]] = {"link": [], "hub": [], "node": [], "backlink": []}
updated: dict[str, list[float]] = {k: [] for k in painted}
for k in range(rounds):
    for kind, click in (
        ("hub" if k % 3 == 0 else "link", lambda k=k: link_click(hub if k % 3 == 0 else None)),
        ("node", node_click),
        ("backlink", backlink_click),
    ):
        result = click()
        if result is None and kind == "hub":  # no link to the hub here: any link
            kind, result = "link", link_click(None)
        if result is not None:
            painted[kind].append(result[0])
            updated[kind].append(result[1])
        settle()
print(json.dumps({"painted": painted, "updated": updated, "start": start}))
win.close()
