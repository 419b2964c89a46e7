"""What the index keeps of a canvas: an entry of kind ``canvas``, titled by its file name,
whose searchable body is the text of its cards (text cards, file cards' paths, link cards'
URLs, group labels, edge labels) and whose links are its file cards (``[[file#subpath]]``)
and the ``[[links]]`` of its text cards, each on the line of its node in the ``.canvas``
file, under the one relation :data:`CANVAS_RELATION` ("from canvas"). So a note's backlinks
list the canvases it is on in a group of their own (one relation for every canvas: the
graph's legend and filters gain one entry, not one per canvas), full-text search finds a
card's text, the
graph draws the canvas as a node, and ``check`` reports a card whose file is missing (an
unresolved link of the canvas) and what the file itself gets wrong (kind ``canvas``).

The body is Markdown made of the cards and is parsed by the parser every note goes through,
so links, tags and words are read the same way."""

from __future__ import annotations

import bisect
import posixpath

from ..parse import ParsedEntry, ParseProblem, parse_entry
from ..resolve import path_id
from .model import Canvas, parse_canvas
from .read import read_canvas_text

CANVAS_RELATION = "from canvas"  # the relation of a canvas's links (its cards)

KIND = "canvas"
_MAX_LINE_LOOKUPS = 2_000  # nodes whose file line is looked for (each a search of the file)


def is_canvas(path: str) -> bool:
    return path.lower().endswith(".canvas")


def _wikilink(path: str, subpath: str | None) -> str | None:
    if any(c in path for c in "[]|#^\n"):
        return None  # not writable as a wikilink; the card stays text
    return f"[[{path}{subpath or ''}]]"


def canvas_body(canvas: Canvas) -> tuple[str, list[int], list[str]]:
    """The searchable Markdown of a board: its parts joined by blank lines; each part's
    start offset and the id of the node it comes from (sorted by offset)."""
    parts: list[str] = []
    starts: list[int] = []
    ids: list[str] = []
    at = 0
    for node in canvas.nodes:
        if node.type == "text":
            text = node.text
        elif node.type == "file":
            text = (_wikilink(node.file, node.subpath) if node.file else None) or node.file_written
        elif node.type == "link":
            text = node.url
        else:
            text = node.label
        if not text.strip():
            continue
        parts.append(text)
        starts.append(at)
        ids.append(node.id)
        at += len(text) + 2
    for edge in canvas.edges:
        if edge.label.strip():
            parts.append(edge.label)
            starts.append(at)
            ids.append(edge.id)
            at += len(edge.label) + 2
    return "\n\n".join(parts), starts, ids


def canvas_entry(text: str, path: str) -> tuple[list[ParseProblem], ParsedEntry]:
    """The index's entry of the canvas at ``path`` whose file holds ``text``."""
    canvas = parse_canvas(text)
    problems = [
        ParseProblem(KIND, (f"{p.where}: " if p.where else "") + p.message,
                     _line_of(text, p.where) if p.where else None, p.severity)
        for p in canvas.problems
    ]  # fmt: skip
    body, starts, ids = canvas_body(canvas)
    # A card whose text opens with "---" must not read as front matter.
    lead = "\n" if body.startswith(("---", "\ufeff")) else ""
    parsed = parse_entry(lead + body, path, for_index=True)
    title = posixpath.splitext(posixpath.basename(path))[0]
    relation = CANVAS_RELATION  # a note's backlinks group the canvases it is on

    lines: dict[str, int] = {}
    links = []
    for link in parsed.links:
        if link.body_start is None:
            links.append(link._replace(relation=relation))
            continue
        k = bisect.bisect_right(starts, link.body_start - len(lead)) - 1
        where = ids[k] if k >= 0 else ""
        if where not in lines:
            lines[where] = _line_of(text, where) if len(lines) < _MAX_LINE_LOOKUPS else 1
        links.append(link._replace(line=lines[where], relation=relation))
    entry = parsed._replace(
        id=path_id(path),
        title=title,
        properties={"kind": KIND},
        links=links,
        body_line=1,
        fields={},  # Dataview reads notes only: a board's cards hold no fields or tasks
        items=[],
    )
    return problems, entry


def _line_of(text: str, node_id: str) -> int:
    """The file line on which the node (or edge) ``node_id`` is written (1 if not found)."""
    if not node_id:
        return 1
    at = text.find(f'"{node_id}"')
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def read_canvas_entry(root: str, path: str) -> tuple[list[ParseProblem], ParsedEntry | None]:
    """Read the canvas ``path`` of the vault at ``root`` and make its index entry."""
    text, why = read_canvas_text(root, path)
    if text is None:
        return [ParseProblem("unreadable", why)], None
    return canvas_entry(text, path)
