"""Related entries and the relations ladder (issue 37): related entries for one entry
≤ 100 ms at 10,000 entries, ≤ 300 ms at 100,000; the ladder ≤ 20 ms.

Two kinds of vault, each indexed once and kept (under ``$TMPDIR/anthology-bench-related-…``):

* ``synthetic``: ``synthetic_vault.py`` (seed 3): every note is drawn from one list of 70
  words, so every word is in most notes — the worst case for counting document
  frequencies (each count runs to the cap), and no entry has a distinctive word;
* ``worded``: notes of a Zipf vocabulary of 30,000 made-up words with one topic each (a
  topic's own 15 words), a template on a fifth of them, links within the topic, URLs, and
  ``introduced by`` relations into chains: what related entries are for.

Measured on one connection, as the window's reader asks: ``cold`` the first entry asked on
a fresh connection (nothing counted yet), ``warm`` 60 seeded random entries asked one after
another (the terms' counts kept between entries, never the answers); median and p95.
``naive``: the same answer with every term's exact document count read from FTS5's
``fts5vocab`` table (no cap, no cache) — the ratio is what the capped counts save. The
ladder: the biggest hub (the most typed relations to it), first and again, and 200 random
entries, on the same connection.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_related.py [--quick] [--n N …]``
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rows import row as make_row
from synthetic_vault import generate

TARGETS = {10_000: 100.0, 100_000: 300.0}
LADDER_TARGET = 20.0
SYLLABLES = [a + b for a in "bcdfghklmnprstvz" for b in ("a", "e", "i", "o", "u", "ai", "ou")]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def generate_worded(root: Path, n: int, seed: int = 3) -> Path:
    """``n`` notes of a Zipf vocabulary with one topic each (see the module)."""
    rng = random.Random(seed)
    vocab = list(dict.fromkeys(_word(rng) for _ in range(40_000)))[:30_000]
    weights = [1 / (k + 1) for k in range(len(vocab))]
    cum = list(_accumulate(weights))
    topics = max(4, n // 25)
    topic_words = [rng.sample(vocab[3000:], 15) for _ in range(topics)]
    members: dict[int, list[int]] = {}
    notes = []
    for i in range(n):
        t = rng.randrange(topics)
        members.setdefault(t, []).append(i)
        notes.append(t)
    for i, t in enumerate(notes):
        words = topic_words[t]
        title = " ".join(w.capitalize() for w in rng.sample(words, rng.randint(2, 3)))
        folder = root / f"Topic {t % 97}"
        lines = ["---", f"tags: [t{t}]"]
        peers = members[t]
        before = [p for p in peers if p < i]
        if before and rng.random() < 0.5:
            lines.append(f'introduced by: "[[Note {before[-1]}]]"')
        lines += ["---", f"# {title}", ""]
        if rng.random() < 0.2:  # a template: the same headings and fields
            lines += ["## Summary", "", "Source:: web clipping", "Status:: to read", ""]
        for _p in range(rng.randint(3, 8)):
            k = rng.randint(20, 60)
            general = rng.choices(vocab, cum_weights=cum, k=k)
            own = rng.choices(words, k=max(2, k // 4))
            sentence = general + own
            rng.shuffle(sentence)
            if rng.random() < 0.3:
                sentence.append(f"[[Note {rng.choice(peers)}]]")
            if rng.random() < 0.15:
                sentence.append(f"https://example.com/{rng.choice(vocab)}/{rng.randint(1, 999)}")
            lines.append(" ".join(sentence) + ".")
            lines.append("")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"Note {i}.md").write_text("\n".join(lines), encoding="utf-8")
    return root


def _accumulate(values: list[float]):
    total = 0.0
    for v in values:
        total += v
        yield total


def _vault(kind: str, n: int) -> Path:
    place = Path(tempfile.gettempdir()) / f"anthology-bench-related-{kind}-{n}"
    if not (place / ".done").exists():
        if kind == "synthetic":
            generate(place, n, seed=3)
        else:
            generate_worded(place, n)
        (place / ".done").write_text("", encoding="utf-8")
    return place


def _naive(index, entry_id: str) -> list[str]:
    """The same question with exact counts from fts5vocab for every term (no cap, no
    cache): the terms asked and the hits."""
    from anthology.vault.related import QUERY_TERMS, common_cap, prose, terms_of

    conn = index.conn
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING "
                 "fts5vocab(main, entries_fts, 'row')")  # fmt: skip
    eid, title, body = conn.execute(
        "SELECT e.eid, f.title, f.body FROM entries e JOIN entries_fts f ON f.rowid = e.eid "
        "WHERE e.id = ?", (entry_id,)).fetchone()  # fmt: skip
    n = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    tf = Counter(terms_of(prose(body or "")) + terms_of(title or "") * 3)
    df = {}
    for term in tf:
        row = conn.execute("SELECT doc FROM temp.vocab WHERE term = ?", (term,)).fetchone()
        df[term] = row[0] if row else 0
    cap = common_cap(n)
    score = {t: (1 + math.log(c)) * math.log(n / df[t]) for t, c in tf.items()
             if 2 <= df[t] <= cap}  # fmt: skip
    asked = sorted(score, key=lambda t: -score[t])[:QUERY_TERMS]
    if asked:
        conn.execute(
            "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? AND rowid != ? "
            "ORDER BY bm25(entries_fts, 10.0, 5.0, 3.0, 1.0) LIMIT 60",
            (" OR ".join(f'"{t}"' for t in asked), eid),
        ).fetchall()
    return asked


def _stats(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def measure(kind: str, n: int, asks: int = 60, naive_asks: int = 12) -> dict:
    import networkx  # noqa: F401  (its import is the app's once, not each ladder's)

    from anthology.vault.index import VaultIndex
    from anthology.vault.render.entry import CITED_BY_SHOWN

    root = _vault(kind, n)
    cache = Path(tempfile.gettempdir()) / "anthology-bench-related-cache"
    db = cache / f"{kind}-{n}.sqlite"
    cache.mkdir(exist_ok=True)
    with VaultIndex.open(root, db) as index:  # built once, refreshed (nothing) after
        ids = [r.id for r in index.entries()]
        hub = index._q("SELECT e.id FROM links l JOIN entries e ON e.eid = l.target "
                       "WHERE l.relation IS NOT NULL GROUP BY l.target "
                       "ORDER BY count(*) DESC LIMIT 1")[0][0]  # fmt: skip
    rng = random.Random(5)
    picked = rng.sample(ids, min(asks, len(ids)))
    out: dict = {"n": n, "kind": kind}
    with VaultIndex.open(root, db, refresh=False) as index:
        first = picked[0]
        t0 = time.perf_counter()
        found = index.related(first)
        out["cold"] = (time.perf_counter() - t0) * 1000
        times, empty = [], 0
        for entry_id in picked[1:]:
            t0 = time.perf_counter()
            found = index.related(entry_id)
            times.append((time.perf_counter() - t0) * 1000)
            empty += not (found and (found.unlinked or found.linked))
        out["warm"], out["warm_p95"] = _stats(times)
        out["empty"] = empty
        out["sample_terms"] = found.terms if found else ()
        t0 = time.perf_counter()
        index.ladder(hub)  # its citing entries counted now, kept for the state after
        out["ladder_hub_first"] = (time.perf_counter() - t0) * 1000
        other = index.reader()  # as the window asks: the pane's entry first, then the ladder
        other.entry(hub, cited_by_limit=CITED_BY_SHOWN)
        t0 = time.perf_counter()
        other.ladder(hub)
        out["ladder_hub_after_pane"] = (time.perf_counter() - t0) * 1000
        other.close()
        ladder = []
        for entry_id in rng.sample(ids, min(200, len(ids))):
            t0 = time.perf_counter()
            index.ladder(entry_id)
            ladder.append((time.perf_counter() - t0) * 1000)
        out["ladder"], out["ladder_p95"] = _stats(ladder)
        t0 = time.perf_counter()
        index.ladder(hub)
        out["ladder_hub"] = (time.perf_counter() - t0) * 1000
    with VaultIndex.open(root, db, refresh=False) as index:
        naive = []
        for entry_id in picked[1 : 1 + naive_asks]:
            t0 = time.perf_counter()
            _naive(index, entry_id)
            naive.append((time.perf_counter() - t0) * 1000)
        out["naive"], out["naive_p95"] = _stats(naive)
    return out


def run(quick: bool = False, sizes: list[int] | None = None) -> list[dict]:
    rows: list[dict] = []
    for n in sizes or ([2_000] if quick else [10_000, 100_000]):
        target = TARGETS.get(n, 100.0)
        for kind in ("worded", "synthetic"):
            m = measure(kind, n, asks=20 if quick else 60, naive_asks=5 if quick else 12)
            size = f"{n:,} {kind}"
            rows += [
                make_row("related: first entry (cold)", size, "ms", m["cold"], "target",
                         target),
                make_row("related: median", size, "ms", m["warm"], "target", target),
                make_row("related: p95", size, "ms", m["warm_p95"], "target", target),
                make_row("related: naive median (exact fts5vocab counts)", size, "ms",
                         m["warm"], "naive", m["naive"]),
                make_row("related: naive p95", size, "ms", m["warm_p95"], "naive",
                         m["naive_p95"]),
                make_row("ladder: median", size, "ms", m["ladder"], "target", LADDER_TARGET),
                make_row("ladder: p95", size, "ms", m["ladder_p95"], "target", LADDER_TARGET),
                make_row("ladder: biggest hub, first ask", size, "ms", m["ladder_hub_first"],
                         "target", LADDER_TARGET),
                make_row("ladder: biggest hub, after the entry pane", size, "ms",
                         m["ladder_hub_after_pane"], "target", LADDER_TARGET),
                make_row("ladder: biggest hub, again", size, "ms", m["ladder_hub"], "target",
                         LADDER_TARGET),
            ]  # fmt: skip
            print(f"# {size}: {m['empty']} of {len(range(1, 60 if not quick else 20))} "
                  f"entries with nothing related; terms of the last: {m['sample_terms']}",
                  file=sys.stderr)  # fmt: skip
    return rows


def measure_preview(n: int, entries: int = 30) -> dict:
    """The page preview with its related section and without it (the section's runner
    never started), on the worded vault: hover to the preview shown, and to the section
    added; medians of rounds taken in turn (without, with, without, with, without; the
    first discarded), 0.3 s between links. The section is asked once the preview is shown,
    so the first should not move."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication, QWidget

    from anthology.ui.reading.page_preview import PreviewController
    from anthology.vault.index import VaultIndex
    from anthology.vault.render.previews import clear_preview_cache

    app = QApplication.instance() or QApplication([])
    qInstallMessageHandler(lambda *_a: None)  # offscreen: "does not support raise()"
    root = _vault("worded", n)
    db = Path(tempfile.gettempdir()) / "anthology-bench-related-cache" / f"worded-{n}.sqlite"
    out: dict = {}
    with VaultIndex.open(root, db, refresh=False) as index:
        ids = random.Random(9).sample([r.id for r in index.entries()], entries)
        # a first round warms SQLite's and the OS's caches; then with the section (its
        # answers asked fresh: nothing related was asked before), then without
        for n_round, with_section in enumerate((False, True, False, True, False)):
            parent = QWidget()
            reader = index.reader()  # the section's own, as the window gives it
            asker = (reader.related, reader.interrupt) if with_section else None
            previews = PreviewController(parent, index.entry, lambda: index, lambda: "light",
                                         lambda: index.root,
                                         related_of=lambda a=asker: a)  # fmt: skip
            shown, added = [], []
            clear_preview_cache()
            for entry_id in ids:
                t0 = time.perf_counter()
                previews.hover(entry_id, immediate=True)
                while not previews.visible:
                    app.processEvents()
                shown.append((time.perf_counter() - t0) * 1000)
                if with_section:
                    while "Related, not linked yet" not in previews.popup.text():
                        app.processEvents()
                        if (time.perf_counter() - t0) > 5:
                            break
                    added.append((time.perf_counter() - t0) * 1000)
                rest = time.perf_counter()
                while time.perf_counter() - rest < 0.3:  # a reader's pause between links
                    app.processEvents()
                previews.hide()
            previews.stop_related()
            reader.close()
            if n_round == 0:
                parent.deleteLater()
                continue
            key = "with" if with_section else "without"
            out.setdefault(key + "_rounds", []).append(round(statistics.median(shown), 1))
            out[key] = statistics.median(shown)
            if added:
                out["section"] = statistics.median(added)
            parent.deleteLater()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--n", type=int, action="append", help="vault sizes (default 10k, 100k)")
    ap.add_argument("--preview", action="store_true", help="the page preview with and without "
                    "its related section (Qt, offscreen)")  # fmt: skip
    args = ap.parse_args()
    os.environ.setdefault("XDG_CACHE_HOME", str(Path(tempfile.gettempdir()) / "related-cache"))
    if args.preview:
        for n in args.n or [10_000]:
            m = measure_preview(n)
            print(f"page preview, {n:,} worded: shown {m['without_rounds']} ms without the "
                  f"section, {m['with_rounds']} ms with it (medians of rounds); the section "
                  f"added at {m['section']:.1f} ms")  # fmt: skip
        return
    for r in run(args.quick, args.n):
        ratio = f"{r['ratio']:.2f}" if r["ratio"] else "—"
        print(f"{r['name']:<48} {r['size']:<18} {r['ours']:>9.1f} ms   {r['peer']:<7} "
              f"{r['peer_value']:>9.1f} ms   ratio {ratio}")  # fmt: skip


if __name__ == "__main__":
    main()
