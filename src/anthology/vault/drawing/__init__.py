"""Excalidraw drawings (``*.excalidraw``, the Obsidian plugin's ``*.excalidraw.md``):
read within a budget (:mod:`.load`), as shapes to paint (:mod:`.scene`, :mod:`.geometry`),
as an SVG picture (:mod:`.svg`), and the plugin's Markdown sections (:mod:`.markdown`,
which the indexer imports alone: nothing here is imported with the package). Qt-free."""
