"""Mermaid diagrams (issue 31): drawn by mmdr in a child process, cached, and written as
their source with a reason when they cannot be drawn — a syntax error, a block of 100 KB,
5,000 nodes, a diagram the renderer does not finish."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest

from anthology.palette import theme
from anthology.tasks import Cancelled, TaskState
from anthology.vault.index import VaultIndex
from anthology.vault.render import clear_render_cache, mermaid, render_entry
from anthology.vault.render.mermaid import Diagram, Drawn, Failed
from anthology.vault.render.standalone import standalone_html

VAULT = Path(__file__).resolve().parents[1] / "vaults" / "mermaid"
PNG = b"\x89PNG\r\n\x1a\n"
# mmdr lays a user journey out in time quadratic in its tasks: 2,000 took it 9 s here
ENDLESS = "journey\n  title Every day\n  section Work\n" + "\n".join(
    f"    Task {i}: 5: Me" for i in range(2000)
)


def blocks(path: Path) -> list[str]:
    return re.findall(r"```mermaid\n(.*?)\n```", path.read_text(encoding="utf-8"), re.S)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a killed child not waited for yet is a zombie: gone for our purpose
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[1].startswith("Z"))


@pytest.fixture(autouse=True)
def _fresh() -> None:
    mermaid.clear_memory()
    clear_render_cache()


@pytest.fixture
def vault(tmp_path: Path):
    with VaultIndex.open(VAULT, tmp_path / "i.sqlite") as index:
        yield index


def load_vault(root: Path) -> VaultIndex:
    return VaultIndex.open(root, root.parent / f"{root.name}.sqlite")


def render(vault, entry_id: str, theme_name: str = "light"):
    entry = vault.entry(entry_id)
    assert entry is not None, entry_id
    return render_entry(entry, vault, theme=theme_name, vault_root=VAULT)


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_every_kind_of_the_help_vault_is_drawn(theme_name: str) -> None:
    sources = blocks(VAULT / "Diagrams" / "Every kind 📊.md")
    kinds = [s.split()[0] for s in sources]
    assert kinds == ["flowchart", "sequenceDiagram", "classDiagram", "stateDiagram-v2",
                     "erDiagram", "gantt", "pie", "mindmap"]  # fmt: skip
    for source in sources:
        drawn = mermaid.draw(Diagram(source, theme_name))
        assert isinstance(drawn, Drawn), (source.split()[0], drawn)
        assert drawn.png.startswith(PNG) and drawn.width > 50 and drawn.height > 50
        assert "<svg" in drawn.svg


def test_the_page_names_its_diagrams_and_keeps_its_text(vault) -> None:
    rendered = render(vault, "Diagrams/Mermaid from the help page")
    keys = re.findall(r'<img src="(mermaid:[0-9a-f]+)"', rendered.html)
    assert len(set(keys)) == 4
    assert set(mermaid.diagrams_of(rendered.resources)) == set(keys)
    assert "The end of the page." in rendered.html and "sequenceDiagram" not in rendered.html


def test_the_themes_colour_the_diagram_and_the_key() -> None:
    source = "graph TD\nBiology --> Chemistry"
    light, dark = Diagram(source, "light"), Diagram(source, "dark")
    assert light.key != dark.key != Diagram(source + "\n", "dark").key
    for d in (light, dark):
        drawn = mermaid.draw(d)
        assert isinstance(drawn, Drawn)
        pal = theme(d.theme).entry
        assert pal.chip_bg.lower() in drawn.svg.lower()  # the nodes in the page's colours
        assert pal.link.lower() in drawn.svg.lower()


def test_the_diagrams_own_directive_wins_over_the_theme() -> None:
    forest = "%%{init: {'theme': 'forest'}}%%\ngraph TD\nA --> B"
    drawn = mermaid.draw(Diagram(forest, "dark"))
    assert isinstance(drawn, Drawn) and "#cde498" in drawn.svg.lower()
    front = "---\ntitle: Hello\n---\ngraph TD\nA --> B"
    themed = mermaid.themed_source(Diagram(front))
    assert themed.startswith("---\ntitle: Hello\n---\n%%{init:")
    assert isinstance(mermaid.draw(Diagram(front)), Drawn)


def test_internal_link_nodes_are_found_with_their_boxes() -> None:
    help_page = blocks(VAULT / "Diagrams" / "Mermaid from the help page.md")
    by_name, by_letter = help_page[2], help_page[3]
    for source in (by_name, by_letter):
        drawn = mermaid.draw(Diagram(source))
        assert isinstance(drawn, Drawn)
        assert [link.target for link in drawn.links] == ["Biology", "Chemistry"]
        biology, chemistry = drawn.links
        assert biology.box[3] < chemistry.box[1]  # top to bottom, apart
        assert all(0 <= v <= 1 for v in biology.box + chemistry.box)
        assert biology.contains(0.5, (biology.box[1] + biology.box[3]) / 2)
    plain = mermaid.draw(Diagram(help_page[1]))
    assert isinstance(plain, Drawn) and plain.links == ()


def test_a_syntax_error_shows_the_source_and_why(vault) -> None:
    rendered = render(vault, "Diagrams/Broken diagrams")
    # the render draws nothing: the page names both, the pane learns they fail
    for key, diagram in mermaid.diagrams_of(rendered.resources).items():
        outcome = mermaid.draw(diagram)
        assert isinstance(outcome, Failed), key
    # known now: the next render writes them as source with the reason, and the rest
    clear_render_cache()
    again = render(vault, "Diagrams/Broken diagrams")
    assert "mermaid:" not in again.html
    assert again.html.count("could not be drawn") == 2
    assert "unexpected edge operator" in again.html
    assert "names no kind of Mermaid diagram" in again.html
    assert "A --&gt; --&gt; B[[[" in again.html and "this is not a diagram" in again.html
    assert "Before the broken ones." in again.html and "After the broken ones." in again.html
    assert any("Mermaid diagram not drawn" in p for p in again.problems)


def test_a_block_of_100_kb_is_not_sent_to_the_renderer() -> None:
    huge = "flowchart TD\n" + "\n".join(f"N{i}[A node with a long label {i}]" for i in range(3000))
    assert len(huge) > 100_000
    mermaid.stop_child()
    outcome = mermaid.draw(Diagram(huge))
    assert isinstance(outcome, Failed) and "Mermaid draws at most 50,000" in outcome.reason
    assert mermaid.child_pid() is None  # no renderer was started for it


def test_a_page_with_a_block_past_mermaids_limit_shows_it_as_source(tmp_path: Path) -> None:
    huge = "flowchart TD\n" + "\n".join(f"N{i}[A node with a long label {i}]" for i in range(1800))
    assert mermaid.MAX_SOURCE_CHARS < len(huge) < 100_000  # the page shows a body's first 100k
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "Big.md").write_text(f"Intro.\n\n```mermaid\n{huge}\n```\n\nOutro.\n")
    with load_vault(tmp_path / "v") as v:
        entry = v.entry("Big")
        assert entry is not None
        rendered = render_entry(entry, v, vault_root=tmp_path / "v")
    assert "could not be drawn" in rendered.html and "50,000" in rendered.html
    assert "N1799[A node with a long label 1799]" in rendered.html
    assert "Intro." in rendered.html and "Outro." in rendered.html


def test_five_thousand_nodes_fail_with_a_reason() -> None:
    nodes = "flowchart LR\n" + ";".join(f"n{i}" for i in range(5000))
    assert len(nodes) < mermaid.MAX_SOURCE_CHARS  # it reaches the renderer
    outcome = mermaid.draw(Diagram(nodes))
    assert outcome == Failed("it is too large for the renderer to lay out")
    chain = "flowchart TD\n" + "\n".join(f"{i}-->{i + 1}" for i in range(5000))
    assert isinstance(mermaid.draw(Diagram(chain)), Failed)


def test_a_diagram_the_renderer_never_finishes_is_stopped_and_the_next_one_drawn() -> None:
    outcome = mermaid.draw(Diagram(ENDLESS), timeout=0.5)
    assert outcome == Failed("the renderer took longer than 0.5 s")
    assert mermaid.child_pid() is None  # killed, not left running
    assert isinstance(mermaid.draw(Diagram("graph TD\nA --> B")), Drawn)  # a new process
    # known for this run: the next page with it does not wait again
    assert mermaid.cached(Diagram(ENDLESS)) == outcome


def test_a_cancelled_task_draws_nothing() -> None:
    state = TaskState()
    raised: list[BaseException] = []

    def work() -> None:
        try:
            mermaid.draw(Diagram(ENDLESS), state, timeout=600)
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    state.cancel()
    thread.join()
    # cancelled, not drawn (the renderer needs seconds) nor timed out (600 s)
    assert len(raised) == 1 and isinstance(raised[0], Cancelled)
    assert mermaid.cached(Diagram(ENDLESS)) is None


def test_cancelling_while_the_renderer_works_kills_it() -> None:
    mermaid.stop_child()  # the process that starts next is the one drawing ENDLESS
    state = TaskState()
    raised: list[BaseException] = []
    started = threading.Event()

    def work() -> None:
        try:
            started.set()
            mermaid.draw(Diagram(ENDLESS), state, timeout=600)
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    started.wait()
    while mermaid.child_pid() is None and thread.is_alive():
        threading.Event().wait(0.01)  # until the renderer has the request
    pid = mermaid.child_pid()
    state.cancel()
    thread.join()
    assert len(raised) == 1 and isinstance(raised[0], Cancelled)
    assert pid is not None and not alive(pid)


def test_a_second_open_is_read_from_the_cache_without_the_renderer() -> None:
    diagram = Diagram("graph TD\nBiology --> Chemistry\nclass Biology,Chemistry internal-link;")
    first = mermaid.draw(diagram)
    assert isinstance(first, Drawn)
    mermaid.stop_child()
    assert mermaid.draw(diagram) is first  # memory
    mermaid.clear_memory()
    again = mermaid.draw(diagram)  # a later launch: from the disk cache
    assert again == first and again is not first
    assert mermaid.child_pid() is None  # the renderer was never asked
    assert (mermaid.cache_dir() / f"{diagram.key[len('mermaid:') :]}.png").is_file()


def test_past_the_budget_diagrams_are_shown_as_source(tmp_path: Path) -> None:
    body = "\n\n".join(f"```mermaid\ngraph TD\nA{i} --> B{i}\n```" for i in range(52))
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "Many.md").write_text(body + "\n\nThe last line.\n")
    with load_vault(tmp_path / "v") as v:
        entry = v.entry("Many")
        assert entry is not None
        rendered = render_entry(entry, v, vault_root=tmp_path / "v")
    assert len(mermaid.diagrams_of(rendered.resources)) == mermaid.MAX_DIAGRAMS
    assert rendered.html.count("only the first 50 diagrams of a page are drawn") == 2
    assert "Rendering was cut short" in rendered.html and "The last line." in rendered.html


def test_without_the_renderer_diagrams_are_shown_as_source(vault, monkeypatch) -> None:
    monkeypatch.setattr(mermaid, "renderer_version", lambda: None)
    rendered = render(vault, "Diagrams/Mermaid from the help page")
    assert "mermaid:" not in rendered.html
    assert rendered.html.count("the Mermaid renderer (the mmdr package) is not installed") == 4
    assert "Alice-&gt;&gt;+John: Hello John, how are you?" in rendered.html


def test_the_html_export_carries_the_pictures_and_the_failures(vault) -> None:
    for entry_id, pictures, failures in (
        ("Diagrams/Mermaid from the help page", 4, 0),
        ("Diagrams/Broken diagrams", 0, 2),
    ):
        page = standalone_html(render(vault, entry_id), title=entry_id, vault_root=VAULT)
        assert "mermaid:" not in page
        assert page.count('<img src="data:image/png;base64,') == pictures
        assert page.count("could not be drawn") == failures


def test_a_block_of_100_kb_on_a_page_leaves_the_rest_shown(tmp_path: Path) -> None:
    huge = "flowchart TD\n" + "\n".join(f"N{i}[A node with a long label {i}]" for i in range(3000))
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "Big.md").write_text(f"Intro.\n\n```mermaid\n{huge}\n```\n\nOutro.\n")
    with load_vault(tmp_path / "v") as v:
        entry = v.entry("Big")
        assert entry is not None
        rendered = render_entry(entry, v, vault_root=tmp_path / "v")
    assert "Intro." in rendered.html and "only the first 99 thousand are shown" in rendered.html
    assert "N2000[A node with a long label 2000]" in rendered.html  # as text, not drawn
    assert not mermaid.diagrams_of(rendered.resources)


def test_an_embedded_note_brings_its_diagrams(tmp_path: Path) -> None:
    root = tmp_path / "v"
    (root / "Diagrams").mkdir(parents=True)
    help_page = VAULT / "Diagrams" / "Mermaid from the help page.md"
    (root / "Diagrams" / help_page.name).write_text(help_page.read_text(encoding="utf-8"))
    (root / "Reading list.md").write_text("Mine:\n\n![[Mermaid from the help page]]\n\nDone.\n")
    with load_vault(root) as v:
        entry = v.entry("Reading list")
        assert entry is not None
        rendered = render_entry(entry, v, vault_root=root)
    assert len(mermaid.diagrams_of(rendered.resources)) == 4
    assert rendered.html.count('<img src="mermaid:') == 4 and "Done." in rendered.html


def test_a_very_wide_or_tall_diagram_is_drawn_within_the_pixel_caps() -> None:
    # mmdr's own PNG of these was a null bitmap (38,000 px wide; 26,000 px tall)
    wide = "flowchart TD\n" + "\n".join(f"n{i // 3} --> n{i}" for i in range(1, 300))
    tall = "flowchart TD\n" + "\n".join(f"n{i} --> n{i + 1}" for i in range(300))
    for source in (wide, tall):
        drawn = mermaid.draw(Diagram(source))
        assert isinstance(drawn, Drawn)
        width, height = (int.from_bytes(drawn.png[16 + 4 * k : 20 + 4 * k], "big") for k in (0, 1))
        assert width <= mermaid.MAX_WIDTH and height <= mermaid.MAX_HEIGHT
        assert width * height <= mermaid.MAX_PIXELS
        scale = mermaid.png_scale(drawn)
        assert abs(width - drawn.width * scale) <= 1  # what the pane takes it for
    assert mermaid.png_scale(mermaid.draw(Diagram(tall))) > 1  # still sharp, tall as it is


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_a_picture_named_in_a_diagram_is_never_read(tmp_path: Path) -> None:
    """A node's image (``@{ img: … }``, an ``<img>`` label) names a FIFO outside any vault:
    reading it would block the renderer until the timeout; it is never opened."""
    fifo = tmp_path / "outside.png"
    os.mkfifo(fifo)
    source = (
        "flowchart TD\n"
        f'A@{{ img: "{fifo}", label: "I", pos: "t", w: 60, h: 60 }}\n'
        f"B[\"<img src='{fifo}' width='40' />\"]\n"
        f"C[\"<img src='file://{fifo}' />\"] --> A\n"
    )
    outcome = mermaid.draw(Diagram(source), timeout=30)
    assert isinstance(outcome, Drawn)  # not a timeout: the FIFO was never opened


def test_a_linked_nodes_text_is_in_the_link_colour() -> None:
    source = blocks(VAULT / "Diagrams" / "Mermaid from the help page.md")[3]
    assert mermaid.diagram_kind(source) == "graph"
    assert mermaid.diagram_kind("---\ntitle: x\n---\n%%{init: {}}%%\n%% hi\npie title P") == "pie"
    for theme_name in ("light", "dark"):
        drawn = mermaid.draw(Diagram(source, theme_name))
        assert isinstance(drawn, Drawn)
        link = theme(theme_name).entry.link.lower()
        assert f"internal-link tspan{{fill:{link}" in drawn.svg.lower()
    # not for other kinds, where a classDef line would not parse
    seq = "sequenceDiagram\nA->>B: internal-link"
    assert "classDef" not in mermaid.themed_source(Diagram(seq))


def test_the_disk_cache_keeps_the_latest_diagrams(monkeypatch) -> None:
    monkeypatch.setattr(mermaid, "DISK_ITEMS", 4)
    drawn = [Diagram(f"graph TD\nA{i} --> B{i}") for i in range(6)]
    for i, d in enumerate(drawn):
        assert isinstance(mermaid.draw(d), Drawn)
        meta = mermaid.cache_dir() / f"{d.key[len('mermaid:') :]}.json"
        os.utime(meta, (1000 + i, 1000 + i))  # drawn one after the other
    kept = sorted(p.stem for p in mermaid.cache_dir().glob("*.json"))
    assert len(kept) <= 4 and len(list(mermaid.cache_dir().glob("*.png"))) == len(kept)
    assert drawn[-1].key[len("mermaid:") :] in kept  # the latest stays
    assert drawn[0].key[len("mermaid:") :] not in kept  # the oldest went
