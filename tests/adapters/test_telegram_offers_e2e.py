"""Issue 20, the last sub-points, end to end through the real python-telegram-bot and the
Telegram stand-in: a backup dropped into a private chat without the /import caption is offered
for import with buttons, as Discord already does, instead of a hint about captions; a first
reminder the model sets offers the time zone as /remind's does; a typed /undo of an answer puts the
question back in the message it was answered in."""

from __future__ import annotations

import asyncio
from typing import Any

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


async def test_a_reminder_the_model_set_offers_the_time_zone_once(tg: Any, tmp_path: Any) -> None:  # noqa: F811
    """As /remind's first reminder does: the zone the time was read in, and likely zones."""
    from tests.adapters.test_telegram_polish_e2e import _with_model, labels
    from tests.standins.anthropic_api import tool_use_message

    answers = {
        "could you set a reminder to call the vet tomorrow at 9?": tool_use_message(
            "reminders", {"action": "set", "when": "tomorrow at 9", "text": "call the vet"}
        ),
        "and one to feed the cat tomorrow at 8?": tool_use_message(
            "reminders", {"action": "set", "when": "tomorrow at 8", "text": "feed the cat"}
        ),
        "(tool results)": "Sure, I'll remind you.",
    }
    tg.users[ALICE]["language_code"] = "it"
    model, bot = await _with_model(tg, tmp_path, answers)  # noqa: F811
    try:
        answer, offer = await bot.say(ALICE, ALICE, "could you set a reminder to call the vet tomorrow at 9?", expect=2)
        assert answer.body.startswith("Sure, I'll remind you.\n\n✓ ⏰ I'll remind you: “call the vet”")
        assert labels(answer) == [["Cancel reminder"]]
        assert offer.body == (
            "I read that time in UTC, because I don't know your time zone yet. If that isn't your "
            "time, tap your zone below, or type your city (e.g. “Rome”) or your UTC offset (e.g. “UTC+2”)."
        )
        assert labels(offer) == [["Rome", "Keep UTC"]]

        await bot.press(ALICE, ALICE, offer, "Rome")
        await bot.tg.wait_for(lambda: offer.edit_count == 1, what="the offer settled")
        # the offer becomes the reminder as it stands, the new zone, and whether it moves with it
        assert offer.body.startswith("⏰ I'll remind you: “call the vet”\nWhen: ")
        assert "\n\nYour time zone is now Europe/Rome. New reminders are read in it.\n\n" in offer.body
        assert offer.body.endswith(":00 (Europe/Rome)?") and "Move it to the same clock time in Rome" in offer.body
        assert labels(offer) == [["Move it", "Keep its time"]]
        owner = await bot.owner(ALICE)
        assert await bot.app.memory.timezone_of(owner) == "Europe/Rome"

        # once per person: the next reminder the model sets comes without an offer
        before = len(tg.sent(ALICE))
        [second] = await bot.say(ALICE, ALICE, "and one to feed the cat tomorrow at 8?")
        assert "(Europe/Rome)" in second.body and "time zone" not in second.body
        await asyncio.sleep(0.3)
        assert len(tg.sent(ALICE)) == before + 1
    finally:
        await bot.stop()
        await model.stop()


async def test_a_typed_undo_of_an_answered_question_puts_the_question_back_in_its_message(bot: Running) -> None:
    """A typed /undo of a settled question re-asks it in the message it was answered in (edited
    back to the question, live buttons), not in a new copy under an old one that looks settled."""
    from tests.adapters.test_telegram_e2e import PAST

    await bot.say(ALICE, ALICE, "remember: I live in London")
    [question] = await bot.say(ALICE, ALICE, "remember: I moved to Paris")
    asked = question.body
    await bot.press(ALICE, ALICE, question, PAST)
    await bot.tg.wait_for(lambda: question.edit_count == 1, what="the question settled")
    assert "now past" in question.body

    before = len(bot.tg.sent(ALICE))
    [undone] = await bot.say(ALICE, ALICE, "/undo")
    await bot.tg.wait_for(lambda: question.edit_count == 2, what="the question put back")
    assert question.body == asked.removeprefix("Saved: “I moved to Paris”\n\n")  # the question as first asked
    assert [label for row in question.buttons for label, _ in row][1] == PAST
    await asyncio.sleep(0.3)
    assert len(bot.tg.sent(ALICE)) == before + 1  # only the undo's own line is new
    assert undone.body == ("Undone your answer “Mark older as past” about “I moved to Paris”. "
                           "The question is open again where you answered it.")

    # the question put back still works
    await bot.press(ALICE, ALICE, question, PAST)
    await bot.tg.wait_for(lambda: question.edit_count == 3, what="the question answered again")
    assert "now past" in question.body
    owner = await bot.owner(ALICE)
    assert bot.memories(owner) == {"I live in London": ("historical", False), "I moved to Paris": ("current", False)}
