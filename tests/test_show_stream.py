"""``anthology show`` streams: the same bytes as before for a small entry, and a hub's
backlinks fetched from SQLite a batch at a time rather than all held in a list.

The goldens in ``tests/golden/show/`` were written by the list-building ``cmd_show`` (before
it streamed) on :data:`SHOW_VAULT`: regenerate them only on purpose, with
``python tests/test_show_stream.py`` (it writes the current output).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import anthology.vault.backlinks as backlinks_module
from anthology.cli import _json_link
from anthology.vault.backlinks import BACKLINK_BATCH
from anthology.vault.index import VaultIndex
from anthology.vault.model import EntryRef, LinkRow

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


SOURCES, LINKS_EACH = 100, 50  # a hub with 5,000 backlinks


@pytest.fixture
def hub_vault(tmp_path: Path) -> Path:
    root = tmp_path / "hub"
    root.mkdir()
    (root / "HUB.md").write_text("---\nid: HUB\ntitle: The hub\n---\nA hub.\n", encoding="utf-8")
    for n in range(SOURCES):
        relation = 'cites: "[[HUB]]"\n' if n % 3 == 0 else ""
        lines = "".join(f"Line {k} of S{n:03d} links [[HUB]] here.\n" for k in range(LINKS_EACH))
        text = f"---\nid: S{n:03d}\n{relation}---\n{lines}"
        (root / f"S{n:03d}.md").write_text(text, encoding="utf-8")
    return root


def test_backlinks_of_a_hub_are_fetched_a_batch_at_a_time(
    hub_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[tuple] = []  # every link row turned into a LinkRow, fetched from SQLite

    def counting(rows: list[tuple], bodies: dict[str, str] | None = None) -> list[LinkRow]:
        built.extend(rows)
        return real(rows, bodies)

    real = backlinks_module._links_from_rows
    monkeypatch.setattr(backlinks_module, "_links_from_rows", counting)
    with VaultIndex.open(hub_vault, tmp_path / "i.db") as index:
        expected = index.backlinks("HUB")
        total = len(expected)
        assert total == SOURCES * LINKS_EACH + len(range(0, SOURCES, 3)) > 2 * BACKLINK_BATCH
        assert index.backlink_count("HUB") == total
        built.clear()
        stream = index.iter_backlinks("HUB")
        first = list(itertools.islice(stream, 10))
        assert len(built) == BACKLINK_BATCH  # one batch read for the first ten, not 5,033
        list(itertools.islice(stream, BACKLINK_BATCH))
        assert len(built) == 2 * BACKLINK_BATCH
        rest = list(stream)
        assert len(built) == total
        # The same links, in the same order, with the same contexts, as the list.
        assert first + expected[10 : 10 + BACKLINK_BATCH] + rest == expected
        assert [*first, *expected[10 : 10 + BACKLINK_BATCH], *rest][:3] == expected[:3]
        assert expected[0].relation == "cites" and "links [[HUB]]" in expected[-1].context
        # A stream dropped half way leaves the index usable.
        stream = index.iter_backlinks("HUB", batch=7)
        next(stream)
        stream.close()
        assert index.backlink_count("HUB") == total


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_show_into_a_closed_pipe_stops_quietly(
    hub_vault: Path, tmp_path: Path, json_flag: list[str]
) -> None:
    """``anthology show HUB | head -1``: no traceback, no "Exception ignored", status 0."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONIOENCODING": "utf-8"}
    argv = ["show", "HUB", str(hub_vault), "--db", str(tmp_path / "i.db"), *json_flag]
    assert anthology(*argv).returncode == 0  # build the index first
    with subprocess.Popen(
        [sys.executable, "-m", "anthology", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline()  # begun (its ~500 KB are more than a pipe holds)
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait() == 0, err
    assert err == ""


def test_the_fast_json_of_a_link_is_json_dumps_of_it() -> None:
    ref = EntryRef("Ωmega 🦉", 'a "quoted" \\ title\twith\x01control\u2028sep', "n/Ω.md")
    links = [
        LinkRow(ref, ref, "Ω", "compared against", True, 3, "ctx “é”\n", "al", "h", (0, 12)),
        LinkRow(ref, None, "", None, False, 10**12, "", None, None, None),
    ]
    for link in links:
        dumped = json.dumps(dataclasses.asdict(link), ensure_ascii=False, indent=2, default=str)
        assert _json_link(link) == "\n".join("    " + line for line in dumped.split("\n"))


if __name__ == "__main__":  # write the goldens from the current code
    import tempfile

    GOLDEN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, out in show_outputs(Path(tmp)).items():
            (GOLDEN / name).write_bytes(out)
            print(f"{GOLDEN / name}: {len(out)} bytes")
