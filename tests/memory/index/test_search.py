"""Keyword search: the pure query builders, and real SQLite FTS5 / PostgreSQL full-text search
with hostile query texts. PostgreSQL runs where reachable (a failure under CI=true)."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.memory.index.keyword import (
    MAX_QUERY_TERMS,
    common_terms,
    fts_match,
    fts_query,
    keyword_search,
    pg_tsquery,
    query_terms,
    strip_terms,
    term_counts,
    timeline_around,
    vector_query_text,
)
from bot.storage.schema import POSTGRES_FTS_DDL, SQLITE_FTS_DDL
from tests.conftest import TEST_POSTGRES_URL, drop_pg_schema, require_postgres

HOSTILE = [
    '"',
    '""',
    "'",
    "a AND OR NOT",
    "NEAR(london paris, 2)",
    "lond*",
    "^london",
    "text: london",
    "owner_tag : o2",
    'owner_tag : "o2" OR text : "paris"',
    "{owner_tag text}: paris",
    "paris) OR (owner_tag",
    "- + ! & | : * ( ) < > @ ~ \\",
    "\x00\x01\x02 london \x1b[31m",
    "🏠🚗 where do I live? 🇫🇷",
    "DROP TABLE memory; --",
    "' OR 1=1 --",
    "london " * 2000,
    "x" * 10_000,
    "über café naïve",
    "Где я живу?",
    "東京に住んでいます",
]


# ------------------------------------------------------------------------------ pure
@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("Where do I live?", ["live"]),
        ("What car did I drive before?", ["car", "drive", "before"]),
        ("I have 3 kids", ["3", "kids"]),
        ("London AND Paris OR NOT NEAR", ["london", "paris", "near"]),
        ("Café", ["café"]),
        ("don't won't can't", []),
        ("the a of", []),
        ("", []),
        ("hello hello HELLO", ["hello"]),
        ("snake_case_word", ["snake", "case", "word"]),
        # scripts without spaces: a run is searched by its character pairs, one alone by itself
        ("柏林", ["柏林"]),
        ("我住在柏林", ["我住", "住在", "在柏", "柏林"]),
        ("猫", ["猫"]),
        ("iPhone手机?", ["iphone", "手机"]),
        ("서울에", ["서울", "울에"]),
        # emoji by the words of their names
        ("🐶", ["dog"]),
        ("my 🍕!", ["slice", "pizza"]),
        ("🇩🇪 😀", []),
    ],
)
def test_query_terms(text: str, terms: list[str]) -> None:
    assert query_terms(text) == terms


def test_fts_query_quotes_every_term() -> None:
    assert fts_query('What about "Rome" OR NEAR(x)?') == '"rome" OR "near"'
    assert fts_query("the of and") is None
    assert fts_match(42, "Paris") == 'owner_tag : "o42" AND text : ("paris")'


def test_pg_tsquery() -> None:
    assert pg_tsquery("Paris & London | !Rome") == "'paris' | 'london' | 'rome'"
    assert pg_tsquery("what is it") is None


def test_long_text_is_capped() -> None:
    text = " ".join(f"word{i}" for i in range(1000))
    assert len(query_terms(text)) == MAX_QUERY_TERMS


@given(st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_terms_are_plain_words(text: str) -> None:
    for term in query_terms(text):
        assert term and all(ch.isalnum() for ch in term)
    q = fts_query(text)
    assert q is None or q.startswith('"')


@pytest.mark.parametrize(
    ("counts", "total", "expected"),
    [
        ({"caroline": 300, "camping": 12}, 600, {"caroline"}),
        ({"caroline": 300}, 1000, {"caroline"}),
        ({"caroline": 150}, 1000, set()),  # 15%: a topic, not background
        ({"tea": 4}, 12, set()),  # a small memory: never stripped
        ({"tea": 19}, 20, set()),  # below the absolute minimum
        ({"tea": 20}, 20, {"tea"}),
        ({}, 0, set()),
        ({"x": 5}, 0, set()),
    ],
)
def test_common_terms(counts, total, expected) -> None:
    assert common_terms(counts, total) == expected


@pytest.mark.parametrize(
    ("text", "drop", "expected"),
    [
        ("When did Caroline go camping?", {"caroline"}, "When did go camping?"),
        ("What is Caroline's job?", {"caroline"}, "What is job?"),
        ("CAROLINE, tell me", {"caroline"}, "tell me"),
        ("nothing to drop", set(), "nothing to drop"),
    ],
)
def test_strip_terms(text, drop, expected) -> None:
    assert strip_terms(text, drop) == expected


def test_vector_query_text_falls_back_when_nothing_left() -> None:
    counts = {"caroline": 300, "melanie": 300}
    assert vector_query_text("Caroline and Melanie?", counts, 600) == "Caroline and Melanie?"
    assert vector_query_text("Where did Caroline hike?", counts, 600) == "Where did hike?"
    assert vector_query_text("Where did Caroline hike?", {"caroline": 5}, 10) == \
        "Where did Caroline hike?"  # a small memory keeps its words

# A small memory table with the columns search reads, and the product's own full-text DDL.
SQLITE_DDL = [
    """CREATE TABLE memory (id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL, text TEXT NOT NULL,
        search_text TEXT, status TEXT NOT NULL DEFAULT 'current', archived BOOLEAN NOT NULL DEFAULT 0,
        category TEXT, deleted_at TIMESTAMP, created_at TIMESTAMP)""",
    *SQLITE_FTS_DDL,
]

PG_DDL = [
    """CREATE TABLE memory (id SERIAL PRIMARY KEY, owner_id INTEGER NOT NULL, text TEXT NOT NULL,
        search_text TEXT, status TEXT NOT NULL DEFAULT 'current', archived BOOLEAN NOT NULL DEFAULT false,
        category TEXT, deleted_at TIMESTAMP, created_at TIMESTAMP)""",
    *POSTGRES_FTS_DDL,
]

ROWS = [
    (1, 1, "I live in London", "current", False),
    (2, 1, "I drive a Tesla Model 3", "current", False),
    (3, 1, "I used to drive a VW Golf", "historical", False),
    (4, 1, "My favourite café is in Paris", "current", False),
    (5, 2, "I live in Paris", "current", False),  # another owner
    (6, 1, "I lived in Paris years ago", "current", True),  # archived
    (7, 1, "Paris was lovely in the spring", "deleted", False),
    (8, 1, 'Quotes "and" OR operators NEAR text', "current", False),
]


def _fill(conn: sa.Connection) -> None:
    for mid, owner, text, status, archived in ROWS:
        conn.execute(sa.text("INSERT INTO memory (id, owner_id, text, status, archived) "
                             "VALUES (:i, :o, :t, :s, :a)"),
                     {"i": mid, "o": owner, "t": text, "s": status, "a": archived})


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path):
    if request.param == "sqlite":
        engine = sa.create_engine(f"sqlite:///{tmp_path / 'search.db'}")
        with engine.begin() as conn:
            for ddl in SQLITE_DDL:
                conn.execute(sa.text(ddl))
            _fill(conn)
        yield engine, "sqlite"
        engine.dispose()
        return
    require_postgres()
    schema = f"t_search_{uuid.uuid4().hex[:10]}"
    engine = sa.create_engine(TEST_POSTGRES_URL, connect_args={"options": f"-csearch_path={schema}"})
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
            for ddl in PG_DDL:
                conn.execute(sa.text(ddl))
            _fill(conn)
        yield engine, "postgresql"
    finally:
        engine.dispose()
        drop_pg_schema(schema)


def _ids(engine: sa.Engine, dialect: str, owner: int, query: str, **kw) -> list[int]:
    with engine.connect() as conn:
        return [mid for mid, _ in keyword_search(conn, owner, query, 10, dialect, **kw)]


def test_finds_and_ranks_within_owner(db) -> None:
    engine, dialect = db
    assert _ids(engine, dialect, 1, "Where do I live?") == [1]
    assert _ids(engine, dialect, 2, "Where do I live?") == [5]
    assert set(_ids(engine, dialect, 1, "what car do I drive")) == {2, 3}
    # stemming: "living" finds "live"
    assert 1 in _ids(engine, dialect, 1, "living")


def test_scores_are_higher_for_better_matches(db) -> None:
    engine, dialect = db
    with engine.connect() as conn:
        hits = keyword_search(conn, 1, "drive Tesla", 10, dialect)
    assert hits[0][0] == 2
    assert hits[0][1] >= hits[-1][1]


def test_other_owner_deleted_and_archived_never_leak(db) -> None:
    engine, dialect = db
    ids = _ids(engine, dialect, 1, "Paris")
    assert 5 not in ids and 7 not in ids and 6 not in ids
    assert 4 in ids
    assert 6 in _ids(engine, dialect, 1, "Paris", include_archived=True)
    assert _ids(engine, dialect, 3, "Paris London Tesla") == []


def test_pending_delete_is_hidden(db) -> None:
    engine, dialect = db
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE memory SET deleted_at = CURRENT_TIMESTAMP WHERE id = 1"))
    assert _ids(engine, dialect, 1, "live London") == []


def test_triggers_keep_index_in_sync(db) -> None:
    engine, dialect = db
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE memory SET text = 'I live in Berlin' WHERE id = 1"))
    assert _ids(engine, dialect, 1, "Berlin") == [1]
    assert _ids(engine, dialect, 1, "London") == []
    with engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM memory WHERE id = 1"))
    assert _ids(engine, dialect, 1, "Berlin") == []


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_fail_or_leak(db, query: str) -> None:
    engine, dialect = db
    for owner in (1, 2):
        ids = _ids(engine, dialect, owner, query)
        mine = {r[0] for r in ROWS if r[1] == owner and r[3] != "deleted" and not r[4]}
        assert set(ids) <= mine


def test_hostile_query_matches_as_words(db) -> None:
    engine, dialect = db
    # the words "text" and "paris" are searched as words; "o2" is not an owner filter
    assert set(_ids(engine, dialect, 1, 'owner_tag : "o2" OR text : "paris"')) == {4, 8}
    assert 8 in _ids(engine, dialect, 1, 'Quotes "and" OR operators')


def test_empty_query_and_zero_limit(db) -> None:
    engine, dialect = db
    with engine.connect() as conn:
        assert keyword_search(conn, 1, "", 10, dialect) == []
        assert keyword_search(conn, 1, "the of and", 10, dialect) == []
        assert keyword_search(conn, 1, "London", 0, dialect) == []


def test_term_counts(db) -> None:
    engine, dialect = db
    with engine.connect() as conn:
        counts, total = term_counts(conn, 1, ["paris", "drive", "live", "nothing"], dialect)
        assert total == 7  # owner 1's rows, whatever their state
        assert counts["drive"] == 2 and counts["nothing"] == 0
        assert counts["paris"] >= 2  # stemmed, archived and deleted rows included
        assert term_counts(conn, 1, [], dialect) == ({}, 7)
        assert term_counts(conn, 3, ["paris"], dialect) == ({"paris": 0}, 0)


def test_timeline_around(db) -> None:
    engine, dialect = db
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE memory SET created_at = :t"), {"t": datetime(2024, 1, 2, 3, 4)})
    with engine.connect() as conn:
        # owner 1's timeline: 1 2 3 4 8 (5 is another owner, 6 archived, 7 deleted)
        assert [i for i, _ in timeline_around(conn, 1, [4], 1)] == [3, 4, 8]
        assert [i for i, _ in timeline_around(conn, 1, [1, 8], 1)] == [1, 2, 4, 8]
        assert [i for i, _ in timeline_around(conn, 1, [5], 2)] == []  # not the owner's
        assert timeline_around(conn, 1, [], 2) == []
        rows = timeline_around(conn, 1, [2], 0)
        assert rows == [(2, datetime(2024, 1, 2, 3, 4))]


def test_unknown_dialect() -> None:
    with pytest.raises(ValueError):
        keyword_search(None, 1, "x", 5, "mysql")  # type: ignore[arg-type]


def test_raw_sqlite_statements_fail_as_sqlalchemy_errors(tmp_path) -> None:
    """Recall and saves run their SQLite statements on the driver connection; a failure there must
    still reach the storage error handling as SQLAlchemy's exception (Database.run turns it into
    StorageError), not as a bare sqlite3 error."""
    import asyncio

    from bot.storage.db import Database, StorageError
    from bot.memory.index.keyword import memory_rows, sqlite_rows

    engine = sa.create_engine(f"sqlite:///{tmp_path / 'raw.db'}")
    with engine.connect() as conn:
        with pytest.raises(sa.exc.OperationalError, match="no such table"):
            sqlite_rows(conn, "SELECT * FROM nowhere", {})
    engine.dispose()

    db = Database(f"sqlite:///{tmp_path / 'bot.db'}")

    def broken_read() -> None:
        with db.session() as s:
            conn = s.connection()
            conn.exec_driver_sql("DROP TABLE memory_fts")
            keyword_search(conn, 1, "London", 5, "sqlite")

    with pytest.raises(StorageError):
        asyncio.run(db.run(broken_read))
    db.dispose()
    db = Database(f"sqlite:///{tmp_path / 'typed.db'}")

    def typed_rows() -> list:
        with db.session() as s:
            conn = s.connection()
            conn.exec_driver_sql("INSERT INTO owner (id, created_at, settings_json, last_list_json, last_why_json, "
                                 "memories_since_tidy, version) VALUES (1, '2024-01-02 03:04:05.000006', '{}', '[]', '[]', 0, 0)")
            conn.exec_driver_sql(
                "INSERT INTO memory (id, uid, owner_id, text, category, status, source, confidence, importance, uses, "
                "created_at, updated_at, archived, valid_from, version) VALUES (1, 'u1', 1, 'I live in London', 'fact', "
                "'current', 'command', 1.0, 0.5, 0, '2024-01-02 03:04:05.000006', '2024-01-02 03:04:05.000006', 0, "
                "'2023-05-01', 1)")
            from bot.storage.models import Memory

            cols = tuple(Memory.__table__.c[n] for n in ("id", "created_at", "valid_from", "archived", "text"))
            raw = memory_rows(conn, 1, [1], cols)
            orm = list(conn.execute(sa.select(*cols).where(Memory.__table__.c.id == 1)))
            return [raw, orm]

    raw, orm = asyncio.run(db.run(typed_rows))
    assert [tuple(r) for r in raw] == [tuple(r) for r in orm]  # the same values and types as SQLAlchemy's
    assert raw[0][1].tzinfo is not None and raw[0][3] is False
    db.dispose()
