"""The vault's tags as a tree (vault/tags.py): nesting, counts, case; and from an index."""

from __future__ import annotations

from pathlib import Path

from anthology.vault.index import VaultIndex
from anthology.vault.tags import tag_tree, vault_tags


def _flat(nodes, out=None) -> dict[str, int]:
    out = {} if out is None else out
    for node in nodes:
        out[node.path] = node.count
        _flat(node.children, out)
    return out


def test_each_level_counts_entries_under_it_once() -> None:
    pairs = [("ml", 1), ("ml/attention", 1), ("ml/attention/heads", 2), ("ML/training", 3),
             ("reading", 2), ("#reading", 4)]  # fmt: skip
    roots = tag_tree(pairs)
    assert [n.name for n in roots] == ["ml", "reading"]
    assert _flat(roots) == {"ml": 3, "ml/attention": 2, "ml/attention/heads": 1,
                            "ml/training": 1, "reading": 2}  # fmt: skip
    ml = roots[0]
    assert [c.name for c in ml.children] == ["attention", "training"]
    assert ml.children[0].children[0].path == "ml/attention/heads"


def test_odd_tags_do_not_break_the_tree() -> None:
    roots = tag_tree([("a//b/", 1), ("/", 2), ("", 3), ("é/ü", 4)])
    assert _flat(roots) == {"a": 1, "a/b": 1, "é": 1, "é/ü": 1}


def test_tags_of_an_indexed_vault(tmp_path: Path) -> None:
    root = tmp_path / "Vault with spaces"
    (root / "Notes").mkdir(parents=True)
    (root / "Notes" / "One note.md").write_text("---\ntags: [area/x]\n---\nText #area/y\n")
    (root / "Two.md").write_text("Only #area here\n")
    with VaultIndex.open(root, tmp_path / "i.sqlite") as index:
        assert _flat(vault_tags(index)) == {"area": 2, "area/x": 1, "area/y": 1}
