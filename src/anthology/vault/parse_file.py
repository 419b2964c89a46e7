"""Read one vault file and parse it, never raising: what a worker of the indexer does.

Whatever goes wrong in one file stays that file's problem: an I/O failure is a problem and
no entry; an exception while parsing (a parser bug, a value nothing foresaw) becomes an
``unparsable`` problem and the file is indexed as malformed front matter is, without its
properties (see :func:`_fallback`). Imports only the parser: a worker starts quickly.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from anthology.vault.files import read_entry_text
from anthology.vault.frontmatter import split_front_matter
from anthology.vault.parse import ParsedEntry, ParseProblem, count_words, parse_entry
from anthology.vault.resolve import path_id

# A file read and parsed: its problems, and its entry (None when nothing could be read).
FileParse = tuple[list[ParseProblem], ParsedEntry | None]


def parse_files(root: str, paths: Sequence[str]) -> list[FileParse]:
    """Read and parse each vault-relative path of the vault at ``root`` for the index."""
    out: list[FileParse] = []
    for path in paths:
        try:
            out.append(_read_and_parse(root, path))
        except Exception as exc:  # one file must not stop the vault
            out.append(_fallback(root, path, exc))
    return out


def _read_and_parse(root: str, path: str) -> FileParse:
    if path[-7:].lower() == ".canvas":  # a board: its cards' text and links (vault/canvas)
        from anthology.vault.canvas.index import read_canvas_entry

        return read_canvas_entry(root, path)
    read = read_entry_text(root, path)
    if read.text is None:
        return read.problems, None
    entry = parse_entry(read.text, path, for_index=True)
    return [*read.problems, *entry.problems], entry


def _brief(exc: BaseException) -> str:
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _fallback(root: str, path: str, exc: Exception) -> FileParse:
    """What is indexed of a file whose parse raised ``exc``: the file parsed again with its
    front matter blanked out (line numbers kept), as a file with malformed front matter is
    indexed; if that raises too, its bare text (title from the file name, no links)."""
    problem = ParseProblem(
        "unparsable", f"could not be parsed ({_brief(exc)}); indexed without its front matter"
    )
    try:
        read = read_entry_text(root, path)
        if read.text is None:
            return [problem, *read.problems], None
        text = read.text
    except Exception as again:  # an I/O oddity nothing foresaw
        return [ParseProblem("unparsable", f"could not be read ({_brief(again)})")], None
    split = split_front_matter(text)
    blank = text
    if split.yaml_text is not None:  # as many lines, so link lines stay right
        blank = "---\n" + "\n" * max(0, split.body_line - 3) + "---\n" + split.body
    try:
        entry = parse_entry(blank, path, for_index=True)._replace(problems=[])
    except Exception:  # the body itself trips the parser: keep its text
        body = split.body
        title = os.path.splitext(os.path.basename(path))[0]
        entry = ParsedEntry(path_id(path), title, {}, [], [], [], [], body, split.body_line,
                            count_words(body), [])  # fmt: skip
    return [*read.problems, problem], entry
