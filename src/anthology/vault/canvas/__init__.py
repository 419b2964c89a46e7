"""Obsidian's Canvas (JSON Canvas 1.0, ``*.canvas``): the board read and validated
(:mod:`.model`), laid out for drawing (:mod:`.geometry`), indexed as an entry
(:mod:`.index`), embedded small in a note (:mod:`.embed`). Qt-free: the canvas tab
(``ui/reading/canvas_view.py``) and the embed draw from the same model."""

from .model import Canvas, CanvasProblem, Edge, Node, parse_canvas
from .read import load_canvas

__all__ = ["Canvas", "CanvasProblem", "Edge", "Node", "load_canvas", "parse_canvas"]
