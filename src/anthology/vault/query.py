"""The query language shared by full-text search and the graph's node matching.

One parser, so ``tag:ml`` means the same in the search panel, the graph's search box and
its colour groups (it also matches the nested ``ml/vision``, as search has always done)::

    words "a phrase"      free text (search: the body too; the graph: id, title and path)
    tag:x                 the tag x or a tag nested under it (x/…); a leading # is ignored
    kind:x  status:x      the property, case-insensitive
    path:x                x in the vault-relative path (as Obsidian's path:)
    folder:x              inside the folder x (or one nested in it)
    [key:value]  [key]    a property with that value (any item of a list), or present at all;
                          a Dataview inline field too (``Key:: value``), its key also in
                          Dataview's lower-case dashed form (``[key-with-space:x]``)
    -anything             excludes it

Values with spaces are quoted: ``tag:"two words"``, ``folder:"Daily notes"``,
``[author:"Ada Lovelace"]``. Matching in memory (:func:`matches`) is what the graph uses;
search turns the same :class:`Query` into SQL (:mod:`anthology.vault.search`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "FILTER_KEYS",
    "MAX_QUERY_PARTS",
    "Filter",
    "Query",
    "QueryTooLarge",
    "Term",
    "field_matches",
    "filter_holds",
    "fold",
    "folder_matches",
    "haystack",
    "matches",
    "parse_query",
    "property_matches",
    "tag_matches",
    "value_text",
]

FILTER_KEYS = ("tag", "kind", "status", "path", "folder")
# Filters and words one search takes. Each filter is one more level of SQLite's expression
# tree (it refuses past 1000: "Expression tree is too large") and each word one of FTS5's
# (past 256 its MATCH fails); no one types a hundred.
MAX_QUERY_PARTS = 100

_FILTER_RE = re.compile(
    r'(?:^|(?<=\s))(-?)(?:(tag|kind|status|path|folder):("[^"]*"|\S+)'
    r'|\[([^\]:]+?)(?::\s*("[^"]*"|[^\]]*))?\])',
    re.I,
)
_TERM_RE = re.compile(r'(-?)("[^"]*"|\S+)')


@dataclass(frozen=True)
class Filter:
    """``key`` is one of :data:`FILTER_KEYS` or ``"property"`` (then ``name`` is the
    property's key and ``value`` None means "has the property")."""

    key: str
    value: str | None
    negated: bool = False
    name: str = ""


@dataclass(frozen=True)
class Term:
    text: str  # without the quotes
    negated: bool = False
    quoted: bool = False


@dataclass
class Query:
    filters: list[Filter] = field(default_factory=list)
    terms: list[Term] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.filters or self.terms)


class QueryTooLarge(ValueError):
    """A search with more filters and words than :data:`MAX_QUERY_PARTS`; its message is
    one line for the reader."""

    def __init__(self, parts: int) -> None:
        super().__init__(
            f"the query has {parts} filters and words; search takes at most {MAX_QUERY_PARTS}"
        )
        self.parts = parts


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return value.strip()


def parse_query(text: str) -> Query:
    """The filters and free terms of ``text`` (see the module docstring)."""
    filters: list[Filter] = []
    for m in _FILTER_RE.finditer(text):
        neg, key, value, prop, prop_value = m.groups()
        if key:
            value = _unquote(value)
            if key.lower() == "tag":
                value = value.lstrip("#")
            filters.append(Filter(key.lower(), value, bool(neg)))
        else:
            pv = None if prop_value is None else _unquote(prop_value)
            filters.append(Filter("property", pv or None, bool(neg), prop.strip()))
    rest = _FILTER_RE.sub(" ", text)
    terms = []
    for neg, raw in _TERM_RE.findall(rest):
        quoted = raw.startswith('"')
        body = raw.strip('"')
        if body.strip():
            terms.append(Term(body, bool(neg), quoted))
    return Query(filters, terms)


def fold(text: str) -> str:
    """Lower case without accents, as search's tokenizer (unicode61, remove_diacritics 2)."""
    text = text.lower()
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def tag_matches(wanted: str, tags: Sequence[str]) -> bool:
    """Whether one of ``tags`` is ``wanted`` or nested under it (``a`` matches ``a/b``)."""
    w = wanted.lstrip("#").lower()
    if not w:
        return False
    for tag in tags:
        t = tag.lstrip("#").lower()
        if t == w or t.startswith(w + "/"):
            return True
    return False


def folder_matches(folder: str, path: str) -> bool:
    """Whether the vault-relative ``path`` lies in ``folder`` (or a folder nested in it);
    ``/`` or an empty folder is the vault's top, which holds everything."""
    f = folder.strip().strip("/").lower()
    return not f or path.lower().startswith(f + "/")


def value_text(value: Any) -> str:
    """A property value as the query compares it: JSON's spelling of booleans and null."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def property_matches(name: str, value: str | None, properties: Mapping[str, Any]) -> bool:
    """Whether ``properties`` has the key ``name`` (any case) with ``value`` (any item of a
    list; case-insensitive), or at all when ``value`` is None."""
    key = name.lower()
    for k, v in properties.items():
        if str(k).lower() != key:
            continue
        if value is None:
            return True
        items = v if isinstance(v, list) else [v]
        want = value.lower()
        if any(not isinstance(x, list | dict) and value_text(x).lower() == want for x in items):
            return True
    return False


def field_key_matches(name: str, key: str) -> bool:
    """Whether ``[name:…]`` names the inline field ``key``: in any case, or in Dataview's
    dashed form (``key-with-space`` for ``Key With Space``; as search's SQL compares)."""
    k = key.lower()
    return k == name or k.replace(" ", "-") == name


def field_matches(name: str, value: str | None, fields: Mapping[str, Any]) -> bool:
    """Whether Dataview's inline ``fields`` (key → raw value texts) hold ``name`` (see
    :func:`field_key_matches`) with ``value`` among its values (case-insensitive), or at
    all when ``value`` is None."""
    want_key = name.lower()
    want = None if value is None else value.lower()
    for key, values in fields.items():
        if not field_key_matches(want_key, str(key)):
            continue
        if want is None:
            return True
        items = values if isinstance(values, list) else [values]
        if any(isinstance(v, str) and v.lower() == want for v in items):
            return True
    return False


def filter_holds(f: Filter, rec: Mapping[str, Any]) -> bool:
    """Whether ``f`` (its ``-`` aside) holds for a record (see :func:`matches`)."""
    if f.key == "tag":
        return tag_matches(f.value or "", rec.get("tags") or ())
    if f.key == "kind":
        return (rec.get("kind") or "").lower() == (f.value or "").lower()
    if f.key == "status":
        props = rec.get("properties") or {}
        return property_matches("status", f.value, props)
    if f.key == "path":
        return (f.value or "").lower() in (rec.get("path") or "").lower()
    if f.key == "folder":
        return folder_matches(f.value or "", rec.get("path") or "")
    return property_matches(f.name, f.value, rec.get("properties") or {}) or field_matches(
        f.name, f.value, rec.get("fields") or {}
    )


def matches(query: Query, rec: Mapping[str, Any]) -> bool:
    """Whether a record (``id``, ``title``, ``path``, ``kind``, ``tags``, ``properties``)
    satisfies every part of ``query``. Free terms are looked for (folded, as substrings) in
    the id, title and path: a graph node has no body to search."""
    for f in query.filters:
        if filter_holds(f, rec) == f.negated:
            return False
    if query.terms:
        hay = haystack(rec)
        for t in query.terms:
            if (fold(t.text.strip()) in hay) == t.negated:
                return False
    return True


def haystack(rec: Mapping[str, Any]) -> str:
    """What a record's free terms are looked for in: its id, title and path, folded."""
    return fold(" ".join(str(rec.get(k) or "") for k in ("id", "title", "path")))


def words_to_find(text: str) -> list[str]:
    """What a search result opened from ``text`` is looked for at in the note, best first:
    the words sought as one phrase, then each word or quoted phrase alone (not the
    excluded ones, not the filters); [] when it seeks none."""
    try:
        terms = parse_query(text).terms
    except Exception:  # a query the search refused: nothing to find in the note
        return []
    sought = [t.text.strip() for t in terms if not t.negated and t.text.strip()]
    whole = " ".join(sought)
    return list(dict.fromkeys([whole, *sought])) if sought else []
