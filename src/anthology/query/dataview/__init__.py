"""Dataview's query language (DQL) and inline expressions, over the same rows as Bases.

- :mod:`.result` what a query answers (:class:`.result.DqlResult`), which the renderer
  (:mod:`anthology.vault.render.dataview`) and ``anthology query`` draw.
"""
