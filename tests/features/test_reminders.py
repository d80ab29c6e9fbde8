"""Setting, listing and cancelling reminders through the core, as a person would, on SQLite and
PostgreSQL, with a fixed clock. The time grammar itself has its own table tests
(test_timeparse.py); here: the command, the reply wording, and what is stored."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import select

from bot.events import ButtonPress, ChatRef
from bot.storage.models import Reminder
from tests.conftest import make_settings
from tests.support.scheduling import T0, Clock, RecordingSender, button, make_app, msg

UTC = timezone.utc


@pytest.fixture
async def rig(database, settings):
    clock = Clock()
    app = make_app(database, settings, clock=clock)
    sender = RecordingSender()
    app.core.outbox.register("console", sender)
    yield app, app, clock
    await app.timers.stop()
    await app.core.drain(timeout=5)


@pytest.fixture
def settings(db_backend):
    """The console person is "u1", so the terminal sender may print u1's reminders."""
    return make_settings(database_url=db_backend[0], console_user="u1")


def rows(database, owner_id=None) -> list[Reminder]:
    with database.session() as s:
        stmt = select(Reminder).order_by(Reminder.id)
        if owner_id is not None:
            stmt = stmt.where(Reminder.owner_id == owner_id)
        return list(s.exec(stmt))


async def say(app, text: str, user: str = "u1", **kw):
    outs = await app.core.handle_message(msg(text, user, **kw))
    assert len(outs) == 1, outs
    return outs[0]


async def test_remind_in_minutes_in_paris_states_the_exact_local_time_and_stores_utc(rig, database):
    app, _, _ = rig
    await say(app, "/timezone Europe/Paris")
    out = await say(app, "/remind in 10 minutes to stretch")
    assert out.text == (
        "⏰ I'll remind you: “stretch”\n"
        "When: in 10 minutes — Monday 2 March 2026 at 12:10 (Europe/Paris)\n"
        "/reminders lists your reminders and lets you cancel them."
    )
    [r] = rows(database)
    assert r.text == "stretch"
    assert r.due_at == T0 + timedelta(minutes=10)
    assert r.timezone == "Europe/Paris" and r.recurrence is None and r.state == "scheduled"
    assert (r.platform, r.chat_id, r.user_id) == ("console", "u1", "u1")


@pytest.mark.parametrize(
    "zone, text, due, understood, stored_text, recurrence",
    [
        (
            "America/New_York", "remind me tomorrow at 9 to call mom",
            datetime(2026, 3, 3, 14, 0, tzinfo=UTC), "Tuesday 3 March 2026 at 09:00 (America/New_York)",
            "call mom", None,
        ),
        (
            "Asia/Tokyo", "/remind every Friday at 17:30 weekly review",
            datetime(2026, 3, 6, 8, 30, tzinfo=UTC),
            "every Friday at 17:30, starting Friday 6 March 2026 at 17:30 (Asia/Tokyo)",
            "weekly review", "weekly:FR@17:30",
        ),
        (
            "UTC", "/remind next Monday 18:00 gym",
            datetime(2026, 3, 9, 18, 0, tzinfo=UTC), "Monday 9 March 2026 at 18:00 (UTC)", "gym", None,
        ),
        (
            "Europe/Paris", "Remind me every day at 8 to take vitamins",
            datetime(2026, 3, 3, 7, 0, tzinfo=UTC),
            "every day at 08:00, starting Tuesday 3 March 2026 at 08:00 (Europe/Paris)",
            "take vitamins", "daily@08:00",
        ),
        (
            "Europe/Paris", "/remind in 30 seconds to stretch",
            T0 + timedelta(seconds=30), "in 30 seconds — Monday 2 March 2026 at 12:00 (Europe/Paris)", "stretch", None,
        ),
        (
            "Europe/Paris", "/remind me tomorrow at 9 to call mom",
            datetime(2026, 3, 3, 8, 0, tzinfo=UTC), "Tuesday 3 March 2026 at 09:00 (Europe/Paris)", "call mom", None,
        ),
    ],
)
async def test_reminders_in_several_zones(rig, database, zone, text, due, understood, stored_text, recurrence):
    app, _, _ = rig
    await say(app, f"/timezone {zone}")
    out = await say(app, text)
    assert f"When: {understood}\n" in out.text
    assert f"I'll remind you: “{stored_text}”" in out.text
    [r] = rows(database)
    assert (r.text, r.due_at, r.timezone, r.recurrence) == (stored_text, due, zone, recurrence)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("/remind sometime soon call mom", "When should I remind you? I couldn't find a time in that."),
        ("/remind today at 9 call mom", "That time has already passed — did you mean tomorrow?"),
        ("remind me to call mom", "When should I remind you to “call mom”?"),
        ("/remind tomorrow at 9", "What should I remind you about"),
    ],
)
async def test_unclear_or_past_times_get_a_question_and_nothing_is_stored(rig, database, text, expected):
    app, _, _ = rig
    await say(app, "/timezone Europe/Paris")
    out = await say(app, text)
    assert expected in out.text
    assert rows(database) == []


async def test_remind_me_that_is_not_a_reminder_is_an_ordinary_chat_turn(rig, database):
    app, _, _ = rig
    await say(app, "remember: My wife is called Ana")
    out = await say(app, "remind me what my wife is called")
    assert "Ana" in out.text  # answered from memory (no model here), not taken as a reminder
    assert rows(database) == []


async def test_a_reminder_set_in_a_group_answers_privately_and_is_bound_to_that_chat(rig, database):
    app, _, _ = rig
    out = await say(app, "/remind in 1 hour to water the plants", chat="group-7", group=True)
    assert out.private
    [r] = rows(database)
    assert (r.platform, r.chat_id, r.user_id) == ("console", "group-7", "u1")


async def test_list_cancel_confirms_in_words_with_undo_and_never_renumbers(rig, database):
    """Issue 16, item 4: one press used to cancel silently and re-show the list renumbered (a
    second "2" then stopped another reminder), and /undo restored an unrelated memory."""
    app, _, _ = rig
    await say(app, "/timezone Europe/Paris")
    await say(app, "remember: I like tea")
    await say(app, "/memories")
    await say(app, "/forget 1")  # an older change /undo must not reach for first
    await say(app, "/remind in 10 minutes to stretch")
    await say(app, "/remind every day at 8 take vitamins")
    await say(app, "/remind in 5 minutes to drink water", user="someone-else")
    listing = await say(app, "/reminders")
    assert listing.text == (
        "Your upcoming reminders (2):\n"
        "1. “stretch” — Monday 2 March 2026 at 12:10 (Europe/Paris)\n"
        "2. “take vitamins” — every day at 08:00, next Tuesday 3 March 2026 at 08:00 (Europe/Paris)"
    )
    assert [b.label for b in listing.all_buttons] == ["Cancel 1", "Stop 2"]
    assert [b.detail for b in listing.all_buttons] == ["Cancel “stretch”", "Stop “take vitamins”"]

    # a one-off is cancelled at once, confirmed in words naming it, with an Undo
    [done] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(listing, "Cancel 1"), message_id="list-1"))
    assert done.edit_of == "list-1"
    assert done.text == (
        "Cancelled the reminder “stretch” (it was due Monday 2 March 2026 at 12:10 (Europe/Paris)). "
        "/reminders shows the rest."
    )
    assert [b.label for b in done.all_buttons] == ["Undo"]
    # the list's other button was used up with it: no second press on a renumbered list
    [stale] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(listing, "Stop 2"), message_id="list-1"))
    assert stale.notice == "Another button of this message was already chosen; this one did nothing." and not stale.text
    assert {r.text: r.state for r in rows(database)}["take vitamins"] == "scheduled"

    # /undo right after takes back that cancel, not the older memory deletion
    undone = await say(app, "/undo")
    assert undone.text == "Undone cancelling the reminder “stretch”."
    assert {r.text: r.state for r in rows(database)}["stretch"] == "scheduled"
    assert "nothing yet" in (await say(app, "/memories")).text  # the tea stays deleted

    # a repeating one asks first, then confirms with an Undo
    listing = await say(app, "/reminders")
    [ask] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(listing, "Stop 2"), message_id="list-2"))
    assert ask.text.startswith("Stop the repeating reminder “take vitamins” (every day at 08:00")
    assert [b.label for b in ask.all_buttons] == ["Yes, stop it", "Keep it"]
    assert {r.text: r.state for r in rows(database)}["take vitamins"] == "scheduled"
    [stopped] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(ask, "Yes"), message_id="list-2"))
    assert stopped.text == "Stopped the repeating reminder “take vitamins”. /reminders shows the rest."
    states = {r.text: r.state for r in rows(database)}
    assert states == {"stretch": "scheduled", "take vitamins": "cancelled", "drink water": "scheduled"}
    [back] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(stopped, "Undo"), message_id="list-2"))
    assert back.text == "Undone stopping the repeating reminder “take vitamins”."
    assert {r.text: r.state for r in rows(database)}["take vitamins"] == "scheduled"
    assert app.delivery.has_timer(next(r.id for r in rows(database) if r.text == "take vitamins")) or not app.timers.running


async def test_the_time_question_takes_the_next_message_as_its_answer(rig, database):
    """Issue 16, item 4: "What time tomorrow?" then "at 10" was read as a new chat message."""
    app, _, _ = rig
    asked = await say(app, "/remind tomorrow buy bread")
    assert asked.text.startswith("What time tomorrow (Tuesday 3 March 2026)?")
    assert rows(database) == []
    done = await say(app, "at 10")
    assert done.text.startswith("⏰ I'll remind you: “buy bread”\nWhen: Tuesday 3 March 2026 at 10:00 (UTC)")
    [r] = rows(database)
    assert (r.text, r.due_at) == ("buy bread", datetime(2026, 3, 3, 10, 0, tzinfo=UTC))

    # a bare number is a time while a time is awaited (a press only where buttons are shown)
    await say(app, "remind me on friday to water the plants")
    done = await say(app, "18")
    assert "“water the plants”\nWhen: Friday 6 March 2026 at 18:00 (UTC)" in done.text
    # "When should I remind you to ...?" takes a when, and asks on when only the day is said
    await say(app, "remind me to call mom")
    again = await say(app, "tomorrow")
    assert again.text.startswith("What time tomorrow")
    done = await say(app, "9:30")
    assert "“call mom”\nWhen: Tuesday 3 March 2026 at 09:30 (UTC)" in done.text

    # something that is no time is read as it would have been, with a note; nothing is set
    await say(app, "/remind tomorrow pay rent")
    outs = await app.core.handle_message(msg("remember: I pay rent monthly"))
    assert [o.text for o in outs] == [
        "(I didn't take that as the time for “pay rent”, so that reminder is not set.)",
        "Saved: “I pay rent monthly”",
    ]
    # a command moves on: the question is dropped, and a later number is no time
    await say(app, "/remind tomorrow walk the dog")
    await say(app, "/reminders")
    later = await say(app, "7")
    assert "presses nothing" in later.text
    assert sorted(r.text for r in rows(database)) == ["buy bread", "call mom", "water the plants"]


async def test_a_duplicate_reminder_is_pointed_out_with_a_choice(rig, database):
    app, _, _ = rig
    await say(app, "/remind tomorrow at 9 call mom")
    dup = await say(app, "remind me tomorrow at 9 to Call  mom")
    assert dup.text == "You already have this reminder: “call mom” — Tuesday 3 March 2026 at 09:00 (UTC). Nothing new is set yet."
    assert [b.label for b in dup.all_buttons] == ["Keep just the one", "Set it twice"]
    assert len(rows(database)) == 1
    [kept] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(dup, "Keep"), message_id="d1"))
    assert kept.text.startswith("Kept just the one: “call mom”") and len(rows(database)) == 1
    dup = await say(app, "/remind tomorrow at 9 call mom")
    [twice] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(dup, "Set it twice"), message_id="d2"))
    assert twice.text.startswith("⏰ I'll remind you (a second time): “call mom”")
    assert [r.text for r in rows(database)] == ["call mom", "call mom"]
    # a different time is no duplicate
    other = await say(app, "/remind tomorrow at 10 call mom")
    assert other.text.startswith("⏰ I'll remind you") and len(rows(database)) == 3


async def test_someone_elses_cancel_button_does_nothing(rig, database):
    app, _, _ = rig
    await say(app, "/remind in 10 minutes to stretch")
    listing = await say(app, "/reminders")
    [out] = await app.core.handle_press(ButtonPress("console", "u2", "u2", button(listing, "Cancel 1")))
    assert out.notice and "isn't yours" in out.notice
    assert [r.state for r in rows(database)] == ["scheduled"]


async def test_service_api_for_the_chat_model(rig, database):
    app, _, clock = rig
    service = app.reminders
    owner = await app.memory.owner_for("console", "u1")
    chat = ChatRef("console", "u1", "u1")
    await app.memory.set_timezone(owner, "Europe/Paris")

    ok, message, rid = await service.set_from_text(owner, chat, "tomorrow at 9", "call mom")
    assert ok and rid is not None
    assert "Tuesday 3 March 2026 at 09:00 (Europe/Paris)" in message and "“call mom”" in message
    ok2, message2, rid2 = await service.set_from_text(owner, chat, "every Friday at 17:30", "weekly review")
    assert ok2

    bad = await service.set_from_text(owner, chat, "at some point", "call mom")
    assert bad[0] is False and bad[2] is None and "When should I remind you?" in bad[1]
    no_when = await service.set_from_text(owner, chat, "", "call mom")
    assert no_when[0] is False and "When should I remind you" in no_when[1]

    upcoming = await service.list_upcoming(owner)
    assert upcoming == [
        {"id": rid, "text": "call mom", "due": "Tuesday 3 March 2026 at 09:00 (Europe/Paris)", "recurrence": None},
        {"id": rid2, "text": "weekly review", "due": "Friday 6 March 2026 at 17:30 (Europe/Paris)",
         "recurrence": "every Friday at 17:30"},
    ]

    other = await app.memory.owner_for("console", "u2")
    assert await service.cancel(other, rid) == (False, f"There is no reminder {rid}.")
    assert await service.cancel(owner, rid) == (True, "Cancelled the reminder “call mom”.")
    assert await service.cancel(owner, rid) == (False, "The reminder “call mom” was already cancelled.")
    assert [u["id"] for u in await service.list_upcoming(owner)] == [rid2]
    assert len(rows(database)) == 2  # the failed attempts stored nothing


async def test_forget_me_removes_reminders_and_their_timers(database, settings):
    clock = Clock(datetime.now(UTC))
    app = make_app(database, settings, clock=clock)
    app.core.outbox.register("console", RecordingSender())
    await app.timers.start()
    try:
        await say(app, "/remind in 1 hour to stretch")
        [r] = rows(database)
        assert app.delivery.has_timer(r.id)
        confirm = await say(app, "/forget_me")
        [done] = await app.core.handle_press(ButtonPress("console", "u1", "u1", button(confirm, "Yes")))
        assert done.text.startswith("Done.")
        assert rows(database) == []
        assert not app.delivery.has_timer(r.id)
    finally:
        await app.timers.stop()


async def test_a_zone_that_is_not_one_no_longer_breaks_commands_or_delivery(rig, database):
    """Issue 17, finding 8: an imported "Mars/Olympus" (stored before imports were checked) made
    every reminder command answer "Something went wrong", and its reminder stayed in
    'delivering', retried and failing forever."""
    from bot.storage.models import Owner

    app, _, clock = rig
    owner = await app.memory.owner_for("console", "u1")
    with database.session() as s:
        o = s.get(Owner, owner)
        o.timezone = "Mars/Olympus"
        s.add(o)
        s.add(Reminder(owner_id=owner, text="water the plants", due_at=clock() - timedelta(seconds=1),
                       timezone="../../etc/passwd", recurrence="daily@08:00", platform="console",
                       chat_id="u1", user_id="u1"))
    listing = await say(app, "/reminders")
    assert "water the plants" in listing.text and "Something went wrong" not in listing.text
    assert "I'll remind you" in (await say(app, "/remind in 10 minutes to stretch")).text
    await app.timers.start()
    await app.delivery.sweep()
    sender = app.core.outbox.senders["console"]
    for _ in range(100):
        if sender.sent:
            break
        await asyncio.sleep(0.02)
    assert any("water the plants" in m.text for _, m in sender.sent)
    for _ in range(100):  # the send is marked after it went out: wait for that commit
        [plants] = [r for r in rows(database) if r.text == "water the plants"]
        if plants.state != "delivering":
            break
        await asyncio.sleep(0.02)
    assert plants.state == "scheduled" and plants.attempts == 0  # delivered, next one scheduled
