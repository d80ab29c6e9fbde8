"""Delivering reminders exactly once (docs/ARCHITECTURE.md section 5).

The Reminder table is the source of truth; timers only say "look at reminder 12 now". A
delivery is:

1. claim: ONE conditional UPDATE ``state: scheduled -> delivering WHERE state = 'scheduled'
   AND due_at <= now`` (plus ``attempts = <as read>``, so a retry's back-off is honoured),
   and only the process whose UPDATE changed a row sends. Two processes, a restart, a timer and
   the sweep racing each other: one row count of 1, so one send.
2. send straight through the outbox (not ``core.push``, which swallows errors), bounded by a
   timeout, with Done / Snooze buttons.
3. mark: ``delivering -> delivered`` (a repeating one gets its next due time and goes back to
   ``scheduled``), conditional on still being ``delivering`` and claimed by us; a cancel that
   came in meanwhile wins.

A failed send (the platform is down, the sender raised or timed out) puts the row back to
``scheduled`` with ``attempts + 1``; it is retried after a back-off (``retry_delay``: 30 s,
1 min, 2 min ... capped at 1 h) for as long as it takes: never dropped. ``claimed_at`` then
holds the time of the failed attempt, which is what the back-off counts from.

Stuck in 'delivering' (the process died between claim and mark): the claim is a lease.
After ``DELIVERY_LEASE`` (10 minutes, far longer than ``SEND_TIMEOUT``, so a live sender never
loses it) any process may re-claim the row with a second conditional UPDATE on
``claimed_at < now - lease`` and deliver it, saying that it may be a repeat. We chose
"at least once, labelled" over "at most once" for this one window: the crash may have come
before the message left, and a lost reminder is worse than a repeat that says it may be one.

Privately, always: a reminder is the person's own business ("take my antidepressants"), so it
goes to their private chat even when it was set in a group or through an ephemeral slash
command (the adapter sends a private Outgoing for a group chat to the person directly). If they
cannot be reached privately (never started the bot, DMs closed), the group gets only "a reminder
for <name>", never its text.

Late delivery: a reminder found after its time (the bot was down, or sends failed) says how
late it is; beyond ``settings.reminder_grace_minutes`` it is delivered as *missed*. A repeating
reminder that missed several occurrences is delivered once, and continues with its next
future occurrence (no burst of catch-ups).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta


from bot.config import Settings
from bot.core import render
from bot.events import Button, ChatRef, Outbox, Outgoing
from bot.storage import reminders as rows
from bot.storage.db import Database
from bot.storage.leases import new_holder
from bot.storage.models import utcnow
from bot.storage.reminders import DELIVERING, SCHEDULED, ReminderView
from scheduler.timers import Timers
from bot.when.recurrence import Recurrence
from bot.when.zones import format_delay, format_local

log = logging.getLogger(__name__)

#: Lateness below this is "on time": timers fire within milliseconds; the sweep within seconds.
ON_TIME = timedelta(seconds=5)
#: A claim older than this with no outcome belongs to a dead process (see module docstring).
DELIVERY_LEASE = timedelta(minutes=10)
#: The longest one send may take before it counts as failed.
SEND_TIMEOUT_SECONDS = 60.0
RETRY_BASE_SECONDS = 30.0
RETRY_MAX_SECONDS = 3600.0
SWEEP_SECONDS = 30.0

# Done / Snooze buttons for one delivered reminder: (owner_id, reminder_id) -> rows of buttons
ButtonsFor = Callable[[int, int], Awaitable[tuple[tuple[Button, ...], ...]]]


# --- pure rules ----------------------------------------------------------------------------


def retry_delay(attempts: int, base: float = RETRY_BASE_SECONDS, cap: float = RETRY_MAX_SECONDS) -> float:
    """Seconds to wait after the `attempts`-th failed send: base, 2*base, 4*base ... <= cap."""
    if attempts <= 0:
        return 0.0
    return float(min(cap, base * (2 ** min(attempts - 1, 30))))


def eligible_at(r: ReminderView, base: float = RETRY_BASE_SECONDS, cap: float = RETRY_MAX_SECONDS) -> datetime:
    """When a scheduled reminder may be (re)tried: its due time, or after a failure the back-off
    counted from the failed attempt."""
    if r.attempts <= 0 or r.claimed_at is None:
        return r.due_at
    return max(r.due_at, r.claimed_at + timedelta(seconds=retry_delay(r.attempts, base, cap)))


def next_occurrence(recurrence: Recurrence, due: datetime, now: datetime, tz: str) -> datetime:
    """The first occurrence after both the one just delivered and now, so occurrences missed
    while the bot was down are not delivered one after another."""
    nxt = recurrence.next_after(due, tz)
    guard = 0
    while nxt <= now:
        if recurrence.kind in ("interval", "days"):
            nxt = recurrence.next_after(nxt, tz)
            guard += 1
            if guard > 100_000:  # pragma: no cover - an interval of >= 5 minutes over 900 years
                return recurrence.next_after(now, tz)
        else:
            nxt = recurrence.next_after(now, tz)
    return nxt


def lateness(due: datetime, now: datetime, grace_minutes: int) -> str:
    """'on_time', 'late' (delivered with a note) or 'missed' (later than the grace setting)."""
    delay = now - due
    if delay < ON_TIME:
        return "on_time"
    if delay <= timedelta(minutes=grace_minutes):
        return "late"
    return "missed"


@dataclass(frozen=True)
class Delivery:
    text: str
    kind: str  # on_time | late | missed


def delivery_text(
    what: str,
    due: datetime,
    now: datetime,
    tz: str,
    grace_minutes: int,
    *,
    repeats: Recurrence | None = None,
    next_due: datetime | None = None,
    maybe_repeat: bool = False,
    snoozed: bool = False,
) -> Delivery:
    """The message of a delivered reminder: the quoted text, and for a late one how late it is
    and when it was due (in the zone it was set in); a snoozed one says it is the snoozed repeat,
    so it does not read like a duplicate of the first."""
    kind = lateness(due, now, grace_minutes)
    quoted = render.quote(what, 1000)
    due_local = format_local(due, tz)
    delay = format_delay((now - due).total_seconds())
    name = "Snoozed reminder" if snoozed else "Reminder"
    if kind == "on_time":
        text = f"⏰ {name}: {quoted}"
    elif kind == "late":
        text = f"⏰ {name}, {delay}: {quoted}\n(It was due {due_local}; I couldn't send it on time.)"
    else:
        text = (
            f"⏰ Missed {name.lower()} ({delay}): {quoted}\n"
            f"It was due {due_local}, but I was not able to deliver it then."
        )
    if repeats is not None and next_due is not None:
        text += f"\nRepeats {repeats.describe()}; next: {format_local(next_due, tz)}."
    if maybe_repeat:
        text += "\n(I was interrupted while sending this earlier, so you may have seen it already.)"
    return Delivery(text, kind)


def pointer_text(name: str) -> str:
    """What a group sees of a reminder that could not be sent privately: whose, never what."""
    who = f"for {name.strip()}" if name.strip() else "for someone here"
    return (f"⏰ I have a reminder {who}, but I can only send it in a private chat, and I can't "
            "write to them there yet.")


def sendable_here(has_sender: bool, chat: ChatRef, console_user: str) -> bool:
    """Whether this process may push to `chat`: it has a sender for the platform, and for the
    terminal only the configured console person's messages (its sender prints whatever it is
    given to whoever runs the chat, so another person's reminder must not go there)."""
    if not has_sender:
        return False
    if chat.platform == "console":
        return (chat.user_id or chat.chat_id) == console_user
    return True


# --- the delivery part -----------------------------------------------------------------------


class ReminderDelivery:
    """Timers for reminders, the sweep, and delivering exactly once, for one process.

    Several processes may share one database: every delivery is claimed in the database. It is
    also the `Timers` the reminder verbs (bot.features.reminders) tell about changes.
    """

    def __init__(
        self,
        timers: Timers,
        db: Database,
        outbox: Outbox,
        settings: Settings,
        buttons_for: ButtonsFor,
        *,
        clock: Callable[[], datetime] = utcnow,
        sweep_seconds: float = SWEEP_SECONDS,
        retry_base_seconds: float = RETRY_BASE_SECONDS,
        retry_max_seconds: float = RETRY_MAX_SECONDS,
        send_timeout_seconds: float = SEND_TIMEOUT_SECONDS,
        delivery_lease: timedelta = DELIVERY_LEASE,
        name: str | None = None,
    ) -> None:
        self.timers = timers
        self.db = db
        self.outbox = outbox
        self.settings = settings
        self.buttons_for = buttons_for
        self.clock = clock
        self.sweep_seconds = sweep_seconds
        self.retry_base = retry_base_seconds
        self.retry_max = retry_max_seconds
        self.send_timeout = send_timeout_seconds
        self.delivery_lease = delivery_lease
        self.holder = name or new_holder("sched:")
        self._in_flight: set[int] = set()
        self._timer_owner: dict[int, int] = {}
        self.sent = 0  # deliveries this instance completed (for logs and tests)
        timers.add_interval_job("reminder_sweep", sweep_seconds, self.sweep)
        timers.on_start(self._on_start)

    @property
    def running(self) -> bool:
        return self.timers.running

    async def _on_start(self) -> None:
        """Timers from the table, then one sweep at once so that what came due while we were
        down goes out within seconds."""
        self._timer_owner.clear()
        await self.rebuild_timers()
        self.timers.spawn(self.sweep(), "reminder_sweep:start")

    # --- timers (the Timers protocol of bot.features.reminders) ---------------------------------
    def schedule(self, reminder_id: int, owner_id: int, at: datetime) -> None:
        # the table is the truth: when stopped, start() and the sweep will pick it up
        if self.timers.at(_key(reminder_id), at, self._fire, reminder_id):
            self._timer_owner[reminder_id] = owner_id

    def unschedule(self, reminder_id: int) -> None:
        self._timer_owner.pop(reminder_id, None)
        self.timers.cancel(_key(reminder_id))

    def unschedule_owner(self, owner_id: int) -> None:
        for rid in [r for r, o in self._timer_owner.items() if o == owner_id]:
            self.unschedule(rid)

    def has_timer(self, reminder_id: int) -> bool:
        return self.timers.has(_key(reminder_id))

    async def _fire(self, reminder_id: int) -> None:
        self._timer_owner.pop(reminder_id, None)
        if self.running:
            self._spawn_delivery(reminder_id)

    def _spawn_delivery(self, reminder_id: int) -> None:
        self.timers.spawn(self.deliver(reminder_id), _key(reminder_id), finish=True)

    async def rebuild_timers(self) -> int:
        """One timer per scheduled reminder in the table (past-due ones fire at once)."""
        found: list[ReminderView] = await self.db.tx(rows.scheduled_rows)
        for r in found:
            self.schedule(r.id, r.owner_id, eligible_at(r, self.retry_base, self.retry_max))
        return len(found)

    # --- delivery ----------------------------------------------------------------------------
    def can_deliver_here(self, r: ReminderView) -> bool:
        """Only reminders whose platform has a sender in this process. The terminal's sender
        prints to whoever runs it, so only the configured console person's reminders go there."""
        return sendable_here(self.outbox.has(r.platform), r.chat, self.settings.console_user)

    async def sweep(self) -> int:
        """Deliver what is due and not in flight here: missed timers, other processes'
        reminders, retries whose back-off is over, stale claims. Returns how many it started.
        Also sets timers for reminders due before the next sweep that have none here."""
        if not self.running:
            return 0
        now = self.clock()
        horizon = now + timedelta(seconds=self.sweep_seconds * 2)
        due: list[ReminderView] = await self.db.tx(rows.scheduled_rows, horizon)
        stale: list[ReminderView] = await self.db.tx(rows.stale_claims, now, self.delivery_lease)
        started = 0
        for r in [*due, *stale]:
            if not self.can_deliver_here(r) or r.id in self._in_flight:
                continue
            at = eligible_at(r, self.retry_base, self.retry_max) if r.state == SCHEDULED else now
            if at <= now:
                self._spawn_delivery(r.id)
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
        row: ReminderView | None = await self.db.tx(rows.read, reminder_id)
        if row is None or row.state not in (SCHEDULED, DELIVERING):
            return False
        if not self.can_deliver_here(row):
            return False  # left scheduled: a process (or a later start) with that sender sends it
        maybe_repeat = False
        if row.state == SCHEDULED:
            at = eligible_at(row, self.retry_base, self.retry_max)
            if at > now:
                self.schedule(row.id, row.owner_id, at)
                return False
            claimed = await self.db.tx(rows.claim, row.id, self.holder, now, row.attempts)
        else:
            if row.claimed_at is not None and row.claimed_at > now - self.delivery_lease:
                return False  # being delivered by someone alive
            claimed = await self.db.tx(rows.reclaim_stale, row.id, self.holder, now, self.delivery_lease)
            maybe_repeat = True
        if claimed is None:
            return False  # another process or task won the claim
        return await self._send_claimed(claimed, maybe_repeat=maybe_repeat)

    async def _send_claimed(self, r: ReminderView, *, maybe_repeat: bool) -> bool:
        now = self.clock()
        try:  # whatever fails while composing is a failed attempt, never a claim left hanging
            repeats = r.repeats
            next_due = next_occurrence(repeats, r.due_at, now, r.timezone) if repeats else None
            snoozed = await self.db.tx(rows.snoozed, r.owner_id, r.id)
            message = delivery_text(
                r.text, r.due_at, now, r.timezone, self.settings.reminder_grace_minutes,
                repeats=repeats, next_due=next_due, maybe_repeat=maybe_repeat, snoozed=snoozed,
            )
            buttons = await self.buttons_for(r.owner_id, r.id)
            name = await self.db.tx(rows.display_name, r.platform, r.user_id)
            out = Outgoing(text=message.text, buttons=buttons, private=True, pointer=pointer_text(name))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return await self._failed(r, exc)
        try:
            await asyncio.wait_for(self.outbox.send(r.chat, out), timeout=self.send_timeout)
        except asyncio.CancelledError:
            raise
        except LookupError:  # the outbox has no sender for it (any more): not a failed send
            await self.db.tx(rows.unclaim, r.id, self.holder)
            return False
        except Exception as exc:
            return await self._failed(r, exc)
        ok = await self.db.tx(rows.mark_sent, r.id, self.holder, self.clock(), next_due)
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
        attempts = await self.db.tx(rows.mark_failed, r.id, self.holder, now, error)
        if attempts is None:
            return False
        delay = retry_delay(attempts, self.retry_base, self.retry_max)
        log.warning("reminder %s: send failed (%s); attempt %d, retrying in %.0f s", r.id, error, attempts, delay)
        self.schedule(r.id, r.owner_id, now + timedelta(seconds=delay))
        return False


def _key(reminder_id: int) -> str:
    return f"reminder:{reminder_id}"
