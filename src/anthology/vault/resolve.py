"""Link resolution: which entry (or attachment) a link's target text names.

Case-insensitive, tried in this order, the first kind that matches wins:
id → vault path → file name → path suffix (a target with ``/``) → alias.
Several candidates of the same kind: the one in the source's folder, then the shortest path,
then the first by path — and the link is reported as ambiguous. A Markdown link
(``[x](a/b.md)``) is first read relative to its source's folder, as Markdown means it; a
``./x`` or ``../x`` link only there. A same-note link (``[[#Heading]]``) names its own entry.
The README's entry-format table lists every form.
Unresolved links are kept (status ``unresolved``); a path climbing out of the vault is
``outside`` and never followed.
"""

from __future__ import annotations

import json
import posixpath
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from anthology.vault.links import is_attachment
from anthology.vault.rows import LinkTarget, ParsedLink

RESOLVED = "resolved"
AMBIGUOUS = "ambiguous"
UNRESOLVED = "unresolved"
ATTACHMENT = "attachment"
MISSING_ATTACHMENT = "missing-attachment"
OUTSIDE = "outside"


@dataclass(frozen=True, slots=True)
class Resolution:
    status: str
    target: str | None = None  # entry id, or the attachment's vault path
    candidates: tuple[str, ...] = ()  # entry ids when ambiguous


@dataclass(frozen=True, slots=True)
class NamedEntry:
    id: str
    path: str  # vault-relative, with ".md"
    aliases: tuple[str, ...] = ()


def path_id(path: str) -> str:
    """The id of an entry that has no ``id`` property: its vault-relative path, no ``.md``."""
    return path[:-3] if path.lower().endswith(".md") else path


def target_key(target: str) -> str:
    """The normalised form under which a link target is looked up (and indexed)."""
    t = target.strip().replace("\\", "/").lower()
    if t.endswith(".md"):
        t = t[:-3]
    return t.lstrip("/")


def name_keys(entry: NamedEntry) -> set[str]:
    """Every key under which ``entry`` can be named: a changed entry invalidates these."""
    stem = path_id(entry.path).lower()
    parts = stem.split("/")
    keys = {entry.id.lower(), stem, *(a.lower() for a in entry.aliases)}
    keys.update("/".join(parts[i:]) for i in range(len(parts)))
    return keys


class Resolver:
    """Answers :meth:`resolve` from an in-memory map of names; rebuilt when entries change."""

    def __init__(self, entries: Iterable[NamedEntry], attachments: Iterable[str] = ()) -> None:
        self.by_id: dict[str, list[NamedEntry]] = defaultdict(list)
        self.by_path: dict[str, NamedEntry] = {}
        self.by_name: dict[str, list[NamedEntry]] = defaultdict(list)
        self.by_suffix: dict[str, list[NamedEntry]] = defaultdict(list)
        self.by_alias: dict[str, list[NamedEntry]] = defaultdict(list)
        for e in entries:
            self.add(e)
        self.attachments: dict[str, str] = {}
        self.attachment_names: dict[str, list[str]] = defaultdict(list)
        for a in attachments:
            self.attachments[a.lower()] = a
            self.attachment_names[posixpath.basename(a).lower()].append(a)

    def add(self, e: NamedEntry) -> None:
        stem = path_id(e.path).lower()
        self.by_id[e.id.lower()].append(e)
        self.by_path[stem] = e
        parts = stem.split("/")
        self.by_name[parts[-1]].append(e)
        for i in range(1, len(parts) - 1):
            self.by_suffix["/".join(parts[i:])].append(e)
        for alias in e.aliases:
            self.by_alias[alias.lower()].append(e)

    def resolve(self, target: str, source_path: str, *, markdown: bool = False) -> Resolution:
        """Resolve ``target`` written in the entry at vault-relative ``source_path``."""
        folder = posixpath.dirname(source_path)
        raw = target.strip().replace("\\", "/")
        if not raw:
            return Resolution(UNRESOLVED)
        # "./x" and "../x" name a place beside the source: found there or not at all.
        # A Markdown link is read there first too, then as a vault path (Obsidian writes
        # those).
        relative = raw.startswith(("./", "../"))
        if relative or markdown or ".." in raw.split("/"):
            beside = relative or markdown
            joined = posixpath.normpath(posixpath.join(folder, raw) if beside else raw)
            if joined == ".." or joined.startswith("../") or posixpath.isabs(joined):
                return Resolution(OUTSIDE, joined)
            if beside:
                hit = self._exact(joined)
                if hit is not None:
                    return hit
            if relative:
                if is_attachment(joined):
                    return Resolution(MISSING_ATTACHMENT, joined)
                return Resolution(UNRESOLVED)
            raw = joined if ".." in raw.split("/") else raw
        if is_attachment(raw):
            return self._attachment(raw, folder)
        key = target_key(raw)
        for table in (self.by_id, self.by_path, self.by_name, self.by_suffix, self.by_alias):
            found = table.get(key)
            if not found:
                continue
            if isinstance(found, NamedEntry):
                return Resolution(RESOLVED, found.id)
            unique = {e.path: e for e in found}
            if len(unique) == 1:
                return Resolution(RESOLVED, found[0].id)
            ranked = sorted(
                unique.values(),
                key=lambda e: (posixpath.dirname(e.path) != folder, e.path.count("/"), e.path),
            )
            return Resolution(AMBIGUOUS, ranked[0].id, tuple(e.id for e in ranked))
        if "." in posixpath.basename(raw):  # data.json: no note by that name, but a file?
            hit = self._attachment(raw, folder)
            if hit.status == ATTACHMENT:
                return hit
        return Resolution(UNRESOLVED)

    def _exact(self, path: str) -> Resolution | None:
        if is_attachment(path):
            hit = self.attachments.get(path.lower())
            return Resolution(ATTACHMENT, hit) if hit else None
        e = self.by_path.get(target_key(path))
        if e is None and "." in posixpath.basename(path):  # a file of another kind
            hit = self.attachments.get(path.lower())
            return Resolution(ATTACHMENT, hit) if hit else None
        return Resolution(RESOLVED, e.id) if e else None

    def _attachment(self, raw: str, folder: str) -> Resolution:
        key = raw.lower().lstrip("/")
        for candidate in (posixpath.join(folder, key) if folder else key, key):
            hit = self.attachments.get(candidate)
            if hit:
                return Resolution(ATTACHMENT, hit)
        names = self.attachment_names.get(posixpath.basename(key))
        if names:
            if "/" in key:
                names = [n for n in names if n.lower().endswith("/" + key)] or []
            if names:
                ranked = sorted(names, key=lambda p: (posixpath.dirname(p) != folder, len(p), p))
                return Resolution(ATTACHMENT, ranked[0])
        return Resolution(MISSING_ATTACHMENT, raw)


_UNRESOLVED = LinkTarget(None, UNRESOLVED, None)


def is_same_note(text: str, heading: str | None, block: str | None) -> bool:
    """A link to a heading or block of the entry it is written in (``[[#Heading]]``,
    ``[[#^id]]``, ``[x](#Heading)``): no target, a fragment."""
    return not text.strip() and bool(heading or block)


class LinkTargets:
    """A link's index columns ``(target eid, status, resolved_path)``, from a resolver and the
    row ids of the entries (``eids``: id → eid); remembered per (text, source folder,
    Markdown or wikilink): hubs are linked thousands of times. ``resolved_path`` is the
    attachment's path, the ambiguous candidates (JSON), or the target text left unresolved.
    """

    def __init__(self, resolver: Resolver, eids: dict[str, int]) -> None:
        self.resolver = resolver
        self.eids = eids
        self.memo: dict[tuple[str, str, int], LinkTarget] = {}

    def __call__(
        self, text: str, source_path: str, markdown: int, *, same_note: bool = False
    ) -> LinkTarget:
        """``same_note``: a link with no target but a fragment (``[[#Heading]]``): it names
        the entry it is written in, found by its path."""
        if same_note and not text.strip():
            own = self.resolver.by_path.get(target_key(source_path))
            eid = self.eids.get(own.id) if own is not None else None
            return LinkTarget(eid, RESOLVED, None) if eid is not None else _UNRESOLVED
        key = (text, posixpath.dirname(source_path), markdown)
        hit = self.memo.get(key)
        if hit is None:
            res = self.resolver.resolve(text, source_path, markdown=bool(markdown))
            found = res.target if res.status in ("resolved", "ambiguous") else None
            target = self.eids.get(found) if found is not None else None
            extra = (
                json.dumps(list(res.candidates), ensure_ascii=False)
                if res.candidates
                else (res.target if target is None else None)
            )
            hit = self.memo[key] = LinkTarget(target, res.status, extra)
        return hit

    def rows(self, eid: int, path: str, links: Sequence[ParsedLink]) -> list[tuple]:
        """The ``links`` rows (``LINK_COLUMNS`` of the index) of the parsed links written in
        the entry ``eid`` at ``path``: its eid, the :class:`LinkTarget`, then the link."""
        get = self.memo.get  # the usual hit, without a call per link
        folder = posixpath.dirname(path)
        own = LinkTarget(eid, RESOLVED, None)  # a same-note link: [[#Heading]], [[#^block]]
        return [
            (eid, *(get((k.text, folder, k.markdown)) or self(k.text, path, k.markdown)), *k)
            if k.text or not (k.heading or k.block)
            else (eid, *own, *k)
            for k in links
        ]
