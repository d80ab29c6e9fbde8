"""The daily model budget's ledger, kept in the ModelUsage table (one row per owner, UTC day, job).

Why in the database: the budget is per person per day, and a restart (or a second bot process
sharing the database) must not hand out a fresh budget. The numbers written are the ones the API
reported in `usage` after each call — the LLM client passes them in; local estimates are only
used *before* a call to decide whether it may go out.

Why an upsert: two model calls for the same person and job can finish at the same moment (a chat
turn and its background extraction run concurrently on PostgreSQL's connection pool); an
insert-then-update in Python would lose one of them. `INSERT ... ON CONFLICT DO UPDATE` adds the
tokens inside the database, on SQLite and PostgreSQL alike.

It implements bot.llm.client.Ledger. All work runs through `Database.run`, off the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timezone

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite

from bot.storage.db import Database
from bot.storage.models import ModelUsage


def utc_today() -> date:
    """The budget day: the UTC date, the same boundary for everyone (a time zone change cannot
    double a budget)."""
    return datetime.now(timezone.utc).date()


class DatabaseLedger:
    """Per-owner, per-day, per-job token usage in the ModelUsage table."""

    def __init__(self, db: Database, today: Callable[[], date] = utc_today) -> None:
        self.db = db
        self._today = today

    async def spent_today(self, owner_id: int) -> int:
        """Input plus output tokens charged to this owner today, over all jobs."""
        day = self._today().isoformat()

        def work() -> int:
            with self.db.session() as s:
                stmt = select(
                    func.coalesce(func.sum(ModelUsage.input_tokens + ModelUsage.output_tokens), 0)
                ).where(ModelUsage.owner_id == owner_id, ModelUsage.day == day)
                return int(s.execute(stmt).scalar_one())

        return await self.db.run(work)

    async def record(self, owner_id: int, job: str, input_tokens: int, output_tokens: int) -> None:
        """Add one call's reported usage to today's row for (owner, job), creating it if needed."""
        day = self._today().isoformat()
        values = {
            "owner_id": owner_id,
            "day": day,
            "job": job[:16],
            "input_tokens": max(0, int(input_tokens)),
            "output_tokens": max(0, int(output_tokens)),
            "calls": 1,
        }
        dialect = postgresql if self.db.dialect == "postgresql" else sqlite
        table = ModelUsage.__table__  # type: ignore[attr-defined]

        def work() -> None:
            stmt = dialect.insert(table).values(**values)
            stmt = stmt.on_conflict_do_update(
                index_elements=["owner_id", "day", "job"],
                set_={
                    "input_tokens": table.c.input_tokens + stmt.excluded.input_tokens,
                    "output_tokens": table.c.output_tokens + stmt.excluded.output_tokens,
                    "calls": table.c.calls + 1,
                },
            )
            with self.db.session() as s:
                s.execute(stmt)

        await self.db.run(work)

    async def usage_by_job(self, owner_id: int, day: date | None = None) -> dict[str, tuple[int, int, int]]:
        """{job: (input tokens, output tokens, calls)} for one owner and day (default today)."""
        day_text = (day or self._today()).isoformat()

        def work() -> dict[str, tuple[int, int, int]]:
            with self.db.session() as s:
                rows = s.execute(
                    select(ModelUsage.job, ModelUsage.input_tokens, ModelUsage.output_tokens, ModelUsage.calls).where(
                        ModelUsage.owner_id == owner_id, ModelUsage.day == day_text
                    )
                ).all()
                return {job: (int(i), int(o), int(c)) for job, i, o, c in rows}

        return await self.db.run(work)
