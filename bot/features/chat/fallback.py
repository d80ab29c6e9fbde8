"""Answers from memory alone: plain messages when no model is configured, and the fallback when
the model is down, slow, rate limited or over the person's budget.

The assistant still answers from memory, quoting what matches, and says plainly that the model
is not available. Group chats never see a person's memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core import commands as c
from bot.core import render
from bot.core.core import Core
from bot.core.turn import Turn
from bot.events import Incoming, Outgoing
from bot.features.chat.why import WhyStore
from bot.features.chat.window import ChatLog
from bot.storage.models import utcnow

NO_MODEL = "(The language model isn't available right now, so I can only answer from what I remember.)"


def fallback_note(reason: str) -> str:
    """The plain note added to an answer from memory alone, by why the model was not used."""
    if reason == "budget":
        return (
            "(Today's model budget is used up, so I can only answer from what I remember. "
            "Memory commands like remember: and /memories still work.)"
        )
    if reason == "timeout":
        return "(The language model is too slow right now, so I can only answer from what I remember.)"
    return NO_MODEL


async def memory_answer(core: Core, turn: Turn, text: str, note: str = NO_MODEL) -> Outgoing:
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


class MemoryAnswers:
    """The chat handler without a model, and the fallback the model turn uses: the answer is
    logged like any chat answer and recorded for /why."""

    def __init__(self, log: ChatLog, why: WhyStore) -> None:
        self.log = log
        self.why = why

    async def on_chat(self, core: Core, turn: Turn, intent: c.Chat, msg: Incoming) -> list[Outgoing]:
        """A plain message when no model is configured."""
        await self.log.log(turn, "user", msg.text, turn.message_id)
        return [await self.answer(core, turn, msg.text, "no_key", [])]

    async def answer(self, core: Core, turn: Turn, text: str, reason: str, done: Sequence[str]) -> Outgoing:
        """The answer without the model: what memory holds on the message, a plain note, and
        what tools already changed before the model stopped."""
        out = await memory_answer(core, turn, text, fallback_note(reason))
        if done:
            out = Outgoing(
                text=out.text + "\n\nDone before the model stopped:\n" + "\n".join(f"✓ {c}" for c in done),
                private=out.private,
            )
        await self.log.log(turn, "assistant", out.text, None)
        used: list[dict[str, Any]] = []
        if not turn.is_group:
            found = await core.memory.search(turn.owner_id, text, limit=5)
            used = [{"id": m.id, "text": m.text, "parts": {}} for m in found]
        record = {"at": utcnow().isoformat(), "mode": "group" if turn.is_group else "memory_only",
                  "memories": used, "episodes": [], "procedures": []}
        await self.why.store(turn.owner_id, record)
        return out
