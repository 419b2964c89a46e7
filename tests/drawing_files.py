"""Excalidraw files as Excalidraw and the Obsidian plugin write them, for tests and the
benchmark: elements with every field the editor saves, a scene, and the plugin's Markdown
(compressed with LZ-String, wrapped over lines as the plugin wraps it, or as plain JSON)."""

from __future__ import annotations

import json
import math
import random
from typing import Any

from anthology.vault.drawing.lzstring import compress_to_base64

BANNER = (
    "==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠== You can "
    "decompress Drawing data with the command palette: 'Decompress current Excalidraw file'. "
    "For more info check in plugin settings under 'Saving'"
)


def element(kind: str, ident: str, x: float, y: float, w: float = 120, h: float = 60,
            **extra: Any) -> dict[str, Any]:  # fmt: skip
    el: dict[str, Any] = {
        "id": ident, "type": kind, "x": x, "y": y, "width": w, "height": h, "angle": 0,
        "strokeColor": "#1e1e1e", "backgroundColor": "transparent", "fillStyle": "solid",
        "strokeWidth": 2, "strokeStyle": "solid", "roughness": 1, "opacity": 100,
        "groupIds": [], "frameId": None, "roundness": None, "seed": 1, "version": 3,
        "versionNonce": 7, "isDeleted": False, "boundElements": None, "updated": 1,
        "link": None, "locked": False,
    }  # fmt: skip
    if kind in ("line", "arrow", "freedraw"):
        el["points"] = [[0, 0], [w, h]]
        el["startArrowhead"] = None
        el["endArrowhead"] = "arrow" if kind == "arrow" else None
    if kind == "text":
        el.update(text="Text", originalText="Text", fontSize=20, fontFamily=1, textAlign="left",
                  verticalAlign="top", containerId=None, lineHeight=1.25)  # fmt: skip
    el.update(extra)
    return el


def scene(elements: list[dict[str, Any]], files: dict[str, Any] | None = None,
          background: str = "#ffffff") -> dict[str, Any]:  # fmt: skip
    return {
        "type": "excalidraw", "version": 2,
        "source": "https://github.com/zsviczian/obsidian-excalidraw-plugin/releases/tag/2.19.2",
        "elements": elements,
        "appState": {"gridSize": None, "viewBackgroundColor": background, "theme": "light"},
        "files": files or {},
    }  # fmt: skip


def wrap(payload: str, width: int = 256) -> str:
    """The plugin's wrapping of a compressed payload: lines of 256, a blank line between."""
    return "\n\n".join(payload[i : i + width] for i in range(0, len(payload), width))


def plugin_markdown(data: dict[str, Any], *, compressed: bool = True, notes: str = "",
                    links: dict[str, str] | None = None,
                    embedded: dict[str, str] | None = None) -> str:  # fmt: skip
    """The plugin's ``*.excalidraw.md`` of ``data`` (its format since 2.0: the data section
    inside ``%%``)."""
    texts = [el for el in data["elements"] if el["type"] == "text" and not el["isDeleted"]]
    out = ["---\n\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n\n---\n", BANNER, "\n\n"]
    if notes:
        out.append(notes + "\n\n")
    out.append("%%\n# Excalidraw Data\n\n## Text Elements\n")
    # the section keeps the Markdown (rawText, its [[links]]); the drawing shows the text
    out.extend(f"{el.get('rawText') or el['originalText']} ^{el['id']}\n\n" for el in texts)
    if links:
        out.append("## Element Links\n")
        out.extend(f"{k}: {v}\n\n" for k, v in links.items())
    if embedded:
        out.append("## Embedded Files\n")
        out.extend(f"{k}: {v}\n\n" for k, v in embedded.items())
    text = json.dumps(data, indent="\t")
    if compressed:
        payload = wrap(compress_to_base64(text))
        out.append(f"%%\n## Drawing\n```compressed-json\n{payload}\n```\n%%")
    else:
        out.append(f"%%\n## Drawing\n```json\n{text}\n```\n%%")
    return "".join(out)


def many_elements(n: int, seed: int = 1) -> list[dict[str, Any]]:
    """``n`` elements of every kind spread over a large canvas (a busy real drawing)."""
    rnd = random.Random(seed)
    kinds = ["rectangle", "ellipse", "diamond", "arrow", "line", "text", "freedraw"]
    colours = ["#1e1e1e", "#e03131", "#2f9e44", "#1971c2", "#f08c00"]
    fills = ["transparent", "#ffc9c9", "#b2f2bb", "#a5d8ff", "#ffec99"]
    out = []
    side = int(n**0.5) + 1
    for i in range(n):
        kind = kinds[i % len(kinds)]
        x, y = (i % side) * 160 + rnd.uniform(0, 20), (i // side) * 110 + rnd.uniform(0, 20)
        extra: dict[str, Any] = {"strokeColor": rnd.choice(colours),
                                 "backgroundColor": rnd.choice(fills),
                                 "fillStyle": rnd.choice(["solid", "hachure"])}  # fmt: skip
        if kind == "text":
            words = f"note {i}"
            extra.update(text=words, originalText=words)
        if kind == "freedraw":
            # a hand's stroke: small steps along a curve (Excalidraw keeps every pointer move)
            phase = rnd.uniform(0, 6.3)
            extra["points"] = [[k * 2.0, 25 + 20 * math.sin(phase + k / 9)] for k in range(60)]
        out.append(element(kind, f"el{i:06d}", x, y, 120, 60, **extra))
    return out
