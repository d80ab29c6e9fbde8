"""Issue 20 (part A) on Discord's wire: the real DiscordAdapter and core against the Discord
stand-in. Saving in every form: /remember as a slash command with its text option, and a mention
anywhere in a server message; each confirmation with Undo."""

from __future__ import annotations

from typing import Any

from tests.adapters.test_discord_e2e import database_url, people, running, server  # noqa: F401
from tests.standins.discord_api import DiscordStandIn


async def test_remember_as_a_slash_command_and_a_mention_anywhere_in_a_server(
    server: DiscordStandIn, people: dict[str, Any], database_url: str  # noqa: F811
) -> None:
    alice, general = people["alice"], people["general"]
    async with running(server, database_url) as bot:
        remember = next(c for c in server.commands if c["name"] == "remember")
        assert [o["name"] for o in remember.get("options", [])] == ["text"]

        await server.slash(alice, general, "remember", text="I live in Rome")
        saved = await server.wait_for_bot_message(general, ephemeral=True)
        assert saved.content == "Saved: “I live in Rome”"
        assert [[b.label for b in row] for row in saved.rows] == [["Undo"]]

        dm = bot.dm(alice)
        await server.send_message(alice, general, f"hey {server.mention()}, remember: my bike is blue")
        [noted] = [await server.wait_for_bot_message(dm, ephemeral=False)]
        assert noted.content == "Saved: “my bike is blue”"
        assert server.bot_messages(general, ephemeral=False) == []  # nothing private in the channel
        assert bot.memories(alice) == {"I live in Rome": "current", "my bike is blue": "current"}
