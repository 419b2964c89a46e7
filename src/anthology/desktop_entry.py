"""Anthology in the desktop's launcher: the freedesktop.org files pip cannot place.

``pip install`` puts a console script on disk, not a launcher entry: a Linux desktop finds
applications through ``.desktop`` files, their icons through the icon theme, and software
centres describe them from AppStream metadata, all under ``$XDG_DATA_HOME`` (by default
``~/.local/share``) for one user. :func:`install` writes the three from ``resources/desktop``
and ``resources/icons``, with ``Exec`` naming the very ``anthology`` that runs it (a venv's
script is rarely on the launcher's ``PATH``); :func:`uninstall` removes exactly those files.
The ``.desktop`` entry claims folders (``inode/directory``) and Markdown notes
(``text/markdown``), so a file manager's "Open with" offers Anthology for both
(``anthology PATH`` opens a folder as a vault, a note in its vault). Qt-free.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from anthology.paths import resource

APP_ID = "io.anthology.Anthology"


def data_home() -> Path:
    """``$XDG_DATA_HOME``, else ``~/.local/share`` (the XDG Base Directory default)."""
    env = os.environ.get("XDG_DATA_HOME", "")
    return Path(env) if os.path.isabs(env) else Path.home() / ".local" / "share"


def targets(base: Path | None = None) -> dict[str, Path]:
    """Where each file goes: the launcher entry, the icon, the AppStream metadata."""
    base = data_home() if base is None else base
    return {
        "desktop": base / "applications" / f"{APP_ID}.desktop",
        "icon": base / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg",
        "metainfo": base / "metainfo" / f"{APP_ID}.metainfo.xml",
    }


def _quote_exec_arg(arg: str) -> str:
    """One argument of an ``Exec`` line (Desktop Entry Specification, "The Exec key"):
    quoted when it holds a reserved character, with ``"`` `` ` `` ``$`` ``\\`` escaped; then
    every backslash doubled again, as the string type's own escape rule requires."""
    reserved = set(" \t\n\"'\\><~|&;$*?#()`")
    if arg and not reserved & set(arg):
        quoted = arg
    else:
        inner = "".join("\\" + c if c in '"`$\\' else c for c in arg)
        quoted = f'"{inner}"'
    return quoted.replace("\\", "\\\\").replace("%", "%%")


def launch_command() -> list[str]:
    """The command that starts this Anthology: its ``anthology`` script beside the running
    interpreter (a venv's, a pipx app's), else ``python -m anthology``."""
    script = Path(sys.executable).parent / ("anthology.exe" if os.name == "nt" else "anthology")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    found = shutil.which("anthology")
    if found:
        return [found]
    return [sys.executable, "-m", "anthology"]


def desktop_text(command: list[str] | None = None) -> str:
    """The ``.desktop`` entry, its ``Exec`` and ``TryExec`` naming ``command``."""
    command = launch_command() if command is None else command
    lines = []
    for line in resource("desktop", f"{APP_ID}.desktop").read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = "Exec=" + " ".join(map(_quote_exec_arg, command)) + " %f"
        elif line.startswith("TryExec="):
            line = "TryExec=" + command[0].replace("\\", "\\\\")
        lines.append(line)
    return "\n".join(lines) + "\n"


def install(base: Path | None = None, command: list[str] | None = None) -> list[Path]:
    """Write the launcher entry, the icon and the metainfo; the paths written."""
    where = targets(base)
    for path in where.values():
        path.parent.mkdir(parents=True, exist_ok=True)
    where["desktop"].write_text(desktop_text(command), encoding="utf-8")
    shutil.copyfile(resource("icons", "anthology.svg"), where["icon"])
    shutil.copyfile(resource("desktop", f"{APP_ID}.metainfo.xml"), where["metainfo"])
    _refresh_caches(where)
    return list(where.values())


def uninstall(base: Path | None = None) -> list[Path]:
    """Remove what :func:`install` wrote (only those files); the paths removed."""
    removed = []
    for path in targets(base).values():
        if path.is_file() or path.is_symlink():
            path.unlink()
            removed.append(path)
    if removed:
        _refresh_caches(targets(base))
    return removed


def _refresh_caches(where: dict[str, Path]) -> None:
    """Tell the desktop of the new "Open with" types now rather than at the next login,
    where its tool is installed (optional: the entry is found without it)."""
    exe = shutil.which("update-desktop-database")
    folder = where["desktop"].parent
    if exe and folder.is_dir():
        subprocess.run([exe, "-q", str(folder)], capture_output=True, check=False)
