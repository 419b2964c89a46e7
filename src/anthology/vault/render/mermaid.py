"""Mermaid diagrams (```` ```mermaid ```` blocks), drawn offline by ``mmdr`` (Rust, MIT).

The render never draws: a block becomes ``<img src="mermaid:KEY">`` and its request (the
source and the theme, :class:`Diagram`) goes in the render's resources under that key. Who
shows the page draws it: the entry pane from a worker thread (a placeholder first, the
picture as it comes), the exports at once. A diagram known to fail (a syntax error, too big)
is written as its source with a one-line reason.

Drawing runs in a child process (:mod:`.mermaid_child`, one, kept between diagrams): mmdr is
native code, and a diagram it never finishes (a 2,000-task user journey took it 9 s, its
layout being quadratic there) can only be stopped by killing the process. The caller waits
at most :data:`DRAW_TIMEOUT`, and a cancelled :class:`~anthology.tasks.TaskState` (the reader
left the entry) kills it at once; the next diagram starts a new one.

Drawn diagrams are cached like typeset math: in memory, and on disk in the user cache
folder (``mermaid/``), keyed by the source, the theme's colours and the renderer's version,
so a second open, and a second launch, costs a file read.

Colours: Mermaid's ``base`` theme with variables from the entry palette (nodes in the chip
colour, edges muted, text the page's), set by an ``init`` directive put before the user's
own lines, so a diagram's own ``%%{init: …}%%`` or front-matter ``config`` still wins.

Internal links: a node with the ``internal-link`` class (Obsidian's way,
``class A,B internal-link;``) links to the entry its text names. The picture is a PNG with
no hit-testing, so the node boxes are read from the SVG (:func:`internal_links`, as
fractions of the picture) and the pane maps a click on the picture to them.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import hashlib
import json
import math
import os
import queue
import re
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as etree
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from pathlib import Path

from anthology.palette import EntryColours
from anthology.tasks import Cancelled, TaskState

from ..lru import LockedLru
from .context import RenderContext
from .theme import palette

SCHEME = "mermaid:"
# As Mermaid's own ``maxTextSize`` (what Obsidian draws): a longer block is shown as source
MAX_SOURCE_CHARS = 50_000
MAX_DIAGRAMS = 50  # drawn per render (the entry and its embeds); the rest as source
DRAW_TIMEOUT = 10.0  # seconds one diagram may take in the renderer
STYLE = "2"  # how we draw (colours, classes): a change here draws every diagram anew
SCALE = 2.0  # device pixels per CSS px: crisp on high-DPI screens, as the pane's pictures
# device pixels, at most: as wide as a wide pane's column shows it at SCALE (a wider diagram
# is shrunk to the column), as tall as a 300-node chain (26,000 px) at about 1.2
MAX_WIDTH = 4800
MAX_HEIGHT = 32_000
MAX_PIXELS = 16_000_000  # device pixels a picture, at most (64 MB of RGBA)
MEMORY_ITEMS = 64  # drawn diagrams kept in memory (PNG and SVG: ~0.1-1 MB each)
DISK_ITEMS = 2000  # and on disk; past it the least recently drawn quarter goes
_LINK_CLASS = "internal-link"  # Obsidian's class of a node that links to an entry
_CHILD = Path(__file__).with_name("mermaid_child.py")


# ---------------------------------------------------------------- what is drawn
@dataclass(frozen=True)
class Diagram:
    """A diagram to draw: its source as written and the page's theme."""

    source: str
    theme: str = "light"

    @property
    def key(self) -> str:
        """Its resource name: the same source in the same colours by the same renderer
        and scale is the same picture."""
        digest = hashlib.sha1(
            "\0".join(
                (
                    renderer_version() or "-",
                    STYLE,
                    str(SCALE),
                    theme_directive(self.theme),
                    self.source,
                )
            ).encode("utf-8", "surrogatepass")
        ).hexdigest()[:24]
        return f"{SCHEME}{digest}"

    def to_bytes(self) -> bytes:
        return json.dumps({"source": self.source, "theme": self.theme}).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> Diagram | None:
        try:
            raw = json.loads(data)
            return cls(str(raw["source"]), str(raw.get("theme", "light")))
        except (ValueError, KeyError, TypeError):
            return None


@dataclass(frozen=True)
class NodeLink:
    """A node to click: the entry its text names, and its box as fractions of the picture
    (left, top, right, bottom)."""

    target: str
    box: tuple[float, float, float, float]

    def contains(self, fx: float, fy: float) -> bool:
        left, top, right, bottom = self.box
        return left <= fx <= right and top <= fy <= bottom


@dataclass(frozen=True)
class Drawn:
    png: bytes  # at about SCALE device pixels per CSS px (less for a huge diagram)
    svg: str  # mmdr's, styled with CSS (browsers draw it; QtSvg would not)
    width: float  # CSS px, as the diagram is laid out
    height: float
    links: tuple[NodeLink, ...] = ()


@dataclass(frozen=True)
class Failed:
    reason: str  # one line, for the reader


Outcome = Drawn | Failed


@lru_cache(maxsize=1)
def renderer_version() -> str | None:
    """mmdr's version, or None when it is not installed (diagrams are then shown as source)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mmdr")
    except PackageNotFoundError:
        return None


# ---------------------------------------------------------------- colours
def theme_variables(pal: EntryColours) -> dict[str, object]:
    """Mermaid's ``base`` theme in the page's colours. The pie, mindmap and journey scales
    are set too: the base theme derives them from the node colour by turning its hue,
    which a grey or pale node colour does not have."""
    accents = [pal.callouts[k][0] for k in ("note", "tip", "warning", "example", "abstract",
                                             "danger", "question", "quote")]  # fmt: skip
    tints = [pal.callouts[k][1] for k in ("note", "tip", "warning", "example", "abstract",
                                           "danger", "question", "quote")]  # fmt: skip
    dark = pal.name == "dark"
    out: dict[str, object] = {
        "darkMode": dark,
        "background": pal.background,
        "fontFamily": "sans-serif",
        "primaryColor": pal.chip_bg,
        "primaryTextColor": pal.text,
        "primaryBorderColor": pal.link,
        "secondaryColor": pal.box_bg,
        "secondaryTextColor": pal.text,
        "secondaryBorderColor": pal.box_border,
        "tertiaryColor": pal.code_bg,
        "tertiaryTextColor": pal.text,
        "tertiaryBorderColor": pal.box_border,
        "lineColor": pal.muted,
        "textColor": pal.text,
        "mainBkg": pal.chip_bg,
        "nodeBorder": pal.link,
        "clusterBkg": pal.box_bg,
        "clusterBorder": pal.box_border,
        "titleColor": pal.text,
        "edgeLabelBackground": pal.background,
        "noteBkgColor": pal.highlight_bg,
        "noteTextColor": pal.text,
        "noteBorderColor": pal.box_border,
        "actorBkg": pal.chip_bg,
        "actorBorder": pal.link,
        "actorTextColor": pal.text,
        "actorLineColor": pal.muted,
        "signalColor": pal.text,
        "signalTextColor": pal.text,
        "labelTextColor": pal.text,
        "pieTitleTextColor": pal.text,
        "pieSectionTextColor": "#ffffff",
        "pieLegendTextColor": pal.text,
        "pieStrokeColor": pal.background,
        "pieOuterStrokeColor": pal.box_border,
    }
    for i, colour in enumerate(accents * 2):
        out[f"pie{i + 1}"] = colour
    for i, colour in enumerate(tints):
        out[f"cScale{i}"] = colour
        out[f"cScaleLabel{i}"] = pal.text
        out[f"fillType{i}"] = colour
    return out


@lru_cache(maxsize=4)
def theme_directive(theme: str) -> str:
    init = {"theme": "base", "themeVariables": theme_variables(palette(theme))}
    return "%%{init: " + json.dumps(init) + "}%%"


_FRONT_MATTER_RE = re.compile(r"\A\s*---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.S)


_DIRECTIVE_RE = re.compile(r"%%\{.*?\}%%", re.S)
_NAMES_THEME_RE = re.compile(r"""["']?\btheme\b["']?\s*:""")


def names_a_theme(source: str) -> bool:
    """Whether the diagram picks a theme of its own (``%%{init: {'theme': …}}%%``, or
    ``theme:`` in its front matter's ``config``)."""
    m = _FRONT_MATTER_RE.match(source)
    if m and _NAMES_THEME_RE.search(m.group(0)):
        return True
    return any(_NAMES_THEME_RE.search(d.group(0)) for d in _DIRECTIVE_RE.finditer(source))


def themed_source(diagram: Diagram) -> str:
    """The source with the theme's ``init`` directive before its own lines (after its
    front matter, which Mermaid reads only at the very top), unless it picks a theme
    itself: then it is drawn as written, as Obsidian draws it. Its own directives come
    later and win over the page's colours."""
    source = diagram.source
    if names_a_theme(source):
        return source
    m = _FRONT_MATTER_RE.match(source)
    at = m.end() if m else 0
    themed = f"{source[:at]}{theme_directive(diagram.theme)}\n{source[at:]}"
    if (
        _LINK_CLASS in source
        and diagram_kind(source) in ("graph", "flowchart")
        and not re.search(r"classDef\s+internal-link\b", source)
    ):  # a linked node's text in the link colour, as Obsidian shows it
        themed += f"\nclassDef {_LINK_CLASS} color:{palette(diagram.theme).link};"
    return themed


def diagram_kind(source: str) -> str:
    """The diagram's kind, as its first line names it (``flowchart``, ``pie``…), past its
    front matter, directives and comments; "" when there is none."""
    m = _FRONT_MATTER_RE.match(source)
    body = _DIRECTIVE_RE.sub("", source[m.end() if m else 0 :])
    for line in body.splitlines():
        line = line.strip()
        if line and not line.startswith("%%"):
            return re.split(r"[\s;:]", line, maxsplit=1)[0]
    return ""


# ---------------------------------------------------------------- reasons
_PLAIN_REASONS = (
    ("resource limit", "it is too large for the renderer to lay out"),
    ("null Bitmap", "it is too large to draw as a picture"),
    ("No Mermaid diagram type detected", "the first line names no kind of Mermaid diagram"),
)


def plain_reason(message: str) -> str:
    """The renderer's error as one line a reader can act on."""
    first = (message.strip().splitlines() or ["unknown error"])[0]
    for needle, plain in _PLAIN_REASONS:
        if needle in first:
            return plain
    return first[:200]


# ---------------------------------------------------------------- internal links
_TRANSLATE_RE = re.compile(r"translate\(\s*([-\d.e]+)[\s,]*([-\d.e]+)?\s*\)")


def _translate(el: etree.Element) -> tuple[float, float]:
    m = _TRANSLATE_RE.search(el.get("transform", ""))
    if not m:
        return 0.0, 0.0
    return float(m.group(1)), float(m.group(2) or 0.0)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _shape_box(node: etree.Element) -> tuple[float, float, float, float] | None:
    """The box of a node's shape, in the node's coordinates."""
    for el in node.iter():
        tag = _local(el.tag)
        try:
            if tag == "rect" and el.get("width"):
                x, y = float(el.get("x", 0)), float(el.get("y", 0))
                return x, y, x + float(el.get("width", 0)), y + float(el.get("height", 0))
            if tag == "circle":
                r = float(el.get("r", 0))
                return -r, -r, r, r
            if tag == "polygon" and el.get("points"):
                nums = [float(v) for v in re.split(r"[\s,]+", el.get("points", "").strip())]
                xs, ys = nums[0::2], nums[1::2]
                dx, dy = _translate(el)
                return min(xs) + dx, min(ys) + dy, max(xs) + dx, max(ys) + dy
        except ValueError:
            continue
    return None


def internal_links(svg: str) -> tuple[NodeLink, ...]:
    """The nodes of class ``internal-link`` in mmdr's SVG: each node's label (what it
    links to, as Obsidian reads it) and its box as fractions of the viewBox."""
    if _LINK_CLASS not in svg:
        return ()
    try:
        root = etree.fromstring(svg)
    except etree.ParseError:
        return ()
    m = re.match(r"\s*([-\d.e]+)[\s,]+([-\d.e]+)[\s,]+([\d.e]+)[\s,]+([\d.e]+)",
                 root.get("viewBox", ""))  # fmt: skip
    if not m:
        return ()
    vx, vy, vw, vh = (float(g) for g in m.groups())
    if vw <= 0 or vh <= 0:
        return ()
    # labels: merman writes them as text at the node's centre, tagged with its classes
    labels: list[tuple[float, float, str]] = []
    for el in root.iter():
        if _local(el.tag) != "text":
            continue
        classes = el.get("data-merman-source-classes", "")
        if _LINK_CLASS not in classes.split() or "node" not in classes.split():
            continue
        text = " ".join("".join(el.itertext()).split())
        try:
            labels.append((float(el.get("x", 0)), float(el.get("y", 0)), text))
        except ValueError:
            continue
    links: list[NodeLink] = []

    def walk(el: etree.Element, ox: float, oy: float) -> None:
        dx, dy = _translate(el)
        x, y = ox + dx, oy + dy
        classes = (el.get("class") or "").split()
        if _local(el.tag) == "g" and "node" in classes and _LINK_CLASS in classes:
            box = _shape_box(el)
            near = min(labels, key=lambda t: (t[0] - x) ** 2 + (t[1] - y) ** 2, default=None)
            if box is not None and near is not None and near[2]:
                left, top, right, bottom = box
                links.append(
                    NodeLink(
                        near[2],
                        (
                            (x + left - vx) / vw,
                            (y + top - vy) / vh,
                            (x + right - vx) / vw,
                            (y + bottom - vy) / vh,
                        ),
                    )
                )
            return
        for child in el:
            walk(child, x, y)

    walk(root, 0.0, 0.0)
    return tuple(links)


# ---------------------------------------------------------------- the cache
_memory: LockedLru[Outcome] = LockedLru(MEMORY_ITEMS)


def cache_dir() -> Path:
    from anthology.paths import user_cache_dir

    return user_cache_dir() / "mermaid"


def _disk_name(key: str) -> str:
    return key[len(SCHEME) :]


def _read_disk(key: str) -> Drawn | None:
    folder = cache_dir()
    name = _disk_name(key)
    try:
        meta = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        png = (folder / f"{name}.png").read_bytes()
        svg = (folder / f"{name}.svg").read_text(encoding="utf-8")
        links = tuple(
            NodeLink(str(t), (float(a), float(b), float(c), float(d)))
            for t, (a, b, c, d) in meta.get("links", [])
        )
        return Drawn(png, svg, float(meta["width"]), float(meta["height"]), links)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_disk(key: str, drawn: Drawn) -> None:
    """Keep a drawn diagram for later launches (a cache: a failed write loses nothing)."""
    folder = cache_dir()
    name = _disk_name(key)
    meta = {
        "width": drawn.width,
        "height": drawn.height,
        "links": [[link.target, list(link.box)] for link in drawn.links],
        "renderer": f"mmdr {renderer_version()}",
    }
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.png").write_bytes(drawn.png)
        (folder / f"{name}.svg").write_text(drawn.svg, encoding="utf-8")
        # the meta file last: a diagram is on disk once it is there
        (folder / f"{name}.json").write_text(json.dumps(meta), encoding="utf-8")
        _prune(folder)
    except OSError:
        pass


def _prune(folder: Path) -> None:
    """Keep the disk cache under :data:`DISK_ITEMS` diagrams: the edits of a vault leave
    old drawings behind. The oldest quarter goes (by when they were drawn)."""
    metas = [e for e in os.scandir(folder) if e.name.endswith(".json")]
    if len(metas) <= DISK_ITEMS:
        return
    metas.sort(key=lambda e: e.stat().st_mtime)
    for entry in metas[: len(metas) - DISK_ITEMS * 3 // 4]:
        stem = entry.name[: -len(".json")]
        for suffix in (".json", ".png", ".svg"):  # the meta first: no half diagram is read
            with contextlib.suppress(OSError):
                (folder / f"{stem}{suffix}").unlink()


def cached(diagram: Diagram) -> Outcome | None:
    """The diagram as drawn before (this run, or on disk), a failure of this run, or None:
    no renderer is asked."""
    key = diagram.key
    hit = _memory.peek(key)
    if hit is not None:
        return hit
    drawn = _read_disk(key)
    if drawn is not None:
        _memory.get_or_make(key, lambda: drawn)
    return drawn


def clear_memory() -> None:
    _memory.clear()


# ---------------------------------------------------------------- the child process
class _Child:
    """The drawing process and the thread that reads its answers."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-I", str(_CHILD)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )
        self.answers: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True, name="mermaid-child").start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        with self.proc.stdout:
            for line in self.proc.stdout:
                self.answers.put(line)
        self.answers.put(None)  # the process ended

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()


_child: _Child | None = None
_child_lock = threading.Lock()
_POLL = 0.02  # s between looks at the clock and the task's cancellation


def child_pid() -> int | None:
    """The drawing process's id, when one runs (for the tests and benchmarks)."""
    child = _child
    return child.proc.pid if child is not None and child.proc.poll() is None else None


def stop_child() -> None:
    """End the drawing process (at exit, or to free its memory)."""
    global _child
    with _child_lock:
        if _child is not None:
            _child.kill()
            _child = None


atexit.register(stop_child)  # a drawing under way at exit is not waited for


def _ask_child(request: dict, state: TaskState | None, timeout: float) -> dict:
    """One request to the drawing process, waited for at most ``timeout`` seconds (then
    the process is killed); raises :class:`Cancelled` (the process killed too) as soon as
    ``state`` is cancelled."""
    global _child
    while not _child_lock.acquire(timeout=_POLL * 5):  # another thread's diagram first
        if state is not None:
            state.check()
    try:
        if state is not None:
            state.check()
        if _child is None or _child.proc.poll() is not None:
            _child = _Child()
        child = _child
        assert child.proc.stdin is not None
        try:
            child.proc.stdin.write(json.dumps(request) + "\n")
            child.proc.stdin.flush()
        except OSError:
            child.kill()
            _child = None
            return {"ok": False, "error": "the renderer could not be started"}
        deadline = time.monotonic() + timeout
        while True:
            if state is not None and state.is_cancelled:
                child.kill()
                _child = None
                raise Cancelled
            if time.monotonic() >= deadline:
                child.kill()
                _child = None
                return {"ok": False, "timeout": True}
            try:
                line = child.answers.get(timeout=_POLL)
            except queue.Empty:
                continue
            if line is None:  # it died (a crash in native code, out of memory)
                child.kill()
                _child = None
                return {"ok": False, "error": "the renderer stopped while drawing it"}
            return json.loads(line)
    finally:
        _child_lock.release()


def draw(
    diagram: Diagram, state: TaskState | None = None, *, timeout: float = DRAW_TIMEOUT
) -> Outcome:
    """The diagram drawn (from the cache when it is there), or why it cannot be; raises
    :class:`Cancelled` when ``state`` is cancelled meanwhile. Never call it on the GUI
    thread but for an export the reader asked for."""
    hit = cached(diagram)
    if hit is not None:
        return hit
    if (early := precheck(diagram.source)) is not None:
        return early
    request = {
        "source": themed_source(diagram),
        "scale": SCALE,
        "max_width": MAX_WIDTH,
        "max_height": MAX_HEIGHT,
        "max_pixels": MAX_PIXELS,
    }
    answer = _ask_child(request, state, timeout)
    outcome: Outcome
    if answer.get("ok"):
        svg = str(answer["svg"])
        outcome = Drawn(
            base64.b64decode(answer["png"]),
            svg,
            float(answer["width"]),
            float(answer["height"]),
            internal_links(svg) if _LINK_CLASS in diagram.source else (),
        )
        _write_disk(diagram.key, outcome)
    elif answer.get("timeout"):
        outcome = Failed(f"the renderer took longer than {timeout:g} s")
    else:
        outcome = Failed(plain_reason(str(answer.get("error", ""))))
    # failures are kept for this run only: a newer renderer may draw them
    return _memory.get_or_make(diagram.key, lambda: outcome)


def precheck(source: str) -> Failed | None:
    """Why ``source`` is not sent to the renderer at all, or None."""
    if renderer_version() is None:
        return Failed("the Mermaid renderer (the mmdr package) is not installed")
    if not source.strip():
        return Failed("the block is empty")
    if len(source) > MAX_SOURCE_CHARS:
        return Failed(
            f"it is {len(source):,} characters long; Mermaid draws at most {MAX_SOURCE_CHARS:,}"
        )
    return None


def display_size(drawn: Drawn, column: float) -> tuple[int, int]:
    """The picture's size in CSS px in a text column ``column`` px wide: as laid out,
    never wider than the column."""
    scale = min(1.0, column / drawn.width) if drawn.width > 0 else 1.0
    return max(1, round(drawn.width * scale)), max(1, round(drawn.height * scale))


# ---------------------------------------------------------------- HTML
def failure_html(pal: EntryColours, source: str, reason: str) -> str:
    """A diagram that cannot be drawn: a line saying why, then its source."""
    return (
        f'<table class="mermaid-source" width="100%" cellspacing="0" cellpadding="10" '
        f'bgcolor="{pal.code_bg}" style="margin-top: 6px; margin-bottom: 12px;"><tr><td>'
        f'<p style="color: {pal.error}; margin: 0 0 6px 0;">⚠ This Mermaid diagram could '
        f"not be drawn: {escape(reason)}.</p>"
        f'<pre style="margin: 0; white-space: pre-wrap;">{escape(source)}</pre>'
        "</td></tr></table>"
    )


def picture_html(key: str, width: int | None = None, height: int | None = None) -> str:
    size = f' width="{width}" height="{height}"' if width and height else ""
    # line-height 100 %: the body's 150 % would add space under the picture's line
    return (
        f'<p class="mermaid" align="center" style="margin-top: 10px; margin-bottom: 12px; '
        f'line-height: 100%;"><img src="{escape(key)}"{size} alt="Mermaid diagram" /></p>'
    )


def mermaid_html(ctx: RenderContext, _lang: str, code: str) -> str:
    """A ```` ```mermaid ```` block: its picture (drawn by whoever shows the page), or its
    source and why it is not drawn. No drawing here: a render may run on the GUI thread."""
    source = code.strip("\n")
    diagram = Diagram(source, ctx.palette.name)
    known = precheck(source) or _memory.peek(diagram.key)
    if isinstance(known, Failed):
        ctx.problems.append(f"Mermaid diagram not drawn: {known.reason}")
        return failure_html(ctx.palette, source, known.reason)
    key = diagram.key
    if key not in ctx.resources:
        drawn = sum(1 for k in ctx.resources if k.startswith(SCHEME))
        if drawn >= MAX_DIAGRAMS:
            ctx.budget.cut("diagrams", f"only the first {MAX_DIAGRAMS} Mermaid diagrams are drawn")
            return failure_html(
                ctx.palette, source, f"only the first {MAX_DIAGRAMS} diagrams of a page are drawn"
            )
        ctx.resources[key] = diagram.to_bytes()
    return picture_html(key)


def diagrams_of(resources: dict[str, bytes]) -> dict[str, Diagram]:
    """The diagrams a render names, by key."""
    out: dict[str, Diagram] = {}
    for key, data in resources.items():
        if key.startswith(SCHEME) and (diagram := Diagram.from_bytes(data)) is not None:
            out[key] = diagram
    return out


def data_uri_svg(drawn: Drawn) -> str:
    """The drawing as an SVG ``data:`` URI (for a self-contained HTML page: an ``<img>``
    keeps each diagram's styles to itself and runs nothing)."""
    return "data:image/svg+xml;base64," + base64.b64encode(drawn.svg.encode("utf-8")).decode()


def png_scale(drawn: Drawn) -> float:
    """Device pixels per CSS px of ``drawn.png``: :data:`SCALE`, or less for a huge one."""
    return min(
        SCALE,
        MAX_WIDTH / max(drawn.width, 1e-9),
        MAX_HEIGHT / max(drawn.height, 1e-9),
        math.sqrt(MAX_PIXELS / max(drawn.width * drawn.height, 1e-9)),
    )
