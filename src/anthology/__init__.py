"""Anthology: an offline reader for a linked knowledge base of Markdown entries."""

__version__ = "0.1.0"
