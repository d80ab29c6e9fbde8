"""Issue 20 item 6, end to end through the real python-telegram-bot and the Telegram stand-in:
a restored fact that contradicts a current one becomes a question (listed by /memories review,
the import's message says how many), never a second silent "current" value; importing the same
file again asks nothing new."""

from __future__ import annotations

import pytest

from tests.adapters.test_telegram_e2e import PAST, Running, bot, database_url  # noqa: F401
from tests.support.telegram_helpers import ALICE, CAROL, tg  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")]


async def test_an_old_backup_after_a_move_asks_instead_of_two_current_homes(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: I live in London")
    await bot.say(ALICE, ALICE, "remember: I have a dog called Rex")
    [export] = await bot.say(ALICE, ALICE, "/export")
    assert export.document is not None

    # Carol has moved since: she says so, then restores the older backup
    await bot.say(CAROL, CAROL, "remember: I live in Berlin")
    done, _ = await bot.send_file(CAROL, CAROL, export.document.data, "backup.json", "/import")
    assert done.body == (
        "Import done: 2 added, 0 updated, 0 unchanged. 1 restored fact disagrees with what you have "
        "now; I replaced nothing: /memories review asks about it."
    )
    carol = await bot.owner(CAROL)
    assert bot.memories(carol) == {
        "I live in Berlin": ("current", False),
        "I live in London": ("unsure", False),  # the older of the two is the one asked about
        "I have a dog called Rex": ("current", False),
    }

    [review] = await bot.say(CAROL, CAROL, "/memories review")
    assert "1. I live in London — may be replaced by “I live in Berlin”" in review.body
    assert [[label for label, _ in row] for row in review.buttons] == [["Ask about 1"]]
    before = len(bot.tg.sent(CAROL))
    await bot.press(CAROL, CAROL, review, "Ask about 1")
    [question] = (await bot.tg.wait_for_sent(CAROL, before + 1))[before:]
    assert "I live in Berlin" in question.body and "I live in London" in question.body
    await bot.press(CAROL, CAROL, question, PAST)
    await bot.tg.wait_for(lambda: bot.memories(carol)["I live in London"] == ("historical", False),
                          what="London marked as past")
    assert bot.memories(carol)["I live in Berlin"] == ("current", False)

    # the same file again: idempotent, and the settled question is not asked again
    again, _ = await bot.send_file(CAROL, CAROL, export.document.data, "backup.json", "/import")
    assert again.body.startswith("Import done: 0 added, 0 updated, ")
    assert "disagree" not in again.body
    assert bot.memories(carol)["I live in London"] == ("historical", False)
    assert await bot.say1(CAROL, CAROL, "/memories review") == "Nothing is waiting for review."


async def test_a_newer_restored_fact_asks_about_the_current_older_one(bot: Running) -> None:
    """The backup holds the newer value: the fact from before the import is the one in doubt."""
    await bot.say(CAROL, CAROL, "remember: I work at Acme")
    await bot.say(ALICE, ALICE, "remember: I work at Globex")
    [export] = await bot.say(ALICE, ALICE, "/export")
    assert export.document is not None
    done, _ = await bot.send_file(CAROL, CAROL, export.document.data, "backup.json", "/import")
    assert "1 restored fact disagrees with what you have now" in done.body
    carol = await bot.owner(CAROL)
    assert bot.memories(carol) == {"I work at Acme": ("unsure", False), "I work at Globex": ("current", False)}
