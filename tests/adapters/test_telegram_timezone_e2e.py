"""Issue 20 item 1, end to end through the real python-telegram-bot and the Telegram stand-in:
a new person's first reminder says which zone it was read in and offers to fix it, once; a city
typed in answer sets the zone, and a reminder already set moves to the same clock time only
when the person agrees."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from tests.adapters.test_telegram_e2e import Running, bot, database_url  # noqa: F401
from tests.support.telegram_helpers import ALICE, CAROL, tg  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")]


def due_of(bot: Running, text: str) -> tuple[datetime, str]:
    [(due, tz)] = bot.rows("SELECT due_at, timezone FROM reminder WHERE text = :t", t=text)
    if isinstance(due, str):
        due = datetime.fromisoformat(due)
    return (due if due.tzinfo else due.replace(tzinfo=timezone.utc)), tz


async def test_first_reminder_offers_the_zone_once_and_a_typed_city_moves_it_when_agreed(bot: Running) -> None:
    bot.tg.users[ALICE]["language_code"] = "it"
    [offer] = await bot.say(ALICE, ALICE, "remind me tomorrow at 10 to call the vet")
    assert offer.body.startswith("⏰ I'll remind you: “call the vet”")
    assert "at 10:00 (UTC)\n/reminders lists your reminders and lets you cancel them.\n\n" in offer.body
    assert offer.body.endswith(
        "I read that time in UTC, because I don't know your time zone yet. If that isn't your "
        "time, tap your zone below, or type your city (e.g. “Rome”) or your UTC offset (e.g. “UTC+2”)."
    )
    assert [[label for label, _ in row] for row in offer.buttons] == [["Rome", "Keep UTC"]]

    answer = (await bot.say(ALICE, ALICE, "I'm in New York"))[0]
    tomorrow = (datetime.now(timezone.utc) + timedelta(days=1)).date()
    assert answer.body.startswith("Your time zone is now America/New_York. New reminders are read in it.\n\n")
    assert "“call the vet” is set for" in answer.body and "at 10:00 (UTC), which is" in answer.body
    assert answer.body.endswith("Move it to the same clock time in New York, "
                                f"{_day(tomorrow)} at 10:00 (America/New_York)?")
    assert [[label for label, _ in row] for row in answer.buttons] == [["Move it", "Keep its time"]]
    due, tz = due_of(bot, "call the vet")
    assert (due, tz) == (datetime(tomorrow.year, tomorrow.month, tomorrow.day, 10, tzinfo=timezone.utc), "UTC")

    await bot.press(ALICE, ALICE, answer, "Move it")
    moved = await edited(bot, ALICE, answer.message_id)
    assert moved.buttons == []
    assert moved.body == (f"Your time zone is America/New_York. Moved “call the vet” to "
                          f"{_day(tomorrow)} at 10:00 (America/New_York).")
    due, tz = due_of(bot, "call the vet")
    local = due.astimezone(ZoneInfo("America/New_York"))
    assert (local.date(), local.hour, local.minute, tz) == (tomorrow, 10, 0, "America/New_York")

    # asked once: the next reminder is read in the zone, with no offer under it
    [next_one] = await bot.say(ALICE, ALICE, "remind me tomorrow at 9 to feed the cat")
    assert "at 09:00 (America/New_York)" in next_one.body
    await _no_more_messages(bot, ALICE)


async def test_keeping_the_time_and_a_zone_button(bot: Running) -> None:
    """A zone chosen with a button, and "Keep its time": the reminder rings at the same instant."""
    [offer] = await bot.say(CAROL, CAROL, "remind me tomorrow at 10 to water the plants")
    assert [[label for label, _ in row] for row in offer.buttons] == [
        ["London", "New York"], ["Berlin", "Kolkata"], ["Keep UTC"]]
    before, _ = due_of(bot, "water the plants")
    await bot.press(CAROL, CAROL, offer, "Berlin")
    asked = await edited(bot, CAROL, offer.message_id)
    assert asked.body.startswith("⏰ I'll remind you: “water the plants”\n")
    assert "\n\nYour time zone is now Europe/Berlin." in asked.body
    assert [[label for label, _ in row] for row in asked.buttons] == [["Move it", "Keep its time"]]
    await bot.press(CAROL, CAROL, asked, "Keep its time")
    kept = await edited(bot, CAROL, offer.message_id, 2)
    assert kept.buttons == []
    assert "at 11:00 (Europe/Berlin)\n/reminders lists" in kept.body  # the confirmation, read in the new zone
    assert "\n\nYour time zone is Europe/Berlin. “water the plants” stays at " in kept.body
    assert kept.body.endswith("at 11:00 (Europe/Berlin).")
    assert due_of(bot, "water the plants") == (before, "UTC")


async def test_a_message_that_is_no_place_is_read_as_usual(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remind me tomorrow at 10 to call the vet")
    reply = await bot.say1(ALICE, ALICE, "remember: I like green tea")
    assert reply.startswith("Saved: “I like green tea”")
    [(tz,)] = bot.rows("SELECT timezone FROM owner")
    assert tz is None


async def edited(bot: Running, chat: int, message_id: int, edits: int = 1):  # type: ignore[no-untyped-def]
    """The bot's message once it was edited `edits` times."""
    await bot.tg.wait_for(lambda: (m := bot.tg.bot_message(chat, message_id)) is not None and m.edit_count >= edits,
                          what=f"edit {edits} of message {message_id}")
    return bot.tg.bot_message(chat, message_id)


def _day(d: object) -> str:
    from bot.when.zones import human_date

    return human_date(d)  # type: ignore[arg-type]


async def _no_more_messages(bot: Running, chat: int) -> None:
    import asyncio

    count = len(bot.tg.sent(chat))
    await asyncio.sleep(0.5)
    assert len(bot.tg.sent(chat)) == count


async def test_the_timezone_command_asks_before_moving_reminders_set_in_the_old_zone(bot: Running) -> None:
    await bot.say(ALICE, ALICE, "remind me tomorrow at 10 to call the vet")
    asked = (await bot.say(ALICE, ALICE, "/timezone Europe/Rome"))[0]
    assert asked.body.startswith("Your time zone is now Europe/Rome. New reminders are read in it.\n\n")
    assert asked.body.endswith("at 10:00 (Europe/Rome)?")
    assert [[label for label, _ in row] for row in asked.buttons] == [["Move it", "Keep its time"]]
    # with nothing to move, /timezone answers as it always did, with an Undo
    [plain] = await bot.say(ALICE, ALICE, "/timezone Europe/Rome")
    assert plain.body == "Your time zone is already Europe/Rome."
