"""A newcomer's first start: what `anthology PATH` opens, what a bad start says, the
launcher entry, an index that knows its vault, and a cache folder that cannot be written.

Every bad start is one line on standard error and exit status 2 (3: no window can open
here), before any window: never a traceback, a signal or an empty window."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from anthology import cli, desktop_entry, paths
from anthology.vault import VaultError, VaultIndex, note_vault


def write(path: Path, text: str = "# A note\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """What the window would have been opened on (run_gui replaced: no window here)."""
    calls: list[tuple] = []
    from anthology.ui import app

    def fake_run_gui(vault, *, db=None, entry=None) -> int:
        calls.append((vault, db, entry))
        return 0

    monkeypatch.setattr(app, "run_gui", fake_run_gui)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")  # the display check passes
    return calls


# ------------------------------------------------------------------ what PATH opens
def test_a_folder_is_the_vault_and_a_note_opens_in_its_vault(tmp_path: Path) -> None:
    vault = tmp_path / "Мои заметки 2026"  # spaces and non-Latin letters
    (vault / ".obsidian").mkdir(parents=True)
    note = write(vault / "Projects" / "Deep dive" / "Plan v2.1 🚀.md")
    assert note_vault(vault) == (vault.resolve(), None)
    assert note_vault(note) == (vault.resolve(), "Projects/Deep dive/Plan v2.1 🚀.md")
    # no .obsidian/ above it: the note's own folder is the vault
    loose = write(tmp_path / "loose" / "inbox" / "idea.md")
    assert note_vault(loose) == ((tmp_path / "loose" / "inbox").resolve(), "idea.md")


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda t: t / "missing", "no such folder or note"),
        (lambda t: write(t / "v" / "photo.png"), "not a folder or a Markdown note"),
        (lambda t: write(t / "v" / ".obsidian" / "workspace.md"), "hidden folder .obsidian/"),
        (lambda t: write(t / "v" / ".trash" / "old.md"), "hidden folder .trash/"),
        (lambda t: write(t / "v" / ".draft.md"), "hidden file"),
    ],
)
def test_a_bad_path_is_one_line_and_exit_2_before_any_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], opened: list, make, says: str
) -> None:
    (tmp_path / "v" / ".obsidian").mkdir(parents=True)
    path = make(tmp_path)
    with pytest.raises(VaultError, match=says):
        note_vault(path)
    assert cli.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err and err.startswith("anthology: ")
    assert opened == []  # no window


def test_the_window_form_reaches_the_window_with_vault_and_note(
    tmp_path: Path, opened: list
) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    note = write(vault / "Daily notes" / "2026-12-05.md")
    assert cli.main([str(note)]) == 0
    assert opened[-1] == (vault.resolve(), None, "Daily notes/2026-12-05.md")
    assert cli.main([str(vault), "--entry", "x"]) == 0
    assert opened[-1] == (vault.resolve(), None, "x")
    assert cli.main(["--bundled"]) == 0
    assert opened[-1] == (paths.entries_dir(), None, None)
    assert cli.main([]) == 0
    assert opened[-1] == (None, None, None)  # the window reopens the vault read last


def test_contradictory_window_arguments_are_refused(tmp_path: Path, opened: list) -> None:
    note = write(tmp_path / "v" / "n.md")
    for argv in ([str(tmp_path / "v"), "--bundled"], [str(note), "--entry", "other"]):
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        assert stop.value.code == 2
    assert opened == []


def test_help_shows_the_window_form_beside_the_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["--help"], ["-h"]):
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        assert stop.value.code == 0
        out = capsys.readouterr().out
        assert "anthology [VAULT | NOTE.md] [--entry ID] [--bundled]" in out
        assert "the vault read last (the bundled anthology the first time)" in out
        assert "install-desktop" in out and "screenshot" in out


# ------------------------------------------------------------------ the index knows its vault
def test_an_index_built_for_another_vault_is_rebuilt_for_this_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = tmp_path / "one"
    two = tmp_path / "two"
    write(one / "HOME.md", "# One\n[[alpha]]\n")
    write(one / "alpha.md")
    write(two / "HOME.md", "# Two\n[[beta]]\n")
    write(two / "beta.md")
    db = tmp_path / "shared.sqlite"
    with VaultIndex.open(one, db) as index:
        assert index.notice is None and index.entry_ref("alpha") is not None
    with VaultIndex.open(two, db) as index:
        assert index.notice and "built for another vault" in index.notice
        assert str(one.resolve()) in index.notice
        assert index.entry_ref("alpha") is None and index.entry_ref("beta") is not None
        assert "# Two" in index.entry("HOME").body
    with VaultIndex.open(two, db) as index:  # its own now: nothing to say
        assert index.notice is None
    assert cli.main(["show", "HOME", str(one), "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    assert "built for another vault" in err and err.count("\n") == 1
    assert "alpha" in out and "beta" not in out


# ------------------------------------------------------------------ a cache that cannot be written
def test_an_unwritable_cache_folder_still_reads_the_vault(tmp_path: Path) -> None:
    """A read-only HOME (here: a file where the home folder should be, which even root
    cannot write into): one line says where the index went, and the command answers."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    vault = tmp_path / "vault"
    write(vault / "HOME.md", "# Home\n[[a]]\n")
    write(vault / "a.md", "# A\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHOLOGY_", "XDG_"))}
    env["HOME"] = str(blocker / "home")
    out = subprocess.run([sys.executable, "-m", "anthology", "check", str(vault)], env=env,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "0 errors" in out.stdout
    lines = [line for line in out.stderr.splitlines() if line.startswith("anthology:")]
    assert len(lines) == 1 and "cannot be written" in lines[0] and "for this run only" in lines[0]
    assert "Traceback" not in out.stderr


# ------------------------------------------------------------------ the launcher entry
def test_install_desktop_writes_a_launcher_entry_icon_and_metainfo(tmp_path: Path) -> None:
    base = tmp_path / "share"
    command = [str(tmp_path / "my venv" / "bin" / "anthology")]  # a path with a space
    written = desktop_entry.install(base, command)
    assert sorted(p.name for p in written) == sorted([
        "io.anthology.Anthology.desktop", "io.anthology.Anthology.svg",
        "io.anthology.Anthology.metainfo.xml"])  # fmt: skip
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(base / "applications" / "io.anthology.Anthology.desktop", encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Name"] == "Anthology"
    # quoted as the Desktop Entry Specification asks, then escaped as a string value
    assert entry["Exec"] == f'"{tmp_path}/my venv/bin/anthology" %f'
    assert entry["Icon"] == desktop_entry.APP_ID
    assert {"inode/directory", "text/markdown"} <= set(entry["MimeType"].strip(";").split(";"))
    icon = base / "icons" / "hicolor" / "scalable" / "apps" / "io.anthology.Anthology.svg"
    assert ET.parse(icon).getroot().tag.endswith("svg")
    meta = ET.parse(base / "metainfo" / "io.anthology.Anthology.metainfo.xml").getroot()
    assert meta.findtext("id") == desktop_entry.APP_ID
    assert meta.find("launchable").text == "io.anthology.Anthology.desktop"
    assert meta.findtext("project_license") == "MIT"
    validate = shutil.which("desktop-file-validate")  # desktop-file-utils, where installed
    if validate:
        check = subprocess.run([validate, str(written[0])], capture_output=True, text=True)
        assert check.returncode == 0 and "error" not in check.stdout, check.stdout
    assert sorted(desktop_entry.uninstall(base)) == sorted(written)
    # left: at most update-desktop-database's index of all entries (the desktop's own)
    left = [p.name for p in base.rglob("*") if p.is_file()]
    assert left in ([], ["mimeinfo.cache"])
    assert desktop_entry.uninstall(base) == []


def test_exec_arguments_are_quoted_by_the_specs_rules() -> None:
    q = desktop_entry._quote_exec_arg
    assert q("/usr/bin/anthology") == "/usr/bin/anthology"
    assert q("/opt/my apps/anthology") == '"/opt/my apps/anthology"'
    assert q('/a"b$c') == '"/a\\\\"b\\\\$c"'  # \" and \$, each backslash doubled again
    assert q("/50%/x") == "/50%%/x"


def test_the_command_installs_and_removes(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert cli.main(["install-desktop"]) == 0
    out = capsys.readouterr().out
    desktop = tmp_path / "share" / "applications" / "io.anthology.Anthology.desktop"
    assert desktop.is_file() and f"Wrote {desktop}" in out
    exec_line = next(ln for ln in desktop.read_text().splitlines() if ln.startswith("Exec="))
    launcher = exec_line.removeprefix("Exec=").rsplit(" %f", 1)[0].strip('"')
    assert Path(launcher.split(" -m ")[0]).exists()  # names this very Anthology
    assert cli.main(["install-desktop", "--remove"]) == 0
    assert not desktop.exists() and "3 files removed" in capsys.readouterr().out


def test_the_window_has_its_icon_and_the_project_its_licence() -> None:
    root = Path(__file__).resolve().parent.parent
    icon = paths.resource("icons", "anthology.svg")
    assert ET.parse(icon).getroot().tag.endswith("svg")
    assert "MIT License" in (root / "LICENSE").read_text(encoding="utf-8")
