"""Issue 20 item 7, end to end through the real discord.py and the Discord stand-in: the
recommended answer is a primary (blue) button and the destructive ones are red; a click edits
its message in place, with no ephemeral "Done." beside it; slash commands take typed options
(a number, a choice, a file for /import)."""

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


async def test_slash_commands_take_typed_options_and_import_takes_a_file(
    server: DiscordStandIn, people: dict[str, Any], database_url: str  # noqa: F811
) -> None:
    alice, bob, general = people["alice"], people["bob"], people["general"]
    async with running(server, database_url) as bot:
        options = {c["name"]: [(o["name"], o["type"], o.get("required", False), [ch["value"] for ch in o.get("choices", [])])
                               for o in c.get("options", [])] for c in server.commands}
        assert options["forget"] == [("number", 4, True, [])]
        assert options["edit"] == [("number", 4, True, []), ("text", 3, True, [])]
        assert options["memories"] == [("which", 3, False, ["all", "current", "historical", "review", "archived"])]
        assert options["settings"] == [("setting", 3, False, ["review", "judge", "notices", "recheck"]),
                                       ("value", 3, False, ["on", "off"])]
        assert options["import"] == [("file", 11, True, [])]
        assert options["remind"] == [("reminder", 3, True, [])]

        await bot.say1(alice, "remember: I like green tea")
        await bot.say1(alice, "remember: I keep bees")
        await server.slash(alice, general, "memories", which="current")
        listing = await server.wait_for_bot_message(general, ephemeral=True)
        assert "1. I like green tea" in listing.content and "2. I keep bees" in listing.content
        await server.slash(alice, general, "forget", number=2)
        deleted = await server.wait_for_bot_message(general, count=2, ephemeral=True)
        assert deleted.content.startswith("Deleted “I keep bees”")
        assert bot.memories(alice) == {"I like green tea": "current"}

        exported = await bot.say1(alice, "/export")
        [file] = exported.files
        rec = await server.slash(bob, general, "import", file=(file.filename, file.data, "application/json"))
        done = await server.wait_for_bot_message(general, count=3, ephemeral=True)
        assert done.id == rec.original_message_id
        assert done.content.startswith("Import done: 1 added")
        assert bot.memories(bob) == {"I like green tea": "current"}


async def test_a_backup_dropped_into_a_dm_without_words_is_offered_for_import(
    server: DiscordStandIn, people: dict[str, Any], database_url: str  # noqa: F811
) -> None:
    alice, bob = people["alice"], people["bob"]
    async with running(server, database_url) as bot:
        await bot.say1(alice, "remember: I like green tea")
        await bot.say1(alice, "remember: I keep bees")
        exported = await bot.say1(alice, "/export")
        [file] = exported.files

        not_backup = await bot.say1(bob, "", attachments=(("notes.txt", b"shopping: milk", "text/plain"),))
        assert not_backup.content == ("That file isn't a backup I made, so I did nothing with it. I read text, "
                                      "and the backup files /export gives you.")
        offer = await bot.say1(bob, "", attachments=((file.filename, file.data, "application/json"),))
        assert offer.content == ("That file is a backup of 2 memories. Import it? What you changed after the "
                                 "backup is kept, and nothing happens until you choose.")
        assert [(b.label, b.style) for b in offer.buttons] == [("Import it", PRIMARY), ("Don't import", SECONDARY)]
        assert bot.memories(bob) == {}
        await press(server, bob, offer, "Import it")
        assert offer.content == "Import done: 2 added, 0 updated, 0 unchanged."
        assert offer.buttons == []
        assert bot.memories(bob) == {"I like green tea": "current", "I keep bees": "current"}


async def test_a_private_answer_to_a_mention_leaves_a_reaction_in_the_channel(
    server: DiscordStandIn, people: dict[str, Any], database_url: str  # noqa: F811
) -> None:
    """Issue 20 item 4 on Discord: the answer goes by DM; the channel sees a 👌, nothing of it."""
    alice, general = people["alice"], people["general"]
    async with running(server, database_url) as bot:
        sent = await server.send_message(alice, general, f"{server.mention()} remember: I keep bees")
        answer = await server.wait_for_bot_message(bot.dm(alice))
        assert answer.content.startswith("Saved: “I keep bees”")
        await server.wait_for(lambda: sent.id in server.reactions, what="the reaction")
        assert server.reactions[sent.id] == ["👌"]
        assert server.bot_messages(general) == []
