"""One query engine for the queries a vault holds (Bases now, Dataview on top of it later).

Qt-free and index-free: it evaluates over :class:`~anthology.query.rows.Dataset` rows that
the index hands it (:mod:`anthology.vault.query_rows`), so it imports nothing of
``anthology.vault`` and the renderer can call it.

- :mod:`.values` the value model (JavaScript-like truthiness, ``==``, ordering, dates,
  durations, links vs files) and how a value is shown;
- :mod:`.expr` the expression language of Bases (parser with size and depth limits, compiled
  to closures);
- :mod:`.functions` the function library (global functions and methods by type);
- :mod:`.rows` the rows (files) a query reads and the :class:`Budget` it runs within;
- :mod:`.bases` a ``.base`` file's structure and a view evaluated to a :class:`.bases.ViewResult`.
"""

from .values import QueryError

__all__ = ["QueryError"]
