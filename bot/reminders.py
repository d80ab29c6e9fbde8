"""Reminders as people (and the chat model) see them: set, list, cancel, snooze, done.

The Reminder table is the source of truth (DESIGN.md section 5). This module writes it and
tells the scheduler's timers (a `Timers` object) what changed; the scheduler (scheduler/) owns
delivery. It knows nothing of APScheduler, so the verbs are tested without any timer running.

Times are read in the person's time zone by `bot.timeparse` and stored as UTC with the zone
they were set in (a recurring reminder keeps its wall-clock time in that zone). Every reply
states the exact time understood, in that zone, and quotes what will be reminded; anything
unclear or already past is a question back, and nothing is stored.

Entry points:
- `ReminderService` (core.services["reminders"]): the API the chat model's reminders tool and
  /forget_me use.
- `on_remind` (core.services["remind"]) for "/remind ..." and "remind me ..." messages,
  `on_list` (core.services["simple:reminders"]) for /reminders, and `on_press` for the
  buttons (action "reminder").
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import update
from sqlmodel import Session, select

from bot import commands as c
from bot import render
from bot.config import Settings
from bot.events import ButtonPress, ChatRef, Incoming, Outgoing
from bot.memory.buttons import ButtonSpec, Claim
from bot.memory.db import Database
from bot.memory.models import Reminder, utcnow
from bot.timeparse import (
    EXAMPLES,
    ParseProblem,
    Recurrence,
    ReminderRequest,
    format_local,
    parse_remind_me,
    parse_reminder,
    reminder_text,
)

if TYPE_CHECKING:
    from bot.core import Core, Turn

log = logging.getLogger(__name__)

SCHEDULED = "scheduled"
DELIVERING = "delivering"
DELIVERED = "delivered"
CANCELLED = "cancelled"
PENDING_STATES = (SCHEDULED, DELIVERING)

PRESS_ACTION = "reminder"
SNOOZE_CHOICES = ((10, "Snooze 10 min"), (60, "Snooze 1 h"))
MAX_LISTED = 25
MAX_TEXT = 1000


class Timers(Protocol):
    """What the reminder verbs tell the scheduler. Timers are only a cache of the table: a
    missed call is caught by the scheduler's periodic sweep."""

    def schedule(self, reminder_id: int, owner_id: int, at: datetime) -> None: ...

    def unschedule(self, reminder_id: int) -> None: ...

    def unschedule_owner(self, owner_id: int) -> None: ...


class NoTimers:
    """Timers for a setup without a running scheduler (tests of the verbs, export/import)."""

    def schedule(self, reminder_id: int, owner_id: int, at: datetime) -> None:
        return None

    def unschedule(self, reminder_id: int) -> None:
        return None

    def unschedule_owner(self, owner_id: int) -> None:
        return None


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

    @classmethod
    def of(cls, r: Reminder) -> "ReminderView":
        assert r.id is not None
        return cls(
            id=r.id,
            owner_id=r.owner_id,
            text=r.text,
            due_at=r.due_at,
            timezone=r.timezone,
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


# --- words (pure) ------------------------------------------------------------------------------


def confirmation_text(request: ReminderRequest) -> str:
    """The reply to a reminder that was set: what, and exactly when, in the person's zone."""
    return (
        f"⏰ I'll remind you: {render.quote(request.what, MAX_TEXT)}\n"
        f"When: {request.understood}\n"
        "/reminders lists your reminders and lets you cancel them."
    )


def ask_for_time(what: str) -> str:
    return (
        f"When should I remind you to {render.quote(what, 200)}? Say for example "
        f"“remind me in 10 minutes to …” or “/remind tomorrow at 9 …”. Nothing is set yet."
    )


def due_words(r: ReminderView) -> str:
    """When a pending reminder fires next, and how it repeats."""
    rec = r.repeats
    when = format_local(r.due_at, r.timezone)
    return f"{rec.describe()}, next {when}" if rec else when


def list_text(items: list[ReminderView]) -> str:
    if not items:
        return "You have no upcoming reminders. Set one with /remind <when> <what>, e.g. /remind tomorrow at 9 call mom."
    lines = [f"Your upcoming reminders ({len(items)}):"]
    for n, r in enumerate(items[:MAX_LISTED], 1):
        lines.append(f"{n}. {render.quote(r.text, 200)} — {due_words(r)}")
    if len(items) > MAX_LISTED:
        lines.append(f"… and {len(items) - MAX_LISTED} more.")
    return "\n".join(lines)


# --- storage (session-level, blocking; run through Database.run) -------------------------------


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


def get(s: Session, owner_id: int, reminder_id: int) -> ReminderView | None:
    r = s.get(Reminder, reminder_id)
    if r is None or r.owner_id != owner_id:
        return None
    return ReminderView.of(r)


def pending(s: Session, owner_id: int) -> list[ReminderView]:
    stmt = (
        select(Reminder)
        .where(Reminder.owner_id == owner_id, Reminder.state.in_(PENDING_STATES))  # type: ignore[attr-defined]
        .order_by(Reminder.due_at, Reminder.id)  # type: ignore[arg-type]
    )
    return [ReminderView.of(r) for r in s.exec(stmt)]


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


# --- the service -------------------------------------------------------------------------------


class ReminderService:
    """The reminder verbs. `clock` is injectable so that tests control "now"."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        timezone_of: Callable[[int], Any],
        *,
        timers: Timers | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.db = db
        self.settings = settings
        self._timezone_of = timezone_of
        self.timers: Timers = timers or NoTimers()
        self.clock = clock

    async def _tx(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await self.db.tx(fn, *args)

    # --- setting ---------------------------------------------------------------------------
    async def parse(self, owner_id: int, text: str) -> ReminderRequest | ParseProblem:
        tz = await self._timezone_of(owner_id)
        return parse_reminder(text, tz, self.clock())

    async def create(self, owner_id: int, chat: ChatRef, request: ReminderRequest) -> ReminderView:
        rec = request.recurrence.to_str() if request.recurrence else None
        view: ReminderView = await self._tx(insert, owner_id, chat, request.what, request.due_utc, request.tz, rec)
        self.timers.schedule(view.id, owner_id, view.due_at)
        return view

    async def set_text(self, owner_id: int, chat: ChatRef, text: str) -> tuple[bool, str, int | None]:
        """Set a reminder from "<when> <what>" (either order); (ok, reply, id)."""
        got = await self.parse(owner_id, text)
        if isinstance(got, ParseProblem):
            return False, got.message, None
        view = await self.create(owner_id, chat, got)
        return True, confirmation_text(got), view.id

    async def set_from_text(self, owner_id: int, chat: ChatRef, when: str, what: str) -> tuple[bool, str, int | None]:
        """For the chat model's reminders tool: `when` as the person said it ("tomorrow at 9"),
        `what` the task. Returns (ok, a message for the person/model, reminder id)."""
        when, what = (when or "").strip(), (what or "").strip()
        if not what:
            return False, "What should I remind you about?", None
        if not when:
            return False, ask_for_time(what), None
        return await self.set_text(owner_id, chat, reminder_text(when, what))

    # --- reading ---------------------------------------------------------------------------
    async def upcoming(self, owner_id: int) -> list[ReminderView]:
        return await self._tx(pending, owner_id)

    async def list_upcoming(self, owner_id: int) -> list[dict[str, Any]]:
        """For the chat model: id, text, due (local time string), recurrence description."""
        out = []
        for r in await self.upcoming(owner_id):
            rec = r.repeats
            out.append(
                {
                    "id": r.id,
                    "text": r.text,
                    "due": format_local(r.due_at, r.timezone),
                    "recurrence": rec.describe() if rec else None,
                }
            )
        return out

    async def get(self, owner_id: int, reminder_id: int) -> ReminderView | None:
        return await self._tx(get, owner_id, reminder_id)

    # --- changing --------------------------------------------------------------------------
    async def cancel(self, owner_id: int, reminder_id: int) -> tuple[bool, str]:
        cancelled, view = await self._tx(cancel_row, owner_id, reminder_id)
        if view is None:
            return False, f"There is no reminder {reminder_id}."
        if cancelled:
            self.timers.unschedule(reminder_id)
            verb = "Stopped the repeating reminder" if view.recurrence else "Cancelled the reminder"
            return True, f"{verb} {render.quote(view.text, 200)}."
        if view.state == CANCELLED:
            return False, f"The reminder {render.quote(view.text, 200)} was already cancelled."
        return False, f"The reminder {render.quote(view.text, 200)} was already delivered."

    async def snooze(self, owner_id: int, reminder_id: int, minutes: int) -> tuple[bool, str, int | None]:
        """A new one-off reminder `minutes` from now with the same text and chat. The original
        is left alone, so snoozing one occurrence of a repeating reminder does not move the
        series."""
        original = await self.get(owner_id, reminder_id)
        if original is None:
            return False, "That reminder no longer exists.", None
        due = self.clock() + timedelta(minutes=minutes)
        view: ReminderView = await self._tx(
            insert, owner_id, original.chat, original.text, due, original.timezone, None
        )
        self.timers.schedule(view.id, owner_id, due)
        return True, f"💤 Snoozed {render.quote(original.text, 200)} until {format_local(due, original.timezone)}.", view.id

    async def forget_owner(self, owner_id: int) -> None:
        """After /forget_me: nothing of this person stays scheduled (the rows are usually gone
        already; any left are cancelled) and no timer fires for them."""
        ids: list[int] = await self._tx(cancel_owner, owner_id)
        for rid in ids:
            self.timers.unschedule(rid)
        self.timers.unschedule_owner(owner_id)


# --- command and button handlers ---------------------------------------------------------------


def _service(core: "Core") -> ReminderService:
    return core.services["reminders"]


def _reply(turn: "Turn", text: str, **kwargs: Any) -> Outgoing:
    from bot.handlers import reply

    return reply(turn, text, **kwargs)


async def on_remind(core: "Core", turn: "Turn", intent: c.Remind, msg: Incoming) -> list[Outgoing]:
    """"/remind <when> <what>" and "remind me ... to ..." messages. A "remind me" message that
    is not a reminder request ("remind me what my wife's name is") is an ordinary chat turn."""
    service = _service(core)
    typed = intent.text.strip()
    is_slash = msg.text.lstrip().startswith("/")
    if is_slash and not typed.lower().startswith("me "):
        ok, text, _ = await service.set_text(turn.owner_id, turn.chat, typed)
        return [_reply(turn, text)]
    asked = parse_remind_me(typed if not is_slash else f"remind {typed}")
    if asked is None:
        if is_slash:
            return [_reply(turn, f"When should I remind you, and of what? For example: {EXAMPLES}.")]
        chat_handler = core.intent_handlers.get(c.Chat)
        if chat_handler is not None:
            return await chat_handler(core, turn, c.Chat(msg.text), msg)
        return [_reply(turn, f"When should I remind you, and of what? For example: {EXAMPLES}.")]
    when, what = asked
    if not when:
        return [_reply(turn, ask_for_time(what))]
    ok, text, _ = await service.set_text(turn.owner_id, turn.chat, reminder_text(when, what))
    return [_reply(turn, text)]


async def list_message(core: "Core", turn: "Turn") -> Outgoing:
    """The /reminders list with one Cancel (or Stop, for repeating ones) button per reminder.
    The buttons are not single-use: cancelling one must not disable the others; a second
    press is harmless (the cancel is conditional)."""
    items = await _service(core).upcoming(turn.owner_id)
    rows = []
    for n, r in enumerate(items[:MAX_LISTED], 1):
        label = f"Stop {n}" if r.recurrence else f"Cancel {n}"
        rows.append([ButtonSpec(label, PRESS_ACTION, {"op": "cancel", "id": r.id}, single_use=False)])
    buttons = await core.memory.issue_buttons(turn.owner_id, rows) if rows else ()
    return _reply(turn, list_text(items), buttons=buttons)


async def on_list(core: "Core", turn: "Turn", intent: c.Simple, msg: Incoming) -> list[Outgoing]:
    return [await list_message(core, turn)]


async def delivery_buttons(core: "Core", owner_id: int, reminder_id: int) -> tuple[tuple[Any, ...], ...]:
    """Done / Snooze 10 min / Snooze 1 h for a delivered reminder (one press retires all three)."""
    row = [ButtonSpec("Done", PRESS_ACTION, {"op": "done", "id": reminder_id})]
    row += [ButtonSpec(label, PRESS_ACTION, {"op": "snooze", "id": reminder_id, "minutes": m}) for m, label in SNOOZE_CHOICES]
    return await core.memory.issue_buttons(owner_id, [row])


async def on_press(core: "Core", turn: "Turn", claim: Claim, press: ButtonPress) -> list[Outgoing]:
    service = _service(core)
    op = claim.payload.get("op")
    rid = claim.payload.get("id")
    if not isinstance(rid, int) or op not in ("done", "snooze", "cancel"):
        return [Outgoing(notice="This button is not valid (any more).")]

    def edit(text: str, **kwargs: Any) -> Outgoing:
        return Outgoing(text=text, edit_of=press.message_id, private=turn.is_group, **kwargs)

    if op == "cancel":
        ok, text = await service.cancel(turn.owner_id, rid)
        refreshed = await list_message(core, turn)
        return [edit(refreshed.text, buttons=refreshed.buttons, notice=text)]
    view = await service.get(turn.owner_id, rid)
    if view is None:
        return [Outgoing(notice="That reminder no longer exists.")]
    if op == "done":
        text = f"✅ Done: {render.quote(view.text, 300)}"
        if view.repeats and view.state in PENDING_STATES:
            text += f"\nNext time: {format_local(view.due_at, view.timezone)}."
        return [edit(text, notice="Done.")]
    minutes = claim.payload.get("minutes")
    if not isinstance(minutes, int) or not 1 <= minutes <= 24 * 60:
        return [Outgoing(notice="This button is not valid (any more).")]
    ok, text, _ = await service.snooze(turn.owner_id, rid, minutes)
    return [edit(text, notice="Snoozed.")]
