"""A JSON Canvas 1.0 file (Obsidian's ``.canvas``) read into a board, every bad input a
problem: the spec is https://jsoncanvas.org/spec/1.0/ (MIT).

The top level holds ``nodes`` and ``edges`` (both optional). A node has ``id``, ``type``
(``text``, ``file``, ``link``, ``group``), ``x``, ``y``, ``width``, ``height`` and an optional
``color``; a text node its Markdown ``text``; a file node a vault path ``file`` and an optional
``subpath`` (``#Heading`` or ``#^block``); a link node its ``url``; a group an optional
``label``, ``background`` (an image in the vault) and ``backgroundStyle`` (``cover``,
``ratio``, ``repeat``). Nodes come in z-order, the first below. An edge has ``id``,
``fromNode``, ``toNode``, optional ``fromSide``/``toSide`` (``top right bottom left``),
``fromEnd`` (default ``none``) and ``toEnd`` (default ``arrow``), ``color`` and ``label``.
A colour is ``"1"``–``"6"`` (red orange yellow green cyan purple, the app chooses the
shades) or hex ``#rgb``/``#rrggbb``.

:func:`parse_canvas` never raises: what cannot be read is a :class:`CanvasProblem` naming
the node or edge, and what can be drawn is kept. Budgets keep a hostile file cheap to
draw and index: :data:`MAX_NODES` nodes, :data:`MAX_EDGES` edges, :data:`MAX_CARD_CHARS`
characters a text card, coordinates within :data:`MAX_COORD`. Paths a card names
(``file``, ``background``) must be vault-relative and stay inside the vault: an absolute
path, a URL or a ``..`` that climbs out is refused here, before anything could read it.
Pure Python; no Qt.
"""

from __future__ import annotations

import json
import math
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

NODE_TYPES = ("text", "file", "link", "group")
SIDES = ("top", "right", "bottom", "left")
ENDS = ("none", "arrow")
BACKGROUND_STYLES = ("cover", "ratio", "repeat")
PRESET_NAMES = {"1": "red", "2": "orange", "3": "yellow", "4": "green", "5": "cyan", "6": "purple"}

# Budgets (what a board of real vaults holds is far below: 48 canvases of 28 vaults had 317
# text cards between them).
MAX_NODES = 5_000
MAX_EDGES = 10_000
MAX_CARD_CHARS = 100_000  # of a text card, drawn and indexed; the rest is cut with a notice
MAX_LABEL_CHARS = 1_000
MAX_COORD = 10_000_000.0  # |x|, |y|: beyond, a node is not drawn (1e300 overflows a painter)
MAX_SIZE = 1_000_000.0  # width, height
DEFAULT_SIZE = (250.0, 60.0)  # what a node without a usable size is drawn at (Obsidian's)

_HEX_RE = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")  # http:, file:, C: (a drive)


@dataclass(frozen=True, slots=True)
class CanvasProblem:
    """Something wrong in the file, said for a reader: ``where`` is a node's or an edge's id
    ("" for the file as a whole)."""

    message: str
    where: str = ""
    severity: str = "warning"  # "error": nothing, or little, of the file can be drawn


@dataclass(slots=True)  # not frozen: a frozen dataclass is slower to make (5,000 a board)
class Node:
    id: str
    type: str  # one of NODE_TYPES
    x: float
    y: float
    width: float
    height: float
    z: int  # its place in the file's node list (its z-order)
    color: str | None = None  # "1"–"6" or "#rrggbb" (validated)
    text: str = ""  # a text card's Markdown (cut to MAX_CARD_CHARS)
    text_chars: int = 0  # how long the text was before any cut
    file: str | None = None  # a file card's vault path (None: refused, see the problems)
    file_written: str = ""  # the file as written (shown on a refused card)
    subpath: str | None = None  # "#Heading" or "#^block"
    url: str = ""
    label: str = ""  # a group's
    background: str | None = None  # a group's background image, vault path
    background_style: str = "cover"

    @property
    def rect(self) -> tuple[float, float, float, float]:
        return (self.x, self.y, self.width, self.height)

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x + self.width / 2, self.y + self.height / 2)

    def title(self) -> str:
        """One line that names the card, for a board drawn too small to read (and for a
        tooltip): a text card's first line, a file's name, a link's host, a group's label."""
        if self.type == "text":
            for line in self.text.splitlines():
                line = line.strip().lstrip("#>-*+ ").strip()
                if line:
                    return line[:120]
            return ""
        if self.type == "file":
            name = posixpath.basename(self.file or self.file_written)
            return name + (self.subpath or "")
        if self.type == "link":
            return url_host(self.url) or self.url[:120]
        return self.label[:120]


@dataclass(slots=True)
class Edge:
    id: str
    from_node: str
    to_node: str
    from_side: str | None = None
    to_side: str | None = None
    from_end: str = "none"
    to_end: str = "arrow"
    color: str | None = None
    label: str = ""


@dataclass
class Canvas:
    """A board: its drawable nodes (z-order) and edges, and what was wrong with the file."""

    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    problems: list[CanvasProblem] = field(default_factory=list)
    by_id: dict[str, Node] = field(default_factory=dict)  # the first node of each id

    def node(self, node_id: str) -> Node | None:
        return self.by_id.get(node_id)

    def groups(self) -> list[Node]:
        return [n for n in self.nodes if n.type == "group"]

    def problem(self, message: str, where: str = "", severity: str = "warning") -> None:
        self.problems.append(CanvasProblem(message, where, severity))


def url_host(url: str) -> str:
    """The host of ``https://host/…`` (no ``www.``), or ""."""
    m = re.match(r"[A-Za-z][A-Za-z0-9+.\-]*://(?:[^@/?#]*@)?([^/?#:]+)", url.strip())
    host = m.group(1).lower() if m else ""
    return host[4:] if host.startswith("www.") else host


def vault_path(written: str) -> tuple[str | None, str]:
    """``(the vault-relative path, "")`` a card's ``file``/``background`` names, or
    ``(None, why not)``: an absolute path, a URL or a path climbing out of the vault is
    refused (nothing outside the vault is ever read)."""
    raw = written.strip().replace("\\", "/")
    if not raw:
        return None, "names no file"
    if "\x00" in raw:
        return None, "names a path with a NUL character"
    if raw.startswith("/") or re.match(r"[A-Za-z]:/", raw):
        return None, f"names an absolute path (“{_short(written)}”), not a file of the vault"
    if _SCHEME_RE.match(raw):
        return None, f"names a URL (“{_short(written)}”), not a file of the vault"
    norm = posixpath.normpath(raw)
    if norm == ".." or norm.startswith("../"):
        return None, f"names “{_short(written)}”, which lies outside the vault"
    if norm in (".", ""):
        return None, "names no file"
    return norm, ""


def _short(text: str, limit: int = 80) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(value: Any) -> float | None:
    """A JSON number as a float (booleans are not numbers), or None."""
    if value.__class__ is float:  # the usual cases first
        return value
    if value.__class__ is int and -(2**53) < value < 2**53:
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:  # an int of 400 digits
        return math.inf


def _coord_ok(v: Any) -> bool:
    return (v.__class__ is int or v.__class__ is float) and -MAX_COORD <= v <= MAX_COORD


def _size_ok(v: Any) -> bool:
    return (v.__class__ is int or v.__class__ is float) and 0 < v <= MAX_SIZE


def _colour(value: Any, canvas: Canvas, where: str) -> str | None:
    if value is None:
        return None
    if value.__class__ is str and value in PRESET_NAMES:
        return value
    if isinstance(value, str) and (value in PRESET_NAMES or _HEX_RE.fullmatch(value)):
        if value.startswith("#") and len(value) == 4:  # #rgb → #rrggbb
            value = "#" + "".join(c * 2 for c in value[1:])
        return value.lower()
    canvas.problem(f"colour {_short(json.dumps(value), 40)} is neither “1”–“6” nor hex; "
                   "drawn in the default colour", where)  # fmt: skip
    return None


def _string(value: Any, canvas: Canvas, where: str, what: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    canvas.problem(f"{what} is not text; left out", where)
    return ""


def parse_canvas(text: str) -> Canvas:
    """The board ``text`` (a ``.canvas`` file's content) describes; never raises."""
    canvas = Canvas()
    if not text.strip():
        return canvas  # a new canvas: Obsidian writes "{}" or nothing
    try:
        data = json.loads(text)  # NaN, Infinity: read, then refused per node
    except json.JSONDecodeError as exc:
        canvas.problem(f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                       "nothing can be drawn", severity="error")  # fmt: skip
        return canvas
    except RecursionError:
        canvas.problem("JSON nested too deeply to read; nothing can be drawn", severity="error")
        return canvas
    if not isinstance(data, dict):
        canvas.problem(f"not a canvas: the file holds a JSON {_json_kind(data)}, not an object "
                       "with “nodes” and “edges”", severity="error")  # fmt: skip
        return canvas
    nodes = data.get("nodes", [])
    edges = data.get("edges", [])
    if not isinstance(nodes, list):
        canvas.problem(f"“nodes” is a {_json_kind(nodes)}, not a list; no card is drawn",
                       severity="error")  # fmt: skip
        nodes = []
    if not isinstance(edges, list):
        canvas.problem(f"“edges” is a {_json_kind(edges)}, not a list; no arrow is drawn")
        edges = []
    if len(nodes) > MAX_NODES:
        canvas.problem(f"{len(nodes):,} nodes: only the first {MAX_NODES:,} are drawn and "
                       "indexed", severity="error")  # fmt: skip
        nodes = nodes[:MAX_NODES]
    for z, raw in enumerate(nodes):
        node = _node(raw, z, canvas)
        if node is None:
            continue
        if node.id in canvas.by_id:
            canvas.problem(f"two nodes have the id “{_short(node.id, 40)}”: both are drawn, "
                           "arrows go to the first", node.id)  # fmt: skip
        else:
            canvas.by_id[node.id] = node
        canvas.nodes.append(node)
    if len(edges) > MAX_EDGES:
        canvas.problem(f"{len(edges):,} edges: only the first {MAX_EDGES:,} are drawn")
        edges = edges[:MAX_EDGES]
    seen_edges: set[str] = set()
    for raw in edges:
        edge = _edge(raw, canvas)
        if edge is None:
            continue
        if edge.id in seen_edges:
            canvas.problem(f"two edges have the id “{_short(edge.id, 40)}”", edge.id)
        seen_edges.add(edge.id)
        canvas.edges.append(edge)
    return canvas


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


def _node(raw: Any, z: int, canvas: Canvas) -> Node | None:
    if not isinstance(raw, dict):
        canvas.problem(f"node {z + 1} is a {_json_kind(raw)}, not an object; not drawn")
        return None
    node_id = raw.get("id")
    if not isinstance(node_id, str) or not node_id:
        canvas.problem(f"node {z + 1} has no id; not drawn", f"#{z + 1}")
        return None
    kind = raw.get("type")
    if kind not in NODE_TYPES:
        canvas.problem(f"unknown node type {_short(json.dumps(kind), 40)}; drawn as an empty "
                       "card", node_id)  # fmt: skip
        kind = "text"
    x: Any = raw.get("x")
    y: Any = raw.get("y")
    # the usual node first: numbers on the board (NaN fails every comparison)
    place: list[float] = []
    if _coord_ok(x) and _coord_ok(y):
        place = [float(x), float(y)]
    for key in () if place else ("x", "y"):
        value = _number(raw.get(key))
        if value is None:
            canvas.problem(f"“{key}” is missing or not a number; not drawn", node_id)
            return None
        if not math.isfinite(value) or abs(value) > MAX_COORD:
            canvas.problem(f"“{key}” is {_short(repr(raw.get(key)), 40)}, beyond the board "
                           f"(±{MAX_COORD:,.0f}); not drawn", node_id, "error")  # fmt: skip
            return None
        place.append(value)
    w: Any = raw.get("width")
    h: Any = raw.get("height")
    size: list[float] = []
    if _size_ok(w) and _size_ok(h):
        size = [float(w), float(h)]
    for key, default in () if size else zip(("width", "height"), DEFAULT_SIZE, strict=True):
        value = _number(raw.get(key))
        if value is None or not math.isfinite(value) or not 0 < value <= MAX_SIZE:
            canvas.problem(f"“{key}” is {_short(repr(raw.get(key)), 40)}; drawn "
                           f"{default:.0f} wide" if key == "width" else
                           f"“{key}” is {_short(repr(raw.get(key)), 40)}; drawn "
                           f"{default:.0f} high", node_id)  # fmt: skip
            value = default
        size.append(value)
    common = (node_id, kind, place[0], place[1], size[0], size[1], z,
              _colour(raw.get("color"), canvas, node_id))  # fmt: skip
    if kind == "text":
        text = _string(raw.get("text"), canvas, node_id, "the card's text")
        chars = len(text)
        if chars > MAX_CARD_CHARS:
            canvas.problem(f"a text card of {chars:,} characters: only the first "
                           f"{MAX_CARD_CHARS:,} are shown and indexed", node_id)  # fmt: skip
            cut = text.rfind("\n", 0, MAX_CARD_CHARS)
            text = text[: cut if cut > MAX_CARD_CHARS // 2 else MAX_CARD_CHARS]
        return Node(*common, text=text, text_chars=chars)
    if kind == "file":
        written = _string(raw.get("file"), canvas, node_id, "the card's file")
        path, why = vault_path(written)
        if path is None:
            canvas.problem(f"file card {why}; not read", node_id, "error")
        subpath = raw.get("subpath")
        if subpath is not None and not (isinstance(subpath, str) and subpath.startswith("#")):
            canvas.problem(f"subpath {_short(json.dumps(subpath), 40)} does not start with “#”; "
                           "the whole file is shown", node_id)  # fmt: skip
            subpath = None
        if subpath in ("#", "#^"):
            subpath = None
        return Node(*common, file=path, file_written=written, subpath=subpath)
    if kind == "link":
        url = _string(raw.get("url"), canvas, node_id, "the card's URL").strip()
        if not url:
            canvas.problem("link card without a URL", node_id)
        return Node(*common, url=url[:4096])
    label = _string(raw.get("label"), canvas, node_id, "the group's label")[:MAX_LABEL_CHARS]
    background: str | None = None
    written_bg = _string(raw.get("background"), canvas, node_id, "the group's background")
    if written_bg:
        background, why = vault_path(written_bg)
        if background is None:
            canvas.problem(f"background image {why}; not drawn", node_id, "error")
    style = raw.get("backgroundStyle", "cover")
    if style not in BACKGROUND_STYLES:
        canvas.problem(f"backgroundStyle {_short(json.dumps(style), 40)} is not one of cover, "
                       "ratio, repeat; drawn as cover", node_id)  # fmt: skip
        style = "cover"
    return Node(*common, label=label, background=background, background_style=style)


def _edge(raw: Any, canvas: Canvas) -> Edge | None:
    if not isinstance(raw, dict):
        canvas.problem(f"an edge is a {_json_kind(raw)}, not an object; not drawn")
        return None
    edge_id = raw.get("id")
    if not isinstance(edge_id, str) or not edge_id:
        edge_id = ""
        canvas.problem("an edge has no id (drawn all the same)")
    ends: list[str] = []
    for key in ("fromNode", "toNode"):
        ref = raw.get(key)
        if not isinstance(ref, str) or not ref:
            canvas.problem(f"edge without “{key}”; not drawn", edge_id)
            return None
        if ref not in canvas.by_id:
            canvas.problem(f"edge {key[:-4]} “{_short(ref, 40)}”, a node the board does not "
                           "have (or could not draw); not drawn", edge_id)  # fmt: skip
            return None
        ends.append(ref)
    sides: list[str | None] = []
    for key in ("fromSide", "toSide"):
        side = raw.get(key)
        if side is not None and side not in SIDES:
            canvas.problem(f"{key} {_short(json.dumps(side), 40)} is not top, right, bottom or "
                           "left; the nearest side is used", edge_id)  # fmt: skip
            side = None
        sides.append(side)
    shapes: list[str] = []
    for key, default in (("fromEnd", "none"), ("toEnd", "arrow")):
        end = raw.get(key, default)
        if end not in ENDS:
            canvas.problem(f"{key} {_short(json.dumps(end), 40)} is neither none nor arrow; "
                           f"drawn as {default}", edge_id)  # fmt: skip
            end = default
        shapes.append(end)
    label = _string(raw.get("label"), canvas, edge_id, "the edge's label")[:MAX_LABEL_CHARS]
    return Edge(edge_id, ends[0], ends[1], sides[0], sides[1], shapes[0], shapes[1],
                _colour(raw.get("color"), canvas, edge_id), label)  # fmt: skip
