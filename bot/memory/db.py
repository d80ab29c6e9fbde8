"""The database: engine, schema and its version, transactions, and the way off the event loop.

Why a dedicated executor: SQLAlchemy is synchronous, and the event loop must never wait on
disk or network. All database work runs through `Database.run`, on one thread for SQLite (a
single writer is what SQLite wants anyway, so there is no lock contention inside a process) and
on a small pool for PostgreSQL.

Why a stored schema version: a database written by newer code must not be opened by older code
that would misread it; we refuse to start instead of guessing.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DatabaseError, DBAPIError, InterfaceError, OperationalError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel, create_engine

from bot.memory import models
from bot.memory.models import SCHEMA_VERSION, SchemaInfo, utcnow

log = logging.getLogger(__name__)
T = TypeVar("T")


class StorageError(Exception):
    """Storage cannot be read or written. Callers refuse the operation and say so; nothing is
    repaired by starting empty."""

    person_message = (
        "I can't reach my memory storage right now, so I haven't changed anything. "
        "Please try again in a moment."
    )


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot."""


SQLITE_FTS_DDL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5("
    "owner_tag, text, tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_ai AFTER INSERT ON memory BEGIN "
    "INSERT INTO memory_fts(rowid, owner_tag, text) VALUES (new.id, 'o' || new.owner_id, new.text); END",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_ad AFTER DELETE ON memory BEGIN "
    "DELETE FROM memory_fts WHERE rowid = old.id; END",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_au AFTER UPDATE OF text, owner_id ON memory BEGIN "
    "UPDATE memory_fts SET owner_tag = 'o' || new.owner_id, text = new.text WHERE rowid = new.id; END",
)

POSTGRES_FTS_DDL = (
    "CREATE INDEX IF NOT EXISTS ix_memory_tsv ON memory USING GIN (to_tsvector('english', text))",
)

# version -> function upgrading a database from that version to the next one
MIGRATIONS: dict[int, Callable[[Any], None]] = {}


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA secure_delete=ON")  # purged text must not linger in free pages
    try:
        cur.execute("PRAGMA journal_mode=WAL")
    except Exception:  # an in-memory database has no WAL; that is fine
        pass
    cur.execute("PRAGMA synchronous=FULL")
    cur.close()


def _is_unavailable(exc: DBAPIError) -> bool:
    """Locked, corrupt, unreachable or read-only storage, as opposed to a constraint or a bug."""
    return isinstance(exc, (OperationalError, InterfaceError)) or type(exc) is DatabaseError


class Database:
    """One database, SQLite or PostgreSQL, chosen by URL."""

    def __init__(self, url: str, *, pg_schema: str | None = None, create: bool = True) -> None:
        self.url = url
        self.dialect = "postgresql" if url.startswith("postgresql") else "sqlite"
        self.pg_schema = pg_schema
        if self.dialect == "sqlite":
            self.engine = self._sqlite_engine(url)
            workers = 1
        else:
            connect_args: dict[str, Any] = {"connect_timeout": 5}
            if pg_schema:
                connect_args["options"] = f"-csearch_path={pg_schema}"
            self.engine = create_engine(
                url, connect_args=connect_args, pool_pre_ping=True, pool_size=8, max_overflow=8
            )
            workers = 8
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="db")
        if create:
            self.create_schema()

    @staticmethod
    def _sqlite_engine(url: str) -> Engine:
        raw = url.split(":///", 1)[1] if ":///" in url else ""
        if raw in ("", ":memory:"):
            engine = create_engine(
                "sqlite://", connect_args={"check_same_thread": False}, poolclass=StaticPool
            )
        else:
            Path(raw).expanduser().parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine

    # --- schema -----------------------------------------------------------------------------
    def create_schema(self) -> None:
        """Create missing tables, check the stored version, run migrations."""
        try:
            with self.engine.begin() as conn:
                if self.dialect == "postgresql" and self.pg_schema:
                    conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{self.pg_schema}"'))
                stored = self._stored_version(conn)
                if stored is not None and stored > SCHEMA_VERSION:
                    raise SchemaTooNew(
                        f"The database is at schema version {stored}, newer than this code "
                        f"({SCHEMA_VERSION}). Upgrade the bot; refusing to start."
                    )
                while stored is not None and stored < SCHEMA_VERSION:
                    MIGRATIONS[stored](conn)
                    stored += 1
                SQLModel.metadata.create_all(conn)
                for ddl in SQLITE_FTS_DDL if self.dialect == "sqlite" else POSTGRES_FTS_DDL:
                    conn.execute(text(ddl))
                conn.execute(text("DELETE FROM schema_info"))
                conn.execute(
                    SchemaInfo.__table__.insert().values(  # type: ignore[attr-defined]
                        id=1, version=SCHEMA_VERSION, updated_at=utcnow()
                    )
                )
        except SchemaTooNew:
            raise
        except (OperationalError, DBAPIError) as exc:
            raise StorageError(f"cannot open the database: {exc.__class__.__name__}: {exc.orig}") from exc

    def _stored_version(self, conn: Any) -> int | None:
        from sqlalchemy import inspect

        if not inspect(conn).has_table("schema_info"):
            return None
        row = conn.execute(text("SELECT version FROM schema_info WHERE id = 1")).first()
        return int(row[0]) if row else None

    # --- sessions and the executor ---------------------------------------------------------
    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session whose work commits on success and rolls back on any error."""
        with Session(self.engine, expire_on_commit=False) as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run blocking database work off the event loop; storage failures become StorageError."""
        loop = asyncio.get_running_loop()
        ctx = contextvars.copy_context()
        call = functools.partial(ctx.run, self._guarded, fn, *args, **kwargs)
        return await loop.run_in_executor(self._executor, call)

    @staticmethod
    def _guarded(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        except DBAPIError as exc:
            if not _is_unavailable(exc):
                raise
            log.error("storage error: %s: %s", exc.__class__.__name__, exc.orig)
            raise StorageError(str(exc.orig)) from exc

    def dispose(self) -> None:
        self._executor.shutdown(wait=True)
        self.engine.dispose()


__all__ = ["Database", "StorageError", "SchemaTooNew", "models"]
