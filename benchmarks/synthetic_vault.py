"""A seeded synthetic vault shaped like a real one, for benchmarks.

N entries with YAML front matter (id, title, kind, status, tags, typed relations), 2–5 KB
bodies of prose with headings, a code block now and then, ``#tags`` and wikilinks whose
targets follow a power law (a few hubs, a long tail), as real vaults do.

    python benchmarks/synthetic_vault.py OUT_DIR --n 10000 --seed 1
"""

from __future__ import annotations

import argparse
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


def make_entry(i: int, n: int, rng: random.Random) -> str:
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


def generate(root: Path, n: int, seed: int = 1) -> Path:
    """Write ``n`` entries under ``root`` (in a few folders) and return ``root``."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        folder = root / f"area-{i % 8}"
        folder.mkdir(exist_ok=True)
        (folder / f"{_entry_id(i)}.md").write_text(make_entry(i, n, rng), encoding="utf-8")
    return root


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    generate(a.out, a.n, a.seed)
    print(f"wrote {a.n} entries to {a.out}")
