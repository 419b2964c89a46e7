"""Related entries: the entries most alike in words to one entry, asked of the full-text
index itself (SQLite FTS5), with no model and nothing fetched.

How it ranks (the README says it in a paragraph):

1. **The entry's terms.** Its title, aliases and tags (each word counted
   :data:`TITLE_WEIGHT` times) and its body's prose, the first :data:`TEXT_READ` characters:
   code, comments, URLs, link destinations, embeds, HTML tags and inline-field keys
   (``key::``) are blanked, a link counts by the words it shows. Words are cut and folded as
   FTS5's ``unicode61`` tokenizer does. Stop words, numbers (and words half digits: dates,
   hashes), one-letter words and runs past :data:`LONGEST_TERM` characters are no terms.
2. **How many entries hold each term** (its document frequency, ``df``), counted by FTS5
   up to :func:`common_cap` of them: a term in more entries is boilerplate for this vault
   (in most notes) and is never asked; one in no other entry relates nothing. Counting
   stops at the cap, so a common word costs what a rare one does.
3. **Template text.** A line of the entry (2 to :data:`TEMPLATE_LINE_WORDS` words) holding
   one of the likely terms and found word for word in :data:`TEMPLATE_NOTES` other entries
   is a template's (a heading every note of a kind repeats, a form's labels), as is a
   one-word heading whose word is in as many: its words do not count.
4. **Ranking.** The :data:`QUERY_TERMS` terms of highest TF-IDF, ``(1 + ln tf) · ln(N / df)``,
   are asked as one FTS5 ``OR`` query ranked by ``bm25()`` with the search's column weights
   (title 10, aliases 5, tags 3, body 1). The first :data:`CANDIDATES` hits are split into
   entries not linked yet and those already linked (a link either way, typed or not); each
   keeps the asked terms it holds, rarest first, which explain it.

Answers are kept per state of the index (:meth:`RelatedQueries.related`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from anthology.vault.connection import IndexConnection
from anthology.vault.links import MDLINK_RE, URL_RE, WIKILINK_RE, split_wikilink
from anthology.vault.masking import mask_code
from anthology.vault.model import EntryRef
from anthology.vault.search import TOKEN_RE, fold_token

TEXT_READ = 100_000  # characters of a body read for its terms (a 1 MB note: its head)
TITLE_WEIGHT = 3  # a word of the title, an alias or a tag counts as this many in the body
TERMS_READ = 200  # the most frequent terms of an entry whose df is counted
QUERY_TERMS = 12  # the terms asked of FTS5
TITLE_TERMS = 3  # of which the title's terms first, at most these
CANDIDATES = 60  # the hits read, then split into not linked / linked
SHOWN = 12  # rows kept of each kind
SHOWN_TERMS = 4  # shared terms that explain a row
LONGEST_TERM = 40
# A term in more than COMMON_SHARE of the entries (at least COMMON_FLOOR, at most
# COMMON_CAP entries) is in "most notes": never asked. The cap bounds what counting costs.
COMMON_SHARE = 0.5
COMMON_FLOOR = 4
COMMON_CAP = 1000
# A line found word for word in this many other entries is template text.
TEMPLATE_NOTES = 4
TEMPLATE_LINE_WORDS = 30
TEMPLATE_LINES = 40  # lines checked an entry (those holding its likely terms)
DF_CACHE_SIZE = 200_000  # terms whose df is kept (dropped when the index changes)
RESULT_CACHE_SIZE = 64

# Frequent English words that say nothing of a topic: function words and the commonest
# verbs, nouns and adjectives of any prose ("knows", "reader", "section" made a paper's
# terms in a 133-note vault, where every word is rare). Any other language's are found by
# their df (a word in most notes is never asked); these save counting them, and keep a
# small vault's chance words out.
_STOP_TEXT = """a able about above according across actually after afterwards again against ago all
    almost alone along already also although always am among an and another any anybody
    anyhow anyone anything anyway anywhere apart appear are around as aside ask asked asks
    at available away back be became because become becomes been before beforehand behind
    being believe below beside besides best better between beyond both brief but by call
    called came can cannot cant case cases certain certainly clear clearly come comes
    consider could course currently did different do does doing done down during each early
    easily either else elsewhere enough entirely especially etc even ever every everybody
    everyone everything everywhere exactly example except fact far few find finds first
    five follow followed following follows for former formerly found four from further
    furthermore gave get gets getting give given gives go goes going gone good got great
    had happens hardly has have having he hence her here hereafter hereby herein hers
    herself him himself his hither how however i ie if in indeed instead into inward is it
    its itself just keep keeps kept know known knows last late later latter least less lest
    let like liked likely little look looking looks lot made main mainly make makes making
    many may maybe me mean means meanwhile merely might mine more moreover most mostly much
    must my myself namely near nearly need needs neither never nevertheless new next nine
    no nobody none noone nor normally not nothing now nowhere obviously of off often oh ok
    okay old on once one ones only onto or other others otherwise ought our ours ourselves
    out outside over overall own particular particularly per perhaps please put quite
    rather really reason reasonably regarding regardless right said same saw say saying
    says see seeing seem seemed seeming seems seen sent serious several shall she should
    show showed shown shows since six so some somebody somehow someone something sometime
    sometimes somewhat somewhere soon sorry still such sure take taken takes taking tell
    tells than thank thanks that thats the their theirs them themselves then thence there
    thereafter thereby therefore therein thereupon these they thing things think this
    thorough thoroughly those though three through throughout thru thus time times to
    together too took toward towards tried tries truly try trying turn twice two under
    unless until unto up upon us use used useful uses using usually various very via viz vs
    want wants was way ways we well went were what whatever when whence whenever where
    whereafter whereas whereby wherein whereupon wherever whether which while whither who
    whoever whole whom whose why will with within without wonder would yes yet you your
    yours yourself yourselves"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

_EMBED_RE = re.compile(r"!\[\[[^\[\]\n]*\]\]")
_AUTOLINK_RE = re.compile(r"<[a-zA-Z][\w+.\-]*:[^\s<>]*>")
_WWW_RE = re.compile(r"(?<![\w./])www\.[^\s<>()\[\]]+")
_TAG_HTML_RE = re.compile(r"</?[a-zA-Z][^<>\n]{0,400}>")
# ``key:: value`` (Dataview's inline fields), at a line's start or in [brackets]/(parens):
# the key is the vault's, not the note's words. Bounded: no run is scanned twice.
_FIELD_RE = re.compile(r"(^|[\[(])[ \t]*(?:[-*+][ \t]+)?[^\[\]()\n:]{1,60}::", re.M)


@dataclass(frozen=True)
class RelatedEntry:
    """One related entry: which, how close (FTS5's bm25, higher is closer), and the
    asked terms it shares with the entry, rarest first."""

    ref: EntryRef
    terms: tuple[str, ...]
    score: float


@dataclass(frozen=True)
class RelatedEntries:
    """The entries related to ``entry_id``: those it does not link to yet (nor they to it)
    and those already linked, best first; ``terms``: what was asked, most distinctive
    first. ``reason`` says why there are none (when there are none); ``notes`` what was
    left out of the entry's own words (template lines, all past :data:`TEXT_READ`)."""

    entry_id: str
    unlinked: tuple[RelatedEntry, ...] = ()
    linked: tuple[RelatedEntry, ...] = ()
    terms: tuple[str, ...] = ()
    reason: str = ""
    notes: tuple[str, ...] = field(default=())


def common_cap(entries: int) -> int:
    """The most entries a term may be in and still be asked (see :data:`COMMON_SHARE`)."""
    return min(COMMON_CAP, max(COMMON_FLOOR, math.ceil(COMMON_SHARE * entries)))


def is_term(word: str) -> bool:
    """Whether a folded token can be a term: not a stop word, a number, a word half
    digits, one letter, nor a run past :data:`LONGEST_TERM` characters."""
    if len(word) < 2 or len(word) > LONGEST_TERM or word in STOP_WORDS:
        return False
    digits = sum(c.isdigit() for c in word)
    return digits * 2 < len(word)


def _link_words(m: re.Match[str]) -> str:
    target, _heading, _block, alias = split_wikilink(m.group(2))
    return " " + (alias or target.rsplit("/", 1)[-1]) + " "


def prose(body: str) -> str:
    """``body`` with what is not the note's own words blanked (see the module's step 1),
    every newline kept: line ``i`` of the result is line ``i`` of ``body``."""
    text = mask_code(body)
    if "[[" in text:
        text = _EMBED_RE.sub(" ", text)
        text = WIKILINK_RE.sub(_link_words, text)
    if "](" in text:
        text = MDLINK_RE.sub(lambda m: " " if m.group(1) else f" {m.group(2)} ", text)
    if "://" in text:
        text = URL_RE.sub(" ", text)
    if "<" in text:
        text = _AUTOLINK_RE.sub(" ", text)
        text = _TAG_HTML_RE.sub(" ", text)
    if "www." in text:
        text = _WWW_RE.sub(" ", text)
    if "::" in text:
        text = _FIELD_RE.sub(r"\1 ", text)
    return text


def terms_of(text: str) -> list[str]:
    """The terms of ``text``, in order (folded as FTS5 folds them)."""
    return [w for w in (fold_token(t) for t in TOKEN_RE.findall(text)) if is_term(w)]


def _fts_term(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class _State:
    """What is kept for one state of the index: entry count, terms' df, answers."""

    def __init__(self, key: tuple[int, object]) -> None:
        self.key = key
        self.entries: int | None = None
        self.df: dict[str, int] = {}
        self.answers: dict[str, RelatedEntries] = {}


class RelatedQueries(IndexConnection):
    """The entries related to an entry by the words they share (see the module)."""

    _related_state: _State | None = None

    def _related_kept(self) -> _State:
        # A refresh on this very connection does not move data_version: its report does.
        key = (self.generation, getattr(self, "last_report", None))
        state = self._related_state
        if state is None or state.key[0] != key[0] or state.key[1] is not key[1]:
            state = self._related_state = _State(key)
        return state

    def related(self, entry_id: str, limit: int = SHOWN) -> RelatedEntries | None:
        """The entries most alike in words to ``entry_id`` (None: no such entry), split
        into not linked yet and already linked, at most ``limit`` of each; kept until the
        index changes. Interrupted (:meth:`interrupt`), it raises ``sqlite3.OperationalError``."""
        state = self._related_kept()
        key = f"{entry_id.casefold()}\0{limit}"
        hit = state.answers.get(key)
        if hit is not None:
            return hit
        with self._lock:
            found = self._find_related(state, entry_id, limit)
        if found is not None:
            if len(state.answers) >= RESULT_CACHE_SIZE:
                state.answers.clear()
            state.answers[key] = found
        return found

    # -- the steps ------------------------------------------------------------------------
    def _find_related(self, state: _State, entry_id: str, limit: int) -> RelatedEntries | None:
        row = self.conn.execute(
            "SELECT e.eid, e.id, f.title, f.aliases, f.tags, substr(f.body, 1, ?), "
            "length(f.body) FROM entries e JOIN entries_fts f ON f.rowid = e.eid "
            "WHERE e.id = ? COLLATE NOCASE ORDER BY e.id = ? DESC LIMIT 1",
            (TEXT_READ, entry_id, entry_id),
        ).fetchone()
        if row is None:
            return None
        eid, found_id, title, aliases, tags, body, body_chars = row
        if state.entries is None:
            state.entries = self.conn.execute("SELECT count(*) FROM entries").fetchone()[0]
        n = state.entries or 1
        cap = common_cap(n)
        notes: list[str] = []
        if (body_chars or 0) > TEXT_READ:
            notes.append(f"all past its first {TEXT_READ:,} characters")

        raw_lines = (body or "").split("\n")
        clean_lines = prose(body or "").split("\n")
        line_terms = [terms_of(line) for line in clean_lines]
        head = Counter(terms_of(" ".join(x or "" for x in (title, aliases, tags))))
        tf: Counter[str] = Counter()
        for terms in line_terms:
            tf.update(terms)
        for term, count in head.items():
            tf[term] += count * TITLE_WEIGHT
        if not tf:
            return RelatedEntries(found_id, reason=_too_few(0), notes=tuple(notes))

        read = [t for t, _c in tf.most_common(TERMS_READ)]
        df = self._document_counts(state, read, cap)
        kept = {t: df[t] for t in read if 2 <= df[t] <= cap}

        def ranked(counts: Counter[str]) -> list[str]:
            score = {t: (1 + math.log(c)) * math.log(n / kept[t])
                     for t, c in counts.items() if c > 0 and t in kept}  # fmt: skip
            return sorted(score, key=lambda t: (-score[t], t))

        likely = ranked(tf)[: 2 * QUERY_TERMS]
        template = self._template_lines(eid, raw_lines, line_terms, set(likely), df)
        if template:
            for i in template:
                tf.subtract(line_terms[i])
            n_lines = len(template)
            notes.append(f"{n_lines} line{'s' if n_lines != 1 else ''} of template text "
                         f"(each in {TEMPLATE_NOTES} other entries or more)")  # fmt: skip
        # The title names the topic: its terms are asked first (at most TITLE_TERMS).
        by_score = ranked(tf)
        named = set(terms_of(title or ""))
        first = [t for t in by_score if t in named][:TITLE_TERMS]
        asked = first + [t for t in by_score if t not in first][: QUERY_TERMS - len(first)]
        if not asked:
            return RelatedEntries(found_id, reason=_nothing_distinctive(tf, df, cap, template),
                                  notes=tuple(notes))  # fmt: skip
        return self._rank(found_id, eid, asked, len(first), kept, limit, notes)

    def _document_counts(self, state: _State, terms: list[str], cap: int) -> dict[str, int]:
        """Each term's df, counted up to ``cap + 1`` (more is "common": no need to know how
        many); kept for the state of the index."""
        known = state.df
        if len(known) > DF_CACHE_SIZE:
            known.clear()
        execute = self.conn.execute
        for term in terms:
            if term not in known:
                known[term] = execute(
                    "SELECT count(*) FROM (SELECT 1 FROM entries_fts WHERE entries_fts MATCH ? "
                    "LIMIT ?)",
                    (_fts_term(term), cap + 1),
                ).fetchone()[0]
        return {t: known[t] for t in terms}

    def _template_lines(
        self,
        eid: int,
        raw: list[str],
        line_terms: list[list[str]],
        likely: set[str],
        df: dict[str, int],
    ) -> list[int]:
        """The lines (by number) of the entry holding a likely term that other entries
        repeat word for word (see the module's step 3). A heading of one word (``##
        Highlights``) cannot be looked for as a line: it is a template's when its word is in
        :data:`TEMPLATE_NOTES` other entries."""
        checked: dict[str, bool] = {}
        found: list[int] = []
        for i, terms in enumerate(line_terms):
            if not likely.intersection(terms):
                continue
            words = [fold_token(w) for w in TOKEN_RE.findall(raw[i])]
            if len(words) == 1 and raw[i].lstrip().startswith("#"):
                if df.get(words[0], 0) > TEMPLATE_NOTES:
                    found.append(i)
                continue
            if not 2 <= len(words) <= TEMPLATE_LINE_WORDS:
                continue
            phrase = " ".join(words)
            if phrase not in checked:
                if len(checked) >= TEMPLATE_LINES:
                    continue
                others = self.conn.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM entries_fts WHERE entries_fts MATCH ? "
                    "AND rowid != ? LIMIT ?)",
                    (_fts_term(phrase), eid, TEMPLATE_NOTES),
                ).fetchone()[0]
                checked[phrase] = others >= TEMPLATE_NOTES
            if checked[phrase]:
                found.append(i)
        return found

    def _rank(
        self,
        entry_id: str,
        eid: int,
        asked: list[str],
        named: int,
        df: dict[str, int],
        limit: int,
        notes: list[str],
    ) -> RelatedEntries:
        execute = self.conn.execute
        hits = execute(
            "SELECT rowid, bm25(entries_fts, 10.0, 5.0, 3.0, 1.0) AS score FROM entries_fts "
            "WHERE entries_fts MATCH ? AND rowid != ? ORDER BY score LIMIT ?",
            (_query(asked, named), eid, CANDIDATES),
        ).fetchall()
        ids = [rid for rid, _s in hits]
        if not ids:
            reason = "No other entry shares its distinctive words."
            return RelatedEntries(entry_id, terms=tuple(asked), reason=reason, notes=tuple(notes))
        marks = ",".join("?" * len(ids))
        # The asked terms each hit holds: each term's entries, read whole (it is in at most
        # common_cap of them; "rowid IN (hits)" made FTS5 walk each doclist 60 times).
        holds: dict[int, list[str]] = {rid: [] for rid in ids}
        for term in sorted(asked, key=lambda t: (df[t], t)):  # rarest first
            for (rid,) in execute(
                "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? LIMIT ?",
                (_fts_term(term), df[term] + 1),
            ):
                if rid in holds:
                    holds[rid].append(term)
        linked = {r for (r,) in execute(
            f"SELECT target FROM links WHERE source = ? AND target IN ({marks}) "
            f"UNION SELECT source FROM links WHERE target = ? AND source IN ({marks})",
            (eid, *ids, eid, *ids))}  # fmt: skip
        refs = {r[0]: EntryRef(r[1], r[2], r[3]) for r in execute(
            f"SELECT eid, id, title, path FROM entries WHERE eid IN ({marks})", ids)}  # fmt: skip
        rows: dict[bool, list[RelatedEntry]] = {True: [], False: []}
        for rid, score in hits:
            if rid in refs and len(rows[rid in linked]) < limit:
                item = RelatedEntry(refs[rid], tuple(holds[rid][:SHOWN_TERMS]), -score)
                rows[rid in linked].append(item)
        return RelatedEntries(entry_id, tuple(rows[False]), tuple(rows[True]), tuple(asked),
                              notes=tuple(notes))  # fmt: skip


def _query(asked: list[str], named: int) -> str:
    """The FTS5 query of the ``asked`` terms; each of the first ``named`` (the title's
    terms) is asked a second time in titles alone: bm25() sums over the query's phrases,
    and a term's idf among titles is its own (a vault's topic word, in half its notes, has
    next to none over whole notes but names few titles), so entries titled alike rise."""
    phrases = [_fts_term(t) for t in asked]
    phrases += [f"title : {_fts_term(t)}" for t in asked[:named]]
    return " OR ".join(phrases)


def _too_few(words: int) -> str:
    return ("Too few words to compare: no words of its own outside links, code and numbers."
            if not words else f"Too few words to compare ({words}).")  # fmt: skip


def _nothing_distinctive(
    tf: Counter[str], df: dict[str, int], cap: int, template: list[int]
) -> str:
    """Why none of an entry's words was asked."""
    own = [t for t, c in tf.items() if c > 0]
    if not own and template:
        return ("Its text is template text, found word for word in other entries: "
                "nothing of its own to compare.")  # fmt: skip
    if not own:
        return _too_few(0)
    common = sum(1 for t in own if df.get(t, 0) > cap)
    alone = sum(1 for t in own if df.get(t, 0) == 1)
    if common and not alone:
        return (f"None of its words tells it apart: each is in more than {cap:,} entries "
                "(a common word in this vault).")  # fmt: skip
    if alone and not common:
        return "No other entry shares its words."
    return (
        f"None of its words tells it apart: {common:,} are in more than {cap:,} entries, "
        f"{alone:,} in no other entry."
    )


__all__ = [
    "RelatedEntries",
    "RelatedEntry",
    "RelatedQueries",
    "common_cap",
    "is_term",
    "prose",
    "terms_of",
]
