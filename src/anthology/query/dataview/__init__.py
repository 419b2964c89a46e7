"""Dataview's query language (DQL) and inline expressions, over the same rows as Bases.

- :func:`parse_query` a query's text to a :class:`.parse.Query` (:mod:`.parse`);
- :func:`run_query` it over a :class:`~anthology.query.rows.Dataset` to a
  :class:`.result.DqlResult` (:mod:`.engine`), evaluating expressions (:mod:`.evaluate`)
  with Dataview's function library (:mod:`.functions`) over notes as Dataview sees them
  (:mod:`.fields`), with Dataview's value rules (:mod:`.values`);
- :func:`evaluate_inline` an inline `` `= expr` `` query, :func:`display_text` a value as
  Dataview shows it in plain text;
- :mod:`.result` what a query answers, which the renderer
  (:mod:`anthology.vault.render.dataview`) and ``anthology query`` draw.
"""

from __future__ import annotations

from ..values import QueryError
from .engine import evaluate_inline, run_query
from .parse import Query
from .parse import parse_query as _parse
from .values import display_text


def parse_query(text: str) -> Query:
    """A DQL query parsed, its functions checked; :class:`QueryError` with the line and
    column on bad input, Dataview's "Unrecognized function name" for an unknown one."""
    from .engine import check_query

    query = _parse(text)
    check_query(query)
    return query


__all__ = ["Query", "QueryError", "display_text", "evaluate_inline", "parse_query", "run_query"]
