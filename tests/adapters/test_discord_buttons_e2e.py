"""Issue 20 item 7, end to end through the real discord.py and the Discord stand-in: the
recommended answer is a primary (blue) button and the destructive ones are red; a click edits
its message in place, with no ephemeral "Done." beside it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.adapters.test_discord_e2e import (  # noqa: F401
    PAST,
    conflict_question,
    database_url,
    people,
    press,
    running,
    server,
)
from tests.standins.discord_api import DiscordStandIn

pytestmark = pytest.mark.e2e

PRIMARY, SECONDARY, DANGER = 1, 2, 4


async def test_the_recommended_answer_is_blue_the_destructive_red_and_a_click_edits_in_place(
    server: DiscordStandIn, people: dict[str, Any], database_url: str  # noqa: F811
) -> None:
    alice = people["alice"]
    async with running(server, database_url) as bot:
        question = await conflict_question(bot, alice)
        assert [(b.label, b.style) for b in question.buttons] == [
            ("Keep both", SECONDARY), (PAST, PRIMARY), ("Replace older (deletes it)", DANGER), ("Discard newer", SECONDARY)]
        messages = len(server.bot_messages(bot.dm(alice)))
        rec = await press(server, alice, question, PAST)
        assert "now past" in question.content
        assert [(b.label, b.style) for b in question.buttons] == [("Undo", SECONDARY)]
        assert len(server.bot_messages(bot.dm(alice))) == messages  # nothing new, not even ephemeral
        assert not rec.followup_ids

        forget = await bot.say1(alice, "/forget_me")
        assert [(b.label, b.style) for b in forget.buttons] == [
            ("Yes, delete everything now (no undo)", DANGER), ("Cancel", SECONDARY)]
