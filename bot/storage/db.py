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
import time
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DatabaseError, DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, create_engine

from bot.storage import models, schema
from bot.storage.checkpoint import WalCheckpointer
from bot.storage.errors import CommitUncertain, ConcurrentUpdate, SchemaTooNew, StorageError

log = logging.getLogger(__name__)
T = TypeVar("T")


DEFAULT_BUSY_TIMEOUT = 30.0  # seconds a SQLite write waits for another process's lock


def _sqlite_pragmas(
    dbapi_conn: Any, _record: Any, busy_timeout: float = DEFAULT_BUSY_TIMEOUT, own_checkpoints: bool = False
) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
    cur.execute("PRAGMA secure_delete=ON")  # purged text must not linger in free pages
    try:
        cur.execute("PRAGMA journal_mode=WAL")
    except Exception:  # an in-memory database has no WAL; that is fine
        pass
    cur.execute("PRAGMA synchronous=FULL")
    if own_checkpoints:  # a WalCheckpointer thread does them, not the commit that crosses the limit
        cur.execute("PRAGMA wal_autocheckpoint=0")
    cur.close()


# PostgreSQL: the schema or a table is gone (dropped under a running bot): storage is not what
# we expect, so refuse like any other unavailability rather than report a bug.
_PG_MISSING = {"42P01", "3F000"}
# PostgreSQL: this transaction lost a race (deadlock victim, serialization failure); retryable.
_PG_CONTENTION = {"40P01", "40001"}


def _sqlstate(exc: DBAPIError) -> str | None:
    return getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)


def _is_contention(exc: DBAPIError) -> bool:
    return _sqlstate(exc) in _PG_CONTENTION


def _is_unavailable(exc: DBAPIError) -> bool:
    """Locked, corrupt, unreachable, read-only or missing storage, as opposed to a constraint or
    a bug."""
    return (
        isinstance(exc, (OperationalError, InterfaceError))
        or type(exc) is DatabaseError
        or _sqlstate(exc) in _PG_MISSING
    )


class Database:
    """One database, SQLite or PostgreSQL, chosen by URL."""

    def __init__(
        self,
        url: str,
        *,
        pg_schema: str | None = None,
        create: bool = True,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> None:
        self.url = url
        self.dialect = "postgresql" if url.startswith("postgresql") else "sqlite"
        self.pg_schema = pg_schema
        self.busy_timeout = busy_timeout
        self.checkpointer: WalCheckpointer | None = None
        if self.dialect == "sqlite":
            path = self._sqlite_path(url)
            if path is not None:
                self.checkpointer = WalCheckpointer(path, busy_timeout=busy_timeout)
            self.engine = self._sqlite_engine(url, busy_timeout, own_checkpoints=path is not None)
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
        if self.checkpointer is not None:
            self.checkpointer.start()
            weakref.finalize(self, self.checkpointer.stop)  # a database never disposed stops it too
        if create:
            try:
                self.create_schema()
            except BaseException:
                self.dispose()  # no pooled handle on a file or server we refused
                raise

    @staticmethod
    def _sqlite_path(url: str) -> str | None:
        """The database file of an SQLite URL; None for an in-memory database."""
        raw = url.split(":///", 1)[1] if ":///" in url else ""
        return None if raw in ("", ":memory:") else str(Path(raw).expanduser())

    @staticmethod
    def _sqlite_engine(url: str, busy_timeout: float = DEFAULT_BUSY_TIMEOUT, own_checkpoints: bool = False) -> Engine:
        path = Database._sqlite_path(url)
        if path is None:
            engine = create_engine(
                "sqlite://", connect_args={"check_same_thread": False}, poolclass=StaticPool
            )
        else:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": busy_timeout})
        event.listen(engine, "connect", functools.partial(
            _sqlite_pragmas, busy_timeout=busy_timeout, own_checkpoints=own_checkpoints))
        return engine

    # --- schema -----------------------------------------------------------------------------
    def create_schema(self, *, target: int | None = None, migrations: dict[int, Any] | None = None) -> None:
        """Check the stored schema version, run migrations, create what is missing; see
        bot.storage.schema. `target` and `migrations` exist for tests of the upgrade path."""
        schema.prepare(self, target=target, steps=migrations)

    # --- sessions and the executor ---------------------------------------------------------
    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session whose work commits on success and rolls back on any error."""
        with Session(self.engine, expire_on_commit=False) as session:
            try:
                yield session
                self._commit(session)
            except BaseException:
                try:
                    session.rollback()
                except Exception:  # the connection is gone; the server rolls back by itself
                    pass
                raise

    def _commit(self, session: Session) -> None:
        """Commit; on PostgreSQL, a commit whose answer was lost is looked up, never guessed.

        When the connection drops after COMMIT was sent, the server may have committed: "nothing
        was changed" would then be false. So before COMMIT we note the transaction's id (only a
        transaction that wrote has one), and if COMMIT fails for a lost connection we ask the
        server, on a new connection, how that transaction ended (`txid_status`): committed means
        success, aborted means the usual refusal, and no answer raises CommitUncertain. SQLite
        needs none of this: its commit is a local call whose outcome the error states."""
        if self.dialect != "postgresql":
            session.commit()
            return
        session.flush()
        xid = session.execute(text("SELECT txid_current_if_assigned()")).scalar()
        if xid is None:  # nothing was written, so nothing can be lost: what was read stands
            try:
                session.commit()
            except DBAPIError as exc:
                if not _is_unavailable(exc):
                    raise
                log.info("the connection was lost at the COMMIT of a transaction that only read")
            return
        try:
            session.commit()
        except DBAPIError as exc:
            if not _is_unavailable(exc):
                raise
            outcome = self.transaction_outcome(int(xid))
            if outcome == "committed":
                log.warning("the connection was lost after COMMIT; the transaction had committed")
                return
            if outcome == "aborted":
                raise
            log.error("the connection was lost after COMMIT and its outcome could not be checked")
            raise CommitUncertain(str(exc.orig)) from exc

    def transaction_outcome(self, xid: int, *, tries: int = 20, pause: float = 0.15) -> str | None:
        """'committed' or 'aborted' for a recent PostgreSQL transaction id, asked on a fresh
        connection; None if the server cannot say within about three seconds."""
        for _ in range(tries):
            try:
                with self.engine.connect() as conn:
                    status = conn.execute(text("SELECT txid_status(:x)"), {"x": xid}).scalar()
            except DBAPIError:
                status = None  # not reachable (yet)
            if status in ("committed", "aborted"):
                return str(status)
            time.sleep(pause)  # 'in progress': the server has not finished with the COMMIT yet
        return None

    async def tx(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn(session, *args, **kwargs)` as one transaction off the event loop: the way
        every part of the bot does its database work."""

        def work() -> T:
            with self.session() as s:
                return fn(s, *args, **kwargs)

        return await self.run(work)

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
        except StaleDataError as exc:
            log.info("concurrent update refused: %s", exc)
            raise ConcurrentUpdate(str(exc)) from exc
        except DBAPIError as exc:
            if _is_contention(exc):
                log.info("concurrent update refused: %s", exc.orig)
                raise ConcurrentUpdate(str(exc.orig)) from exc
            if not _is_unavailable(exc):
                raise
            log.error("storage error: %s: %s", exc.__class__.__name__, exc.orig)
            raise StorageError(str(exc.orig)) from exc

    async def truncate_wal(self) -> bool:
        """SQLite: copy the write-ahead log into the database file and empty the log, so that
        text just erased does not linger in its old frames (freed pages of the file itself are
        zeroed by secure_delete). True when the log is empty now; PostgreSQL's WAL is the
        server's, so there it does nothing."""
        if self.dialect != "sqlite" or self.checkpointer is None:
            return True

        def work() -> bool:
            with self.engine.connect() as conn:
                row = conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").first()
                return row is not None and int(row[0]) == 0

        return await self.run(work)

    def dispose(self) -> None:
        self._executor.shutdown(wait=True)
        if self.checkpointer is not None:
            self.checkpointer.stop()  # first, so that the last connection to close is the engine's
        self.engine.dispose()


__all__ = ["Database", "StorageError", "SchemaTooNew", "ConcurrentUpdate", "models"]
