"""Every link of tests/vaults/obsidian-rules/links/ resolves as Obsidian resolves it (its
help pages "Internal links", "Link to blocks", "Embed files", "Accepted file formats",
"Tags", "Aliases"): the index, ``check``, the graph and the rendered page agree.

Each test asserts the links of one note, never the whole vault's totals: other fixture
folders (report/, render/) share the vault.
"""

from __future__ import annotations

import pytest

from anthology.vault import links as links_mod
from anthology.vault import masking
from anthology.vault.index import VaultIndex
from anthology.vault.links import find_links, heading_key, mask_code, match_heading
from anthology.vault.parse import parse_entry
from anthology.vault.render import clear_render_cache, render_entry

L = "links/"


@pytest.fixture
def vault_index(obsidian_index: VaultIndex) -> VaultIndex:
    return obsidian_index


def links_of(idx: VaultIndex, name: str) -> list[tuple]:
    """(text, heading, block, alias, embed, status, target path or None) of the note's
    links, in order."""
    return [
        tuple(r)
        for r in idx._q(
            "SELECT l.text, l.heading, l.block, l.alias, l.embed, l.status, t.path "
            "FROM links l JOIN entries s ON s.eid = l.source "
            "LEFT JOIN entries t ON t.eid = l.target WHERE s.path = ? ORDER BY l.lid",
            (L + name,),
        )
    ]


def problems_of(idx: VaultIndex, name: str) -> list[tuple[str, str, str]]:
    return [(p.kind, p.severity, p.message) for p in idx.problems() if p.path == L + name]


def html_of(idx: VaultIndex, entry_id: str) -> str:
    clear_render_cache()
    entry = idx.entry(entry_id)
    assert entry is not None
    return render_entry(entry, idx, vault_root=idx.root).html


# -- 1. same-note links ---------------------------------------------------------------------
def test_same_note_links_are_links_to_the_entry_itself(vault_index: VaultIndex) -> None:
    me = L + "Same note.md"
    assert links_of(vault_index, "Same note.md") == [
        ("", "Second section", None, None, 0, "resolved", me),  # front matter see:
        ("", "Second section", None, None, 0, "resolved", me),
        ("", None, "para-one", None, 0, "resolved", me),
        ("", "Second section", None, "to the section", 0, "resolved", me),
        ("", None, "para-one", None, 1, "resolved", me),
        ("", "Third section", None, None, 0, "resolved", me),
    ]
    kinds = [k for k, _s, _m in problems_of(vault_index, "Same note.md")]
    assert "unresolved-link" not in kinds  # no "links to “”"


def test_same_note_links_are_outgoing_but_no_self_loop(vault_index: VaultIndex) -> None:
    eid = "links/Same note"
    out = vault_index.outgoing(eid)
    assert [(r.target.id if r.target else None, r.heading) for r in out][:2] == [
        (eid, "Second section"),
        (eid, "Second section"),
    ]
    graph = vault_index.graph()
    me = graph.ids.index(eid)
    assert not [(s, t) for s, t in graph.edges.tolist() if s == me and t == me]


# -- 2. headings and blocks, and warnings for missing ones ------------------------------------
def test_heading_keys_match_as_obsidian_matches() -> None:
    assert heading_key("What is the Obsidian Hub?") == heading_key("what is the obsidian hub")
    assert heading_key("Café & Crème: *the* menu") == "café crème the menu"
    assert heading_key("🌿") == "🌿"  # nothing but symbols: compared as written
    assert match_heading(["Intro", "A", "Nested part"], "A#Nested part") == 2
    assert match_heading(["Intro"], "") is None


def test_heading_and_block_links_resolve_or_warn(vault_index: VaultIndex) -> None:
    target = L + "Headings.md"
    rows = links_of(vault_index, "Heading links.md")
    assert [(t, h, b, status, path) for t, h, b, _a, _e, status, path in rows] == [
        ("Headings", "What is the Obsidian Hub", None, "resolved", target),
        ("Headings", "what is the obsidian hub?", None, "resolved", target),
        ("Headings", "Café Crème the menu", None, "resolved", target),
        ("Headings", "Café & Crème: *the* menu#Nested part", None, "resolved", target),
        ("Headings", "No such heading", None, "resolved", target),
        ("Headings", None, "real-id", "resolved", target),
        ("Headings", None, "item-id", "resolved", target),
        ("Headings", None, "nope", "resolved", target),
        ("Headings", "What is the Obsidian Hub", None, "resolved", target),
    ]
    assert problems_of(vault_index, "Heading links.md") == [
        ("heading-not-found", "warning",
         "“Headings#No such heading”: no heading “No such heading” in links/Headings.md"),
        ("block-not-found", "warning", "“Headings#^nope”: no block ^nope in links/Headings.md"),
    ]  # fmt: skip
    same = problems_of(vault_index, "Same note.md")
    missing = "“#Third section”: no heading “Third section” in links/Same note.md"
    assert ("heading-not-found", "warning", missing) in same
    assert not [p for p in same if p[0] == "block-not-found"]


def test_embedded_heading_shows_its_section(vault_index: VaultIndex) -> None:
    html = html_of(vault_index, "links/Heading links")
    assert "no heading" not in html
    assert "What is the Obsidian Hub?" in html


# -- 3. comments and code ---------------------------------------------------------------------
def test_percent_in_code_opens_no_comment_and_an_open_one_runs_to_the_end(
    vault_index: VaultIndex,
) -> None:
    rows = links_of(vault_index, "Code and comments.md")
    assert [(t, e, status) for t, _h, _b, _a, e, status, _p in rows] == [
        ("Headings", 0, "resolved"),  # after the `%%` cell
        ("Headings", 1, "resolved"),
        ("file.name", 0, "resolved"),  # after a fence holding %%
        ("Visible in list continuation", 0, "unresolved"),
        ("Visible lazy line", 0, "unresolved"),
        ("note.yo", 0, "resolved"),  # after a closed comment, on its line
        ("Heading links", 0, "resolved"),  # unbalanced backticks hide nothing
    ]


def test_rendered_page_drops_comments_not_code(vault_index: VaultIndex) -> None:
    html = html_of(vault_index, "links/Code and comments")
    assert ">%%</code>" in html and ">%% in a fence</pre>" in html
    assert "[[Headings]]" not in html  # drawn as a link, not raw text
    assert "Hidden in comment" not in html and "never closed" not in html
    assert "Hidden after open comment" not in html
    assert "Hidden in indented code" in html  # shown, as code


def test_comment_spans_never_start_inside_code() -> None:
    text = "a `%%` b %% c `x` %% d `e %% f` %% g"
    spans = links_mod.comment_spans(text)
    assert [text[s:e] for s, e in spans] == ["%% c `x` %%", "%% g"]
    assert mask_code("x %% open\n[[y]]") == "x " + " " * 7 + "\n" + " " * 5


# -- 4. dots in names, attachments --------------------------------------------------------------
def test_a_dot_in_a_name_is_not_an_extension(vault_index: VaultIndex) -> None:
    rows = links_of(vault_index, "Dots in names.md")
    assert [(t, h, status, p) for t, h, _b, _a, _e, status, p in rows] == [
        ("file.name", None, "resolved", L + "file.name.md"),
        ("note.yo", None, "resolved", L + "note.yo.md"),
        ("file.name", "h", "resolved", L + "file.name.md"),
        ("data.json", None, "attachment", None),  # not a format Obsidian opens, but there
        ("missing.pdf", None, "missing-attachment", None),
        ("no.such.note", None, "unresolved", None),
    ]
    assert not links_mod.is_attachment("note.yo") and links_mod.is_attachment("a/b.PNG")
    assert not links_mod.is_attachment("v1.2/readme")


# -- 5. ./ and ../ ------------------------------------------------------------------------------
def test_relative_links_resolve_beside_the_source_or_not_at_all(vault_index: VaultIndex) -> None:
    rows = links_of(vault_index, "rel/a/b/c.md")
    assert [(t, status, p) for t, _h, _b, _a, _e, status, p in rows] == [
        ("./sib", "resolved", L + "rel/a/b/sib.md"),
        ("../up", "resolved", L + "rel/a/up.md"),
        ("./far", "unresolved", None),  # links/rel/e/g/far.md is not beside it
        ("../../e/g/far", "resolved", L + "rel/e/g/far.md"),
        ("./Twin", "resolved", L + "rel/a/b/Twin.md"),
        ("../../../../../x", "outside", None),
    ]


# -- 6, 7. indented code, escapes, empty targets ------------------------------------------------
def test_escapes_and_empty_targets(vault_index: VaultIndex) -> None:
    rows = links_of(vault_index, "Escapes and empty.md")
    assert [(t, a, status) for t, _h, _b, a, _e, status, _p in rows] == [
        ("", "alias only", "unresolved"),
        ("", None, "unresolved"),
    ]
    entry = vault_index.entry("links/Escapes and empty")
    assert entry is not None and entry.tags == ["real-tag"]
    html = html_of(vault_index, "links/Escapes and empty")
    assert "#not-a-tag" in html and "[[Escaped open]]" in html


def test_indented_code_is_code_outside_lists_only() -> None:
    body = "p\n\n    [[a]]\n\n\tb [[b]]\n\nq\n\n- item\n\n    [[c]]\n"
    assert [f[0] for f in find_links(body)] == ["c"]


# -- 8. empty list items in front matter ---------------------------------------------------------
def test_null_tags_and_aliases_are_dropped(vault_index: VaultIndex) -> None:
    entry = vault_index.entry("links/Null lists")
    assert entry is not None and entry.tags == [] and entry.aliases == []
    assert "None" not in html_of(vault_index, "links/Null lists")


# -- 9. bad input -------------------------------------------------------------------------------
def test_malformed_links(vault_index: VaultIndex) -> None:
    rows = links_of(vault_index, "🌱 Seed.md")
    assert [(t, h, b, e, status) for t, h, b, _a, e, status, _p in rows] == [
        ("^^", None, None, 0, "unresolved"),  # [[#]], [[#^]], ![[#]] name nothing: no link
        ("Headings", "What is the Obsidian Hub?#x", None, 0, "resolved"),
        ("a", "b#c", None, 0, "unresolved"),
        ("🌱 Seed", "Growing 🌿", None, 0, "resolved"),  # after unbalanced backticks
    ]
    kinds = [k for k, _s, _m in problems_of(vault_index, "🌱 Seed.md")]
    assert kinds.count("heading-not-found") == 1  # ...Hub?#x: no heading "x" under it


def test_unclosed_brackets_make_no_link() -> None:
    """100,000 ``[[`` with no end: no link, no tag, no problem. (That doubling them about
    doubles the work is test_linear_scanners' "unclosed-wikilinks" family.)"""
    e = parse_entry("[[" * 100_000 + "\n`%%` [[x]] %% [[y", "x.md")
    assert [link.text for link in e.links] == ["x"] and e.problems == [] and e.tags == []


def test_scanners_count_linear_steps() -> None:
    """The comment and code scanner's searches each start where the last stopped: on
    doubled input it visits at most twice as many positions."""
    visited: list[int] = []

    class Counting(str):
        def find(self, sub: str, start: int = 0, *args: int) -> int:  # type: ignore[override]
            found = str.find(self, sub, start, *args)
            visited.append((found if found >= 0 else len(self)) - start)
            return found

    def steps(n: int) -> int:
        visited.clear()
        masking._code_and_comment_spans(Counting("`a %% b <!-- " * n + "%%"))
        return sum(visited)

    assert steps(20_000) <= 2.1 * steps(10_000)
