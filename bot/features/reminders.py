"""Reminders as people (and the chat model) see them: set, list, cancel, snooze, done.

The Reminder table is the source of truth (docs/ARCHITECTURE.md section 5). This module writes it and
tells the scheduler's timers (a `Timers` object) what changed; the scheduler (scheduler/) owns
delivery. It knows nothing of APScheduler, so the verbs are tested without any timer running.

Times are read in the person's time zone by `bot.when.grammar` and stored as UTC with the zone
they were set in (a recurring reminder keeps its wall-clock time in that zone). Every reply
states the exact time understood, in that zone, and quotes what will be reminded; anything
unclear or already past is a question back, and nothing is stored.

Entry points:
- `ReminderService`: the API the chat model's reminders tool and /forget_me use.
- `ReminderCommands`: "/remind ..." and "remind me ..." messages, /reminders, and the buttons
  (action "reminder"): Done, Snooze, Cancel / Stop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Protocol

from bot.config import Settings
from bot.core import commands as c
from bot.core import render
from bot.core.buttons import ButtonSpec, Claim, Rows
from bot.core.core import Core
from bot.core.replies import reply
from bot.core.turn import Turn
from bot.events import ButtonPress, ChatRef, Incoming, Outgoing
from bot.storage.db import Database
from bot.storage.models import utcnow
from bot.storage.reminders import (
    CANCELLED,
    PENDING_STATES,
    ReminderView,
    cancel_owner,
    cancel_row,
    find_uid,
    get,
    insert,
    pending,
)
from bot.when.grammar import EXAMPLES, ParseProblem, ReminderRequest, parse_remind_me, parse_reminder, reminder_text
from bot.when.zones import format_local

log = logging.getLogger(__name__)

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

    async def by_uid(self, owner_id: int, uid: str) -> ReminderView | None:
        """For programs (the HTTP API, MCP), which know reminders by their stable uid."""
        return await self._tx(find_uid, owner_id, uid)

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


class ReminderCommands:
    """What people type and press about reminders, on top of the service."""

    def __init__(self, service: ReminderService) -> None:
        self.service = service

    async def on_remind(self, core: Core, turn: Turn, intent: c.Remind, msg: Incoming) -> list[Outgoing]:
        """"/remind <when> <what>" and "remind me ... to ..." messages (commands.parse already
        sent a "remind me" that is no reminder request to the chat)."""
        service = self.service
        typed = intent.text.strip()
        is_slash = msg.text.lstrip().startswith("/")
        if is_slash and not typed.lower().startswith("me "):
            ok, text, _ = await service.set_text(turn.owner_id, turn.chat, typed)
            return [reply(turn, text)]
        asked = parse_remind_me(typed if not is_slash else f"remind {typed}")
        if asked is None:
            return [reply(turn, f"When should I remind you, and of what? For example: {EXAMPLES}.")]
        when, what = asked
        if not when:
            return [reply(turn, ask_for_time(what))]
        ok, text, _ = await service.set_text(turn.owner_id, turn.chat, reminder_text(when, what))
        return [reply(turn, text)]

    async def list_message(self, core: Core, turn: Turn) -> Outgoing:
        """The /reminders list with one Cancel (or Stop, for repeating ones) button per reminder.
        The buttons are not single-use: cancelling one must not disable the others; a second
        press is harmless (the cancel is conditional)."""
        items = await self.service.upcoming(turn.owner_id)
        rows = []
        for n, r in enumerate(items[:MAX_LISTED], 1):
            label = f"Stop {n}" if r.recurrence else f"Cancel {n}"
            rows.append([ButtonSpec(label, PRESS_ACTION, {"op": "cancel", "id": r.id}, single_use=False)])
        buttons = await core.buttons.issue(turn.owner_id, rows) if rows else ()
        return reply(turn, list_text(items), buttons=buttons)

    async def on_list(self, core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
        return [await self.list_message(core, turn)]

    async def on_press(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        service = self.service
        op = claim.payload.get("op")
        rid = claim.payload.get("id")
        if not isinstance(rid, int) or op not in ("done", "snooze", "cancel"):
            return [Outgoing(notice="This button is not valid (any more).")]

        def edit(text: str, **kwargs: Any) -> Outgoing:
            return Outgoing(text=text, edit_of=press.message_id, private=turn.is_group, **kwargs)

        if op == "cancel":
            ok, text = await service.cancel(turn.owner_id, rid)
            refreshed = await self.list_message(core, turn)
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


async def delivery_buttons(buttons: Any, owner_id: int, reminder_id: int) -> Rows:
    """Done / Snooze 10 min / Snooze 1 h for a delivered reminder (one press retires all three).
    `buttons` is the core's Buttons."""
    row = [ButtonSpec("Done", PRESS_ACTION, {"op": "done", "id": reminder_id})]
    row += [ButtonSpec(label, PRESS_ACTION, {"op": "snooze", "id": reminder_id, "minutes": m}) for m, label in SNOOZE_CHOICES]
    return await buttons.issue(owner_id, [row])
