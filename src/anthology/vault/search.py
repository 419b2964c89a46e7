"""Full-text search and its query language, and the unlinked mentions of an entry.

The language (parsed by :mod:`anthology.vault.query`, which the graph's node matching
shares): words (the last also as a prefix, so results come while typing), ``"quoted
phrases"``, ``tag:x`` (nested ``x/…`` too), ``kind:x``, ``status:x``, ``path:x``,
``folder:x``, ``[key:value]``, and ``-`` before any of them to exclude it. Ranking is
FTS5's bm25; snippets are cut here.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from typing import Any

from anthology.vault.connection import IndexConnection
from anthology.vault.links import MDLINK_RE, URL_RE, WIKILINK_RE, mask_code
from anthology.vault.model import MATCH_END, MATCH_START, EntryRef, SearchHit
from anthology.vault.query import MAX_QUERY_PARTS, Filter, QueryTooLarge, parse_query

# Snippets are cut here, in Python, not by FTS5's snippet(): it scores every window around
# every hit, quadratic in the hits of one document (40k hits: 10-20 s; a 200 MB note: past
# 10 minutes). Ranking still runs over the whole text (MATCH, bm25); the snippet looks at
# the first SNIPPET_WINDOW characters of each column only, for the few rows shown.
SNIPPET_WINDOW = 65_536
SNIPPET_TOKENS = 16  # as snippet(…, 16) did
# A title that is a common word matches most of a vault: rank only the first this many
# matching entries (by row) for its unlinked mentions.
MENTION_ROWS = 5_000
# Candidates read per mention asked for: some only name the entry inside code, links or URLs.
MENTION_CANDIDATES = 4
# unicode61's tokens: runs of letters, digits and private-use characters (not "_").
TOKEN_RE = re.compile(r"[^\W_]+|[\ue000-\uf8ff]+")


def _like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# A property's value as :func:`anthology.vault.query.value_text` spells it.
_JSON_TEXT = ("CASE {t}.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' "
              "WHEN 'null' THEN 'null' ELSE CAST({t}.value AS TEXT) END")  # fmt: skip


def _filter_sql(f: Filter) -> tuple[str, list[Any]]:
    """One filter of the shared query language (:mod:`anthology.vault.query`) as SQL over
    ``entries e``, with its parameters; the same answers as :func:`query.matches`."""
    value = f.value or ""
    if f.key == "tag":
        # NOCASE and LIKE fold ASCII letters, as lower() does.
        return ("e.eid IN (SELECT eid FROM tags WHERE tag = ? COLLATE NOCASE "
                "OR tag LIKE ? || '/%' ESCAPE '\\')", [value, _like(value)])  # fmt: skip
    if f.key in ("kind", "status"):
        return f"lower(coalesce(e.{f.key}, '')) = lower(?)", [value]
    if f.key == "path":
        return "e.path LIKE '%' || ? || '%' ESCAPE '\\'", [_like(value)]
    if f.key == "folder":
        folder = value.strip().strip("/")
        if not folder:
            return "1", []
        return "e.path LIKE ? || '/%' ESCAPE '\\'", [_like(folder)]
    has_key = "SELECT 1 FROM json_each(e.properties) p WHERE lower(p.key) = lower(?)"
    # Dataview's inline fields (key → [raw text, …]), by key or its dashed alias (see
    # query.field_key_matches)
    has_field = (
        "SELECT 1 FROM json_each(e.fields) p WHERE (lower(p.key) = lower(?) "
        "OR replace(lower(p.key), ' ', '-') = lower(?))"
    )
    if f.value is None:
        return f"(EXISTS ({has_key}) OR EXISTS ({has_field}))", [f.name, f.name, f.name]
    item = _JSON_TEXT.format(t="p")
    nested = _JSON_TEXT.format(t="v")
    return (
        f"(EXISTS ({has_key} AND (lower({item}) = lower(?) OR (p.type = 'array' AND EXISTS "
        f"(SELECT 1 FROM json_each(p.value) v WHERE v.type NOT IN ('array', 'object') "
        f"AND lower({nested}) = lower(?))))) OR EXISTS ({has_field} AND EXISTS "
        "(SELECT 1 FROM json_each(p.value) v WHERE lower(v.value) = lower(?))))",
        [f.name, value, value, f.name, f.name, value],
    )


def _fts_phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def fold_token(word: str) -> str:
    """A token as unicode61 (remove_diacritics 2) compares it: lower case, no accents."""
    word = word.lower()
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _phrase(text: str, prefix: bool = False) -> tuple[tuple[str, ...], bool] | None:
    """The folded tokens of a query phrase, and whether its last one matches as a prefix."""
    words = tuple(fold_token(w) for w in TOKEN_RE.findall(text))
    return (words, prefix) if words else None


def _match_at(
    tokens: list[tuple[int, int, str]], i: int, phrases: list[tuple[tuple[str, ...], bool]]
) -> int:
    """The number of tokens of the phrase matching at token ``i``, or 0."""
    for words, prefix in phrases:
        n = len(words)
        if i + n > len(tokens):
            continue
        last = tokens[i + n - 1][2]
        if all(tokens[i + k][2] == words[k] for k in range(n - 1)) and (
            last.startswith(words[-1]) if prefix else last == words[-1]
        ):
            return n
    return 0


def _cut_snippet(
    texts: list[str | None], phrases: list[tuple[tuple[str, ...], bool]], cut: int
) -> str:
    """A snippet like FTS5's: :data:`SNIPPET_TOKENS` tokens from the first column (in
    ``texts`` order) where a phrase matches, each match between MATCH_START and MATCH_END,
    "…" where text was left out. ``texts`` are the columns' first ``cut`` characters; work
    is linear in them (each token is compared with each phrase once)."""
    fallback: str | None = None
    for text in texts:
        if not text:
            continue
        tokens = _tokens(text)
        if not tokens:
            continue
        cut_off = len(text) >= cut  # the column goes on past what was read
        found = _snippet_at_match(text, tokens, phrases, cut_off)
        if found is not None:
            return found
        if fallback is None:
            fallback = _render(text, tokens, 0, min(len(tokens), SNIPPET_TOKENS), [], cut_off)
    return fallback or ""


def _tokens(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), fold_token(m.group())) for m in TOKEN_RE.finditer(text)]


def _snippet_at_match(
    text: str,
    tokens: list[tuple[int, int, str]],
    phrases: list[tuple[tuple[str, ...], bool]],
    cut_off: bool,
) -> str | None:
    """The snippet of ``text`` around its first match among ``tokens`` (which may be only
    some of the text's tokens: those of a masked copy), or None when none matches."""
    spans: list[tuple[int, int]] = []  # (first token, last token + 1) of each match
    first = next((i for i in range(len(tokens)) if _match_at(tokens, i, phrases)), None)
    if first is None:
        return None
    # A few tokens of lead-in before the first match, as a reader expects.
    start = max(0, min(first - 2, len(tokens) - SNIPPET_TOKENS))
    end = min(len(tokens), start + SNIPPET_TOKENS)
    i = first
    while i < end:
        n = _match_at(tokens, i, phrases)
        if n:
            spans.append((i, min(i + n, end)))
            i += n
        else:
            i += 1
    return _render(text, tokens, start, end, spans, cut_off)


# What is not prose, for unlinked mentions: text already in a link (a wikilink, a Markdown
# link or image, its text included), a URL (bare, www. or <autolink>). Code and comments are
# blanked by links.mask_code first. Obsidian's own unlinked mentions skip text inside links.
_NOT_PROSE_RES = (WIKILINK_RE, MDLINK_RE, URL_RE, re.compile(r"<[a-zA-Z][\w+.\-]*:[^\s<>]*>"),
                  re.compile(r"(?<![\w./])www\.[^\s<>()\[\]]+"))  # fmt: skip
_NOT_NEWLINE_RE = re.compile(r"[^\n]")


def mention_text(body: str) -> str:
    """``body`` with everything that cannot hold an unlinked mention blanked (code,
    comments, links, URLs), every offset and newline kept."""
    masked = mask_code(body)
    for pattern in _NOT_PROSE_RES:
        if pattern.search(masked) is not None:
            masked = pattern.sub(lambda m: _NOT_NEWLINE_RE.sub(" ", m.group()), masked)
    return masked


def mention_snippet(
    body: str, phrases: list[tuple[tuple[str, ...], bool]], *, cut_off: bool = False
) -> str | None:
    """The snippet of ``body`` around its first mention in prose of one of ``phrases``
    (see :func:`mention_text`), or None when the body names none outside code, links and
    URLs. ``cut_off``: ``body`` is only the head of a longer text."""
    tokens = _tokens(mention_text(body))
    return _snippet_at_match(body, tokens, phrases, cut_off) if tokens else None


def _render(
    text: str,
    tokens: list[tuple[int, int, str]],
    start: int,
    end: int,
    spans: list[tuple[int, int]],
    cut_off: bool,
) -> str:
    out = ["…"] if start > 0 else [text[: tokens[0][0]]]
    pos = tokens[start][0]
    for a, b in spans:
        out += [text[pos : tokens[a][0]], MATCH_START, text[tokens[a][0] : tokens[b - 1][1]],
                MATCH_END]  # fmt: skip
        pos = tokens[b - 1][1]
    out.append(text[pos : tokens[end - 1][1]])
    if end < len(tokens) or cut_off:
        out.append("…")
    else:
        out.append(text[tokens[end - 1][1] :])
    return "".join(out)


def _query_sql(
    query: str,
) -> tuple[str | None, str | None, list[Any], list[tuple[tuple[str, ...], bool]]]:
    """``query`` as SQL: (the FTS5 MATCH expression, or None when no word is sought; the
    filters' condition on ``e`` (entries), or None when there is nothing to find at all;
    their parameters; the phrases a snippet marks)."""
    parsed = parse_query(query)
    if len(parsed.filters) + len(parsed.terms) > MAX_QUERY_PARTS:
        raise QueryTooLarge(len(parsed.filters) + len(parsed.terms))
    where: list[str] = []
    params: list[Any] = []
    for f in parsed.filters:
        cond, args = _filter_sql(f)
        where.append(f"NOT ({cond})" if f.negated else cond)
        params += args
    terms = parsed.terms
    positive = [t for t in terms if not t.negated]
    parts = []
    phrases: list[tuple[tuple[str, ...], bool]] = []  # what a snippet marks
    for i, term in enumerate(terms):
        neg = term.negated
        words = re.findall(r"\w+", term.text)
        if not words:
            continue
        fts = _fts_phrase(" ".join(words))
        is_last = i == len(terms) - 1 and not term.quoted
        if is_last and not neg:
            fts += "*"
        if not neg and (found := _phrase(" ".join(words), prefix=is_last)):
            phrases.append(found)
        parts.append(("NOT " if neg else "") + fts)
    cond_sql = " AND ".join(where) if where else "1"
    if parts and positive:
        # FTS5's NOT is binary: the positive words go first, the exclusions after.
        match = " ".join(sorted(parts, key=lambda p: p.startswith("NOT ")))
        return match, cond_sql, params, phrases
    return None, (cond_sql if where else None), params, phrases


class SearchQueries(IndexConnection):
    """Search, and the entries that name an entry without linking to it."""

    def search(self, query: str, limit: int = 50, offset: int = 0) -> list[SearchHit]:
        """Full-text search over title, aliases, tags and body, best first, with snippets;
        the ``limit`` results after the first ``offset`` (a page: :meth:`search_total`
        counts them all).

        ``tag:x`` (also matches nested ``x/…``), ``kind:x``, ``status:x``, ``path:x``,
        ``folder:x`` and ``[key:value]`` filter (:mod:`anthology.vault.query`); a ``-``
        before a filter or a word excludes it; ``"quoted words"`` is a phrase; the last
        word also matches as a prefix, so results come while typing.

        :class:`~anthology.vault.query.QueryTooLarge` for more than
        :data:`~anthology.vault.query.MAX_QUERY_PARTS` filters and words.
        """
        match, cond_sql, params, phrases = _query_sql(query)
        with self._lock:
            if match is not None:
                w = SNIPPET_WINDOW
                try:
                    # Rank over the whole text; then, for the ``limit`` best only, a bounded
                    # head of each column, from which the snippet is cut. Ties go by id, so
                    # pages do not overlap.
                    rows = self.conn.execute(
                        "SELECT e.id, e.title, e.path, e.kind, r.rank, substr(f.body, 1, ?), "
                        "substr(f.title, 1, ?), substr(f.aliases, 1, ?), substr(f.tags, 1, ?) "
                        "FROM (SELECT entries_fts.rowid AS rid, e.id AS eid_text, "
                        " bm25(entries_fts, 10.0, 5.0, 3.0, 1.0) AS rank FROM entries_fts"
                        " JOIN entries e ON e.eid = entries_fts.rowid"
                        f" WHERE entries_fts MATCH ? AND {cond_sql} ORDER BY rank, e.id"
                        " LIMIT ? OFFSET ?) r "
                        "JOIN entries e ON e.eid = r.rid JOIN entries_fts f ON f.rowid = r.rid "
                        "ORDER BY r.rank, r.eid_text",
                        [w, w, w, w, match, *params, limit, offset],
                    ).fetchall()
                except sqlite3.OperationalError:
                    rows = []
                return [
                    SearchHit(EntryRef(i, t, p), k or "", _cut_snippet(list(cols), phrases, w), -r)
                    for i, t, p, k, r, *cols in rows
                ]
            if cond_sql is None:
                return []
            rows = self.conn.execute(
                "SELECT e.id, e.title, e.path, e.kind, substr(f.body, 1, 160) FROM entries e "
                f"JOIN entries_fts f ON f.rowid = e.eid WHERE {cond_sql} ORDER BY e.id "
                "LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
            return [
                SearchHit(EntryRef(i, t, p), k or "", " ".join(s.split()), 0.0)
                for i, t, p, k, s in rows
            ]

    def search_total(self, query: str) -> int:
        """How many entries :meth:`search` finds for ``query`` in all (its pages summed)."""
        match, cond_sql, params, _phrases = _query_sql(query)
        with self._lock:
            try:
                if match is not None:
                    row = self.conn.execute(
                        "SELECT count(*) FROM entries_fts JOIN entries e "
                        "ON e.eid = entries_fts.rowid "
                        f"WHERE entries_fts MATCH ? AND {cond_sql}",
                        [match, *params],
                    ).fetchone()
                elif cond_sql is not None:
                    row = self.conn.execute(
                        f"SELECT count(*) FROM entries e WHERE {cond_sql}", params
                    ).fetchone()
                else:
                    return 0
            except sqlite3.OperationalError:
                return 0
            return int(row[0])

    def unlinked_mentions(self, entry_id: str, limit: int = 50) -> list[SearchHit]:
        """Entries whose text names this entry's title or an alias without linking to it.

        A name counts only in prose: not inside code, a comment, a link's text or a URL
        (``obsidian-help`` in a GitHub address is no mention). Full-text search finds the
        candidates; each is then read (its first :data:`SNIPPET_WINDOW` characters) for a
        mention in prose, so up to :data:`MENTION_CANDIDATES` times ``limit`` are ranked."""
        ref = self.entry_ref(entry_id)
        if ref is None:
            return []
        rows = self._q("SELECT aliases FROM entries WHERE id = ?", (ref.id,))
        names = [ref.title, *json.loads(rows[0][0] or "[]")]
        if "/" not in ref.id and ref.id != ref.title:
            names.append(ref.id)
        names = [n for n in dict.fromkeys(n.strip() for n in names) if len(n) >= 3]
        if not names:
            return []
        query = " OR ".join(f"body : {_fts_phrase(n)}" for n in names)
        phrases = [p for n in names if (p := _phrase(n))]
        with self._lock:
            try:
                # Rank at most MENTION_ROWS matching rows, then read a bounded head of the
                # bodies of the best candidates to find a mention in prose and its snippet.
                found = self.conn.execute(
                    "SELECT e.id, e.title, e.path, e.kind, r.score, "
                    f"substr(f.body, 1, {SNIPPET_WINDOW}) FROM ("
                    " SELECT m.rid, m.score FROM ("
                    "  SELECT rowid AS rid, bm25(entries_fts) AS score FROM entries_fts"
                    "  WHERE entries_fts MATCH ? LIMIT ?) m"
                    " JOIN entries e ON e.eid = m.rid WHERE e.id != ? AND e.eid NOT IN"
                    " (SELECT source FROM links"
                    "  WHERE target = (SELECT eid FROM entries WHERE id = ?))"
                    " ORDER BY m.score LIMIT ?) r "
                    "JOIN entries e ON e.eid = r.rid JOIN entries_fts f ON f.rowid = r.rid "
                    "ORDER BY r.score",
                    (query, MENTION_ROWS, ref.id, ref.id, limit * MENTION_CANDIDATES),
                ).fetchall()
            except sqlite3.OperationalError:  # also: interrupted (see :meth:`interrupt`)
                return []
        hits: list[SearchHit] = []
        for i, t, p, k, b, body in found:
            cut_off = len(body) >= SNIPPET_WINDOW
            snippet = mention_snippet(body, phrases, cut_off=cut_off)
            if snippet is None:
                if not cut_off:  # read whole: the name is only in code, links or URLs
                    continue
                # The mention is past the head read; the snippet shows the head.
                snippet = _cut_snippet([body], phrases, SNIPPET_WINDOW)
            hits.append(SearchHit(EntryRef(i, t, p), k or "", snippet, -b))
            if len(hits) == limit:
                break
        return hits
