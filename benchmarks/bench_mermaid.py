"""Mermaid diagrams (issue 31): what drawing them costs, and what it costs the reader.

    PYTHONPATH=src QT_QPA_PLATFORM=offscreen python benchmarks/bench_mermaid.py [--download]

1. Each diagram of the test vault (``tests/vaults/mermaid``: the help page's four, one of
   each kind Mermaid documents first), drawn by :func:`anthology.vault.render.mermaid.draw`:
   first (an empty cache, the drawing process already up; its start is timed apart),
   again from memory (this run), and from the disk cache (a later launch).
2. An entry of 10 diagrams in a real :class:`EntryPane` (900×1000, offscreen): click
   (``show_entry``) to the text painted (``repaint``), against the same entry with each
   diagram replaced by a paragraph; then when each diagram is in the page, after the
   click; then a revisit (another entry, then back) to painted. Medians of 5 runs, each
   with an empty cache (a new cache folder, memory cleared).
3. The default install's weight: the installed size of the project's dependencies (read
   from the environment's metadata) without and with ``mmdr`` (and its ``novasvg``); with
   ``--download``, the wheels ``pip download`` fetches for both sets (needs the network).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VAULT = ROOT / "tests" / "vaults" / "mermaid"


def ms(seconds: float) -> str:
    return f"{1000 * seconds:7.1f} ms"


def fresh_cache() -> None:
    from anthology.vault.render import clear_render_cache

    os.environ["ANTHOLOGY_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-mermaid-")
    clear_render_cache()
    try:
        from anthology.vault.render import mermaid
    except ImportError:
        return
    mermaid.clear_memory()


def diagrams() -> list[tuple[str, str]]:
    out = []
    for note in ("Mermaid from the help page.md", "Every kind 📊.md"):
        text = (VAULT / "Diagrams" / note).read_text(encoding="utf-8")
        for i, source in enumerate(re.findall(r"```mermaid\n(.*?)\n```", text, re.S)):
            label = "help " + str(i + 1) if note.startswith("Mermaid") else source.split()[0]
            out.append((f"{label} ({source.split()[0]})", source))
    return out


def per_kind() -> None:
    from anthology.vault.render import mermaid

    fresh_cache()
    mermaid.stop_child()
    t = time.perf_counter()
    mermaid.draw(mermaid.Diagram("graph TD\nA --> B"))
    print(f"drawing process start + a 2-node diagram: {ms(time.perf_counter() - t)}")
    print(f"{'diagram':36} {'first':>10} {'memory':>10} {'disk':>10}")
    for theme in ("light", "dark"):
        for label, source in diagrams():
            d = mermaid.Diagram(source, theme)
            t0 = time.perf_counter()
            first = mermaid.draw(d)
            t1 = time.perf_counter()
            mermaid.draw(d)
            t2 = time.perf_counter()
            mermaid.clear_memory()
            t3 = time.perf_counter()
            mermaid.draw(d)
            t4 = time.perf_counter()
            ok = "" if isinstance(first, mermaid.Drawn) else f"  FAILED: {first}"
            print(f"{theme + ' ' + label:36} {ms(t1 - t0)} {ms(t2 - t1)} {ms(t4 - t3)}{ok}")


def ten_diagrams(runs: int) -> None:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from anthology.ui.reading.entry_pane import BACKGROUND_RENDER_CHARS, EntryPane
    from anthology.vault.index import VaultIndex

    try:
        from anthology.vault.render import mermaid
    except ImportError:  # a checkout before diagrams: the blocks are shown as code
        mermaid = None  # type: ignore[assignment]

    sources = [s for _label, s in diagrams()][:10]
    sources += sources[: 10 - len(sources)]
    work = Path(tempfile.mkdtemp(prefix="bench-mermaid-vault-"))
    (work / "v").mkdir()
    parts = [f"## Diagram {i + 1}\n\nSome text before it.\n\n```mermaid\n{s}\n```\n"
             for i, s in enumerate(sources)]  # fmt: skip
    plain = [f"## Diagram {i + 1}\n\nSome text before it.\n\nA paragraph instead.\n"
             for i in range(len(sources))]  # fmt: skip
    (work / "v" / "Ten diagrams.md").write_text("\n".join(parts), encoding="utf-8")
    (work / "v" / "Ten paragraphs.md").write_text("\n".join(plain), encoding="utf-8")
    (work / "v" / "Elsewhere.md").write_text("Another entry.\n", encoding="utf-8")
    index = VaultIndex.open(work / "v", work / "i.sqlite")
    pane = EntryPane()
    pane.background_render_chars = BACKGROUND_RENDER_CHARS
    pane.set_vault(index, index.root)
    pane.resize(900, 1000)
    pane.show()
    for _ in range(20):
        app.processEvents()

    def click(entry_id: str) -> float:
        entry = index.entry(entry_id)
        assert entry is not None
        t = time.perf_counter()
        pane.show_entry(entry)
        pane.viewport().repaint()
        return time.perf_counter() - t

    text, plain_text, last, every, revisit = [], [], [], [], []
    if mermaid is not None:  # the process up, as after a first diagram
        mermaid.draw(mermaid.Diagram("graph TD\nA --> B"))
    for _ in range(runs):
        fresh_cache()
        click("Elsewhere")
        plain_text.append(click("Ten paragraphs"))
        click("Elsewhere")
        if mermaid is None:
            text.append(click("Ten diagrams"))
            click("Elsewhere")
            revisit.append(click("Ten diagrams"))
            continue
        arrivals: list[float] = []

        def arrived(*_args: object, arrivals: list[float] = arrivals) -> None:
            arrivals.append(time.perf_counter())

        pane._diagrams.arrived.connect(arrived)
        t0 = time.perf_counter()
        text.append(click("Ten diagrams"))
        keys = list(mermaid.diagrams_of(pane.rendered.resources)) if pane.rendered else []
        while not all(k in pane._images for k in keys):
            app.processEvents()
            if time.perf_counter() - t0 > 60:
                break
        pane.viewport().repaint()
        done = time.perf_counter()
        pane._diagrams.arrived.disconnect(arrived)
        every.extend(a - t0 for a in arrivals)
        last.append(done - t0)
        click("Elsewhere")
        revisit.append(click("Ten diagrams"))
    index.close()
    shutil.rmtree(work, ignore_errors=True)
    print(f"\nan entry of 10 diagrams, medians of {runs} runs (900×1000 pane):")
    print(f"  click → text painted, without diagrams  {ms(statistics.median(plain_text))}")
    print(f"  click → text painted, 10 diagrams       {ms(statistics.median(text))}")
    if not every:
        print(f"  revisit → painted                       {ms(statistics.median(revisit))}")
        return
    print(f"  click → each diagram in the page: median {ms(statistics.median(every))}, "
          f"slowest {ms(max(every))}")  # fmt: skip
    print(f"  click → all 10 in the page and painted  {ms(statistics.median(last))}")
    print(f"  revisit → painted                       {ms(statistics.median(revisit))}")


def _closure(names: list[str]) -> dict[str, int]:
    """Installed bytes of each distribution ``names`` needs (its requirements too)."""
    from packaging.requirements import Requirement

    seen: dict[str, int] = {}
    todo = list(names)
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            continue
        size = 0
        for f in dist.files or []:
            p = Path(str(dist.locate_file(f)))
            if p.is_file():
                size += p.stat().st_size
        seen[name] = size
        for raw in dist.requires or []:
            req = Requirement(raw)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen


def install_size(download: bool) -> None:
    from packaging.requirements import Requirement

    deps = [Requirement(r).name for r in distribution("anthology").requires or []
            if "extra ==" not in r]  # fmt: skip
    base = [d for d in deps if d.lower() != "mmdr"]
    before, after = _closure(base), _closure([*base, "mmdr"])
    mb = 1024 * 1024
    print("\ndefault install, installed size of the dependencies (this environment):")
    print(f"  without mmdr {sum(before.values()) / mb:7.1f} MB")
    print(f"  with mmdr    {sum(after.values()) / mb:7.1f} MB  "
          f"(mmdr {after.get('mmdr', 0) / mb:.1f} MB, "
          f"novasvg {after.get('novasvg', 0) / mb:.1f} MB)")  # fmt: skip
    if not download:
        return
    for label, names in (("without mmdr", base), ("with mmdr", [*base, "mmdr"])):
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d", folder, *names],
                           check=True)  # fmt: skip
            size = sum(p.stat().st_size for p in Path(folder).iterdir())
            print(f"  pip download, {label}: {size / mb:7.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--download", action="store_true")
    args = parser.parse_args()
    try:
        import anthology.vault.render.mermaid  # noqa: F401
    except ImportError:
        print("no Mermaid in this checkout: its blocks are shown as code")
    else:
        per_kind()
    ten_diagrams(args.runs)
    install_size(args.download)


if __name__ == "__main__":
    main()
