"""Issue 20 item 8, end to end through the real python-telegram-bot and the Telegram stand-in:
a tap on a stale message edits it to where things stand (its dead buttons gone); a refusal
that takes reading is an alert, not a two-second toast; the words say what happened to the
button that was pressed."""

from __future__ import annotations

import pytest

from bot.core.core import USED_BY_ANOTHER
from tests.adapters.test_telegram_e2e import PAST, Running, bot, database_url  # noqa: F401
from tests.support.telegram_helpers import ALICE, tg  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")]


async def test_an_old_copy_of_a_settled_question_is_repaired_when_tapped(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: I live in London")
    [first_copy] = await bot.say(ALICE, ALICE, "remember: I moved to Paris")
    assert len(first_copy.callback_data) == 4
    [review] = await bot.say(ALICE, ALICE, "/memories review")
    before = len(bot.tg.sent(ALICE))
    await bot.press(ALICE, ALICE, review, "Ask about 1")
    [second_copy] = (await bot.tg.wait_for_sent(ALICE, before + 1))[before:]
    await bot.press(ALICE, ALICE, second_copy, PAST)
    await bot.tg.wait_for(lambda: second_copy.edit_count == 1, what="the answer")

    # the first copy still shows live-looking answers: a tap repairs it in place
    answer = await bot.press(ALICE, ALICE, first_copy, "Keep both")
    await bot.tg.wait_for(lambda: first_copy.edit_count == 1, what="the stale copy repaired")
    assert first_copy.body == ("That question was already settled (Mark older as past). "
                               "Your answer “Keep both” changed nothing.")
    assert first_copy.buttons == []
    assert answer["text"] == "Nothing changed."
    owner = await bot.owner(ALICE)
    assert bot.memories(owner) == {"I live in London": ("historical", False), "I moved to Paris": ("current", False)}


@pytest.mark.parametrize("second", [PAST, "Discard newer"])
async def test_a_double_tap_and_a_sibling_say_different_things_as_alerts(bot: Running, second: str) -> None:
    """Two taps on one keyboard before its edit arrives (a double tap, or two answers at once):
    one applies; the other is told what happened to the button it pressed."""
    await bot.say(ALICE, ALICE, "remember: I live in London")
    [question] = await bot.say(ALICE, ALICE, "remember: I moved to Paris")
    first = bot.tg.press_button(ALICE, ALICE, question.message_id, label=PAST)
    other = bot.tg.press_button(ALICE, ALICE, question.message_id, label=second)
    said = [await bot.tg.wait_for_answer(first), await bot.tg.wait_for_answer(other)]
    texts = sorted(a["text"] for a in said)
    if second == PAST:
        assert texts == sorted(["Done.", "You already pressed this button; it was done then, and nothing more happened now."])
    else:
        assert texts == sorted(["Done.", USED_BY_ANOTHER])
    refused = next(a for a in said if a["text"] != "Done.")
    assert refused["show_alert"] is True  # read, not flashed
    assert next(a for a in said if a["text"] == "Done.")["show_alert"] is False


async def test_an_undo_of_a_change_already_undone_says_so_in_place(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remember: My cat is called Miso")
    await bot.say(ALICE, ALICE, "/memories")
    [deleted] = await bot.say(ALICE, ALICE, "/forget 1")
    assert [label for row in deleted.buttons for label, _ in row] == ["Undo"]
    typed = await bot.say1(ALICE, ALICE, "/undo")
    assert typed.startswith("Undone")
    answer = await bot.press(ALICE, ALICE, deleted, "Undo")
    await bot.tg.wait_for(lambda: deleted.edit_count == 1, what="the stale Undo repaired")
    assert deleted.body == "That change was already undone."
    assert deleted.buttons == []
    assert answer["text"] == "Nothing was undone."
