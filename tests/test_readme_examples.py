"""The README's shell examples, run or parsed as written, so the README cannot drift.

- The lines of its "Examples" block run for real, on the bundled anthology, in a temp
  folder: each exits 0 and writes what it says.
- Its "Remove everything" line runs in bash with a temp HOME (the `anthology` of this venv on
  the PATH): it removes the launcher entry and the three folders, and nothing else.
- Every other inline example (a code span that starts with ``anthology`` and is a command,
  not a synopsis with ``[…]``) is parsed by the real argument parser: an option the code does
  not have, or a required one left out, fails here.
Not run: the window itself, and ``pipx install`` (it builds in a fresh venv from the index).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from anthology import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def block_after(heading: str) -> list[str]:
    m = re.search(rf"{re.escape(heading)}\n.*?```sh\n(.+?)```", README, re.S)
    assert m, f"README has no sh block under {heading!r}"
    return [line for line in m.group(1).splitlines() if line.strip()]


def test_the_examples_run_as_written(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    lines = block_after("### Examples")
    assert len(lines) >= 8
    for line in lines:
        argv = shlex.split(line)
        assert argv[0] == "anthology", line
        code = cli.main(argv[1:])
        out, err = capsys.readouterr()
        assert code == 0, f"{line}\n{err}"
        assert "Traceback" not in err
        if "--out" in argv:
            written = tmp_path / argv[argv.index("--out") + 1]
            assert written.is_file() and written.stat().st_size > 1000, line
        if argv[1] == "search" and "--json" in argv:
            assert out.lstrip().startswith("[")
        elif argv[1] in ("search", "show", "check", "index"):
            assert out.strip(), line


def test_the_remove_everything_line_removes_exactly_that(tmp_path) -> None:
    (line,) = block_after("### Remove everything Anthology wrote")
    home = tmp_path / "home"
    kept = home / "notes" / "a.md"
    for folder in (".cache/anthology/indexes", ".local/share/anthology/vaults",
                   ".config/Anthology"):  # fmt: skip
        (home / folder).mkdir(parents=True)
        (home / folder / "file").write_text("x")
    kept.parent.mkdir()
    kept.write_text("# mine\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHOLOGY_", "XDG_"))}
    env |= {"HOME": str(home), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"}
    subprocess.run(["anthology", "install-desktop"], env=env, check=True, capture_output=True)
    assert (home / ".local/share/applications/io.anthology.Anthology.desktop").is_file()
    out = subprocess.run(["bash", "-c", line], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    left = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    # update-desktop-database's own index of every launcher entry (where that tool is
    # installed) is the desktop's, shared with other applications: it no longer names us
    cache = home / ".local/share/applications/mimeinfo.cache"
    if cache.exists():
        assert "io.anthology.Anthology" not in cache.read_text(encoding="utf-8")
        left.remove(str(cache.relative_to(home)))
    assert left == ["notes/a.md"]


PLACEHOLDERS = {"OUT": "out-vault", "~/notes": "notes", "~/notes/Projects/Plan.md": "n.md"}


def is_example(span: str) -> bool:
    """A command as one would type it: not a synopsis (``[…]``, ``|``, ``…``, an unfilled
    ``COMMAND``), nor a command's bare name in a sentence (``anthology check``)."""
    words = span.split()
    if "[" in span or "…" in span or "|" in span:
        return False
    if any(w.isupper() and w not in PLACEHOLDERS for w in words):
        return False
    return not (len(words) == 2 and words[1] in cli.COMMANDS)


def inline_examples() -> list[str]:
    return sorted({s for s in re.findall(r"`(anthology [^`]+)`", README) if is_example(s)})


@pytest.mark.parametrize("example", inline_examples())
def test_every_inline_example_parses(example: str) -> None:
    argv = [PLACEHOLDERS.get(a, a) for a in shlex.split(example)[1:]]
    try:
        if not argv or argv[0] not in cli.COMMANDS:
            if argv and argv[0] in ("-h", "--help"):
                return
            cli._gui_parser().parse_args(argv)
        else:
            if argv[0] in cli._FREE_TEXT_OPTIONS:
                argv = cli._free_text_argv(argv)
            cli.build_parser().parse_args(argv)
    except SystemExit as stop:
        pytest.fail(f"`{example}` does not parse (exit {stop.code})")


def test_the_inline_examples_are_found() -> None:
    found = inline_examples()
    assert "anthology --bundled" in found and "anthology install-desktop --remove" in found
    assert any(e.startswith("anthology screenshot OUT --out") for e in found)
