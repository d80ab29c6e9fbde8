"""End-to-end tests of adapters.discord: the real DiscordAdapter (real discord.py client) against
the Discord stand-in, with a small scripted core that records what reaches it.

Phase 1: the contract only. The same flows with the real core (and /link across platforms) come
when bot/core/core.py is plugged in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, AsyncIterator, Callable

import pytest

from adapters.discord import PLATFORM, SLASH_SHAPES, DiscordAdapter, DiscordStartError
from bot.events import Attachment, Button, ButtonPress, ChatRef, Incoming, Outbox, Outgoing
from bot.core.menu import COMMAND_MENU
from tests.support.discord_helpers import settings_for, standin_server
from tests.standins.discord_api import (
    CB_CHANNEL_MESSAGE,
    CB_DEFERRED_CHANNEL_MESSAGE,
    CB_DEFERRED_UPDATE_MESSAGE,
    CB_UPDATE_MESSAGE,
    FLAG_EPHEMERAL,
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MESSAGES,
    INTENT_GUILDS,
    INTENT_MESSAGE_CONTENT,
    DiscordStandIn,
    Guild,
    User,
)

pytestmark = pytest.mark.timeout(30)


class ScriptedCore:
    """Stands in for bot.core.core: records every Incoming / ButtonPress and answers from a script."""

    def __init__(self) -> None:
        self.outbox = Outbox()
        self.messages: list[Incoming] = []
        self.presses: list[ButtonPress] = []
        self.reply: Callable[[Incoming], list[Outgoing]] = lambda m: [Outgoing(text=f"echo: {m.text}")]
        self.answer: Callable[[ButtonPress], list[Outgoing]] = lambda p: [
            Outgoing(text=f"pressed {p.token}", edit_of=p.message_id)
        ]
        self.press_delay = 0.0

    async def handle_message(self, message: Incoming) -> list[Outgoing]:
        self.messages.append(message)
        return self.reply(message)

    async def handle_press(self, press: ButtonPress) -> list[Outgoing]:
        self.presses.append(press)
        if self.press_delay:
            await asyncio.sleep(self.press_delay)
        return self.answer(press)


class World:
    def __init__(self, server: DiscordStandIn) -> None:
        self.server = server
        self.alice: User = server.add_user("alice", global_name="Alice")
        self.bob: User = server.add_user("bob")
        self.guild: Guild = server.add_guild("home", channels=("general", "other"), members=(self.alice, self.bob))
        self.general = self.guild.channel("general")


@pytest.fixture
async def server() -> AsyncIterator[DiscordStandIn]:
    async with standin_server() as s:
        yield s


@pytest.fixture
def world(server: DiscordStandIn) -> World:
    return World(server)


@contextlib.asynccontextmanager
async def running_adapter(
    server: DiscordStandIn, core: ScriptedCore, **settings: Any
) -> AsyncIterator[DiscordAdapter]:
    adapter = DiscordAdapter(core, settings_for(server, **settings))
    adapter.guild_ready_timeout = 0.05  # tests do not wait 2 s for on_ready
    await adapter.start()
    try:
        yield adapter
    finally:
        await adapter.stop()


async def wait_core(server: DiscordStandIn, core: ScriptedCore, count: int = 1) -> list[Incoming]:
    await server.wait_for(lambda: len(core.messages) >= count, what=f"{count} message(s) at the core")
    return core.messages


def buttons(*rows: tuple[tuple[str, str], ...]) -> tuple[tuple[Button, ...], ...]:
    return tuple(tuple(Button(label, token) for label, token in row) for row in rows)


def test_the_adapter_module_does_not_shadow_the_library() -> None:
    import sys

    import discord

    import adapters.discord as module

    assert module.discord is discord and module.__name__ == "adapters.discord"
    assert discord.__file__ is not None and "site-packages" in discord.__file__
    assert not any(p.rstrip("/").endswith("/adapters") for p in sys.path)


# ----------------------------------------------------------------------------------------------
# typed messages
# ----------------------------------------------------------------------------------------------


async def test_dm_text_and_typed_commands_reach_the_core(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    async with running_adapter(server, core):
        assert core.outbox.senders[PLATFORM] is not None
        sent = await server.send_dm(world.alice, "hello there")
        await server.send_dm(world.alice, "/memories current")
        first, second = await wait_core(server, core, 2)
        dm = server.dm_channel_id(world.alice)
        assert first == Incoming(
            platform="discord",
            chat_id=str(dm),
            user_id=str(world.alice.id),
            text="hello there",
            display_name="Alice",
            is_group=False,
            addressed_to_bot=True,
            message_id=str(sent.id),
        )
        assert second.text == "/memories current" and not second.via_slash_command
        await server.wait_for_bot_message(dm, count=2)
        assert sorted(m.content for m in server.bot_messages(dm)) == ["echo: /memories current", "echo: hello there"]
    assert PLATFORM not in core.outbox.senders  # stop() unregisters


async def test_guild_messages_only_when_addressed(
    server: DiscordStandIn, world: World, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    core = ScriptedCore()
    async with running_adapter(server, core, discord_message_content=True):
        # the bot posts something people can reply to
        push_id = await core.outbox.send(ChatRef("discord", str(world.general)), Outgoing(text="I am here"))
        assert push_id is not None
        human = await server.send_message(world.bob, world.general, "bob says something")

        await server.send_message(world.alice, world.general, "secret chatter about my day")
        await server.send_message(world.alice, world.general, "a reply to bob, not to the bot", reply_to=human)
        await server.send_message(world.alice, world.general, f"hey {server.mention()}  what do you know?")
        await server.send_message(world.alice, world.general, "and a reply to you", reply_to=int(push_id))
        await server.send_message(world.alice, world.general, "reply without ping", reply_to=int(push_id),
                                  ping_reply=False)
        got = await wait_core(server, core, 3)
        await asyncio.sleep(0.05)  # anything unaddressed was decided long before the replies
        assert [m.text for m in core.messages] == [
            "hey what do you know?",
            "and a reply to you",
            "reply without ping",
        ]
        assert all(m.is_group and m.addressed_to_bot and m.chat_id == str(world.general) for m in got)
        # unaddressed chatter never reached the core and was not logged by us
        outside_library = [r for r in caplog.records if not r.name.startswith("discord")]
        assert not any("secret chatter" in r.getMessage() for r in outside_library)
        # answers go to the channel as replies to the message that asked
        answer = await server.wait_for_bot_message(
            world.general, predicate=lambda m: m.content == "echo: hey what do you know?"
        )
        assert answer.reference_id is not None


async def test_without_message_content_intent_mentions_still_work(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    async with running_adapter(server, core):
        assert server.intents == INTENT_GUILDS | INTENT_GUILD_MESSAGES | INTENT_DIRECT_MESSAGES
        assert not server.intents & INTENT_MESSAGE_CONTENT
        await server.send_message(world.alice, world.general, "nobody asked you")
        await server.send_message(world.alice, world.general, f"{server.mention()} /memories all")
        (msg,) = await wait_core(server, core, 1)
        assert msg.text == "/memories all"


async def test_message_content_intent_only_when_enabled(server: DiscordStandIn, world: World) -> None:
    async with running_adapter(server, ScriptedCore(), discord_message_content=True):
        assert server.intents is not None and server.intents & INTENT_MESSAGE_CONTENT


async def test_bots_are_ignored_including_itself(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    other_bot = server.add_user("otherbot", bot=True)
    async with running_adapter(server, core):
        await server.send_message(other_bot, world.general, f"{server.mention()} ping from a bot")
        await server.send_dm(world.alice, "one")
        await wait_core(server, core, 1)
        await server.wait_for_bot_message(server.dm_channel_id(world.alice))
        await server.send_dm(world.alice, "two")
        await wait_core(server, core, 2)
        # the bot's own echo (dispatched back over the gateway) did not loop into the core
        assert [m.text for m in core.messages] == ["one", "two"]


async def test_core_failure_is_logged_and_answered_not_fatal(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    calls = 0

    def flaky(m: Incoming) -> list[Outgoing]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("core exploded")
        return [Outgoing(text="fine again")]

    core.reply = flaky
    async with running_adapter(server, core) as adapter:
        dm = server.dm_channel(world.alice).id
        await server.send_dm(world.alice, "first")
        sorry = await server.wait_for_bot_message(dm)
        assert "went wrong" in sorry.content
        await server.send_dm(world.alice, "second")
        await server.wait_for_bot_message(dm, count=2)
        assert server.bot_messages(dm)[-1].content == "fine again"
        assert adapter.client is not None and not adapter.client.is_closed()


# ----------------------------------------------------------------------------------------------
# slash commands
# ----------------------------------------------------------------------------------------------


async def test_slash_commands_registered_for_the_whole_menu(server: DiscordStandIn, world: World) -> None:
    async with running_adapter(server, ScriptedCore()):
        assert [c["name"] for c in server.commands] == [name for name, _ in COMMAND_MENU]
        for command in server.commands:  # typed ones: tests/adapters/test_discord_buttons_e2e.py
            if command["name"] in SLASH_SHAPES:
                continue
            (option,) = command["options"]
            assert option["type"] == 3 and not option.get("required", False)


async def test_slash_command_in_guild_is_ephemeral_and_reaches_core_as_text(
    server: DiscordStandIn, world: World
) -> None:
    core = ScriptedCore()
    core.reply = lambda m: [Outgoing(text="1. I live in London")]
    async with running_adapter(server, core):
        rec = await server.slash(world.alice, world.general, "memories", which="current")
        answer = await server.wait_for_bot_message(world.general, ephemeral=True)
        (msg,) = core.messages
        assert msg.text == "/memories current" and msg.via_slash_command
        assert msg.is_group and msg.user_id == str(world.alice.id) and msg.chat_id == str(world.general)
        assert rec.callback is not None and rec.callback.type == CB_DEFERRED_CHANNEL_MESSAGE
        assert rec.callback.flags & FLAG_EPHEMERAL and rec.callback.after < 3
        assert answer.id == rec.original_message_id and answer.content == "1. I live in London"
        assert server.bot_messages(world.general, ephemeral=False) == []  # nothing public

        # without an argument, in a DM: plain text, not ephemeral
        dm = server.dm_channel(world.alice).id
        rec2 = await server.slash(world.alice, dm, "help")
        answer2 = await server.wait_for_bot_message(dm)
        assert core.messages[-1].text == "/help" and not core.messages[-1].is_group
        assert not answer2.ephemeral and rec2.callback is not None and not rec2.callback.flags & FLAG_EPHEMERAL


async def test_slash_export_in_guild_is_an_ephemeral_attachment(server: DiscordStandIn, world: World) -> None:
    data = b'{"version": 1}'
    core = ScriptedCore()
    core.reply = lambda m: [Outgoing(text="Your export.", file=Attachment("export.json", data), private=True)]
    async with running_adapter(server, core):
        rec = await server.slash(world.alice, world.general, "export")
        answer = await server.wait_for_bot_message(world.general, ephemeral=True)
        assert answer.id == rec.original_message_id
        assert answer.content == "Your export." and [(f.filename, f.data) for f in answer.files] == [("export.json", data)]
        assert server.bot_messages(world.general, ephemeral=False) == []


async def test_buttons_on_an_ephemeral_slash_answer_edit_in_place(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    core.reply = lambda m: [Outgoing(text="Forget 'I live in London'?", buttons=buttons((("Forget", "tF"),)))]
    core.answer = lambda p: [Outgoing(text="Forgotten.", edit_of=p.message_id, buttons=buttons((("Undo", "tU"),)))]
    async with running_adapter(server, core):
        await server.slash(world.alice, world.general, "forget", number=1)
        question = await server.wait_for_bot_message(world.general, ephemeral=True)
        assert question.custom_ids == ["mb:tF"]
        rec = await server.click(world.alice, question, "mb:tF")
        await server.wait_for(lambda: question.edited, what="ephemeral edit")
        # an ephemeral message can only be edited through the interaction: type 7
        assert rec.callback is not None and rec.callback.type == CB_UPDATE_MESSAGE
        assert question.content == "Forgotten." and question.custom_ids == ["mb:tU"]
        assert core.presses[0].message_id == str(question.id)


# ----------------------------------------------------------------------------------------------
# buttons
# ----------------------------------------------------------------------------------------------


async def test_click_becomes_press_with_token_and_edits_the_message(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    core.reply = lambda m: [
        Outgoing(text="Does 'I live in Paris' replace 'I live in London'?",
                 buttons=buttons((("Keep both", "tKEEP"), ("Mark older as past", "tPAST"))))
    ]
    core.answer = lambda p: [
        Outgoing(text="Marked 'I live in London' as past.", edit_of=p.message_id,
                 buttons=buttons((("Undo", "tUNDO"),)))
    ]
    async with running_adapter(server, core):
        dm = server.dm_channel(world.alice).id
        await server.send_dm(world.alice, "remember: I live in Paris")
        question = await server.wait_for_bot_message(dm)
        assert question.custom_ids == ["mb:tKEEP", "mb:tPAST"]
        assert [b.label for b in question.buttons] == ["Keep both", "Mark older as past"]

        rec = await server.click(world.alice, question, "mb:tPAST")
        await server.wait_for(lambda: question.edited, what="edit")
        (press,) = core.presses
        assert press == ButtonPress(
            platform="discord", chat_id=str(dm), user_id=str(world.alice.id), token="tPAST",
            message_id=str(question.id), display_name="Alice", is_group=False,
        )
        assert rec.callback is not None and rec.callback.type == CB_UPDATE_MESSAGE and rec.callback.after < 3
        assert question.content == "Marked 'I live in London' as past."
        assert question.custom_ids == ["mb:tUNDO"]
        assert len(server.bot_messages(dm)) == 1  # edited in place, nothing new


async def test_button_sent_before_restart_still_works(server: DiscordStandIn, world: World) -> None:
    first_core = ScriptedCore()
    async with running_adapter(server, first_core):
        pushed = await first_core.outbox.send(
            ChatRef("discord", str(world.general)),
            Outgoing(text="Reminder: call mom", buttons=buttons((("Done", "tDONE"), ("Snooze 10 min", "tSNZ")))),
        )
    assert pushed is not None
    # a new process: new adapter, new core, same Discord
    second_core = ScriptedCore()
    second_core.answer = lambda p: [Outgoing(text="Done \u2713", edit_of=p.message_id)]
    async with running_adapter(server, second_core):
        rec = await server.click(world.alice, int(pushed), "mb:tDONE")
        await server.wait_for(lambda: server.message(pushed).edited, what="edit after restart")
        assert [p.token for p in second_core.presses] == ["tDONE"]
        assert second_core.presses[0].is_group and second_core.presses[0].chat_id == str(world.general)
        assert rec.callback is not None and rec.callback.type == CB_UPDATE_MESSAGE
        assert server.message(pushed).content == "Done \u2713" and server.message(pushed).buttons == []
    assert first_core.presses == []


async def test_refused_press_notice_is_ephemeral(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    core.answer = lambda p: [Outgoing(notice="This button is not yours.")]
    async with running_adapter(server, core):
        pushed = await core.outbox.send(
            ChatRef("discord", str(world.general)),
            Outgoing(text="Alice: keep both?", buttons=buttons((("Keep both", "tK"),))),
        )
        rec = await server.click(world.bob, int(pushed or 0), "mb:tK")
        notice = await server.wait_for_bot_message(world.general, ephemeral=True)
        assert core.presses[0].user_id == str(world.bob.id)
        assert notice.content == "This button is not yours." and notice.interaction_id == rec.id
        assert rec.callback is not None and rec.callback.type == CB_CHANNEL_MESSAGE
        assert rec.callback.flags & FLAG_EPHEMERAL
        original = server.message(pushed or 0)
        assert not original.edited and original.custom_ids == ["mb:tK"]


async def test_slow_core_press_is_deferred_in_time_then_edited(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    core.press_delay = 2.6
    async with running_adapter(server, core):
        pushed = await core.outbox.send(
            ChatRef("discord", str(server.dm_channel(world.alice).id), str(world.alice.id)),
            Outgoing(text="Slow question", buttons=buttons((("Go", "tGO"),))),
        )
        rec = await server.click(world.alice, int(pushed or 0), "mb:tGO")
        await server.wait_for(lambda: server.message(pushed or 0).edited, timeout=6, what="late edit")
        assert rec.callback is not None and rec.callback.type == CB_DEFERRED_UPDATE_MESSAGE
        assert rec.callback.after < 3.0
        assert rec.rejected == []
        assert server.message(pushed or 0).content == "pressed tGO"


async def test_private_answer_to_a_press_in_a_guild_is_ephemeral(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    core.answer = lambda p: [Outgoing(text="Your 3 memories ...", private=True)]
    async with running_adapter(server, core):
        pushed = await core.outbox.send(
            ChatRef("discord", str(world.general)), Outgoing(text="Menu", buttons=buttons((("Show", "tS"),)))
        )
        rec = await server.click(world.alice, int(pushed or 0), "mb:tS")
        shown = await server.wait_for_bot_message(world.general, ephemeral=True)
        assert shown.content == "Your 3 memories ..." and shown.interaction_id == rec.id
        assert [m.id for m in server.bot_messages(world.general, ephemeral=False)] == [int(pushed or 0)]


async def test_press_core_failure_is_answered_and_logged(
    server: DiscordStandIn, world: World, caplog: pytest.LogCaptureFixture
) -> None:
    core = ScriptedCore()

    def broken(p: ButtonPress) -> list[Outgoing]:
        raise RuntimeError("database is locked")

    core.answer = broken
    async with running_adapter(server, core):
        pushed = await core.outbox.send(
            ChatRef("discord", str(world.general)), Outgoing(text="Q", buttons=buttons((("A", "tA"),)))
        )
        rec = await server.click(world.alice, int(pushed or 0), "mb:tA")
        notice = await server.wait_for_bot_message(world.general, ephemeral=True)
        assert "went wrong" in notice.content and rec.callback is not None and rec.callback.after < 3
        assert any("button press" in r.getMessage() and r.exc_info for r in caplog.records)


async def test_many_buttons_wrap_into_rows_of_five(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    async with running_adapter(server, core):
        seven = tuple((f"B{i}", f"t{i}") for i in range(7))
        pushed = await core.outbox.send(
            ChatRef("discord", str(world.general)), Outgoing(text="pick", buttons=buttons(seven, (("Z", "tZ"),)))
        )
        assert [len(row) for row in server.message(pushed or 0).rows] == [5, 2, 1]
        thirty = tuple(tuple((f"B{r}{i}", f"t{r}{i}") for i in range(5)) for r in range(6))
        too_many = await core.outbox.send(
            ChatRef("discord", str(world.general)), Outgoing(text="too many", buttons=buttons(*thirty))
        )
        assert [len(row) for row in server.message(too_many or 0).rows] == [5, 5, 5, 5, 5]


# ----------------------------------------------------------------------------------------------
# long text, files, rate limits
# ----------------------------------------------------------------------------------------------


async def test_long_reply_is_split_with_buttons_on_the_last_chunk(server: DiscordStandIn, world: World) -> None:
    sentences = [f"Sentence number {i} says something worth remembering." for i in range(100)]
    long_text = " ".join(sentences)
    assert len(long_text) > 5000
    core = ScriptedCore()
    core.reply = lambda m: [Outgoing(text=long_text, buttons=buttons((("More", "tMORE"),)))]
    async with running_adapter(server, core):
        dm = server.dm_channel(world.alice).id
        await server.send_dm(world.alice, "tell me everything")
        await server.wait_for_bot_message(dm, predicate=lambda m: bool(m.buttons))
        chunks = server.bot_messages(dm)
        assert len(chunks) >= 3 and all(len(c.content) <= 2000 for c in chunks)
        assert " ".join(c.content for c in chunks).split() == long_text.split()
        assert [bool(c.buttons) for c in chunks] == [False] * (len(chunks) - 1) + [True]


async def test_export_is_sent_as_an_attachment(server: DiscordStandIn, world: World) -> None:
    data = b'{"version": 1, "memories": []}'
    core = ScriptedCore()
    core.reply = lambda m: [
        Outgoing(text="Here is everything I remember about you.",
                 file=Attachment("memories.json", data, "application/json"), private=True)
    ]
    async with running_adapter(server, core):
        # typed in a guild, private: it goes to the person's DM
        await server.send_message(world.alice, world.general, f"{server.mention()} /export")
        dm = await server.wait_for(lambda: server.dm_channel_id(world.alice), what="DM opened")
        sent = await server.wait_for_bot_message(dm)
        assert [(f.filename, f.data) for f in sent.files] == [("memories.json", data)]
        assert server.bot_messages(world.general) == []


async def test_import_from_attachment_and_size_limit(server: DiscordStandIn, world: World) -> None:
    backup = b'{"version": 1, "memories": [{"text": "I live in Paris"}]}'
    core = ScriptedCore()
    core.reply = lambda m: [Outgoing(text=f"imported {len(m.attachments)} file(s)")]
    async with running_adapter(server, core, discord_max_import_bytes=len(backup)):
        dm = server.dm_channel(world.alice).id
        await server.send_dm(world.alice, "/import", attachments=(("backup.json", backup, "application/json"),))
        (msg,) = await wait_core(server, core, 1)
        assert msg.text == "/import"
        assert msg.attachments == (Attachment("backup.json", backup, "application/json"),)

        await server.send_dm(world.alice, "/import", attachments=(("big.json", backup + b" ", "application/json"),))
        refusal = await server.wait_for_bot_message(dm, count=2)
        assert "too big" in refusal.content
        await server.send_dm(world.alice, "just text", attachments=(("pic.png", b"\x89PNG", "image/png"),))
        await wait_core(server, core, 2)
        assert core.messages[-1].text == "just text" and core.messages[-1].attachments == ()
        assert len(core.messages) == 2  # the oversized import never reached the core
        downloaded = [r.path.rsplit("/", 1)[-1] for r in server.requests if r.path.startswith("/attachments/")]
        assert downloaded == ["backup.json"]  # neither the oversized file nor the picture was fetched


async def test_rate_limited_posts_are_all_delivered_once(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    async with running_adapter(server, core):
        dm = server.dm_channel(world.alice).id
        server.fail_message_posts(3, status=429, retry_after=0.2)
        for i in range(4):
            await server.send_dm(world.alice, f"message {i}")
        await server.wait_for_bot_message(dm, count=4, timeout=10)
        await asyncio.sleep(0.3)  # a duplicate would need another retry round to show up
        assert sorted(m.content for m in server.bot_messages(dm)) == [f"echo: message {i}" for i in range(4)]
        assert len(server.rejected_posts) == 3


# ----------------------------------------------------------------------------------------------
# pushes through the outbox, typing, private replies
# ----------------------------------------------------------------------------------------------


async def test_outbox_pushes_land_in_the_right_place(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    async with running_adapter(server, core):
        # to a guild channel
        in_channel = await core.outbox.send(ChatRef("discord", str(world.general)), Outgoing(text="to the channel"))
        assert server.message(in_channel or 0).channel_id == world.general
        # private: to the DM of the user, even though the chat is a guild channel
        private = await core.outbox.send(
            ChatRef("discord", str(world.general), str(world.bob.id)), Outgoing(text="only for bob", private=True)
        )
        assert server.message(private or 0).channel_id == server.dm_channel_id(world.bob)
        # to a DM channel id directly
        dm = server.dm_channel(world.alice).id
        direct = await core.outbox.send(ChatRef("discord", str(dm)), Outgoing(text="reminder for alice"))
        assert server.message(direct or 0).channel_id == dm
        # edit_of through the outbox edits in place
        again = await core.outbox.send(
            ChatRef("discord", str(world.general)), Outgoing(text="edited", edit_of=in_channel)
        )
        assert again == in_channel and server.message(in_channel or 0).content == "edited"
        # typing indicator
        await core.outbox.typing(ChatRef("discord", str(dm)))
        assert server.typing == [dm]


async def test_private_reply_with_closed_dms_leaves_a_pointer(server: DiscordStandIn, world: World) -> None:
    core = ScriptedCore()
    core.reply = lambda m: [Outgoing(text="your memories ...", private=True)]
    server.close_dms(world.alice)
    async with running_adapter(server, core):
        await server.send_message(world.alice, world.general, f"{server.mention()} /memories")
        pointer = await server.wait_for_bot_message(world.general)
        assert "direct message" in pointer.content and "your memories" not in pointer.content
        assert all("your memories" not in m.content for m in server.bot_messages())


async def test_login_failure_is_a_clear_error(server: DiscordStandIn) -> None:
    adapter = DiscordAdapter(ScriptedCore(), settings_for(server).model_copy(update={"discord_bot_token": "wrong"}))
    with pytest.raises(DiscordStartError, match="token"):
        await adapter.start()
    empty = DiscordAdapter(ScriptedCore(), settings_for(server).model_copy(update={"discord_bot_token": ""}))
    with pytest.raises(DiscordStartError, match="DISCORD_BOT_TOKEN"):
        await empty.start()


async def test_a_login_link_goes_out_without_an_embed(server: DiscordStandIn, world: World) -> None:
    """/web's one-time link: Discord shows no preview of it (SUPPRESS_EMBEDS, flag 4)."""
    core = ScriptedCore()
    core.reply = lambda m: [Outgoing(text="Your memory page: https://memory.example.com/login/abc", no_preview=True)
                            if m.text == "/web" else Outgoing(text="See https://example.org")]
    async with running_adapter(server, core):
        await server.send_dm(world.alice, "/web")
        dm = server.dm_channel_id(world.alice)
        await server.wait_for_bot_message(dm, count=1)
        [link] = server.bot_messages(dm)
        assert link.content.startswith("Your memory page:") and link.flags & 4
        await server.send_dm(world.alice, "hello")
        await server.wait_for_bot_message(dm, count=2)
        other = [m for m in server.bot_messages(dm) if m.content == "See https://example.org"]
        assert other and not other[0].flags & 4
