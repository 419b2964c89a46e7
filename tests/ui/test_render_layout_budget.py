"""Qt's own layout of a nested page, at two sizes in one run (issue 28, case 2).

Quotes, callouts and embeds are drawn as tables, and Qt lays a table cell's content out
about twice per table around it: four more levels of quotes after a list marker were 16
times the layout (16 levels 2.9 s, 20 levels 46 s, on the GUI thread). With the nesting
budget, the levels past it are indented blocks, which Qt lays out in linear time. A size
ratio, never a wall-clock limit (tests/test_project.py lists the files that may time).
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

from PySide6.QtGui import QTextDocument

from anthology.vault.render import clear_render_cache, render_entry

_SAMPLE = Path(__file__).resolve().parents[1] / "vault" / "test_render_sample.py"
_spec = importlib.util.spec_from_file_location("render_sample_for_layout", _SAMPLE)
assert _spec and _spec.loader
sample = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = sample
_spec.loader.exec_module(sample)


def layout_seconds(html: str) -> float:
    """The best of three full layouts of ``html`` at a pane's width."""
    best = float("inf")
    for _ in range(3):
        doc = QTextDocument()
        doc.setHtml(html)
        t = time.perf_counter()
        doc.setTextWidth(800)
        doc.documentLayout().documentSize()  # lays the whole document out
        best = min(best, time.perf_counter() - t)
    return best


def test_four_more_levels_of_nesting_cost_qt_no_more_layout(qapp, tmp_path: Path) -> None:
    resolver = sample.FakeResolver(tmp_path)
    clear_render_cache()
    paragraph = "A reply of some length, as a mail thread quotes it. " * 8

    def page(levels: int) -> str:
        body = "\n".join(
            "- " + "> " * k + paragraph + "\n- " + "> " * k for k in range(1, levels + 1)
        )
        return render_entry(sample.lit_008(body=body), resolver).html

    # without the budget the ratio is ~16 (2**4); with it, the four levels are four
    # indented blocks more of the same text
    def ratio() -> float:
        return layout_seconds(page(20)) / layout_seconds(page(16))

    best = ratio()
    for _ in range(2):  # a busy machine can spoil one pair of timings, not every pair
        if best < 2.5:
            break
        best = min(best, ratio())
    assert best < 2.5
