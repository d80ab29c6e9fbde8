"""The Discord stand-in, proven with the real discord.py Client over the wire.

If these pass, the adapter tests exercise discord.py's real HTTP and gateway code paths; if the
stand-in drifted from what discord.py expects, these are the tests that say so.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any, AsyncIterator

import aiohttp
import discord
import pytest
from discord import app_commands

from tests.support.discord_helpers import default_intents, running_client, standin_server
from tests.standins.discord_api import (
    CB_DEFERRED_CHANNEL_MESSAGE,
    CB_DEFERRED_UPDATE_MESSAGE,
    CB_UPDATE_MESSAGE,
    INTENT_MESSAGE_CONTENT,
    DiscordStandIn,
    StandInError,
)

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
async def server() -> AsyncIterator[DiscordStandIn]:
    async with standin_server() as s:
        yield s


def new_client(*, message_content: bool = False, **options: Any) -> discord.Client:
    return discord.Client(
        intents=default_intents(message_content=message_content), guild_ready_timeout=0.05, **options
    )


class Inbox:
    """Collects on_message events from a client."""

    def __init__(self, client: discord.Client) -> None:
        self.messages: list[discord.Message] = []
        self.event = asyncio.Event()

        @client.event
        async def on_message(message: discord.Message) -> None:
            self.messages.append(message)
            self.event.set()

    async def wait(self, count: int, timeout: float = 5.0) -> list[discord.Message]:
        async def _wait() -> None:
            while len(self.messages) < count:
                self.event.clear()
                await self.event.wait()

        await asyncio.wait_for(_wait(), timeout)
        return self.messages


# ----------------------------------------------------------------------------------------------


async def test_startup_handshake_and_exact_json_content_type(server: DiscordStandIn) -> None:
    guild = server.add_guild("home", channels=("general", "random"))
    client = new_client()
    async with running_client(server, client):
        assert client.user is not None and client.user.id == server.bot.id
        assert client.application_id == server.application_id
        cached = client.get_guild(guild.id)
        assert cached is not None and {c.name for c in cached.text_channels} == {"general", "random"}
        assert server.intents == default_intents().value
        assert server.heartbeats >= 1
        paths = [r.path for r in server.requests]
        assert paths[:2] == ["/api/v10/users/@me", "/api/v10/oauth2/applications/@me"]
        assert server.unhandled == []

        async with aiohttp.ClientSession() as http:
            async with http.get(
                f"{server.base_url}/users/@me", headers={"Authorization": f"Bot {server.token}"}
            ) as resp:
                assert resp.headers["Content-Type"] == "application/json"


async def test_wrong_token_is_a_login_failure(server: DiscordStandIn) -> None:
    client = new_client()
    with pytest.raises(discord.LoginFailure):
        await client.login("not-the-token")
    await client.close()


async def test_privileged_intent_refused_when_not_enabled() -> None:
    async with standin_server(privileged_intents_enabled=False) as server:
        client = new_client(message_content=True)
        with pytest.raises(discord.PrivilegedIntentsRequired):
            async with running_client(server, client):
                pass
        assert server.intents is not None and server.intents & INTENT_MESSAGE_CONTENT


async def test_messages_arrive_with_rising_sequence_and_mentions_and_replies(server: DiscordStandIn) -> None:
    alice = server.add_user("alice", global_name="Alice A.")
    guild = server.add_guild("home", members=(alice,))
    general = guild.channel("general")
    client = new_client(enable_debug_events=True)
    inbox = Inbox(client)
    sequences: list[int] = []

    @client.event
    async def on_socket_raw_receive(raw: str) -> None:
        s = json.loads(raw).get("s")
        if s is not None:
            sequences.append(s)

    async with running_client(server, client):
        await server.send_dm(alice, "hello in private")
        await server.send_message(alice, general, "nobody addressed")
        await server.send_message(alice, general, f"{server.mention()} are you there?")
        msgs = await inbox.wait(3)

        dm, plain, mentioned = msgs
        assert isinstance(dm.channel, discord.DMChannel) and dm.content == "hello in private"
        assert dm.author.id == alice.id and dm.author.display_name == "Alice A."
        # no MESSAGE_CONTENT intent: Discord withholds the content of unaddressed guild messages
        assert plain.guild is not None and plain.content == ""
        assert mentioned.content == f"<@{server.bot.id}> are you there?"
        assert [u.id for u in mentioned.mentions] == [server.bot.id]

        # a reply to the bot's own message carries the reference, resolved, and pings the bot
        channel = client.get_channel(general)
        assert isinstance(channel, discord.TextChannel)
        mine = await channel.send("I am a bot message")
        await inbox.wait(4)  # the bot receives its own message too
        assert inbox.messages[3].author.bot
        await server.send_message(alice, general, "replying", reply_to=mine.id)
        reply = (await inbox.wait(5))[4]
        assert reply.reference is not None and reply.reference.message_id == mine.id
        assert isinstance(reply.reference.resolved, discord.Message)
        assert reply.reference.resolved.author.id == server.bot.id
        assert reply.content == "replying"

    assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)
    assert sequences[0] == 1


async def test_message_content_intent_reveals_guild_content(server: DiscordStandIn) -> None:
    alice = server.add_user("alice")
    guild = server.add_guild("home", members=(alice,))
    client = new_client(message_content=True)
    inbox = Inbox(client)
    async with running_client(server, client):
        await server.send_message(alice, guild.channel("general"), "just chatting")
        (msg,) = await inbox.wait(1)
        assert msg.content == "just chatting"


async def test_rest_send_edit_fetch_files_components_typing(server: DiscordStandIn) -> None:
    alice = server.add_user("alice")
    guild = server.add_guild("home", members=(alice,))
    client = new_client()
    async with running_client(server, client):
        channel = client.get_channel(guild.channel("general"))
        assert isinstance(channel, discord.TextChannel)
        view = discord.ui.View(timeout=None)
        view.add_item(discord.ui.Button(label="Yes", custom_id="c:yes", row=0))
        view.add_item(discord.ui.Button(label="No", custom_id="c:no", row=1))
        sent = await channel.send(
            "with a file", view=view, file=discord.File(io.BytesIO(b"\x00\x01data"), filename="blob.bin")
        )
        stored = server.message(sent.id)
        assert stored.content == "with a file"
        assert [[b.custom_id for b in row] for row in stored.rows] == [["c:yes"], ["c:no"]]
        assert [(f.filename, f.data) for f in stored.files] == [("blob.bin", b"\x00\x01data")]
        # the attachment URL is served by the stand-in
        assert await sent.attachments[0].read() == b"\x00\x01data"

        edited = await sent.edit(content="edited", view=None)
        assert edited.content == "edited" and stored.history == ["with a file"] and stored.rows == []
        fetched = await channel.fetch_message(sent.id)
        assert fetched.content == "edited"

        await channel.typing()
        assert server.typing == [channel.id]

        with pytest.raises(discord.HTTPException) as too_long:
            await channel.send("x" * 2001)
        assert too_long.value.code == 50035

        dm = await client.create_dm(discord.Object(alice.id))
        assert dm.id == server.dm_channel_id(alice)
        await dm.send("private hello")
        assert [m.content for m in server.bot_messages(dm.id)] == ["private hello"]

        server.close_dms(alice)
        with pytest.raises(discord.Forbidden) as closed:
            await dm.send("again")
        assert closed.value.code == 50007


async def test_rate_limit_429_is_retried_and_delivered_once(server: DiscordStandIn) -> None:
    guild = server.add_guild("home")
    client = new_client()
    async with running_client(server, client):
        channel = client.get_channel(guild.channel("general"))
        assert isinstance(channel, discord.TextChannel)
        server.fail_message_posts(2, status=429, retry_after=0.1)
        await channel.send("survives the rate limit")
        assert len(server.rejected_posts) == 2
        assert [m.content for m in server.bot_messages(channel.id)] == ["survives the rate limit"]


async def test_server_error_500_is_retried(server: DiscordStandIn) -> None:
    guild = server.add_guild("home")
    client = new_client()
    async with running_client(server, client):
        channel = client.get_channel(guild.channel("general"))
        assert isinstance(channel, discord.TextChannel)
        server.fail_message_posts(1, status=500)
        await channel.send("after a 500")
        assert [r.status for r in server.rejected_posts] == [500]
        assert [m.content for m in server.bot_messages(channel.id)] == ["after a 500"]


class _Persistent(discord.ui.View):
    def __init__(self, on_click: Any) -> None:
        super().__init__(timeout=None)
        self._on_click = on_click

    @discord.ui.button(label="Press", custom_id="persist:press")
    async def press(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await self._on_click(interaction)


async def test_component_click_update_message_and_double_answer(server: DiscordStandIn) -> None:
    alice = server.add_user("alice")
    guild = server.add_guild("home", members=(alice,))
    client = new_client()
    clicked: list[discord.Interaction] = []

    async def on_click(interaction: discord.Interaction) -> None:
        clicked.append(interaction)
        await interaction.response.edit_message(content="pressed", view=None)

    async with running_client(server, client):
        client.add_view(_Persistent(on_click))
        channel = client.get_channel(guild.channel("general"))
        assert isinstance(channel, discord.TextChannel)
        sent = await channel.send("question", view=_Persistent(on_click))
        rec = await server.click(alice, sent.id, "persist:press")
        callback = await server.wait_answered(rec)
        assert callback.type == CB_UPDATE_MESSAGE and callback.after < 3
        assert clicked[0].user.id == alice.id and clicked[0].data["custom_id"] == "persist:press"  # type: ignore[index]
        stored = server.message(sent.id)
        assert stored.content == "pressed" and stored.history == ["question"] and stored.rows == []

        # a second answer to the same interaction is refused like Discord does
        async with aiohttp.ClientSession() as http:
            url = f"{server.base_url}/interactions/{rec.id}/{rec.token}/callback"
            async with http.post(url, json={"type": CB_DEFERRED_UPDATE_MESSAGE}) as resp:
                assert resp.status == 400 and (await resp.json())["code"] == 40060
        assert rec.rejected[0].code == 40060

        with pytest.raises(StandInError):
            await server.click(alice, sent.id, "persist:press")  # the button is gone now


async def test_late_answer_is_unknown_interaction() -> None:
    async with standin_server(interaction_deadline=0.2) as server:
        alice = server.add_user("alice")
        guild = server.add_guild("home", members=(alice,))
        client = new_client()
        errors: list[discord.HTTPException] = []

        async def slow(interaction: discord.Interaction) -> None:
            await asyncio.sleep(0.4)
            try:
                await interaction.response.defer()
            except discord.HTTPException as exc:
                errors.append(exc)

        async with running_client(server, client):
            client.add_view(_Persistent(slow))
            channel = client.get_channel(guild.channel("general"))
            assert isinstance(channel, discord.TextChannel)
            sent = await channel.send("question", view=_Persistent(slow))
            rec = await server.click(alice, sent.id, "persist:press")
            await server.wait_for(lambda: rec.rejected, what="late answer")
            await server.wait_for(lambda: errors)
            assert isinstance(errors[0], discord.NotFound) and errors[0].code == 10062
            assert not rec.answered


async def test_defer_then_edit_original_for_component(server: DiscordStandIn) -> None:
    alice = server.add_user("alice")
    client = new_client()

    async def on_click(interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content="done later")
        await interaction.followup.send("only you see this", ephemeral=True)

    async with running_client(server, client):
        client.add_view(_Persistent(on_click))
        dm = await client.create_dm(discord.Object(alice.id))
        sent = await dm.send("question", view=_Persistent(on_click))
        rec = await server.click(alice, sent.id, "persist:press")
        note = await server.wait_for_bot_message(dm.id, ephemeral=True)
        assert rec.callback is not None and rec.callback.type == CB_DEFERRED_UPDATE_MESSAGE
        assert server.message(sent.id).content == "done later"
        assert note.content == "only you see this" and note.interaction_id == rec.id
        # ephemeral messages are invisible to the channel endpoints
        with pytest.raises(discord.NotFound):
            await dm.fetch_message(note.id)


async def test_slash_commands_sync_defer_and_followups(server: DiscordStandIn) -> None:
    alice = server.add_user("alice")
    guild = server.add_guild("home", members=(alice,))
    client = new_client()
    tree = app_commands.CommandTree(client)
    got: list[str | None] = []

    @tree.command(name="echo", description="Say it back")
    async def echo(interaction: discord.Interaction, text: str | None = None) -> None:
        got.append(text)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send(f"echo: {text}")
        await interaction.followup.send("second", ephemeral=True)

    async with running_client(server, client):
        await tree.sync()
        await tree.sync(guild=discord.Object(guild.id))  # an empty guild overwrite is fine too
        assert [c["name"] for c in server.commands] == ["echo"]
        assert server.commands[0]["options"][0]["name"] == "text"
        assert server.guild_commands[guild.id] == []

        rec = await server.slash(alice, guild.channel("general"), "echo", text="hi there")
        second = await server.wait_for_bot_message(guild.channel("general"), count=2, ephemeral=True)
        first = server.message(rec.original_message_id or 0)
        assert got == ["hi there"]
        assert rec.callback is not None and rec.callback.type == CB_DEFERRED_CHANNEL_MESSAGE
        # the first follow-up fills the "thinking" placeholder and keeps its ephemerality
        assert first.content == "echo: hi there" and first.ephemeral and not first.loading
        assert second.content == "second" and second.id in rec.followup_ids

        with pytest.raises(StandInError):
            await server.slash(alice, guild.channel("general"), "nope")


async def test_reconnect_resumes_and_replays_missed_events(server: DiscordStandIn) -> None:
    alice = server.add_user("alice")
    client = new_client()
    inbox = Inbox(client)
    resumed = asyncio.Event()

    @client.event
    async def on_resumed() -> None:
        resumed.set()

    async with running_client(server, client):
        await server.reconnect_clients()  # op 7
        await asyncio.wait_for(resumed.wait(), 5)
        assert len(server.resumes) == 1 and len(server.identifies) == 1

        resumed.clear()
        await server.drop_clients()  # a network blip ...
        await server.send_dm(alice, "sent while you were away")  # ... during which this happens
        await asyncio.wait_for(resumed.wait(), 5)
        (msg,) = await inbox.wait(1)
        assert msg.content == "sent while you were away"
        assert len(server.identifies) == 1  # resumed, not re-identified


async def test_restart_identifies_again(server: DiscordStandIn) -> None:
    alice = server.add_user("alice")
    first = new_client()
    async with running_client(server, first):
        pass
    await server.wait_for(lambda: server.connected == 0, what="first client gone")
    second = new_client()
    inbox = Inbox(second)
    async with running_client(server, second):
        await server.send_dm(alice, "welcome back")
        (msg,) = await inbox.wait(1)
        assert msg.content == "welcome back"
    assert len(server.identifies) == 2 and server.resumes == []
