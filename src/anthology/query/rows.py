"""The rows a query reads (one per file of the vault) and the budget it runs within.

A :class:`Dataset` is what the index knows of a vault at one moment: every note with its
properties, tags and links, and every attachment. It is filled from SQLite by
:func:`anthology.vault.query_rows.dataset` (never by reading the notes again) and is
immutable once built, so one dataset serves every query of that state of the index, from
any thread. Property values are turned into query values (:mod:`.values`) on first use.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .values import Date, EvalError, Link, QueryError, parse_date

# A query's budget: past it the query stops with a message in place of its results. The
# render of an entry allows less than a script (`anthology query`) does.
MAX_STEPS = 20_000_000  # expression nodes evaluated, list elements visited included
MAX_SECONDS = 10.0
MAX_LIST = 100_000  # elements a list, or characters a text built by a query may hold
MAX_TEXT = 1_000_000


class BudgetExceeded(QueryError):
    pass


class Budget:
    """Steps and time one query may take. ``tick`` is called per node and per element;
    the clock is read every 4,096 steps (a read costs as much as ~50 steps)."""

    __slots__ = ("_next_clock", "cancelled", "deadline", "max_steps", "seconds", "steps")

    def __init__(
        self,
        *,
        max_steps: int = MAX_STEPS,
        seconds: float = MAX_SECONDS,
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        self.steps = 0
        self.max_steps = max_steps
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self._next_clock = 4096
        self.cancelled = cancelled

    def tick(self, n: int = 1) -> None:
        self.steps += n
        if self.steps >= self._next_clock:
            self._check()

    def _check(self) -> None:
        self._next_clock = self.steps + 4096
        if self.steps > self.max_steps:
            raise BudgetExceeded(
                f"the query was stopped after {self.max_steps:,} steps (its budget): "
                "it does too much work for a view (a list of a million elements, or every "
                "note compared with every other?)"
            )
        if time.monotonic() > self.deadline:
            raise BudgetExceeded(
                f"the query was stopped after {self.seconds:g} s (its budget): it does too "
                "much work for a view"
            )
        if self.cancelled is not None and self.cancelled():
            raise BudgetExceeded("the query was cancelled")


@dataclass(frozen=True, slots=True)
class LinkOut:
    """A link written in a note: its target as written, the vault path it resolves to
    (None: unresolved), and whether it is an embed (``![[…]]``)."""

    target: str
    path: str | None
    embed: bool


_WIKILINK_RE = re.compile(r"\[\[([^\[\]|#]*)(?:#[^\[\]|]*)?(?:\|([^\[\]]*))?\]\]")
_ISO_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z)?")


@dataclass(frozen=True, slots=True)
class ListItem:
    """A list item of a note (Dataview's ``file.lists``); a task when ``status`` is set.

    What the index keeps of it (``entries.items``, one JSON array per note, see
    :meth:`FileRow.list_items`); the inline fields of its text (``[due:: …]``, the emoji
    dates) are read from ``text`` by the query that wants them."""

    line: int  # 0-based line of the note's file where the item starts
    text: str  # without the marker and the checkbox; a continuation line joined with "\n"
    status: str | None = None  # the checkbox's character (" ", "x", "-", "/", …); None: no box
    parent: int | None = None  # ``line`` of the item it is nested under; None: top level
    section: str | None = None  # the heading it sits under (its text); None: before any
    symbol: str = "-"  # "-", "*", "+", or "1." / "1)"
    line_count: int = 1

    @property
    def task(self) -> bool:
        return self.status is not None


@dataclass(eq=False, slots=True)
class FileRow:
    """One file of the vault as a query sees it (``file.*``)."""

    path: str
    entry_id: str | None = None  # None: an attachment (no properties, no links)
    size: int | None = None
    mtime_ns: int | None = None
    ctime_ns: int | None = None
    tags: list[str] = field(default_factory=list)  # without "#", front matter's first
    raw_properties: dict[str, Any] | None = None  # None: still the JSON in props_json
    props_json: str | None = None  # the index's JSON, parsed on first use
    links: list[LinkOut] = field(default_factory=list)
    eid: int | None = None
    # Dataview's inline fields as the index keeps them (JSON: key as written → its raw
    # value texts, in order), and the note's list items (JSON, see :meth:`list_items`)
    fields_json: str | None = None
    items_json: str | None = None
    _values: dict[str, Any] | None = None
    _fields: dict[str, list[str]] | None = None
    _items: list[ListItem] | None = None

    # what a query reads of the path most often, cut once
    name: str = field(init=False)
    basename: str = field(init=False)
    ext: str = field(init=False)
    folder: str = field(init=False)

    def __post_init__(self) -> None:
        path = self.path
        cut = path.rfind("/")
        self.name = name = path[cut + 1 :]
        self.folder = path[:cut] if cut >= 0 else "/"
        dot = name.rfind(".")
        if dot > 0:
            self.basename, self.ext = name[:dot], name[dot + 1 :].lower()
        else:
            self.basename, self.ext = name, ""

    def properties(self, make_link: Callable[[str, str | None], Link]) -> dict[str, Any]:
        """The note's properties as query values: ``"[[X]]"`` a :class:`Link`, an ISO date
        a :class:`Date` (the index keeps front matter as JSON, where YAML's dates are text)."""
        if self._values is None:
            self._values = {k: _value(v, make_link) for k, v in self.front_matter().items()}
        return self._values

    def front_matter(self) -> dict[str, Any]:
        """The note's properties as the index keeps them (JSON values)."""
        if self.raw_properties is None:
            try:
                loaded = json.loads(self.props_json or "{}")
            except ValueError:
                loaded = {}
            self.raw_properties = loaded if isinstance(loaded, dict) else {}
        return self.raw_properties

    def inline_fields(self) -> dict[str, list[str]]:
        """The note's inline fields (``Key:: value``, ``[key:: value]``, ``(key:: value)``):
        each key as written (formatting such as ``**`` stripped) with the raw texts of its
        values in the order they stand; Dataview's typing of them is the query's."""
        if self._fields is None:
            try:
                loaded = json.loads(self.fields_json or "{}")
            except ValueError:
                loaded = {}
            self._fields = loaded if isinstance(loaded, dict) else {}
        return self._fields

    def list_items(self) -> list[ListItem]:
        """The note's list items in file order. The index keeps each as the JSON array
        ``[line, text, status, parent, section, symbol, line_count]``."""
        if self._items is None:
            items: list[ListItem] = []
            try:
                loaded = json.loads(self.items_json or "[]")
            except ValueError:
                loaded = []
            for raw in loaded if isinstance(loaded, list) else []:
                try:
                    line, text, status, parent, section, symbol, count = raw
                    items.append(ListItem(int(line), str(text), status, parent, section,
                                          str(symbol), int(count)))  # fmt: skip
                except (TypeError, ValueError):
                    continue  # an item the index wrote in another shape: left out
            self._items = items
        return self._items


def _value(v: Any, make_link: Callable[[str, str | None], Link]) -> Any:
    if isinstance(v, str):
        if v.startswith("[[") and v.endswith("]]") and (m := _WIKILINK_RE.fullmatch(v)):
            return make_link(m.group(1).strip(), m.group(2))
        if len(v) >= 10 and v[0].isdigit() and _ISO_DATE_RE.fullmatch(v):
            try:
                return parse_date(v)
            except EvalError:
                return v  # "2024-02-30" stays the text it is
        return v
    if isinstance(v, list):
        return [_value(x, make_link) for x in v]
    if isinstance(v, dict):
        return {k: _value(x, make_link) for k, x in v.items()}
    return v


@dataclass
class Dataset:
    """Every file of the vault at one state of the index, and how links resolve."""

    rows: list[FileRow]
    # target as written, source path → the vault path it resolves to (None: unresolved)
    resolve: Callable[[str, str], str | None]
    root: str = ""
    # path → (size, mtime_ns, ctime_ns) of an attachment, asked only when a query reads it
    stat: Callable[[str], tuple[int, int, int] | None] | None = None
    by_path: dict[str, FileRow] = field(default_factory=dict)
    _backlinks: dict[str, list[FileRow]] | None = None
    _resolved: dict[tuple[str, str], str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.by_path:
            self.by_path = {r.path: r for r in self.rows}

    def resolve_link(self, target: str, source: str) -> str | None:
        key = (target, source)
        try:
            return self._resolved[key]
        except KeyError:
            pass
        if target.startswith(("http://", "https://", "obsidian://", "mailto:")):
            path = None
        else:
            try:
                path = self.resolve(target, source)
            except Exception:  # a lookup that fails is an unresolved link, not a crash
                path = None
        if len(self._resolved) < 200_000:
            self._resolved[key] = path
        return path

    def backlinks(self, row: FileRow) -> list[FileRow]:
        """The notes linking to ``row`` (each once): built for the whole vault on first use."""
        if self._backlinks is None:
            back: dict[str, dict[str, FileRow]] = {}
            for r in self.rows:
                for link in r.links:
                    if link.path is not None and not link.embed:
                        back.setdefault(link.path, {})[r.path] = r
            self._backlinks = {p: list(d.values()) for p, d in back.items()}
        return self._backlinks.get(row.path, [])

    def stat_row(self, row: FileRow) -> None:
        if self.stat is None or row.size is not None:
            return
        found = self.stat(row.path)
        if found is not None:
            row.size, row.mtime_ns, row.ctime_ns = found

    @staticmethod
    def date_of_ns(ns: int | None) -> Date | None:
        if ns is None:
            return None
        import datetime as dt

        return Date(dt.datetime.fromtimestamp(ns / 1e9), True)
