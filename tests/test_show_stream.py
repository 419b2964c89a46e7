"""``anthology show`` streams: the same bytes as before for a small entry, and a hub's
backlinks fetched from SQLite a batch at a time rather than all held in a list.

The goldens in ``tests/golden/show/`` were written by the list-building ``cmd_show`` (before
it streamed) on :data:`SHOW_VAULT`: regenerate them only on purpose, with
``python tests/test_show_stream.py`` (it writes the current output).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "show"
SRC = HERE.parent / "src"
MTIME = 1_700_000_000  # every file's mtime, so that ``--json`` (which has it) is stable

# Typed relations (several keys, a list value, one to a missing entry), untyped mentions
# with aliases, headings, block refs and embeds, several links on one line, links to
# entries that do not exist, a self link (not a backlink), unicode ids, titles and paths.
SHOW_VAULT: dict[str, str] = {
    "HUB.md": """---
id: HUB
title: "Hub — Zentrale Übersicht: 日本語"
kind: literature
status: active
tags: [hub, übersicht]
aliases: [Zentrale, "Die Mitte"]
authors: [Ærøskøbing, "Zoë O'Brien"]
year: 2024
compared_against: ["[[Café]]", "[[Nowhere Entry]]"]
---
# Hub — Zentrale

## Ergebnisse

Links to [[Café|the café]], [[ß-Note#Straße]], a missing [[Gibt es nicht]],
an embed ![[Ωmega]] and itself: [[HUB]].

### Tiefer

Last [[Café#^block-1]] and [[Unicode Ünïcödé|ü]].
""",
    "Café.md": """---
id: Café
title: Café au lait — naïve résumé
kind: note
source: "[[HUB]]"
paper: "[[Zentrale]]"
---
# Café

Mentions [[HUB]] twice on one line: [[HUB|the hub]] and [[HUB#Ergebnisse]].
Block ^block-1

A second paragraph cites [[Die Mitte]] by alias.
""",
    "notes/ß-Note.md": """---
id: ß-Note
title: "Straßenbahn: 東京 → 大阪"
introduced_by: "[[HUB]]"
---
## Straße

Ein Satz mit [[HUB#Tiefer|tief]] und ![[HUB]] eingebettet, dann [[Missing Too]].
""",
    "notes/Ωmega.md": """---
id: Ωmega
title: Ωmega — the last letter 🦉
kind: practice
compared_against: ["[[HUB]]", "[[Café]]"]
---
Owl 🦉 says [[hub]] in lower case, and [[HUB]] again.

- a list item with [[Zentrale|die Zentrale]]
""",
    "Unicode Ünïcödé.md": """# Unicode Ünïcödé

No front matter. Points at [[HUB]] and [[Nowhere Entry]].
""",
}
CASES: dict[str, list[str]] = {
    "hub.txt": ["HUB"],
    "hub.json": ["HUB", "--json"],
    "cafe.txt": ["Café"],
    "cafe.json": ["Café", "--json"],
    "omega.txt": ["Ωmega"],
    "omega.json": ["Ωmega", "--json"],
    "plain.txt": ["Unicode Ünïcödé"],
    "plain.json": ["Unicode Ünïcödé", "--json"],
}


def write_show_vault(root: Path) -> Path:
    for rel, text in SHOW_VAULT.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (MTIME, MTIME))
    return root


def anthology(*argv: str, **kwargs) -> subprocess.CompletedProcess[bytes]:
    """The real command in its own process: its stdout as bytes, as a pipe gets them."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "anthology", *argv], capture_output=True, env=env, **kwargs
    )


def show_outputs(tmp: Path) -> dict[str, bytes]:
    vault = write_show_vault(tmp / "vault")
    db = tmp / "index.sqlite"
    outputs = {}
    for name, args in CASES.items():
        done = anthology("show", args[0], str(vault), "--db", str(db), *args[1:])
        assert done.returncode == 0, done.stderr.decode()
        outputs[name] = done.stdout
    return outputs


def test_show_prints_the_same_bytes_as_before(tmp_path: Path) -> None:
    outputs = show_outputs(tmp_path)
    for name, out in outputs.items():
        assert out == (GOLDEN / name).read_bytes(), name
    hub = json.loads(outputs["hub.json"])
    # The golden is worth comparing against: it has every kind of backlink.
    assert {b["relation"] for b in hub["backlinks"]} >= {"source", "paper", None}
    assert any(b["alias"] for b in hub["backlinks"]) and any(b["heading"] for b in hub["backlinks"])
    assert any(o["target"] is None for o in hub["outgoing"])


if __name__ == "__main__":  # write the goldens from the current code
    import tempfile

    GOLDEN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, out in show_outputs(Path(tmp)).items():
            (GOLDEN / name).write_bytes(out)
            print(f"{GOLDEN / name}: {len(out)} bytes")
