"""The expression language of Bases' filters and formulas: parsed once, compiled to closures.

Grammar (help pages *Bases syntax*, *Formulas*, *Functions*): literals (numbers, ``"…"``/
``'…'`` strings, ``true``/``false``/``null``, ``[lists]``, ``{"objects": …}``, ``/regex/flags``),
names (``value``/``index``/``acc`` inside a list function, ``values`` in a summary, ``file``,
``note``, ``formula``, ``this``, else a note property), member access ``a.b`` and ``a["b"]``,
calls ``f(x)`` and method calls ``a.f(x)``, ``!``/``-``, ``* / %``, ``+ -``, ``< > <= >=``,
``== !=``, ``&&``, ``||``.

An expression is at most :data:`MAX_CHARS` characters and nests at most :data:`MAX_DEPTH`
deep (the parser and the closures it builds recurse); a name of a function that exists on no
type is refused when the expression is compiled, not when a row first reaches it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import functions as lib
from .env import Compiled, Env, make_regex
from .values import (
    FileValue,
    QueryError,
    compare,
    equals,
    to_number,
    truthy,
)

Node = tuple

MAX_CHARS = 10_000
MAX_DEPTH = 64

# ---------------------------------------------------------------- tokens
_TOKEN_RE = re.compile(
    r"""(?P<ws>\s+)
    |(?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+)
    |(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    |(?P<name>[^\W\d][\w$]*|\$[\w$]*)
    |(?P<op>==|!=|<=|>=|&&|\|\||[-+*/%<>!().,\[\]{}:?])""",
    re.X | re.S,
)
# A regex literal where a value is expected: /…/flags (a class may hold a "/").
_REGEX_RE = re.compile(r"/((?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+)/([a-z]*)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # num, str, name, op, regex, end
    text: str
    pos: int
    value: Any = None


def _unquote(s: str) -> str:
    out, i, body = [], 0, s[1:-1]
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6]):
                out.append(chr(int(body[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    value_expected = True
    while pos < len(text):
        if value_expected and text[pos] == "/":
            m = _REGEX_RE.match(text, pos)
            if not m:
                raise QueryError(_where("unterminated regular expression", text, pos))
            tokens.append(Token("regex", m.group(0), pos, (m.group(1), m.group(2))))
            pos = m.end()
            value_expected = False
            continue
        m = _TOKEN_RE.match(text, pos)
        if not m:
            c = text[pos]
            if c in "\"'":
                raise QueryError(_where(f"unterminated string (no closing {c})", text, pos))
            raise QueryError(_where(f"unexpected character “{c}”", text, pos))
        kind = m.lastgroup or ""
        if kind != "ws":
            tok = m.group(0)
            value = _unquote(tok) if kind == "str" else None
            tokens.append(Token(kind, tok, pos, value))
            value_expected = kind == "op" and tok not in (")", "]", "}")
        pos = m.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


def _where(message: str, text: str, pos: int) -> str:
    shown = text if len(text) <= 80 else text[:77] + "…"
    return f"{message} at column {pos + 1} of “{shown}”"


# ---------------------------------------------------------------- parser
_BINARY = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4,
           "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}  # fmt: skip
_LITERALS = {"true": True, "false": False, "null": None}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0

    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, op: str) -> Token:
        tok = self.take()
        if tok.text != op or tok.kind not in ("op",):
            found = f"“{tok.text}”" if tok.kind != "end" else "the end"
            raise QueryError(_where(f"expected “{op}” but found {found}", self.text, tok.pos))
        return tok

    def parse(self) -> Node:
        node = self.expr(0)
        tok = self.peek()
        if tok.kind != "end":
            raise QueryError(_where(f"unexpected “{tok.text}”", self.text, tok.pos))
        return node

    def expr(self, min_prec: int) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise QueryError(f"the expression nests deeper than {MAX_DEPTH} levels")
        try:
            left = self.unary()
            while True:
                tok = self.peek()
                prec = _BINARY.get(tok.text) if tok.kind == "op" else None
                if prec is None or prec <= min_prec:
                    return left
                self.take()
                right = self.expr(prec)
                left = ("bin", tok.text, left, right)
        finally:
            self.depth -= 1

    def unary(self) -> Node:
        tok = self.peek()
        if tok.kind == "op" and tok.text in ("!", "-", "+"):
            self.take()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise QueryError(f"the expression nests deeper than {MAX_DEPTH} levels")
            try:
                return ("unary", tok.text, self.unary())
            finally:
                self.depth -= 1
        return self.postfix(self.primary())

    def args(self) -> list[Node]:
        out: list[Node] = []
        if self.peek().text == ")" and self.peek().kind == "op":
            self.take()
            return out
        while True:
            out.append(self.expr(0))
            tok = self.take()
            if tok.text == ")" and tok.kind == "op":
                return out
            if tok.text != "," or tok.kind != "op":
                found = f"“{tok.text}”" if tok.kind != "end" else "the end"
                raise QueryError(_where(f"expected “,” or “)” but found {found}", self.text,
                                        tok.pos))  # fmt: skip

    def postfix(self, node: Node) -> Node:
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.text == ".":
                self.take()
                name = self.take()
                if name.kind != "name":
                    raise QueryError(_where("expected a name after “.”", self.text, name.pos))
                if self.peek().kind == "op" and self.peek().text == "(":
                    self.take()
                    node = ("method", node, name.text, self.args(), name.pos)
                else:
                    node = ("member", node, name.text)
            elif tok.kind == "op" and tok.text == "[":
                self.take()
                key = self.expr(0)
                self.expect("]")
                node = ("index", node, key)
            else:
                return node

    def primary(self) -> Node:
        tok = self.take()
        if tok.kind == "num":
            n = float(tok.text)
            return ("lit", int(n) if n.is_integer() and "e" not in tok.text.lower() else n)
        if tok.kind == "str":
            return ("lit", tok.value)
        if tok.kind == "regex":
            return ("lit", make_regex(*tok.value))
        if tok.kind == "name":
            if tok.text in _LITERALS:
                return ("lit", _LITERALS[tok.text])
            if self.peek().kind == "op" and self.peek().text == "(":
                self.take()
                return ("call", tok.text, self.args(), tok.pos)
            return ("name", tok.text)
        if tok.kind == "op" and tok.text == "(":
            node = self.expr(0)
            self.expect(")")
            return node
        if tok.kind == "op" and tok.text == "[":
            items: list[Node] = []
            if not (self.peek().kind == "op" and self.peek().text == "]"):
                while True:
                    items.append(self.expr(0))
                    sep = self.take()
                    if sep.text == "]" and sep.kind == "op":
                        break
                    if sep.text != "," or sep.kind != "op":
                        raise QueryError(_where("expected “,” or “]”", self.text, sep.pos))
            else:
                self.take()
            return ("list", items)
        if tok.kind == "op" and tok.text == "{":
            pairs: list[tuple[str, Node]] = []
            if self.peek().kind == "op" and self.peek().text == "}":
                self.take()
                return ("obj", pairs)
            while True:
                key = self.take()
                if key.kind not in ("str", "name"):
                    raise QueryError(_where("expected a key", self.text, key.pos))
                self.expect(":")
                pairs.append((key.value if key.kind == "str" else key.text, self.expr(0)))
                sep = self.take()
                if sep.text == "}" and sep.kind == "op":
                    return ("obj", pairs)
                if sep.text != "," or sep.kind != "op":
                    raise QueryError(_where("expected “,” or “}”", self.text, sep.pos))
        if tok.kind == "end":
            raise QueryError(_where("the expression ends too soon", self.text, tok.pos))
        raise QueryError(_where(f"unexpected “{tok.text}”", self.text, tok.pos))


def parse(text: str) -> Node:
    """The syntax tree of one expression; :class:`QueryError` with the column on bad input."""
    if not isinstance(text, str):
        raise QueryError(f"an expression must be text, not {type(text).__name__}: {text!r:.60}")
    if len(text) > MAX_CHARS:
        raise QueryError(f"an expression of {len(text):,} characters (at most {MAX_CHARS:,})")
    if not text.strip():
        raise QueryError("an empty expression")
    return _Parser(text).parse()


# ---------------------------------------------------------------- compilation
def _props(env: Env) -> dict[str, Any]:
    return env.properties()


def _name(name: str) -> Compiled:
    if name == "file":
        return lambda env: FileValue(env.row) if env.row is not None else None
    if name == "this":
        return lambda env: FileValue(env.ctx.this) if env.ctx.this is not None else None
    if name == "note":
        return _props
    if name == "formula":
        return lambda env: {k: env.formula(k) for k in env.ctx.formulas}

    def get(env: Env) -> Any:
        local = env.locals
        if local is not None and name in local:
            return local[name]
        return env.properties().get(name)

    return get


def _member(node: Node) -> Compiled:
    _, obj, name = node
    if obj[0] == "name" and not _is_local(obj[1]):
        head = obj[1]
        if head == "formula":
            return lambda env: env.formula(name)
        if head == "note":
            return lambda env: env.properties().get(name)
        if head == "this":
            if name == "file":
                return lambda env: FileValue(env.ctx.this) if env.ctx.this is not None else None
            return lambda env: (
                env.properties(env.ctx.this).get(name) if env.ctx.this is not None else None
            )
    target = compile_node(obj)
    return lambda env: lib.get_field(env, target(env), name)


def _is_local(name: str) -> bool:
    return name in ("value", "index", "acc", "values")


def _index(node: Node) -> Compiled:
    _, obj, key = node
    key_fn = compile_node(key)
    if obj[0] == "name" and obj[1] in ("note", "formula") and key[0] == "lit":
        return _member(("member", obj, str(key[1])))
    target = compile_node(obj)

    def index(env: Env) -> Any:
        v, k = target(env), key_fn(env)
        if isinstance(v, list | str) and isinstance(k, int | float) and not isinstance(k, bool):
            i = int(k)
            return v[i] if 0 <= i < len(v) and i == k else None
        if v is None:
            return None
        return lib.get_field(env, v, k if isinstance(k, str) else str(k))

    return index


def _binary(node: Node) -> Compiled:
    _, op, left, right = node
    a, b = compile_node(left), compile_node(right)
    if op == "&&":
        return lambda env: (lambda x: b(env) if truthy(x) else x)(a(env))
    if op == "||":
        return lambda env: (lambda x: x if truthy(x) else b(env))(a(env))
    if op == "==":
        return lambda env: equals(a(env), b(env))
    if op == "!=":
        return lambda env: not equals(a(env), b(env))
    if op in ("<", ">", "<=", ">="):
        want = {"<": (-1,), ">": (1,), "<=": (-1, 0), ">=": (1, 0)}[op]
        return lambda env: compare(a(env), b(env)) in want
    return lambda env: lib.arithmetic(op, a(env), b(env))


def _unary(node: Node) -> Compiled:
    _, op, operand = node
    f = compile_node(operand)
    if op == "!":
        return lambda env: not truthy(f(env))
    if op == "-":
        return lambda env: -to_number(f(env))
    return lambda env: to_number(f(env))


def _call(node: Node) -> Compiled:
    _, name, args, _pos = node
    fns = [compile_node(a) for a in args]
    if name in lib.LAZY_GLOBALS:
        lazy = lib.LAZY_GLOBALS[name]
        return lambda env: lazy(env, fns)
    impl = lib.GLOBALS.get(name)
    if impl is None:
        raise QueryError(f"unknown function “{name}()”")

    if name in _CONSTANT_GLOBALS and all(a[0] == "lit" for a in args):
        # link("Books") in a filter: the same for every row, made once per query
        values = [a[1] for a in args]
        key = object()

        def constant(env: Env) -> Any:
            consts = env.ctx.constants
            try:
                return consts[key]
            except KeyError:
                consts[key] = impl(env, values)
                return consts[key]

        return constant

    def call(env: Env) -> Any:
        env.ctx.budget.tick()
        return impl(env, [f(env) for f in fns])

    return call


# Global functions whose value depends on their arguments alone (and the query's data):
# called with literals, they are evaluated once per query, not once per row (now() and
# today() too: one query sees one moment, as one render of a view should).
_CONSTANT_GLOBALS = frozenset(
    ("link", "date", "duration", "number", "list", "escapeHTML", "html", "icon", "image",
     "file", "max", "min", "now", "today")
)  # fmt: skip


def _method(node: Node) -> Compiled:
    _, obj, name, args, _pos = node
    if name not in lib.ALL_METHODS:
        raise QueryError(f"unknown function “{name}()”")
    recv = compile_node(obj)
    fns = [compile_node(a) for a in args]
    if name in lib.LAZY_METHODS:
        lazy = lib.LAZY_METHODS[name]
        return lambda env: lazy(env, recv(env), fns)

    def method(env: Env) -> Any:
        env.ctx.budget.tick()
        return lib.call_method(env, recv(env), name, [f(env) for f in fns])

    return method


def compile_node(node: Node) -> Compiled:
    kind = node[0]
    if kind == "lit":
        value = node[1]
        return lambda env: value
    if kind == "name":
        return _name(node[1])
    if kind == "member":
        return _member(node)
    if kind == "index":
        return _index(node)
    if kind == "bin":
        return _binary(node)
    if kind == "unary":
        return _unary(node)
    if kind == "call":
        return _call(node)
    if kind == "method":
        return _method(node)
    if kind == "list":
        items = [compile_node(n) for n in node[1]]
        return lambda env: [f(env) for f in items]
    if kind == "obj":
        pairs = [(k, compile_node(n)) for k, n in node[1]]
        return lambda env: {k: f(env) for k, f in pairs}
    raise QueryError(f"cannot evaluate {kind}")  # pragma: no cover - the parser makes no other


def compile_expression(text: str) -> Compiled:
    """``text`` parsed and compiled: a function of a row's :class:`Env`."""
    return compile_node(parse(text))


def formula_refs(node: Node) -> set[str]:
    """The formulas an expression names (``formula.x``, ``formula["x"]``)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if not isinstance(n, tuple) or not n:
            continue
        if n[0] == "member" and n[1] == ("name", "formula"):
            found.add(n[2])
        elif n[0] == "index" and n[1] == ("name", "formula") and n[2][0] == "lit":
            found.add(str(n[2][1]))
        elif n[0] == "name" and n[1] == "formula":
            found.add("*")  # the whole namespace: every formula
        for part in n[1:]:
            if isinstance(part, tuple):
                stack.append(part)
            elif isinstance(part, list):
                stack.extend(p for p in part if isinstance(p, tuple))
                stack.extend(p[1] for p in part if isinstance(p, tuple) and len(p) == 2
                             and isinstance(p[1], tuple))  # fmt: skip
    return found
