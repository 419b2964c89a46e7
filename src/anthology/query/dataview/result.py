"""What a DQL query answers, for the page's renderer and ``anthology query`` to draw.

One shape per query type. Cells and values are query values (:mod:`anthology.query.values`:
``None``, numbers, text, lists, objects, :class:`~anthology.query.values.Date`,
:class:`~anthology.query.values.Duration`, :class:`~anthology.query.values.Link`, …), drawn
by whoever shows them; a value that could not be computed is a
:class:`~anthology.query.bases.CellError`, shown in its cell while the query goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..values import Date, Link

QueryType = Literal["table", "list", "task", "calendar"]


@dataclass(frozen=True, slots=True)
class TaskRow:
    """A task (or, under a task, a plain list item) as TASK shows it, with its children."""

    path: str  # the note it stands in
    line: int  # 0-based line in that note
    text: str  # as written, without marker and checkbox (Markdown, drawn inline)
    status: str | None  # the checkbox's character; None for a plain list item shown as a child
    children: tuple[TaskRow, ...] = ()


@dataclass(frozen=True, slots=True)
class TaskGroup:
    """Tasks under one heading: the note they stand in (a :class:`Link`), or the ``GROUP BY``
    key."""

    key: Any
    tasks: tuple[TaskRow, ...]


@dataclass(frozen=True, slots=True)
class CalendarDay:
    """A result of CALENDAR: the note (``link``) on the day its date expression gave."""

    day: Date
    link: Link


@dataclass(frozen=True)
class DqlResult:
    """A DQL query's answer.

    - ``table``: ``headers`` (the first is the id column's name, ``"File"`` or the
      ``GROUP BY`` name, unless ``WITHOUT ID``) and ``rows`` of cells, one per header;
    - ``list``: ``rows`` of one cell (``WITHOUT ID``, or a LIST of files: the link) or two
      (the id, then the LIST expression's value, drawn "id: value");
    - ``task``: ``tasks``, grouped;
    - ``calendar``: ``days``.

    ``total`` counts the rows (tasks, days) the query matched; ``rows`` may hold fewer
    when the caller asked for a page of them (``truncated``)."""

    type: QueryType
    headers: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    tasks: list[TaskGroup] = field(default_factory=list)
    days: list[CalendarDay] = field(default_factory=list)
    total: int = 0
    truncated: bool = False
    id_column: bool = True  # False under WITHOUT ID
    warnings: list[str] = field(default_factory=list)  # shown above the results
