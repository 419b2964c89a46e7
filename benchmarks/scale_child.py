"""One start of the real window on a vault, in a process of its own (bench_scale.py runs it).

    python benchmarks/scale_child.py VAULT DB STATE_INI [--global] [--hub ID --other ID]
                                     [--local] [--profile]

Prints one JSON line: seconds to the first painted entry, until search and the graph work
(on a never-seen vault, from the index built so far: ``partial_index.py``) and to settled
(graph, switcher, explorer and counts in, the whole index built), the longest event-loop
turn after the window was shown (a QTimer watchdog ticking every 5 ms: the gap between two
ticks, less the interval, is the longest the window did not answer; the benchmark's own
search for "works" is left out of it; ``longest_turn_global``: until the hub's clicks,
the global graph shown and a second of it drawn), the hub opened, and
the process's RSS now and at its peak.
``--global`` switches the side graph to the global graph once settled (what the memory row
measures; ``longest_turn_switch`` is the longest turn of the switch and the second after it);
``--local`` opens the graph as a reader left it in the local graph (the switch then draws
the global graph); ``--hub`` opens that entry three times (coming from ``--other``), as
bench_window.py does, and gives the fastest. ``--profile`` samples the GUI thread's stack
100 times a second and prints the functions its long turns went to, on stderr.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path

T0 = time.time()
WORD = "attention"  # a word of synthetic_vault.py's notes (bench_partial.py asks it too)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def rss_mb() -> tuple[float, float]:
    """(RSS now, peak RSS) in MB, from /proc (Linux)."""
    now = peak = float("nan")
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                now = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    except OSError:
        pass
    return now, peak


class Sampler(threading.Thread):
    """The GUI thread's stack every 10 ms: which functions its time went to (py-spy is not
    installed; this is its poor cousin)."""

    def __init__(self, main_ident: int) -> None:
        super().__init__(daemon=True)
        self.main = main_ident
        self.samples: list[tuple[float, tuple[str, ...]]] = []
        self.stop = False

    def run(self) -> None:
        while not self.stop:
            frame = sys._current_frames().get(self.main)
            stack = []
            while frame is not None:
                code = frame.f_code
                stack.append(f"{Path(code.co_filename).name}:{code.co_name}")
                frame = frame.f_back
            self.samples.append((time.perf_counter(), tuple(stack)))
            time.sleep(0.01)

    def report(self, turns: list[tuple[float, float]], out) -> None:
        """Inclusive counts of the functions on the GUI thread's stack during ``turns``
        ((start, end) of the long turns)."""
        inclusive: Counter[str] = Counter()
        for t, stack in self.samples:
            if any(a <= t <= b for a, b in turns):
                for fn in set(stack):
                    inclusive[fn] += 1
        for fn, n in inclusive.most_common(45):
            print(f"  {n * 10:6d} ms  {fn}", file=out)


def main() -> int:
    vault, db, ini = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    show_global = "--global" in sys.argv
    profile = "--profile" in sys.argv
    sampler = Sampler(threading.get_ident()) if profile else None
    if sampler:
        sampler.start()
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from anthology.ui.window.main_window import MainWindow

    marks: dict[str, float] = {}
    if profile:  # when the views' question ran, on its thread
        import anthology.ui.window.surroundings as surroundings

        real_load = surroundings.load_views

        def timed_load(*args, **kwargs):
            marks.setdefault("views_asked", time.time() - T0)
            try:
                return real_load(*args, **kwargs)
            finally:
                marks["views_answered"] = time.time() - T0

        surroundings.load_views = timed_load
    if "--local" in sys.argv:  # the vault's user state ($ANTHOLOGY_STATE_DIR) says local
        from anthology.user_state import GRAPH_VIEW, UserState

        with UserState.for_vault(vault) as state:
            view = state.get(GRAPH_VIEW)
            state.put(GRAPH_VIEW, {**(view if isinstance(view, dict) else {}), "local": True})
    app = QApplication([])
    settings = QSettings(ini, QSettings.Format.IniFormat)
    win = MainWindow(vault, db=db, settings=settings)
    win.resize(1400, 900)
    built = time.time() - T0
    # (start, end) of each turn over 20 ms (the longest are the figures; those over 50 ms
    # are counted, and profiled with --profile)
    turns: list[tuple[float, float]] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        if now - last[0] > 0.025:
            turns.append((last[0], now))
        last[0] = now

    dog = QTimer(interval=5)
    dog.timeout.connect(tick)
    win.show()
    dog.start()
    last[0] = time.perf_counter()
    while not win.ready:
        app.processEvents()
    app.processEvents()
    win.entry_pane.viewport().repaint()
    first = time.time() - T0
    works = float("nan")  # search answers and the graph has nodes (a never-seen vault:
    asked = 0.0  # on the index built so far, see partial_index.py)
    while not win.settled:
        app.processEvents()
        time.sleep(0.002)
        data = getattr(getattr(win.graph, "scene", None), "data", None)
        if works != works and getattr(data, "n", 0) > 0:
            now = time.time()
            if win.index is not None and now - asked > 0.5:  # a search a half-second
                asked = now
                t = time.perf_counter()
                found = win.index.search_total(WORD) > 0
                # the benchmark's own question (40 ms at 100k) is not a turn of the window's
                last[0] += time.perf_counter() - t
                if found:
                    works = now - T0
    settled = time.time() - T0
    if works != works:  # settled first (a cached start): they work once it is
        works = settled
    time.sleep(0.006)
    app.processEvents()  # the watchdog's tick that ends the last turn
    settle_turns = list(turns)
    switch = float("nan")
    switch_turns: list[tuple[float, float]] = []
    if show_global and win.graph is not None:
        t = time.perf_counter()
        win.graph.set_local(False)
        switch = time.perf_counter() - t
        end = time.perf_counter() + 1.0
        while time.perf_counter() < end:  # the global graph drawn, and a second of it
            app.processEvents()
            time.sleep(0.002)
        app.processEvents()
        switch_turns = [(a, b) for a, b in turns if b > t]
    app.processEvents()
    now_mb, peak_mb = rss_mb()
    hub = float("nan")
    hub_start = time.perf_counter()  # what follows is the benchmark's clicks, not the start
    if "--hub" in sys.argv:
        target = sys.argv[sys.argv.index("--hub") + 1]
        other = sys.argv[sys.argv.index("--other") + 1]
        opens = []
        for _ in range(3):
            win.show_entry(other)
            app.processEvents()
            t = time.perf_counter()
            win.show_entry(target)
            app.processEvents()
            win.entry_pane.viewport().repaint()
            win.backlinks.tree.viewport().repaint()
            opens.append(time.perf_counter() - t)
            win.backlinks.wait_unlinked()
        hub = min(opens)
    longest = max((b - a - 0.005 for a, b in turns if a < hub_start), default=0.0)
    longest_switch = max((b - a - 0.005 for a, b in switch_turns), default=0.0)
    longest_settle = max((b - a - 0.005 for a, b in settle_turns), default=0.0)
    print(json.dumps({
        "built": built, "first": first, "works": works, "settled": settled,
        "longest_turn": longest_settle, "longest_turn_global": longest,
        "longest_turn_switch": longest_switch,
        "turns_over_50ms": sum(b - a - 0.005 > 0.05 for a, b in turns),
        "switch_global": switch, "rss_mb": now_mb,
        "peak_mb": peak_mb, "hub": hub,
    }), flush=True)  # fmt: skip
    if sampler:
        sampler.stop = True
        sampler.join()
        long_turns = [(a, b) for a, b in turns if b - a > 0.055]
        print("long turns:", [round(b - a, 3) for a, b in long_turns], marks, file=sys.stderr)
        sampler.report(long_turns, sys.stderr)
    win.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
