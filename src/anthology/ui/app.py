"""Starting the GUI, and rendering the real window offscreen to a PNG."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from anthology.desktop_entry import APP_ID
from anthology.paths import resource


def _application():
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("Anthology")
        app.setOrganizationName("Anthology")
        # The launcher entry's name (anthology install-desktop): Wayland's app id, and how
        # a desktop matches the window to its entry and icon.
        app.setDesktopFileName(APP_ID)
        icon = resource("icons", "anthology.svg")
        if icon.is_file():
            app.setWindowIcon(QIcon(str(icon)))
    return app


def run_gui(vault: Path | None, *, db: str | None = None, entry: str | None = None) -> int:
    """Open the main window (on the last vault, else the bundled anthology) and run."""
    from anthology.ui.window.main_window import MainWindow

    app = _application()
    window = MainWindow(vault, db=Path(db) if db else None, entry=entry)
    window.show()
    status = int(app.exec())
    # The window has saved everything and cancelled its tasks (closeEvent). Tearing the
    # interpreter and ~1,000 Qt objects down, and the exit hook's wait for cancelled tasks
    # to reach their next check, took 0.3–1.5 s after the window was gone: end here.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def wait_until(app, condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def screenshot(
    vault: Path,
    *,
    db: str | None,
    entry: str | None,
    out: Path,
    size: tuple[int, int],
    theme: str,
    graph_mode: str = "local",
    settle_seconds: float = 2.0,
    heading: str | None = None,
) -> int:
    """Render the real main window offscreen, with ``entry`` open, to the PNG ``out``."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings

    from anthology.ui.window.main_window import MainWindow

    app = _application()
    with tempfile.TemporaryDirectory() as tmp:
        # Throwaway settings and user state: a screenshot must not change the user's window
        # state, nor the graph layout and settings of their vault.
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        settings.setValue("theme", theme)
        window = MainWindow(vault, db=Path(db) if db else None, entry=entry, settings=settings,
                            state_dir=Path(tmp) / "state")  # fmt: skip
        window.resize(*size)
        window.show()
        if not wait_until(app, lambda: window.settled, 120):
            print("anthology: the window did not finish loading", file=sys.stderr)
            return 1
        wanted = window.index.entry_ref(entry) if entry and window.index else None
        shown = window.tabs.document().document_id()  # an entry's id, a canvas's path…
        if entry and (wanted is None or shown not in (wanted.id, wanted.path)):
            print(f"anthology: no entry “{entry}” in {vault}", file=sys.stderr)
            window.close()
            return 1
        if window.graph is not None:
            window.graph.set_local(graph_mode != "global")
        if graph_mode == "timeline":  # the timeline in a tab, over the entry
            window.act_timeline_tab.trigger()
        wait_until(app, lambda: False, settle_seconds)  # let the graph settle
        if window.graph is not None:
            window.graph.fit()
        if heading and not window.entry_pane.scroll_to_heading(heading):
            print(f"anthology: no heading “{heading}” in the entry", file=sys.stderr)
        wait_until(app, lambda: False, 0.2)
        image = window.grab()
        out.parent.mkdir(parents=True, exist_ok=True)
        ok = image.save(str(out))
        window.close()
    if not ok:
        print(f"anthology: could not write {out}", file=sys.stderr)
        return 1
    print(f"Wrote {out} ({image.width()}×{image.height()})")
    return 0


def entry_pdf(index, entry, *, theme: str = "light") -> bytes:
    """What File › Export as PDF… writes for ``entry`` of the open ``index``: the entry
    pane's page drawn offscreen (``anthology export --format pdf``). A command needs no
    screen, and a display that is set but unreachable (over SSH) would abort Qt: the
    offscreen platform unless the caller chose one."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = _application()
    from anthology.ui.reading.entry_pane import NARROW_MARGIN, READING_WIDTH, EntryPane
    from anthology.ui.window.print_export import pdf_bytes

    pane = EntryPane()
    try:
        # the readable column at its default width, as a window wide enough shows it
        pane.resize(READING_WIDTH + 2 * NARROW_MARGIN + 40, 900)
        pane.set_vault(index, index.root)
        pane.set_theme(theme)
        pane.show_entry(entry)
        wait_until(app, lambda: not pane.busy and not pane.rendering, 120)
        return pdf_bytes(pane)
    finally:
        pane.clear_entry()
        pane.deleteLater()


def run_demo(args) -> int:
    """``anthology demo NAME``: the demo alone in a window, configured from the CLI flags."""
    from anthology.ui.demo.demo_widget import create_demo_widget

    app = _application()
    widget = create_demo_widget(args.name)
    configure = getattr(widget, "configure", None)
    if configure is not None:
        try:
            configure(n=args.n, samples=args.samples, seed=args.seed, dtype=args.dtype)
        except ValueError as exc:
            print(f"anthology demo: {exc}", file=sys.stderr)
            return 2
    widget.setWindowTitle(f"Anthology — {args.name}")
    widget.resize(1000, 720)
    widget.show()
    status = app.exec()
    widget.shutdown()
    return int(status)
