"""The pure rules of reminder delivery: back-off, when a retry is allowed, how late is "late",
the wording of a late or missed reminder, and the next occurrence after a delivery."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from bot.storage.reminders import ReminderView
from bot.when.recurrence import Recurrence
from scheduler.delivery import delivery_text, eligible_at, lateness, next_occurrence, retry_delay

UTC = timezone.utc
DUE = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)  # 09:00 in Paris


@pytest.mark.parametrize(
    "attempts, expected",
    [(0, 0.0), (1, 30.0), (2, 60.0), (3, 120.0), (5, 480.0), (7, 1920.0), (8, 3600.0), (50, 3600.0)],
)
def test_retry_delay_doubles_from_30_seconds_up_to_an_hour(attempts, expected):
    assert retry_delay(attempts) == expected


def _view(**kw) -> ReminderView:
    base = ReminderView(
        id=1, owner_id=1, text="stretch", due_at=DUE, timezone="UTC", recurrence=None, platform="console",
        chat_id="u", user_id="u", state="scheduled", attempts=0, claimed_at=None, claimed_by=None,
        delivered_at=None, last_error=None,
    )
    return replace(base, **kw)


@pytest.mark.parametrize(
    "attempts, failed_at, expected",
    [
        (0, None, DUE),
        (1, DUE + timedelta(seconds=1), DUE + timedelta(seconds=31)),
        (3, DUE + timedelta(minutes=5), DUE + timedelta(minutes=7)),
        (1, DUE - timedelta(hours=1), DUE),  # a retry never goes before the due time
    ],
)
def test_a_failed_reminder_is_eligible_after_its_back_off(attempts, failed_at, expected):
    assert eligible_at(_view(attempts=attempts, claimed_at=failed_at)) == expected


@pytest.mark.parametrize(
    "delay, grace, expected",
    [
        (timedelta(0), 60, "on_time"),
        (timedelta(seconds=4), 60, "on_time"),
        (timedelta(seconds=6), 60, "late"),
        (timedelta(minutes=60), 60, "late"),
        (timedelta(minutes=61), 60, "missed"),
        (timedelta(minutes=1), 0, "missed"),
    ],
)
def test_lateness(delay, grace, expected):
    assert lateness(DUE, DUE + delay, grace) == expected


@pytest.mark.parametrize(
    "delay, expected",
    [
        (timedelta(seconds=1), "⏰ Reminder: “call mom”"),
        (
            timedelta(seconds=20),
            "⏰ Reminder, less than a minute late: “call mom”\n"
            "(It was due Monday 2 March 2026 at 09:00 (Europe/Paris); I couldn't send it on time.)",
        ),
        (
            timedelta(minutes=25, seconds=40),
            "⏰ Reminder, 25 minutes late: “call mom”\n"
            "(It was due Monday 2 March 2026 at 09:00 (Europe/Paris); I couldn't send it on time.)",
        ),
        (
            timedelta(hours=3, minutes=5),
            "⏰ Missed reminder (3 hours 5 minutes late): “call mom”\n"
            "It was due Monday 2 March 2026 at 09:00 (Europe/Paris), but I was not able to deliver it then.",
        ),
    ],
)
def test_delivery_wording_says_how_late(delay, expected):
    got = delivery_text("call mom", DUE, DUE + delay, "Europe/Paris", 60)
    assert got.text == expected


@pytest.mark.parametrize(
    ("delay", "expected"),
    [
        (timedelta(seconds=1), "⏰ Snoozed reminder: “call mom”"),
        (timedelta(minutes=25), "⏰ Snoozed reminder, 25 minutes late: “call mom”"),
        (timedelta(hours=3), "⏰ Missed snoozed reminder (3 hours late): “call mom”"),
    ],
)
def test_a_snoozed_reminder_says_so(delay, expected):
    """Issue 20: the second delivery of a snoozed reminder read exactly like the first."""
    got = delivery_text("call mom", DUE, DUE + delay, "Europe/Paris", 60, snoozed=True)
    assert got.text.split("\n")[0] == expected


def test_a_repeating_reminder_says_when_it_comes_next_and_a_reclaimed_one_may_be_a_repeat():
    rec = Recurrence.from_str("daily@09:00")
    nxt = next_occurrence(rec, DUE, DUE, "Europe/Paris")
    got = delivery_text("take vitamins", DUE, DUE, "Europe/Paris", 60, repeats=rec, next_due=nxt, maybe_repeat=True)
    assert got.text == (
        "⏰ Reminder: “take vitamins”\n"
        "Repeats every day at 09:00; next: Tuesday 3 March 2026 at 09:00 (Europe/Paris).\n"
        "(I was interrupted while sending this earlier, so you may have seen it already.)"
    )


@pytest.mark.parametrize(
    "rec, now, expected",
    [
        # on time: the next one
        ("daily@09:00", DUE, datetime(2026, 3, 3, 8, 0, tzinfo=UTC)),
        # down for three days: no burst of catch-ups, the next future one
        ("daily@09:00", DUE + timedelta(days=3, hours=2), datetime(2026, 3, 6, 8, 0, tzinfo=UTC)),
        ("weekly:FR@17:30", DUE, datetime(2026, 3, 6, 16, 30, tzinfo=UTC)),
        # intervals keep their phase
        ("every:3600s", DUE + timedelta(hours=2, minutes=10), DUE + timedelta(hours=3)),
        # across the spring change in Paris (29 March 2026): still 09:00 local
        ("daily@09:00", datetime(2026, 3, 28, 8, 0, tzinfo=UTC), datetime(2026, 3, 29, 7, 0, tzinfo=UTC)),
    ],
)
def test_next_occurrence(rec, now, expected):
    due = DUE if now - DUE < timedelta(days=20) else now
    assert next_occurrence(Recurrence.from_str(rec), due, now, "Europe/Paris") == expected


@pytest.mark.parametrize(
    "has_sender, chat, expected",
    [
        (True, ("telegram", "-100", "42"), True),
        (False, ("telegram", "-100", "42"), False),
        (True, ("console", "local", "local"), True),
        (True, ("console", "someone-else", "someone-else"), False),  # the terminal prints for one person
        (False, ("console", "local", "local"), False),
    ],
)
def test_where_this_process_may_push(has_sender, chat, expected):
    from bot.events import ChatRef
    from scheduler.delivery import sendable_here

    assert sendable_here(has_sender, ChatRef(*chat), "local") is expected
