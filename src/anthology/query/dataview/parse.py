"""Dataview's query language parsed: expressions (``src/expression/parse.ts``) and queries
(``src/query/parse.ts``), by hand, with the same grammar:

- precedence, lowest first: ``and``/``or``/``&``/``|`` (one level, left to right: ``a or b
  and c`` is ``(a or b) and c``), comparisons (``= != < > <= >=``), ``+ -``, ``* / %``,
  then ``!x``, member access ``a.b``, ``a[expr]`` and calls ``f(x)``;
- names start with a letter (or an emoji) and may hold letters, digits, ``_`` and ``-``:
  ``end-start`` is one field name, ``end - start`` a subtraction;
- literals: numbers (``-3``, ``2.5``), ``"text"`` (only double quotes; ``\\"`` and ``\\\\``
  are escapes, any other backslash stays: ``"\\w+"``), ``true``/``false``, ``null``,
  ``[[link]]``/``![[embed]]``, ``[lists]``, ``{objects}``, ``date(2021-04-18)``/
  ``date(today)``, ``dur(1 day 2 h)``, lambdas ``(x, y) => …``;
- a query: ``TABLE [WITHOUT ID] expr [AS name], …`` | ``LIST [WITHOUT ID] [expr]`` | ``TASK``
  | ``CALENDAR expr``, an optional ``FROM source``, then ``WHERE``, ``SORT a [ASC|DESC], …``,
  ``GROUP BY expr [AS name]``, ``FLATTEN expr [AS name]``, ``LIMIT n`` in any order and
  number; keywords in any case; ``// comments`` on their own lines between clauses.

Where this parser is stricter than Dataview's it says why: ``and``/``or``/``true`` end at a
word boundary (Dataview reads ``a or iginal`` out of ``a ORiginal``), ``SORT`` cannot be a
field's bare name (Dataview parses ``LIST SORT x`` as a list of the field ``SORT``), and a
date literal that is shaped like one but is no date (``date(2024-02-30)``) is an error here,
not a subtraction of numbers.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field
from typing import Any

from ..values import Date, QueryError
from .values import duration_from_units

Node = tuple
MAX_QUERY = 50_000  # characters: real queries are a few hundred
MAX_DEPTH = 80  # nesting of parentheses, lists, calls

KEYWORDS = ("FROM", "WHERE", "LIMIT", "GROUP", "FLATTEN", "SORT")
DATE_SHORTHANDS = ("start-of-month", "start-of-week", "start-of-year", "end-of-month",
                   "end-of-week", "end-of-year", "yesterday", "tomorrow", "today", "now",
                   "sow", "eow", "som", "eom", "soy", "eoy")  # fmt: skip
DURATION_UNITS = {
    "years": "years", "year": "years", "yrs": "years", "yr": "years",
    "months": "months", "month": "months", "mos": "months", "mo": "months",
    "weeks": "weeks", "week": "weeks", "wks": "weeks", "wk": "weeks", "w": "weeks",
    "days": "days", "day": "days", "d": "days",
    "hours": "hours", "hour": "hours", "hrs": "hours", "hr": "hours", "h": "hours",
    "minutes": "minutes", "minute": "minutes", "mins": "minutes", "min": "minutes",
    "m": "minutes",
    "seconds": "seconds", "second": "seconds", "secs": "seconds", "sec": "seconds",
    "s": "seconds",
}  # fmt: skip
_UNIT_ALT = "|".join(sorted(DURATION_UNITS, key=len, reverse=True))
_DURATION_PART = rf"(-?\d+(?:\.\d+)?)\s*({_UNIT_ALT})"
DURATION_RE = re.compile(rf"{_DURATION_PART}(?:(?:\s*,\s*|\s*){_DURATION_PART})*")
_DURATION_PART_RE = re.compile(_DURATION_PART)
DATE_RE = re.compile(
    r"(\d{4})-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{3}))?)?)?)?)?"
    r"(Z|[+-]\d{1,2}(?::\d{2})?|\[[0-9A-Za-z+\-/_]+\])?"
)
_EMOJI = "\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff"
IDENT_RE = re.compile(rf"(?:[^\W\d_]|[{_EMOJI}])(?:[^\W_]|[_\-{_EMOJI}\ufe0f\u200d])*")
_NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")
STRING_RE = re.compile(r'"((?:[^"\\]|\\.)*)"', re.S)
_LINK_RE = re.compile(r"(!?)\[\[([^\[\]]*?)\]\]")
_LAMBDA_RE = re.compile(rf"\(\s*(?:{IDENT_RE.pattern}(?:\s*,\s*{IDENT_RE.pattern})*)?\s*\)\s*=>")
_TAG_RE = re.compile(r"#[^\u2000-\u206F\u2E00-\u2E7F'!\"#$%&()*+,.:;<=>?@^`{|}~\[\]\\\s]*")
_WORD_END = r"(?![\w\-])"


def parse_duration_text(text: str) -> Any:
    """A duration as Dataview writes one (``1 day``, ``2h 30m``, ``1 s, 2 m``), or None."""
    if not DURATION_RE.fullmatch(text):
        return None
    units: dict[str, float] = {}
    for m in _DURATION_PART_RE.finditer(text):
        unit = DURATION_UNITS[m.group(2)]
        units[unit] = units.get(unit, 0) + float(m.group(1))
    return duration_from_units(**units)


def parse_date_text(text: str, strict: bool = True) -> Date | None:
    """``YYYY-MM[-DD[THH[:mm[:ss[.SSS]]]]][zone]`` as a date; None when not shaped so.
    A shaped but impossible date raises :class:`QueryError` when ``strict``, else None."""
    return _parse_date(text, strict) if len(text) <= 40 else None


@functools.lru_cache(maxsize=8192)
def _parse_date(text: str, strict: bool) -> Date | None:  # a vault repeats its dates
    m = DATE_RE.fullmatch(text)
    if not m:
        return None
    y, mo, d, hh, mm, ss, ms, zone = m.groups()
    try:
        at = dt.datetime(int(y), int(mo), int(d or 1), int(hh or 0), int(mm or 0),
                         int(ss or 0), int(ms or 0) * 1000)  # fmt: skip
    except ValueError as exc:
        if strict:
            raise QueryError(f"“{text}” is not a date: {exc}") from None
        return None
    if zone and zone != "Z" and zone[0] in "+-":  # shown in local time, as Obsidian does
        hours, _, minutes = zone[1:].partition(":")
        offset = int(hours) * 60 + int(minutes or 0)
        tz = dt.timezone(dt.timedelta(minutes=offset if zone[0] == "+" else -offset))
        at = at.replace(tzinfo=tz).astimezone().replace(tzinfo=None)
    elif zone == "Z":
        at = at.replace(tzinfo=dt.UTC).astimezone().replace(tzinfo=None)
    return Date(at, hh is not None)


# ---------------------------------------------------------------- the query's shape
@dataclass(frozen=True)
class NamedField:
    name: str
    expr: Node


@dataclass
class Query:
    """A parsed DQL query: its type and header, its source and its data commands."""

    type: str  # table, list, task, calendar
    fields: list[NamedField] = field(default_factory=list)  # columns; LIST's; CALENDAR's
    show_id: bool = True
    source: Node | None = None
    ops: list[Node] = field(default_factory=list)  # ("where", e), ("sort", [(e, desc)]), …
    text: str = ""


class _Fail(Exception):
    pass


class Parser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.depth = 0
        self.far = 0  # the furthest position a failure was seen at, and what was wanted
        self.wanted: list[str] = []

    # ------------------------------------------------------------ helpers
    def fail(self, what: str, pos: int | None = None) -> _Fail:
        pos = self.i if pos is None else pos
        if pos > self.far:
            self.far, self.wanted = pos, []
        if pos == self.far and what not in self.wanted:
            if what.startswith("a closing") or (what.startswith("“") and any(
                    c in what for c in ")]},")):  # fmt: skip
                self.wanted.insert(0, what)  # a closing bracket missing: said first
            else:
                self.wanted.append(what)
        return _Fail()

    def error(self) -> QueryError:
        pos = self.far
        line = self.s.count("\n", 0, pos) + 1
        start = self.s.rfind("\n", 0, pos) + 1
        col = pos - start + 1
        end = self.s.find("\n", pos)
        text = self.s[start : end if end >= 0 else len(self.s)]
        found = "the end of the query" if pos >= len(self.s) else f"“{self.s[pos : pos + 12]}”"
        wanted = " or ".join(self.wanted[:4]) or "something else"
        shown = text if len(text) <= 80 else text[:77] + "…"
        return QueryError(f"line {line}, column {col}: expected {wanted}, found {found} "
                          f"(in “{shown.strip()}”)")  # fmt: skip

    def ws(self) -> None:
        s, i = self.s, self.i
        while i < len(s) and s[i].isspace():
            i += 1
        self.i = i

    def match(self, regex: re.Pattern[str]) -> re.Match[str] | None:
        m = regex.match(self.s, self.i)
        if m:
            self.i = m.end()
        return m

    def lit(self, text: str) -> bool:
        if self.s.startswith(text, self.i):
            self.i += len(text)
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.lit(text):
            raise self.fail(f"“{text}”")

    def keyword(self, word: str) -> bool:
        m = re.compile(re.escape(word).replace(r"\ ", r"\s+") + _WORD_END, re.I).match(
            self.s, self.i
        )
        if m:
            self.i = m.end()
            return True
        self.fail(word)
        return False

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise QueryError(f"the query nests deeper than {MAX_DEPTH} levels")

    # ------------------------------------------------------------ expressions
    def expr(self) -> Node:
        self.nest()
        try:
            return self.binary(0)
        finally:
            self.depth -= 1

    _LEVELS = (
        re.compile(r"(and|or)(?![\w\-])|&|\|", re.I),
        re.compile(r">=|<=|!=|>|<|="),
        re.compile(r"[+\-]"),
        re.compile(r"[*/%]"),
    )

    def binary(self, level: int) -> Node:
        if level == len(self._LEVELS):
            return self.postfix()
        left = self.binary(level + 1)
        while True:
            save = self.i
            self.ws()
            m = self.match(self._LEVELS[level])
            if not m:
                self.fail("an operator")
                self.i = save
                return left
            op = m.group(0).lower()
            op = {"and": "&", "or": "|"}.get(op, op)
            self.ws()
            try:
                right = self.binary(level + 1)
            except _Fail:
                self.i = save
                return left
            left = ("bin", op, left, right)

    def postfix(self) -> Node:
        node = self.atom()
        while True:
            pos = self.i
            if self.lit("."):
                m = self.match(IDENT_RE)
                if not m:
                    self.i = pos
                    raise self.fail("a field name after “.”")
                node = ("index", node, ("lit", m.group(0)))
            elif self.lit("["):
                self.ws()
                key = self.expr()
                self.ws()
                self.expect("]")
                node = ("index", node, key)
            elif self.s.startswith("(", self.i):
                node = ("call", node, self.args(), pos)
            else:
                return node

    def args(self) -> list[Node]:
        self.expect("(")
        self.nest()
        try:
            self.ws()
            out: list[Node] = []
            if self.lit(")"):
                return out
            while True:
                out.append(self.expr())
                self.ws()
                if self.lit(")"):
                    return out
                if not self.lit(","):
                    raise self.fail("“,” or “)”")
                self.ws()
        finally:
            self.depth -= 1

    def atom(self) -> Node:
        s, i = self.s, self.i
        if i >= len(s):
            raise self.fail("an expression")
        c = s[i]
        if (c == "!" and s.startswith("![[", i)) or (c == "[" and s.startswith("[[", i)):
            m = _LINK_RE.match(s, i)
            if m:
                self.i = m.end()
                return link_node(m.group(2), bool(m.group(1)))
        if c == "!":
            self.i += 1
            self.nest()
            try:
                return ("not", self.postfix())
            finally:
                self.depth -= 1
        if c == "[":
            return self.sequence("[", "]", "list")
        if c == "{":
            return self.obj()
        if c == "(":
            m = _LAMBDA_RE.match(s, i)
            if m:
                params = IDENT_RE.findall(m.group(0))
                self.i = m.end()
                self.ws()
                return ("lambda", params, self.expr())
            self.i += 1
            self.nest()
            try:
                self.ws()
                inner = self.expr()
                self.ws()
                self.expect(")")
                return inner
            finally:
                self.depth -= 1
        if c == '"':
            m = self.match(STRING_RE)
            if not m:
                raise self.fail('a closing “"” (the text runs to the end of the query)')
            return ("lit", unescape(m.group(1)))
        if c == "-" or c.isdigit():
            m = self.match(_NUMBER_RE)
            if not m:
                raise self.fail("a number")
            n = float(m.group(0))
            return ("lit", int(n) if n.is_integer() and "." not in m.group(0) else n)
        if s.startswith("date(", i):
            node = self.date_literal()
            if node is not None:
                return node
        if s.startswith("dur(", i):
            node = self.duration_literal()
            if node is not None:
                return node
        m = IDENT_RE.match(s, i)
        if m:
            name = m.group(0)
            if name in ("true", "false", "True", "False"):
                self.i = m.end()
                return ("lit", name.lower() == "true")
            if name == "null":
                self.i = m.end()
                return ("lit", None)
            if name.upper() in KEYWORDS and not s.startswith("(", m.end()):
                raise self.fail("a field name (not the keyword “" + name + "”)")
            self.i = m.end()
            if s.startswith(" ", self.i):
                # "list (1, 2)" (the reference writes one so): Dataview's grammar wants the
                # "(" right after the name, and fails on it; a name before "(" means nothing
                # else in the grammar, so it is read as the call
                self.ws()
                if not s.startswith("(", self.i):
                    self.i = m.end()
            return ("var", name)
        raise self.fail("an expression")

    def sequence(self, open_: str, close: str, kind: str) -> Node:
        self.expect(open_)
        self.nest()
        try:
            self.ws()
            items: list[Node] = []
            if self.lit(close):
                return (kind, items)
            while True:
                items.append(self.expr())
                self.ws()
                if self.lit(close):
                    return (kind, items)
                if not self.lit(","):
                    raise self.fail(f"“,” or “{close}”")
                self.ws()
        finally:
            self.depth -= 1

    def obj(self) -> Node:
        self.expect("{")
        self.nest()
        try:
            self.ws()
            pairs: list[tuple[str, Node]] = []
            if self.lit("}"):
                return ("obj", pairs)
            while True:
                m = self.match(IDENT_RE) or self.match(STRING_RE)
                if not m:
                    raise self.fail("a key")
                key = unescape(m.group(1)) if m.group(0).startswith('"') else m.group(0)
                self.ws()
                self.expect(":")
                self.ws()
                pairs.append((key, self.expr()))
                self.ws()
                if self.lit("}"):
                    return ("obj", pairs)
                if not self.lit(","):
                    raise self.fail("“,” or “}”")
                self.ws()
        finally:
            self.depth -= 1

    def date_literal(self) -> Node | None:
        m = re.compile(r"date\(\s*([^()\s]*)\s*\)").match(self.s, self.i)
        if not m:
            return None
        inner = m.group(1)
        if inner in DATE_SHORTHANDS:
            self.i = m.end()
            return ("date", inner)
        if not re.match(r"\d{4}-\d{2}", inner):
            return None  # date(field): a call
        try:
            d = parse_date_text(inner)
        except QueryError as exc:
            line = self.s.count("\n", 0, self.i) + 1
            col = self.i - self.s.rfind("\n", 0, self.i)
            raise QueryError(f"line {line}, column {col}: {exc}") from None
        if d is None:
            return None
        self.i = m.end()
        return ("lit", d)

    def duration_literal(self) -> Node | None:
        m = re.compile(r"dur\(\s*([^()]*?)\s*\)").match(self.s, self.i)
        if not m:
            return None
        d = parse_duration_text(m.group(1))
        if d is None:
            return None
        self.i = m.end()
        return ("lit", d)

    # ------------------------------------------------------------ sources
    def source(self) -> Node:
        left = self.source_atom()
        while True:
            save = self.i
            self.ws()
            m = self.match(self._LEVELS[0])
            if not m:
                self.i = save
                return left
            op = {"and": "and", "&": "and"}.get(m.group(0).lower(), "or")
            self.ws()
            try:
                right = self.source_atom()
            except _Fail:
                self.i = save
                return left
            left = (op, left, right)

    def source_atom(self) -> Node:
        s, i = self.s, self.i
        self.nest()
        try:
            if s.startswith("(", i):
                self.i += 1
                self.ws()
                inner = self.source()
                self.ws()
                self.expect(")")
                return inner
            if i < len(s) and s[i] in "-!":
                self.i += 1
                return ("not", self.source_atom())
            if s.startswith("outgoing(", i):
                self.i += len("outgoing(")
                self.ws()
                m = self.match(_LINK_RE)
                if not m:
                    raise self.fail("a [[link]] in outgoing(…)")
                self.ws()
                self.expect(")")
                return ("outgoing", link_node(m.group(2), False))
            if s.startswith("[[", i):
                m = self.match(_LINK_RE)
                if not m:
                    raise self.fail("a [[link]]")
                return ("incoming", link_node(m.group(2), False))
            if s.startswith('"', i):
                m = self.match(STRING_RE)
                if not m:
                    raise self.fail("a closing “\"” (the folder's name runs to the end)")
                return ("folder", unescape(m.group(1)))
            if s.startswith("#", i):
                m = self.match(_TAG_RE)
                assert m is not None
                return ("tag", m.group(0))
            if s.startswith("csv(", i):
                raise QueryError("csv() sources are not supported: Anthology answers "
                                 "from its index, which holds no CSV files")  # fmt: skip
            raise self.fail('a source (#tag, "folder", [[link]] or outgoing([[link]]))')
        finally:
            self.depth -= 1

    # ------------------------------------------------------------ queries
    def comments(self) -> None:
        while True:
            self.ws()
            if self.s.startswith("//", self.i):
                end = self.s.find("\n", self.i)
                self.i = len(self.s) if end < 0 else end
            else:
                return

    def named(self) -> NamedField:
        start = self.i
        node = self.expr()
        raw_end = self.i
        save = self.i
        self.ws()
        if self.i > save and re.compile(r"AS\s", re.I).match(self.s, self.i):
            self.i += 2
            self.ws()
            m = self.match(STRING_RE) or self.match(IDENT_RE)
            if m:
                name = unescape(m.group(1)) if m.group(0).startswith('"') else m.group(0)
                return NamedField(name, node)
            raise self.fail("a name after AS")
        self.i = save
        raw = self.s[start:raw_end]
        return NamedField("".join(line.strip() for line in re.split(r"[\r\n]+", raw)), node)

    def header(self, q: Query) -> None:
        m = self.match(re.compile(r"(TABLE|LIST|TASK|CALENDAR)(?![\w\-])", re.I))
        if not m:
            raise self.fail("TABLE, LIST, TASK or CALENDAR")
        q.type = m.group(1).lower()
        if q.type == "task":
            return
        save = self.i
        self.ws()
        if q.type == "calendar":
            if self.i == save:
                raise self.fail("a date expression after CALENDAR")
            q.fields = [self.named()]
            return
        if self.i == save:
            return
        if self.keyword("WITHOUT ID"):
            q.show_id = False
            self.ws()
        if q.type == "table":
            while True:
                before = self.i
                try:
                    q.fields.append(self.named())
                except _Fail:
                    self.i = before
                    if q.fields:
                        raise
                    return
                after = self.i
                self.ws()
                if not self.lit(","):
                    self.i = after
                    return
                self.ws()
        else:
            before = self.i
            try:
                q.fields = [NamedField("", self.expr())]
            except _Fail:
                self.i = before

    def clause(self, q: Query) -> bool:
        if self.keyword("WHERE"):
            self.ws()
            q.ops.append(("where", self.expr()))
        elif self.keyword("SORT"):
            self.ws()
            fields = []
            while True:
                node = self.expr()
                save = self.i
                self.ws()
                m = self.match(re.compile(r"(ASCENDING|DESCENDING|ASC|DESC)(?![\w\-])", re.I))
                if not m:
                    self.i = save
                fields.append((node, m is not None and m.group(1).upper().startswith("DESC")))
                save = self.i
                self.ws()
                if not self.lit(","):
                    self.i = save
                    break
                self.ws()
            q.ops.append(("sort", fields))
        elif self.keyword("LIMIT"):
            self.ws()
            q.ops.append(("limit", self.expr()))
        elif self.keyword("GROUP BY"):
            self.ws()
            q.ops.append(("group", self.named()))
        elif self.keyword("FLATTEN"):
            self.ws()
            q.ops.append(("flatten", self.named()))
        else:
            return False
        return True

    def query(self) -> Query:
        q = Query("list", text=self.s)
        self.comments()
        self.header(q)
        self.comments()
        if self.keyword("FROM"):
            self.ws()
            q.source = self.source()
            self.comments()
        while self.i < len(self.s):
            if not self.clause(q):
                if self.keyword("FROM"):
                    line = self.s.count("\n", 0, self.i) + 1
                    raise QueryError(f"line {line}: FROM must come once, right after the "
                                     "query type")  # fmt: skip
                raise self.fail("WHERE, SORT, GROUP BY, FLATTEN or LIMIT")
            self.comments()
        return q


def unescape(body: str) -> str:
    """Dataview's string escapes: ``\\"`` and ``\\\\``; any other backslash is kept."""
    if "\\" not in body:
        return body
    return re.sub(r"\\(.)", lambda m: m.group(1) if m.group(1) in '"\\' else m.group(0), body,
                  flags=re.S)  # fmt: skip


def link_node(inner: str, embed: bool) -> Node:
    """``[[path#sub|display]]`` (a ``\\|`` is a pipe of the path) as a link literal node."""
    parts = re.split(r"(?<!\\)\|", inner, maxsplit=1)
    target = parts[0].replace("\\|", "|")
    display = parts[1] if len(parts) > 1 else None
    path, _, sub = target.partition("#")
    return ("link", path.strip(), display, sub.strip() or None, embed)


def _check_size(text: Any) -> str:
    if not isinstance(text, str):
        raise QueryError(f"a query must be text, not {type(text).__name__}")
    if len(text) > MAX_QUERY:
        raise QueryError(f"a query of {len(text):,} characters is too long to run (at most "
                         f"{MAX_QUERY:,})")  # fmt: skip
    return text


def parse_query(text: str) -> Query:
    """A DQL query parsed; :class:`QueryError` with the line and column on bad input."""
    p = Parser(_check_size(text))
    try:
        q = p.query()
    except _Fail:
        raise p.error() from None
    except RecursionError:
        raise QueryError(f"the query nests deeper than {MAX_DEPTH} levels") from None
    return q


def parse_expression(text: str) -> Node:
    """One expression (an inline ``= expr`` query), to its end."""
    p = Parser(_check_size(text))
    try:
        p.ws()
        node = p.expr()
        p.ws()
        if p.i < len(text):
            raise p.fail("the end of the expression")
    except _Fail:
        raise p.error() from None
    except RecursionError:
        raise QueryError(f"the expression nests deeper than {MAX_DEPTH} levels") from None
    if not text.strip():
        raise QueryError("an empty expression")
    return node
