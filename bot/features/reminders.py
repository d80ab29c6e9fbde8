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

import functools
import logging
from collections.abc import Awaitable, Callable
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
from bot.plaintext import strip_controls
from bot.storage.db import Database
from bot.storage.models import utcnow
from bot.storage.reminders import (
    CANCELLED,
    PENDING_STATES,
    SNOOZE_VERB,
    ReminderView,
    cancel_as_action,
    cancel_owner,
    find_uid,
    get,
    pending,
    move_due,
    one_offs_in_zone,
    same_pending,
    set_reminder,
)
from bot.when.grammar import (
    EXAMPLES,
    ParseProblem,
    ReminderRequest,
    complete_with_time,
    parse_remind_me,
    parse_reminder,
    reminder_text,
)
from bot.when.recurrence import Recurrence
from bot.when.zones import as_utc, format_local, local_to_utc, zone_info

log = logging.getLogger(__name__)

PRESS_ACTION = "reminder"
LIST_BUTTONS_PER_ROW = 4
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


def confirmation_of(view: ReminderView, tz: str | None = None) -> str:
    """The confirmation of a reminder as it is now (after its zone changed), read in `tz`."""
    rec = view.repeats
    when = format_local(view.due_at, tz or view.timezone)
    return (
        f"⏰ I'll remind you: {render.quote(view.text, MAX_TEXT)}\n"
        f"When: {f'{rec.describe()}, next {when}' if rec else when}\n"
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
        """Store the reminder as the person's action (so /undo takes it back) and set its timer."""
        rec = request.recurrence.to_str() if request.recurrence else None
        what = strip_controls(request.what, keep_newlines=False)  # it is printed to terminals too
        view, _action = await self._tx(set_reminder, owner_id, chat, what, request.due_utc, request.tz, rec)
        self.timers.schedule(view.id, owner_id, view.due_at)
        return view

    async def duplicate_of(self, owner_id: int, request: ReminderRequest) -> ReminderView | None:
        """A pending reminder with the same words at the same time (and repetition), or None."""
        rec = request.recurrence.to_str() if request.recurrence else None
        return await self._tx(same_pending, owner_id, request.what, request.due_utc, rec)

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
        ok, text, _action = await self.cancel_with_undo(owner_id, reminder_id)
        return ok, text

    async def cancel_with_undo(self, owner_id: int, reminder_id: int) -> tuple[bool, str, str | None]:
        """Cancel (stop, a repeating one) as the person's action: (done, the words, the action's
        id for an Undo button)."""
        cancelled, view, action_id = await self._tx(cancel_as_action, owner_id, reminder_id)
        if view is None:
            return False, f"There is no reminder {reminder_id}.", None
        if cancelled:
            self.timers.unschedule(reminder_id)
            verb = "Stopped the repeating reminder" if view.recurrence else "Cancelled the reminder"
            return True, f"{verb} {render.quote(view.text, 200)}.", action_id
        if view.state == CANCELLED:
            return False, f"The reminder {render.quote(view.text, 200)} was already cancelled.", None
        return False, f"The reminder {render.quote(view.text, 200)} was already delivered.", None

    async def snooze(self, owner_id: int, reminder_id: int, minutes: int) -> tuple[bool, str, int | None]:
        """A new one-off reminder `minutes` from now with the same text and chat. The original
        is left alone, so snoozing one occurrence of a repeating reminder does not move the
        series."""
        original = await self.get(owner_id, reminder_id)
        if original is None:
            return False, "That reminder no longer exists.", None
        if original.state == CANCELLED:
            return False, f"The reminder {render.quote(original.text, 200)} was cancelled since; nothing was snoozed.", None
        due = self.clock() + timedelta(minutes=minutes)
        view, _action = await self._tx(
            functools.partial(set_reminder, verb=SNOOZE_VERB),
            owner_id, original.chat, original.text, due, original.timezone, None,
        )
        self.timers.schedule(view.id, owner_id, due)
        return True, f"💤 Snoozed {render.quote(original.text, 200)} until {format_local(due, original.timezone)}.", view.id

    async def zone_moves(self, owner_id: int, from_tz: str, to_tz: str) -> list[tuple[ReminderView, datetime]]:
        """The one-off reminders read in `from_tz` and when each would be at the same clock time
        in `to_tz` (those that would then lie in the past are left out: they stay as they are)."""
        now = self.clock()
        views = await self._tx(one_offs_in_zone, owner_id, from_tz, now)
        out = []
        for view in views:
            local = as_utc(view.due_at).astimezone(zone_info(from_tz))
            moved = local_to_utc(local.date(), local.time().replace(tzinfo=None), zone_info(to_tz))
            if moved > now and moved != as_utc(view.due_at):
                out.append((view, moved))
        return out

    async def move_to_zone(self, owner_id: int, from_tz: str, to_tz: str) -> list[ReminderView]:
        """Keep the clock time of the one-off reminders set in `from_tz`, now in `to_tz` (the
        person agreed); returns the ones moved, as they are now."""
        moved = []
        for view, due in await self.zone_moves(owner_id, from_tz, to_tz):
            if await self._tx(move_due, owner_id, view.id, view.due_at, due, to_tz):
                self.timers.schedule(view.id, owner_id, due)
                now_view = await self.get(owner_id, view.id)
                if now_view is not None:
                    moved.append(now_view)
        return moved

    async def after_undo(self, owner_id: int, done: Any) -> None:
        """An undo brought reminders back (their timers are set) or stopped them."""
        for rid in getattr(done, "reminders_scheduled", ()):
            view = await self.get(owner_id, rid)
            if view is not None and view.state in PENDING_STATES:
                self.timers.schedule(rid, owner_id, view.due_at)
        for rid in getattr(done, "reminders_stopped", ()):
            self.timers.unschedule(rid)

    async def forget_owner(self, owner_id: int) -> None:
        """After /forget_me: nothing of this person stays scheduled (the rows are usually gone
        already; any left are cancelled) and no timer fires for them."""
        ids: list[int] = await self._tx(cancel_owner, owner_id)
        for rid in ids:
            self.timers.unschedule(rid)
        self.timers.unschedule_owner(owner_id)


# --- command and button handlers ---------------------------------------------------------------


# (core, turn, the platform's language, the reminder) -> what the confirmation adds: a paragraph
# and its rows of buttons (the time zone offer, bot/features/timezones.py), or ("", ())
AfterSet = Callable[[Core, Turn, str, ReminderView], Awaitable[tuple[str, Rows]]]


class ReminderCommands:
    """What people type and press about reminders, on top of the service.

    A question about the time ("What time tomorrow?") takes the next message as its answer (the
    core's follow-ups): "at 10", or a bare "10" (read as a time while a time is awaited). A
    reminder that is already set with the same words and time is pointed out with a choice.
    Cancelling a one-off happens at once, stopping a repeating one asks first; both confirm in
    words naming the reminder, with an Undo."""

    def __init__(self, service: ReminderService, after_set: AfterSet | None = None) -> None:
        self.service = service
        # what follows a reminder that was set (the time zone offer, bot/features/timezones.py)
        self.after_set = after_set

    async def on_remind(self, core: Core, turn: Turn, intent: c.Remind, msg: Incoming) -> list[Outgoing]:
        """"/remind <when> <what>" and "remind me ... to ..." messages (commands.parse already
        sent a "remind me" that is no reminder request to the chat)."""
        service = self.service
        typed = intent.text.strip()
        is_slash = msg.text.lstrip().startswith("/")
        if is_slash and not typed.lower().startswith("me "):
            got = await service.parse(turn.owner_id, typed)
        else:
            asked = parse_remind_me(typed if not is_slash else f"remind {typed}")
            if asked is None:
                return [reply(turn, f"When should I remind you, and of what? For example: {EXAMPLES}.")]
            when, what = asked
            if not when:
                return [self._ask(core, turn, ParseProblem(ask_for_time(what), True, "", what))]
            got = await service.parse(turn.owner_id, reminder_text(when, what))
        if isinstance(got, ParseProblem):
            return [self._ask(core, turn, got) if got.asks_time else reply(turn, got.message)]
        return await self.set_or_point_out(core, turn, got, msg.locale)

    def _ask(self, core: Core, turn: Turn, question: ParseProblem) -> Outgoing:
        """Ask for the time; the person's next message in this chat is the answer."""

        async def answer(core: Core, turn: Turn, msg: Incoming) -> tuple[list[Outgoing], bool]:
            tz = await self.service._timezone_of(turn.owner_id)
            got = complete_with_time(question, msg.text, tz, self.service.clock())
            if got is None:  # not a time: the message is read as it normally would be
                note = f"(I didn't take that as the time for {render.quote(question.what, 80)}, so that reminder is not set.)"
                return [reply(turn, note)], False
            if isinstance(got, ParseProblem):
                follow = got if got.asks_time else ParseProblem(got.message, True, question.when, question.what)
                return [self._ask(core, turn, follow)], True
            return await self.set_or_point_out(core, turn, got, msg.locale), True

        core.followups.expect(turn.owner_id, turn.chat, answer)
        return reply(turn, question.message + " (Just write the time, e.g. “at 10”.)"
                     if question.when else question.message)

    async def set_or_point_out(self, core: Core, turn: Turn, request: ReminderRequest, locale: str = "") -> list[Outgoing]:
        """Set the reminder, unless the same one is already set: then ask."""
        same = await self.service.duplicate_of(turn.owner_id, request)
        if same is None:
            view = await self.service.create(turn.owner_id, turn.chat, request)
            extra, buttons = await self.after_set(core, turn, locale, view) if self.after_set is not None else ("", ())
            return [reply(turn, confirmation_text(request) + extra, buttons=buttons)]
        rec = request.recurrence.to_str() if request.recurrence else None
        payload = {"op": "twice", "what": request.what, "due": request.due_utc.isoformat(), "tz": request.tz,
                   "rec": rec, "understood": request.understood}
        buttons = await core.buttons.issue(turn.owner_id, [[
            ButtonSpec("Keep just the one", PRESS_ACTION, {"op": "keep_one", "id": same.id},
                       detail=f"Keep just one {render.quote(same.text, 60)}"),
            ButtonSpec("Set it twice", PRESS_ACTION, payload, detail=f"Set {render.quote(same.text, 60)} a second time"),
        ]])
        return [reply(
            turn,
            f"You already have this reminder: {render.quote(same.text, 200)} — {due_words(same)}. "
            "Nothing new is set yet.",
            buttons=buttons,
        )]

    async def list_message(self, core: Core, turn: Turn) -> Outgoing:
        """The /reminders list with one Cancel (or Stop, for repeating ones) button per reminder,
        each naming its reminder. One press uses up the list's buttons: the list is replaced by
        what happened (never renumbered under the person's fingers); /reminders shows it anew."""
        items = await self.service.upcoming(turn.owner_id)
        specs = []
        for n, r in enumerate(items[:MAX_LISTED], 1):
            verb = "Stop" if r.recurrence else "Cancel"
            specs.append(ButtonSpec(f"{verb} {n}", PRESS_ACTION, {"op": "cancel", "id": r.id},
                                    detail=f"{verb} {render.quote(r.text, 60)}"))
        # a few to a row (the labels are short), not one full-width row each
        rows = [specs[i : i + LIST_BUTTONS_PER_ROW] for i in range(0, len(specs), LIST_BUTTONS_PER_ROW)]
        buttons = await core.buttons.issue(turn.owner_id, rows) if rows else ()
        return reply(turn, list_text(items), buttons=buttons)

    async def on_list(self, core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
        return [await self.list_message(core, turn)]

    async def on_press(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        service = self.service
        op = claim.payload.get("op")
        rid = claim.payload.get("id")

        def edit(text: str, **kwargs: Any) -> Outgoing:
            return Outgoing(text=text, edit_of=press.message_id, private=turn.is_group, **kwargs)

        if op == "twice":
            return [edit(await self._set_twice(turn, claim.payload), notice="Set.")]
        if not isinstance(rid, int) or op not in ("done", "snooze", "cancel", "stop", "keep", "keep_one"):
            return [Outgoing(notice="This button is not valid (any more).")]
        view = await service.get(turn.owner_id, rid)
        if view is None:
            return [Outgoing(notice="That reminder no longer exists.")]
        if op == "keep_one":
            return [edit(f"Kept just the one: {render.quote(view.text, 200)} — {due_words(view)}.", notice="Nothing new set.")]
        if op == "keep":
            return [edit(f"Kept {render.quote(view.text, 200)}; nothing changed.", notice="Kept.")]
        if op == "cancel" and view.recurrence and view.state in PENDING_STATES:
            buttons = await core.buttons.issue(turn.owner_id, [[
                ButtonSpec("Yes, stop it", PRESS_ACTION, {"op": "stop", "id": rid}, detail=f"Yes, stop {render.quote(view.text, 60)}"),
                ButtonSpec("Keep it", PRESS_ACTION, {"op": "keep", "id": rid}, detail=f"Keep {render.quote(view.text, 60)}"),
            ]])
            return [edit(f"Stop the repeating reminder {render.quote(view.text, 200)} ({due_words(view)})?", buttons=buttons)]
        if op in ("cancel", "stop"):
            ok, text, action_id = await service.cancel_with_undo(turn.owner_id, rid)
            if not ok or action_id is None:
                return [edit(text, notice="Nothing changed.")]
            verb = "stopping" if view.recurrence else "cancelling"
            buttons = await core.buttons.issue(turn.owner_id, [[
                ButtonSpec("Undo", "undo", {"action_id": action_id}, detail=f"Undo {verb} {render.quote(view.text, 60)}")
            ]])
            was = f" (it was due {format_local(view.due_at, view.timezone)})" if not view.recurrence else ""
            return [edit(f"{text[:-1]}{was}. /reminders shows the rest.", buttons=buttons, notice="Done.")]
        if op == "done":
            text = f"✅ Done: {render.quote(view.text, 300)}"
            if view.repeats and view.state in PENDING_STATES:
                text += f"\nNext time: {format_local(view.due_at, view.timezone)}."
            return [edit(text, notice="Done.")]
        minutes = claim.payload.get("minutes")
        if not isinstance(minutes, int) or not 1 <= minutes <= 24 * 60:
            return [Outgoing(notice="This button is not valid (any more).")]
        ok, text, _ = await service.snooze(turn.owner_id, rid, minutes)
        return [edit(text, notice="Snoozed." if ok else "Nothing changed.")]

    async def _set_twice(self, turn: Turn, payload: dict[str, Any]) -> str:
        try:
            due = datetime.fromisoformat(str(payload["due"]))
            what, tz = str(payload["what"]), str(payload["tz"])
            rec = payload.get("rec")
            recurrence = Recurrence.from_str(rec) if rec else None
        except (KeyError, ValueError):
            return "This button is not valid (any more)."
        if due <= self.service.clock() and recurrence is None:
            return "That time has passed meanwhile; nothing was set."
        request = ReminderRequest(what, due, recurrence, tz, str(payload.get("understood") or format_local(due, tz)))
        await self.service.create(turn.owner_id, turn.chat, request)
        return confirmation_text(request).replace("I'll remind you", "I'll remind you (a second time)", 1)


async def delivery_buttons(buttons: Any, owner_id: int, reminder_id: int, text: str = "") -> Rows:
    """Done / Snooze 10 min / Snooze 1 h for a delivered reminder (one press retires all three),
    each naming the reminder in its detail ("Snooze “call mom” 10 min"). `buttons` is the
    core's Buttons."""
    name = render.quote(text, 60) if text else "it"
    row = [ButtonSpec("Done", PRESS_ACTION, {"op": "done", "id": reminder_id}, detail=f"Done: {name}")]
    row += [
        ButtonSpec(label, PRESS_ACTION, {"op": "snooze", "id": reminder_id, "minutes": m},
                   detail=f"Snooze {name} {label.removeprefix('Snooze ')}")
        for m, label in SNOOZE_CHOICES
    ]
    return await buttons.issue(owner_id, [row])
