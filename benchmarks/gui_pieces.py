"""Which pieces of GUI-thread work make a cached start's long turns (issue 35).

    python benchmarks/gui_pieces.py VAULT DB STATE_INI [scale_child's options]

Runs ``scale_child.py`` (one start of the real window, its JSON line on stdout) with the
pieces the start hands to the GUI thread timed: the views' answer taken in, the explorer
built, its folders opened and the entry revealed, the graph view made, the graph's load,
nodes, edges, labels, relations and layout, the paints and a progressive render's slices,
an entry shown; and every collection of Python's cyclic collector (on any thread: it holds
the interpreter, so a worker's freezes the GUI too). On stderr: each piece over 15 ms, when
it ended (seconds since this script started) and on which thread a collection ran, then
the long turns the watchdog saw as (start, ms). The sum of the pieces in a turn, against the
turn, says how much of it was the machine's (other processes, the interpreter's lock).
"""

from __future__ import annotations

import functools
import gc
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

T0 = time.perf_counter()
PIECE_S = 0.015
GC_S = 0.005


def _say(text: str) -> None:
    print(f"  [{time.perf_counter() - T0:6.2f}s] {text}", file=sys.stderr)


def timed(owner: type, name: str) -> None:
    """Print ``owner.name``'s calls over PIECE_S (a name the code does not have: skipped)."""
    real: Callable[..., Any] | None = getattr(owner, name, None)
    if real is None:
        return

    @functools.wraps(real)
    def run(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            if (d := time.perf_counter() - t) > PIECE_S:
                _say(f"{owner.__name__}.{name} {d * 1000:.0f} ms")

    setattr(owner, name, run)


def collections() -> None:
    started: dict[int, float] = {}

    def seen(phase: str, info: dict[str, int]) -> None:
        me = threading.get_ident()
        if phase == "start":
            started[me] = time.perf_counter()
        elif me in started and (d := time.perf_counter() - started.pop(me)) > GC_S:
            thread = threading.current_thread().name
            _say(f"gc generation {info['generation']} {d * 1000:.0f} ms on {thread}")

    gc.callbacks.append(seen)


def main() -> int:
    sys.argv = [str(Path(__file__).with_name("scale_child.py")), *sys.argv[1:]]
    sys.path.insert(0, str(Path(__file__).parent))
    import scale_child
    from anthology.ui.graph import graph_view, label_layer, viewport_cache
    from anthology.ui.panels import file_explorer
    from anthology.ui.window import docks, main_window, surroundings

    pieces = {
        surroundings.Surroundings: ["_apply_lists", "_make_graph", "_apply_graph", "_finish"],
        docks.Docks: ["update_explorer"],
        file_explorer.FileExplorer: ["set_entries", "_map_next", "_step", "_fill_now",
                                     "_reveal_current"],
        graph_view.GraphView: ["_load_step", "_style_step", "_draw_edges", "_draw_labels",
                               "_draw_relations", "_start_layout", "set_local"],
        viewport_cache.ViewportCache: ["paint", "_step"],
        label_layer.LabelLayer: ["paint"],
        main_window.MainWindow: ["show_entry"],
    }  # fmt: skip
    for owner, names in pieces.items():
        for name in names:
            timed(owner, name)
    collections()

    def report(self: Any, turns: list[tuple[float, float]], out: Any) -> None:
        long = [(round(a - T0, 2), round((b - a) * 1000)) for a, b in turns]
        print("long turns (start s, ms):", long, file=out)

    scale_child.Sampler.run = lambda self: None  # the pieces, not the stack samples
    scale_child.Sampler.report = report
    if "--profile" not in sys.argv:
        sys.argv.append("--profile")  # (the watchdog's turns are reported with it)
    return scale_child.main()


if __name__ == "__main__":
    raise SystemExit(main())
