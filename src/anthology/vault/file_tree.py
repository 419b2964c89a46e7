"""The vault's folders and entries as a tree, for the file explorer: what it lists, in
which order, and what its filter lets through. Free of Qt (the explorer's Qt face is
``anthology.ui.panels.file_explorer``).

Entries are shown by their labels (:func:`anthology.vault.model.display_label_steps`: the
title, or ``ID — Title`` where the id says something), folders first, then entries, then
attachments, each in natural order (``Note 2`` before ``Note 10``), every folder with the
number of entries under it.

The tree is built in one pass from two questions to the index (every entry, every
attachment path) as plain Python nodes (:func:`build_tree`); a folder's own entries and
attachments become nodes the first time they are asked for (:meth:`Node.kids`, or a step
at a time, :meth:`Node.kid_steps`): at 100,000 entries making every row took 1.5 s at each
start, for the few folders a reader opens. The filter (every word of the query in a row's
label or file name) works out which rows are shown and keeps the folders above a match
(:meth:`FileTree.set_filter`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import Any

from anthology.vault.model import EntryRef, display_label_steps
from anthology.vault.shown import plain_text

FOLDER, ENTRY, ATTACHMENT = "folder", "entry", "attachment"
_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key reading runs of digits as numbers: ``Note 2`` before ``Note 10``
    (text and numbers alternate, so two keys always compare like with like)."""
    folded = text.casefold()
    if not _DIGITS.search(folded):
        return (folded,)
    parts: list[Any] = _DIGITS.split(folded)
    parts[1::2] = map(int, parts[1::2])  # (a generator over every part: 3x slower)
    return tuple(parts)


class Node:
    """One row of the tree: a folder, an entry or an attachment. A folder's entries and
    attachments are made the first time they are asked for (:meth:`kids`)."""

    __slots__ = ("by_key", "children", "count", "key", "kind", "label", "match", "parent",
                 "pending", "row", "shown", "tip")  # fmt: skip

    def __init__(self, kind: str, key: str, label: str, parent: Node | None) -> None:
        self.kind, self.key, self.label, self.parent = kind, key, label, parent
        self.match = label.casefold()  # what the filter looks in
        # all of them, in order: a folder's subfolders, then (once made) its files
        self.children: list[Node] = []
        # those the filter lets through, in order; None: not worked out yet
        self.shown: list[Node] | None = None if kind == FOLDER else []
        self.row = 0  # in the parent's ``shown``
        self.count = 0  # entries under a folder, at any depth
        self.tip = key  # the vault-relative path
        # a folder's entries and attachments not made into rows yet
        self.pending: tuple[list[EntryRef], list[str]] | None = None
        self.by_key: dict[str, Node] | None = None  # its entries by id, once made

    def folder(self, name: str, folders: dict[str, Node]) -> Node:
        path = f"{self.key}/{name}" if self.key else name
        node = folders.get(path)
        if node is None:
            node = folders[path] = Node(FOLDER, path, name, self)
        return node

    def may_have_children(self, attachments: bool) -> bool:
        """Whether the folder has rows to show with no filter, without making them."""
        if self.children:
            return True
        if self.pending is None:
            return False
        refs, files = self.pending
        return bool(refs) or (attachments and bool(files))

    def unmade(self) -> int:
        """How many of the folder's entries and attachments are still to make."""
        return 0 if self.pending is None else len(self.pending[0]) + len(self.pending[1])

    def kids(self) -> list[Node]:
        """Every row under the folder: its subfolders, entries and attachments, each in
        natural order of what is shown (made now if they were not)."""
        for _ in self.kid_steps():
            pass
        return self.children

    def kid_steps(self, chunk: int = 1 << 30) -> Iterator[None]:
        """:meth:`kids` made ``chunk`` entries a step (the explorer spreads a big folder
        over event-loop turns: 12,500 rows took ~0.2 s of one turn at 100,000 entries).
        Made meanwhile by :meth:`kids` (a view asked), the rest does nothing."""
        if self.pending is None:
            return
        pending = self.pending
        refs_here, files = pending
        labels: list[str] = []
        yield from display_label_steps(refs_here, labels, chunk)
        keys: list[tuple[Any, ...]] = []
        for c in range(0, len(labels), chunk):
            keys.extend(natural_key(label) for label in labels[c : c + chunk])
            yield
        order = sorted(range(len(labels)), key=keys.__getitem__)
        yield
        made: list[Node] = []
        by_key: dict[str, Node] = {}
        for c in range(0, len(order), chunk):
            for k in order[c : c + chunk]:
                label, r = labels[k], refs_here[k]
                entry = Node(ENTRY, r.id, plain_text(label, 200), self)
                entry.match = f"{entry.match} {posixpath.basename(r.path).casefold()}"
                entry.tip = f"{label}\n{r.path}"  # the label may be cut in a narrow dock
                made.append(entry)
                by_key[r.id] = entry
            yield
        if self.pending is not pending:  # made (or the tree replaced) meanwhile
            return
        for a in sorted(files, key=lambda p: natural_key(posixpath.basename(p))):
            made.append(Node(ATTACHMENT, a, plain_text(posixpath.basename(a), 200), self))
        self.pending = None
        self.children.extend(made)
        self.by_key = by_key


def build_tree(refs: list[EntryRef], attachments: list[str]) -> tuple[Node, dict[str, Node]]:
    """The vault's tree (root node) and its folders by path: every folder, with its count
    of entries; a folder's own entries and attachments wait in ``pending`` until asked
    for (:meth:`Node.kids`)."""
    root = Node(FOLDER, "", "", None)
    folders: dict[str, Node] = {"": root}
    entries: dict[str, list[EntryRef]] = {}
    files: dict[str, list[str]] = {}

    def folder_of(path: str) -> Node:
        node = folders.get(path)
        if node is None:
            parent, _, name = path.rpartition("/")
            node = folder_of(parent).folder(name, folders)
        return node

    for r in refs:
        entries.setdefault(r.path.rpartition("/")[0], []).append(r)
    for a in attachments:
        files.setdefault(a.rpartition("/")[0], []).append(a)
    for path in (*entries, *files):
        folder_of(path)
    subfolders: dict[str, list[Node]] = {}
    for node in folders.values():
        if node.parent is not None:
            subfolders.setdefault(node.parent.key, []).append(node)
    for path, node in folders.items():
        node.children = sorted(subfolders.get(path, ()), key=lambda n: natural_key(n.label))
        refs_here = entries.get(path, [])
        node.pending = (refs_here, files.get(path, []))
        node.count = len(refs_here)
    for node in sorted(folders.values(), key=lambda n: -n.key.count("/") if n.key else 1):
        if node.parent is not None:  # deepest first: each adds its total to its parent
            node.parent.count += node.count
    return root, folders


class FileTree:
    """The tree of one listing, what the filter lets through, and each entry's folder.

    Without words every folder's rows are worked out when first asked for
    (:meth:`shown_of`); with words every row is, now (every folder's rows are made), and a
    folder is kept when a row under it matches or its own name does."""

    def __init__(self, refs: list[EntryRef] | None = None, attachments: list[str] | None = None):
        self.refs = refs or []
        self.root, self.folders = build_tree(self.refs, attachments or [])
        self.words: list[str] = []
        self.attachments = False
        # entry id → its folder, made by :meth:`map_steps` (None until then)
        self.folder_of: dict[str, Node] | None = {} if not self.refs else None

    def set_filter(self, words: list[str], attachments: bool) -> None:
        """Work out which rows the filter lets through: with words, every row now (every
        folder's rows are made); without, each folder's when it is first asked for."""
        self.words, self.attachments = words, attachments
        if not words:
            stack = [self.root]
            while stack:
                node = stack.pop()
                node.shown = None
                stack.extend(c for c in node.children if c.kind == FOLDER)
            return

        def keep(node: Node) -> bool:
            if node.kind == FOLDER:
                node.shown = [c for c in node.kids() if keep(c)]
                for i, c in enumerate(node.shown):
                    c.row = i
                return bool(node.shown) or all(w in node.match for w in words)
            if node.kind == ATTACHMENT and not attachments:
                return False
            return all(w in node.match for w in words)

        keep(self.root)

    def shown_of(self, node: Node) -> list[Node]:
        """The rows of ``node`` the filter lets through (worked out now if not yet: with
        no filter, every folder and entry, and the attachments when they are shown)."""
        if node.shown is None:
            attachments = self.attachments
            node.shown = [c for c in node.kids() if c.kind != ATTACHMENT or attachments]
            for i, c in enumerate(node.shown):
                c.row = i
        return node.shown

    def rows_to_make(self, folder: Node) -> int:
        """How many rows showing ``folder`` open makes (its nodes or its shown rows)."""
        unmade = folder.unmade()
        if unmade:
            return unmade + len(folder.children)
        return len(self.shown_of(folder))

    def may_have_rows(self, folder: Node) -> bool:
        """Whether ``folder`` has rows to show, without making them."""
        if folder.shown is not None:
            return bool(folder.shown)
        return folder.may_have_children(self.attachments)

    def visible(self, node: Node) -> bool:
        """Whether ``node`` is in the filtered tree (its folders included)."""
        while node.parent is not None:
            parent = node.parent
            shown = self.shown_of(parent)
            if node.row >= len(shown) or shown[node.row] is not node:
                return False
            node = parent
        return True

    def map_steps(self, chunk: int) -> Iterator[None]:
        """Each entry's folder by its id (:attr:`folder_of`), ``chunk`` entries a step."""
        refs, folders = self.refs, self.folders
        folder_of: dict[str, Node] = {}
        for c in range(0, len(refs), chunk):
            folder_of.update(
                {r.id: folders[r.path.rpartition("/")[0]] for r in refs[c : c + chunk]}
            )
            yield
        self.folder_of = folder_of

    def folder(self, entry_id: str, steps: Iterator[None] | None = None) -> Node | None:
        """``entry_id``'s folder (None: not listed); the map's ``steps`` left run now."""
        if self.folder_of is None:
            for _ in steps if steps is not None else self.map_steps(len(self.refs) or 1):
                pass
        return self.folder_of.get(entry_id) if self.folder_of is not None else None

    def entry_node(self, entry_id: str, steps: Iterator[None] | None = None) -> Node | None:
        """``entry_id``'s row (its folder's rows made if they were not yet)."""
        folder = self.folder(entry_id, steps)
        if folder is None:
            return None
        folder.kids()
        return folder.by_key.get(entry_id) if folder.by_key is not None else None
