"""Issue 20 item 4 on Discord, end to end through the real discord.py and the Discord stand-in:
when a private answer cannot go by DM (the person closed DMs from server members), the channel
is told truthfully what happened and how to get it; the answer waits and the person's next DM
delivers it, to them only. It never says "ask again" after a save that worked. And a typed /undo
of an answered question puts the question back in its own message."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.discord import DMS_CLOSED
from tests.adapters.test_discord_e2e import database_url, people, running, server  # noqa: F401
from tests.standins.discord_api import DiscordStandIn

pytestmark = pytest.mark.e2e


async def test_closed_dms_get_a_truthful_pointer_and_the_answer_waits_for_the_next_dm(
    server: DiscordStandIn, people: dict[str, Any], database_url: str  # noqa: F811
) -> None:
    alice, bob, general = people["alice"], people["bob"], people["general"]
    async with running(server, database_url) as bot:
        server.close_dms(bob)
        await server.send_message(bob, general, f"{server.mention()} remember: I keep bees")
        pointer = await server.wait_for_bot_message(general)
        assert pointer.content == DMS_CLOSED == (
            "I have an answer that only you should see, and I can't send you a direct message. Allow "
            "direct messages from members of this server (in the server's Privacy Settings), then send "
            "me a direct message, and it will be there."
        )
        assert "ask again" not in pointer.content and "bees" not in pointer.content
        assert bot.memories(bob) == {"I keep bees": "current"}  # saved, as the pointer implies

        # Alice's DM does not get Bob's answer
        hello = await bot.say1(alice, "/help")
        assert "bees" not in hello.content

        # Bob allows DMs and writes: the answer that waited comes first, then his own answer
        bob.dms_open = True
        waited, answer = await bot.say(bob, "what do I keep?", expect=2)
        assert waited.content.startswith("Saved: “I keep bees”")
        assert "bees" in answer.content
        assert not any("bees" in m.content for m in server.bot_messages(general))
        # delivered once: the next DM has only its own answer
        [again] = await bot.say(bob, "/help")
        assert not again.content.startswith("Saved")


async def test_a_typed_undo_puts_the_answered_question_back_in_its_message(
    server: DiscordStandIn, people: dict[str, Any], database_url: str  # noqa: F811
) -> None:
    """Issue 20 item 8 on Discord: /undo of an answer edits the question's own message back to
    the live question instead of leaving it looking settled above a new copy."""
    from tests.adapters.test_discord_e2e import CONFLICT_LABELS, PAST, conflict_question, press

    alice = people["alice"]
    async with running(server, database_url) as bot:
        question = await conflict_question(bot, alice)
        asked = question.content
        await press(server, alice, question, PAST)
        assert "now past" in question.content
        versions = len(question.history)
        [undone] = await bot.say(alice, "/undo")
        assert undone.content == ("Undone your answer “Mark older as past” about “I live in Paris”. "
                                  "The question is open again where you answered it.")
        await server.wait_for(lambda: len(question.history) > versions, what="the question put back")
        assert asked.endswith(question.content) and [b.label for b in question.buttons] == CONFLICT_LABELS
        assert bot.memories(alice)["I live in London"] == "unsure"
