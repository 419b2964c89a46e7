"""A long entry rendering off the GUI thread while the reader switches vault, quits, opens
another entry, or takes a screenshot: the real window, offscreen, with the render held at a
point of the test's choosing (no timing)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from anthology.ui.reading import entry_pane
from anthology.ui.reading.entry_pane import EntryPane
from anthology.ui.window.main_window import BACKGROUND_RENDER_CHARS, MainWindow
from anthology.vault import VaultIndex
from anthology.vault.connection import IndexConnection
from anthology.vault.model import EntryRef

HOLD_S = 10  # a held render goes on by itself after this long: a failing test ends


class HeldRender:
    """Stands in for the panes' ``render_entry``: the render of ``entry_id`` stops at its
    start until :attr:`release` is set (as a long entry's render would still be running),
    then asks its lookup a question, as every render does, and goes on. With ``in_lock``
    it is held inside that question, holding the lock of the connection it asks."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, entry_id: str, *, in_lock: bool = False):
        self.entry_id, self.in_lock = entry_id, in_lock
        self.started, self.release, self.done = (
            threading.Event(),
            threading.Event(),
            threading.Event(),
        )
        self.answer: EntryRef | None = None
        self.error: BaseException | None = None
        self.gave_up = False  # the test never released it: it went on after HOLD_S
        self._holding = threading.local()
        real, fresh = entry_pane.render_entry, IndexConnection._fresh

        def render(entry, lookup, **kw):
            if entry.id != self.entry_id or self.done.is_set():
                return real(entry, lookup, **kw)
            try:
                if not in_lock:
                    self.started.set()
                    self._wait()
                self._holding.on = in_lock
                try:
                    self.answer = lookup.resolve("n1", entry.path)
                finally:
                    self._holding.on = False
            except Exception as exc:  # a closed connection: what the test looks for
                self.error = exc
            try:
                return real(entry, lookup, **kw)
            finally:
                self.done.set()

        def held_fresh(conn: IndexConnection) -> None:  # called with the connection's lock held
            if getattr(self._holding, "on", False):
                self.started.set()
                self._wait()
            fresh(conn)

        monkeypatch.setattr(entry_pane, "render_entry", render)
        monkeypatch.setattr(IndexConnection, "_fresh", held_fresh)

    def _wait(self) -> None:
        if not self.release.wait(HOLD_S):
            self.gave_up = True


def _vaults(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    for i in range(1, 4):
        (a / f"n{i}.md").write_text(f"# N{i}\n\nNote {i}, see [[hub]].\n", encoding="utf-8")
    paragraph = "A paragraph of the long entry about [[n1]] and [[n2]]. " * 8
    body = "\n\n".join(paragraph for _ in range(BACKGROUND_RENDER_CHARS // len(paragraph) + 10))
    (a / "hub.md").write_text(f"# Hub\n\n{body}\n", encoding="utf-8")
    (b / "Solo.md").write_text("# Solo\n\nThe other vault.\n", encoding="utf-8")
    return a, b


def _open(qtbot, vault: Path, tmp_path: Path, settings: QSettings, entry: str) -> MainWindow:
    """The window on ``vault``, its index built before (not a first look from disk)."""
    VaultIndex.open(vault, tmp_path / "a.sqlite").close()
    win = MainWindow(vault, db=tmp_path / "a.sqlite", settings=settings,
                     state_dir=tmp_path / "state", entry=entry)  # fmt: skip
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    return win


def test_switching_vault_while_a_long_entry_renders_closes_nothing_it_reads(
    qtbot, tmp_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = _vaults(tmp_path)
    held = HeldRender(monkeypatch, "hub")
    win = _open(qtbot, a, tmp_path, settings, "hub")
    qtbot.waitUntil(held.started.is_set, timeout=20000)
    assert win.entry_pane.rendering and "Rendering…" in win.entry_pane.toPlainText()
    win.db = tmp_path / "b.sqlite"
    win.open_vault(b)  # was: the index closed under the render (a segfault, 3 of 3)
    held.release.set()
    qtbot.waitUntil(held.done.is_set, timeout=20000)
    assert held.error is None  # the render's question after the switch was answered
    assert held.answer is not None and held.answer.id == "n1"
    qtbot.waitUntil(lambda: win.settled and win.current_id() == "Solo", timeout=20000)
    assert "The other vault." in win.entry_pane.toPlainText()  # the old page never lands
    assert not held.gave_up
    win.close()


def test_quitting_while_a_long_entry_renders_neither_waits_for_it_nor_closes_its_reader(
    qtbot, tmp_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _b = _vaults(tmp_path)
    held = HeldRender(monkeypatch, "hub")
    win = _open(qtbot, a, tmp_path, settings, "hub")
    qtbot.waitUntil(held.started.is_set, timeout=20000)
    win.close()  # was: a segfault in 3 of 5 quits
    assert not held.done.is_set()  # quitting did not wait for the render
    held.release.set()
    qtbot.waitUntil(held.done.is_set, timeout=20000)
    assert held.error is None  # nor closed what it still reads
    assert held.answer is not None and held.answer.id == "n1" and not held.gave_up


def test_the_gui_thread_opens_an_entry_while_a_render_holds_its_connections_lock(
    qtbot, tmp_path: Path, settings: QSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The render of a long entry asks about its links with its connection's lock held
    (building the names map at 100,000 entries holds it 2.4 s): the GUI thread opens
    another entry meanwhile. It used to wait on the same lock for the whole question."""
    a, _b = _vaults(tmp_path)
    held = HeldRender(monkeypatch, "hub", in_lock=True)
    win = _open(qtbot, a, tmp_path, settings, "hub")
    try:
        qtbot.waitUntil(held.started.is_set, timeout=20000)
        assert win.show_entry("n2")  # on the GUI thread, the render still held
        assert not held.gave_up  # answered while the render held the lock, not after
        assert win.current_id() == "n2" and "Note 2, see" in win.entry_pane.toPlainText()
        assert win.backlinks.groups()  # and its backlinks, from the index
    finally:
        held.release.set()
    qtbot.waitUntil(held.done.is_set, timeout=20000)
    qtbot.waitUntil(lambda: win.settled, timeout=20000)
    assert win.current_id() == "n2"  # the long entry's late page did not replace it
    win.close()


def test_a_screenshot_of_a_long_entry_waits_for_its_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It captured "Rendering…" (and printed a RuntimeError as the window went). The render
    is held until the screenshot, waiting, asks whether the page is there; a screenshot
    that does not ask grabs it held (and lets it go then)."""
    from anthology.ui import app

    a, _b = _vaults(tmp_path)
    held = HeldRender(monkeypatch, "hub")
    shown: list[str] = []
    grab, rendering = MainWindow.grab, EntryPane.rendering
    waiting = threading.local()

    def grab_and_release(win: MainWindow, *args):
        shown.append(win.entry_pane.toPlainText())
        held.release.set()
        return grab(win, *args)

    def asked(pane: EntryPane) -> bool:
        if getattr(waiting, "on", False) and held.started.is_set():
            held.release.set()
        return rendering.fget(pane)

    waits = app.wait_until

    def wait_until(application, condition, timeout: float) -> bool:
        def polled() -> bool:
            waiting.on = True
            try:
                return condition()
            finally:
                waiting.on = False

        return waits(application, polled, timeout)

    monkeypatch.setattr(MainWindow, "grab", grab_and_release)
    monkeypatch.setattr(EntryPane, "rendering", property(asked))
    monkeypatch.setattr(app, "wait_until", wait_until)
    out = tmp_path / "shot.png"
    code = app.screenshot(a, db=str(tmp_path / "a.sqlite"), entry="hub", out=out,
                          size=(900, 600), theme="light", settle_seconds=0)  # fmt: skip
    assert code == 0 and out.is_file()
    assert len(shown) == 1
    assert "Rendering…" not in shown[0] and "A paragraph of the long entry" in shown[0]
    assert held.done.is_set() and held.error is None
    err = capsys.readouterr().err
    assert "RuntimeError" not in err and "Traceback" not in err
