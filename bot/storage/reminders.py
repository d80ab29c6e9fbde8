"""The Reminder table's rows: states, a detached view of one row, and the conditional updates
that setting, cancelling and delivering a reminder are made of (session-level, blocking; run
through Database.tx)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, select

from bot.events import ChatRef
from bot.storage.models import Action, ActionChange, Identity, Reminder
from bot.when.recurrence import Recurrence
from bot.when.zones import is_valid_timezone

log = logging.getLogger(__name__)

SCHEDULED = "scheduled"
DELIVERING = "delivering"
DELIVERED = "delivered"
CANCELLED = "cancelled"
PENDING_STATES = (SCHEDULED, DELIVERING)
MAX_TEXT = 1000
MAX_ERROR = 300


@dataclass(frozen=True)
class ReminderView:
    """A detached copy of one Reminder row."""

    id: int
    owner_id: int
    text: str
    due_at: datetime
    timezone: str
    recurrence: str | None
    platform: str
    chat_id: str
    user_id: str | None
    state: str
    attempts: int
    claimed_at: datetime | None
    claimed_by: str | None
    delivered_at: datetime | None
    last_error: str | None
    uid: str = ""  # the stable id programs use (the HTTP API, MCP), as in backups

    @classmethod
    def of(cls, r: Reminder) -> "ReminderView":
        assert r.id is not None
        return cls(
            id=r.id,
            owner_id=r.owner_id,
            text=r.text,
            due_at=r.due_at,
            # a zone that is not one (written before imports were checked) reads as UTC, so the
            # reminder is still listed and delivered instead of failing on every try
            timezone=r.timezone if is_valid_timezone(r.timezone) else "UTC",
            recurrence=r.recurrence,
            platform=r.platform,
            chat_id=r.chat_id,
            user_id=r.user_id,
            state=r.state,
            attempts=r.attempts,
            claimed_at=r.claimed_at,
            claimed_by=r.claimed_by,
            delivered_at=r.delivered_at,
            last_error=r.last_error,
            uid=r.uid,
        )

    @property
    def chat(self) -> ChatRef:
        return ChatRef(self.platform, self.chat_id, self.user_id)

    @property
    def repeats(self) -> Recurrence | None:
        """The recurrence, or None (also for a value that does not read: then it is one-off)."""
        if not self.recurrence:
            return None
        try:
            return Recurrence.from_str(self.recurrence)
        except ValueError:
            log.warning("reminder %s has an unreadable recurrence; treating it as one-off", self.id)
            return None


# --- setting and cancelling -------------------------------


def insert(s: Session, owner_id: int, chat: ChatRef, what: str, due: datetime, tz: str, recurrence: str | None) -> ReminderView:
    r = Reminder(
        owner_id=owner_id,
        text=what[:MAX_TEXT],
        due_at=due,
        timezone=tz,
        recurrence=recurrence,
        platform=chat.platform,
        chat_id=chat.chat_id,
        user_id=chat.user_id,
        state=SCHEDULED,
    )
    s.add(r)
    s.flush()
    return ReminderView.of(r)


def record(s: Session, owner_id: int, kind: str, verb: str, reminder_id: int, before: str | None, after: str) -> str:
    """The person's action on a reminder, for /undo (bot/memory/writing/undo.py puts the state
    back). The summary refers to the reminder ({r12}); its text is never copied."""
    action = Action(owner_id=owner_id, kind=kind, summary=f"{verb} {{r{reminder_id}}}")
    s.add(action)
    s.flush()
    s.add(ActionChange(owner_id=owner_id, action_id=action.id, target="reminder", ref=str(reminder_id),
                       before_json=json.dumps({"state": before}), after_json=json.dumps({"state": after})))
    return action.id


def set_reminder(
    s: Session, owner_id: int, chat: ChatRef, what: str, due: datetime, tz: str, recurrence: str | None,
    *, verb: str = "setting the reminder",
) -> tuple[ReminderView, str]:
    """A new reminder as the person's action: (the reminder, the action's id)."""
    view = insert(s, owner_id, chat, what, due, tz, recurrence)
    return view, record(s, owner_id, "reminder_set", verb, view.id, None, SCHEDULED)


def same_pending(s: Session, owner_id: int, what: str, due: datetime, recurrence: str | None) -> ReminderView | None:
    """A pending reminder with the same words, time and repetition (a duplicate), or None."""
    wanted = " ".join(what.split()).casefold()
    for r in pending(s, owner_id):
        if " ".join(r.text.split()).casefold() == wanted and r.recurrence == recurrence and abs(
            (_aware(r.due_at) - _aware(due)).total_seconds()) < 60:
            return r
    return None


def _aware(at: datetime) -> datetime:
    from datetime import timezone

    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


def cancel_as_action(s: Session, owner_id: int, reminder_id: int) -> tuple[bool, ReminderView | None, str | None]:
    """Cancel (or stop, a repeating one) as the person's action: (cancelled now, the reminder,
    the action's id for Undo)."""
    cancelled, view = cancel_row(s, owner_id, reminder_id)
    if not cancelled or view is None:
        return cancelled, view, None
    verb = "stopping the repeating reminder" if view.recurrence else "cancelling the reminder"
    return True, view, record(s, owner_id, "reminder_cancel", verb, reminder_id, SCHEDULED, CANCELLED)


def get(s: Session, owner_id: int, reminder_id: int) -> ReminderView | None:
    r = s.get(Reminder, reminder_id)
    if r is None or r.owner_id != owner_id:
        return None
    return ReminderView.of(r)


def find_uid(s: Session, owner_id: int, uid: str) -> ReminderView | None:
    """This owner's reminder with this uid (any state)."""
    r = s.exec(select(Reminder).where(Reminder.owner_id == owner_id, Reminder.uid == uid)).first()
    return ReminderView.of(r) if r is not None else None


def pending(s: Session, owner_id: int) -> list[ReminderView]:
    stmt = (
        select(Reminder)
        .where(Reminder.owner_id == owner_id, Reminder.state.in_(PENDING_STATES))  # type: ignore[attr-defined]
        .order_by(Reminder.due_at, Reminder.id)  # type: ignore[arg-type]
    )
    return [ReminderView.of(r) for r in s.exec(stmt)]


def one_offs_in_zone(s: Session, owner_id: int, tz: str, after: datetime) -> list[ReminderView]:
    """The person's scheduled one-off reminders read in zone `tz` that are still ahead: the ones
    a change of time zone could move."""
    return [r for r in pending(s, owner_id)
            if r.state == SCHEDULED and not r.recurrence and r.timezone == tz and _aware(r.due_at) > _aware(after)]


def move_due(s: Session, owner_id: int, reminder_id: int, was: datetime, due: datetime, tz: str) -> bool:
    """Move a scheduled reminder to `due` in zone `tz`, only if it is still due at `was` (one
    conditional UPDATE: a reminder delivered or changed meanwhile is left alone)."""
    done = s.execute(
        update(Reminder)
        .where(
            Reminder.id == reminder_id,  # type: ignore[arg-type]
            Reminder.owner_id == owner_id,  # type: ignore[arg-type]
            Reminder.state == SCHEDULED,  # type: ignore[arg-type]
            Reminder.due_at == was,  # type: ignore[arg-type]
        )
        .values(due_at=due, timezone=tz, version=Reminder.version + 1)
    ).rowcount
    return done == 1


def cancel_row(s: Session, owner_id: int, reminder_id: int) -> tuple[bool, ReminderView | None]:
    """(whether this call cancelled it, the reminder or None if not this owner's). One conditional
    UPDATE, so a reminder being delivered right now cannot be half-cancelled: a delivery that
    finishes after this keeps it cancelled (its own update is conditional on 'delivering')."""
    done = s.execute(
        update(Reminder)
        .where(
            Reminder.id == reminder_id,  # type: ignore[arg-type]
            Reminder.owner_id == owner_id,  # type: ignore[arg-type]
            Reminder.state.in_(PENDING_STATES),  # type: ignore[attr-defined]
        )
        .values(state=CANCELLED, version=Reminder.version + 1)
    ).rowcount
    return done == 1, get(s, owner_id, reminder_id)


def cancel_owner(s: Session, owner_id: int) -> list[int]:
    ids = [r.id for r in pending(s, owner_id)]
    if ids:
        s.execute(
            update(Reminder)
            .where(Reminder.owner_id == owner_id, Reminder.state.in_(PENDING_STATES))  # type: ignore[arg-type,attr-defined]
            .values(state=CANCELLED)
        )
    return ids


# --- delivering -----------------------------------------------------


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


def display_name(s: Session, platform: str, user_id: str | None) -> str:
    """The name a person goes by on a platform (for "a reminder for <name>"), or ""."""
    if not user_id:
        return ""
    row = s.exec(select(Identity.display_name).where(Identity.platform == platform, Identity.user_id == user_id)).first()
    return row or ""


SNOOZE_VERB = "snoozing the reminder"


def snoozed(s: Session, owner_id: int, reminder_id: int) -> bool:
    """Whether this reminder is the snoozed repeat of an earlier one (its delivery says so). A
    snooze is the person's action that set it (`set_reminder(verb=SNOOZE_VERB)`), so the action
    log already knows; no column is needed."""
    found = s.exec(
        select(Action.id).where(
            Action.owner_id == owner_id,
            Action.kind == "reminder_set",
            Action.summary == f"{SNOOZE_VERB} {{r{reminder_id}}}",
        )
    ).first()
    return found is not None
