"""Issue 20, the last sub-points, end to end through the real python-telegram-bot and the
Telegram stand-in: a backup dropped into a private chat without the /import caption is offered
for import with buttons, as Discord already does, instead of a hint about captions."""

from __future__ import annotations

import asyncio

import pytest

from tests.adapters.test_telegram_e2e import Running, bot, database_url  # noqa: F401
from tests.support.telegram_helpers import ALICE, BOB, tg  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")]


async def test_a_backup_sent_without_a_caption_is_offered_for_import(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: I like green tea")
    await bot.say(ALICE, ALICE, "remember: I keep bees")
    [export] = await bot.say(ALICE, ALICE, "/export")
    assert export.document is not None

    not_backup, _ = await bot.send_file(BOB, BOB, b"shopping: milk", "notes.txt", None)
    assert not_backup.body == ("That file isn't a backup I made, so I did nothing with it. I read text, "
                               "and the backup files /export gives you.")
    offer, _ = await bot.send_file(BOB, BOB, export.document.data, "backup.json", None)
    assert offer.body == ("That file is a backup of 2 memories. Import it? What you changed after the "
                          "backup is kept, and nothing happens until you choose.")
    assert [label for row in offer.buttons for label, _ in row] == ["Import it", "Don't import"]
    await asyncio.sleep(0.1)
    bob = await bot.owner(BOB)
    assert bot.memories(bob) == {}

    await bot.press(BOB, BOB, offer, "Import it")
    await bot.tg.wait_for(lambda: offer.edit_count == 1, what="the offer settled")
    assert offer.body == "Import done: 2 added, 0 updated, 0 unchanged."
    assert offer.buttons == []
    assert bot.memories(bob) == {"I like green tea": ("current", False), "I keep bees": ("current", False)}


async def test_dont_import_leaves_nothing_behind(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: I like green tea")
    [export] = await bot.say(ALICE, ALICE, "/export")
    assert export.document is not None
    offer, _ = await bot.send_file(BOB, BOB, export.document.data, "backup.json", None)
    await bot.press(BOB, BOB, offer, "Don't import")
    await bot.tg.wait_for(lambda: offer.edit_count == 1, what="the offer settled")
    assert offer.body == "Not imported; I've let go of that file."
    assert bot.memories(await bot.owner(BOB)) == {}
