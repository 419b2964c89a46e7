"""What the query API answers with: plain dataclasses, no SQL and no Qt.

The UI draws these; the CLI prints them (``dataclasses.asdict`` gives their JSON).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

# Citing entries listed per relation in an entry's Properties box (what the window asks of
# the index for a page, and ``anthology export --format html|pdf``); a hub's others are in
# the backlinks panel, grouped by the same relations. The ladder's rungs list as many.
CITED_BY_SHOWN = 10

# An id that says something of its own, as an anthology's: "LIT-008", "SOTA-050", "HOME".
_ID_LIKE_RE = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Za-z0-9._-]+)?")


def is_path_id(entry_id: str, path: str) -> bool:
    """Whether ``entry_id`` is only the entry's path (a vault without ``id`` properties):
    then the title alone names the entry, and the path only where two titles are equal.

    The index does not keep whether the id was declared, so an id equal to the file's
    stem counts as declared when it reads as an identifier (``LIT-008.md`` of the bundled
    anthology, whose files are named after their ids), never when it holds a folder."""
    stem = path[:-3] if path.lower().endswith(".md") else path
    return entry_id == stem and ("/" in entry_id or not _ID_LIKE_RE.fullmatch(entry_id))


@dataclass(frozen=True, slots=True)  # slots: 100,000 of them live as long as a window
class EntryRef:
    """Enough of an entry to show it as a link: ``ID — Title``."""

    id: str
    title: str
    path: str  # vault-relative, with ".md"

    @property
    def label(self) -> str:
        return self.id if self.title in ("", self.id) else f"{self.id} — {self.title}"

    @property
    def has_path_id(self) -> bool:
        """Whether the id is only the path (no ``id`` property): it says nothing the title
        and the folder do not."""
        return is_path_id(self.id, self.path)

    @property
    def short_label(self) -> str:
        """The title, for an entry whose id is its path; else ``ID — Title``."""
        if self.has_path_id:
            return self.title or posixpath.basename(self.id)
        return self.label


def display_labels(refs: Sequence[EntryRef]) -> list[str]:
    """The labels of a list of entries, as the lists show them: each its
    :attr:`EntryRef.short_label`, and where two different entries of the list would read the
    same (two "Plan" notes in different folders), the folder that tells them apart, as few
    of its last parts as do: ``Plan (alpha)``, ``Plan (beta)``; ``/`` is the vault's top.
    Linear in the list (a backlinks page, the quick switcher's whole vault)."""
    out: list[str] = []
    for _ in display_label_steps(refs, out, len(refs) or 1):
        pass
    return out


def display_label_steps(
    refs: Sequence[EntryRef], out: list[str], chunk: int = 2000
) -> Iterator[None]:
    """:func:`display_labels` into ``out``, yielding after each ``chunk`` entries of each
    pass (a caller on the GUI thread spreads a folder of 12,500 over event-loop turns)."""
    labels: list[str] = []
    for c in range(0, len(refs), chunk):
        labels.extend(ref.short_label for ref in refs[c : c + chunk])
        yield
    groups: dict[str, dict[str, None]] = {}  # folded label → the distinct paths, in order
    for c in range(0, len(refs), chunk):
        for ref, label in zip(refs[c : c + chunk], labels[c : c + chunk], strict=True):
            groups.setdefault(label.casefold(), {})[ref.path] = None
        yield
    tell: dict[str, str] = {}
    for paths in groups.values():
        if len(paths) > 1:
            tell.update(telling_folders(list(paths)))
    for c in range(0, len(refs), chunk):
        out.extend(
            f"{label} ({tell[ref.path]})" if ref.path in tell else label
            for ref, label in zip(refs[c : c + chunk], labels[c : c + chunk], strict=True)
        )
        yield


def telling_folders(paths: list[str]) -> dict[str, str]:
    """For paths of entries that read the same: each one's folder, by as few of its last
    parts as tell them all apart; the path itself (no ``.md``) when folders do not."""
    folders = [posixpath.dirname(p).split("/") if "/" in p else [] for p in paths]
    for k in range(1, max(len(f) for f in folders) + 1):
        shown = ["/".join(f[-k:]) or "/" for f in folders]
        if len({s.casefold() for s in shown}) == len(paths):
            return dict(zip(paths, shown, strict=True))
    return {p: p[:-3] if p.lower().endswith(".md") else p for p in paths}


@dataclass(frozen=True)
class Relation:
    """A typed relation: a front-matter key whose value links entries.

    Forward (on the citing entry): ``relation`` = "compared against", ``other`` = the target
    (``None`` when the link does not resolve; ``text`` keeps what was written).
    Reverse (on the cited entry): ``other`` = the citing entry, read as
    "Cited as “{relation}” by {other.label}".
    """

    relation: str
    other: EntryRef | None
    text: str


@dataclass(frozen=True)
class LinkRow:
    """One link occurrence, with where it stands and the line around it."""

    source: EntryRef
    target: EntryRef | None
    text: str  # the target as written
    relation: str | None  # None: an untyped mention in the body
    embed: bool
    line: int
    context: str  # "" until filled (see VaultIndex.with_contexts) when asked for without
    alias: str | None = None
    heading: str | None = None
    # Where a body link stands in its source's indexed body (start, end); None for a
    # front-matter link, whose context is its "key: value".
    span: tuple[int, int] | None = None


@dataclass
class Entry:
    """An entry as the entry pane shows it."""

    id: str
    path: str
    title: str
    kind: str
    status: str
    tags: list[str]
    aliases: list[str]
    properties: dict[str, Any]  # front matter as written, relation keys included
    relations: list[Relation]  # forward typed relations, in front-matter order
    cited_by: list[Relation]  # reverse typed relations, sorted by relation then source id
    body: str  # Markdown after the front matter
    body_line: int  # the file line on which ``body`` starts (1-based)
    words: int
    reading_minutes: int
    headings: list[tuple[int, str]] = field(default_factory=list)  # (level, text)
    mtime: float = 0.0
    # How many entries cite this one under each relation; ``cited_by`` may hold fewer
    # (see ``VaultIndex.entry``'s ``cited_by_limit``).
    cited_by_total: dict[str, int] = field(default_factory=dict)
    # None: ``body`` is the whole body. Else ``body`` is only its head (a huge file is not
    # read whole to be shown) and this is about the whole body's length in characters.
    body_chars: int | None = None
    # Dataview's inline fields of the page (``Key:: value``, ``[key:: value]``): key as
    # written → the raw texts of its values (see anthology.vault.note_fields)
    inline_fields: dict[str, list[str]] = field(default_factory=dict)


# Search snippets mark matches with these control characters: the UI makes them bold,
# the CLI brackets them. Neither can occur in an indexed text (they are stripped).
MATCH_START = "\x02"
MATCH_END = "\x03"


@dataclass(frozen=True)
class SearchHit:
    entry: EntryRef
    kind: str
    snippet: str  # plain text; each match wrapped in MATCH_START … MATCH_END
    score: float


@dataclass(frozen=True)
class Problem:
    """A finding of ``anthology check``: a broken file, an unresolved link, …"""

    path: str
    line: int | None
    kind: str  # "yaml", "encoding", "unresolved-link", "ambiguous-link", "duplicate-id", …
    message: str
    severity: str = "error"  # "error" or "warning"


@dataclass(frozen=True, slots=True)
class ParseProblem:
    """A file's problem as the scan or the parser finds it (the index adds its path).
    Here, not in :mod:`.parse`: the scan reports them without loading the parser."""

    kind: str
    message: str
    line: int | None = None
    severity: str = "error"


class EntryLookup(Protocol):
    """What the renderer asks the index while turning an entry into HTML."""

    def resolve(self, target: str, source_path: str) -> EntryRef | None:
        """The entry a link target names, from the entry at ``source_path``; None if none."""
        ...

    def attachment(self, target: str, source_path: str) -> Path | None:
        """Absolute path of a non-Markdown file inside the vault, or None (missing/outside)."""
        ...

    def embed_body(self, entry_id: str) -> str | None:
        """The Markdown body (no front matter) of an entry, for ``![[transclusion]]``."""
        ...
