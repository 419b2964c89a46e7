"""The Obsidian Excalidraw plugin's Markdown file (``*.excalidraw.md``), as the plugin
writes it (``src/shared/excalidrawMarkdownParsing.ts``, ``ExcalidrawData.ts``)::

    ---
    excalidraw-plugin: parsed
    ---
    ==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠== …
    (the reader's own notes: "back of the card")
    %%
    # Excalidraw Data
    ## Text Elements
    Each text element's text ^elementId

    ## Element Links
    elementId: [[a note]]

    ## Embedded Files
    fileId: [[picture.png]]

    %%
    ## Drawing
    ```compressed-json
    N4KAkARALgngDgUwgLgAQQQDwMYEMA2AlgCYBOuA7hADTgQBuCpAzoQPYB2KqATLZMzYBXUtiRoIACyhQ…
    ```
    %%

Older files have ``# Text Elements`` outside the ``%%`` and ``# Drawing``; the block may be
```` ```json ```` (not compressed); the compressed text is wrapped over lines.

For the index (:func:`index_text`) the drawing block is cut out (its Base64 is no text to
search; it is read from the file when the drawing is shown) and the plugin's banner too,
and the data section is no longer a ``%%`` comment: its text elements are the drawing's
words, their ``[[links]]`` its links (the plugin's sections say where they are).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_DRAWING_HEAD_RE = re.compile(r"^##? Drawing[ \t]*\r?$", re.M)
_DATA_HEAD_RE = re.compile(r"^(?:%%[ \t]*\r?\n+)?(?:# Excalidraw Data|##? Text Elements)[ \t]*\r?$",
                           re.M)  # fmt: skip
_SECTION_RE = re.compile(r"^(##?) ([^\n]+?)[ \t]*\r?$", re.M)
_BANNER_RE = re.compile(r"^==⚠.*?⚠==[^\n]*", re.M)  # the line is kept, empty: line numbers stay
_ELEMENT_RE = re.compile(r"(.*?)[ \t]\^([\w-]{1,40})[ \t]*(?:\n|$)", re.S)
_FILE_LINE_RE = re.compile(r"^([\w-]{1,80}): (.+?)[ \t]*$", re.M)


def is_drawing_note(path: str, properties: Mapping[str, Any] | None = None) -> bool:
    """A Markdown file the plugin draws: named ``*.excalidraw.md``, or marked so in its
    front matter (``excalidraw-plugin: parsed``: the plugin's files need not be named so)."""
    return path.lower().endswith(".excalidraw.md") or (
        properties is not None and "excalidraw-plugin" in properties
    )


def drawing_block(text: str) -> tuple[int, int, str, str] | None:
    """Where the drawing's JSON block is in ``text``: ``(start, end, language, payload)``,
    the span from its ``## Drawing`` heading to its closing fence (or the end of the text,
    when the fence never closes: a file cut short); the language is ``json`` or
    ``compressed-json``. None when there is no such block."""
    for head in _DRAWING_HEAD_RE.finditer(text):
        fence = text.find("```", head.end())
        if fence < 0:
            return None
        line_end = text.find("\n", fence)
        if line_end < 0:
            return None
        lang = text[fence + 3 : line_end].strip()
        between = text[head.end() : fence]
        if lang not in ("json", "compressed-json") or "\n#" in between:
            continue  # a text element that reads "# Drawing", not the block
        close = text.find("```", line_end + 1)
        end = len(text) if close < 0 else close + 3
        return head.start(), end, lang, text[line_end + 1 : close if close >= 0 else len(text)]
    return None


def _data_start(text: str) -> int | None:
    m = _DATA_HEAD_RE.search(text)
    return m.start() if m else None


def _section(text: str, title: str) -> str:
    """The lines under the heading ``title`` (``#`` or ``##``) up to the next heading."""
    heads = list(_SECTION_RE.finditer(text))
    for i, m in enumerate(heads):
        if m.group(2).strip().lower() == title:
            end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
            return text[m.end() : end]
    return ""


def text_elements(text: str) -> list[tuple[str, str]]:
    """``(element id, text)`` of each entry of the ``Text Elements`` section."""
    cut = drawing_block(text)
    head = text[: cut[0]] if cut else text
    section = _section(head, "text elements").strip("\n").replace("\n%%", "\n")
    found = []
    for m in _ELEMENT_RE.finditer(section):
        body = m.group(1).strip("\n")
        if body.strip():
            found.append((m.group(2), body))
    return found


def embedded_files(text: str) -> dict[str, str]:
    """``file id → what it names`` of the ``Embedded Files`` section: ``[[picture.png]]``
    (a vault file), a URL, or ``$$tex$$``, as written."""
    cut = drawing_block(text)
    head = text[: cut[0]] if cut else text
    return {
        m.group(1): m.group(2) for m in _FILE_LINE_RE.finditer(_section(head, "embedded files"))
    }


def index_text(body: str) -> tuple[str, int | None]:
    """The body of a drawing note as the index keeps it: without the drawing block and the
    plugin's banner; and where its data section (text elements, element links) starts in
    that text (None: none), which is read as text, not as a ``%%`` comment."""
    cut = drawing_block(body)
    if cut is not None:
        body = body[: cut[0]] + body[cut[1] :]
    body = _BANNER_RE.sub("", body)
    return body, _data_start(body)


def reader_text(body: str) -> str:
    """What the entry page shows under the drawing: the reader's notes and the drawing's
    text elements (their ``^ids`` and the plugin's sections of ids left out)."""
    cut = drawing_block(body)
    head = _BANNER_RE.sub("", body[: cut[0]] if cut else body)
    start = _data_start(head)
    notes = head if start is None else head[:start]
    notes = notes.rstrip().removesuffix("%%").rstrip()
    elements = text_elements(body)
    if not elements:
        return notes
    listed = "\n\n".join(t for _id, t in elements)
    return (notes + "\n\n" if notes.strip() else "") + "## Text in the drawing\n\n" + listed
