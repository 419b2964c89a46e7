"""The graph the window draws is loaded as arrays (no Python object per link): it must
hold exactly the links written — each pair once, a typed relation over a mention, no
self-link, ghosts for notes not written — and each node's tags and front matter."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from anthology.graph.model import same_graph, sanitize_graph
from anthology.vault import VaultIndex


def _vault(root: Path) -> Path:
    (root / "Papers").mkdir(parents=True)
    (root / "Home.md").write_text("# Home\n\n[[Alpha]] [[Alpha]] [[Beta 🌱]] [[Home]] [[Gamma]]\n")
    (root / "Papers" / "Alpha.md").write_text(
        "---\ntags: [ml, ml/vision]\nstatus: draft\nintroduced by: '[[Beta 🌱]]'\n---\n"
        "# Alpha\n\nSee [[Beta 🌱]] and [[Not written yet]] and [[not written YET]].\n"
    )
    (root / "Papers" / "Beta 🌱.md").write_text("# Beta\n\nBack to [[Home]]; [[Missing]].\n")
    return root


def test_the_graph_holds_each_link_once_with_its_relation(tmp_path: Path) -> None:
    root = _vault(tmp_path / "vault")
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        data = index.graph(ghosts=True)
        at = data.index_of()
        pairs = {
            (data.ids[a], data.ids[b]): rel
            for (a, b), rel in zip(data.edges.tolist(), data.relations, strict=True)
        }
        assert len(pairs) == len(data.edges)  # each pair once
        alpha, beta = "Papers/Alpha", "Papers/Beta 🌱"
        assert set(data.ids) >= {"Home", alpha, beta, "?Not written yet", "?Missing"}
        assert pairs == {
            ("Home", alpha): None,
            ("Home", beta): None,
            ("Home", "?Gamma"): None,
            (alpha, beta): "introduced by",  # the typed relation over the body's mention
            (alpha, "?Not written yet"): None,  # two spellings, one ghost
            (beta, "Home"): None,
            (beta, "?Missing"): None,
        }
        assert data.ghost[at["?Missing"]] and not data.ghost[at["Home"]]
        assert data.tags[at[alpha]] == ["ml", "ml/vision"] and data.tags[at["Home"]] == []
        assert data.properties[at[alpha]]["status"] == "draft"
        assert data.properties[at["?Missing"]] == {}
        # loaded twice, the same graph (the window gives the view an unchanged graph once)
        assert same_graph(data, index.graph(ghosts=True))
        # what the view draws from it: the same nodes, edges and relations
        shown = sanitize_graph(data)
        assert np.array_equal(shown.edges, data.edges) and shown.relations == data.relations
        local = data.subgraph([at[alpha], at[beta]])
        assert local.ids == [alpha, beta] and local.tags[0] == ["ml", "ml/vision"]
        assert local.relations == ["introduced by"]


def test_an_edit_that_changes_a_tag_changes_the_graph(tmp_path: Path) -> None:
    root = _vault(tmp_path / "vault")
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        before = index.graph(ghosts=True)
        alpha = root / "Papers" / "Alpha.md"
        alpha.write_text(alpha.read_text().replace("ml/vision", "ml/audio"))
        index.refresh()
        after = index.graph(ghosts=True)
        assert not same_graph(before, after)
        assert after.tags[after.index_of()["Papers/Alpha"]] == ["ml", "ml/audio"]


def test_the_switcher_list_made_from_the_graph_is_the_one_asked_alone(tmp_path: Path) -> None:
    """The window makes the quick switcher's list from the graph's strings (not asked
    twice): the same entries, titles, paths and aliases, no ghost among them."""
    root = _vault(tmp_path / "vault")
    (root / "Aliased.md").write_text("---\naliases: [Other name, Zweiter Name]\n---\n# A\n")
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        alone = index.switcher_items()
        shared = index.switcher_items(index.graph(ghosts=True))
        assert shared == alone
        assert dict((ref.id, names) for ref, names in shared)["Aliased"] == [
            "Other name",
            "Zweiter Name",
        ]
        assert not any(ref.id.startswith("?") for ref, _names in shared)
