"""A time zone asked for once, at the moment it matters: under a person's first reminder.

Telegram and Discord do not tell a bot where a person lives, so a new person's reminders are
read in the default zone (UTC unless configured): "call the vet tomorrow at 10" would ring at
05:00 in New York. The first reminder set without a zone is followed by one message that says
which zone was used and offers a few likely zones as buttons (from the platform's language),
Keep UTC, or a typed city or UTC offset (the next message, when it reads as one). Choosing a zone
is the person's action (Undo); reminders already set keep their instant unless the person agrees
to move them to the same clock time in the new zone (docs/ARCHITECTURE.md section 5).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.core import commands as c
from bot.core import render
from bot.core.buttons import ButtonSpec, Claim, Rows
from bot.core.core import Core
from bot.core.replies import reply
from bot.core.turn import Turn
from bot.events import ButtonPress, Incoming, Outgoing
from bot.features.memory_commands import on_timezone
from bot.features.reminders import ReminderService, confirmation_of
from bot.storage.reminders import ReminderView
from bot.when.zones import (
    city_of,
    format_local,
    is_fixed_offset,
    is_valid_timezone,
    likely_zones,
    resolve_timezone,
    zone_from_answer,
)

PRESS_ACTION = "zone"
NOT_VALID = "This button is not valid (any more)."


def offer_text(used: str) -> str:
    return (
        f"I read that time in {used}, because I don't know your time zone yet. "
        f"If that isn't your time, tap your zone below, or type your city (e.g. “Rome”) "
        f"or your UTC offset (e.g. “UTC+2”)."
    )


def ask_text(used: str) -> str:
    """The offer asked for on its own (/start's Set my time zone), with no reminder to explain."""
    return (
        f"Your reminders use {used}. Tap your zone below, or type your city (e.g. “Rome”) "
        f"or your UTC offset (e.g. “UTC+2”)."
    )


def _when(view: Any, tz: str) -> str:
    return format_local(view.due_at, tz)


def moved_question(items: list[tuple[Any, Any]], old: str, new: str) -> str:
    """What setting a zone means for reminders already set in the old one, and the question."""
    place = city_of(new)
    if len(items) == 1:
        view, due = items[0]
        return (
            f"{render.quote(view.text, 200)} is set for {_when(view, old)}, which is "
            f"{_when(view, new)}. Move it to the same clock time in {place}, {format_local(due, new)}?"
        )
    lines = [f"You have {len(items)} reminders set in {old} time:"]
    lines += [f"• {render.quote(view.text, 100)}: {_when(view, old)}" for view, _ in items]
    lines.append(f"Move them to the same clock times in {place}?")
    return "\n".join(lines)


class ZoneOffer:
    """The offer in a first reminder's confirmation, the answer to it (buttons or a typed city /
    offset) and the question whether reminders already set move with the zone. A press edits the
    confirmation it was pressed in: the reminder as it is now, then what the press did."""

    def __init__(self, reminders: ReminderService) -> None:
        self.reminders = reminders

    async def after_first_reminder(self, core: Core, turn: Turn, locale: str, view: ReminderView) -> tuple[str, Rows]:
        """The offer's paragraph and buttons, once per person and only while they have no zone."""
        if not await core.memory.offer_zone_once(turn.owner_id):
            return "", ()
        text, rows = await self.offer(core, turn, locale, view.id)
        return "\n\n" + text, rows

    async def after_model_reminder(self, core: Core, turn: Turn, locale: str, reminder_id: int) -> Outgoing | None:
        """The same offer under a reminder the chat model set with its tool (its own message
        after the model's answer), once per person and only while they have no zone."""
        if not await core.memory.offer_zone_once(turn.owner_id):
            return None
        text, rows = await self.offer(core, turn, locale, reminder_id)
        return reply(turn, text, buttons=rows)

    async def offer(
        self, core: Core, turn: Turn, locale: str = "", reminder_id: int | None = None,
        text_of: Callable[[str], str] = offer_text,
    ) -> tuple[str, Rows]:
        """Likely zones as buttons (two a row), Keep <default>, and the next message as a city."""
        used = await core.memory.timezone_of(turn.owner_id)
        zones = [z for z in likely_zones(locale) if z != used]
        specs = [ButtonSpec(city_of(z), PRESS_ACTION, {"op": "set", "tz": z, "rid": reminder_id},
                            detail=f"My time zone is {z}") for z in zones]
        specs.append(ButtonSpec(f"Keep {city_of(used)}", PRESS_ACTION, {"op": "set", "tz": used, "rid": reminder_id},
                                detail=f"My time zone is {used}"))
        rows = await core.buttons.issue(turn.owner_id, [specs[i:i + 2] for i in range(0, len(specs), 2)])
        self._expect_answer(core, turn)
        return text_of(used), rows

    async def on_timezone(self, core: Core, turn: Turn, intent: c.Timezone, msg: Incoming) -> list[Outgoing]:
        """/timezone <zone>: as before (memory_commands.on_timezone), unless one-off reminders
        were read in the old zone: then the change asks whether they move with it."""
        zone = resolve_timezone(intent.zone) if intent.zone is not None else None
        if zone is not None:
            old = await core.memory.timezone_of(turn.owner_id)
            if old != zone and await self.reminders.zone_moves(turn.owner_id, old, zone):
                return [await self.choose(core, turn, zone, edit_of=None)]
        return await on_timezone(core, turn, intent, msg)

    async def on_ask(self, core: Core, turn: Turn, locale: str = "") -> Outgoing:
        """The offer on its own (a "Set my time zone" button elsewhere)."""
        text, rows = await self.offer(core, turn, locale, text_of=ask_text)
        return reply(turn, text, buttons=rows)

    def _expect_answer(self, core: Core, turn: Turn) -> None:
        async def answer(core: Core, turn: Turn, msg: Incoming) -> tuple[list[Outgoing], bool]:
            zone = zone_from_answer(msg.text)
            if zone is None:  # not a place: read as it normally would be
                return [], False
            return [await self.choose(core, turn, zone, edit_of=None)], True

        core.followups.expect(turn.owner_id, turn.chat, answer)

    async def _above(self, turn: Turn, reminder_id: Any, tz: str | None = None) -> str:
        """The confirmation a press edits, as the reminder is now, and a blank line; "" if none."""
        if not isinstance(reminder_id, int):
            return ""
        view = await self.reminders.get(turn.owner_id, reminder_id)
        return confirmation_of(view, tz) + "\n\n" if view is not None else ""

    async def choose(self, core: Core, turn: Turn, zone: str, *, edit_of: str | None, reminder_id: Any = None) -> Outgoing:
        """Set the zone (Undo), then ask about reminders that were read in the old one."""
        old = await core.memory.timezone_of(turn.owner_id)
        had = await core.memory.has_timezone(turn.owner_id)
        action_id = await core.memory.set_timezone(turn.owner_id, zone)
        above = await self._above(turn, reminder_id)
        note = (" That is a fixed offset: it won't follow daylight saving time. Type your city "
                "instead (e.g. “/timezone Rome”) if your clocks change.") if is_fixed_offset(zone) else ""
        if action_id is None and had:
            return Outgoing(f"{above}Your time zone was already {zone}; nothing changed.{note}", edit_of=edit_of,
                            private=turn.is_group)
        head = f"Your time zone is now {zone}. New reminders are read in it.{note}"
        items = await self.reminders.zone_moves(turn.owner_id, old, zone) if old != zone else []
        if items:
            n = "it" if len(items) == 1 else "them"
            buttons = await core.buttons.issue(turn.owner_id, [[
                ButtonSpec(f"Move {n}", PRESS_ACTION, {"op": "move", "from": old, "to": zone, "rid": reminder_id},
                           detail=f"Move {n} to the same clock time in {zone}"),
                ButtonSpec(f"Keep {'its' if len(items) == 1 else 'their'} time", PRESS_ACTION,
                           {"op": "stay", "from": old, "to": zone, "rid": reminder_id},
                           detail="Leave the reminders as they are"),
            ]])
            text = f"{head}\n\n{moved_question(items, old, zone)}"
        else:
            buttons = ()
            if action_id is not None:
                buttons = await core.buttons.issue(turn.owner_id, [[
                    ButtonSpec("Undo", "undo", {"action_id": action_id}, detail=f"Undo setting your time zone to {zone}")
                ]])
            text = head
        return Outgoing(above + text, buttons=buttons, edit_of=edit_of, private=turn.is_group)

    async def on_press(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        op, rid = claim.payload.get("op"), claim.payload.get("rid")
        if op == "ask":
            return [await self.on_ask(core, turn)]
        if op == "set":
            zone = str(claim.payload.get("tz") or "")
            if not is_valid_timezone(zone):
                return [Outgoing(notice=NOT_VALID)]
            return [await self.choose(core, turn, zone, edit_of=press.message_id, reminder_id=rid)]
        old, new = str(claim.payload.get("from") or ""), str(claim.payload.get("to") or "")
        if op not in ("move", "stay") or not (is_valid_timezone(old) and is_valid_timezone(new)):
            return [Outgoing(notice=NOT_VALID)]
        if op == "stay":
            items = await self.reminders.zone_moves(turn.owner_id, old, new)
            kept = "; ".join(f"{render.quote(v.text, 100)} stays at {_when(v, new)}" for v, _ in items)
            text = f"Your time zone is {new}. {kept or 'Nothing was moved'}."
            return [Outgoing(await self._above(turn, rid, new) + text, edit_of=press.message_id, private=turn.is_group)]
        moved = await self.reminders.move_to_zone(turn.owner_id, old, new)
        if not moved:
            text = f"Your time zone is {new}. Nothing was moved: those reminders were delivered or changed meanwhile."
        else:
            text = f"Your time zone is {new}. Moved " + "; ".join(
                f"{render.quote(v.text, 100)} to {_when(v, new)}" for v in moved) + "."
        return [Outgoing(await self._above(turn, rid) + text, edit_of=press.message_id, private=turn.is_group)]
