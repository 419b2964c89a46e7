"""Obsidian's Canvas (JSON Canvas 1.0, ``*.canvas``): the board read and validated
(:mod:`.model`), laid out for drawing (:mod:`.geometry`), indexed as an entry
(:mod:`.index`). The renderer draws it small in a note (``render/canvas_embed.py``) and
renders its cards (``render/canvas_cards.py``); the canvas tab is ``ui/reading/canvas_view.py``:
both draw from the same model. Qt-free, and free of the renderer (which imports this)."""

from .model import Canvas, CanvasProblem, Edge, Node, parse_canvas
from .read import load_canvas

__all__ = ["Canvas", "CanvasProblem", "Edge", "Node", "load_canvas", "parse_canvas"]
