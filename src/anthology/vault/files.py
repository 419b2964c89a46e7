"""Open and read a vault's files safely: the one way any vault file is opened.

Every read of a vault file goes through :func:`open_regular`, which checks where the opened
file really is, so a link, a FIFO or a device can neither leak a file from outside the vault
nor hang the reader:

- **Outside the vault.** A symbolic link (to a file or a folder) is followed only when its
  resolved target lies inside the vault (``passwd.md -> /etc/passwd`` is refused).
- **Not a regular file.** A FIFO, socket or device (or a link to one, ``/dev/zero``) is
  opened without blocking and refused, so a file swapped for a FIFO after indexing cannot
  hang the reader.
- **Names.** A file or folder name that is not valid UTF-8 (``caf\\xe9.md``) cannot be
  stored in the index as it is. It is indexed under an escaped name (:func:`display_name`):
  each byte that is not part of valid UTF-8 is written ``%XX`` (upper-case hex) and ``%``
  itself is written ``%25``, only in such names; the rest of the name is kept. The scheme is
  reversible (:func:`fs_path`): un-escaping such a name gives back bytes that are not valid
  UTF-8, which no escaped name's literal reading can be, so a name is un-escaped only when
  that gives invalid UTF-8 and no file of the literal name exists. Names that are valid
  UTF-8 are never changed.
"""

from __future__ import annotations

import codecs
import errno
import io
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from anthology.vault.model import ParseProblem

# Past this size only the head of a file is indexed for links, tags and search: a 20 MB
# log pasted into a vault should not stall indexing. The entry pane still opens it whole.
MAX_INDEXED_BYTES = 2 * 1024 * 1024
_BINARY_SNIFF = 8192


class NotRegularFile(OSError):
    """A vault path that is a FIFO, socket, device or folder: never read."""


class OutsideVault(OSError):
    """A vault path whose real location lies outside the vault: never read."""


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, for a message (``os.lstat`` mode)."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((name for test, name in kinds if test(mode)), "not a file")


def display_name(name: str) -> str:
    """The name under which a file name (as ``os.scandir`` gives it) is indexed: itself
    when it is valid UTF-8, else escaped as the module docstring says (``caf%E9.md``)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return name
    out = []
    for c in name:
        if c == "%":
            out.append("%25")
        elif "\udc80" <= c <= "\udcff":  # surrogateescape: an undecodable byte
            out.append(f"%{ord(c) - 0xDC00:02X}")
        elif "\ud800" <= c <= "\udfff":  # pragma: no cover - a lone surrogate (Windows)
            out.extend(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
        else:
            out.append(c)
    return "".join(out)


def _unescaped(name: str) -> str | None:
    """The file-system name an escaped ``name`` stands for, or None when ``name`` cannot
    be an escaped name (un-escaping it gives valid UTF-8)."""
    if "%" not in name:
        return None
    from urllib.parse import unquote_to_bytes

    raw = unquote_to_bytes(name)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return os.fsdecode(raw)
    return None


def fs_path(root: str | os.PathLike[str], rel: str) -> str:
    """The file-system path of the indexed vault-relative ``rel``: ``root`` joined with it,
    each escaped name (see :func:`display_name`) turned back into its real bytes."""
    root = os.fspath(root)
    if "%" not in rel:  # the usual case: nothing was escaped
        return os.path.join(root, rel)
    path = root
    for part in rel.split("/"):
        literal = os.path.join(path, part)
        real = _unescaped(part)
        if real is not None and not os.path.lexists(literal):
            path = os.path.join(path, real)
        else:
            path = literal
    return path


def vault_file(root: Path, rel: str) -> Path | None:
    """The real path of the regular file ``rel`` of the vault at the resolved ``root``, or
    None when it is missing, not a file, or lies outside the vault once links are followed."""
    path = Path(fs_path(root, rel)).resolve()  # an escaped name: the real file
    return path if path.is_relative_to(root) and path.is_file() else None


def is_inside(root: str, real: str) -> bool:
    """``real`` is ``root`` or a path under it (both real paths, as strings)."""
    return real == root or real.startswith(root if root.endswith(os.sep) else root + os.sep)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def _opener(path: str, flags: int) -> int:
    # Non-blocking: opening a FIFO for reading would otherwise wait for a writer, forever.
    # No following the last component: a link is resolved and checked before it is opened.
    return os.open(path, _OPEN_FLAGS | _NOFOLLOW)


def _opened_path(fd: int, path: str) -> str:
    """Where the open file ``fd`` really is: the kernel's answer where there is one (one
    system call, and race-free), else ``path`` resolved (30 µs: too slow for every file)."""
    if sys.platform.startswith("linux"):
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # pragma: no cover - no /proc
            pass
    elif sys.platform == "darwin":  # pragma: no cover - macOS
        import fcntl

        try:
            return os.fsdecode(fcntl.fcntl(fd, fcntl.F_GETPATH, b"\0" * 1024).rstrip(b"\0"))
        except (OSError, AttributeError):
            pass
    return os.path.realpath(path)  # pragma: no cover - other systems


def open_regular(root: str | os.PathLike[str], rel: str) -> tuple[io.FileIO, os.stat_result]:
    """Open the vault file ``rel`` (vault-relative, as indexed) for reading, unbuffered,
    and its ``fstat``; the one way every vault file is opened.

    ``root`` must be the vault's real path (:func:`vault_root`). Raises :class:`OutsideVault`
    when the file really lies outside it (through a link, however reached),
    :class:`NotRegularFile` for a FIFO, device, socket or folder (it is opened without
    blocking and refused; nothing is read), and :class:`OSError` as ``open`` does.
    """
    root = os.fspath(root)
    path = fs_path(root, rel)
    try:
        fh = open(path, "rb", buffering=0, opener=_opener)  # noqa: SIM115 - returned open
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EMLINK) or not os.path.islink(path):
            raise
        # The file is a symbolic link: follow it only to a place inside the vault.
        real = os.path.realpath(path)
        if not is_inside(root, real) and not is_inside(os.path.realpath(root), real):
            raise OutsideVault(errno.EACCES, "a symbolic link that leaves the vault") from None
        fh = open(real, "rb", buffering=0, opener=_opener)  # noqa: SIM115 - returned open
    try:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(errno.EINVAL, f"not a regular file ({file_kind(st.st_mode)})")
        # A folder on the way may be a link (or swapped for one since the scan): where the
        # opened file is decides. The slower resolution confirms before refusing.
        if not is_inside(root, _opened_path(fh.fileno(), path)):
            real_root = os.path.realpath(root)  # a root given unresolved, or relative
            if not is_inside(real_root, os.path.realpath(path)):
                raise OutsideVault(errno.EACCES, "outside the vault (through a symbolic link)")
    except BaseException:
        fh.close()
        raise
    return fh, st


def os_reason(exc: OSError) -> str:
    """Why the system refused, in its words: ``Permission denied``."""
    return exc.strerror or exc.__class__.__name__


@dataclass(frozen=True, slots=True)
class ReadResult:
    text: str | None  # None: nothing usable could be read
    problems: list[ParseProblem]


def _read_head(fh: io.FileIO, size: int) -> bytes:
    """The file's first ``MAX_INDEXED_BYTES + 1`` bytes (all of it, usually).

    ``read(MAX_INDEXED_BYTES + 1)`` would allocate a 2 MiB buffer for every 4 KiB note (most
    of a note's read time), so ask for the ``size`` that ``stat`` gave plus one byte, and
    read on until the end of the file or the limit in case it grew since.
    """
    limit = MAX_INDEXED_BYTES + 1
    data = fh.read(min(size, MAX_INDEXED_BYTES) + 1) or b""
    while data and len(data) < limit:  # a raw read may stop short of the end
        more = fh.read(limit - len(data))
        if not more:
            break
        data += more
    return data


#: How far back from the size limit a line end is looked for, then a space: a note of one
#: long line (200,000 links written on one line) cut at its last line end kept its title only.
CUT_WINDOW = 64 * 1024


def _cut_head(data: bytes) -> bytes:
    """The head of a file over the size limit, cut where nothing is split: at a line end near
    the end, else a space or tab near it (a link or word at the cut may be lost, not the
    line), else at a character's end."""
    floor = max(0, len(data) - CUT_WINDOW)
    for mark in (b"\n", b" ", b"\t"):
        cut = data.rfind(mark, floor)
        if cut > 0:
            return data[:cut]
    return utf8_cut(data)


def utf8_cut(data: bytes) -> bytes:
    """``data`` without a UTF-8 sequence cut off at its end (at most 3 bytes dropped)."""
    end = len(data)
    i = end - 1
    while i >= 0 and end - i <= 4 and data[i] & 0xC0 == 0x80:  # continuation bytes
        i -= 1
    if i < 0 or end - i > 4:
        return data
    lead = data[i]
    if lead >> 5 == 0b110:
        need = 2
    elif lead >> 4 == 0b1110:
        need = 3
    elif lead >> 3 == 0b11110:
        need = 4
    else:  # ASCII, or not UTF-8 at all: nothing to keep whole
        need = 1
    return data[:i] if end - i < need else data


def read_entry_text(root: str | os.PathLike[str], rel: str) -> ReadResult:
    """Read the Markdown file ``rel`` of the vault at ``root`` as text, reporting (never
    raising) what is wrong with it."""
    problems: list[ParseProblem] = []
    try:
        fh, st = open_regular(root, rel)
        with fh:
            data = _read_head(fh, st.st_size)
    except FileNotFoundError:
        return ReadResult(
            None, [ParseProblem("vanished", "deleted while the vault was indexed", None, "warning")]
        )
    except (NotRegularFile, OutsideVault) as exc:
        return ReadResult(None, [ParseProblem("unreadable", f"not read: {exc.strerror}")])
    except OSError as exc:
        return ReadResult(None, [ParseProblem("unreadable", f"cannot be read: {os_reason(exc)}")])
    if not data:
        return ReadResult("", [ParseProblem("empty", "the file is empty", None, "warning")])
    if b"\x00" in data[:_BINARY_SNIFF]:
        return ReadResult(None, [ParseProblem("binary", "binary data, not Markdown text")])
    if len(data) > MAX_INDEXED_BYTES:
        data = data[:MAX_INDEXED_BYTES]
        mib = max(st.st_size, len(data)) / 1024 / 1024
        problems.append(
            ParseProblem(
                "too-large",
                f"{mib:.1f} MiB: only the first {MAX_INDEXED_BYTES // 1024 // 1024} MiB are "
                "indexed for links and search",
                None,
                "warning",
            )
        )
        data = _cut_head(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        text = data.decode("utf-8", "replace")
        problems.append(
            ParseProblem(
                "encoding",
                f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                "undecodable bytes are shown as �",
                line,
            )
        )
    if "\x02" in text or "\x03" in text:  # reserved as search-snippet markers
        text = text.replace("\x02", "").replace("\x03", "")
    return ReadResult(text, problems)


# How much of an entry's body the reading pane is given: the renderer shows at most its
# MAX_BODY_CHARS (100,000) and says when it cut; a little more lets it see that it must.
SHOWN_BODY_CHARS = 100_000 + 2_000
_SHOWN_READ = 256 * 1024


@dataclass(frozen=True, slots=True)
class ShownText:
    body: str  # the body, or its first SHOWN_BODY_CHARS characters
    body_line: int
    body_chars: int | None  # None: ``body`` is whole; else about how long the whole is


def read_shown_body(root: str | os.PathLike[str], rel: str) -> ShownText | None:
    """The body of the vault file ``rel`` as the reading pane shows it, reading only what is
    shown: its front matter and the first :data:`SHOWN_BODY_CHARS` characters after, not a
    200 MB file in full on every open and hover. None when it cannot be read.

    Front matter is looked for in the first ``MAX_INDEXED_BYTES`` at most, as the indexer
    does. Undecodable bytes are shown as U+FFFD."""
    from anthology.vault.frontmatter import split_front_matter  # YAML: not for a scan

    try:
        fh, st = open_regular(root, rel)
    except OSError:
        return None
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    parts: list[str] = []
    read = 0
    whole = False
    searched = 0  # no closing fence of front matter starts before this offset
    with fh:
        while True:
            try:
                chunk = fh.read(_SHOWN_READ)
            except OSError:
                return None
            if not chunk:
                parts.append(decoder.decode(b"", final=True))
                whole = True
                break
            read += len(chunk)
            parts.append(decoder.decode(chunk))
            text = "".join(parts)
            split = split_front_matter(text, searched)
            if split.yaml_text is None:  # no closing fence in what was read: the next
                searched = max(0, len(text) - 1024)  # search starts near its end (a line
                # cut at the end of this part is searched again)
            # An opening fence whose close has not been read yet: read on, up to the limit.
            open_fence = split.yaml_text is None and text.lstrip("\ufeff").startswith("---")
            if len(split.body) > SHOWN_BODY_CHARS and (not open_fence or read >= MAX_INDEXED_BYTES):
                break
            parts = [text]
    split = split_front_matter("".join(parts), searched)
    body = split.body
    if whole and len(body) <= SHOWN_BODY_CHARS:
        return ShownText(body, split.body_line, None)
    # The rest of the file counted a character a byte: exact for ASCII, an upper bound else.
    return ShownText(
        body[:SHOWN_BODY_CHARS], split.body_line, len(body) + max(0, st.st_size - read)
    )
