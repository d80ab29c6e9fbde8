"""Keyword search over one owner's memories, on the database's own full-text engine.

Why this shape:
- The query text is whatever a person typed, so it is never handed to the engine's query
  language. It is reduced to plain word tokens (letters and digits only), stop words and
  question words are dropped, and every remaining token is quoted: FTS5 operators (AND, OR,
  NOT, NEAR, *, ^, column filters), quotes, emoji, control characters and 10 KB pastes are
  all just text, or nothing.
- Terms are OR-ed, not AND-ed: a chat question shares only some words with the memory that
  answers it ("where did I go hiking?" vs "Went up Snowdon with the kids"), and BM25 / ts_rank
  reward memories that match more and rarer terms anyway.
- Every query is scoped by owner twice on SQLite (the FTS5 owner tag inside MATCH, and the
  owner_id of the joined memory row), and by owner_id on PostgreSQL.

`fts_query` and `query_terms` are pure; `keyword_search` does one SELECT.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from collections.abc import Callable, Sequence
from datetime import date, datetime, timezone
from typing import Any

import sqlalchemy as sa

from bot.storage.search_text import emoji_words, has_unspaced, run_grams, split_unspaced

__all__ = [
    "COMMON_TERM_MIN_COUNT",
    "COMMON_TERM_SHARE",
    "MAX_QUERY_TERMS",
    "STOP_WORDS",
    "STOP_WORDS_BASIC",
    "common_terms",
    "count_memories",
    "strip_terms",
    "term_counts",
    "timeline_around",
    "timeline_rows",
    "memory_rows",
    "predecessor_rows",
    "vector_query_text",
    "fts_match",
    "fts_query",
    "keyword_search",
    "LIVE_SQL",
    "pg_tsquery",
    "query_terms",
]

_MAX_TIMELINE_IDS = 400  # far more candidates than recall ever asks about
MAX_QUERY_TERMS = 32  # a long paste is cut to its first 32 distinct content words
MAX_TERM_CHARS = 48  # longer "words" are noise (hashes, base64); they never help recall
_MAX_SCAN_CHARS = 20_000  # only the start of a huge text is looked at
# what PostgreSQL's index is built on (bot/storage/schema.py): the search form when there is one
PG_SEARCH_TEXT = "coalesce(search_text, text)"

# English stop words: auxiliaries, pronouns, question words ("what", "when") and contraction
# fragments ("don't" -> "don", "t"). None of them says what a memory is about.
STOP_WORDS_BASIC: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are aren as at be because been
    being below between both but by can cannot could couldn d did didn do does doesn doing don
    down during each few for from further had hadn has hasn have haven having he her here hers
    herself him himself his how i if in into is isn it its itself just ll m me might more most
    must mustn my myself no nor not now o of off on once only or other ought our ours ourselves
    out over own re s same shall shan she should shouldn so some such t than that the their
    theirs them themselves then there these they this those through to too under until up upon
    us ve very was wasn we were weren what when where which while who whom whose why will with
    won would wouldn y you your yours yourself yourselves
    """.split()
)
# ... plus request words that never say what a memory is about ("tell me what you remember
# about my dog"). Verbs such as go/went/make/say stay searchable: in conversation they carry
# the topic ("went camping"), and dropping them measured worse on LoCoMo.
STOP_WORDS: frozenset[str] = STOP_WORDS_BASIC | frozenset(
    "tell remind remember please know anything something thing things stuff".split()
)

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def query_terms(text: str, max_terms: int = MAX_QUERY_TERMS) -> list[str]:
    """The searchable words of `text`: lower-cased, NFKC-normalised, stop words dropped.

    Distinct, in order of first appearance, at most `max_terms`. Single characters are dropped
    unless they are digits ("3 kids") or a word of a script written without spaces. A run of
    Chinese, Japanese or Korean characters is searched by its character pairs ("我住在柏林" ->
    我住, 住在, 在柏, 柏林), which the index holds beside the text (bot/storage/search_text.py);
    emoji by the words of their names ("🐶" -> dog). Only letters and digits survive, so a term
    can be quoted for FTS5 or PostgreSQL without any further escaping.
    """
    if not text:
        return []
    norm = unicodedata.normalize("NFKC", text[:_MAX_SCAN_CHARS]).casefold()
    out: list[str] = []
    seen: set[str] = set()

    def add(tok: str, *, short_ok: bool = False) -> bool:
        if len(tok) > MAX_TERM_CHARS or tok in STOP_WORDS or tok in seen:
            return False
        if len(tok) == 1 and not (tok.isdigit() or short_ok):
            return False
        seen.add(tok)
        out.append(tok)
        return len(out) >= max_terms

    for tok in _TOKEN.findall(norm):
        if not has_unspaced(tok):
            if add(tok):
                return out
            continue
        for unspaced, run in split_unspaced(tok):
            for term in run_grams(run, unigrams=False) if unspaced else [run]:
                if add(term, short_ok=unspaced):
                    return out
    for word in emoji_words(norm):
        if add(word):
            return out
    return out


def _quote_fts(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def fts_query(text: str, max_terms: int = MAX_QUERY_TERMS) -> str | None:
    """An FTS5 expression OR-ing the quoted terms of `text`; None when nothing is searchable.

    Example: 'What did I eat in "Rome" OR NEAR(x)?' -> '"eat" OR "rome" OR "near"'.
    It is meant to sit inside a column filter: `text : (<this>)`.
    """
    terms = query_terms(text, max_terms)
    if not terms:
        return None
    return " OR ".join(_quote_fts(t) for t in terms)


def fts_match(owner_id: int, text: str, max_terms: int = MAX_QUERY_TERMS) -> str | None:
    """The full MATCH string for one owner: the owner tag AND any of the terms."""
    expr = fts_query(text, max_terms)
    if expr is None:
        return None
    return f'owner_tag : "o{int(owner_id)}" AND text : ({expr})'


def pg_tsquery(text: str, max_terms: int = MAX_QUERY_TERMS) -> str | None:
    """A to_tsquery() input OR-ing the quoted terms; None when nothing is searchable.

    Terms are letters and digits only, so single-quoting them is enough; PostgreSQL then stems
    them and drops its own stop words.
    """
    terms = query_terms(text, max_terms)
    if not terms:
        return None
    return " | ".join(f"'{t}'" for t in terms)


# ------------------------------------------------------------------------------ common words
# A word found in more than a fifth of a person's memories says nothing about which memory a
# question is after (typically a name that starts every memory, as in LoCoMo's "Caroline: ...").
# Left in the question it pulls the question's embedding towards all of those memories; taken
# out, recall@8 on LoCoMo rose by 0.02-0.03 on both halves (the share hardly matters: 0.1 to
# 0.45 gave the same). The absolute minimum keeps small memories untouched: with 12 memories,
# a word in 4 of them is still a topic, not background.
COMMON_TERM_SHARE = 0.2
COMMON_TERM_MIN_COUNT = 20


def common_terms(counts: dict[str, int], total: int, max_share: float = COMMON_TERM_SHARE,
                 min_count: int = COMMON_TERM_MIN_COUNT) -> set[str]:
    """Terms present in more than `max_share` of `total` memories and in at least `min_count`."""
    if total <= 0:
        return set()
    return {t for t, n in counts.items() if n >= min_count and n > max_share * total}


def strip_terms(text: str, drop: set[str]) -> str:
    """`text` without the whitespace-separated words that contain a term of `drop`.

    "What did Caroline's group do?" minus {"caroline"} -> "What did group do?". Words are
    matched the way query_terms reads them (NFKC, case-folded letters and digits).
    """
    if not drop:
        return text
    kept = []
    for word in text.split():
        tokens = _TOKEN.findall(unicodedata.normalize("NFKC", word).casefold())
        if not any(tok in drop for tok in tokens):
            kept.append(word)
    return " ".join(kept)


def vector_query_text(text: str, counts: dict[str, int], total: int) -> str:
    """What to embed for the vector side of recall: the message without the owner's common
    words; the message itself when nothing would be left."""
    stripped = strip_terms(text, common_terms(counts, total))
    return stripped if query_terms(stripped) else text


def term_counts(conn: sa.Connection, owner_id: int, terms: list[str],
                dialect: str) -> tuple[dict[str, int], int]:
    """(memories of the owner containing each term, memories of the owner), in one query.

    Counts come from the full-text index, so they follow its stemming; they may include
    archived memories and deletes waiting for the purge, which is fine for a share.
    """
    terms = [t for t in terms if t][:MAX_QUERY_TERMS]
    owner = int(owner_id)
    params: dict[str, object] = {"owner": owner}
    if dialect == "sqlite":
        parts = ["SELECT '' AS term, count(*) FROM memory WHERE owner_id = :owner"]
        for i, term in enumerate(terms):
            params[f"m{i}"] = f'owner_tag : "o{owner}" AND text : {_quote_fts(term)}'
            parts.append(f"SELECT :t{i}, count(*) FROM memory_fts WHERE memory_fts MATCH :m{i}")
            params[f"t{i}"] = term
    elif dialect in ("postgresql", "postgres"):
        parts = ["SELECT '' AS term, count(*) FROM memory WHERE owner_id = :owner"]
        for i, term in enumerate(terms):
            params[f"q{i}"] = f"'{term}'"
            params[f"t{i}"] = term
            parts.append(
                f"SELECT CAST(:t{i} AS TEXT), count(*) FROM memory WHERE owner_id = :owner "
                f"AND to_tsvector('english', {PG_SEARCH_TEXT}) @@ to_tsquery('english', :q{i})")
    else:
        raise ValueError(f"keyword search does not support the {dialect!r} dialect")
    sql = " UNION ALL ".join(parts)
    rows = sqlite_rows(conn, sql, params) if dialect == "sqlite" else conn.execute(sa.text(sql), params).all()
    counts = {str(r[0]): int(r[1]) for r in rows}
    total = counts.pop("", 0)
    return counts, total


def count_memories(conn: sa.Connection, owner_id: int, cap: int) -> int:
    """How many memories the owner has (any state, as term_counts' total), counted only up to
    `cap`: the answer is exact below it and `cap` at or above it, at the cost of `cap` index
    entries rather than all of them."""
    stmt = "SELECT count(*) FROM (SELECT 1 FROM memory WHERE owner_id = :owner LIMIT :cap) AS capped"
    params = {"owner": int(owner_id), "cap": max(0, int(cap))}
    if conn.dialect.name == "sqlite":
        return int(sqlite_rows(conn, stmt, params)[0][0])
    return int(conn.execute(sa.text(stmt), params).scalar() or 0)


_SQLITE_SQL = sa.text(
    """
    SELECT m.id, -bm25(memory_fts, 0.0, 1.0) AS score
    FROM memory_fts JOIN memory AS m ON m.id = memory_fts.rowid
    WHERE memory_fts MATCH :match
      AND m.owner_id = :owner
      AND m.status != 'deleted' AND m.deleted_at IS NULL
      AND (:archived OR NOT m.archived)
    ORDER BY bm25(memory_fts, 0.0, 1.0), m.id
    LIMIT :limit
    """
)

# The same, ranking first inside the full-text index and reading only the best `k` memory rows
# to filter them (the query above reads the row of every match before sorting, which grows with
# the number of matches). `n` is how many matches the index gave; when it
# is `k` and fewer than `limit` survive the filter, keyword_search runs the query above instead,
# so the result is always the same.
_SQLITE_SQL_TOP = sa.text(
    """
    WITH f AS MATERIALIZED (
      SELECT rowid AS rid, -bm25(memory_fts, 0.0, 1.0) AS score FROM memory_fts
      WHERE memory_fts MATCH :match
      ORDER BY bm25(memory_fts, 0.0, 1.0), rowid
      LIMIT :k
    )
    SELECT m.id, f.score, (SELECT count(*) FROM f) AS n
    FROM f JOIN memory AS m ON m.id = f.rid
    WHERE m.owner_id = :owner
      AND m.status != 'deleted' AND m.deleted_at IS NULL
      AND (:archived OR NOT m.archived)
    ORDER BY f.score DESC, m.id
    LIMIT :limit
    """
)

_PG_SQL = sa.text(
    """
    SELECT m.id, ts_rank_cd(to_tsvector('english', coalesce(m.search_text, m.text)), q.q) AS score
    FROM memory AS m, to_tsquery('english', :tsq) AS q(q)
    WHERE m.owner_id = :owner
      AND to_tsvector('english', coalesce(m.search_text, m.text)) @@ q.q
      AND m.status != 'deleted' AND m.deleted_at IS NULL
      AND (:archived OR NOT m.archived)
    ORDER BY score DESC, m.id
    LIMIT :limit
    """
)


def keyword_search(
    conn: sa.Connection,
    owner_id: int,
    query: str,
    limit: int,
    dialect: str,
    *,
    include_archived: bool = False,
    max_terms: int = MAX_QUERY_TERMS,
) -> list[tuple[int, float]]:
    """(memory id, score) of one owner's best keyword matches, best first; higher is better.
    `max_terms`: how many distinct words of `query` are searched, in order (a pasted text is cut
    to its first 32; the conflict check searches a fact's words and then the words of its kind).

    `dialect` is the SQLAlchemy dialect name ("sqlite" or "postgresql"). Deleted memories
    (status 'deleted', or deleted_at set and waiting for the purge) are never returned;
    archived ones only when asked. An empty or stop-word-only query returns [] without
    touching the database.
    """
    if limit <= 0:
        return []
    if dialect == "sqlite":
        match = fts_match(owner_id, query, max_terms)
        if match is None:
            return []
        params = {"match": match, "owner": int(owner_id), "archived": bool(include_archived), "limit": int(limit)}
        k = 2 * int(limit)
        top = sqlite_rows(conn, _SQLITE_SQL_TOP.text, params | {"k": k})
        if len(top) >= limit or (top and int(top[0][2]) < k):
            return [(int(r[0]), float(r[1])) for r in top]
        rows = sqlite_rows(conn, _SQLITE_SQL.text, params)
    elif dialect in ("postgresql", "postgres"):
        tsq = pg_tsquery(query, max_terms)
        if tsq is None:
            return []
        rows = conn.execute(_PG_SQL, {"tsq": tsq, "owner": int(owner_id),
                                      "archived": bool(include_archived), "limit": int(limit)})
    else:
        raise ValueError(f"keyword search does not support the {dialect!r} dialect")
    return [(int(r[0]), float(r[1])) for r in rows]


# SQLite: the timeline in one statement whose text never changes (so it is prepared once and
# cached, where the portable form below is a new statement of 2 x len(ids) sub-selects each
# time, several times slower). For each candidate that is
# the owner's live memory, `lo` is its w-th live memory before and `hi` its w-th after (or
# the ends of the timeline), so the live memories in [lo, hi] are exactly the candidate and its
# w neighbours on each side; each range is an index range read on (owner_id, id) (CROSS JOIN
# keeps SQLite's planner from scanning the owner's whole timeline once per range).
# LIVE_SQL: the owner's live memories (the timeline's members).
LIVE_SQL = "owner_id = :owner AND status != 'deleted' AND deleted_at IS NULL AND NOT archived"
_SQLITE_TIMELINE = """
    WITH c(cid) AS (SELECT CAST(value AS INTEGER) FROM json_each(:ids)),
    r(lo, hi) AS MATERIALIZED (
      SELECT
        CASE WHEN :w = 0 THEN c.cid ELSE coalesce(
          (SELECT id FROM memory WHERE {live} AND id < c.cid ORDER BY id DESC LIMIT 1 OFFSET :wm1),
          -9223372036854775807) END,
        CASE WHEN :w = 0 THEN c.cid ELSE coalesce(
          (SELECT id FROM memory WHERE {live} AND id > c.cid ORDER BY id LIMIT 1 OFFSET :wm1),
          9223372036854775807) END
      FROM c
      WHERE EXISTS (SELECT 1 FROM memory WHERE id = c.cid AND {live})
    )
    SELECT DISTINCT {select} FROM r CROSS JOIN memory AS m
    WHERE m.owner_id = :owner AND m.id BETWEEN r.lo AND r.hi
      AND m.status != 'deleted' AND m.deleted_at IS NULL AND NOT m.archived
    ORDER BY m.id
    """
_sqlite_json: dict[str, bool] = {}
_sqlite_statements: dict[tuple[str, ...], tuple[str, tuple[Callable[[Any], Any] | None, ...]]] = {}


def sqlite_rows(conn: sa.Connection, sql: str, params: dict[str, object]) -> list[tuple[Any, ...]]:
    """Run one statement on the sqlite3 connection under `conn`, inside its transaction, and
    return plain tuples.

    Why: recall and saves run a few constant statements on every turn, and SQLAlchemy's
    execution and result machinery (statement cache lookup, per-row objects, a regular
    expression per datetime) cost more than the statements themselves for the few hundred rows
    a recall reads. sqlite3 prepares each text once (its own statement cache).
    Errors become SQLAlchemy's exceptions, so the storage error handling is the same.
    """
    raw = conn.connection.driver_connection
    try:
        cur = raw.execute(sql, params)  # type: ignore[union-attr]
        try:
            return cur.fetchall()
        finally:
            cur.close()
    except sqlite3.Error as exc:
        raise sa.exc.DBAPIError.instance(sql, params, exc, sqlite3.Error) from exc


def _utc(value: Any) -> datetime | None:
    """A stored datetime (SQLite text, UTC without an offset) as an aware UTC datetime, as the
    models' UTC column type returns it."""
    if value is None or isinstance(value, datetime):
        return value if value is None or value.tzinfo else value.replace(tzinfo=timezone.utc)
    return datetime.fromisoformat(value).replace(tzinfo=timezone.utc)


def _naive_dt(value: Any) -> datetime | None:
    """A stored datetime as a naive datetime, as a plain DateTime column returns it."""
    return value if value is None or isinstance(value, datetime) else datetime.fromisoformat(value)


def _day(value: Any) -> date | None:
    return value if value is None or isinstance(value, date) else date.fromisoformat(value)


def _converter(column: sa.ColumnClause) -> Callable[[Any], Any] | None:
    """How a raw SQLite value of `column` becomes what SQLAlchemy would have returned."""
    kind_of = column.type
    if isinstance(kind_of, sa.types.TypeDecorator):
        if isinstance(kind_of.impl_instance, sa.DateTime):
            return _utc  # the models' UTC datetimes (the only datetime decorator in use)
        kind_of = kind_of.impl_instance
    try:
        kind = kind_of.python_type
    except NotImplementedError:
        return None
    if kind is datetime:
        return _naive_dt
    if kind is date:
        return _day
    if kind is bool:
        return lambda v: None if v is None else bool(v)
    return None


def _sqlite_json_rows(
    conn: sa.Connection, key: tuple[str, ...], sql: Callable[[], str],
    columns: Sequence[sa.ColumnClause], params: dict[str, object],
) -> list[tuple[Any, ...]] | None:
    """Run an SQLite statement that takes its ids as one JSON parameter (`sql()` builds its text
    the first time; its text never changes, so it is prepared once), as tuples typed like
    `columns`. None when this is not SQLite or the SQLite has no JSON functions (remembered),
    so that the caller uses its portable form."""
    if conn.dialect.name != "sqlite" or not _sqlite_json.get("ok", True):
        return None
    prepared = _sqlite_statements.get(key)
    if prepared is None:
        prepared = (sql(), tuple(_converter(c) for c in columns))
        _sqlite_statements[key] = prepared
    text, converters = prepared
    try:
        rows = sqlite_rows(conn, text, params)
    except sa.exc.OperationalError as exc:  # an SQLite built without JSON: the portable form
        if "json_each" not in str(exc):
            raise
        _sqlite_json["ok"] = False
        return None
    if not any(converters):
        return rows
    pairs = [(i, f) for i, f in enumerate(converters) if f is not None]
    out = []
    for row in rows:
        values = list(row)
        for i, f in pairs:
            values[i] = f(values[i])
        out.append(tuple(values))
    return out


def timeline_rows(
    conn: sa.Connection, owner_id: int, ids: list[int], window: int, columns: Sequence[sa.ColumnClause]
) -> list[Any]:
    """The rows (with `columns`, the first of which must be the id) of the owner's live memories
    within `window` saves of any of `ids`, by id. See timeline_around."""
    ids = sorted({int(i) for i in ids})[:_MAX_TIMELINE_IDS]
    if not ids:
        return []
    w = max(0, int(window))
    names = tuple(c.name for c in columns)
    found = _sqlite_json_rows(
        conn, names, lambda: _SQLITE_TIMELINE.format(live=LIVE_SQL, select=", ".join(f"m.{n}" for n in names)),
        columns, {"owner": int(owner_id), "ids": json.dumps(ids), "w": w, "wm1": max(0, w - 1)},
    )
    if found is not None:
        return found
    parts = []
    params: dict[str, object] = {"owner": int(owner_id), "wb": w + 1, "wa": w}
    for n, mid in enumerate(ids):
        params[f"c{n}"] = mid
        # only around ids that are the owner's live memories themselves
        mine = f"EXISTS (SELECT 1 FROM memory WHERE id = :c{n} AND {LIVE_SQL})"
        parts.append(f"SELECT id FROM (SELECT id FROM memory WHERE {LIVE_SQL} AND id <= :c{n} "
                     f"AND {mine} ORDER BY id DESC LIMIT :wb) AS b{n}")
        if w:
            parts.append(f"SELECT id FROM (SELECT id FROM memory WHERE {LIVE_SQL} AND id > :c{n} "
                         f"AND {mine} ORDER BY id LIMIT :wa) AS a{n}")
    stmt = sa.text(
        f"SELECT {', '.join(names)} FROM memory WHERE owner_id = :owner AND id IN "
        f"({' UNION '.join(parts)}) ORDER BY id"
    ).columns(*columns)
    return list(conn.execute(stmt, params))


_ROWS_WHERE = "owner_id = :owner AND deleted_at IS NULL AND NOT archived"


def memory_rows(conn: sa.Connection, owner_id: int, ids: list[int], columns: Sequence[sa.ColumnClause]) -> list[Any]:
    """The rows (with `columns`) of the owner's memories among `ids` that are neither deleted nor
    archived, by id. On SQLite the ids travel as one JSON parameter, so the statement's text
    never changes and is prepared once (an IN list of ~130 ids is a new statement each time)."""
    ids = sorted({int(i) for i in ids})
    if not ids:
        return []
    select_list = ", ".join(c.name for c in columns)
    found = _sqlite_json_rows(
        conn, ("rows", select_list),
        lambda: f"SELECT {select_list} FROM memory WHERE {_ROWS_WHERE} AND id IN (SELECT value FROM json_each(:ids)) ORDER BY id",
        columns, {"owner": int(owner_id), "ids": json.dumps(ids)},
    )
    if found is not None:
        return found
    stmt = sa.text(f"SELECT {select_list} FROM memory WHERE {_ROWS_WHERE} AND id IN :ids ORDER BY id").bindparams(
        sa.bindparam("ids", expanding=True)).columns(*columns)
    return list(conn.execute(stmt, {"owner": int(owner_id), "ids": ids}))


def predecessor_rows(conn: sa.Connection, owner_id: int, ids: list[int], columns: Sequence[sa.ColumnClause]) -> list[Any]:
    """The rows (with `columns`) of the owner's memories that were replaced by one of `ids`
    (replaced_by IN ids), neither deleted nor archived: an index range on (owner_id,
    replaced_by) per id."""
    ids = sorted({int(i) for i in ids})
    if not ids:
        return []
    select_list = ", ".join(c.name for c in columns)
    # CROSS JOIN keeps the ids as the outer loop, so each is one lookup in (owner_id,
    # replaced_by); left to itself the planner scans the owner's every memory instead
    found = _sqlite_json_rows(
        conn, ("predecessors", select_list),
        lambda: (f"SELECT DISTINCT {', '.join(f'm.{c.name}' for c in columns)} FROM json_each(:ids) AS j "
                 f"CROSS JOIN memory AS m WHERE m.owner_id = :owner AND m.replaced_by = j.value "
                 f"AND m.deleted_at IS NULL AND NOT m.archived ORDER BY m.id"),
        columns, {"owner": int(owner_id), "ids": json.dumps(ids)},
    )
    if found is not None:
        return found
    stmt = sa.text(f"SELECT {select_list} FROM memory WHERE {_ROWS_WHERE} AND replaced_by IN :ids ORDER BY id").bindparams(
        sa.bindparam("ids", expanding=True)).columns(*columns)
    return list(conn.execute(stmt, {"owner": int(owner_id), "ids": ids}))


_TIMELINE_COLUMNS = (sa.column("id", sa.Integer), sa.column("created_at", sa.DateTime))


def timeline_around(
    conn: sa.Connection, owner_id: int, ids: list[int], window: int = 2
) -> list[tuple[int, datetime | None]]:
    """The owner's memories within `window` saves of any of `ids`, as (id, created_at) by id.

    This is the input of scoring.neighbour_pairs. Deleted and archived memories are not part
    of the timeline (they cannot be recalled, so they cannot bridge neighbours either). One
    statement: for each id, the `window` live memories before it and after it (and itself), each
    an index range read on (owner_id, id), so the cost follows the number of candidates, not
    the size of the owner's memory. PostgreSQL wants an index on memory (owner_id, id) for it;
    on SQLite the owner_id index already is one (the rowid is the id).
    """
    return [(int(r[0]), r[1]) for r in timeline_rows(conn, owner_id, ids, window, _TIMELINE_COLUMNS)]
