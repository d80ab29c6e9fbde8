"""Delivering reminders exactly once (DESIGN.md section 5).

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

Late delivery: a reminder found after its time (the bot was down, or sends failed) says how
late it is; beyond ``settings.reminder_grace_minutes`` it is delivered as *missed*. A repeating
reminder that missed several occurrences is delivered once, and continues with its next
future occurrence (no burst of catch-ups).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, select

from bot import render
from bot.events import ChatRef
from bot.memory.models import Reminder
from bot.reminders import DELIVERED, DELIVERING, SCHEDULED, ReminderView
from bot.timeparse import Recurrence, format_delay, format_local

log = logging.getLogger(__name__)

#: Lateness below this is "on time": timers fire within milliseconds; the sweep within seconds.
ON_TIME = timedelta(seconds=5)
#: A claim older than this with no outcome belongs to a dead process (see module docstring).
DELIVERY_LEASE = timedelta(minutes=10)
#: The longest one send may take before it counts as failed.
SEND_TIMEOUT_SECONDS = 60.0
RETRY_BASE_SECONDS = 30.0
RETRY_MAX_SECONDS = 3600.0
MAX_ERROR = 300


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
) -> Delivery:
    """The message of a delivered reminder: the quoted text, and for a late one how late it is
    and when it was due (in the zone it was set in)."""
    kind = lateness(due, now, grace_minutes)
    quoted = render.quote(what, 1000)
    due_local = format_local(due, tz)
    delay = format_delay((now - due).total_seconds())
    if kind == "on_time":
        text = f"⏰ Reminder: {quoted}"
    elif kind == "late":
        text = f"⏰ Reminder, {delay}: {quoted}\n(It was due {due_local}; I couldn't send it on time.)"
    else:
        text = (
            f"⏰ Missed reminder ({delay}): {quoted}\n"
            f"It was due {due_local}, but I was not able to deliver it then."
        )
    if repeats is not None and next_due is not None:
        text += f"\nRepeats {repeats.describe()}; next: {format_local(next_due, tz)}."
    if maybe_repeat:
        text += "\n(I was interrupted while sending this earlier, so you may have seen it already.)"
    return Delivery(text, kind)


def sendable_here(has_sender: bool, chat: ChatRef, console_user: str) -> bool:
    """Whether this process may push to `chat`: it has a sender for the platform, and for the
    terminal only the configured console person's messages (its sender prints whatever it is
    given to whoever runs the chat, so another person's reminder must not go there)."""
    if not has_sender:
        return False
    if chat.platform == "console":
        return (chat.user_id or chat.chat_id) == console_user
    return True


# --- storage (session-level, blocking) -----------------------------------------------------


def read(s: Session, reminder_id: int) -> ReminderView | None:
    r = s.get(Reminder, reminder_id)
    return ReminderView.of(r) if r is not None else None


def claim(s: Session, reminder_id: int, holder: str, now: datetime, seen_attempts: int) -> ReminderView | None:
    """scheduled -> delivering, in one conditional UPDATE; the row if we won it, else None.

    Must be the first statement of its transaction (SQLite upgrades a read transaction to a
    write one only if nothing was written since it began)."""
    won = s.execute(
        update(Reminder)
        .where(
            Reminder.id == reminder_id,  # type: ignore[arg-type]
            Reminder.state == SCHEDULED,  # type: ignore[arg-type]
            Reminder.due_at <= now,  # type: ignore[arg-type]
            Reminder.attempts == seen_attempts,  # type: ignore[arg-type]
        )
        .values(state=DELIVERING, claimed_at=now, claimed_by=holder, version=Reminder.version + 1)
    ).rowcount
    if won != 1:
        return None
    return read(s, reminder_id)


def reclaim_stale(s: Session, reminder_id: int, holder: str, now: datetime, lease: timedelta) -> ReminderView | None:
    """Take over a delivery whose claimer vanished (claimed longer ago than the lease)."""
    won = s.execute(
        update(Reminder)
        .where(
            Reminder.id == reminder_id,  # type: ignore[arg-type]
            Reminder.state == DELIVERING,  # type: ignore[arg-type]
            Reminder.claimed_at < now - lease,  # type: ignore[arg-type,operator]
        )
        .values(claimed_at=now, claimed_by=holder, version=Reminder.version + 1)
    ).rowcount
    if won != 1:
        return None
    return read(s, reminder_id)


def mark_sent(s: Session, reminder_id: int, holder: str, now: datetime, next_due: datetime | None) -> bool:
    """delivering -> delivered (or back to scheduled at `next_due` for a repeating one), only if
    still ours: False when it was cancelled or taken over meanwhile."""
    values: dict[str, object] = {"delivered_at": now, "last_error": None, "version": Reminder.version + 1}
    if next_due is None:
        values.update(state=DELIVERED)
    else:
        values.update(state=SCHEDULED, due_at=next_due, attempts=0, claimed_at=None, claimed_by=None)
    done = s.execute(
        update(Reminder)
        .where(Reminder.id == reminder_id, Reminder.state == DELIVERING, Reminder.claimed_by == holder)  # type: ignore[arg-type]
        .values(**values)
    ).rowcount
    return done == 1


def mark_failed(s: Session, reminder_id: int, holder: str, now: datetime, error: str) -> int | None:
    """delivering -> scheduled with attempts + 1 and the time of this attempt in claimed_at (the
    back-off counts from it). Returns the number of attempts, or None if it was not ours."""
    done = s.execute(
        update(Reminder)
        .where(Reminder.id == reminder_id, Reminder.state == DELIVERING, Reminder.claimed_by == holder)  # type: ignore[arg-type]
        .values(
            state=SCHEDULED,
            attempts=Reminder.attempts + 1,
            claimed_at=now,
            claimed_by=None,
            last_error=error[:MAX_ERROR],
            version=Reminder.version + 1,
        )
    ).rowcount
    if done != 1:
        return None
    r = s.get(Reminder, reminder_id)
    return r.attempts if r is not None else None


def unclaim(s: Session, reminder_id: int, holder: str) -> bool:
    """Give a claim back untried (this process lost its sender, e.g. the terminal chat ended
    just as the reminder came due): scheduled again, no attempt counted, no back-off."""
    done = s.execute(
        update(Reminder)
        .where(Reminder.id == reminder_id, Reminder.state == DELIVERING, Reminder.claimed_by == holder)  # type: ignore[arg-type]
        .values(state=SCHEDULED, claimed_at=None, claimed_by=None, version=Reminder.version + 1)
    ).rowcount
    return done == 1


def scheduled_rows(s: Session, before: datetime | None = None) -> list[ReminderView]:
    """Every scheduled reminder (optionally only those due before `before`), soonest first."""
    stmt = select(Reminder).where(Reminder.state == SCHEDULED)
    if before is not None:
        stmt = stmt.where(Reminder.due_at <= before)  # type: ignore[arg-type]
    stmt = stmt.order_by(Reminder.due_at, Reminder.id)  # type: ignore[arg-type]
    return [ReminderView.of(r) for r in s.exec(stmt)]


def stale_claims(s: Session, now: datetime, lease: timedelta) -> list[ReminderView]:
    stmt = select(Reminder).where(Reminder.state == DELIVERING, Reminder.claimed_at < now - lease)  # type: ignore[arg-type,operator]
    return [ReminderView.of(r) for r in s.exec(stmt)]
