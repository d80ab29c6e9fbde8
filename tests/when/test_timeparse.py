"""Reminder times: parsing, recurrence arithmetic across DST, rendering and time zones.

Expected instants are written either as literal UTC (for the DST cases, worked out by hand from
the published transition times) or as local wall-clock times converted with zoneinfo (for the
tables that run in several zones, where the point is the reading, not the conversion).
"""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.when.grammar import MIN_INTERVAL_SECONDS, ParseProblem, ReminderRequest, parse_remind_me, parse_reminder, reminder_text
from bot.when.recurrence import Recurrence
from bot.when.zones import format_delay, format_local, is_valid_timezone, resolve_timezone

UTC = timezone.utc
ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata"]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def local(tz: str, *args: int) -> datetime:
    """A wall-clock time in `tz`, as aware UTC."""
    return datetime(*args, tzinfo=ZoneInfo(tz)).astimezone(UTC)


def ok(result: ReminderRequest | ParseProblem) -> ReminderRequest:
    assert isinstance(result, ReminderRequest), result
    return result


def problem(result: ReminderRequest | ParseProblem) -> ParseProblem:
    assert isinstance(result, ParseProblem), result
    return result


# ---------------------------------------------------------------------------------------------
# One-off reminders, read the same way in every zone.
# "now" is Wednesday 10 June 2026, 10:00 local; no clock change is near.
# ---------------------------------------------------------------------------------------------

NOW_LOCAL = (2026, 6, 10, 10, 0)

# text, expected what, expected local due (y, m, d, h, min)
ONE_OFF = [
    ("tomorrow at 9 call mom", "call mom", (2026, 6, 11, 9, 0)),
    ("tomorrow at 9am to call mom", "call mom", (2026, 6, 11, 9, 0)),
    ("Tomorrow at 9 a.m. to call mom", "call mom", (2026, 6, 11, 9, 0)),
    ("tomorrow at 9 pm call mom", "call mom", (2026, 6, 11, 21, 0)),
    ("tomorrow 9:15pm call mom", "call mom", (2026, 6, 11, 21, 15)),
    ("at 18:30 take pills", "take pills", (2026, 6, 10, 18, 30)),
    ("18h30 take pills", "take pills", (2026, 6, 10, 18, 30)),
    ("at 8:30 take pills", "take pills", (2026, 6, 11, 8, 30)),  # passed today: tomorrow
    ("at 10 take pills", "take pills", (2026, 6, 11, 10, 0)),  # exactly now: tomorrow
    ("at noon lunch", "lunch", (2026, 6, 10, 12, 0)),
    ("at midnight lock the door", "lock the door", (2026, 6, 11, 0, 0)),
    ("tonight at midnight lock the door", "lock the door", (2026, 6, 11, 0, 0)),
    ("half past 9 x", "x", (2026, 6, 11, 9, 30)),
    ("quarter to 11 x", "x", (2026, 6, 10, 10, 45)),
    ("quarter to 1pm x", "x", (2026, 6, 10, 12, 45)),
    ("quarter to 8 in the evening x", "x", (2026, 6, 10, 19, 45)),
    ("at a quarter past 7pm x", "x", (2026, 6, 10, 19, 15)),
    ("at 7 o'clock x", "x", (2026, 6, 11, 7, 0)),
    ("next Monday 18:00 team sync", "team sync", (2026, 6, 15, 18, 0)),
    ("on Friday at 17:30 submit the report", "submit the report", (2026, 6, 12, 17, 30)),
    ("on Friday at 9 Monday meeting prep", "Monday meeting prep", (2026, 6, 12, 9, 0)),
    ("Friday at 5pm submit the report", "submit the report", (2026, 6, 12, 17, 0)),
    ("on fri at 5pm submit the report", "submit the report", (2026, 6, 12, 17, 0)),
    ("on Wednesday at 17:30 x", "x", (2026, 6, 10, 17, 30)),  # today, still ahead
    ("on Wednesday at 9 x", "x", (2026, 6, 17, 9, 0)),  # today but passed: next week
    ("next Wednesday at 17:30 x", "x", (2026, 6, 17, 17, 30)),  # "next" is never today
    ("on 3 March at 10 dentist", "dentist", (2027, 3, 3, 10, 0)),  # no year: next one ahead
    ("on March 3rd at 10am dentist", "dentist", (2027, 3, 3, 10, 0)),
    ("on the 3rd of July at 10 dentist", "dentist", (2026, 7, 3, 10, 0)),
    ("on 10 June at 11 dentist", "dentist", (2026, 6, 10, 11, 0)),  # today, still ahead
    ("on 10 June at 9 dentist", "dentist", (2027, 6, 10, 9, 0)),  # today, passed: next year
    ("on 3 March 2027 at 10 dentist", "dentist", (2027, 3, 3, 10, 0)),
    ("2026-12-24 18:00 call grandma", "call grandma", (2026, 12, 24, 18, 0)),
    ("on 2026-12-24 at 6pm call grandma", "call grandma", (2026, 12, 24, 18, 0)),
    ("24.12.2026 18:00 call grandma", "call grandma", (2026, 12, 24, 18, 0)),
    ("on 24.12 at 18:00 call grandma", "call grandma", (2026, 12, 24, 18, 0)),
    ("on 24/12 at 18:00 call grandma", "call grandma", (2026, 12, 24, 18, 0)),
    ("on 12/24 at 18:00 call grandma", "call grandma", (2026, 12, 24, 18, 0)),
    ("on the 3rd at 9 x", "x", (2026, 7, 3, 9, 0)),  # 3 June has passed
    ("on the 15th at 9 x", "x", (2026, 6, 15, 9, 0)),
    ("tonight at 9 x", "x", (2026, 6, 10, 21, 0)),
    ("tonight at 1 x", "x", (2026, 6, 11, 1, 0)),  # after midnight
    ("this evening at 7 x", "x", (2026, 6, 10, 19, 0)),
    ("tomorrow morning at 7:15 x", "x", (2026, 6, 11, 7, 15)),
    ("tomorrow evening at 7 x", "x", (2026, 6, 11, 19, 0)),
    ("at 7 in the evening x", "x", (2026, 6, 10, 19, 0)),
    ("the day after tomorrow at 5pm x", "x", (2026, 6, 12, 17, 0)),
    ("in 3 days at 9 x", "x", (2026, 6, 13, 9, 0)),
    ("in 2 weeks x", "x", (2026, 6, 24, 10, 0)),  # calendar step keeps the wall clock
    ("in 1 month x", "x", (2026, 7, 10, 10, 0)),
    # the time phrase at the end, or split around the task
    ("call mom tomorrow at 9", "call mom", (2026, 6, 11, 9, 0)),
    ("call mom on Friday at 17:30.", "call mom", (2026, 6, 12, 17, 30)),
    ("tomorrow call mom at 9", "call mom", (2026, 6, 11, 9, 0)),
    ("tomorrow to call mom at 9", "call mom", (2026, 6, 11, 9, 0)),
    ("take 2 pills at 8pm", "take 2 pills", (2026, 6, 10, 20, 0)),
    ("at 9 tomorrow: call mom", "call mom", (2026, 6, 11, 9, 0)),
    ("tomorrow at 9 about the dentist", "the dentist", (2026, 6, 11, 9, 0)),
]


@pytest.mark.parametrize("tz", ZONES)
@pytest.mark.parametrize(("text", "what", "due"), ONE_OFF)
def test_one_off_times(tz: str, text: str, what: str, due: tuple[int, ...]) -> None:
    now = local(tz, *NOW_LOCAL)
    got = ok(parse_reminder(text, tz, now))
    assert got.what == what
    assert got.due_utc == local(tz, *due)
    assert got.due_utc.tzinfo is not None and got.due_utc.utcoffset() == timedelta(0)
    assert got.recurrence is None
    assert got.tz == tz
    assert format_local(got.due_utc, tz) in got.understood


# text, expected what, seconds after now
RELATIVE = [
    ("in 30 seconds to stretch", "stretch", 30),
    ("in 10 minutes to stretch", "stretch", 600),
    ("in 10 min stretch", "stretch", 600),
    ("in 10m stretch", "stretch", 600),
    ("in 2 hours call mom", "call mom", 7200),
    ("in an hour call mom", "call mom", 3600),
    ("in half an hour call mom", "call mom", 1800),
    ("in 1.5 hours call mom", "call mom", 5400),
    ("in an hour and a half call mom", "call mom", 5400),
    ("in 2 hours and 30 minutes call mom", "call mom", 9000),
    ("in 2h30m call mom", "call mom", 9000),
    ("in 90 minutes call mom", "call mom", 5400),
    ("20 minutes from now tea", "tea", 1200),
    ("stretch in 10 minutes", "stretch", 600),
    ("in five minutes tea", "tea", 300),
]


@pytest.mark.parametrize("tz", ZONES)
@pytest.mark.parametrize(("text", "what", "seconds"), RELATIVE)
def test_relative_times_are_elapsed(tz: str, text: str, what: str, seconds: int) -> None:
    now = local(tz, *NOW_LOCAL) + timedelta(seconds=17)  # not on a whole minute
    got = ok(parse_reminder(text, tz, now))
    assert (got.what, got.due_utc) == (what, now + timedelta(seconds=seconds))
    assert got.understood.endswith(format_local(got.due_utc, tz))


def test_naive_now_is_utc_and_results_are_aware_utc() -> None:
    got = ok(parse_reminder("in 10 minutes to stretch", "Asia/Kolkata", datetime(2026, 6, 10, 4, 30)))
    assert got.due_utc == utc(2026, 6, 10, 4, 40)
    aware_now = datetime(2026, 6, 10, 10, 0, tzinfo=ZoneInfo("Asia/Kolkata"))  # = 04:30 UTC
    assert ok(parse_reminder("in 10 minutes to stretch", "Asia/Kolkata", aware_now)).due_utc \
        == got.due_utc


def test_understood_is_the_exact_local_time() -> None:
    now = local("Europe/Paris", 2026, 11, 29, 10, 0)
    got = ok(parse_reminder("tomorrow at 9 call mom", "Europe/Paris", now))
    assert got.understood == "Monday 30 November 2026 at 09:00 (Europe/Paris)"
    assert got.due_utc == utc(2026, 11, 30, 8, 0)


def test_a_passed_bare_time_says_it_means_tomorrow() -> None:
    now = local("America/New_York", *NOW_LOCAL)
    got = ok(parse_reminder("at 8:30 take pills", "America/New_York", now))
    assert got.understood == ("Thursday 11 June 2026 at 08:30 (America/New_York) — tomorrow, "
                              "as 08:30 has already passed today")


# ---------------------------------------------------------------------------------------------
# Recurring reminders: the first occurrence and the stored rule.
# ---------------------------------------------------------------------------------------------

# text, what, stored rule, first local due (y, m, d, h, min) or None for "interval from now"
RECURRING = [
    ("every day at 8 take vitamins", "take vitamins", "daily@08:00", (2026, 6, 11, 8, 0)),
    ("every day at 18:00 take vitamins", "take vitamins", "daily@18:00", (2026, 6, 10, 18, 0)),
    ("daily at 8pm take vitamins", "take vitamins", "daily@20:00", (2026, 6, 10, 20, 0)),
    ("every evening at 7 walk", "walk", "daily@19:00", (2026, 6, 10, 19, 0)),
    ("take vitamins every day at 8", "take vitamins", "daily@08:00", (2026, 6, 11, 8, 0)),
    ("every Friday at 17:30 weekly report", "weekly report", "weekly:FR@17:30",
     (2026, 6, 12, 17, 30)),
    ("every weekday at 9 standup", "standup", "weekdays@09:00", (2026, 6, 11, 9, 0)),
    ("on weekdays at 9 standup", "standup", "weekdays@09:00", (2026, 6, 11, 9, 0)),
    ("every Monday and Thursday at 7 gym", "gym", "weekly:MO,TH@07:00", (2026, 6, 11, 7, 0)),
    ("on Mondays and Thursdays at 7 gym", "gym", "weekly:MO,TH@07:00", (2026, 6, 11, 7, 0)),
    ("every Mon, Wed and Fri at 7 gym", "gym", "weekly:MO,WE,FR@07:00", (2026, 6, 12, 7, 0)),
    ("every weekend at 10 pancakes", "pancakes", "weekly:SA,SU@10:00", (2026, 6, 13, 10, 0)),
    ("every month on the 1st at 9 pay rent", "pay rent", "monthly:1@09:00", (2026, 7, 1, 9, 0)),
    ("on the 15th of every month at 9 pay rent", "pay rent", "monthly:15@09:00",
     (2026, 6, 15, 9, 0)),
    ("every other day at 9 water the plants", "water the plants", "every:2d@09:00",
     (2026, 6, 11, 9, 0)),
    ("every 2 weeks at 10:30 clean", "clean", "every:14d@10:30", (2026, 6, 10, 10, 30)),
    ("every 2 hours drink water", "drink water", "every:7200s", None),
    ("every 30 minutes stretch", "stretch", "every:1800s", None),
    ("every hour stretch", "stretch", "every:3600s", None),
    ("hourly stretch", "stretch", "every:3600s", None),
]


@pytest.mark.parametrize("tz", ZONES)
@pytest.mark.parametrize(("text", "what", "rule", "first"), RECURRING)
def test_recurring(tz: str, text: str, what: str, rule: str,
                   first: tuple[int, ...] | None) -> None:
    now = local(tz, *NOW_LOCAL)
    got = ok(parse_reminder(text, tz, now))
    assert got.what == what
    assert got.recurrence is not None and got.recurrence.to_str() == rule
    if first is None:
        assert got.due_utc == now + timedelta(seconds=got.recurrence.seconds or 0)
    else:
        assert got.due_utc == local(tz, *first)
    assert got.understood.startswith(got.recurrence.describe() + ", starting ")
    assert format_local(got.due_utc, tz) in got.understood


# ---------------------------------------------------------------------------------------------
# Questions back to the person instead of a guess.
# ---------------------------------------------------------------------------------------------

# text, words the question must contain
PROBLEMS = [
    ("", "What should I remind you about"),
    ("   ", "What should I remind you about"),
    ("blah blah", "When should I remind you"),
    ("call mom", "When should I remind you"),
    ("next blursday at noonish x", "When should I remind you"),
    ("today at 9 call mom", "already passed — did you mean tomorrow?"),
    ("2020-01-01 10:00 call mom", "already passed"),
    ("on 3 March 2026 at 10 dentist", "already passed"),
    ("2199-01-01 10:00 call mom", "too far"),
    ("on 1 January 2085 at 9 call mom", "more than 50 years"),
    ("in 10 minutes", "What should I remind you about"),
    ("tomorrow at 9", "What should I remind you about"),
    ("tomorrow at 9 to", "What should I remind you about"),
    ("every day at 8", "What should I remind you about"),
    ("tomorrow call mom", "What time tomorrow"),
    ("on Friday call mom", "What time on Friday"),
    ("every day take vitamins", "At what time every day"),
    ("every Friday take vitamins", "At what time every Friday"),
    ("every 30 seconds drink", "too often"),
    ("every minute drink", "too often"),
    ("every 2 hours at 9 drink", "can't start"),
    ("every week at 9 gym", "How should"),
    ("at 25:00 x", "isn't a time of day"),
    ("at 13pm x", "isn't a time of day"),
    ("at 9:75 x", "isn't a time of day"),
    ("on 3/4 at 9 x", "3rd of April or the 4th of March"),
    ("on 30 February at 9 x", "There is no 30 February"),
    ("2026-02-30 09:00 x", "There is no 30 February 2026"),
    ("tomorrow at 9 at 10 call mom", "two different times"),
    ("in 2 hours at 9 call mom", "two different times"),
    ("tomorrow at midnight call mom", "Midnight at the start or at the end"),
    ("in 0 minutes call mom", "right now"),
    ("in 1.5 months call mom", "whole months"),
    ("9999-12-31 23:59 call mom", "too far"),
    ("on 1 January 0001 at 00:30 call mom", "too far"),
    ("in 99999 years call mom", "more than 50 years"),
    ("in 99999999999999999999 days call mom", "more than 50 years"),
    ("every 99999 days at 9 call mom", "too long an interval"),
    ("every 99999 hours call mom", "too long an interval"),
]


@pytest.mark.parametrize("tz", ZONES)
@pytest.mark.parametrize(("text", "words"), PROBLEMS)
def test_problems_are_questions(tz: str, text: str, words: str) -> None:
    now = local(tz, *NOW_LOCAL)
    assert words in problem(parse_reminder(text, tz, now)).message


def test_unknown_zone_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        parse_reminder("in 10 minutes x", "Mars/Olympus_Mons", utc(2026, 1, 1))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_any_text_gets_a_request_or_a_question(text: str) -> None:
    now = utc(2026, 6, 10, 8, 0)
    result = parse_reminder(text, "Europe/Paris", now)
    assert isinstance(result, (ReminderRequest, ParseProblem))
    if isinstance(result, ReminderRequest):
        assert result.due_utc > now
        assert result.what.strip()


_FUZZ_WORDS = [
    "in", "at", "every", "on", "tomorrow", "today", "tonight", "9", "0", "12", "99999999999",
    "days", "hours", "minutes", "weeks", "months", "years", "March", "Feb", "2026-02-30",
    "0001-01-01", "9999-12-31", "31.12.9999", "23:59", "pm", "am", "the", "31st", "29th", "of",
    "month", "and", "call", "next", "Friday", "Fridays", "weekday", "other", "day", "half", "an",
    "hour", "quarter", "to", "past", "midnight", "noon", "evening", "night", "1.5", "9.30",
    "12/13", "13/12",
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(_FUZZ_WORDS), max_size=9).map(" ".join),
    st.sampled_from(ZONES + ["Pacific/Kiritimati", "Pacific/Pago_Pago"]),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2090, 1, 1)),
)
def test_time_words_in_any_order_never_crash(text: str, tz: str, now: datetime) -> None:
    result = parse_reminder(text, tz, now)
    assert isinstance(result, (ReminderRequest, ParseProblem))
    if isinstance(result, ReminderRequest):
        assert result.due_utc > now.replace(tzinfo=UTC)
    parse_remind_me("remind me " + text)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(ZONES),
    st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 12, 31)),
    st.integers(0, 23),
    st.integers(0, 59),
)
def test_bare_time_is_the_next_such_wall_clock_time(tz: str, now: datetime, hour: int,
                                                    minute: int) -> None:
    now = now.replace(tzinfo=UTC)
    got = ok(parse_reminder(f"at {hour:02d}:{minute:02d} x", tz, now))
    assert now < got.due_utc <= now + timedelta(hours=25)


# ---------------------------------------------------------------------------------------------
# Daylight saving time.
# Europe/Paris: +01:00 -> +02:00 at 01:00 UTC on 29 March 2026, back at 01:00 UTC on 25 October.
# America/New_York: -05:00 -> -04:00 at 07:00 UTC on 8 March 2026, back at 06:00 UTC on 1 Nov.
# ---------------------------------------------------------------------------------------------

PARIS_BEFORE_SPRING = utc(2026, 3, 28, 9, 0)  # Saturday 10:00 CET


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("tomorrow at 9 call mom", utc(2026, 3, 29, 7, 0)),  # 09:00 CEST
        ("at 9 call mom", utc(2026, 3, 29, 7, 0)),  # passed today: tomorrow, in summer time
        ("in 1 day call mom", utc(2026, 3, 29, 8, 0)),  # 10:00 local again, 23 hours later
        ("in 24 hours call mom", utc(2026, 3, 29, 9, 0)),  # elapsed: 11:00 local
        ("in 2 hours call mom", utc(2026, 3, 28, 11, 0)),
        ("tomorrow at 1:30 call mom", utc(2026, 3, 29, 0, 30)),  # still CET
        ("tomorrow at 2:30 call mom", utc(2026, 3, 29, 1, 30)),  # skipped: 03:30 CEST
        ("tomorrow at 3:30 call mom", utc(2026, 3, 29, 1, 30)),  # 03:30 CEST
    ],
)
def test_paris_spring_forward_one_off(text: str, due: datetime) -> None:
    assert ok(parse_reminder(text, "Europe/Paris", PARIS_BEFORE_SPRING)).due_utc == due


def test_a_skipped_local_time_is_explained() -> None:
    got = ok(parse_reminder("tomorrow at 2:30 call mom", "Europe/Paris", PARIS_BEFORE_SPRING))
    assert "03:30" in got.understood and "clocks go forward" in got.understood


def test_a_repeated_local_time_is_explained() -> None:
    now = utc(2026, 10, 24, 8, 0)  # Saturday 10:00 CEST
    got = ok(parse_reminder("tomorrow at 2:30 call mom", "Europe/Paris", now))
    assert got.due_utc == utc(2026, 10, 25, 0, 30)  # the first 02:30, still CEST
    assert "happens twice" in got.understood


def test_new_york_spring_forward_one_off() -> None:
    now = utc(2026, 3, 7, 15, 0)  # Saturday 10:00 EST
    assert ok(parse_reminder("tomorrow at 9 x", "America/New_York", now)).due_utc \
        == utc(2026, 3, 8, 13, 0)  # 09:00 EDT
    assert ok(parse_reminder("tomorrow at 2:30 x", "America/New_York", now)).due_utc \
        == utc(2026, 3, 8, 7, 30)  # 02:30 is skipped: 03:30 EDT


def _chain(rule: str, tz: str, after: datetime, n: int) -> list[datetime]:
    rec = Recurrence.from_str(rule)
    out = []
    for _ in range(n):
        after = rec.next_after(after, tz)
        out.append(after)
    return out


@pytest.mark.parametrize(
    ("rule", "tz", "start", "expected"),
    [
        # every day at 8 stays 08:00 local across both Paris changes
        ("daily@08:00", "Europe/Paris", utc(2026, 3, 27, 12, 0),
         [utc(2026, 3, 28, 7, 0), utc(2026, 3, 29, 6, 0), utc(2026, 3, 30, 6, 0)]),
        ("daily@08:00", "Europe/Paris", utc(2026, 10, 23, 12, 0),
         [utc(2026, 10, 24, 6, 0), utc(2026, 10, 25, 7, 0), utc(2026, 10, 26, 7, 0)]),
        # and across New York's
        ("daily@08:00", "America/New_York", utc(2026, 3, 6, 20, 0),
         [utc(2026, 3, 7, 13, 0), utc(2026, 3, 8, 12, 0), utc(2026, 3, 9, 12, 0)]),
        ("daily@08:00", "America/New_York", utc(2026, 10, 30, 20, 0),
         [utc(2026, 10, 31, 12, 0), utc(2026, 11, 1, 13, 0), utc(2026, 11, 2, 13, 0)]),
        # 02:30 does not exist on 29 March in Paris: that day it fires at 03:30 CEST
        ("daily@02:30", "Europe/Paris", utc(2026, 3, 27, 12, 0),
         [utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 30), utc(2026, 3, 30, 0, 30)]),
        # 02:30 happens twice on 25 October in Paris: it fires once, at the first
        ("daily@02:30", "Europe/Paris", utc(2026, 10, 23, 12, 0),
         [utc(2026, 10, 24, 0, 30), utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 1, 30)]),
        # the same in New York, where the changes happen at 02:00 local
        ("daily@02:30", "America/New_York", utc(2026, 3, 7, 0, 0),
         [utc(2026, 3, 7, 7, 30), utc(2026, 3, 8, 7, 30), utc(2026, 3, 9, 6, 30)]),
        ("daily@01:30", "America/New_York", utc(2026, 10, 31, 0, 0),
         [utc(2026, 10, 31, 5, 30), utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30)]),
        # no DST in Kolkata: +05:30 all year
        ("daily@08:00", "Asia/Kolkata", utc(2026, 3, 27, 12, 0),
         [utc(2026, 3, 28, 2, 30), utc(2026, 3, 29, 2, 30), utc(2026, 3, 30, 2, 30)]),
        # weekly and weekdays keep local time too
        ("weekly:SU@10:00", "Europe/Paris", utc(2026, 3, 20, 0, 0),
         [utc(2026, 3, 22, 9, 0), utc(2026, 3, 29, 8, 0), utc(2026, 4, 5, 8, 0)]),
        ("weekdays@09:00", "America/New_York", utc(2026, 3, 5, 20, 0),  # Thursday evening
         [utc(2026, 3, 6, 14, 0), utc(2026, 3, 9, 13, 0), utc(2026, 3, 10, 13, 0)]),
        ("weekly:MO,TH@07:00", "UTC", utc(2026, 6, 10, 10, 0),
         [utc(2026, 6, 11, 7, 0), utc(2026, 6, 15, 7, 0), utc(2026, 6, 18, 7, 0)]),
        # the 31st is the last day of shorter months
        ("monthly:31@09:00", "UTC", utc(2026, 4, 1, 0, 0),
         [utc(2026, 4, 30, 9, 0), utc(2026, 5, 31, 9, 0), utc(2026, 6, 30, 9, 0)]),
        ("monthly:30@09:00", "UTC", utc(2027, 1, 31, 0, 0),
         [utc(2027, 2, 28, 9, 0), utc(2027, 3, 30, 9, 0), utc(2027, 4, 30, 9, 0)]),
        ("monthly:1@09:00", "Europe/Paris", utc(2026, 2, 15, 0, 0),
         [utc(2026, 3, 1, 8, 0), utc(2026, 4, 1, 7, 0), utc(2026, 5, 1, 7, 0)]),
        # every N days keeps the wall clock; every N seconds is elapsed time
        ("every:7d@09:00", "Europe/Paris", utc(2026, 3, 26, 8, 0),
         [utc(2026, 4, 2, 7, 0), utc(2026, 4, 9, 7, 0), utc(2026, 4, 16, 7, 0)]),
        ("every:7200s", "Europe/Paris", utc(2026, 3, 28, 23, 0),
         [utc(2026, 3, 29, 1, 0), utc(2026, 3, 29, 3, 0), utc(2026, 3, 29, 5, 0)]),
    ],
)
def test_next_after(rule: str, tz: str, start: datetime, expected: list[datetime]) -> None:
    assert _chain(rule, tz, start, len(expected)) == expected


def test_next_after_accepts_naive_utc_from_the_database() -> None:
    rec = Recurrence.from_str("daily@08:00")
    assert rec.next_after(datetime(2026, 3, 28, 7, 0), "Europe/Paris") == utc(2026, 3, 29, 6, 0)


def test_every_day_at_8_first_due_across_the_paris_change() -> None:
    got = ok(parse_reminder("every day at 8 take vitamins", "Europe/Paris", PARIS_BEFORE_SPRING))
    assert got.due_utc == utc(2026, 3, 29, 6, 0)
    assert got.recurrence is not None
    assert got.recurrence.next_after(got.due_utc, "Europe/Paris") == utc(2026, 3, 30, 6, 0)


_CALENDAR_RULES = st.one_of(
    st.builds(lambda t: Recurrence("daily", t), st.times().map(lambda t: t.replace(second=0, microsecond=0))),
    st.builds(lambda t: Recurrence("weekdays", t), st.times().map(lambda t: t.replace(second=0, microsecond=0))),
    st.builds(lambda t, d: Recurrence("weekly", t, weekdays=tuple(d)),
              st.times().map(lambda t: t.replace(second=0, microsecond=0)),
              st.sets(st.integers(0, 6), min_size=1)),
    st.builds(lambda t, d: Recurrence("monthly", t, day_of_month=d),
              st.times().map(lambda t: t.replace(second=0, microsecond=0)), st.integers(1, 31)),
)


@settings(max_examples=300, deadline=None)
@given(_CALENDAR_RULES, st.sampled_from(ZONES),
       st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 12, 31)))
def test_calendar_rules_fire_once_a_day_at_their_wall_clock(rec: Recurrence, tz: str,
                                                            after: datetime) -> None:
    zone = ZoneInfo(tz)
    after = after.replace(tzinfo=UTC)
    first = rec.next_after(after, tz)
    second = rec.next_after(first, tz)
    assert after < first < second
    # once per local day, never twice (the repeated autumn hour)
    assert first.astimezone(zone).date() < second.astimezone(zone).date()
    # nothing is skipped: one second before the occurrence finds the same occurrence
    assert rec.next_after(first - timedelta(seconds=1), tz) == first
    # the wall clock is the rule's, except inside a spring-forward gap, where it is later
    assert rec.at is not None
    wall = first.astimezone(zone)
    wanted = datetime.combine(wall.date(), rec.at)
    shown = wall.replace(tzinfo=None)
    assert shown == wanted or timedelta(0) < shown - wanted <= timedelta(hours=1)


# ---------------------------------------------------------------------------------------------
# Recurrence storage and words.
# ---------------------------------------------------------------------------------------------

_TIMES = st.builds(time, st.integers(0, 23), st.integers(0, 59))
_ANY_RULE = st.one_of(
    st.builds(lambda t: Recurrence("daily", t), _TIMES),
    st.builds(lambda t: Recurrence("weekdays", t), _TIMES),
    st.builds(lambda t, d: Recurrence("weekly", t, weekdays=tuple(d)), _TIMES,
              st.lists(st.integers(0, 6), min_size=1, max_size=7)),
    st.builds(lambda t, d: Recurrence("monthly", t, day_of_month=d), _TIMES, st.integers(1, 31)),
    st.builds(lambda s: Recurrence("interval", seconds=s), st.integers(1, 10**8)),
    st.builds(lambda t, n: Recurrence("days", t, days=n), _TIMES, st.integers(1, 3650)),
)


@given(_ANY_RULE)
def test_recurrence_round_trips_through_the_database_form(rec: Recurrence) -> None:
    stored = rec.to_str()
    assert Recurrence.from_str(stored) == rec
    assert Recurrence.from_str(stored).to_str() == stored


@pytest.mark.parametrize(
    ("stored", "described"),
    [
        ("daily@08:00", "every day at 08:00"),
        ("weekdays@09:00", "every weekday (Monday to Friday) at 09:00"),
        ("weekly:FR@17:30", "every Friday at 17:30"),
        ("weekly:MO,TH@07:00", "every Monday and Thursday at 07:00"),
        ("weekly:MO,WE,FR@07:00", "every Monday, Wednesday and Friday at 07:00"),
        ("weekly:SA,SU@10:00", "every weekend day (Saturday and Sunday) at 10:00"),
        ("monthly:1@09:00", "every month on the 1st at 09:00"),
        ("monthly:22@09:00", "every month on the 22nd at 09:00"),
        ("monthly:31@09:00", "every month on the 31st at 09:00 (the last day in shorter months)"),
        ("every:7200s", "every 2 hours"),
        ("every:3600s", "every hour"),
        ("every:5400s", "every 1 hour 30 minutes"),
        ("every:2d@09:00", "every 2 days at 09:00"),
        ("every:14d@09:00", "every 2 weeks at 09:00"),
        ("every:7d@09:00", "every week at 09:00"),
    ],
)
def test_describe(stored: str, described: str) -> None:
    assert Recurrence.from_str(stored).describe() == described


def test_weekday_order_and_case_of_codes() -> None:
    assert Recurrence.from_str("weekly:TH,MO@07:00").to_str() == "weekly:MO,TH@07:00"


@pytest.mark.parametrize(
    "stored",
    ["", "daily", "hourly", "daily@25:00", "daily@08:60", "daily@8:00", "daily@08:00:00",
     "weekly:@07:00", "weekly:XX@07:00", "weekly:MO,MO@07:00", "weekly:mo@07:00",
     "monthly:0@09:00", "monthly:32@09:00", "monthly:1", "every:0s", "every:10s@09:00",
     "every:2d", "every:-5s", "every:2h", "daily@08:00 extra", "every:999999999999s",
     "every:99999d@09:00"],
)
def test_bad_stored_rules_are_refused(stored: str) -> None:
    with pytest.raises(ValueError):
        Recurrence.from_str(stored)


def test_min_interval_is_sane() -> None:
    assert 60 <= MIN_INTERVAL_SECONDS <= 3600


# ---------------------------------------------------------------------------------------------
# "remind me ..." in ordinary messages.
# ---------------------------------------------------------------------------------------------

REMIND_ME = [
    ("remind me tomorrow at 9 to call mom", ("tomorrow at 9", "call mom")),
    ("Remind me to call mom tomorrow at 9", ("tomorrow at 9", "call mom")),
    ("REMIND ME TO CALL MOM TOMORROW AT 9", ("TOMORROW AT 9", "CALL MOM")),
    ("please remind me in 10 minutes to stretch", ("in 10 minutes", "stretch")),
    ("Can you remind me to call mom at 6pm?", ("at 6pm", "call mom")),
    ("could you please remind me every day at 8 to take vitamins, thanks!",
     ("every day at 8", "take vitamins")),
    ("hey, remind me about the dentist on Friday at 10", ("on Friday at 10", "the dentist")),
    ("remind me tomorrow to call mom at 9", ("tomorrow at 9", "call mom")),
    ("remind me that I have a meeting tomorrow at 3pm", ("tomorrow at 3pm", "I have a meeting")),
    ("don't forget to remind me to water the plants at 7pm", ("at 7pm", "water the plants")),
    ("Remind me: call mom tomorrow at 9", ("tomorrow at 9", "call mom")),
    ("remind me again in 10 minutes", ("in 10 minutes", "")),
    ("remind me to buy milk", ("", "buy milk")),  # a reminder; the time is asked for next
    ("remind me to buy milk please", ("", "buy milk")),
]


@pytest.mark.parametrize(("text", "expected"), REMIND_ME)
def test_remind_me_is_recognised(text: str, expected: tuple[str, str]) -> None:
    assert parse_remind_me(text) == expected


NOT_REMIND_ME = [
    "do you remind me of someone?",
    "you remind me of my brother",
    "Did you remind me to call mom?",
    "remind me what my wife's name is",
    "remind me how to cook rice",
    "remind me who called yesterday",
    "remind me about our trip",  # a question for memory: no time given
    "remind me",
    "remind me later",
    "I forgot to remind me",
    "that song reminds me of summer",
    "remembering to call mom tomorrow at 9",
    "",
]


@pytest.mark.parametrize("text", NOT_REMIND_ME)
def test_not_remind_me(text: str) -> None:
    assert parse_remind_me(text) is None


@pytest.mark.parametrize("tz", ZONES)
def test_remind_me_feeds_parse_reminder(tz: str) -> None:
    now = local(tz, *NOW_LOCAL)
    pair = parse_remind_me("Remind me to do 7 push-ups tomorrow at 9 please")
    assert pair == ("tomorrow at 9", "do 7 push-ups")
    got = ok(parse_reminder(reminder_text(*pair), tz, now))
    assert (got.what, got.due_utc) == ("do 7 push-ups", local(tz, 2026, 6, 11, 9, 0))
    missing = parse_remind_me("remind me to buy milk")
    assert missing is not None
    assert "When should I remind you" in problem(parse_reminder(reminder_text(*missing), tz, now)).message


def test_reminder_text_protects_a_task_that_starts_with_a_number() -> None:
    now = local("UTC", *NOW_LOCAL)
    got = ok(parse_reminder(reminder_text("tomorrow at 9", "7 pm meeting notes"), "UTC", now))
    assert (got.what, got.due_utc) == ("7 pm meeting notes", utc(2026, 6, 11, 9, 0))


# ---------------------------------------------------------------------------------------------
# dateparser as a last resort: only its wall-clock reading, converted by us.
# ---------------------------------------------------------------------------------------------


def test_dateparser_fallback_uses_our_dst_conversion() -> None:
    # dateparser itself attaches +01:00 to 09:00 on 29 March in Paris; the answer is +02:00.
    got = ok(parse_reminder("demain à 9h appeler maman", "Europe/Paris", PARIS_BEFORE_SPRING))
    assert (got.what, got.due_utc) == ("appeler maman", utc(2026, 3, 29, 7, 0))


def test_dateparser_fallback_when_now_equals_the_stated_time() -> None:
    # dateparser reports "no time given" when the base time equals the stated one.
    now = utc(2026, 6, 10, 9, 0)
    got = ok(parse_reminder("demain à 9h appeler maman", "UTC", now))
    assert got.due_utc == utc(2026, 6, 11, 9, 0)


@pytest.mark.parametrize(
    "text",
    [
        "9h appeler maman",  # dateparser: nine hours from now; a French reader: 09:00
        "demain appeler maman",  # a date without a time: asked, not filled in with "now"
        "now call mom",
    ],
)
def test_dateparser_fallback_refuses_readings_it_cannot_stand_behind(text: str) -> None:
    assert "When should I remind you" in problem(
        parse_reminder(text, "Europe/Paris", PARIS_BEFORE_SPRING)).message


# ---------------------------------------------------------------------------------------------
# Rendering.
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instant", "tz", "text"),
    [
        (utc(2026, 11, 30, 8, 0), "Europe/Paris", "Monday 30 November 2026 at 09:00 (Europe/Paris)"),
        (datetime(2026, 11, 30, 8, 0), "Europe/Paris", "Monday 30 November 2026 at 09:00 (Europe/Paris)"),
        (utc(2026, 7, 1, 3, 59), "America/New_York", "Tuesday 30 June 2026 at 23:59 (America/New_York)"),
        (utc(2026, 1, 1, 0, 0), "Asia/Kolkata", "Thursday 1 January 2026 at 05:30 (Asia/Kolkata)"),
        (utc(2026, 3, 29, 1, 0), "Europe/Paris", "Sunday 29 March 2026 at 03:00 (Europe/Paris)"),
        (utc(2026, 3, 29, 0, 59), "Europe/Paris", "Sunday 29 March 2026 at 01:59 (Europe/Paris)"),
        (utc(2026, 12, 24, 18, 0), "UTC", "Thursday 24 December 2026 at 18:00 (UTC)"),
    ],
)
def test_format_local(instant: datetime, tz: str, text: str) -> None:
    assert format_local(instant, tz) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (-5, "on time"),
        (0, "on time"),
        (30, "less than a minute late"),
        (60, "1 minute late"),
        (119, "1 minute late"),
        (45 * 60, "45 minutes late"),
        (3600, "1 hour late"),
        (2 * 3600 + 5 * 60, "2 hours 5 minutes late"),
        (2 * 3600 + 5 * 60 + 59, "2 hours 5 minutes late"),
        (86400 + 3 * 3600 + 7 * 60, "1 day 3 hours late"),
        (3 * 86400 + 7 * 60, "3 days 7 minutes late"),
    ],
)
def test_format_delay(seconds: float, text: str) -> None:
    assert format_delay(seconds) == text


# ---------------------------------------------------------------------------------------------
# Time zones.
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "valid"),
    [("Europe/Paris", True), ("America/New_York", True), ("Asia/Kolkata", True), ("UTC", True),
     ("europe/paris", False), ("Paris", False), ("GMT+2", False), ("Mars/Base", False),
     ("", False), ("localtime", False), ("../etc/passwd", False)],
)
def test_is_valid_timezone(name: str, valid: bool) -> None:
    assert is_valid_timezone(name) is valid


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("Europe/Paris", "Europe/Paris"),
        ("europe/paris", "Europe/Paris"),
        ("  AMERICA/NEW_YORK ", "America/New_York"),
        ("america/new york", "America/New_York"),
        ("UTC", "UTC"),
        ("utc", "UTC"),
        ("GMT", "UTC"),
        ("Paris", "Europe/Paris"),
        ("paris", "Europe/Paris"),
        ("New York", "America/New_York"),
        ("Kolkata", "Asia/Kolkata"),
        ("Tokyo", "Asia/Tokyo"),
        ("São Paulo", "America/Sao_Paulo"),
        ("port au prince", "America/Port-au-Prince"),
        ("Indianapolis", "America/Indiana/Indianapolis"),  # the specific name over the old link
        ("GMT+2", None),  # an offset, not a zone
        ("UTC+5:30", None),
        ("EST", None),  # a fixed offset that is wrong for New York all summer
        ("CET", "CET"),  # issue 16, item 8: Central European Time, with its summer time
        ("cest", "CET"),
        ("EET", "EET"),
        ("Atlantis", None),
        ("", None),
        ("   ", None),
    ],
)
def test_resolve_timezone(text: str, zone: str | None) -> None:
    got = resolve_timezone(text)
    assert got == zone
    if got is not None:
        assert is_valid_timezone(got)


# --- issue 17: limits shared with imports, and long input ----------------------------------


@pytest.mark.parametrize(
    ("stored", "problem"),
    [
        ("every:1s", "more often than every 5 minutes"),
        ("every:299s", "more often than every 5 minutes"),
        ("every:300s", None),
        ("daily@08:00", None),
        ("weekly:MO,TH@07:00", None),
        ("monthly:31@09:00", None),
        ("every:3660d@09:00", None),
        (f"every:{3660 * 86400}s", None),
    ],
)
def test_a_stored_repetition_meets_the_limits_of_remind(stored: str, problem: str | None) -> None:
    from bot.when.grammar import repeat_problem
    from bot.when.recurrence import Recurrence

    got = repeat_problem(Recurrence.from_str(stored))
    assert (got is None) if problem is None else (problem in (got or ""))


def test_a_pathological_20000_character_reminder_is_refused_at_once() -> None:
    """Issue 17 (informational): the grammar took 2.6-3.7 s on 20,000 characters of console input."""
    import time

    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for text in ["remind me " + "a " * 10_000, "in 5 minutes " + "call mom and " * 1600]:
        started = time.perf_counter()
        got = parse_reminder(text, "UTC", now)
        assert time.perf_counter() - started < 0.5
        assert isinstance(got, ParseProblem) and "too long for a reminder" in got.message
    long_ok = "in 5 minutes " + "x" * 1900
    assert isinstance(parse_reminder(long_ok, "UTC", now), ReminderRequest)
