"""Excalidraw drawings (``*.excalidraw``, the Obsidian plugin's ``*.excalidraw.md``):
read within a budget (:mod:`.load`), as shapes to paint (:mod:`.scene`, :mod:`.geometry`),
as an SVG picture (:mod:`.svg`). The plugin's Markdown sections are
:mod:`anthology.vault.excalidraw_md`, beside the parser that reads them for the index.
Qt-free."""
