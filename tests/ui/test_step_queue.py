"""The GUI thread's one queue of pieces of work (ui/common/step_queue.py): chains take turns,
a pass of the event loop stops once its budget is spent, and what competes for the
interpreter waits until the pieces are done. Time here is a fake clock the pieces move:
no wall-clock limit."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, QSettings

from anthology.ui.common import step_queue as sq
from anthology.ui.panels.backlinks_panel import BacklinksPanel
from anthology.vault.backlinks import BacklinksView
from anthology.vault.model import SearchHit


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def queue(qapp, monkeypatch) -> tuple[sq.StepQueue, Clock]:
    clock = Clock()
    monkeypatch.setattr(sq, "_clock", clock)
    q = sq.StepQueue()
    yield q, clock
    q.deleteLater()


def _chain(q: sq.StepQueue, clock: Clock, name: str, pieces: int, cost: float,
           log: list[tuple[str, int, int]]) -> None:  # fmt: skip
    """A chain that posts its next piece when the current one is done (as the window's do):
    each piece costs ``cost`` s of the fake clock and records (chain, piece, pass)."""

    def piece(i: int) -> None:
        clock.now += cost
        log.append((name, i, q.passes))
        if i + 1 < pieces:
            q.post(lambda: piece(i + 1))

    q.post(lambda: piece(0))


def test_chains_take_turns_and_a_pass_ends_once_its_budget_is_spent(qtbot, queue) -> None:
    q, clock = queue
    log: list[tuple[str, int, int]] = []
    _chain(q, clock, "graph", 4, sq.BUDGET_S * 0.6, log)
    _chain(q, clock, "explorer", 4, sq.BUDGET_S * 0.6, log)
    qtbot.waitUntil(lambda: len(log) == 8, timeout=5000)
    # first come first served, each chain's next piece behind the other's
    assert [name for name, _i, _p in log] == ["graph", "explorer"] * 4
    # two pieces of 0.6 budget a pass: the second is begun (under budget), no third
    per_pass: dict[int, int] = {}
    for _name, _i, p in log:
        per_pass[p] = per_pass.get(p, 0) + 1
    assert sorted(per_pass.values()) == [2, 2, 2, 2]
    # every chain's pieces in order
    assert [i for name, i, _p in log if name == "graph"] == [0, 1, 2, 3]


def test_a_piece_longer_than_the_budget_runs_alone(qtbot, queue) -> None:
    q, clock = queue
    log: list[tuple[str, int, int]] = []
    _chain(q, clock, "layer", 3, sq.BUDGET_S * 3, log)
    _chain(q, clock, "lists", 3, sq.BUDGET_S * 3, log)
    qtbot.waitUntil(lambda: len(log) == 6, timeout=5000)
    assert len({p for _n, _i, p in log}) == 6  # one piece a pass: the others waited


def test_a_piece_posted_twice_runs_once_and_a_deleted_context_drops_it(qtbot, queue) -> None:
    q, _clock = queue
    ran: list[str] = []

    def slice_() -> None:
        ran.append("slice")

    q.post(slice_)
    q.post(slice_)  # a layer asking again for the slice already queued
    gone = QObject()
    q.post(lambda: ran.append("closed view"), gone)
    q.post(lambda: ran.append("last"))
    gone.deleteLater()
    qtbot.waitUntil(lambda: "last" in ran, timeout=5000)
    assert ran == ["slice", "last"]


def test_a_piece_that_raises_leaves_the_others_to_run(qtbot, queue) -> None:
    q, _clock = queue
    ran: list[str] = []

    def broken() -> None:
        raise ValueError("a broken piece")

    q.post(broken)
    q.post(lambda: ran.append("after"))
    with qtbot.captureExceptions() as raised:
        qtbot.waitUntil(lambda: ran == ["after"], timeout=5000)
    assert [type(e[1]) for e in raised] == [ValueError]


def test_what_waits_for_quiet_runs_after_every_piece(qtbot, queue) -> None:
    q, clock = queue
    log: list[tuple[str, int, int]] = []
    done: list[int] = []
    _chain(q, clock, "pieces", 5, sq.BUDGET_S * 2, log)
    q.when_quiet(lambda: done.append(len(log)))
    qtbot.waitUntil(lambda: done != [], timeout=5000)
    assert done == [5]  # not before the last piece
    q.when_quiet(lambda: done.append(-1))  # already quiet: it still runs, a little later
    qtbot.waitUntil(lambda: done == [5, -1], timeout=5000)


def test_unlinked_mentions_wait_for_the_pieces_of_a_start(qtbot) -> None:
    """At a start the window hands its views over in pieces: the search for mentions (Python
    on a worker, sharing the interpreter) starts once they are done."""
    panel = BacklinksPanel()
    qtbot.addWidget(panel)
    events: list[str] = []
    left = [6]

    def piece() -> None:  # a start's pieces, each posting the next
        left[0] -= 1
        events.append("piece")
        if left[0]:
            sq.later(piece)

    def search(entry_id: str) -> list[SearchHit]:
        events.append("searched")
        return []

    sq.later(piece)
    panel.show_backlinks(BacklinksView("A", [], 0, lambda r, o, n: []))
    panel.find_unlinked("A", search)
    qtbot.waitUntil(lambda: not panel.finding_unlinked, timeout=10000)
    assert events == ["piece"] * 6 + ["searched"]


def test_the_first_question_for_the_views_waits_for_the_first_paint(
    qtbot, tmp_path, monkeypatch
) -> None:
    """The views' loader shares the interpreter with the window's first paint: a window
    shown asks for its views once it has painted."""
    from anthology.ui.window import surroundings
    from anthology.ui.window.main_window import MainWindow

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "A.md").write_text("# A\n\nSee [[B]].\n", encoding="utf-8")
    (vault / "B.md").write_text("# B\n", encoding="utf-8")
    events: list[str] = []
    real = surroundings.load_views

    def asked(*args, **kwargs):
        events.append("asked")
        return real(*args, **kwargs)

    monkeypatch.setattr(surroundings, "load_views", asked)
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    win = MainWindow(vault, db=tmp_path / "i.sqlite", settings=settings,
                     state_dir=tmp_path / "state")  # fmt: skip
    qtbot.addWidget(win)

    class Painted(QObject):
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and "painted" not in events:
                events.append("painted")
            return False

    spy = Painted()
    win.tabs.installEventFilter(spy)
    win.show()
    qtbot.waitUntil(lambda: win.settled, timeout=20000)
    assert events[:2] == ["painted", "asked"]
    assert win.graph is not None and sorted(win.graph.shown_ids()) == ["A", "B"]
    win.close()


def test_what_waits_for_quiet_waits_while_the_queue_is_held_busy(qtbot, queue) -> None:
    """The window holds the queue busy while its views are asked off the thread (no piece is
    posted then, yet a refresh's scan would compete with their handover)."""
    q, _clock = queue
    loader, closed = QObject(), QObject()
    ran: list[str] = []
    q.hold(loader, True)
    q.hold(closed, True)
    q.when_quiet(lambda: ran.append("scan"))
    qtbot.wait(sq.QUIET_MS * 2)
    assert ran == [] and q.pending() == 1  # held: nothing posted, still not quiet
    q.hold(loader, False)
    closed.deleteLater()  # a window closed while busy lets go
    qtbot.waitUntil(lambda: ran == ["scan"], timeout=5000)
    assert q.pending() == 0
