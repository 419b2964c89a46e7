"""Find the files of a vault and read them, turning every I/O failure into a problem.

The scan only stats (size, mtime): a re-index compares those with the index and reads just
what changed. Hidden folders (``.obsidian``, ``.git``, ``.trash``) are skipped, as Obsidian
does. Symlinked folders are followed once; a loop is reported and cut.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from anthology.vault.parse import ParseProblem, _scalar, parse_parts, reading_minutes

# json.dumps(v, ensure_ascii=False), twice as fast on the small values of a row:
# JSONEncoder.encode builds a new C encoder on every call, so build one once (no
# circular-reference check: loaded properties are trees) and call it directly.
# c_make_encoder is CPython's internal helper: if it is missing or takes other arguments in
# some Python, or does not give json.dumps's text, the public encoder is used.
_encoder = json.JSONEncoder(ensure_ascii=False)
_encode_str = json.encoder.encode_basestring
_SAMPLE = {"a": [1, 2.5, None, True, 'é\n"', {"b": -0.0}], "c": ""}
try:
    _iterencode = json.encoder.c_make_encoder(  # type: ignore[attr-defined]
        None, _encoder.default, _encode_str, None, ": ", ", ", False, False, True
    )
    if "".join(_iterencode(_SAMPLE, 0)) != json.dumps(_SAMPLE, ensure_ascii=False):
        _iterencode = None
except (AttributeError, TypeError):  # pragma: no cover - another Python
    _iterencode = None


def _dumps(value: object) -> str:
    if value.__class__ is str:
        return _encode_str(value)
    if _iterencode is None:  # pragma: no cover - another Python
        return _encoder.encode(value)
    return "".join(_iterencode(value, 0))


# Past this size only the head of a file is indexed for links, tags and search: a 20 MB
# log pasted into a vault should not stall indexing. The entry pane still opens it whole.
MAX_INDEXED_BYTES = 2 * 1024 * 1024
_BINARY_SNIFF = 8192


class VaultError(Exception):
    """The vault as a whole cannot be used (missing folder, not a folder)."""


@dataclass(frozen=True, slots=True)
class FileStat:
    path: str  # vault-relative, POSIX separators
    size: int
    mtime_ns: int


@dataclass
class ScanResult:
    entries: list[FileStat] = field(default_factory=list)  # Markdown files
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


def scan_vault(root: Path) -> ScanResult:
    """Every Markdown file and attachment under ``root``, sorted by path."""
    result = ScanResult()
    visited: set[tuple[int, int]] = set()

    def walk(folder: Path, rel: str) -> None:
        try:
            st = folder.stat()
        except OSError as exc:
            result.problems.append((rel or ".", ParseProblem("unreadable", _why(exc))))
            return
        key = (st.st_dev, st.st_ino)
        if key in visited:
            result.problems.append(
                (rel, ParseProblem("symlink-loop", "folder link loops back; not followed", None,
                                   "warning"))
            )  # fmt: skip
            return
        visited.add(key)
        try:
            with os.scandir(folder) as it:
                items = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            result.problems.append((rel or ".", ParseProblem("unreadable", _why(exc))))
            return
        for item in items:
            if item.name.startswith("."):
                continue
            item_rel = f"{rel}/{item.name}" if rel else item.name
            try:
                if item.is_dir():  # follows symlinks; loops are caught by ``visited``
                    walk(Path(item.path), item_rel)
                    continue
                if not item.is_file():
                    if item.is_symlink():
                        result.problems.append(
                            (item_rel, ParseProblem("broken-link", "symbolic link to nothing",
                                                    None, "warning"))
                        )  # fmt: skip
                    continue
                if item.name.lower().endswith(".md"):
                    s = item.stat()
                    result.entries.append(FileStat(item_rel, s.st_size, s.st_mtime_ns))
                else:
                    result.attachments.append(item_rel)
            except OSError as exc:
                result.problems.append((item_rel, ParseProblem("unreadable", _why(exc))))

    walk(root, "")
    return result


def _why(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__


@dataclass(frozen=True, slots=True)
class ReadResult:
    text: str | None  # None: nothing usable could be read
    problems: list[ParseProblem]


def _read_head(path: str | os.PathLike[str], size: int) -> bytes:
    """The file's first ``MAX_INDEXED_BYTES + 1`` bytes (all of it, usually).

    ``read(MAX_INDEXED_BYTES + 1)`` would allocate a 2 MiB buffer for every 4 KiB note (most
    of a note's read time), so ask for the ``size`` that ``stat`` gave plus one byte, and
    read on until the end of the file or the limit in case it grew since.
    """
    limit = MAX_INDEXED_BYTES + 1
    with open(path, "rb", buffering=0) as fh:  # unbuffered: one read, no buffer to fill
        data = fh.read(min(size, MAX_INDEXED_BYTES) + 1)
        while data and len(data) < limit:  # a raw read may stop short of the end
            more = fh.read(limit - len(data))
            if not more:
                break
            data += more
    return data


def read_entry_text(path: str | os.PathLike[str]) -> ReadResult:
    """Read a Markdown file as text, reporting (never raising) what is wrong with it."""
    problems: list[ParseProblem] = []
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return ReadResult(None, [ParseProblem("unreadable", "not a regular file")])
        data = _read_head(path, st.st_size)
    except FileNotFoundError:
        return ReadResult(
            None, [ParseProblem("vanished", "deleted while the vault was indexed", None, "warning")]
        )
    except OSError as exc:
        return ReadResult(None, [ParseProblem("unreadable", f"cannot be read: {_why(exc)}")])
    if not data:
        return ReadResult("", [ParseProblem("empty", "the file is empty", None, "warning")])
    if b"\x00" in data[:_BINARY_SNIFF]:
        return ReadResult(None, [ParseProblem("binary", "binary data, not Markdown text")])
    if len(data) > MAX_INDEXED_BYTES:
        data = data[:MAX_INDEXED_BYTES]
        mib = st.st_size / 1024 / 1024
        problems.append(
            ParseProblem(
                "too-large",
                f"{mib:.1f} MiB: only the first {MAX_INDEXED_BYTES // 1024 // 1024} MiB are "
                "indexed for links and search",
                None,
                "warning",
            )
        )
        # Cut at a line end so no link or UTF-8 sequence is split.
        cut = data.rfind(b"\n")
        if cut > 0:
            data = data[:cut]
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


class EntryRow(NamedTuple):
    """What the index stores of one parsed entry (plain values, cheap to pickle)."""

    declared_id: str  # the ``id`` property, else the path id
    title: str
    kind: str
    status: str
    words: int
    reading_minutes: int
    body_line: int
    headings_json: str
    tags: list[str]
    aliases: list[str]
    properties_json: str
    property_rows: list[tuple[str, str]]  # (key, value as JSON)
    tags_json: str
    aliases_json: str
    body: str
    # (text, target_name, relation, embed, markdown, line, context, alias, heading, block,
    # body_start, body_end): a body link has no context (the index cuts it from the body),
    # a front-matter link no offsets.
    links: list[tuple]


def read_and_parse_rows(
    root: str, paths: Sequence[str]
) -> list[tuple[list[tuple], EntryRow | None]]:
    """Read and parse each file into the compact rows the indexer writes.

    This is the work the indexer hands to worker processes, and it lives in a module that
    imports only the parser. For each path: ``(problems, entry)`` where ``problems`` are
    ``(line, kind, message, severity)`` and ``entry`` is ``None`` when nothing could be read.
    """
    out: list[tuple[list[tuple], EntryRow | None]] = []
    for path in paths:
        read = read_entry_text(os.path.join(root, path))
        if read.text is None:
            out.append(([(p.line, p.kind, p.message, p.severity) for p in read.problems], None))
            continue
        (entry_id, title, props, aliases, tags, headings, links, body, body_line, words,
         parse_problems) = parse_parts(read.text, path, for_index=True)  # fmt: skip
        problems = [(p.line, p.kind, p.message, p.severity)
                    for p in (*read.problems, *parse_problems)]  # fmt: skip
        entry = EntryRow(
            entry_id,
            title,
            _scalar(props.get("kind")),
            _scalar(props.get("status")),
            words,
            reading_minutes(words),
            body_line,
            _dumps(headings),
            tags,
            aliases,
            _dumps(props),
            [(k, _dumps(v)) for k, v in props.items()],
            _dumps(tags),
            _dumps(aliases),
            body,
            links,
        )
        out.append((problems, entry))
    return out
