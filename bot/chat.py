"""The chat turn: plain messages that are not commands.

Without a model (no key, or it is down, slow or over budget) the assistant still answers from
memory, quoting what matches, and says plainly that the model is not available. Group chats
never see a person's memories.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot import commands as c
from bot import render
from bot.events import Incoming, Outgoing

if TYPE_CHECKING:
    from bot.core import Core, Turn

NO_MODEL = "(The language model isn't available right now, so I can only answer from what I remember.)"


def install(core: "Core") -> None:
    core.intent_handlers[c.Chat] = on_chat
    core.intent_handlers[c.Remind] = on_remind_unavailable


async def on_chat(core: "Core", turn: "Turn", intent: c.Chat, msg: Incoming) -> list[Outgoing]:
    turn_handler = core.services.get("chat_turn")
    if turn_handler is not None:
        return await turn_handler(core, turn, intent, msg)
    return [await memory_answer(core, turn, intent.text)]


async def memory_answer(core: "Core", turn: "Turn", text: str, note: str = NO_MODEL) -> Outgoing:
    """Answer from memory alone: the memories that match the message, quoted."""
    if turn.is_group:
        return Outgoing(f"I can't answer that here without a model, and I never share your memories in a group. {note}")
    found = await core.memory.search(turn.owner_id, text, limit=5)
    if not found:
        return Outgoing(f"I don't have anything saved about that yet. {note}")
    lines = ["Here is what I remember about that:"]
    lines += [f"• {m.text}{render.dates_note(m)}" + ("" if m.status == "current" else f" ({m.status})") for m in found]
    lines.append(note)
    return Outgoing("\n".join(lines))


async def on_remind_unavailable(core: "Core", turn: "Turn", intent: c.Remind, msg: Incoming) -> list[Outgoing]:
    handler = core.services.get("remind")
    if handler is not None:
        return await handler(core, turn, intent, msg)
    return [Outgoing("Reminders are not running in this setup.")]
