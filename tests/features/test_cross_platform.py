"""/link across platforms, on the wire: a real TelegramAdapter (python-telegram-bot, long
polling) against the Telegram stand-in and a real DiscordAdapter (discord.py, gateway + REST)
against the Discord stand-in, both running at the same time on ONE core and one database
(bot.app.build_app). Alice has an account on each; the code is shown on Telegram and typed on
Discord.

What is checked: the disagreement between the two accounts (London / Paris) becomes a question
right after linking; afterwards a memory saved on one platform is listed on the other, and a
conflicting fact from the other side is asked about; /unlink separates them, each side keeping
exactly what the rules in bot/features/linking.py say. Codes asked for in a group stay private.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import text as sql

from adapters.discord import DiscordAdapter
from adapters.telegram import TelegramAdapter
from bot.app import App, build_app
from tests.conftest import make_settings
from tests.support.discord_helpers import standin_server
from tests.standins.discord_api import FLAG_EPHEMERAL, DiscordStandIn, StoredMessage, User
from tests.standins.telegram_api import BotMessage, TelegramStandIn
from tests.conftest import database_url_for

# PTB 22's own RetryAfter.__init__ trips its int-vs-timedelta deprecation warning.
pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning"),
]

ALICE_TG = 2001
GROUP_TG = -1009876543210
TG_BOT = "memory_link_bot"
PAST = "Mark older as past (recommended)"
CONFLICT_LABELS = ["Keep both", PAST, "Replace older (deletes it)", "Discard newer"]
CODE = re.compile(r"Your link code: ([A-Z0-9]{5}-[A-Z0-9]{5})")


@dataclass
class World:
    """Both stand-ins, the one app, both adapters, and helpers that speak for Alice."""

    tg: TelegramStandIn
    dc: DiscordStandIn
    app: App
    alice_dc: User
    guild_channel: int

    # Telegram (private chat id = user id)
    async def tg_say(self, text: str, *, expect: int = 1, chat: int = ALICE_TG, answer_in: int = ALICE_TG) -> list[BotMessage]:
        before = len(self.tg.sent(answer_in))
        self.tg.inject_text(chat, ALICE_TG, text)
        return (await self.tg.wait_for_sent(answer_in, before + expect))[before:]

    async def tg_say1(self, text: str, **kw: Any) -> BotMessage:
        [answer] = await self.tg_say(text, **kw)
        return answer

    async def tg_press(self, msg: BotMessage, label: str) -> dict[str, Any]:
        edits = msg.edit_count
        qid = self.tg.press_button(ALICE_TG, ALICE_TG, msg.message_id, label=label)
        answer = await self.tg.wait_for_answer(qid)
        await self.tg.wait_for(lambda: msg.edit_count > edits, what="the pressed message edited")
        return answer

    # Discord (DM)
    @property
    def dm(self) -> int:
        return self.dc.dm_channel(self.alice_dc).id

    async def dc_say(self, text: str, *, expect: int = 1) -> list[StoredMessage]:
        before = len(self.dc.bot_messages(self.dm, ephemeral=False))
        await self.dc.send_dm(self.alice_dc, text)
        await self.dc.wait_for_bot_message(self.dm, count=before + expect, ephemeral=False)
        return self.dc.bot_messages(self.dm, ephemeral=False)[before:]

    async def dc_say1(self, text: str) -> StoredMessage:
        [answer] = await self.dc_say(text)
        return answer

    async def dc_press(self, msg: StoredMessage, label: str) -> None:
        versions = len(msg.history)
        custom_id = next(b.custom_id for b in msg.buttons if b.label == label)
        rec = await self.dc.click(self.alice_dc, msg, custom_id)
        # answered by editing the message in place (issue 20: no ephemeral "Done." beside it)
        await self.dc.wait_for(lambda: len(msg.history) > versions and rec.answered, what=f"the answer to {label!r}")

    # the one database
    def owners(self) -> dict[str, int]:
        with self.app.db.session() as s:
            return {p: o for p, o in s.execute(sql("SELECT platform, owner_id FROM identity"))}


@contextlib.asynccontextmanager
async def both_platforms(database_url: str) -> AsyncIterator[World]:
    tg = TelegramStandIn(bot_username=TG_BOT)
    await tg.start()
    tg.add_user(ALICE_TG, "Alice", username="alice")
    tg.add_group(GROUP_TG, "Family")
    try:
        async with standin_server() as dc:
            alice_dc = dc.add_user("alice_d", global_name="Alice D")
            guild = dc.add_guild("home", channels=("general",), members=(alice_dc,))
            settings = make_settings(
                database_url=database_url,
                embedding_model="none",
                telegram_bot_token=tg.token,
                telegram_api_base_url=tg.base_url,
                discord_bot_token=dc.token,
            )
            app = build_app(settings)
            await app.start_background()
            telegram = TelegramAdapter(app.core, settings)
            discord_ = DiscordAdapter(app.core, settings)
            discord_.guild_ready_timeout = 0.05
            await telegram.start()
            try:
                await discord_.start()
                try:
                    assert set(app.core.outbox.senders) >= {"telegram", "discord"}
                    yield World(tg, dc, app, alice_dc, guild.channel("general"))
                finally:
                    await discord_.stop()
            finally:
                await telegram.stop()
                await app.close()
    finally:
        await tg.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Any) -> Any:
    with database_url_for(request.param, tmp_path) as url:
        yield url


async def test_link_telegram_and_discord_then_share_ask_and_separate(database_url: str) -> None:
    async with both_platforms(database_url) as w:
        # before: two people as far as the bot knows
        assert (await w.tg_say1("remember: I live in London")).body == "Saved: \u201cI live in London\u201d"
        await w.tg_say1("remember: I like green tea")
        await w.dc_say1("remember: I live in Paris")
        await w.dc_say1("remember: I have a dog named Rex")
        homes = w.owners()
        assert homes["telegram"] != homes["discord"]
        assert "Paris" not in (await w.tg_say1("/memories")).body

        # the code is shown on Telegram ...
        shown = await w.tg_say1("/link")
        code = CODE.search(shown.body).group(1)  # type: ignore[union-attr]
        assert "10 minutes" in shown.body
        # ... and typed on Discord: first whose account that is, nothing linked yet ...
        [summary] = await w.dc_say(f"/link {code}")
        assert summary.content.startswith("That code was shown by the Telegram account “Alice”.")
        assert w.owners() == homes
        # ... then "Yes": linked, and the disagreement becomes a question at once
        before = len(w.dc.bot_messages(w.dm, ephemeral=False))
        await w.dc_press(summary, "Yes, link them")
        await w.dc.wait_for_bot_message(w.dm, count=before + 1, ephemeral=False)
        question = w.dc.bot_messages(w.dm, ephemeral=False)[-1]
        assert "Linked!" in summary.content and "Telegram account (Alice)" in summary.content
        assert "brought over 2 memories" in summary.content
        assert "I live in London" in question.content and "I live in Paris" in question.content
        assert [b.label for b in question.buttons] == CONFLICT_LABELS
        owners = w.owners()
        assert owners["discord"] == owners["telegram"] == homes["telegram"]
        # Telegram is told that its code was used
        await w.tg.wait_for(lambda: "link code was used" in w.tg.sent(ALICE_TG)[-1].body, what="the notice")
        notice = w.tg.sent(ALICE_TG)[-1].body
        assert "a Discord account (Alice D) now shares your memory" in notice and "/unlink" in notice

        await w.dc_press(question, PAST)
        assert "now past" in question.content
        assert "1. I live in London" in (await w.tg_say1("/memories historical")).body

        # a memory saved on one platform is listed on the other, both ways
        await w.tg_say1("remember: I work at ACME")
        await w.dc_say1("remember: I play chess on Sundays")
        on_discord = (await w.dc_say1("/memories")).content
        on_telegram = (await w.tg_say1("/memories")).body
        for fact in ("I work at ACME", "I play chess on Sundays", "I live in Paris", "I have a dog named Rex", "I like green tea"):
            assert fact in on_discord and fact in on_telegram

        # a conflicting fact from the other side is asked about (Paris came from Discord)
        asked = await w.tg_say1("remember: I moved to Berlin")
        assert "I live in Paris" in asked.body and "I moved to Berlin" in asked.body
        assert [label for row in asked.buttons for label, _ in row] == CONFLICT_LABELS
        answer = await w.tg_press(asked, PAST)
        assert answer.get("text") == "Done."
        assert "I live in Paris" in (await w.dc_say1("/memories historical")).content

        # /unlink on Discord: each side keeps what the rules say, nothing leaks
        unlinked = await w.dc_say1("/unlink")
        assert "own memory again" in unlinked.content and "the 2 memories it brought in are back" in unlinked.content
        assert "with the 1 change you made while linked" in unlinked.content  # Paris marked past
        assert "3 memories saved while linked stay with the other account" in unlinked.content
        assert w.owners() == homes
        discord_now = (await w.dc_say1("/memories")).content
        assert "I have a dog named Rex" in (await w.dc_say1("/memories current")).content
        assert "1. I live in Paris" in (await w.dc_say1("/memories historical")).content  # as answered while linked
        for theirs in ("London", "green tea", "ACME", "chess", "Berlin"):
            assert theirs not in discord_now
        telegram_now = (await w.tg_say1("/memories")).body
        for fact in ("I like green tea", "I work at ACME", "I play chess on Sundays", "I moved to Berlin"):
            assert fact in telegram_now
        for brought in ("Paris", "Rex"):
            assert brought not in telegram_now
        assert "isn't linked" in (await w.tg_say1("/unlink")).body


async def test_codes_and_link_answers_stay_private_in_groups(tmp_path: Any) -> None:
    with database_url_for("sqlite", tmp_path) as url:
        async with both_platforms(url) as w:
            # Telegram group: the code goes to Alice's private chat, the group sees nothing
            before_group = len(w.tg.sent(GROUP_TG))
            [shown] = await w.tg_say(f"/link@{TG_BOT}", chat=GROUP_TG, answer_in=ALICE_TG)
            code = CODE.search(shown.body).group(1)  # type: ignore[union-attr]
            assert len(w.tg.sent(GROUP_TG)) == before_group

            # Discord server: a wrong code through the slash command, answered only to Alice
            rec = await w.dc.slash(w.alice_dc, w.guild_channel, "link", text="ABCDE-FGHJK")
            wrong = await w.dc.wait_for_bot_message(w.guild_channel, ephemeral=True)
            assert rec.callback is not None and rec.callback.flags & FLAG_EPHEMERAL
            assert "doesn't match" in wrong.content and "4 tries left" in wrong.content
            # the right code, typed with a mention: the answer goes to Alice's DM
            await w.dc.send_message(w.alice_dc, w.guild_channel, f"{w.dc.mention()} /link {code}")
            linked = await w.dc.wait_for_bot_message(w.dm)
            assert linked.content.startswith("That code was shown by the Telegram account")
            await w.dc_press(linked, "Yes, link them")
            assert "Linked!" in linked.content
            assert w.dc.bot_messages(w.guild_channel, ephemeral=False) == []
            owners = w.owners()
            assert owners["telegram"] == owners["discord"]
            # the notice to the code's owner goes to the private chat, not the group
            await w.tg.wait_for(lambda: "Your link code was used" in w.tg.sent(ALICE_TG)[-1].body, what="the notice")
            assert len(w.tg.sent(GROUP_TG)) == before_group
