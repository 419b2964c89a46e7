"""Markdown rendering: our full entry render, python-markdown alone, and markdown-it-py.

Rendering happens when an entry is opened, never at index time; this measures what that
costs on the bundled anthology's real entries (math, tables, callouts, code) and on
synthetic 2–5 KB bodies, against markdown-it-py (the CommonMark parser of the Python world)
on the same text.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from anthology.paths import entries_dir
from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache, render_entry
from rows import row
from synthetic_vault import generate


def _median_ms(fn, items, repeat: int = 3) -> float:
    best = []
    for _ in range(repeat):
        times = []
        for item in items:
            t0 = time.perf_counter()
            fn(item)
            times.append(time.perf_counter() - t0)
        best.append(statistics.median(times))
    return min(best) * 1000


def _rows(label: str, root: Path, db: Path, limit: int) -> list[dict]:
    import markdown
    from markdown_it import MarkdownIt

    with VaultIndex.open(root, db) as index:
        entries = [index.entry(r.id) for r in index.entries()[:limit]]
        md = markdown.Markdown(extensions=["tables", "fenced_code", "footnotes", "toc"])
        mdit = MarkdownIt("commonmark").enable("table")
        bodies = [e.body for e in entries]
        # Warm the math cache once: the figure is the steady state of reading.
        for e in entries:
            render_entry(e, index)

        def ours(e):
            clear_render_cache()
            render_entry(e, index)

        full = _median_ms(ours, entries)
    plain = _median_ms(lambda b: md.reset().convert(b), bodies)
    it = _median_ms(mdit.render, bodies)
    size = f"{len(entries)} entries ({label})"
    return [
        row("python-markdown alone, median per entry", size, "ms", plain, "markdown-it-py", it),
        row("full entry render (+ math, links), median", size, "ms", full, "markdown-it-py", it),
    ]


def run(quick: bool = False) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        rows += _rows("bundled anthology", entries_dir(), tmpdir / "a.sqlite", 100)
        root = generate(tmpdir / "vault", 200 if quick else 1000, seed=5)
        rows += _rows("synthetic", root, tmpdir / "s.sqlite", 100 if quick else 300)
    return rows
