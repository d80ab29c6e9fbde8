"""The schema's upgrade path (bot.storage.schema), on SQLite and PostgreSQL.

Most upgrade steps here are made up for the test (a step adding a column and a table, a chain of
two, a failing step, a gap), on top of a database built by this code. What they check is
the machinery every real step will run through: data survives an upgrade, a failed step changes
nothing, a database newer than the code is refused and left untouched, a current database is not
written to, and two processes opening one database at once do not trip over each other.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from bot.storage import schema as migrations
from bot.storage.db import Database, SchemaTooNew, StorageError
from bot.storage.models import SCHEMA_VERSION
from bot.memory.index.keyword import query_terms
from bot.memory.service import MemoryService
from tests.conftest import TEST_POSTGRES_URL, drop_pg_schema, make_settings, require_postgres
from tests.support.processes import bot_database, bot_env  # noqa: F401  (fixture)


def version_of(db: Database) -> int | None:
    with db.engine.connect() as conn:
        return migrations.stored_version(conn)


def dump(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the current models (only their columns), in key order."""
    out = {}
    with db.engine.connect() as conn:
        for table in SQLModel.metadata.sorted_tables:
            if table.name == "schema_info":
                continue
            rows = conn.execute(table.select().order_by(*table.primary_key.columns)).all()
            out[table.name] = [tuple(r) for r in rows]
    return out


def columns(db: Database, table: str) -> set[str]:
    with db.engine.connect() as conn:
        return {c["name"] for c in inspect(conn).get_columns(table)}


def tables(db: Database) -> set[str]:
    with db.engine.connect() as conn:
        return set(inspect(conn).get_table_names())


def file_state(db: Database) -> Any:
    """SQLite: the bytes of the database file. PostgreSQL: the version row and every row."""
    if db.dialect == "sqlite":
        path = Path(db.url.split(":///", 1)[1])
        return path.read_bytes()
    with db.engine.connect() as conn:
        info = conn.execute(text("SELECT version, updated_at FROM schema_info")).all()
    return info, dump(db), tables(db)


@pytest.fixture
def opener(db_backend: tuple[str, str | None]) -> Iterator[Any]:
    """open(**kw) -> Database on this test's database; all are disposed at the end."""
    url, schema = db_backend
    opened: list[Database] = []

    def open_(**kw: Any) -> Database:
        db = Database(url, pg_schema=schema, **kw)
        opened.append(db)
        return db

    yield open_
    for db in opened:
        db.dispose()


async def fill(db: Database) -> None:
    """Data of every kind a real database holds: memories in all states, history, a pending
    question, buttons, two people."""
    memory = MemoryService(db, make_settings(database_url=db.url))
    alice = await memory.owner_for("console", "alice")
    bob = await memory.owner_for("telegram", "42")
    assert alice is not None and bob is not None
    await memory.remember(alice, "I live in London")
    await memory.remember(alice, "I moved to Paris")  # a pending question
    car = (await memory.remember(alice, "I drive a VW Golf")).memory
    assert car is not None
    await memory.update_fact(alice, car.id, "I drive a Tesla")
    tea = (await memory.remember(bob, "I like green tea")).memory
    assert tea is not None
    await memory.edit(bob, tea.id, "I like oolong tea")
    await memory.delete(bob, (await memory.remember(bob, "my locker code is 4711")).memory.id)  # type: ignore[union-attr]


def close(db: Database) -> None:
    db.dispose()  # SQLite: the last connection checkpoints the WAL into the main file


# --- made-up upgrade steps -------------------------------------------------------------------------
# They upgrade a database built by this code (at SCHEMA_VERSION, called V here) to V + 1 and V + 2,
# so they test the machinery whatever the real version is.

V = SCHEMA_VERSION



def add_mood(conn: Connection, dialect: str) -> None:
    """v1 -> v2: a new column with a backfill, and a new table filled from an old one."""
    conn.execute(text("ALTER TABLE memory ADD COLUMN mood VARCHAR(16)"))
    conn.execute(text("UPDATE memory SET mood = CASE WHEN status = 'current' THEN 'fresh' ELSE 'stale' END"))
    conn.execute(text("CREATE TABLE mood_note (id INTEGER PRIMARY KEY, memory_id INTEGER NOT NULL REFERENCES memory(id), note TEXT NOT NULL)"))
    conn.execute(text("INSERT INTO mood_note (id, memory_id, note) SELECT id, id, text FROM memory"))


def add_flag(conn: Connection, dialect: str) -> None:
    """v2 -> v3: needs v2's column, so it only works when the steps run in order."""
    conn.execute(text("ALTER TABLE memory ADD COLUMN mood_flag INTEGER"))
    conn.execute(text("UPDATE memory SET mood_flag = CASE WHEN mood = 'fresh' THEN 1 ELSE 0 END"))


def half_then_fail(conn: Connection, dialect: str) -> None:
    """Adds a column, then fails on a bad statement: nothing of it may remain."""
    conn.execute(text("ALTER TABLE memory ADD COLUMN half_done INTEGER"))
    conn.execute(text("CREATE TABLE half_table (id INTEGER PRIMARY KEY)"))
    conn.execute(text("UPDATE no_such_table SET x = 1"))


# --- tests -----------------------------------------------------------------------------------------


async def test_new_database_is_stamped_and_reopening_it_writes_nothing(opener: Any) -> None:
    db = opener()
    assert version_of(db) == SCHEMA_VERSION
    await fill(db)
    close(db)
    before = file_state(db)
    again = opener()
    assert version_of(again) == SCHEMA_VERSION
    close(again)
    assert file_state(again) == before, "opening a current database must not write to it"


async def test_an_upgrade_step_keeps_every_row(opener: Any) -> None:
    db = opener()
    await fill(db)
    before = dump(db)
    close(db)

    upgraded = opener(create=False)
    upgraded.create_schema(target=V + 1, migrations={V: add_mood})
    assert version_of(upgraded) == V + 1
    assert dump(upgraded) == before  # every row of every table, every old column
    assert "mood" in columns(upgraded, "memory") and "mood_note" in tables(upgraded)
    with upgraded.engine.connect() as conn:
        moods = dict(conn.execute(text("SELECT status, mood FROM memory WHERE purged_at IS NULL")).all())
        notes = conn.execute(text("SELECT count(*) FROM mood_note")).scalar()
    assert moods["current"] == "fresh" and moods["historical"] == "stale"
    assert notes == len(before["memory"])

    # the bot works on the upgraded database: search (FTS / tsvector), saves, conflicts
    memory = MemoryService(upgraded, make_settings(database_url=upgraded.url))
    alice = await memory.owner_for("console", "alice")
    assert [m.text for m in await memory.search(alice, "Paris")] == ["I moved to Paris"]  # type: ignore[arg-type]
    assert (await memory.remember(alice, "I have a cat named Miso")).memory is not None  # type: ignore[arg-type]
    close(upgraded)

    # a second start at the new version changes nothing
    state = file_state(upgraded)
    steps_run: list[int] = []
    twice = opener(create=False)
    twice.create_schema(target=V + 1, migrations={V: lambda c, d: steps_run.append(1)})
    close(twice)
    assert steps_run == [] and file_state(twice) == state


async def test_steps_run_in_order_from_any_older_version(opener: Any) -> None:
    db = opener()
    await fill(db)
    before = dump(db)
    close(db)
    order: list[int] = []

    def step(n: int, fn: Any) -> Any:
        def run(conn: Connection, dialect: str) -> None:
            order.append(n)
            fn(conn, dialect)

        return run

    upgraded = opener(create=False)
    upgraded.create_schema(target=V + 2, migrations={V: step(1, add_mood), V + 1: step(2, add_flag)})
    assert order == [1, 2] and version_of(upgraded) == V + 2
    assert dump(upgraded) == before
    with upgraded.engine.connect() as conn:
        assert set(conn.execute(text("SELECT mood_flag FROM memory WHERE status = 'current'")).scalars()) == {1}


async def test_a_failing_step_leaves_the_database_as_it_was(opener: Any) -> None:
    db = opener()
    await fill(db)
    close(db)
    before, cols, tabs = dump(db), columns(db, "memory"), tables(db)

    broken = opener(create=False)
    with pytest.raises(StorageError, match="cannot open the database"):
        broken.create_schema(target=V + 1, migrations={V: half_then_fail})
    close(broken)
    after = opener(create=False)
    assert version_of(after) == V
    assert columns(after, "memory") == cols and tables(after) == tabs, "half a migration stayed behind"
    assert dump(after) == before


async def test_a_missing_step_refuses_before_running_any(opener: Any) -> None:
    db = opener()
    await fill(db)
    close(db)
    state = file_state(db)
    ran: list[int] = []
    gap = opener(create=False)
    with pytest.raises(StorageError, match=f"no upgrade from version {V + 1}"):
        gap.create_schema(target=V + 2, migrations={V: lambda c, d: ran.append(1)})
    close(gap)
    assert ran == [] and file_state(gap) == state


async def test_a_newer_database_is_refused_and_left_untouched(opener: Any) -> None:
    db = opener()
    await fill(db)
    with db.engine.begin() as conn:
        conn.execute(text("UPDATE schema_info SET version = 7"))
    close(db)
    state = file_state(db)
    with pytest.raises(SchemaTooNew, match="schema version 7, newer than this code"):
        opener()
    assert file_state(db) == state


def test_the_command_line_refuses_a_newer_database_with_one_line(tmp_path: Path, bot_database: Any) -> None:
    bot_url, test_url, schema = bot_database
    db = Database(test_url, pg_schema=schema)
    with db.engine.begin() as conn:
        conn.execute(text("UPDATE schema_info SET version = 99"))
    db.dispose()
    out = subprocess.run(
        [sys.executable, "-m", "bot", "chat"], input="remember: x\n", capture_output=True, text=True,
        cwd=tmp_path, env=bot_env(tmp_path, bot_url), timeout=120,
    )
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "schema version 99, newer than this code" in lines[0], out.stderr
    assert "Saved" not in out.stdout
    db = Database(test_url, pg_schema=schema, create=False)
    try:
        assert version_of(db) == 99
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM memory")).scalar() == 0
    finally:
        db.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_processes_starting_together_on_a_new_database_all_start(tmp_path: Path, backend: str) -> None:
    """Before the lock, concurrent first starts failed: duplicate keys on PostgreSQL (CREATE
    SCHEMA / CREATE TABLE racing), "table schema_info already exists" on SQLite."""
    if backend == "sqlite":
        url, schema = f"sqlite:///{tmp_path / 'race.db'}", None
    else:
        require_postgres()
        url, schema = TEST_POSTGRES_URL, f"t_race_{uuid.uuid4().hex[:10]}"
    errors: list[BaseException] = []
    gate = threading.Barrier(6)

    def start() -> None:
        gate.wait()
        try:
            Database(url, pg_schema=schema).dispose()
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    try:
        for _ in range(3):
            workers = [threading.Thread(target=start) for _ in range(6)]
            for w in workers:
                w.start()
            for w in workers:
                w.join(60)
            if schema:
                drop_pg_schema(schema)
            else:
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{tmp_path / 'race.db'}{suffix}").unlink(missing_ok=True)
    finally:
        if schema:
            drop_pg_schema(schema)
    assert errors == []


# --- the real steps --------------------------------------------------------------------------------

# What version 1 built for the keyword index (before memory.search_text existed).
V1_SQLITE_TRIGGERS = (
    "CREATE TRIGGER memory_fts_ai AFTER INSERT ON memory BEGIN "
    "INSERT INTO memory_fts(rowid, owner_tag, text) VALUES (new.id, 'o' || new.owner_id, new.text); END",
    "CREATE TRIGGER memory_fts_au AFTER UPDATE OF text, owner_id ON memory BEGIN "
    "UPDATE memory_fts SET owner_tag = 'o' || new.owner_id, text = new.text WHERE rowid = new.id; END",
)
V1_POSTGRES_INDEX = "CREATE INDEX ix_memory_tsv ON memory USING GIN (to_tsvector('english', text))"

SAVED_AT_V1 = [
    "I live in London",
    "我住在柏林",
    "東京に住んでいます",
    "I have a dog 🐶 called Rex",
    "My favourite café is in Paris",
    "저는 서울에 살아요",
]


def as_version_1(db: Database) -> None:
    """Turn a database built by this code into what version 1 built: no search_text column, the
    old index definition, the index holding the plain text, version 1 stamped."""
    with db.engine.begin() as conn:
        if db.dialect == "sqlite":
            conn.execute(text("DROP TRIGGER memory_fts_ai"))
            conn.execute(text("DROP TRIGGER memory_fts_au"))
            for ddl in V1_SQLITE_TRIGGERS:
                conn.execute(text(ddl))
            conn.execute(text("DELETE FROM memory_fts"))
            conn.execute(text("INSERT INTO memory_fts(rowid, owner_tag, text) SELECT id, 'o' || owner_id, text FROM memory"))
        else:
            conn.execute(text("DROP INDEX ix_memory_search_tsv"))
            conn.execute(text(V1_POSTGRES_INDEX))
        conn.execute(text("DROP INDEX ix_memory_owner_replaced_by"))
        conn.execute(text("ALTER TABLE memory DROP COLUMN search_text"))
        conn.execute(text("UPDATE schema_info SET version = 1"))


async def test_version_1_is_upgraded_so_cjk_and_emoji_are_found_and_nothing_is_lost(opener: Any) -> None:
    db = opener()
    memory = MemoryService(db, make_settings(database_url=db.url))
    alice = await memory.owner_for("console", "alice")
    assert alice is not None
    for fact in SAVED_AT_V1:
        await memory.remember(alice, fact)
    await fill(db)
    close(db)
    old = opener(create=False)
    as_version_1(old)
    before = dump_without(old, "search_text")
    with old.engine.connect() as conn:  # the bug of version 1: a CJK word inside a sentence
        if old.dialect == "sqlite":
            hits = conn.execute(text("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH '\"柏林\"'")).scalar()
        else:
            hits = conn.execute(text("SELECT count(*) FROM memory WHERE to_tsvector('english', text) @@ to_tsquery('english', '''柏林''')")).scalar()
    assert hits == 0
    close(old)

    upgraded = opener()  # what the bot does at start
    assert version_of(upgraded) == SCHEMA_VERSION
    assert "search_text" in columns(upgraded, "memory")
    with upgraded.engine.connect() as conn:
        assert "ix_memory_owner_replaced_by" in {i["name"] for i in inspect(conn).get_indexes("memory")}
    assert dump_without(upgraded, "search_text") == before  # every row, every other column
    memory = MemoryService(upgraded, make_settings(database_url=upgraded.url))

    async def finds(query: str) -> list[str]:
        return [m.text for m in await memory.search(alice, query)]  # type: ignore[arg-type]

    assert await finds("柏林") == ["我住在柏林"]
    assert await finds("東京") == ["東京に住んでいます"]
    assert await finds("서울") == ["저는 서울에 살아요"]
    assert await finds("🐶") == ["I have a dog 🐶 called Rex"]
    # nothing saved before became unfindable: every live memory by each of its words
    for m in await memory.list(alice):  # type: ignore[arg-type]
        for word in query_terms(m.text):
            assert m.text in await finds(word), (word, m.text)
    if upgraded.dialect == "sqlite":  # the index holds what a fresh database's triggers write
        with upgraded.engine.connect() as conn:
            stale = conn.execute(text(
                "SELECT count(*) FROM memory AS m JOIN memory_fts AS f ON f.rowid = m.id "
                "WHERE f.text != coalesce(m.search_text, m.text)")).scalar()
        assert stale == 0
    # new saves and edits keep the index right after the upgrade
    saved = (await memory.remember(alice, "我喜欢吃饺子")).memory  # type: ignore[arg-type]
    assert saved is not None and await finds("饺子") == ["我喜欢吃饺子"]
    await memory.edit(alice, saved.id, "我喜欢吃面条")  # type: ignore[arg-type]
    assert await finds("饺子") == [] and await finds("面条") == ["我喜欢吃面条"]
    close(upgraded)


def dump_without(db: Database, column: str) -> dict[str, list[tuple[Any, ...]]]:
    """dump() without one column of the memory table (for comparing across the step that adds it)."""
    out = {}
    with db.engine.connect() as conn:
        for table in SQLModel.metadata.sorted_tables:
            if table.name == "schema_info":
                continue
            cols = [c for c in table.columns if c.name != column]
            rows = conn.execute(table.select().with_only_columns(*cols).order_by(*table.primary_key.columns)).all()
            out[table.name] = [tuple(r) for r in rows]
    return out


async def test_version_2_gains_the_memory_pages_login_tables_and_keeps_every_row(opener: Any) -> None:
    db = opener()
    await fill(db)
    with db.engine.begin() as conn:  # what version 2 built: no login codes, no browser sessions
        conn.execute(text("DROP TABLE web_session"))
        conn.execute(text("DROP TABLE web_login_code"))
        conn.execute(text("UPDATE schema_info SET version = 2"))
    before = rows_but_web(db)
    close(db)

    upgraded = opener()  # what the bot does at start
    assert version_of(upgraded) == SCHEMA_VERSION == 3
    with upgraded.engine.connect() as conn:
        tables = set(inspect(conn).get_table_names(schema=upgraded.pg_schema))
    assert {"web_login_code", "web_session"} <= tables
    assert rows_but_web(upgraded) == before
    close(upgraded)


def rows_but_web(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    with db.engine.connect() as conn:
        for table in SQLModel.metadata.sorted_tables:
            if table.name in ("schema_info", "web_session", "web_login_code"):
                continue
            out[table.name] = [tuple(r) for r in conn.execute(table.select().order_by(*table.primary_key.columns)).all()]
    return out
