"""Discord phase 2, end to end on the wire: the real DiscordAdapter (a real discord.py client
doing real HTTP and websocket work) and the real core (bot.app.build_app: real memory service,
real database) against the Discord stand-in. Nothing between the wire and the database is
scripted; assertions read what the stand-in received (messages, edits, ephemeral answers,
files) and what the database holds.

SQLite (a file in tmp_path) always; the conflict flow and the "unaddressed server messages are
never stored" check also run on PostgreSQL when it is reachable.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from sqlalchemy import text as sql

from adapters.discord import MESSAGE_LIMIT, DiscordAdapter
from bot.app import App, build_app
from bot.core.core import REFUSALS, Turn
from bot.events import ChatRef, Incoming
from bot.features.memory_commands import conflict_message
from bot.core.buttons import ClaimStatus
from adapters.textsplit import split_message
from tests.conftest import database_url_for, make_settings
from tests.support.discord_helpers import standin_server
from tests.standins.discord_api import (
    CB_CHANNEL_MESSAGE,
    CB_DEFERRED_CHANNEL_MESSAGE,
    CB_UPDATE_MESSAGE,
    FLAG_EPHEMERAL,
    DiscordStandIn,
    InteractionRecord,
    StoredMessage,
    User,
)

pytestmark = pytest.mark.timeout(60)

PAST = "Mark older as past (recommended)"
CONFLICT_LABELS = ["Keep both", PAST, "Replace older (deletes it)", "Discard newer"]
NOT_YOURS = REFUSALS[ClaimStatus.NOT_YOURS]


# --- the database the bot runs on -----------------------------------------------------------


@pytest.fixture(params=["sqlite"])
def database_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    """SQLite by default; tests opt into PostgreSQL with indirect parametrisation."""
    with database_url_for(request.param, tmp_path) as url:
        yield url


BOTH_DATABASES = pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)


# --- the running bot ----------------------------------------------------------------------------


class DiscordBot:
    """The assembled app and a started adapter on the stand-in, plus helpers that speak for
    people and read the database. `restart()` is a new process: new app, new adapter, same
    database and same Discord."""

    def __init__(self, server: DiscordStandIn, database_url: str, **settings: Any) -> None:
        self.server = server
        self.settings = make_settings(
            database_url=database_url, embedding_model="none", discord_bot_token=server.token, **settings
        )
        self.app: App | None = None
        self.adapter: DiscordAdapter | None = None

    async def start(self) -> None:
        self.app = build_app(self.settings)
        await self.app.start_background()
        self.adapter = DiscordAdapter(self.app.core, self.settings)
        self.adapter.guild_ready_timeout = 0.05  # tests do not wait 2 s for on_ready
        await self.adapter.start()

    async def stop(self) -> None:
        if self.adapter is not None:
            await self.adapter.stop()
            self.adapter = None
        if self.app is not None:
            await self.app.close()
            self.app = None

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    # people
    def dm(self, user: User) -> int:
        return self.server.dm_channel(user).id

    async def say(self, user: User, text: str, *, expect: int = 1, **kw: Any) -> list[StoredMessage]:
        """`user` writes `text` in their DM; returns the `expect` new bot messages there."""
        dm = self.dm(user)
        before = len(self.server.bot_messages(dm, ephemeral=False))
        await self.server.send_dm(user, text, **kw)
        await self.server.wait_for_bot_message(dm, count=before + expect, ephemeral=False)
        return self.server.bot_messages(dm, ephemeral=False)[before:]

    async def say1(self, user: User, text: str, **kw: Any) -> StoredMessage:
        [answer] = await self.say(user, text, **kw)
        return answer

    async def listed(self, user: User, which: str = "all") -> str:
        return (await self.say(user, f"/memories {which}"))[0].content

    # database
    @property
    def core(self) -> Any:
        assert self.app is not None
        return self.app.core

    def rows(self, query: str, **params: Any) -> list[tuple[Any, ...]]:
        assert self.app is not None
        with self.app.db.session() as s:
            return [tuple(r) for r in s.execute(sql(query), params)]

    def memories(self, user: User) -> dict[str, str]:
        """text -> status of the person's memories that are not deleted, from the table."""
        return {
            t: st
            for t, st in self.rows(
                "SELECT m.text, m.status FROM memory m JOIN identity i ON i.owner_id = m.owner_id "
                "WHERE i.platform = 'discord' AND i.user_id = :u AND m.deleted_at IS NULL",
                u=str(user.id),
            )
        }


@pytest.fixture
async def server() -> AsyncIterator[DiscordStandIn]:
    async with standin_server() as s:
        yield s


@pytest.fixture
def people(server: DiscordStandIn) -> dict[str, Any]:
    alice = server.add_user("alice", global_name="Alice")
    bob = server.add_user("bob", global_name="Bob")
    guild = server.add_guild("home", channels=("general",), members=(alice, bob))
    return {"alice": alice, "bob": bob, "general": guild.channel("general")}


@contextlib.asynccontextmanager
async def running(server: DiscordStandIn, database_url: str, **settings: Any) -> AsyncIterator[DiscordBot]:
    bot = DiscordBot(server, database_url, **settings)
    await bot.start()
    try:
        yield bot
    finally:
        await bot.stop()


def button(message: StoredMessage, label: str) -> str:
    for b in message.buttons:
        if b.label == label and b.custom_id:
            return b.custom_id
    raise AssertionError(f"no button {label!r} on {message.id}: {[b.label for b in message.buttons]}")


async def press(server: DiscordStandIn, user: User, message: StoredMessage, label: str) -> InteractionRecord:
    """`user` clicks `label`; returns once the click is answered by editing the message in place
    (issue 20: no ephemeral "Done." beside it)."""
    versions = len(message.history)
    rec = await server.click(user, message, button(message, label))
    await server.wait_for(lambda: len(message.history) > versions and rec.answered, what=f"the answer to {label!r}")
    return rec


async def conflict_question(bot: DiscordBot, user: User) -> StoredMessage:
    """London, then Paris: the second save is answered with the question and its buttons."""
    saved = await bot.say1(user, "remember: I live in London")
    assert saved.content == "Saved: \u201cI live in London\u201d"
    question = await bot.say1(user, "remember: I live in Paris")
    assert "I live in London" in question.content and "I live in Paris" in question.content
    assert [b.label for b in question.buttons] == CONFLICT_LABELS
    assert all(cid.startswith("mb:") for cid in question.custom_ids)
    return question


# --- saving, listing, updating -------------------------------------------------------------------


async def test_save_list_and_update_in_a_dm(server: DiscordStandIn, people: dict[str, Any], database_url: str) -> None:
    alice = people["alice"]
    async with running(server, database_url) as bot:
        saved = await bot.say1(alice, "remember: I drive a VW Golf")
        assert saved.content == "Saved: \u201cI drive a VW Golf\u201d" and not saved.ephemeral
        assert saved.reference_id is None  # in a DM the answer is a plain message
        listing = await bot.listed(alice)
        assert listing == "Your memories (1):\n\u2014 Current \u2014\n1. I drive a VW Golf"

        updated = await bot.say1(alice, "/update 1 I drive a Tesla Model 3")
        assert "Updated:" in updated.content and "kept as history" in updated.content
        assert bot.memories(alice) == {"I drive a Tesla Model 3": "current", "I drive a VW Golf": "historical"}
        assert "1. I drive a VW Golf" in await bot.listed(alice, "historical")
        history = await bot.say1(alice, "/history 1")
        assert "I drive a Tesla Model 3" in history.content and "historical" in history.content


# --- the conflict question and its buttons -------------------------------------------------------


@BOTH_DATABASES
async def test_conflict_settled_by_mark_older_as_past_edits_the_question_with_undo(
    server: DiscordStandIn, people: dict[str, Any], database_url: str
) -> None:
    alice = people["alice"]
    async with running(server, database_url) as bot:
        question = await conflict_question(bot, alice)
        assert bot.memories(alice) == {"I live in London": "unsure", "I live in Paris": "current"}

        rec = await press(server, alice, question, PAST)
        assert rec.callback is not None and rec.callback.type == CB_UPDATE_MESSAGE and rec.callback.after < 3
        assert "now past" in question.content and [b.label for b in question.buttons] == ["Undo"]
        assert len(server.bot_messages(bot.dm(alice), ephemeral=False)) == 2  # edited in place, nothing new
        assert server.bot_messages(bot.dm(alice), ephemeral=True) == [] and not rec.followup_ids  # no "Done." beside it
        assert bot.memories(alice) == {"I live in London": "historical", "I live in Paris": "current"}
        assert "1. I live in London" in await bot.listed(alice, "historical")
        assert "London" not in await bot.listed(alice, "current")

        # Undo on the edited message puts the question back, with its four buttons
        await press(server, alice, question, "Undo")
        assert question.content.startswith("Undone your answer “Mark older as past”") and [b.label for b in question.buttons] == CONFLICT_LABELS
        assert bot.memories(alice)["I live in London"] == "unsure"


async def test_a_click_by_another_member_is_refused_privately_and_changes_nothing(
    server: DiscordStandIn, people: dict[str, Any], database_url: str
) -> None:
    """Memory questions never go to a channel by themselves (they are private in servers), so
    the only way for someone else to see one is a message the core pushes to a channel. The test
    pushes Alice's real question (real tokens, from the real core) to #general through the
    outbox, then Bob clicks it."""
    alice, bob, general = people["alice"], people["bob"], people["general"]
    async with running(server, database_url) as bot:
        await conflict_question(bot, alice)
        await bot.say1(bob, "remember: I like tea")  # Bob is a known person with his own memory
        owner = await bot.core.memory.owner_for("discord", str(alice.id), create=False)
        [(conflict_id,)] = bot.rows("SELECT id FROM conflict WHERE owner_id = :o", o=owner)
        turn = Turn(owner_id=owner, platform="discord", chat=ChatRef("discord", str(general)), is_group=False, user_id=str(alice.id))
        out = await conflict_message(bot.core, turn, conflict_id)
        assert out is not None
        pushed_id = await bot.core.push(ChatRef("discord", str(general)), out)
        shown = server.message(pushed_id)
        before = await bot.listed(alice, "all"), bot.memories(alice)

        rec = await server.click(bob, shown, button(shown, "Replace older (deletes it)"))
        notice = await server.wait_for_bot_message(general, ephemeral=True)
        assert notice.content == NOT_YOURS and notice.interaction_id == rec.id
        assert rec.callback is not None and rec.callback.type == CB_CHANNEL_MESSAGE and rec.callback.flags & FLAG_EPHEMERAL
        assert not shown.edited and [b.label for b in shown.buttons] == CONFLICT_LABELS
        assert (await bot.listed(alice, "all"), bot.memories(alice)) == before
        assert bot.memories(bob) == {"I like tea": "current"}

        # the person it belongs to can still answer it
        await press(server, alice, shown, "Keep both")
        assert shown.content.startswith("Kept both")
        assert bot.memories(alice) == {"I live in London": "current", "I live in Paris": "current"}


async def test_a_button_sent_before_a_restart_still_works(
    server: DiscordStandIn, people: dict[str, Any], database_url: str
) -> None:
    alice = people["alice"]
    bot = DiscordBot(server, database_url)
    await bot.start()
    try:
        question = await conflict_question(bot, alice)
        await bot.restart()  # a new process: new app, new adapter, same database and Discord
        rec = await press(server, alice, question, PAST)
        assert rec.callback is not None and rec.callback.type == CB_UPDATE_MESSAGE
        assert "now past" in question.content
        assert "1. I live in London" in await bot.listed(alice, "historical")
        assert len(server.identifies) == 2
    finally:
        await bot.stop()


# --- servers: only what is addressed to the bot ---------------------------------------------------


@BOTH_DATABASES
async def test_server_messages_not_addressed_to_the_bot_are_ignored_and_never_stored(
    server: DiscordStandIn, people: dict[str, Any], database_url: str
) -> None:
    alice, bob, general = people["alice"], people["bob"], people["general"]
    # with the MESSAGE_CONTENT intent the text of every message arrives: the worst case
    async with running(server, database_url, discord_message_content=True) as bot:
        human = await server.send_message(bob, general, "remember: I live in Oslo")
        await server.send_message(alice, general, "remember: my PIN is 1234")
        await server.send_message(alice, general, "I moved to Berlin last week", reply_to=human)
        await server.send_message(bob, general, "/memories all")
        # a message that is addressed, as a marker: when it is answered, the others were decided
        await server.send_message(alice, general, f"{server.mention()} /help")
        await server.wait_for_bot_message(general)
        assert [m.content.split("\n")[0] for m in server.bot_messages(general)] == [
            "Just talk to me, or use these commands."  # /help
        ]
        tables = {t: bot.rows(f"SELECT count(*) FROM {t}")[0][0] for t in ("message_log", "memory", "identity")}
        assert tables["message_log"] == 0 and tables["memory"] == 0
        assert tables["identity"] == 1  # alice, from /help; bob never reached the core
        assert "Oslo" not in json.dumps(bot.rows("SELECT * FROM identity"), default=str)

        # addressed, a memory command works and its answer goes to Alice's DM, not the channel
        await server.send_message(alice, general, f"{server.mention()} remember: I live in Paris")
        saved = await server.wait_for_bot_message(bot.dm(alice))
        assert saved.content == "Saved: \u201cI live in Paris\u201d"
        assert len(server.bot_messages(general)) == 1
        assert bot.memories(alice) == {"I live in Paris": "current"} and bot.memories(bob) == {}


async def test_slash_memories_current_in_a_server_is_answered_ephemerally(
    server: DiscordStandIn, people: dict[str, Any], database_url: str
) -> None:
    alice, general = people["alice"], people["general"]
    async with running(server, database_url) as bot:
        await conflict_question(bot, alice)  # London unsure, Paris current
        rec = await server.slash(alice, general, "memories", which="current")
        answer = await server.wait_for_bot_message(general, ephemeral=True)
        assert rec.callback is not None and rec.callback.type == CB_DEFERRED_CHANNEL_MESSAGE
        assert rec.callback.flags & FLAG_EPHEMERAL and rec.callback.after < 3
        assert answer.id == rec.original_message_id
        assert answer.content == "Current memories (1):\n\u2014 Current \u2014\n1. I live in Paris"
        assert server.bot_messages(general, ephemeral=False) == []  # nothing for the channel


# --- long replies ---------------------------------------------------------------------------------


async def test_a_5000_character_history_is_split_into_discord_sized_messages(
    server: DiscordStandIn, people: dict[str, Any], database_url: str
) -> None:
    """A real path to a long reply: /history of a fact corrected two dozen times (every
    correction is an entry with the wording before and after). Lists do not serve: they are
    paged. The core is asked for the same /history first, so the test knows the whole text and
    fails loudly if that path ever stops being long."""
    alice = people["alice"]
    async with running(server, database_url) as bot:

        def wording(i: int) -> str:
            return f"My reading plan, version {i}: " + " ".join(f"book{i}x{j}" for j in range(24))

        await bot.say1(alice, f"remember: {wording(0)}")
        await bot.listed(alice)
        for i in range(1, 25):
            corrected = await bot.say1(alice, f"/edit 1 {wording(i)}")
            assert corrected.content.startswith("Corrected:")
        [whole] = await bot.core.handle_message(
            Incoming(platform="discord", chat_id=str(bot.dm(alice)), user_id=str(alice.id), text="/history 1")
        )
        assert len(whole.text) > 5000, len(whole.text)

        chunks = await bot.say(alice, "/history 1", expect=len(split_message(whole.text, MESSAGE_LIMIT)))
        assert len(chunks) >= 3 and all(len(c.content) <= MESSAGE_LIMIT for c in chunks)
        assert "\n".join(c.content for c in chunks).split() == whole.text.split()  # nothing lost
        assert chunks[0].content.startswith("History:") and wording(24)[:60] in chunks[-1].content


# --- export and import as attachments -------------------------------------------------------------


async def test_export_and_import_travel_as_attachments_and_a_bad_file_changes_nothing(
    server: DiscordStandIn, people: dict[str, Any], database_url: str
) -> None:
    alice, bob = people["alice"], people["bob"]
    async with running(server, database_url) as bot:
        await bot.say1(alice, "remember: I live in Paris")
        await bot.say1(alice, "remember: I like green tea")
        exported = await bot.say1(alice, "/export")
        [file] = exported.files
        assert file.filename.startswith("memories-") and file.filename.endswith(".json")
        backup = json.loads(file.data)
        assert sorted(m["text"] for m in backup["memories"]) == ["I like green tea", "I live in Paris"]
        assert "2 memories" in exported.content

        await bot.say1(bob, "remember: I have a cat")
        before = bot.rows("SELECT id, owner_id, text, status, version FROM memory ORDER BY id")
        for bad, why in ((b"{not json", "not valid JSON"), (b'{"format": "something else"}', "not a backup")):
            refused = await bot.say1(bob, "/import", attachments=(("backup.json", bad, "application/json"),))
            assert refused.content.startswith("Nothing was imported.") and why in refused.content
        assert bot.rows("SELECT id, owner_id, text, status, version FROM memory ORDER BY id") == before

        done = await bot.say1(bob, "/import", attachments=((file.filename, file.data, "application/json"),))
        assert done.content.startswith("Import done: 2 added")
        assert bot.memories(bob) == {"I have a cat": "current", "I live in Paris": "current", "I like green tea": "current"}
        again = await bot.say1(bob, "/import", attachments=((file.filename, file.data, "application/json"),))
        assert "0 added" in again.content and "2 unchanged" in again.content  # idempotent


# --- reminders set privately --------------------------------------------------------------------


async def test_a_reminder_set_with_an_ephemeral_slash_command_is_delivered_by_dm(
    server: DiscordStandIn, people: dict[str, Any], database_url: str
) -> None:
    """Issue 17, finding 6: /remind as a slash command in a server was confirmed ephemerally,
    then "⏰ Reminder: take my antidepressants" was posted in the channel for everyone."""
    from datetime import timedelta

    alice, bob, general = people["alice"], people["bob"], people["general"]
    async with running(server, database_url) as bot:
        assert bot.app is not None
        await server.slash(alice, general, "remind", reminder="in 10 minutes take my antidepressants")
        confirmation = await server.wait_for_bot_message(general, ephemeral=True)
        assert "take my antidepressants" in confirmation.content
        server.close_dms(bob)  # Bob does not take DMs from the bot
        await server.slash(bob, general, "remind", reminder="in 10 minutes call the bank")
        await server.wait_for_bot_message(general, count=2, ephemeral=True)
        with bot.app.db.session() as s:
            s.execute(sql("UPDATE reminder SET due_at = :t"), {"t": bot.app.clock() - timedelta(seconds=1)})
        assert await bot.app.delivery.sweep() == 2
        await server.wait_for_bot_message(bot.dm(alice), count=1, ephemeral=False)
        [delivered] = server.bot_messages(bot.dm(alice), ephemeral=False)
        assert delivered.content == "⏰ Reminder: “take my antidepressants”"
        assert [b.label for b in delivered.buttons] == ["Done", "Snooze 10 min", "Snooze 1 h"]
        await server.wait_for_bot_message(general, count=1, ephemeral=False)
        [pointer] = server.bot_messages(general, ephemeral=False)
        assert pointer.content.startswith(f"<@{bob.id}> ⏰ I have a reminder for Bob, but I can only send it")
        assert "bank" not in pointer.content and "antidepressants" not in pointer.content


async def test_an_old_answer_button_rechecks_the_facts_it_showed(
    server: DiscordStandIn, people: dict[str, Any], database_url: str
) -> None:
    """Issue 16, item 1, on Discord: the question's buttons were for facts that changed since
    (the older one was corrected); the press applies nothing and shows the question anew."""
    alice = people["alice"]
    async with running(server, database_url) as bot:
        question = await conflict_question(bot, alice)
        await bot.listed(alice)
        await bot.say1(alice, "/edit 2 I live in London, Ontario")
        versions = len(question.history)
        await server.click(alice, question, button(question, PAST))
        await server.wait_for(lambda: len(question.history) > versions, what="the question shown afresh")
        assert question.content.startswith("The facts in that question changed since I asked")
        assert "Before: “I live in London, Ontario”" in question.content
        assert bot.memories(alice) == {"I live in London, Ontario": "unsure", "I live in Paris": "current"}
