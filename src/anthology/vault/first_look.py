"""An entry to read while a never-seen vault is indexed for the first time.

A cold build of 100,000 entries takes most of a minute; the window should not be blank
meanwhile. This reads one entry straight from disk (the vault's HOME, index or README at its
top, else its first Markdown file there or in its first folders) and answers the renderer's
link questions without an index: a wikilink is drawn as a link (clicking it waits for the
index), a picture is shown when it lies where the link names it. Once the index is built the
window opens the entry again through it, fully resolved.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from anthology.vault.entries import HOME_IDS
from anthology.vault.files import read_entry_text, vault_file
from anthology.vault.model import Entry, EntryRef, Relation
from anthology.vault.parse import parse_entry
from anthology.vault.resolve import is_attachment

# Folders looked into, breadth first, for a first Markdown file when the top has none: a
# vault whose notes all live in folders still opens on one of them at once.
MAX_FOLDERS_LOOKED_INTO = 50


def _utf8(name: str) -> bool:
    """A name the index can take as it is (see files.display_name for the others); dotted
    ones (.obsidian, .trash) are skipped by the caller."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def first_entry_path(root: Path) -> str | None:
    """The vault-relative path of the entry to show first, or None when none is found."""
    queue, looked = [""], 0
    while queue and looked < MAX_FOLDERS_LOOKED_INTO:
        folder = queue.pop(0)
        looked += 1
        try:
            with os.scandir(root / folder if folder else root) as it:
                items = sorted(
                    ((e.name, e.is_dir(follow_symlinks=False), e.is_file(follow_symlinks=False))
                     for e in it if not e.name.startswith(".") and _utf8(e.name)),
                    key=lambda item: item[0].casefold(),
                )  # fmt: skip
        except OSError:
            continue
        notes = [name for name, _d, is_file in items if is_file and name.lower().endswith(".md")]
        if not folder:
            for home in HOME_IDS:
                for name in notes:
                    if name[:-3].lower() == home:
                        return name
        if notes:
            return posixpath.join(folder, notes[0]) if folder else notes[0]
        queue += [posixpath.join(folder, name) if folder else name for name, d, _f in items if d]
    return None


def read_first_entry(root: Path, path: str) -> Entry | None:
    """The entry at ``path`` as the pane shows it, read and parsed without the index."""
    read = read_entry_text(root, path)
    if read.text is None:
        return None
    e = parse_entry(read.text, path)
    # drawn as links under the names they were written with, as DiskResolver draws them
    relations = [
        Relation(link.relation, EntryRef(link.text, link.text, ""), link.text)
        for link in e.links
        if link.relation is not None
    ]
    return Entry(
        id=e.id,
        path=path,
        title=e.title,
        kind=e.kind,
        status=e.status,
        tags=e.tags,
        aliases=e.aliases,
        properties=e.properties,
        relations=relations,
        cited_by=[],
        body=e.body,
        body_line=e.body_line,
        words=e.words,
        reading_minutes=e.reading_minutes,
        headings=list(e.headings),
        inline_fields=e.fields,
    )


class DiskResolver:
    """The renderer's questions (``model.EntryLookup``) answered from the disk alone, for
    the first entry of a vault still being indexed."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()

    def resolve(self, target: str, source_path: str) -> EntryRef | None:
        # Which entry a name means needs every name in the vault: the index's job. Until
        # it is built, a link is drawn as a link, under the name it was written with.
        target = target.strip()
        return EntryRef(target, target, "") if target and not is_attachment(target) else None

    def attachment(self, target: str, source_path: str) -> Path | None:
        folder = posixpath.dirname(source_path)
        for rel in (posixpath.join(folder, target), target):
            rel = posixpath.normpath(rel)
            if rel.startswith("../") or rel == ".." or posixpath.isabs(rel):
                continue
            if (path := vault_file(self.root, rel)) is not None:
                return path
        return None

    def embed_body(self, entry_id: str) -> str | None:
        # A note named by its vault path is read; any other name waits for the index.
        rel = posixpath.normpath(entry_id if entry_id.lower().endswith(".md") else f"{entry_id}.md")
        if not (rel.startswith("../") or posixpath.isabs(rel)):
            read = read_entry_text(self.root, rel)
            if read.text is not None:
                return parse_entry(read.text, rel).body
        return "*Shown here once the vault is indexed.*"
