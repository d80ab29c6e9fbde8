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
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text as sql

from adapters.telegram import TelegramAdapter
from bot.core import render
from bot.app import App, build_app
from bot.config import Settings
from bot.core.core import REFUSALS
from bot.events import Button, ChatRef, Outgoing
from bot.core.buttons import ClaimStatus
from tests.conftest import TEST_POSTGRES_URL, drop_pg_schema, make_settings, require_postgres
from tests.standins.telegram_api import BotMessage, TelegramStandIn, utf16_len
from tests.support.telegram_helpers import ALICE, BOB, BOT_USERNAME, CAROL, GROUP, tg  # noqa: F401

# PTB 22's own RetryAfter.__init__ trips its int-vs-timedelta deprecation warning.
pytestmark = pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")

BOT = BOT_USERNAME
PAST = "Mark older as past (recommended)"
CONFLICT_LABELS = [["Keep both", PAST], ["Replace older (deletes it)", "Discard newer"]]
NOT_YOURS = REFUSALS[ClaimStatus.NOT_YOURS]


# ---------------------------------------------------------------------------- the running bot


@dataclass
class Running:
    """The stand-in, the assembled app and the adapter, plus helpers that speak for people."""

    tg: TelegramStandIn
    settings: Settings
    app: App = field(init=False)
    adapter: TelegramAdapter = field(init=False)
    up: bool = field(default=False, init=False)

    async def start(self) -> None:
        """Assemble and start the bot the way bot.runner does (one app, the Telegram adapter)."""
        self.app = build_app(self.settings)
        self.adapter = TelegramAdapter(self.app.core, self.settings)
        self.up = True
        await self.adapter.start()
        await self.app.start_background()

    async def stop(self) -> None:
        if self.up:
            self.up = False
            await self.adapter.stop()
            await self.app.close()

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
    ) -> tuple[BotMessage, str]:
        """`user` sends a document; returns the bot's answer and the document's file_id."""
        before = len(self.tg.sent(chat))
        sent = self.tg.inject_document(chat, user, data, name, caption=caption)
        return (await self.tg.wait_for_sent(chat, before + 1))[before], sent["document"]["file_id"]

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
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
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
        joiner = "&" if "?" in TEST_POSTGRES_URL else "?"
        yield f"{TEST_POSTGRES_URL}{joiner}options=-csearch_path%3D{schema}"
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
    running = Running(tg, settings)
    await running.start()
    try:
        yield running
    finally:
        await running.stop()


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
    assert question.text is not None and question.text.startswith("Undone your answer “Mark older as past” about “I moved to Paris”.")
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
    shown = (group_msg.text, group_msg.buttons)
    assert group_msg.buttons == question.buttons
    owner = await bot.owner(ALICE)
    before = bot.rows("SELECT id, text, status, replaced_by, deleted_at FROM memory ORDER BY id")
    tokens_before = bot.rows("SELECT token, used_at FROM button_token ORDER BY token")

    await bot.say(GROUP, CAROL, f"@{BOT} hi", expect=1)  # Carol is known to the bot
    for label in (PAST, "Replace older (deletes it)", "Discard newer", "Keep both"):
        assert (await bot.press(GROUP, CAROL, group_msg, label))["text"] == NOT_YOURS
    # Bob never talked to the bot: refused the same way, and he gets no identity from it
    assert (await bot.press(GROUP, BOB, group_msg, PAST))["text"] == NOT_YOURS
    await asyncio.sleep(0.1)

    assert bot.rows("SELECT id, text, status, replaced_by, deleted_at FROM memory ORDER BY id") == before
    assert bot.rows("SELECT token, used_at FROM button_token ORDER BY token") == tokens_before
    assert bot.rows("SELECT status FROM conflict") == [("pending",)]
    assert await bot.owner(BOB) is None
    assert group_msg.edit_count == 0 and question.edit_count == 0
    assert (group_msg.text, group_msg.buttons) == shown
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
    assert pointer.body.startswith("Bob, I have an answer that only you should see")
    assert f"https://t.me/{BOT}" in pointer.body and "4711" not in pointer.body
    assert pointer.reply_to_message_id == bob_cmd["message_id"]
    refused = [c.status for c in bot.tg.calls_to("sendMessage") if str(c.params["chat_id"]) == str(BOB)]
    assert refused == [403]
    # What the bot keeps is Bob's (he asked for it); only the confirmation could not reach him.
    assert bot.memories(await bot.owner(BOB)) == {"my locker code is 4711": ("current", False)}

    # once Bob has started the bot, the same command is answered in private
    assert (await bot.say1(BOB, BOB, "/start")).startswith("Hi Bob! ")
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


# ---------------------------------------------------------------------------- long text, paging


def long_fact(rng: random.Random, chars: int = 2000) -> str:
    """A fact of just under `chars` characters: sentences of made-up words, with accents and
    emoji (an emoji is two UTF-16 units on Telegram)."""
    sentences: list[str] = []
    while sum(len(s) + 1 for s in sentences) < chars + 100:
        ws = words(rng, rng.randint(6, 12))
        ws[rng.randrange(len(ws))] += rng.choice(["é", "ü", " 🙂", " 🎵"])
        sentences.append(" ".join(ws).capitalize() + ".")
    text = " ".join(sentences)[: chars - 1]
    return text[: text.rfind(" ")].rstrip(".") + "."


async def test_ten_thousand_character_reply_is_split_within_telegram_limits(
    tg: TelegramStandIn, tmp_path: Path  # noqa: F811
) -> None:
    """The natural path to a reply far over 4,096 characters is a long answer from the model
    (memory lists are paged by length, so they never need splitting)."""
    from tests.standins.anthropic_api import AnthropicStandIn, text_message

    rng = random.Random(4096)
    paragraphs = [long_fact(rng, 1500) for _ in range(7)]
    answer = "\n\n".join(paragraphs)
    assert len(answer) > 10_000 and utf16_len(answer) > len(answer)
    async with AnthropicStandIn() as model:
        model.set_responder(lambda body: text_message(answer))
        settings = make_settings(
            database_url=f"sqlite:///{tmp_path / 'bot.db'}",
            embedding_model="none",
            telegram_bot_token=tg.token,
            telegram_api_base_url=tg.base_url,
            anthropic_api_key="test-key",
            anthropic_base_url=model.url,
        )
        running = Running(tg, settings)
        await running.start()
        try:
            tg.inject_text(ALICE, ALICE, "Tell me a long story please")
            words_sent = lambda: " ".join(m.body for m in tg.sent(ALICE)).split()  # noqa: E731
            await tg.wait_for(lambda: len(words_sent()) >= len(answer.split()), what="the split answer")
            chunks = tg.sent(ALICE)
        finally:
            await running.stop()
    assert len(chunks) == 4  # seven 1,500-character paragraphs, two to a message
    assert all(utf16_len(m.body) <= 4096 for m in chunks)
    # nothing lost, nothing repeated, in order; cuts fall at paragraph ends
    assert " ".join(m.body for m in chunks).split() == answer.split()
    assert all(m.body.endswith((".", "🙂", "🎵")) for m in chunks)


async def test_forty_memories_paged_with_next_and_previous(bot: Running) -> None:
    rng = random.Random(40)
    await bot.say(ALICE, ALICE, "/start")
    owner = await bot.owner(ALICE)
    assert owner is not None
    texts = [f"Item {i:02d}: " + " ".join(words(rng, 3)) for i in range(1, 41)]
    for text in texts:  # through the service verb every save uses (the wire is tested above)
        result = await bot.app.memory.remember(owner, text, source="command")
        assert result.memory is not None and result.conflict_id is None

    [page] = await bot.say(ALICE, ALICE, "/memories")
    lines = page.body.splitlines()
    assert lines[0] == "Your memories (40):" and lines[-1] == "Page 1 of 4"
    assert [ln.split(". ", 1)[0] for ln in lines if re.match(r"\d+\. ", ln)] == [
        str(n) for n in range(1, 11)
    ]
    assert f"1. {texts[0]}" in lines and f"10. {texts[9]}" in lines
    assert [[label for label, _ in row] for row in page.buttons] == [["Next ▶"]]

    answer = await bot.press(ALICE, ALICE, page, "Next ▶")
    assert answer["text"] is None  # no notice: the edit is the answer
    await bot.tg.wait_for(lambda: page.edit_count == 1, what="page 2")
    lines = page.body.splitlines()
    numbered = [ln for ln in lines if re.match(r"\d+\. ", ln)]
    assert numbered == [f"{n}. {texts[n - 1]}" for n in range(11, 21)]
    assert lines[0] == "Your memories (40):" and lines[-1] == "Page 2 of 4"
    assert [[label for label, _ in row] for row in page.buttons] == [["◀ Previous", "Next ▶"]]
    assert len(bot.tg.sent(ALICE)) == 2  # /start's answer and the one list, edited in place

    # numbers are those shown: /forget 15 deletes the 15th line of page 2
    fifteenth = texts[14]
    assert f"15. {fifteenth}" in numbered
    deleted = await bot.say1(ALICE, ALICE, "/forget 15")
    assert deleted.startswith(f"Deleted “{fifteenth}”.")
    gone = bot.memories(owner)
    assert gone[fifteenth] == ("current", True)
    assert [t for t, (_, d) in gone.items() if d] == [fifteenth]

    # the buttons still work after the deletion: back to page 1, which still holds 1..10
    await bot.press(ALICE, ALICE, page, "◀ Previous")
    await bot.tg.wait_for(lambda: page.edit_count == 2, what="page 1 again")
    lines = page.body.splitlines()
    assert lines[0] == "Your memories (39):" and lines[-1] == "Page 1 of 4"
    assert [ln for ln in lines if re.match(r"\d+\. ", ln)] == [
        f"{n}. {texts[n - 1]}" for n in range(1, 11)
    ]
    assert [[label for label, _ in row] for row in page.buttons] == [["Next ▶"]]
    # and the deleted item is gone from page 2
    await bot.press(ALICE, ALICE, page, "Next ▶")
    await bot.tg.wait_for(lambda: page.edit_count == 3, what="page 2 again")
    assert fifteenth not in page.body and f"15. {texts[15]}" in page.body


async def test_next_replaces_a_whole_page_of_long_memories(bot: Running) -> None:
    rng = random.Random(12)
    await bot.say(ALICE, ALICE, "/start")
    owner = await bot.owner(ALICE)
    assert owner is not None
    for _ in range(12):
        assert (await bot.app.memory.remember(owner, long_fact(rng), source="command")).memory
    bot.tg.inject_text(ALICE, ALICE, "/memories")
    await bot.tg.wait_for(lambda: any(m.buttons for m in bot.tg.sent(ALICE)[1:]), what="the page")  # [0]: /start
    page_1 = bot.tg.sent(ALICE)[1:]
    assert len(page_1) == 1 and page_1[0].buttons  # a page of long memories is still one message
    assert utf16_len(page_1[0].body) <= 4096
    await bot.press(ALICE, ALICE, page_1[-1], "Next ▶")
    await bot.tg.wait_for(lambda: page_1[-1].edit_count == 1, what="page 2")
    shown = "\n".join(m.body for m in bot.tg.sent(ALICE)[1:])
    assert "Page 2 of 2" in shown
    assert "\n1. " not in shown  # page 1 is gone, as it is when a page fits one message


# ---------------------------------------------------------------------------- export and import


async def test_export_and_import_as_documents(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: I live in London")
    [question] = await bot.say(ALICE, ALICE, "remember: I moved to Paris")
    await bot.press(ALICE, ALICE, question, PAST)
    await bot.tg.wait_for(lambda: question.edit_count == 1, what="the question settled")
    await bot.say(ALICE, ALICE, "remember: My sister Ana was born in 1990 🎂")

    [export] = await bot.say(ALICE, ALICE, "/export")
    assert export.document is not None
    assert re.fullmatch(r"memories-\d{8}-\d{6}\.json", export.document.filename)
    assert export.caption is not None and export.caption.startswith(
        "Here is everything I hold about you (3 memories)."
    )
    backup = json.loads(export.document.data)
    assert backup["format"] == "memory-assistant-backup" and backup["version"] == 1
    by_text = {m["text"]: m for m in backup["memories"]}
    assert {t: m["status"] for t, m in by_text.items()} == {
        "I live in London": "historical",
        "I moved to Paris": "current",
        "My sister Ana was born in 1990 🎂": "current",
    }
    assert by_text["I live in London"]["replaced_by"] == by_text["I moved to Paris"]["uid"]
    alice = await bot.owner(ALICE)
    alice_before = bot.memories(alice)

    # Carol restores Alice's file as her own: a document with the caption /import
    await bot.say(CAROL, CAROL, "/start")
    done, _ = await bot.send_file(CAROL, CAROL, export.document.data, "backup.json", "/import")
    assert done.body == "Import done: 3 added, 0 updated, 0 unchanged."
    carol = await bot.owner(CAROL)
    assert carol != alice
    assert bot.memories(carol) == alice_before
    [(carol_london_next,)] = bot.rows(
        "SELECT replaced_by FROM memory WHERE owner_id = :o AND text = 'I live in London'", o=carol
    )
    [(carol_paris,)] = bot.rows(
        "SELECT id FROM memory WHERE owner_id = :o AND text = 'I moved to Paris'", o=carol
    )
    assert carol_london_next == carol_paris  # the link points at Carol's copy, not Alice's
    historical = await bot.say1(CAROL, CAROL, "/memories historical")
    assert "1. I live in London" in historical
    # again: idempotent
    again, _ = await bot.send_file(CAROL, CAROL, export.document.data, "backup.json", "/import")
    assert again.body == "Import done: 0 added, 0 updated, 3 unchanged."
    assert bot.memories(alice) == alice_before  # Alice's own memories were never touched

    def snapshot() -> list[tuple[Any, ...]]:
        return bot.rows("SELECT * FROM memory ORDER BY id") + bot.rows(
            "SELECT id, memory_id, kind FROM memory_event ORDER BY id"
        )

    before = snapshot()
    # a malformed file: one bad record among good ones changes nothing, and says why
    bad = json.loads(export.document.data)
    bad["memories"].append({"uid": "x1", "text": "I am new here"})  # no created_at
    bad["memories"][0]["text"] = "I live in Rome"
    reply, _ = await bot.send_file(CAROL, CAROL, json.dumps(bad).encode(), "bad.json", "/import")
    assert reply.body.startswith("Nothing was imported. The backup is malformed at memories.3.")
    reply, _ = await bot.send_file(CAROL, CAROL, b'{"format": "memory-assis', "cut.json", "/import")
    assert reply.body.startswith("Nothing was imported. The file is not valid JSON (line 1")
    reply, _ = await bot.send_file(CAROL, CAROL, b"\xff\xfe\x00binary", "photo.json", "/import")
    assert reply.body == "Nothing was imported. The file is not UTF-8 text, so it is not a backup from this bot."
    assert snapshot() == before

    # too large: refused from the announced size, before anything is downloaded
    huge = b" " * 6_000_000
    reply, huge_id = await bot.send_file(CAROL, CAROL, huge, "huge.json", "/import")
    assert reply.body == "That file is too big to import (6.0 MB); the limit is 5.0 MB."
    # just over the limit: the sizes must not both read "5.0 MB"
    reply, over_id = await bot.send_file(CAROL, CAROL, b" " * 5_000_001, "over.json", "/import")
    assert reply.body == (
        "That file is too big to import (5,000,001 bytes); the limit is 5,000,000 bytes."
    )
    fetched = [c.params["file_id"] for c in bot.tg.calls_to("getFile")]
    assert len(fetched) == 5  # the five files above, neither of these two
    assert huge_id not in fetched and over_id not in fetched
    assert snapshot() == before

    # a document without /import is not imported: it is offered, and nothing changes until chosen
    reply, _ = await bot.send_file(CAROL, CAROL, export.document.data, "backup.json", None)
    assert reply.body.startswith("That file is a backup of 3 memories. Import it?")
    assert snapshot() == before

    # "/import" first, as the bot's hint says, then the bare file
    hint = await bot.say1(CAROL, CAROL, "/import")
    assert hint == "Send the backup file together with /import (as its caption or message)."
    reply, _ = await bot.send_file(CAROL, CAROL, export.document.data, "backup.json", None)
    assert reply.body == "Import done: 0 added, 0 updated, 3 unchanged."
    # from a group, with /import@bot as the caption: refused there (everyone can open the file)
    before_dm = len(bot.tg.sent(CAROL))
    bot.tg.inject_document(GROUP, CAROL, export.document.data, "b.json", caption=f"/import@{BOT}")
    [warning] = await bot.tg.wait_for_sent(GROUP, 1)
    assert warning.body.startswith("I didn't import that file: a backup holds everything I remember about you")
    assert len(bot.tg.sent(CAROL)) == before_dm
    assert snapshot() == before


# ---------------------------------------------------------------------------- flood control


async def test_429_storm_every_message_delivered_once(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: I live in London")
    bot.tg.fail_next("sendMessage", 3, status=429, retry_after=1)
    bot.tg.fail_next("answerCallbackQuery", 1, status=429, retry_after=1)
    bot.tg.fail_next("editMessageText", 1, status=429, retry_after=1)
    bot.tg.inject_text(ALICE, ALICE, "remember: I moved to Paris")
    for text in ("remember: I like green tea", "remember: I play chess on Sundays", "/memories"):
        bot.tg.inject_text(CAROL, CAROL, text)
    [_, question] = await bot.tg.wait_for_sent(ALICE, 2, timeout=15)
    qid = bot.tg.press_button(ALICE, ALICE, question.message_id, label=PAST)
    await bot.tg.wait_for_sent(CAROL, 3, timeout=15)
    assert (await bot.tg.wait_for_answer(qid, timeout=15))["text"] == "Done."
    await bot.tg.wait_for(lambda: question.edit_count == 1, timeout=15, what="the edit")
    await bot.say(ALICE, ALICE, "/help")  # a barrier: everything before it is done
    await bot.say(CAROL, CAROL, "/help")

    assert [m.body[:30] for m in bot.tg.sent(ALICE)] == [
        "Saved: “I live in London”",
        "Done: “I live in London” is no",
        render.HELP[:30],
    ]
    assert [m.body for m in bot.tg.sent(CAROL)] == [
        "Saved: “I like green tea”",
        "Saved: “I play chess on Sundays”",
        "Your memories (2):\n— Current —\n1. I like green tea\n2. I play chess on Sundays",
        render.HELP,
    ]
    calls = bot.tg.calls_to("sendMessage")
    assert [c.status for c in calls].count(429) == 3
    delivered = [(c.params["chat_id"], c.params["text"]) for c in calls if c.status == 200]
    assert len(delivered) == len(set(delivered)) == 7  # each once, none lost
    for refused in (c for c in calls if c.status == 429):  # each resent after retry_after
        resent = [
            c for c in calls
            if c.status == 200 and (c.params["chat_id"], c.params["text"]) == (
                refused.params["chat_id"], refused.params["text"]
            )
        ]
        assert len(resent) == 1 and resent[0].at - refused.at >= 0.9
    assert [c.status for c in bot.tg.calls_to("answerCallbackQuery")] == [429, 200]
    assert [c.status for c in bot.tg.calls_to("editMessageText")] == [429, 200]
    assert len(bot.tg.callback_answers[qid]) == 1
    # and the database holds each fact once, the conflict settled once
    assert sorted(t for (t,) in bot.rows("SELECT text FROM memory")) == [
        "I like green tea",
        "I live in London",
        "I moved to Paris",
        "I play chess on Sundays",
    ]
    assert bot.rows("SELECT status, resolution FROM conflict") == [("settled", "past")]


# ---------------------------------------------------------------------------- restarts, undo


async def test_buttons_keep_working_after_a_restart(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: I live in London")
    [question] = await bot.say(ALICE, ALICE, "remember: I moved to Paris")
    await bot.stop()  # the process goes away; the question stays in the chat
    await bot.start()  # a new app and adapter on the same database
    assert (await bot.press(ALICE, ALICE, question, PAST))["text"] == "Done."
    await bot.tg.wait_for(lambda: question.edit_count == 1, what="the question settled")
    assert "is now past" in (question.text or "")
    owner = await bot.owner(ALICE)
    assert bot.memories(owner)["I live in London"] == ("historical", False)


async def test_forget_then_undo_button(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: I like green tea")
    await bot.say(ALICE, ALICE, "remember: My cat is called Miso")
    await bot.say(ALICE, ALICE, "/memories")
    [deleted] = await bot.say(ALICE, ALICE, "/forget 2")
    assert deleted.body.startswith("Deleted “My cat is called Miso”. /undo brings it back within 10 minutes; then its text is erased for good")
    owner = await bot.owner(ALICE)
    assert bot.memories(owner)["My cat is called Miso"] == ("current", True)
    assert "Miso" not in await bot.say1(ALICE, ALICE, "/memories")

    assert (await bot.press(ALICE, ALICE, deleted, "Undo"))["text"] == "Undone."
    await bot.tg.wait_for(lambda: deleted.edit_count == 1, what="the undo edit")
    assert deleted.buttons == []  # nothing left to press
    assert bot.memories(owner)["My cat is called Miso"] == ("current", False)
    assert "2. My cat is called Miso" in await bot.say1(ALICE, ALICE, "/memories")


# ---------------------------------------------------------------------------- stale presses (issue 16)

FORGET_YES = "Yes, delete everything now (no undo)"


@BOTH_DATABASES
async def test_an_old_forget_me_button_never_deletes_what_came_after_it(bot: Running) -> None:
    """Issue 16, item 1, with a real inline keyboard: the confirmation is pressed after a memory
    was saved that it did not count. Nothing is deleted; the old message says why and a fresh
    question (counting it) is sent."""
    await bot.say(ALICE, ALICE, "remember: I live in Oslo")
    await bot.say(ALICE, ALICE, "remember: I have a cat")
    [question] = await bot.say(ALICE, ALICE, "/forget_me")
    assert "2 memories" in question.body and "There is no undo" in question.body
    await bot.say(ALICE, ALICE, "/memories")
    await bot.say(ALICE, ALICE, "remember: I like tea")
    before = len(bot.tg.sent(ALICE))
    answer = await bot.press(ALICE, ALICE, question, FORGET_YES)
    assert answer.get("text") in (None, "")
    await bot.tg.wait_for(lambda: question.edit_count == 1, what="the old question edited")
    assert question.text == "Your memories changed since I asked (2 then, 3 now), so I deleted nothing."
    assert question.buttons == []
    [again] = (await bot.tg.wait_for_sent(ALICE, before + 1))[before:]
    assert "3 memories" in again.body and [label for row in again.buttons for label, _ in row] == [FORGET_YES, "Cancel"]
    owner = await bot.owner(ALICE)
    assert set(bot.memories(owner)) == {"I live in Oslo", "I have a cat", "I like tea"}

    # the fresh one, pressed at once, does what it says
    await bot.press(ALICE, ALICE, again, FORGET_YES)
    await bot.tg.wait_for(lambda: again.edit_count == 1, what="the confirmation edited")
    assert again.body.startswith("Done. I deleted everything I held about you: 3 memories")
    assert bot.memories(owner) == {}


async def test_an_expired_forget_me_button_asks_again(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: I live in Oslo")
    [question] = await bot.say(ALICE, ALICE, "/forget_me")
    with bot.app.db.session() as s:  # shown four minutes ago
        s.execute(sql("UPDATE button_token SET expires_at = :t WHERE action = 'forget_me'"),
                  {"t": datetime.now(timezone.utc) - timedelta(minutes=1)})
    before = len(bot.tg.sent(ALICE))
    await bot.press(ALICE, ALICE, question, FORGET_YES)
    await bot.tg.wait_for(lambda: question.edit_count == 1, what="the old question edited")
    assert question.text == "That confirmation has expired (it works for 3 minutes after I ask), so I deleted nothing."
    [again] = (await bot.tg.wait_for_sent(ALICE, before + 1))[before:]
    assert again.body.startswith("That confirmation has expired") and "1 memory" in again.body
    assert set(bot.memories(await bot.owner(ALICE))) == {"I live in Oslo"}


async def test_an_old_answer_button_rechecks_the_facts_it_showed(bot: Running) -> None:
    """A conflict question whose older fact was corrected since: the old button applies
    nothing and shows the question as it stands now."""
    await bot.say(ALICE, ALICE, "remember: I live in London")
    [question] = await bot.say(ALICE, ALICE, "remember: I moved to Paris")
    await bot.say(ALICE, ALICE, "/memories")
    await bot.say(ALICE, ALICE, "/edit 2 I live in London, Ontario")
    answer = await bot.press(ALICE, ALICE, question, PAST)
    assert answer["text"] == "Changed since — nothing applied."
    await bot.tg.wait_for(lambda: question.edit_count == 1, what="the question shown afresh")
    assert question.text is not None and question.text.startswith(
        "The facts in that question changed since I asked, so I didn't apply your answer."
    )
    assert "Before: “I live in London, Ontario”" in question.text
    owner = await bot.owner(ALICE)
    assert bot.memories(owner)["I live in London, Ontario"] == ("unsure", False)
    assert bot.rows("SELECT status FROM conflict") == [("pending",)]
    # the fresh buttons work
    await bot.press(ALICE, ALICE, question, PAST)
    await bot.tg.wait_for(lambda: question.edit_count == 2, what="the answer")
    assert question.text == (
        "Done: “I live in London, Ontario” is now past (kept in your history), and “I moved to Paris” is current."
    )
