"""Named leases: "only one of us does this right now", across tasks and across processes.

Why a lease table and not an in-process lock: several bot processes may share one database
(docs/ARCHITECTURE.md section 9), and the curator must never tidy one person's memories twice at once.
Why not a PostgreSQL advisory lock: it belongs to one database session, and our work hops
between pooled connections on executor threads (and awaits a model in between), so holding
one would pin a connection for the whole run; the same table also works on SQLite, so both
databases share one tested code path.

A lease has a holder (unique per acquisition, so two runs inside one process exclude each other
too) and an expiry: a process that crashed while holding it blocks others only until then.
Acquire is one conditional UPDATE ("take it if free, expired, or already mine") and, if no row
exists yet, one INSERT whose primary key decides a race. Release deletes the row only if it is
still ours.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta

from sqlalchemy import delete, or_, update
from sqlalchemy.exc import IntegrityError

from bot.storage.db import Database
from bot.storage.models import Lock, utcnow

log = logging.getLogger(__name__)

MAX_NAME = 64


def new_holder(prefix: str = "") -> str:
    """A holder name unique to one acquisition: host, process and a random part (for logs)."""
    base = f"{socket.gethostname()[:20]}:{os.getpid()}:{uuid.uuid4().hex[:10]}"
    return f"{prefix}{base}"[:120]


def try_acquire(db: Database, name: str, holder: str, ttl: timedelta, now: datetime | None = None) -> bool:
    """Take the lease `name` for `holder` until now + ttl; False if someone else holds it.

    Blocking (run it through Database.run)."""
    if len(name) > MAX_NAME:
        raise ValueError(f"lease name too long: {name!r}")
    now = now or utcnow()
    expires = now + ttl
    with db.session() as s:
        taken = s.execute(
            update(Lock)
            .where(Lock.name == name, or_(Lock.expires_at < now, Lock.holder == holder))  # type: ignore[arg-type]
            .values(holder=holder, expires_at=expires)
        ).rowcount
        if taken == 1:
            return True
        if s.get(Lock, name) is not None:
            return False
    try:
        with db.session() as s:
            s.add(Lock(name=name, holder=holder, expires_at=expires))
        return True
    except IntegrityError:  # another holder inserted it between our two statements
        return False


def release(db: Database, name: str, holder: str) -> None:
    """Give the lease back, only if it is still ours (it may have expired and been taken)."""
    with db.session() as s:
        s.execute(delete(Lock).where(Lock.name == name, Lock.holder == holder))  # type: ignore[arg-type]


def holder_of(db: Database, name: str, now: datetime | None = None) -> str | None:
    """Who holds `name` now (None when free or expired); for tests and diagnostics."""
    now = now or utcnow()
    with db.session() as s:
        row = s.get(Lock, name)
        if row is None or row.expires_at < now:
            return None
        return row.holder


@asynccontextmanager
async def lease(
    db: Database,
    name: str,
    ttl: timedelta,
    *,
    holder: str | None = None,
    clock: Callable[[], datetime] = utcnow,
) -> AsyncIterator[bool]:
    """`async with lease(db, "curator:7", ttl) as got:` — `got` says whether we hold it; the
    lease is released on exit if we did. Never blocks waiting: a busy lease means "skip"."""
    who = holder or new_holder()
    got = await db.run(try_acquire, db, name, who, ttl, clock())
    try:
        yield got
    finally:
        if got:
            try:
                await db.run(release, db, name, who)
            except Exception:  # it expires on its own; never mask the real outcome
                log.warning("could not release lease %s; it will expire", name)


def owner_lease_name(job: str, owner_id: int) -> str:
    """The lease name of one job for one owner, e.g. "curator:42"."""
    return f"{job}:{owner_id}"
