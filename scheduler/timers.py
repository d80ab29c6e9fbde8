"""Timers: APScheduler in the bot's own event loop, knowing no job.

Why this shape (LIBRARY-NOTES, APScheduler): an AsyncIOScheduler started inside the running
loop, with no job store of its own: what must survive a restart lives in our tables, and the
parts that own it (reminder delivery) rebuild their timers from them at start. APScheduler's
defaults would drop a job that is more than 1 s late (misfire_grace_time=1), so every job here
is added with ``misfire_grace_time=None`` (run however late) and ``coalesce=True`` (one run for
a backlog).

Jobs never run the work inside APScheduler's own task: they start a task we track, so that
``stop()`` can let work in flight finish (APScheduler's shutdown would cancel it halfway) and
so that a slow run of a periodic job is skipped rather than stacked. Work spawned with
``finish=True`` (a reminder being delivered) gets a long grace at stop; other work a short one,
then it is cancelled (its writes are single transactions, so nothing is left half done).

Time: ``clock`` (injectable) is "now" for every decision; APScheduler itself runs on the real
clock, so a timer for clock-time T is set at real time ``utcnow() + (T - clock())``.

Which jobs exist is decided by the composition root (bot/app.py), not here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.storage.db import StorageError
from bot.storage.models import utcnow

log = logging.getLogger(__name__)

STOP_TIMEOUT_SECONDS = 15.0
JOB_STOP_GRACE_SECONDS = 2.0

StartHook = Callable[[], Awaitable[Any]]


class Timers:
    """Interval jobs, one-off timers and tracked background work for one process."""

    def __init__(self, *, clock: Callable[[], datetime] = utcnow, name: str = "timers") -> None:
        self.clock = clock
        self.name = name
        self._aps: AsyncIOScheduler | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._finishing: set[asyncio.Task[Any]] = set()
        self._running_jobs: set[str] = set()
        self._interval_jobs: dict[str, tuple[float, Callable[[], Awaitable[Any]]]] = {}
        self._start_hooks: list[StartHook] = []
        self._stopping = False

    # --- lifecycle ---------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._aps is not None and self._aps.running and not self._stopping

    def on_start(self, hook: StartHook) -> None:
        """Awaited at every start, after the interval jobs are set (a part rebuilding its
        timers from the database, say)."""
        self._start_hooks.append(hook)

    async def start(self) -> None:
        """Start inside the running loop: the interval jobs, then the start hooks."""
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
        for hook in self._start_hooks:
            await hook()
        log.info("%s started", self.name)

    async def stop(self) -> None:
        """Stop the timers; let work in flight finish (bounded)."""
        if self._aps is None:
            return
        self._stopping = True
        aps, self._aps = self._aps, None
        try:
            aps.remove_all_jobs()
            aps.shutdown(wait=False)
        except Exception:  # already shut down
            pass
        pending = [t for t in self._tasks if not t.done()]
        lasting = [t for t in pending if t in self._finishing]
        others = [t for t in pending if t not in self._finishing]
        for group, timeout in ((lasting, STOP_TIMEOUT_SECONDS), (others, JOB_STOP_GRACE_SECONDS)):
            if not group:
                continue
            _, still = await asyncio.wait(group, timeout=timeout)
            for t in still:
                t.cancel()
            if still:
                await asyncio.wait(still, timeout=2)
        log.info("%s stopped", self.name)

    # --- interval jobs ---------------------------------------------------------------------------
    def add_interval_job(self, name: str, seconds: float, coro_factory: Callable[[], Awaitable[Any]]) -> None:
        """Run `coro_factory()` every `seconds` (first run one interval after start), never two
        runs of one job at once, and a failure logged, never raised. May be called before or
        after start(); a second job of the same name replaces the first."""
        if seconds <= 0:
            raise ValueError("an interval job needs a positive interval")
        self._interval_jobs[name] = (seconds, coro_factory)
        if self._aps is not None:
            self._add_aps_interval(name, seconds, coro_factory)

    @property
    def interval_jobs(self) -> frozenset[str]:
        return frozenset(self._interval_jobs)

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
            task = self.spawn(work, name)
            # freed when the run ends in any way, also when it is cancelled before it started
            task.add_done_callback(lambda _t: self._running_jobs.discard(name))

        self._aps.add_job(fire, IntervalTrigger(seconds=seconds, timezone=timezone.utc), id=f"job:{name}", replace_existing=True)

    # --- one-off timers --------------------------------------------------------------------------
    def at(self, key: str, when: datetime, fn: Callable[..., Awaitable[Any]], *args: Any) -> bool:
        """Call `fn(*args)` at clock-time `when` (past times fire at once); False when stopped."""
        if self._aps is None or self._stopping:
            return False
        real = utcnow() + (when - self.clock())
        self._aps.add_job(fn, DateTrigger(run_date=real, timezone=timezone.utc), args=list(args), id=key, replace_existing=True)
        return True

    def cancel(self, key: str) -> None:
        if self._aps is None:
            return
        try:
            self._aps.remove_job(key)
        except Exception:  # JobLookupError: already fired or never set
            pass

    def has(self, key: str) -> bool:
        return self._aps is not None and self._aps.get_job(key) is not None

    # --- tracked work ------------------------------------------------------------------------------
    def spawn(self, coro: Awaitable[Any], name: str, *, finish: bool = False) -> asyncio.Task[Any]:
        """Run `coro` as a tracked task: a failure is logged, never raised; `finish` work gets
        the long grace at stop."""

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
        if finish:
            self._finishing.add(task)
            task.add_done_callback(self._finishing.discard)
        # a task cancelled before its first step (a stop or the loop closing right after a timer
        # fired) never awaits `coro`; close it so that it is not reported as never awaited
        task.add_done_callback(lambda t: coro.close() if t.cancelled() and hasattr(coro, "close") else None)
        return task


__all__ = ["Timers"]
