"""What one evaluation holds: the :class:`Context` every row of a query shares and the
:class:`Env` of one row (its formulas' values, the names a list function binds), and the
regular expressions a query may build (refused when they could backtrack for ever).
Imported by both the compiler (:mod:`.expr`) and the library (:mod:`.functions`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .rows import Budget, Dataset, FileRow
from .values import EvalError, Link, QueryError, Regex

Node = tuple
Compiled = Callable[["Env"], Any]


# ---------------------------------------------------------------- evaluation context
@dataclass
class Context:
    """What every row of one query shares: the data, the budget, ``this``, the formulas."""

    dataset: Dataset
    budget: Budget
    this: FileRow | None = None
    formulas: dict[str, Compiled] = field(default_factory=dict)
    formula_errors: dict[str, str] = field(default_factory=dict)
    link_source: str = ""  # the file link("…") is read from (the base, or the embedding note)
    constants: dict[object, Any] = field(default_factory=dict)  # see expr._call

    def make_link(self, target: str, display: str | None = None, source: str | None = None) -> Link:
        target = target.strip()
        if target.startswith("[[") and target.endswith("]]"):
            inner = target[2:-2]
            target, _, alias = inner.partition("|")
            target = target.split("#", 1)[0].strip()
            display = display if display is not None else (alias or None)
        src = self.link_source if source is None else source
        return Link(target, display, self.dataset.resolve_link(target, src))


class Env:
    """One row's evaluation: the row, its formulas' values so far, and the names a list
    function binds (``value``, ``index``, ``acc``) or a summary binds (``values``)."""

    __slots__ = ("ctx", "evaluating", "formula_values", "locals", "row")

    def __init__(self, ctx: Context, row: FileRow | None, local: dict[str, Any] | None = None):
        self.ctx = ctx
        self.row = row
        self.locals = local
        self.formula_values: dict[str, Any] = {}
        self.evaluating: set[str] = set()

    def child(self, local: dict[str, Any]) -> Env:
        env = Env(self.ctx, self.row, local)
        env.formula_values = self.formula_values
        env.evaluating = self.evaluating
        return env

    def properties(self, row: FileRow | None = None) -> dict[str, Any]:
        row = row if row is not None else self.row
        if row is None:
            return {}
        if row._values is not None:
            return row._values
        ctx = self.ctx
        return row.properties(lambda t, d: ctx.make_link(t, d, row.path))

    def formula(self, name: str) -> Any:
        values = self.formula_values
        if name in values:
            return values[name]
        fn = self.ctx.formulas.get(name)
        if fn is None:
            if name in self.ctx.formula_errors:
                raise EvalError(self.ctx.formula_errors[name])
            raise EvalError(f"there is no formula “{name}”")
        if name in self.evaluating:
            raise EvalError(f"formula “{name}” refers to itself")
        self.evaluating.add(name)
        try:
            value = fn(self.root())
        finally:
            self.evaluating.discard(name)
        values[name] = value
        return value

    def root(self) -> Env:
        """This row's environment without the names a list function bound."""
        if self.locals is None:
            return self
        env = Env(self.ctx, self.row)
        env.formula_values = self.formula_values
        env.evaluating = self.evaluating
        return env


# ---------------------------------------------------------------- regular expressions
# Python's re cannot be interrupted: a pattern that backtracks exponentially ((a+)+$ on
# "aaaa…b") would hold the thread for ever. Such patterns are refused when compiled: a
# quantified group that itself holds a quantifier or an alternation.
_NESTED_QUANTIFIER_RE = re.compile(r"\((?:[^()\\]|\\.)*(?:[+*}]|\|)(?:[^()\\]|\\.)*\)[+*{]")
MAX_REGEX_SUBJECT = 100_000


def make_regex(source: str, flags: str) -> Regex:
    if len(source) > 1000:
        raise QueryError("a regular expression longer than 1,000 characters")
    if _NESTED_QUANTIFIER_RE.search(source):
        raise QueryError(
            f"the regular expression /{source}/ repeats a group that itself repeats; such "
            "patterns can take exponential time, and are refused"
        )
    py = re.sub(r"\(\?<([A-Za-z_]\w*)>", r"(?P<\1>", source)  # JavaScript's named groups
    py = re.sub(r"\\k<([A-Za-z_]\w*)>", r"(?P=\1)", py)
    bits = 0
    for f in flags:
        if f not in "gimsuyd":
            raise QueryError(f"unknown regular expression flag “{f}” in /{source}/{flags}")
        bits |= {"i": re.I, "m": re.M, "s": re.S}.get(f, 0)
    try:
        compiled = re.compile(py, bits)
    except re.error as exc:
        raise QueryError(f"invalid regular expression /{source}/: {exc}") from None
    return Regex(source, flags, compiled)
