"""End to end on the wire: the real TelegramAdapter (real python-telegram-bot Application, long
polling) and the real core (bot.app.build_app: real memory service, real database) against the
Telegram stand-in. Nothing between the wire and the database is scripted; the assertions read
what the stand-in received (messages, edits, documents, callback answers) and what the database
holds.

SQLite (a file in tmp_path) always; the conflict flow and the "unaddressed group messages are
never stored" check also run on PostgreSQL when it is reachable (see tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import string
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import text as sql

from adapters.telegram import TelegramAdapter
from bot import render
from bot.app import App, build_app
from bot.core import REFUSALS
from bot.events import Button, ChatRef, Outgoing
from bot.memory.buttons import ClaimStatus
from bot.memory.listing import Which
from tests.conftest import TEST_POSTGRES_URL, drop_pg_schema, make_settings, require_postgres
from tests.standins.telegram_api import BotMessage, TelegramStandIn, utf16_len
from tests.telegram_helpers import ALICE, BOB, BOT_USERNAME, CAROL, GROUP, tg  # noqa: F401

# PTB 22's own RetryAfter.__init__ trips its int-vs-timedelta deprecation warning.
pytestmark = pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")

BOT = BOT_USERNAME
PAST = "Mark older as past (recommended)"
CONFLICT_LABELS = [["Keep both", PAST], ["Replace older", "Discard newer"]]
NOT_YOURS = REFUSALS[ClaimStatus.NOT_YOURS]


# ---------------------------------------------------------------------------- the running bot


@dataclass
class Running:
    """The stand-in, the assembled app and the adapter, plus helpers that speak for people."""

    tg: TelegramStandIn
    app: App
    adapter: TelegramAdapter

    async def say(
        self, chat: int, user: int, text: str, *, answer_in: int | None = None, expect: int = 1
    ) -> list[BotMessage]:
        """`user` writes `text` in `chat`; returns the `expect` new bot messages in `answer_in`
        (default: the same chat)."""
        where = chat if answer_in is None else answer_in
        before = len(self.tg.sent(where))
        self.tg.inject_text(chat, user, text)
        return (await self.tg.wait_for_sent(where, before + expect))[before:]

    async def say1(self, chat: int, user: int, text: str, **kw: Any) -> str:
        [msg] = await self.say(chat, user, text, **kw)
        return msg.body

    async def send_file(
        self, chat: int, user: int, data: bytes, name: str, caption: str | None
    ) -> BotMessage:
        before = len(self.tg.sent(chat))
        self.tg.inject_document(chat, user, data, name, caption=caption)
        return (await self.tg.wait_for_sent(chat, before + 1))[before]

    async def press(self, chat: int, user: int, msg: BotMessage, label: str) -> dict[str, Any]:
        """`user` presses the button `label` of `msg`; returns the callback answer."""
        qid = self.tg.press_button(chat, user, msg.message_id, label=label)
        return await self.tg.wait_for_answer(qid)

    async def owner(self, user: int) -> int | None:
        return await self.app.memory.owner_for("telegram", str(user), create=False)

    def rows(self, query: str, **params: Any) -> list[tuple[Any, ...]]:
        with self.app.db.session() as s:
            return [tuple(r) for r in s.execute(sql(query), params)]

    def memories(self, owner_id: int | None) -> dict[str, tuple[str, bool]]:
        """text -> (status, deleted) for one owner, straight from the memory table."""
        return {
            t: (status, deleted is not None)
            for t, status, deleted in self.rows(
                "SELECT text, status, deleted_at FROM memory WHERE owner_id = :o", o=owner_id
            )
        }


@pytest.fixture(params=["sqlite"])
def database_url(request: pytest.FixtureRequest, tmp_path) -> AsyncIterator[str]:  # type: ignore[misc]
    """The database the bot runs on; tests opt into PostgreSQL with `indirect` parametrisation.

    build_app takes only a URL, so the per-test PostgreSQL schema is chosen through the
    connection's search_path option, the way an operator would point the bot at a schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'bot.db'}"
        return
    require_postgres()
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    dsn = TEST_POSTGRES_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{TEST_POSTGRES_URL}?options=-csearch_path%3D{schema}"
        with psycopg.connect(dsn) as conn:  # the bot really worked in the test's own schema
            [(tables,)] = conn.execute(
                "SELECT count(*) FROM information_schema.tables "
                "WHERE table_schema = %s AND table_name = 'memory'",
                (schema,),
            ).fetchall()
        assert tables == 1
    finally:
        drop_pg_schema(schema)


@pytest.fixture
async def bot(tg: TelegramStandIn, database_url: str) -> AsyncIterator[Running]:  # noqa: F811
    settings = make_settings(
        database_url=database_url,
        embedding_model="none",
        telegram_bot_token=tg.token,
        telegram_api_base_url=tg.base_url,
    )
    app = build_app(settings)
    adapter = TelegramAdapter(app.core, settings)
    await adapter.start()
    await app.start_background()
    try:
        yield Running(tg, app, adapter)
    finally:
        await adapter.stop()
        await app.close()


@pytest.fixture
def library_loggers_unset() -> Iterator[None]:
    """The library loggers as a fresh process has them (an earlier test may have set them)."""
    names = ("telegram", "httpcore")
    saved = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.NOTSET)
    yield
    for n, level in saved.items():
        logging.getLogger(n).setLevel(level)


BOTH_DATABASES = pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)


def words(rng: random.Random, n: int) -> list[str]:
    """Made-up words, so that generated facts share no vocabulary (no conflict questions)."""
    return ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(5, 9))) for _ in range(n)]


# ---------------------------------------------------------------------------- commands


async def test_save_list_update_and_history_commands(bot: Running) -> None:
    assert await bot.say1(ALICE, ALICE, "remember: I drive a VW Golf") == "Saved: “I drive a VW Golf”"
    assert await bot.say1(ALICE, ALICE, "remember:   I like  green tea ") == "Saved: “I like green tea”"
    listing = await bot.say1(ALICE, ALICE, "/memories")
    assert listing == "Your memories (2):\n— Current —\n1. I drive a VW Golf\n2. I like green tea"

    updated = await bot.say1(ALICE, ALICE, "/update 1 I drive a Tesla Model 3")
    assert updated == (
        "Updated: “I drive a Tesla Model 3” is current; “I drive a VW Golf” is kept as history."
    )
    historical = await bot.say1(ALICE, ALICE, "/memories historical")
    assert "1. I drive a VW Golf" in historical and "Tesla" not in historical
    current = await bot.say1(ALICE, ALICE, f"/memories@{BOT} current")
    assert current == (
        "Current memories (2):\n— Current —\n1. I like green tea\n2. I drive a Tesla Model 3"
    )

    owner = await bot.owner(ALICE)
    assert bot.memories(owner) == {
        "I drive a VW Golf": ("historical", False),
        "I drive a Tesla Model 3": ("current", False),
        "I like green tea": ("current", False),
    }
    [(golf_replaced_by, tesla_id)] = bot.rows(
        "SELECT a.replaced_by, b.id FROM memory a, memory b "
        "WHERE a.text = 'I drive a VW Golf' AND b.text = 'I drive a Tesla Model 3'"
    )
    assert golf_replaced_by == tesla_id

    # /history uses the numbers of the last list shown ("current": 2 is the Tesla)
    history = await bot.say1(ALICE, ALICE, "/history 2")
    assert "I drive a VW Golf" in history and "I drive a Tesla Model 3" in history
    # an unknown number is explained, nothing changes
    assert "no memory number 9" in await bot.say1(ALICE, ALICE, "/forget 9")
    assert len(bot.memories(owner)) == 3
    # every reply was plain text, one message per command, in order
    assert all(m.parse_mode is None and m.edit_count == 0 for m in bot.tg.sent(ALICE))
    assert len(bot.tg.sent(ALICE)) == 8


# ---------------------------------------------------------------------------- conflicts


@BOTH_DATABASES
async def test_conflict_settled_with_mark_older_as_past(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: I live in London")
    [question] = await bot.say(ALICE, ALICE, "remember: I moved to Paris")
    assert question.text is not None
    assert question.text.startswith("Saved: “I moved to Paris”")
    assert "Before: “I live in London”" in question.text and "New: “I moved to Paris”" in question.text
    assert [[label for label, _ in row] for row in question.buttons] == CONFLICT_LABELS
    assert all(0 < len(data.encode()) <= 64 for data in question.callback_data)
    owner = await bot.owner(ALICE)
    assert bot.memories(owner) == {
        "I live in London": ("unsure", False),  # waiting for the answer, nothing retired
        "I moved to Paris": ("current", False),
    }

    answer = await bot.press(ALICE, ALICE, question, PAST)
    assert answer["text"] == "Done."
    await bot.tg.wait_for(lambda: question.edit_count == 1, what="the question edited")
    assert question.text == (
        "Done: “I live in London” is now past (kept in your history), and “I moved to Paris” is "
        "current."
    )
    assert [[label for label, _ in row] for row in question.buttons] == [["Undo"]]
    assert len(bot.tg.sent(ALICE)) == 2  # edited in place, nothing new sent

    historical = await bot.say1(ALICE, ALICE, "/memories historical")
    assert historical == "Historical memories (1):\n— Historical, not current —\n1. I live in London"
    assert bot.memories(owner) == {
        "I live in London": ("historical", False),
        "I moved to Paris": ("current", False),
    }
    [(replaced_by,)] = bot.rows("SELECT replaced_by FROM memory WHERE text = 'I live in London'")
    [(paris_id,)] = bot.rows("SELECT id FROM memory WHERE text = 'I moved to Paris'")
    assert replaced_by == paris_id
    assert bot.rows("SELECT status, resolution FROM conflict") == [("settled", "past")]

    # Undo, pressed on the edited message, reopens the question in place
    undo = await bot.press(ALICE, ALICE, question, "Undo")
    assert undo["text"] == "Undone."
    await bot.tg.wait_for(lambda: question.edit_count == 2, what="the undo edit")
    assert question.text is not None and question.text.startswith("Undone.")
    assert [[label for label, _ in row] for row in question.buttons] == CONFLICT_LABELS
    assert bot.memories(owner)["I live in London"] == ("unsure", False)
    assert all(len(a) == 1 for a in bot.tg.callback_answers.values())  # each press answered once


async def test_second_person_in_group_cannot_press_anothers_button(bot: Running) -> None:
    """Memory answers never show in a group, so the conflict question itself is in Alice's
    private chat; what Carol can see in a group is a message the core pushes there (a reminder
    set in the group, for instance). Here such a push carries Alice's real conflict tokens."""
    await bot.say(ALICE, ALICE, "remember: I live in London")
    [question] = await bot.say(ALICE, ALICE, "remember: I moved to Paris")
    buttons = tuple(
        tuple(Button(label, data or "") for label, data in row) for row in question.buttons
    )
    await bot.app.core.push(
        ChatRef("telegram", str(GROUP), str(ALICE)),
        Outgoing(text="Alice has a question waiting about her memories.", buttons=buttons),
    )
    [group_msg] = bot.tg.sent(GROUP)
    owner = await bot.owner(ALICE)
    before = bot.rows("SELECT id, text, status, replaced_by, deleted_at FROM memory ORDER BY id")
    tokens_before = bot.rows("SELECT token, used_at FROM button_token ORDER BY token")

    await bot.say(GROUP, CAROL, f"@{BOT} hi", expect=1)  # Carol is known to the bot
    for label in (PAST, "Replace older", "Discard newer", "Keep both"):
        assert (await bot.press(GROUP, CAROL, group_msg, label))["text"] == NOT_YOURS
    # Bob never talked to the bot: refused the same way, and he gets no identity from it
    assert (await bot.press(GROUP, BOB, group_msg, PAST))["text"] == NOT_YOURS
    await asyncio.sleep(0.1)

    assert bot.rows("SELECT id, text, status, replaced_by, deleted_at FROM memory ORDER BY id") == before
    assert bot.rows("SELECT token, used_at FROM button_token ORDER BY token") == tokens_before
    assert bot.rows("SELECT status FROM conflict") == [("pending",)]
    assert await bot.owner(BOB) is None
    assert group_msg.edit_count == 0 and question.edit_count == 0
    assert [m.body for m in bot.tg.sent(GROUP)][0] == group_msg.body
    assert len(bot.tg.sent(GROUP)) == 2 and bot.tg.sent(CAROL) == []  # the "hi" answer only
    review = await bot.say1(ALICE, ALICE, "/memories review")
    assert "1. I live in London" in review  # still waiting for Alice

    # Alice's own press in her private chat settles it
    assert (await bot.press(ALICE, ALICE, question, PAST))["text"] == "Done."
    await bot.tg.wait_for(lambda: question.edit_count == 1, what="the question edited")
    assert bot.memories(owner)["I live in London"] == ("historical", False)


# ---------------------------------------------------------------------------- groups


async def test_memory_commands_in_a_group_are_answered_in_private(bot: Running) -> None:
    saved = await bot.say1(GROUP, ALICE, f"@{BOT} remember: I like jazz", answer_in=ALICE)
    assert saved == "Saved: “I like jazz”"
    listing = await bot.say1(GROUP, ALICE, "/memories", answer_in=ALICE)
    assert listing == "Your memories (1):\n— Current —\n1. I like jazz"
    # the conflict question goes to the private chat too, and is settled there
    await bot.say(GROUP, ALICE, f"@{BOT} remember: I live in London", answer_in=ALICE)
    [question] = await bot.say(GROUP, ALICE, f"@{BOT} remember: I moved to Paris", answer_in=ALICE)
    assert [[label for label, _ in row] for row in question.buttons] == CONFLICT_LABELS
    assert (await bot.press(ALICE, ALICE, question, PAST))["text"] == "Done."
    await bot.tg.wait_for(lambda: question.edit_count == 1, what="the question edited")
    # not about memories: answered in the group, quoting the question
    help_msg = (await bot.say(GROUP, ALICE, "/help"))[0]
    assert help_msg.body == render.HELP and help_msg.reply_to_message_id is not None
    assert len(bot.tg.sent(GROUP)) == 1  # the help, and nothing else

    # Bob never started the bot: Telegram refuses the private message, the group gets a pointer
    bob_cmd = bot.tg.inject_text(GROUP, BOB, f"@{BOT} remember: my locker code is 4711")
    [pointer] = (await bot.tg.wait_for_sent(GROUP, 2))[1:]
    assert pointer.body.startswith("Bob, I have a private answer for you")
    assert f"https://t.me/{BOT}" in pointer.body and "4711" not in pointer.body
    assert pointer.reply_to_message_id == bob_cmd["message_id"]
    refused = [c.status for c in bot.tg.calls_to("sendMessage") if str(c.params["chat_id"]) == str(BOB)]
    assert refused == [403]
    # What the bot keeps is Bob's (he asked for it); only the confirmation could not reach him.
    assert bot.memories(await bot.owner(BOB)) == {"my locker code is 4711": ("current", False)}

    # once Bob has started the bot, the same command is answered in private
    assert (await bot.say1(BOB, BOB, "/start")).startswith("Hello! ")
    bob_list = await bot.say1(GROUP, BOB, f"/memories@{BOT}", answer_in=BOB)
    assert bob_list == "Your memories (1):\n— Current —\n1. my locker code is 4711"

    group_text = "\n".join(m.body for m in bot.tg.sent(GROUP))
    for private in ("jazz", "London", "Paris", "4711"):
        assert private not in group_text
    assert len(bot.tg.sent(GROUP)) == 2


@BOTH_DATABASES
async def test_unaddressed_group_messages_are_ignored_and_not_stored(
    library_loggers_unset: None, bot: Running, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # lowered after the adapter started, as a reconfig might
    first = bot.tg.inject_text(GROUP, CAROL, "remember: Carol's door code is 2468")
    bot.tg.inject_text(GROUP, BOB, "I moved to Berlin, remember: my PIN is 1357")
    unaddressed = [
        "remember: my bank PIN is 9753",
        "I live in London and I moved to Paris",
        "/memories@other_bot",
        "/notours remember: x",
        "@carol_c remember: the spare key is under the mat",
        f"mail me at me@{BOT}.example",
    ]
    for text in unaddressed:
        bot.tg.inject_text(GROUP, ALICE, text)
    bot.tg.inject_text(GROUP, ALICE, "replying to Carol: remember: I am 42", reply_to=first["message_id"])
    bot.tg.inject_document(GROUP, ALICE, b'{"format": "memory-assistant-backup"}', "backup.json")
    # Alice's updates are handled in order, so once this is answered the above were handled
    await bot.say(GROUP, ALICE, "/help")
    await bot.tg.wait_for(lambda: bot.tg.pending_updates() == 0, what="every update fetched")
    await asyncio.sleep(0.1)

    assert [m.body for m in bot.tg.sent(GROUP)] == [render.HELP]
    assert bot.tg.sent(ALICE) == [] and bot.tg.sent(BOB) == [] and bot.tg.sent(CAROL) == []
    assert bot.rows("SELECT count(*) FROM memory") == [(0,)]
    assert bot.rows("SELECT count(*) FROM message_log") == [(0,)]
    assert bot.rows("SELECT count(*) FROM memory_event") == [(0,)]
    # only Alice, for her /help; Bob and Carol left no trace
    assert bot.rows("SELECT platform, user_id FROM identity") == [("telegram", str(ALICE))]
    assert bot.rows("SELECT count(*) FROM owner") == [(1,)]
    assert not [r for r in caplog.records if re.search(r"2468|1357|9753|spare key", r.getMessage())]

    # the same words, addressed, are stored: the pipeline was live all along
    saved = await bot.say1(GROUP, CAROL, f"@{BOT} remember: Carol's door code is 2468", answer_in=CAROL)
    assert saved == "Saved: “Carol's door code is 2468”"
    assert bot.rows("SELECT text FROM memory") == [("Carol's door code is 2468",)]
