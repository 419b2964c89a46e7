"""The Admonition plugin's ```` ```ad-kind ```` blocks, drawn as the callouts they name (issue
31, item 5), through a real index of a vault written to a temp folder. The syntax is the
plugin's: the block's language names the kind; ``title:`` and ``collapse:`` lines on top."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from test_render import hrefs, text_of

from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache, render_entry
from sample_vault import write_vault

NOTES = {
    "Reading list.md": (
        "# Reading list\n\n"
        "```ad-note\nPlain note, its body in **Markdown** with [[Paper]].\n```\n\n"
        "```ad-warning\ntitle: Mind the gap\nicon: alert\ncolor: 200, 50, 50\n"
        "The warning's body, $x^2$ included.\n\n- one\n- two\n```\n\n"
        "```ad-tip\ntitle:\nNo title line at all.\n```\n\n"
        "```ad-quote\ntitle: Folded\ncollapse: closed\nHidden until opened.\n```\n\n"
        "```ad-\nA bare prefix is code.\n```\n\n"
        "> [!warning] Mind the gap\n> As a callout.\n"
    ),
    "Paper.md": "# Paper\n",
}


def render(tmp_path: Path, **kw) -> str:
    root = write_vault(tmp_path / "vault", NOTES)
    with VaultIndex.open(root, tmp_path / "index.sqlite") as index:
        clear_render_cache()
        entry = index.entry("Reading list")
        assert entry is not None
        return render_entry(entry, index, vault_root=root, **kw).html


def callouts(html: str) -> list[str]:
    """The kinds of the admonitions, in order (their frames are written as we write them;
    python-markdown writes a "> [!kind]" callout's with its attributes sorted)."""
    return re.findall(r'<table class="callout callout-([a-z]+)"', html)


def test_each_admonition_is_the_callout_of_its_kind(tmp_path: Path) -> None:
    html = render(tmp_path)
    # ad-note, ad-warning, ad-tip, ad-quote, then the callout written as "> [!warning]"
    assert callouts(html) == ["note", "warning", "tip", "quote"]
    assert 'class="callout callout-warning"' in html.split('class="code"')[1]  # "> [!warning]"
    text = " ".join(text_of(html).split())
    assert "Note Plain note, its body in Markdown with Paper." in text  # the kind's name
    assert "Mind the gap The warning’s body" in text  # title: as written (smart quotes)
    assert "title:" not in text and "icon:" not in text and "color:" not in text
    assert "No title line at all." in text and "Tip No title" not in text  # title: empty
    assert "<strong>Markdown</strong>" in html  # the body is Markdown…
    assert "entry:Paper" in hrefs(html)  # … whose links are links
    assert re.search(r'<img src="math:[0-9a-f]+"', html)  # and whose math is typeset
    assert "<li>one</li>" in html


class _Frames(HTMLParser):
    """The start tags (name, sorted attributes) of each warning callout's frame and title."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[list[tuple[str, list]]] = []
        self.open = 0

    def handle_starttag(self, tag, attrs):
        if tag == "table" and ("class", "callout callout-warning") in attrs:
            self.frames.append([])
            self.open = 6  # table, tr, bar td, cell td, title p, title span
        if self.open:
            self.frames[-1].append((tag, sorted(attrs)))
            self.open -= 1


def test_an_admonition_looks_like_the_callout_it_names(tmp_path: Path) -> None:
    parser = _Frames()
    parser.feed(render(tmp_path))
    assert len(parser.frames) == 2
    # the same frame, colours and title line for ```ad-warning and > [!warning]
    assert parser.frames[0] == parser.frames[1]


def test_collapse_closed_folds_and_the_reader_can_open_it(tmp_path: Path) -> None:
    html = render(tmp_path)
    assert "Hidden until opened." not in text_of(html)
    folds = [h for h in hrefs(html) if re.fullmatch(r"fold:\d+", h)]
    assert len(folds) == 1
    opened = render(tmp_path, folds=frozenset({int(folds[0].split(":")[1])}))
    assert "Hidden until opened." in text_of(opened)


def test_a_bare_prefix_and_other_languages_stay_code(tmp_path: Path) -> None:
    html = render(tmp_path)
    assert "A bare prefix is code." in text_of(html)
    assert len(re.findall(r'<table class="code"', html)) == 1
