"""The vault's tags as a tree: ``a/b/c`` nested under ``a`` and ``a/b``, with counts.

Each level counts the entries tagged with it or with a tag under it (an entry tagged both
``ml`` and ``ml/attention`` counts once at ``ml``), as Obsidian's tag pane does. Tags
compare without case (``#ML`` is ``#ml``); a node is named as the tag was first written.
Pure Python over the index's ``tags`` table; no Qt.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class TagNode:
    name: str  # this level's part ("attention")
    path: str  # the whole tag ("ml/attention"): what a ``tag:`` search names
    count: int = 0  # entries tagged with it or with a tag under it
    children: list[TagNode] = field(default_factory=list)


class _Rows(Protocol):
    def _q(self, sql: str, params: tuple | list = ...) -> list[tuple]: ...


def tag_tree(pairs: Iterable[tuple[str, int]]) -> list[TagNode]:
    """The tree of ``(tag, entry)`` pairs: top-level nodes by name, children likewise."""
    entries: dict[str, set[int]] = {}  # folded path → entries under it
    names: dict[str, str] = {}  # folded path → as first written
    for tag, eid in pairs:
        parts = [p for p in str(tag).strip().lstrip("#").split("/") if p]
        for depth in range(1, len(parts) + 1):
            path = "/".join(parts[:depth])
            key = path.casefold()
            names.setdefault(key, path)
            entries.setdefault(key, set()).add(eid)
    nodes: dict[str, TagNode] = {}
    roots: list[TagNode] = []
    for key in sorted(names, key=lambda k: (k.count("/"), k)):
        name = names[key].rsplit("/", 1)[-1]
        parent = nodes.get(key.rsplit("/", 1)[0]) if "/" in key else None
        # a child's path goes on from its parent's, as the parent is spelt
        node = TagNode(name, f"{parent.path}/{name}" if parent else name, len(entries[key]))
        nodes[key] = node
        (parent.children if parent else roots).append(node)
    _sort(roots)
    return roots


def _sort(nodes: list[TagNode]) -> None:
    nodes.sort(key=lambda n: n.name.casefold())
    for node in nodes:
        _sort(node.children)


def vault_tags(index: _Rows) -> list[TagNode]:
    """The tag tree of an open index (every entry's front-matter and body tags)."""
    return tag_tree(index._q("SELECT tag, eid FROM tags"))
