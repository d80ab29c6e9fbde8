"""Issue 20 item 4, end to end through the real python-telegram-bot and the Telegram stand-in:
groups that answer. A private answer leaves a reaction in the group; when the private chat is
closed (403) the group gets a truthful pointer with a deep link whose Start delivers the waiting
answer to its person only; one clear sentence without a model; a backup posted into a group is
refused (and deleted where the bot may), nothing imported."""

from __future__ import annotations

import asyncio
import re

import pytest

from adapters.telegram import BACKUP_IN_GROUP, GONE_WAITING
from bot.features.chat.fallback import GROUP_WITHOUT_MODEL
from tests.adapters.test_telegram_e2e import BOT, Running, bot, database_url  # noqa: F401
from tests.support.telegram_helpers import ALICE, BOB, CAROL, GROUP, tg  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")]


async def test_a_private_answer_leaves_a_reaction_in_the_group(bot: Running) -> None:
    before = len(bot.tg.sent(GROUP))
    sent = bot.tg.inject_text(GROUP, ALICE, f"@{BOT} remember: I like jazz")
    [saved] = await bot.tg.wait_for_sent(ALICE, 1)
    assert saved.body.startswith("Saved: “I like jazz”")
    await bot.tg.wait_for(lambda: (GROUP, sent["message_id"]) in bot.tg.reactions, what="the reaction")
    assert bot.tg.reactions[(GROUP, sent["message_id"])] == ["👌"]
    assert len(bot.tg.sent(GROUP)) == before  # nothing else in the group


async def test_a_closed_private_chat_gets_a_deep_link_whose_start_delivers_the_answer(bot: Running) -> None:
    [pointer] = await bot.say(GROUP, BOB, f"@{BOT} remember: I keep bees")
    link = re.search(r"https://t\.me/memory_test_bot\?start=(a-[A-Za-z0-9_-]+)", pointer.body)
    assert link is not None, pointer.body
    assert pointer.body == (
        "Bob, I have an answer that only you should see, and I can't write to you until you open a "
        f"chat with me: tap {link.group(0)} and press Start, and it will be there."
    )
    assert "bees" not in pointer.body and "ask again" not in pointer.body
    bob = await bot.owner(BOB)
    assert bot.memories(bob) == {"I keep bees": ("current", False)}  # saved, as the link says nothing against

    # someone else taps the link: nothing of Bob's reaches them
    [carol_sees] = await bot.say(CAROL, CAROL, f"/start {link.group(1)}")
    assert "bees" not in carol_sees.body

    # Bob taps it and presses Start: the answer that waited, in his private chat only
    [waited] = await bot.say(BOB, BOB, f"/start {link.group(1)}")
    assert waited.body.startswith("Saved: “I keep bees”")
    assert not any("bees" in m.body for m in bot.tg.sent(CAROL) + bot.tg.sent(GROUP))

    # the same link again: it says the answer is gone, then the greeting
    before = len(bot.tg.sent(BOB))
    bot.tg.inject_text(BOB, BOB, f"/start {link.group(1)}")
    gone, _greeting = (await bot.tg.wait_for_sent(BOB, before + 2))[before:]
    assert gone.body == GONE_WAITING


async def test_a_group_question_without_a_model_is_one_clear_sentence(bot: Running) -> None:
    [answer] = await bot.say(GROUP, ALICE, f"@{BOT} what music do I like?")
    assert answer.body == GROUP_WITHOUT_MODEL


@pytest.mark.parametrize("may_delete", [True, False])
async def test_a_backup_posted_into_a_group_is_refused_and_deleted(bot: Running, may_delete: bool) -> None:
    await bot.say(CAROL, CAROL, "remember: My PIN is 4321")
    [export] = await bot.say(CAROL, CAROL, "/export")
    assert export.document is not None
    if may_delete:
        bot.tg.may_delete.add(GROUP)
    before = len(bot.tg.sent(GROUP))
    posted = bot.tg.inject_document(GROUP, ALICE, export.document.data, "backup.json", caption=f"/import@{BOT}")
    [warning] = (await bot.tg.wait_for_sent(GROUP, before + 1))[before:]
    assert warning.body == BACKUP_IN_GROUP + (
        " I deleted it from the group." if may_delete else " Please delete it from the group.")
    assert ((GROUP, posted["message_id"]) in bot.tg.deleted_user_messages) is may_delete
    await asyncio.sleep(0.2)
    alice = await bot.owner(ALICE)
    assert bot.memories(alice) == {}
