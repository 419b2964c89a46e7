"""Excalidraw drawings (``*.excalidraw``, the Obsidian plugin's ``*.excalidraw.md``):
read within a budget (:mod:`.load`), as shapes to paint (:mod:`.scene`), as an SVG picture
(:mod:`.svg`), and the plugin's Markdown sections (:mod:`.markdown`). Qt-free."""

from .load import INLINE, TAB, Limits, clear_cache, load_drawing
from .markdown import drawing_block, is_drawing_note, text_elements
from .scene import Drawing, DrawingError, Picture, Shape, scene_from_json

__all__ = [
    "INLINE",
    "TAB",
    "Drawing",
    "DrawingError",
    "Limits",
    "Picture",
    "Shape",
    "clear_cache",
    "drawing_block",
    "is_drawing_note",
    "load_drawing",
    "scene_from_json",
    "text_elements",
]
