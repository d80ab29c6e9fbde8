"""The schema's version and its upgrade path: what happens when the bot opens a database.

Why a stored version at all: a database written by newer code must never be opened by older code
that would misread it, and a database written by older code must be brought up to date before
anything else touches it. `schema_info` holds one row with the version; `MIGRATIONS[n]` upgrades
a database from version n to n + 1 (so the chain 1 -> 2 -> 3 runs one step at a time).

The rules `prepare` keeps, each for a reason:

* A database newer than the code raises SchemaTooNew before anything is written: a too-new file
  is left byte for byte as it was, so the newer bot can go on using it.
* All of it is one transaction: the migration steps, the creation of missing tables and indexes,
  and the new version stamp. A step that fails leaves the database exactly as it was, at its old
  version. SQLite needs an explicit BEGIN for that (Python's sqlite3 runs DDL outside any
  transaction unless one was begun); PostgreSQL's DDL is transactional anyway.
* One process at a time: two bot processes started together on one database must not both create
  the tables or both run a step. SQLite: BEGIN IMMEDIATE takes the write lock first. PostgreSQL:
  a transaction-level advisory lock, taken before CREATE SCHEMA. The version is read after the
  lock, so the second process finds the work done.
* A database whose schema is current is not written at all. In particular a damaged file is never
  "repaired" by writing to it.
* SQLite: `PRAGMA quick_check` at open. A damaged file stops start-up with one clear line rather
  than serving a partly readable memory (and it is never replaced or truncated).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping
from typing import Protocol

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from bot.storage.errors import SchemaTooNew, StorageError
from bot.storage.models import SCHEMA_VERSION, SchemaInfo, WebLoginCode, WebSession, utcnow
from bot.storage.search_text import search_form


class Database(Protocol):
    """What the schema steps need of bot.storage.db.Database."""

    engine: Engine
    dialect: str
    pg_schema: str | None


# The keyword index reads coalesce(search_text, text): the text, or its search form when the
# text alone cannot be split into words (CJK, emoji; bot/storage/search_text.py).
SQLITE_FTS_DDL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5("
    "owner_tag, text, tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_ai AFTER INSERT ON memory BEGIN "
    "INSERT INTO memory_fts(rowid, owner_tag, text) "
    "VALUES (new.id, 'o' || new.owner_id, coalesce(new.search_text, new.text)); END",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_ad AFTER DELETE ON memory BEGIN "
    "DELETE FROM memory_fts WHERE rowid = old.id; END",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_au AFTER UPDATE OF text, search_text, owner_id ON memory BEGIN "
    "UPDATE memory_fts SET owner_tag = 'o' || new.owner_id, text = coalesce(new.search_text, new.text) "
    "WHERE rowid = new.id; END",
)

POSTGRES_FTS_DDL = (
    "CREATE INDEX IF NOT EXISTS ix_memory_search_tsv ON memory "
    "USING GIN (to_tsvector('english', coalesce(search_text, text)))",
)

log = logging.getLogger(__name__)

# (connection inside the upgrade transaction, dialect name "sqlite" | "postgresql") -> None
Migration = Callable[[Connection, str], None]

def _search_text(conn: Connection, dialect: str) -> None:
    """1 -> 2: the keyword index finds words in Chinese, Japanese and Korean text and emoji; an
    index on (owner_id, replaced_by) for recall's topic chains.

    Adds memory.search_text, fills it for the memories that need it, and points the index at
    coalesce(search_text, text): SQLite drops its two writing triggers (prepare() creates them
    anew) and rewrites the index entries of the rows that changed; PostgreSQL drops the old
    expression index (prepare() builds the new one). Every other entry is left as it was, so
    nothing already saved becomes unfindable."""
    conn.execute(text("ALTER TABLE memory ADD COLUMN search_text TEXT"))
    changed = []
    for mid, body in conn.execute(text("SELECT id, text FROM memory")).all():
        form = search_form(body)
        if form is not None:
            changed.append({"i": int(mid), "s": form})
    if dialect == "sqlite":
        conn.execute(text("DROP TRIGGER IF EXISTS memory_fts_ai"))
        conn.execute(text("DROP TRIGGER IF EXISTS memory_fts_au"))
    if changed:  # a plain statement: the row's version (optimistic locking) is not a text change
        conn.execute(text("UPDATE memory SET search_text = :s WHERE id = :i"), changed)
        if dialect == "sqlite":
            conn.execute(text("UPDATE memory_fts SET text = :s WHERE rowid = :i"), changed)
    if dialect != "sqlite":
        conn.execute(text("DROP INDEX IF EXISTS ix_memory_tsv"))
    # recall reads the past values of a topic (the memories a current one replaced)
    conn.execute(text("CREATE INDEX IF NOT EXISTS ix_memory_owner_replaced_by ON memory (owner_id, replaced_by)"))


def _web_login(conn: Connection, dialect: str) -> None:
    """Version 2 -> 3: the memory page's login codes and browser sessions (two new tables)."""
    for model in (WebLoginCode, WebSession):
        model.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]


# version n -> the step that upgrades a database from version n to n + 1; each step comes with
# SCHEMA_VERSION + 1 and a test in tests/storage/test_migrations.py that upgrades a database
# built at the old version.
MIGRATIONS: dict[int, Migration] = {1: _search_text, 2: _web_login}


class SchemaDamaged(StorageError):
    """The database file failed its integrity check; nothing was written to it."""


def stored_version(conn: Connection) -> int | None:
    """The version in schema_info, or None for a database without one (a new database)."""
    if not inspect(conn).has_table("schema_info"):
        return None
    row = conn.execute(text("SELECT version FROM schema_info WHERE id = 1")).first()
    return int(row[0]) if row else None


def _advisory_key(db: "Database") -> int:
    """A stable signed 64-bit key per database schema for pg_advisory_xact_lock."""
    digest = hashlib.sha256(f"memory-assistant-schema:{db.pg_schema or ''}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _begin_exclusive(conn: Connection, db: "Database") -> None:
    if db.dialect == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _advisory_key(db)})
        if db.pg_schema:
            conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{db.pg_schema}"'))


def check_integrity(conn: Connection) -> None:
    """SQLite only: refuse a damaged file (raises SchemaDamaged naming the first problem)."""
    rows = [str(r[0]) for r in conn.exec_driver_sql("PRAGMA quick_check").fetchall()]
    if rows != ["ok"]:
        raise SchemaDamaged(f"the database file is damaged ({rows[0] if rows else 'no answer'}); refusing to use it")


def _stamp(conn: Connection, version: int, had_row: bool) -> None:
    table = SchemaInfo.__table__  # type: ignore[attr-defined]
    if had_row:
        conn.execute(table.update().where(table.c.id == 1).values(version=version, updated_at=utcnow()))
    else:
        conn.execute(table.insert().values(id=1, version=version, updated_at=utcnow()))


def prepare(db: "Database", *, target: int | None = None, steps: Mapping[int, Migration] | None = None) -> None:
    """Bring the database to `target` (default: this code's SCHEMA_VERSION), or refuse.

    Raises SchemaTooNew for a newer database, SchemaDamaged for a damaged SQLite file and
    StorageError when the database cannot be opened or a step is missing or fails; in every one
    of these cases nothing was changed."""
    target = SCHEMA_VERSION if target is None else target
    steps = MIGRATIONS if steps is None else steps
    try:
        with db.engine.begin() as conn:
            _begin_exclusive(conn, db)
            if db.dialect == "sqlite":
                check_integrity(conn)
            stored = stored_version(conn)
            if stored is not None and stored > target:
                raise SchemaTooNew(
                    f"The database is at schema version {stored}, newer than this code "
                    f"({target}). Upgrade the bot; refusing to start."
                )
            version = stored
            if version is not None:
                gaps = [v for v in range(version, target) if v not in steps]
                if gaps:
                    raise StorageError(
                        f"The database is at schema version {version} and this code has no upgrade "
                        f"from version {gaps[0]}; refusing to start."
                    )
                while version < target:
                    log.warning("upgrading the database schema from version %d to %d", version, version + 1)
                    steps[version](conn, db.dialect)
                    version += 1
            SQLModel.metadata.create_all(conn)  # only what is missing; existing tables are untouched
            for ddl in SQLITE_FTS_DDL if db.dialect == "sqlite" else POSTGRES_FTS_DDL:
                conn.execute(text(ddl))
            if stored != target:
                _stamp(conn, target, had_row=stored is not None)
    except StorageError:
        raise
    except DBAPIError as exc:
        raise StorageError(f"cannot open the database: {exc.__class__.__name__}: {exc.orig}") from exc
