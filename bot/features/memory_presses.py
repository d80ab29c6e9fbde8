"""What button presses do. The token was already checked (owner, replay, expiry) by the core;
each handler applies its change in one transaction and edits the pressed message to the outcome.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.core import render
from bot.core.buttons import ButtonSpec, Claim
from bot.core.core import Core
from bot.core.replies import LIST_TITLES, conflict_message, page_message
from bot.core.turn import Turn
from bot.events import ButtonPress, Outgoing
from bot.memory import Choice, Settled


def edit(turn: Turn, press: ButtonPress, text: str, **kwargs: object) -> Outgoing:
    return Outgoing(text=text, edit_of=press.message_id, private=turn.is_group, **kwargs)  # type: ignore[arg-type]


async def on_conflict(core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
    try:
        choice = Choice(str(claim.payload.get("choice")))
        conflict_id = int(claim.payload["conflict_id"])
    except (KeyError, TypeError, ValueError):
        return [Outgoing(notice="This button is not valid (any more).")]
    outcome = await core.memory.resolve(turn.owner_id, conflict_id, choice)
    if not isinstance(outcome, Settled):
        return [Outgoing(notice=outcome)]
    buttons = await core.buttons.issue(turn.owner_id, [[ButtonSpec("Undo", "undo", {"action_id": outcome.action_id})]])
    text = render.conflict_outcome(outcome.view, choice)
    return [edit(turn, press, text, buttons=buttons, notice="Done.")]


async def on_undo(core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
    action_id = claim.payload.get("action_id")
    if not isinstance(action_id, str):
        return [Outgoing(notice="This button is not valid (any more).")]
    done = await core.memory.undo(turn.owner_id, action_id)
    if not done.ok:
        return [Outgoing(notice=done.message)]
    if done.conflict_id is not None:
        question = await conflict_message(core, turn, done.conflict_id)
        if question is not None:
            return [edit(turn, press, "Undone. " + question.text, buttons=question.buttons, notice="Undone.")]
    return [edit(turn, press, done.message, notice="Undone.")]


async def on_page(core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
    ids = [i for i in claim.payload.get("ids", []) if isinstance(i, int)]
    page = claim.payload.get("page", 0)
    title = str(claim.payload.get("title", LIST_TITLES[next(iter(LIST_TITLES))]))
    items = []
    for mid in ids:
        m = await core.memory.get(turn.owner_id, mid)
        if m is not None:
            items.append(m)
    if not items:
        return [edit(turn, press, f"{title}: nothing any more.")]
    await core.memory.set_numbers(turn.owner_id, [m.id for m in items])
    msg = await page_message(core, turn, title, items, int(page) if isinstance(page, int) else 0)
    return [Outgoing(text=msg.text, buttons=msg.buttons, edit_of=press.message_id, private=turn.is_group)]


class ForgetMePress:
    """The confirmation of /forget_me. `forget_reminders` (the reminder feature's) stops any
    timer still set for the person."""

    def __init__(self, forget_reminders: Callable[[int], Awaitable[None]] | None = None) -> None:
        self.forget_reminders = forget_reminders

    async def on_press(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        if not claim.payload.get("confirm"):
            return [edit(turn, press, "Cancelled — nothing was deleted.")]
        count = await core.memory.forget_everything(turn.owner_id)
        if self.forget_reminders is not None:
            await self.forget_reminders(turn.owner_id)
        return [edit(turn, press, f"Done. I deleted everything I held about you ({count} memories and all the rest).")]


async def on_ask_again(core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
    try:
        conflict_id = int(claim.payload["conflict_id"])
    except (KeyError, TypeError, ValueError):
        return [Outgoing(notice="This button is not valid (any more).")]
    question = await conflict_message(core, turn, conflict_id)
    if question is None:
        return [Outgoing(notice="That question was already settled.")]
    return [question]
