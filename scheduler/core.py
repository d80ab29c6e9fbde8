"""The Scheduler part: APScheduler timers in the bot's own event loop, rebuilt from the database.

Why this shape (LIBRARY-NOTES, APScheduler): an AsyncIOScheduler started inside the running
loop, with our Reminder table as the only store. APScheduler's defaults would drop a job that
is more than 1 s late (misfire_grace_time=1), so every job here is added with
``misfire_grace_time=None`` (run however late) and ``coalesce=True`` (one run for a backlog).
Timers are a cache: at start they are rebuilt from the table, and a sweep every
``sweep_seconds`` delivers anything due that no timer caught (set by another process, a
failed send whose back-off is over, a delivery abandoned by a crashed process).

Jobs never run the work inside APScheduler's own task: they start a task we track, so that
``stop()`` can let an in-flight delivery finish (APScheduler's shutdown would cancel it
halfway, leaving a claimed reminder for the lease to recover) and so that a slow run of a
periodic job is skipped rather than stacked.

Time: ``clock`` (injectable) is "now" for every decision; APScheduler itself runs on the real
clock, so a timer for clock-time T is set at real time ``utcnow() + (T - clock())``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.config import Settings
from bot.events import Outgoing
from bot.memory.db import Database, StorageError
from bot.memory.locks import lease, new_holder
from bot.memory.models import utcnow
from bot.memory.service import MemoryService
from bot.reminders import DELIVERING, SCHEDULED, ReminderService, ReminderView, delivery_buttons
from scheduler import reminders as delivery
from scheduler.curator import Curator
from scheduler.recheck import Rechecker

log = logging.getLogger(__name__)

PURGE_SECONDS = 60
CURATOR_COUNT_CHECK_SECONDS = 60
RECHECK_SECONDS = 3600
SWEEP_SECONDS = 30.0
STOP_TIMEOUT_SECONDS = 15.0
JOB_STOP_GRACE_SECONDS = 2.0


class Scheduler:
    """Timers, periodic jobs and reminder delivery for one process.

    `core` is the conversation core (its outbox sends, its memory issues buttons). Several
    Scheduler instances may share one database (several processes): every delivery is claimed
    in the database, every curator run takes a lease.
    """

    def __init__(
        self,
        core: Any,
        memory: MemoryService,
        db: Database,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = utcnow,
        sweep_seconds: float = SWEEP_SECONDS,
        retry_base_seconds: float = delivery.RETRY_BASE_SECONDS,
        retry_max_seconds: float = delivery.RETRY_MAX_SECONDS,
        send_timeout_seconds: float = delivery.SEND_TIMEOUT_SECONDS,
        delivery_lease: timedelta = delivery.DELIVERY_LEASE,
        name: str | None = None,
    ) -> None:
        self.core = core
        self.memory = memory
        self.db = db
        self.settings = settings
        self.clock = clock
        self.sweep_seconds = sweep_seconds
        self.retry_base = retry_base_seconds
        self.retry_max = retry_max_seconds
        self.send_timeout = send_timeout_seconds
        self.delivery_lease = delivery_lease
        self.holder = name or new_holder("sched:")
        self.reminders = ReminderService(db, settings, memory.timezone_of, timers=self, clock=clock)
        self.curator = Curator(core, memory, db, settings, clock=clock)
        self.rechecker = Rechecker(core, memory, db, settings, clock=clock)
        self._aps: AsyncIOScheduler | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._running_jobs: set[str] = set()
        self._in_flight: set[int] = set()
        self._timer_owner: dict[int, int] = {}
        self._interval_jobs: dict[str, tuple[float, Callable[[], Awaitable[Any]]]] = {}
        self._stopping = False
        self.sent = 0  # deliveries this instance completed (for logs and tests)
        st = settings
        self._interval_jobs.update(
            {
                "reminder_sweep": (sweep_seconds, self.sweep),
                "purge": (PURGE_SECONDS, self.purge),
                "curator": (st.curator_interval_minutes * 60, self.curator.tidy_all),
                "curator_by_count": (CURATOR_COUNT_CHECK_SECONDS, self.curator.tidy_busy_owners),
                "recheck": (RECHECK_SECONDS, self.rechecker.run),
            }
        )

    # --- lifecycle ---------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._aps is not None and self._aps.running and not self._stopping

    async def start(self) -> None:
        """Start inside the running loop: timers from the table, then the periodic jobs, then
        one sweep at once so that what came due while we were down goes out within seconds."""
        if self.running:
            return
        self._stopping = False
        self._aps = AsyncIOScheduler(
            timezone=timezone.utc,
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
        )
        self._aps.start()
        for name, (seconds, factory) in list(self._interval_jobs.items()):
            self._add_aps_interval(name, seconds, factory)
        await self.rebuild_timers()
        self._spawn(self.sweep(), "reminder_sweep:start")
        log.info("scheduler %s started", self.holder)

    async def stop(self) -> None:
        """Stop the timers; let deliveries in flight finish (bounded), leave the rest scheduled
        in the database for the next start."""
        if self._aps is None:
            return
        self._stopping = True
        aps, self._aps = self._aps, None
        try:
            aps.remove_all_jobs()
            aps.shutdown(wait=False)
        except Exception:  # already shut down
            pass
        # deliveries may take up to the send timeout and must not be cut between claim and
        # mark; periodic jobs (a tidy-up waiting on the model) get a moment, then are cancelled
        # (their writes are single transactions, so a cancelled run leaves nothing half done)
        pending = [t for t in self._tasks if not t.done()]
        deliveries = [t for t in pending if t.get_name().startswith("reminder:")]
        others = [t for t in pending if t not in deliveries]
        waits = [(deliveries, STOP_TIMEOUT_SECONDS), (others, JOB_STOP_GRACE_SECONDS)]
        for group, timeout in waits:
            if not group:
                continue
            _, still = await asyncio.wait(group, timeout=timeout)
            for t in still:
                t.cancel()
            if still:
                await asyncio.wait(still, timeout=2)
        self._timer_owner.clear()
        log.info("scheduler %s stopped", self.holder)

    # --- generic jobs --------------------------------------------------------------------------
    def add_interval_job(self, name: str, seconds: float, coro_factory: Callable[[], Awaitable[Any]]) -> None:
        """Run `coro_factory()` every `seconds` (first run one interval after start), never two
        runs of one job at once, and a failure logged, never raised. May be called before or
        after start()."""
        if seconds <= 0:
            raise ValueError("an interval job needs a positive interval")
        self._interval_jobs[name] = (seconds, coro_factory)
        if self._aps is not None:
            self._add_aps_interval(name, seconds, coro_factory)

    def _add_aps_interval(self, name: str, seconds: float, factory: Callable[[], Awaitable[Any]]) -> None:
        assert self._aps is not None

        async def fire() -> None:
            if name in self._running_jobs:
                log.info("job %s still running; this run is skipped", name)
                return
            try:
                work = factory()
            except Exception:
                log.exception("%s failed", name)
                return
            self._running_jobs.add(name)
            task = self._spawn(work, name)
            # freed when the run ends in any way, also when it is cancelled before it started
            task.add_done_callback(lambda _t: self._running_jobs.discard(name))

        self._aps.add_job(fire, IntervalTrigger(seconds=seconds, timezone=timezone.utc), id=f"job:{name}", replace_existing=True)

    def _spawn(self, coro: Awaitable[Any], name: str) -> asyncio.Task[Any]:
        async def guarded() -> None:
            try:
                await coro
            except asyncio.CancelledError:
                raise
            except StorageError as exc:
                log.warning("%s: storage unavailable (%s); will try again", name, exc)
            except Exception:
                log.exception("%s failed", name)

        task = asyncio.get_running_loop().create_task(guarded(), name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # a task cancelled before its first step (a stop or the loop closing right after a timer
        # fired) never awaits `coro`; close it so that it is not reported as never awaited
        task.add_done_callback(lambda t: coro.close() if t.cancelled() and hasattr(coro, "close") else None)
        return task

    async def purge(self) -> int:
        """Deleted memories lose their text after the undo window (one process at a time)."""
        async with lease(self.db, "purge", timedelta(minutes=5), clock=self.clock) as got:
            if not got:
                return 0
            return await self.memory.purge_due()

    # --- timers (the Timers protocol of bot.reminders) ----------------------------------------
    def _real_time(self, at: datetime) -> datetime:
        return utcnow() + (at - self.clock())

    def schedule(self, reminder_id: int, owner_id: int, at: datetime) -> None:
        if self._aps is None or self._stopping:
            return  # the table is the truth; start() and the sweep will pick it up
        self._timer_owner[reminder_id] = owner_id
        self._aps.add_job(
            self._fire,
            DateTrigger(run_date=self._real_time(at), timezone=timezone.utc),
            args=[reminder_id],
            id=f"reminder:{reminder_id}",
            replace_existing=True,
        )

    def unschedule(self, reminder_id: int) -> None:
        self._timer_owner.pop(reminder_id, None)
        if self._aps is None:
            return
        try:
            self._aps.remove_job(f"reminder:{reminder_id}")
        except Exception:  # JobLookupError: already fired or never set
            pass

    def unschedule_owner(self, owner_id: int) -> None:
        for rid in [r for r, o in self._timer_owner.items() if o == owner_id]:
            self.unschedule(rid)

    def has_timer(self, reminder_id: int) -> bool:
        return self._aps is not None and self._aps.get_job(f"reminder:{reminder_id}") is not None

    async def _fire(self, reminder_id: int) -> None:
        self._timer_owner.pop(reminder_id, None)
        if self.running:
            self._spawn(self.deliver(reminder_id), f"reminder:{reminder_id}")

    async def rebuild_timers(self) -> int:
        """One timer per scheduled reminder in the table (past-due ones fire at once)."""
        rows: list[ReminderView] = await self._tx(delivery.scheduled_rows)
        for r in rows:
            self.schedule(r.id, r.owner_id, delivery.eligible_at(r, self.retry_base, self.retry_max))
        return len(rows)

    # --- delivery ----------------------------------------------------------------------------
    def can_deliver_here(self, r: ReminderView) -> bool:
        """Only reminders whose platform has a sender in this process. The terminal's sender
        prints to whoever runs it, so only the configured console person's reminders go there."""
        return delivery.sendable_here(self.core.outbox.has(r.platform), r.chat, self.settings.console_user)

    async def sweep(self) -> int:
        """Deliver what is due and not in flight here: missed timers, other processes'
        reminders, retries whose back-off is over, stale claims. Returns how many it started.
        Also sets timers for reminders due before the next sweep that have none here."""
        if not self.running:
            return 0
        now = self.clock()
        horizon = now + timedelta(seconds=self.sweep_seconds * 2)
        rows: list[ReminderView] = await self._tx(delivery.scheduled_rows, horizon)
        stale: list[ReminderView] = await self._tx(delivery.stale_claims, now, self.delivery_lease)
        started = 0
        for r in [*rows, *stale]:
            if not self.can_deliver_here(r) or r.id in self._in_flight:
                continue
            at = delivery.eligible_at(r, self.retry_base, self.retry_max) if r.state == SCHEDULED else now
            if at <= now:
                self._spawn(self.deliver(r.id), f"reminder:{r.id}")
                started += 1
            elif not self.has_timer(r.id):
                self.schedule(r.id, r.owner_id, at)
        return started

    async def deliver(self, reminder_id: int) -> bool:
        """Deliver one reminder if it is due, ours to send, and nobody else has it. True if this
        call sent it."""
        if reminder_id in self._in_flight or not self.running:
            return False
        self._in_flight.add(reminder_id)
        try:
            return await self._deliver(reminder_id)
        finally:
            self._in_flight.discard(reminder_id)

    async def _deliver(self, reminder_id: int) -> bool:
        now = self.clock()
        row: ReminderView | None = await self._tx(delivery.read, reminder_id)
        if row is None or row.state not in (SCHEDULED, DELIVERING):
            return False
        if not self.can_deliver_here(row):
            return False  # left scheduled: a process (or a later start) with that sender sends it
        maybe_repeat = False
        if row.state == SCHEDULED:
            at = delivery.eligible_at(row, self.retry_base, self.retry_max)
            if at > now:
                self.schedule(row.id, row.owner_id, at)
                return False
            claimed = await self._tx(delivery.claim, row.id, self.holder, now, row.attempts)
        else:
            if row.claimed_at is not None and row.claimed_at > now - self.delivery_lease:
                return False  # being delivered by someone alive
            claimed = await self._tx(delivery.reclaim_stale, row.id, self.holder, now, self.delivery_lease)
            maybe_repeat = True
        if claimed is None:
            return False  # another process or task won the claim
        return await self._send_claimed(claimed, maybe_repeat=maybe_repeat)

    async def _send_claimed(self, r: ReminderView, *, maybe_repeat: bool) -> bool:
        now = self.clock()
        repeats = r.repeats
        next_due = delivery.next_occurrence(repeats, r.due_at, now, r.timezone) if repeats else None
        message = delivery.delivery_text(
            r.text, r.due_at, now, r.timezone, self.settings.reminder_grace_minutes,
            repeats=repeats, next_due=next_due, maybe_repeat=maybe_repeat,
        )
        try:
            buttons = await delivery_buttons(self.core, r.owner_id, r.id)
            out = Outgoing(text=message.text, buttons=buttons)
            await asyncio.wait_for(self.core.outbox.send(r.chat, out), timeout=self.send_timeout)
        except asyncio.CancelledError:
            raise
        except LookupError:  # the outbox has no sender for it (any more): not a failed send
            await self._tx(delivery.unclaim, r.id, self.holder)
            return False
        except Exception as exc:
            return await self._failed(r, exc)
        ok = await self._tx(delivery.mark_sent, r.id, self.holder, self.clock(), next_due)
        if not ok:
            log.info("reminder %s was cancelled or taken over while being sent", r.id)
        else:
            self.sent += 1
            if next_due is not None:
                self.schedule(r.id, r.owner_id, next_due)
        log.info("reminder %s delivered (%s)", r.id, message.kind)
        return True

    async def _failed(self, r: ReminderView, exc: BaseException) -> bool:
        error = f"{type(exc).__name__}: {exc}"
        now = self.clock()
        attempts = await self._tx(delivery.mark_failed, r.id, self.holder, now, error)
        if attempts is None:
            return False
        delay = delivery.retry_delay(attempts, self.retry_base, self.retry_max)
        log.warning("reminder %s: send failed (%s); attempt %d, retrying in %.0f s", r.id, error, attempts, delay)
        self.schedule(r.id, r.owner_id, now + timedelta(seconds=delay))
        return False

    # --- plumbing ----------------------------------------------------------------------------
    async def _tx(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.db.tx(fn, *args)


__all__ = ["Scheduler", "DELIVERING", "SCHEDULED"]
