"""A seeded synthetic vault shaped like a real one, for benchmarks.

N entries with YAML front matter (id, title, kind, status, tags, typed relations), 2–5 KB
bodies of prose with headings, a code block now and then, ``#tags`` and wikilinks whose
targets follow a power law (a few hubs, a long tail), as real vaults do.

    python benchmarks/synthetic_vault.py OUT_DIR --n 10000 --seed 1

``--dates`` gives each entry a ``year`` and a ``date`` between 2017 and 2026 (drawn from a
stream of their own: the rest of the vault is the same as without).

``--personal`` writes a vault shaped like a real personal one instead (default 6,500 notes):
~40 folders (a few nested), note names with spaces, no ``id`` or ``kind`` property (some
notes have tags and aliases in front matter, most none), links by note name, mostly within a
topic folder, to a few "map of content" hubs and from dated daily notes; a few names repeat
in different folders, a few links point to notes that do not exist.

    python benchmarks/synthetic_vault.py OUT_DIR --personal --n 6500 --seed 1

``--dataview`` adds what Dataview reads to the first vault: in about half the notes a few
inline fields (``rating:: 7``, ``[mood:: calm]``, ``(source:: [[X]])``) and in about half a
task list (nested tasks with ``[due:: …]`` and emoji dates, plain items). The additions draw
from a random generator of their own: without the option the vault is the same as before,
so older figures still compare.

    python benchmarks/synthetic_vault.py OUT_DIR --n 10000 --seed 3 --dataview
"""

from __future__ import annotations

import argparse
import datetime
import random
from pathlib import Path

WORDS = [
    "attention",
    "transformer",
    "layer",
    "norm",
    "residual",
    "gradient",
    "softmax",
    "scaling",
    "head",
    "query",
    "key",
    "value",
    "token",
    "sequence",
    "batch",
    "optimiser",
    "learning",
    "rate",
    "warmup",
    "schedule",
    "decay",
    "weight",
    "embedding",
    "position",
    "rotary",
    "parameter",
    "compute",
    "budget",
    "loss",
    "logit",
    "variance",
    "stability",
    "training",
    "model",
    "width",
    "depth",
    "activation",
    "feed",
    "forward",
    "dropout",
    "precision",
    "memory",
    "kernel",
    "throughput",
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "with",
    "as",
    "on",
    "by",
    "this",
    "we",
    "it",
    "be",
    "are",
    "from",
    "at",
    "an",
    "which",
    "not",
    "or",
    "have",
]
KINDS = ("literature", "practice", "note")
RELATIONS = ("introduced_by", "source", "paper", "compared_against", "refines", "supersedes")
TAGS = [f"topic-{i}" for i in range(40)] + [f"area/sub-{i}" for i in range(10)]


def _entry_id(i: int) -> str:
    return f"{KINDS[i % 3][:3].upper()}-{i:05d}"


def _power_law_target(rng: random.Random, n: int, source: int) -> int:
    # Zipf-like: low indices are hubs. Pareto sampling keeps it O(1) per draw.
    while True:
        t = int(rng.paretovariate(1.1)) - 1
        t = (t * 7919) % n  # spread the hubs over the id space
        if t != source:
            return t


def _sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(8, 18))
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def make_entry(i: int, n: int, rng: random.Random, dated: random.Random | None = None) -> str:
    eid = _entry_id(i)
    title = " ".join(w.capitalize() for w in rng.choices(WORDS[:40], k=rng.randint(2, 6)))
    tags = rng.sample(TAGS, k=rng.randint(1, 4))
    lines = [
        "---",
        f"id: {eid}",
        f'title: "{title} {i}"',
        f"kind: {KINDS[i % 3]}",
        f"status: {rng.choice(('active', 'draft', 'superseded'))}",
        f"tags: [{', '.join(tags)}]",
    ]
    if dated is not None:  # --dates: a year and a day, 2017 to 2026 (their own random stream)
        day = datetime.date(2017, 1, 1) + datetime.timedelta(days=dated.randrange(3652))
        lines += [f"year: {day.year}", f"date: {day.isoformat()}"]
    if n > 1:
        for rel in rng.sample(RELATIONS, k=rng.randint(0, 2)):
            targets = {_entry_id(_power_law_target(rng, n, i)) for _ in range(rng.randint(1, 2))}
            quoted = ", ".join(f'"[[{t}]]"' for t in sorted(targets))
            lines.append(f"{rel}: [{quoted}]")
    lines.append("---")
    target_bytes = rng.randint(2000, 5000)
    body: list[str] = []
    size = 0
    section = 0
    while size < target_bytes:
        if size == 0 or rng.random() < 0.15:
            section += 1
            body.append(f"\n## Section {section}\n")
        sentences = [_sentence(rng) for _ in range(rng.randint(3, 6))]
        if n > 1:
            for _ in range(rng.randint(0, 3)):
                t = _entry_id(_power_law_target(rng, n, i))
                k = rng.randrange(len(sentences))
                form = rng.random()
                link = (
                    f"[[{t}]]"
                    if form < 0.7
                    else f"[[{t}|see this]]"
                    if form < 0.9
                    else (f"[[{t}#Section 1]]")
                )
                sentences[k] = sentences[k][:-1] + f" {link}."
        if rng.random() < 0.1:
            sentences.append(f"#{rng.choice(TAGS)}")
        para = " ".join(sentences)
        if rng.random() < 0.05:
            para += "\n\n```python\nx = softmax(q @ k.T / d ** 0.5)  # [[not-a-link]]\n```"
        body.append(para + "\n")
        size += len(para)
    return "\n".join(lines) + "\n" + "\n".join(body)


def dataview_part(i: int, n: int, seed: int) -> str:
    """What ``--dataview`` appends to entry ``i``: inline fields and a task list, each in
    about half the notes (a generator of its own, seeded by the vault's seed and ``i``)."""
    rng = random.Random(seed * 1_000_003 + i)
    out: list[str] = []
    if rng.random() < 0.5:
        day = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        out += [
            "",
            f"rating:: {rng.randint(1, 10)}",
            f"**Reviewed on**:: {day}",
            f"{_sentence(rng)[:-1]} [mood:: {rng.choice(('calm', 'busy', 'curious'))}] and "
            f"(source:: [[{_entry_id(_power_law_target(rng, n, i)) if n > 1 else 'X'}]]).",
        ]
    if rng.random() < 0.5:
        out += ["", "## Tasks", ""]
        for _ in range(rng.randint(1, 4)):
            day = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            box = rng.choice(" x-/")
            out.append(f"- [{box}] {_sentence(rng)[:-1]} [due:: {day}]")
            for _ in range(rng.randint(0, 2)):
                out.append(f"    - [{rng.choice(' x')}] {_sentence(rng)[:-1]} 📅 {day}")
            if rng.random() < 0.3:
                out.append(f"- {_sentence(rng)} [topic:: {rng.choice(WORDS)}]")
    return "\n".join(out) + "\n" if out else ""


def generate(
    root: Path, n: int, seed: int = 1, *, dataview: bool = False, dates: bool = False
) -> Path:
    """Write ``n`` entries under ``root`` (in a few folders) and return ``root``; with
    ``dataview``, with inline fields and tasks too (see :func:`dataview_part`); with
    ``dates`` each has a ``year`` and a ``date`` (the rest of the vault is the same)."""
    rng = random.Random(seed)
    dated = random.Random(f"dates-{seed}") if dates else None
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        folder = root / f"area-{i % 8}"
        folder.mkdir(exist_ok=True)
        text = make_entry(i, n, rng, dated)
        if dataview:
            text += dataview_part(i, n, seed)
        (folder / f"{_entry_id(i)}.md").write_text(text, encoding="utf-8")
    return root


TOPICS = [
    "Cooking", "Gardening", "Running", "Books", "Philosophy", "Programming", "Python",
    "Rust", "Photography", "Travel", "Finance", "Health", "Music", "Guitar", "History",
    "Physics", "Maths", "Writing", "Work", "Projects", "People", "Recipes", "Home",
    "Cycling", "Chess", "Languages", "Spanish", "Film", "Podcasts", "Ideas", "Psychology",
    "Design", "Productivity", "Birds", "Climbing", "Parenting", "Woodworking", "Tea",
]  # fmt: skip
NOUNS = [
    "habit", "garden", "review", "plan", "notes", "list", "question", "experiment",
    "principle", "problem", "idea", "session", "trip", "log", "recipe", "setup", "summary",
    "lesson", "pattern", "draft", "checklist", "retrospective", "reading", "meeting",
]  # fmt: skip
ADJ = [
    "Slow", "Quick", "Better", "Weekly", "Deep", "Simple", "Old", "New", "Small", "Big",
    "Morning", "Evening", "Winter", "Summer", "First", "Second", "Useful", "Open",
]  # fmt: skip


def _personal_layout(n: int, rng: random.Random) -> list[tuple[str, str]]:
    """(folder, note name) for n notes: ~40 folders, names with spaces, some repeated."""
    folders = [*TOPICS[:34], "Daily", "Inbox", "Archive", "Maps", "Work/Clients", "Work/Team"]
    weights = [rng.paretovariate(1.2) for _ in folders]
    n_daily = n // 5
    out: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    first = datetime.date(2019, 1, 1)
    for k in range(n_daily):
        out.append(("Daily", (first + datetime.timedelta(days=k)).isoformat()))
    topic_folders = [f for f in folders if f != "Daily"]
    topic_w = [w for f, w in zip(folders, weights, strict=True) if f != "Daily"]
    while len(out) < n:
        folder = rng.choices(topic_folders, topic_w)[0]
        topic = folder.split("/")[-1]
        name = f"{rng.choice(ADJ)} {topic.lower()} {rng.choice(NOUNS)}"
        if rng.random() < 0.6:
            name += f" {rng.randint(1, 400)}"
        if (folder, name) in seen:
            continue
        seen.add((folder, name))
        out.append((folder, name))
    return out


def generate_personal(root: Path, n: int = 6500, seed: int = 1) -> Path:
    """Write a personal-vault-shaped vault of ``n`` notes under ``root``; see the docstring."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    notes = _personal_layout(n, rng)
    by_folder: dict[str, list[int]] = {}
    for i, (folder, _name) in enumerate(notes):
        by_folder.setdefault(folder, []).append(i)
    maps = [i for i, (f, _n) in enumerate(notes) if f == "Maps"]
    topical = [f for f in by_folder if f not in ("Daily", "Maps")]
    for i, (folder, name) in enumerate(notes):
        peers = by_folder[folder]
        links: list[str] = []
        if folder == "Daily":
            for _ in range(rng.randint(0, 4)):
                f = rng.choice(topical)
                links.append(notes[rng.choice(by_folder[f][:40])][1])
        elif folder == "Maps":
            f = rng.choice(topical)
            links += [notes[j][1] for j in rng.sample(by_folder[f], min(25, len(by_folder[f])))]
        else:
            for _ in range(rng.randint(0, 6)):
                # most links stay in the topic, the early notes of a folder are its hubs
                j = peers[min(int(rng.paretovariate(1.3)) - 1, len(peers) - 1)]
                if rng.random() < 0.5:
                    j = rng.choice(peers)
                if j != i:
                    links.append(notes[j][1])
            if maps and rng.random() < 0.3:
                links.append(notes[rng.choice(maps)][1])
            if rng.random() < 0.1:
                other = by_folder[rng.choice(topical)]
                links.append(notes[rng.choice(other)][1])
            if rng.random() < 0.03:
                links.append(f"{rng.choice(ADJ)} unwritten {rng.choice(NOUNS)}")  # a ghost
        lines = []
        if rng.random() < 0.3:
            tags = rng.sample([t.lower() for t in TOPICS], k=rng.randint(1, 3))
            lines += ["---", f"tags: [{', '.join(tags)}]"]
            if rng.random() < 0.2:
                lines.append(f"aliases: [{name.lower()}]")
            lines.append("---")
        lines.append(f"# {name}\n")
        for k in range(rng.randint(1, 5)):
            sentences = [_sentence(rng) for _ in range(rng.randint(2, 5))]
            if links and k < len(links):
                chunk = links[k::3] if len(links) > 3 else [links[k]]
                sentences.append(" ".join(f"[[{t}]]" for t in chunk) + ".")
            lines.append(" ".join(sentences) + "\n")
        if len(links) > 5:
            lines.append("Related: " + ", ".join(f"[[{t}]]" for t in links[5:]) + "\n")
        path = root / folder / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")
    return root


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--n", type=int, default=None, help="notes (10,000; --personal: 6,500)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--personal",
        action="store_true",
        help="a personal vault: ~40 folders, names with spaces, no id/kind properties",
    )
    ap.add_argument(
        "--dataview",
        action="store_true",
        help="add inline fields and task lists to about half the notes (not with --personal)",
    )
    ap.add_argument(
        "--dates", action="store_true", help="a year and a date in each entry, 2017 to 2026"
    )
    a = ap.parse_args()
    if a.personal:
        n = a.n or 6500
        generate_personal(a.out, n, a.seed)
    else:
        n = a.n or 10_000
        generate(a.out, n, a.seed, dataview=a.dataview, dates=a.dates)
    print(f"wrote {n} entries to {a.out}")
