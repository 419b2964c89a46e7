"""Find the files of a vault, turning every I/O failure into a problem.

The scan only stats (size, mtime): a re-index compares those with the index and reads just
what changed. Hidden folders (``.obsidian``, ``.git``, ``.trash``) are skipped, as Obsidian
does. The walk is iterative (a vault 1,000 folders deep is walked, not a RecursionError) and
visits each folder's items sorted by name, depth first, so results come sorted by path.

What the scan refuses, each reported as a problem row (the rest of the vault goes on):

- **Outside the vault.** Nothing outside the vault's real path is read, however it is
  reached: a symbolic link (to a file or a folder) is followed only when its resolved target
  lies inside the vault; one that leaves it (``passwd.md -> /etc/passwd``) is reported
  (``outside-vault``) and not read. Symlinked folders inside are followed once; a loop is
  reported and cut. Every later read of a vault file goes through :func:`.files.open_regular`,
  which checks again where the opened file really is.
- **Not a regular file.** A FIFO, socket or device (or a link to one, ``/dev/zero``) is
  reported (``not-regular``) and never opened by the scan; :func:`.files.open_regular` opens
  without blocking and refuses anything but a regular file, so a file swapped for a FIFO
  after indexing cannot hang the reader.
- **Names.** A file or folder name that is not valid UTF-8 (``caf\xe9.md``) cannot be
  stored in the index as it is. It is indexed under an escaped name, reported as a
  warning (``file-name``): each byte that is not part of valid UTF-8 is written ``%XX``
  (upper-case hex) and ``%`` itself is written ``%25``, only in such names; the rest of
  the name is kept. The scheme is reversible (:func:`fs_path`): un-escaping such a name
  gives back bytes that are not valid UTF-8, which no escaped name's literal reading can
  be, so a name is un-escaped only when that gives invalid UTF-8 and no file of the
  literal name exists; the scan refuses (and reports) an escaped name that another file in
  the same folder already has literally. Names that are valid UTF-8 are never changed.
  Two paths that are equal after Unicode NFC normalization (an NFC and an NFD spelling of
  ``Café``) look identical but are two files: both are reported (``normalization-twin``).
- **Too deep.** A path the system refuses as too long (``ENAMETOOLONG``) is a problem row.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from anthology.vault.files import display_name, file_kind, is_inside, os_reason
from anthology.vault.model import ParseProblem


class VaultError(Exception):
    """The vault as a whole cannot be used (missing folder, not a folder)."""


class FileStat(NamedTuple):
    """A file as the scan finds it: a tuple, equal to its row of the index's ``files``
    table when the file is unchanged (one set lookup a file on a re-run), and 3× quicker
    to make than a frozen dataclass, 100,000 times a scan."""

    path: str  # vault-relative, POSIX separators
    size: int
    mtime_ns: int
    # The inode's change time: moves with the content and with the mode too (chmod 000
    # does not touch the mtime), so a note made unreadable, or readable again, is read
    # again and reported (issue 28).
    ctime_ns: int


@dataclass
class ScanResult:
    entries: list[FileStat] = field(default_factory=list)  # Markdown files and canvases
    attachments: list[str] = field(default_factory=list)  # every other file, vault-relative
    problems: list[tuple[str, ParseProblem]] = field(default_factory=list)


def vault_root(path: str | os.PathLike[str]) -> Path:
    """The vault folder, resolved; :class:`VaultError` with a readable message if unusable."""
    root = Path(path).expanduser()
    if not root.exists():
        raise VaultError(f"vault folder not found: {root}")
    if not root.is_dir():
        raise VaultError(f"not a folder: {root}")
    return root.resolve()


# The kinds of problem the scan reports (rewritten on every refresh, see the indexer).
SCAN_PROBLEM_KINDS = (
    "symlink-loop",
    "broken-link",
    "outside-vault",
    "not-regular",
    "file-name",
    "normalization-twin",
)


_NAME = attrgetter("name")  # a DirEntry's name, the sort key (in C, unlike a lambda)


def scan_vault(root: Path) -> ScanResult:
    """Every Markdown file and attachment under ``root`` (its real path), sorted by path."""
    result = ScanResult()
    problems = result.problems
    root_s = os.path.realpath(root)  # links inside are followed only to below this
    visited: set[tuple[int, int]] = set()

    def enter(folder: str, rel: str) -> Iterator[os.DirEntry[str]] | None:
        """The items of ``folder`` sorted by name, or None (a loop, or unreadable)."""
        try:
            st = os.stat(folder)
        except OSError as exc:
            problems.append((rel or ".", ParseProblem("unreadable", os_reason(exc))))
            return None
        key = (st.st_dev, st.st_ino)
        if key in visited:
            problems.append(
                (rel, ParseProblem("symlink-loop", "folder link loops back; not followed", None,
                                   "warning"))
            )  # fmt: skip
            return None
        visited.add(key)
        try:
            with os.scandir(folder) as it:
                items = sorted(it, key=_NAME)
        except OSError as exc:
            problems.append((rel or ".", ParseProblem("unreadable", os_reason(exc))))
            return None
        return iter(items)

    # Depth first, each folder's items in name order: the order of the recursive walk this
    # replaced. A stack of (items left to visit, their vault-relative folder). Every item is
    # looked at in the inner ``for``, which leaves it only to go down into a folder: at
    # 100,000 notes the walk's Python was ~5 µs an item, three times the stat's own cost.
    entries, attachments = result.entries, result.attachments
    first = enter(root_s, "")
    stack: list[tuple[Iterator[os.DirEntry[str]], str]] = [] if first is None else [(first, "")]
    while stack:
        items, rel = stack[-1]
        prefix = f"{rel}/" if rel else ""
        for item in items:
            name = item.name
            if name[0] == ".":
                continue
            # an ASCII name is valid UTF-8: its own display name, without the encode
            shown = name if name.isascii() else display_name(name)
            item_rel = prefix + shown
            is_md = name[-3:].lower() == ".md"
            try:
                if shown is not name:
                    if os.path.lexists(os.path.join(os.path.dirname(item.path), shown)):
                        problems.append(
                            (item_rel, ParseProblem("file-name", "file name is not valid UTF-8, "
                                                    "and its escaped name is another file's: "
                                                    "not indexed", None, "warning"))
                        )  # fmt: skip
                        continue
                    problems.append(
                        (item_rel, ParseProblem("file-name", "file name is not valid UTF-8: "
                                                f"indexed as “{item_rel}”", None, "warning"))
                    )  # fmt: skip
                if item.is_symlink():
                    try:
                        os.stat(item.path)
                    except OSError:
                        problems.append(
                            (item_rel, ParseProblem("broken-link", "symbolic link to nothing",
                                                    None, "warning"))
                        )  # fmt: skip
                        continue
                    if not is_inside(root_s, os.path.realpath(item.path)):
                        problems.append(
                            (item_rel, ParseProblem("outside-vault", "symbolic link leads "
                                                    "outside the vault; not read", None,
                                                    "warning"))
                        )  # fmt: skip
                        continue
                if item.is_dir():  # follows symlinks; loops are caught by ``visited``
                    sub = enter(item.path, item_rel)
                    if sub is not None:
                        stack.append((sub, item_rel))
                        break  # down into it; this folder's iterator goes on after it
                    continue
                if not item.is_file():
                    mode = item.stat().st_mode
                    problems.append(
                        (item_rel, ParseProblem("not-regular", f"not a regular file "
                                                f"({file_kind(mode)}); not read", None,
                                                "error" if is_md else "warning"))
                    )  # fmt: skip
                    continue
                if is_md or name[-7:].lower() == ".canvas":
                    st = item.stat()
                    entries.append(FileStat(item_rel, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
                    if not is_md:  # a canvas is an entry and a file links and embeds name
                        attachments.append(item_rel)
                else:
                    attachments.append(item_rel)
            except OSError as exc:
                problems.append((item_rel, ParseProblem("unreadable", os_reason(exc))))
        else:  # every item of this folder seen
            stack.pop()
    _report_twins(result)
    return result


def _report_twins(result: ScanResult) -> None:
    """Warn on both of two paths that are equal after NFC normalization."""
    groups: dict[str, list[str]] = {}
    # (a canvas is in both lists: once here; ASCII is its own normal form)
    every = (*(s.path for s in result.entries), *result.attachments)
    for path in dict.fromkeys(p for p in every if not p.isascii()):
        groups.setdefault(unicodedata.normalize("NFC", path), []).append(path)
    for paths in groups.values():
        if len(paths) < 2:
            continue
        for path in paths:
            others = ", ".join(f"“{p}”" for p in paths if p != path)
            result.problems.append(
                (path, ParseProblem("normalization-twin", f"looks the same as {others} (the "
                                    "same name in another Unicode normalization form); two "
                                    "files, two entries", None, "warning"))
            )  # fmt: skip


def note_vault(path: str | os.PathLike[str]) -> tuple[Path, str | None]:
    """What ``anthology PATH`` opens: ``(vault folder, note's vault-relative path or None)``.

    A folder is the vault itself. A Markdown note opens in its vault, as "Open with" from a
    file manager expects: the nearest folder above it that holds ``.obsidian/`` (Obsidian's
    mark of a vault's root), else the note's own folder. :class:`VaultError`, with one
    readable line, for a path that is missing, a file that is not Markdown, or a note the
    vault would not index (inside a hidden folder such as ``.obsidian/`` or ``.trash/``)."""
    given = Path(path).expanduser()
    if not given.exists():
        raise VaultError(f"no such folder or note: {given}")
    if given.is_dir():
        return vault_root(given), None
    if not given.name.lower().endswith(".md"):
        raise VaultError(f"not a folder or a Markdown note (.md): {given}")
    note = given.resolve()
    root = next((p for p in note.parents if (p / ".obsidian").is_dir()), note.parent)
    rel = note.relative_to(root)
    hidden = next((part for part in rel.parts[:-1] if part.startswith(".")), None)
    if hidden is not None:
        raise VaultError(
            f"{given} is inside the hidden folder {hidden}/, which a vault keeps out of its "
            "notes (settings, trash); open a note outside it"
        )
    if rel.name.startswith("."):
        raise VaultError(f"{given} is a hidden file, which a vault does not index")
    return root, rel.as_posix()
