"""What button presses do. The token was already checked (owner, replay, expiry) by the core;
each handler applies its change in one transaction and edits the pressed message to the outcome.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.core import render
from bot.core.buttons import ButtonSpec, Claim
from bot.core.core import Core
from bot.core.replies import FORGET_ME_SECONDS, LIST_TITLES, conflict_message, forget_me_question, page_message
from bot.core.turn import Turn
from bot.events import ButtonPress, Outgoing
from bot.memory import CHOICE_LABELS, Choice, Settled, Undone, conflict_fingerprint, words_seen


def edit(turn: Turn, press: ButtonPress, text: str, **kwargs: object) -> Outgoing:
    return Outgoing(text=text, edit_of=press.message_id, private=turn.is_group, **kwargs)  # type: ignore[arg-type]


# after an undo: the reminder feature sets the timers of reminders it scheduled again
AfterUndo = Callable[[int, Undone], Awaitable[None]]


async def _nothing_after(owner_id: int, done: Undone) -> None:
    return None


async def on_conflict(core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
    try:
        choice = Choice(str(claim.payload.get("choice")))
        conflict_id = int(claim.payload["conflict_id"])
    except (KeyError, TypeError, ValueError):
        return [Outgoing(notice="This button is not valid (any more).")]
    seen = claim.payload.get("seen")
    if seen is not None:  # the facts must still be as they were shown
        view = await core.memory.conflict(turn.owner_id, conflict_id)
        if view is not None and view.status == "pending" and conflict_fingerprint(view) != seen:
            question = await conflict_message(core, turn, conflict_id)
            if question is not None:
                text = "The facts in that question changed since I asked, so I didn't apply your answer. Here it is as it stands now:\n\n"
                return [edit(turn, press, text + question.text, buttons=question.buttons, notice="Changed since — nothing applied.")]
    outcome = await core.memory.resolve(turn.owner_id, conflict_id, choice)
    if not isinstance(outcome, Settled):  # a stale copy of the question: show where it stands, buttons gone
        return [edit(turn, press, f"{outcome} Your answer “{CHOICE_LABELS[choice].split(' (')[0]}” changed nothing.",
                     notice="Nothing changed.")]
    label = CHOICE_LABELS[choice].split(" (")[0]
    buttons = await core.buttons.issue(
        turn.owner_id, [[ButtonSpec("Undo", "undo", {"action_id": outcome.action_id}, detail=f"Undo your answer “{label}”")]]
    )
    text = render.conflict_outcome(outcome.view, choice, undo_window_seconds=core.settings.undo_window_seconds)
    # the answer now lives in the pressed message: a typed /undo puts the question back there
    await core.memory.record_shown(turn.owner_id, conflict_id, turn.platform, turn.chat.chat_id, press.message_id)
    return [edit(turn, press, text, buttons=buttons, notice="Done.")]


class UndoPress:
    """An Undo button: reverts exactly the action it was shown with."""

    def __init__(self, after_undo: AfterUndo = _nothing_after) -> None:
        self.after_undo = after_undo

    async def on_press(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        action_id = claim.payload.get("action_id")
        if not isinstance(action_id, str):
            return [Outgoing(notice="This button is not valid (any more).")]
        done = await core.memory.undo(turn.owner_id, action_id)
        if not done.ok:  # the message is stale: it says so in place of its dead Undo (read, not a toast)
            return [edit(turn, press, done.message, notice="Nothing was undone.")]
        await self.after_undo(turn.owner_id, done)
        if done.conflict_id is not None:
            question = await conflict_message(core, turn, done.conflict_id)
            if question is not None:
                return [edit(turn, press, f"{done.message}\n\n" + question.text, buttons=question.buttons, notice="Undone.")]
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
    timer still set for the person. Pressed in time and on what it showed, it erases at once
    (no undo window: the confirmation is the safeguard); an expired one, or one shown before a
    change (a memory saved since), deletes nothing and asks again."""

    def __init__(self, forget_reminders: Callable[[int], Awaitable[None]] | None = None) -> None:
        self.forget_reminders = forget_reminders

    async def on_press(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        if not claim.payload.get("confirm"):
            return [edit(turn, press, "Cancelled — nothing was deleted.")]
        seen = claim.payload.get("seen")
        count, newest = await core.memory.forget_scope(turn.owner_id)
        if seen != [count, newest]:
            shown = seen[0] if isinstance(seen, list) and seen else "?"
            lead = (
                f"Your memories changed since I asked ({shown} then, {count} now), so I deleted nothing."
            )
            return await self._ask_again(core, turn, press, lead)
        count = await core.memory.forget_everything(turn.owner_id)
        if self.forget_reminders is not None:
            await self.forget_reminders(turn.owner_id)
        memories = f"{count} memor{'y' if count == 1 else 'ies'}"
        return [edit(
            turn, press,
            f"Done. I deleted everything I held about you: {memories}, their history, your reminders, "
            "settings and our conversation log. There is no undo.",
        )]

    async def on_expired(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        if not claim.payload.get("confirm"):
            return [edit(turn, press, "Nothing was deleted.", notice="That button has expired.")]
        lead = (
            f"That confirmation has expired (it works for {render.span(FORGET_ME_SECONDS)} after I ask), "
            "so I deleted nothing."
        )
        return await self._ask_again(core, turn, press, lead)

    async def _ask_again(self, core: Core, turn: Turn, press: ButtonPress, lead: str) -> list[Outgoing]:
        question = await forget_me_question(core, turn, lead + " Asking again:")
        # the old message loses its buttons; the new question is a new message to read
        return [edit(turn, press, lead), question]


async def on_ask_again(core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
    try:
        conflict_id = int(claim.payload["conflict_id"])
    except (KeyError, TypeError, ValueError):
        return [Outgoing(notice="This button is not valid (any more).")]
    question = await conflict_message(core, turn, conflict_id)
    if question is None:
        return [Outgoing(notice="That question was already settled.")]
    return [question]


async def on_still_current(core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
    """A possibly outdated memory no question holds: still current (restored, with Undo)."""
    memory_id = claim.payload.get("memory_id")
    if not isinstance(memory_id, int):
        return [Outgoing(notice="This button is not valid (any more).")]
    seen = claim.payload.get("seen")
    now = await core.memory.get(turn.owner_id, memory_id)
    if now is not None and isinstance(seen, str) and words_seen(now.text) != seen:  # shown with other words
        return [edit(turn, press, f"That memory changed since the list: it now reads {render.quote(now.text)}. "
                     "Nothing was changed; /memories review shows it again.", notice="Changed since.")]
    changed = await core.memory.restore(turn.owner_id, memory_id)
    if changed is None:
        return [Outgoing(notice="That memory no longer exists.")]
    if changed.note:
        return [Outgoing(notice=f"{render.quote(changed.memory.text)} is already current.")]
    buttons = await core.buttons.issue(turn.owner_id, [[ButtonSpec("Undo", "undo", {"action_id": changed.action_id})]])
    return [edit(turn, press, f"Kept as current: {render.quote(changed.memory.text)}", buttons=buttons, notice="Done.")]
