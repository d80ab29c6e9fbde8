"""Reminder times: reading "when" out of what people type, and doing calendar arithmetic.

Why our own grammar first: dateparser is happy to read "in 10 minutes to stretch" as nothing at
all, reads "tomorrow at 9" as tomorrow at the *current* time, and attaches the wrong UTC offset
to wall-clock times on the day clocks change. A reminder that fires an hour off, or at the wrong
day, is worse than a question. So the time expression is cut out of the text with explicit
patterns (start of the text, else the end of it), interpreted here, and turned into UTC with
``zoneinfo``. dateparser is only a last resort for phrasings the patterns do not know (other
languages, for instance), and even then only a fixed wall-clock reading is used (one that does
not move when the base time moves), converted to UTC here.

Conventions (all of them visible to the person through ``ReminderRequest.understood``):

* Everything the person says is in their IANA time zone; every datetime returned is
  timezone-aware UTC. The database stores naive UTC, so callers strip ``tzinfo`` when storing
  (``dt.replace(tzinfo=None)``); every function here also accepts naive datetimes and treats them
  as UTC, so values read back from the database can be passed in directly.
* The current time is always a parameter (``now``); nothing here reads the clock.
* A bare hour is 24-hour ("at 7" is 07:00) unless am/pm or "in the evening"/"tonight" says
  otherwise.
* A bare time already passed today means tomorrow ("at 18:30" said at 19:00), and the
  understood text says so. A time explicitly "today", or a full date with a year, that has
  passed is a question back to the person, never silently moved.
* A weekday name alone ("on Friday") is today if today is that day and the time is still ahead,
  otherwise the next one; "next Friday" is always after today.
* A date without a year ("on 3 March") is the next such date that is still ahead.
* A date without a time of day is a question ("What time on ...?"), not a guessed 09:00.
* Durations in seconds, minutes and hours are elapsed time; days, weeks, months and years are
  calendar steps that keep the wall-clock time (so "in 3 days" at 10:00 is 10:00 three days
  later even if clocks change in between).
* A local time that does not exist (skipped by a spring-forward change) moves forward by the
  length of the gap (02:30 -> 03:30); a local time that happens twice (autumn) is the first
  one, so a daily reminder fires once.
* Words that also occur in tasks are only read as time when they cannot be anything else:
  weekday abbreviations need "on"/"next" ("on fri", not "sun cream"), numeric dates need "on"
  or a year ("on 24.12", not "1.5 litres"), and a slash date that reads both ways (3/4) is
  asked about. Once a complete time has been read, a further weekday or "weekly" starts the
  task ("every Friday at 17:30 weekly report"); a second number ("at 9 at 10") is asked about.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from bot.when.recurrence import MAX_REPEAT_DAYS, Recurrence
from bot.when.vocabulary import MONTH_NAMES, MONTH_NUMBERS, WEEKDAY_NAMES
from bot.when.zones import (
    as_utc,
    duration_words,
    format_local,
    human_date,
    local_to_utc,
    ordinal,
    zone_info,
)

UTC = timezone.utc

#: Shortest repeat interval accepted from people: anything more frequent is noise, not a reminder.
MIN_INTERVAL_SECONDS = 5 * 60
#: One-off reminders further away than this are almost certainly a typo in the year.
MAX_AHEAD = timedelta(days=366 * 50)

EXAMPLES = "'in 10 minutes to stretch', 'tomorrow at 9 call mom' or 'every day at 8 take vitamins'"
#: Longer than any reminder a person types: the grammar scans positions of the text, so bounding
#: it keeps a 20,000-character paste from taking seconds (and nothing longer can be stored).
MAX_REMINDER_INPUT = 2000


def repeat_problem(recurrence: Recurrence) -> str | None:
    """Why a repetition is not one /remind would set, or None if it is. The same limits hold for
    a stored or imported repetition as for a typed one: not more often than every
    `MIN_INTERVAL_SECONDS`, not less often than every `MAX_REPEAT_DAYS` days."""
    if recurrence.kind == "interval":
        seconds = recurrence.seconds or 0
        if seconds < MIN_INTERVAL_SECONDS:
            return f"it repeats more often than every {duration_words(MIN_INTERVAL_SECONDS)}"
        if seconds > MAX_REPEAT_DAYS * 86400:
            return "it repeats less often than once in ten years"
    if recurrence.kind == "days" and (recurrence.days or 0) > MAX_REPEAT_DAYS:
        return "it repeats less often than once in ten years"
    return None


# --------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParseProblem:
    """A question for the person: the reminder was not set, and this says what to fix.

    `asks_time`: the only thing missing is the time of day ("What time tomorrow?"); then
    `when` and `what` hold what was understood, so that the answer ("at 10") can complete it
    (``complete_with_time``)."""

    message: str
    asks_time: bool = False
    when: str = ""
    what: str = ""


@dataclass(frozen=True)
class ReminderRequest:
    """A reminder the person asked for, ready to store.

    ``due_utc`` is aware UTC (strip tzinfo for the database). For a recurring reminder it is
    the first occurrence; later ones come from ``recurrence.next_after``. ``understood`` is the
    exact local reading, shown back so the person can catch a misunderstanding.
    """

    what: str
    due_utc: datetime
    recurrence: Recurrence | None
    tz: str
    understood: str


# --------------------------------------------------------------------------------------------
# The grammar of "when"
# --------------------------------------------------------------------------------------------


def _alt(words: list[str] | tuple[str, ...] | set[str]) -> str:
    """A regex alternation that prefers the longest word ("thursday" before "thu")."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_WD_FULL = {name.lower(): i for i, name in enumerate(WEEKDAY_NAMES)}
_WD_PLURAL = {name + "s": i for name, i in _WD_FULL.items()}
_WD_ABBR = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "weds": 2, "thu": 3, "thur": 3,
            "thurs": 3, "fri": 4, "sat": 5, "sun": 6}
_WD_ANY = {**_WD_FULL, **_WD_PLURAL, **_WD_ABBR}
_MONTHS = MONTH_NUMBERS

_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
    "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60,
    "ninety": 90,
}
_UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600}
_UNIT_WORDS = {
    "s": "second", "sec": "second", "secs": "second", "second": "second", "seconds": "second",
    "m": "minute", "min": "minute", "mins": "minute", "minute": "minute", "minutes": "minute",
    "h": "hour", "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour",
    "d": "day", "day": "day", "days": "day",
    "w": "week", "wk": "week", "wks": "week", "week": "week", "weeks": "week",
    "mo": "month", "mos": "month", "month": "month", "months": "month",
    "y": "year", "yr": "year", "yrs": "year", "year": "year", "years": "year",
}
_LONG_UNITS = _alt([u for u in _UNIT_WORDS if len(u) > 1])

_END = r"(?![\w'’-])"
_AMOUNT = r"\d+(?:[.,]\d+)?|" + _alt(_NUMBER_WORDS)
# A single-letter unit only counts when glued to digits ("10m", "2h30m"), never as a word.
_TERM = (
    rf"(?:half\s+an?\s+(?P<half_unit>hour|minute|day)"
    rf"|(?P<num>{_AMOUNT})(?:\s*(?P<unit>{_LONG_UNITS})|(?<=\d)(?P<short>[smhdwy]))"
    rf"(?P<and_half>\s+and\s+a\s+half)?)(?![a-z])"
)
_TERM_RE = re.compile(_TERM, re.I)
_DURATION = rf"{_TERM}(?:(?:\s*,\s*|\s+and\s+|\s*){_TERM})*"
# Named groups may not repeat in one pattern, so the repeated terms are matched anonymously
# and re-read with _TERM_RE afterwards.
_DURATION_ANON = re.sub(r"\(\?P<\w+>", "(?:", _DURATION)

_DAY = r"(?:3[01]|[12]\d|0?[1-9])"
_ORD = r"(?:st|nd|rd|th)"
_PARTS = r"morning|afternoon|evening|night"
_MONTH_ALT = _alt(_MONTHS)
_WD_FULL_ALT = _alt(_WD_FULL)
_WD_ABBR_ALT = _alt(_WD_ABBR)
_WD_ANY_ALT = _alt(_WD_ANY)
_WD_PLURAL_ALT = _alt(_WD_PLURAL)
_LIST_SEP = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*|\s*/\s*)"


@dataclass(frozen=True)
class _Clock:
    hour: int
    minute: int
    meridiem: str | None  # "am" / "pm" / None
    special: str | None  # "noon" / "midnight" / None
    text: str


@dataclass(frozen=True)
class _Rel:
    months: int
    days: float
    seconds: float
    text: str


@dataclass(frozen=True)
class _RecPattern:
    kind: str  # daily, weekdays, weekly, monthly, interval, days, ask
    weekdays: tuple[int, ...] = ()
    day_of_month: int | None = None
    seconds: float | None = None
    days: int | None = None
    message: str = ""
    text: str = ""


@dataclass
class _Spec:
    """What a run of time words said, before it is checked against the calendar."""

    date: tuple | None = None
    clock: _Clock | None = None
    part: str | None = None
    rel: _Rel | None = None
    rec: _RecPattern | None = None
    pieces: list[str] = field(default_factory=list)
    conflict: tuple[str, str] | None = None
    slot_text: dict[str, str] = field(default_factory=dict)

    def empty(self) -> bool:
        return not self.pieces

    def set(self, slot: str, value: object, text: str) -> None:
        if getattr(self, slot) is not None:
            if self.conflict is None:
                self.conflict = (self.slot_text.get(slot, "?"), text)
            return
        setattr(self, slot, value)
        self.slot_text[slot] = text

    def lacks_clock(self) -> bool:
        """True when a date or calendar repetition was named but no time of day."""
        if self.clock is not None or self.rel is not None:
            return False
        if self.rec is not None:
            return self.rec.kind not in ("interval", "ask")
        return self.date is not None or self.part is not None


def _g(m: re.Match[str], name: str) -> str | None:
    try:
        return m.group(name)
    except IndexError:
        return None


def _apply_time(spec: _Spec, m: re.Match[str]) -> None:
    text = m.group(0)
    low = text.lower()
    if "noon" in low or "midday" in low:
        clock = _Clock(12, 0, None, "noon", text)
    elif "midnight" in low:
        clock = _Clock(0, 0, None, "midnight", text)
    else:
        ap = _g(m, "ap")
        meridiem = None if ap is None else ("am" if ap.lower().startswith("a") else "pm")
        hour, minute = int(m["h"]), int(_g(m, "m") or 0)
        if _g(m, "frac"):
            # "half past 9" is 09:30, "quarter to 10" is 09:45 (of the hour as said).
            minute = 30 if m["frac"].lower() == "half" else 15
            if m["dir"].lower() == "to":
                if minute == 30:  # "half to 10" is not English; Germans mean 09:30, others 10:30
                    spec.set("rec", _RecPattern("ask", text=text, message=(
                        f"Sorry, I'm not sure what time “{text}” is. Could you write it "
                        "like 09:30?")), text)
                    return
                if meridiem and 1 <= hour <= 12:  # settle am/pm on the hour said, then step back
                    hour, meridiem = hour % 12 + (12 if meridiem == "pm" else 0), None
                hour, minute = (hour - 1) % 24, 45
        clock = _Clock(hour, minute, meridiem, None, text)
    spec.set("clock", clock, text)
    if _g(m, "tpart"):
        spec.set("part", m["tpart"].lower(), text)


def _apply_part(spec: _Spec, m: re.Match[str]) -> None:
    spec.set("part", m["part"].lower(), m.group(0))


def _apply_date(spec: _Spec, m: re.Match[str]) -> None:
    text = m.group(0)
    low = text.lower()
    value: tuple
    if _g(m, "iso_y"):
        value = ("ymd", int(m["iso_y"]), int(m["iso_m"]), int(m["iso_d"]), True)
    elif _g(m, "num_a"):
        value = ("numeric", int(m["num_a"]), int(m["num_b"]), m["num_sep"],
                 int(m["num_y"]) if m["num_y"] else None)
    elif _g(m, "mon"):
        year = m["y"]
        value = ("ymd", int(year) if year else None, _MONTHS[m["mon"].lower()], int(m["d"]),
                 bool(year))
    elif _g(m, "dom"):
        value = ("dom", int(m["dom"]))
    elif _g(m, "wd"):
        which = (m["which"] or "").lower()
        value = ("weekday", _WD_ANY[m["wd"].lower()], which.startswith("next"))
    elif "after" in low:
        value = ("plus", 2, "the day after tomorrow")
    elif low.startswith("tom") or low.startswith("tm"):
        value = ("plus", 1, "tomorrow")
    elif "tonight" in low:
        value = ("plus", 0, "tonight")
        spec.set("part", "tonight", text)
    else:
        value = ("plus", 0, "today")
    spec.set("date", value, text)
    if _g(m, "dpart"):
        spec.set("part", m["dpart"].lower(), text)


def _duration_of(text: str) -> tuple[int, float, float] | None:
    """(months, days, seconds) from a duration phrase; None if a fraction of a month/year."""
    months, days, seconds = 0, 0.0, 0.0
    for t in _TERM_RE.finditer(text):
        if t["half_unit"]:
            unit, amount = t["half_unit"].lower(), 0.5
        else:
            raw = t["num"].lower().replace(",", ".")
            amount = _NUMBER_WORDS[raw] if raw in _NUMBER_WORDS else float(raw)
            unit = _UNIT_WORDS[(t["unit"] or t["short"]).lower()]
            if t["and_half"]:
                amount += 0.5
        if unit in ("month", "year"):
            if amount != int(amount):
                return None
            months += int(amount) * (12 if unit == "year" else 1)
        elif unit == "week":
            days += amount * 7
        elif unit == "day":
            days += amount
        else:
            seconds += amount * _UNIT_SECONDS[unit]
    if days != int(days):  # "in 1.5 days" is elapsed time, not a calendar day
        seconds += (days - int(days)) * 86400
        days = float(int(days))
    return months, days, seconds


def _apply_rel(spec: _Spec, m: re.Match[str]) -> None:
    text = m.group(0)
    parsed = _duration_of(m["dur"])
    if parsed is None:
        spec.set("rec", _RecPattern("ask", message=(
            f"I can only count whole months and years (“{text}”). "
            "Could you say it in days or weeks instead?"), text=text), text)
        return
    months, days, seconds = parsed
    spec.set("rel", _Rel(months, days, seconds, text), text)


def _apply_rec(spec: _Spec, m: re.Match[str]) -> None:
    text = m.group(0)
    low = text.lower()
    kind = m.lastgroup
    pattern: _RecPattern
    if kind == "r_daily":
        pattern = _RecPattern("daily", text=text)
        part = re.search(rf"\b({_PARTS})\b", low)
        if part:
            spec.set("part", part.group(1), text)
    elif kind == "r_weekdays":
        pattern = _RecPattern("weekdays", text=text)
    elif kind == "r_weekend":
        pattern = _RecPattern("weekly", weekdays=(5, 6), text=text)
    elif kind == "r_weekly":
        found = re.findall(rf"\b({_WD_ANY_ALT})\b", low)
        pattern = _RecPattern("weekly", weekdays=tuple(sorted({_WD_ANY[w] for w in found})),
                              text=text)
    elif kind == "r_monthly":
        pattern = _RecPattern("monthly", day_of_month=int(re.search(r"\d+", low).group(0)),
                              text=text)
    elif kind == "r_other":
        unit = "day" if "day" in low else "week"
        pattern = _RecPattern("days", days=2 if unit == "day" else 14, text=text)
    elif kind == "r_every":
        pattern = _every_pattern(text)
    else:  # r_ask
        pattern = _RecPattern("ask", text=text, message=(
            f"How should “{text}” repeat? Try for example 'every Monday at 9', "
            "'every month on the 1st at 9' or 'every day at 8'."))
    spec.set("rec", pattern, text)


def _every_pattern(text: str) -> _RecPattern:
    body = re.sub(r"^\s*(?:every|each)\s+", "", text, flags=re.I)
    if body.lower() == "hourly":
        return _RecPattern("interval", seconds=3600.0, text=text)
    if re.fullmatch(r"half\s+(?:an\s+)?hour", body, re.I):
        return _RecPattern("interval", seconds=1800.0, text=text)
    term = _TERM_RE.fullmatch(body)
    if term is None:  # "every hour", "every minute", "every 2nd day" are handled here
        unit = _UNIT_WORDS[re.search(r"[a-z]+$", body, re.I).group(0).lower()]
        amount = 1.0
    else:
        parsed = _duration_of(body)
        if parsed is None or parsed[0]:
            return _RecPattern("ask", text=text, message=(
                f"I can't repeat “{text}” yet. Try 'every month on the 1st at 9' or a number "
                "of days or weeks."))
        months, days, seconds = parsed
        if days and seconds:
            return _RecPattern("ask", text=text, message=(
                f"I can't repeat “{text}”: please give whole days, or hours and minutes."))
        if days:
            return _RecPattern("days", days=int(days), text=text)
        return _RecPattern("interval", seconds=seconds, text=text)
    if unit in _UNIT_SECONDS:
        return _RecPattern("interval", seconds=amount * _UNIT_SECONDS[unit], text=text)
    if unit == "day":
        return _RecPattern("daily", text=text)
    return _RecPattern("ask", text=text, message=(
        f"How should “{text}” repeat? Try for example 'every Monday at 9', "
        "'every month on the 1st at 9' or 'every day at 8'."))


_AP = r"(?P<ap>a\.?\s?m\.?|p\.?\s?m\.?)"
_TPART = rf"(?:\s+in\s+the\s+(?P<tpart>morning|afternoon|evening))?"
_Apply = Callable[[_Spec, "re.Match[str]"], None]
# Each phrase the grammar knows: how it changes the spec, and the pattern (matched at a position,
# the longest match wins; on a tie, the earlier entry).
_COMPONENTS: list[tuple[_Apply, re.Pattern[str]]] = [
    # Times of day. A bare number needs "at" ("at 7"); "18:30", "9pm" and "7 o'clock" don't.
    (_apply_time, re.compile(
        rf"(?:at\s+|@\s*)?(?P<h>\d{{1,2}})(?:[:.h](?P<m>\d{{2}}))?\s*{_AP}(?!\w){_TPART}", re.I)),
    (_apply_time, re.compile(
        rf"(?:at\s+|@\s*)?(?P<h>\d{{1,2}})(?::|h)(?P<m>\d{{2}})(?:\s*h)?{_END}{_TPART}", re.I)),
    (_apply_time, re.compile(
        rf"(?:at|@)\s*(?P<h>\d{{1,2}})\.(?P<m>\d{{2}}){_END}{_TPART}", re.I)),
    (_apply_time, re.compile(
        rf"(?:at|@)\s*(?P<h>\d{{1,2}})(?:\s*o['’]?clock|h)?{_END}{_TPART}", re.I)),
    (_apply_time, re.compile(rf"(?:at\s+)?(?P<h>\d{{1,2}})\s*o['’]?clock{_END}{_TPART}", re.I)),
    (_apply_time, re.compile(
        rf"(?:at\s+)?(?P<frac>half|(?:a\s+)?quarter)\s+(?P<dir>past|after|to)\s+(?P<h>\d{{1,2}})"
        rf"(?:\s*{_AP}(?!\w)|{_END}){_TPART}", re.I)),
    (_apply_time, re.compile(rf"(?:at\s+)?(?:12\s+)?(?:noon|midday){_END}", re.I)),
    (_apply_time, re.compile(rf"(?:at\s+)?midnight{_END}", re.I)),
    # Parts of the day that stand alone unambiguously.
    (_apply_part, re.compile(
        rf"(?:in\s+the\s+|at\s+(?=night))(?P<part>morning|afternoon|evening|night){_END}", re.I)),
    # Dates.
    (_apply_date, re.compile(
        rf"(?:today|tonight|this\s+(?P<dpart>morning|afternoon|evening)){_END}", re.I)),
    (_apply_date, re.compile(
        rf"(?:(?:the\s+)?day\s+after\s+tomorrow|tomorrow|tomorow|tmrw|tmr)"
        rf"(?:\s+(?P<dpart>{_PARTS}))?{_END}", re.I)),
    (_apply_date, re.compile(
        rf"(?:(?:on\s+)?(?P<which>this|next|coming|the\s+coming)\s+|on\s+)?(?P<wd>{_WD_FULL_ALT})"
        rf"(?:\s+(?P<dpart>{_PARTS}))?{_END}", re.I)),
    (_apply_date, re.compile(
        rf"(?:(?:on\s+)?(?P<which>this|next)\s+|on\s+)(?P<wd>{_WD_ABBR_ALT})\.?{_END}", re.I)),
    (_apply_date, re.compile(
        rf"(?:on\s+)?(?:the\s+)?(?P<d>{_DAY}){_ORD}?(?:\s+of)?\s+(?P<mon>{_MONTH_ALT})\.?"
        rf"(?:,?\s+(?P<y>\d{{4}}))?{_END}", re.I)),
    (_apply_date, re.compile(
        rf"(?:on\s+)?(?P<mon>{_MONTH_ALT})\.?\s+(?:the\s+)?(?P<d>{_DAY}){_ORD}?"
        rf"(?:,?\s+(?P<y>\d{{4}}))?{_END}", re.I)),
    (_apply_date, re.compile(
        rf"(?:on\s+)?(?P<iso_y>\d{{4}})[-/](?P<iso_m>\d{{1,2}})[-/](?P<iso_d>\d{{1,2}}){_END}")),
    # Numeric day/month needs "on" or a year, else "1.5 litres" would be the 1st of May.
    (_apply_date, re.compile(
        rf"on\s+(?P<num_a>\d{{1,2}})(?P<num_sep>[./])(?P<num_b>\d{{1,2}})"
        rf"(?:(?P=num_sep)(?P<num_y>\d{{4}}))?{_END}", re.I)),
    (_apply_date, re.compile(
        rf"(?P<num_a>\d{{1,2}})(?P<num_sep>[./])(?P<num_b>\d{{1,2}})(?P=num_sep)(?P<num_y>\d{{4}}){_END}")),
    (_apply_date, re.compile(rf"(?:on\s+)?the\s+(?P<dom>{_DAY}){_ORD}{_END}", re.I)),
    # Durations from now.
    (_apply_rel, re.compile(rf"(?:in|after)\s+(?P<dur>{_DURATION_ANON})(?:\s+from\s+now)?{_END}",
                            re.I)),
    (_apply_rel, re.compile(rf"(?P<dur>{_DURATION_ANON})\s+from\s+now{_END}", re.I)),
    # Repetition.
    (_apply_rec, re.compile(
        r"(?:"
        rf"(?P<r_daily>(?:every|each)\s+(?:single\s+)?(?:day|{_PARTS})|daily|nightly)"
        r"|(?P<r_weekdays>(?:every|each)\s+(?:week\s*day|working\s+day|work\s*day|business\s+day)"
        r"|(?:on\s+)?(?:weekdays|workdays|working\s+days)"
        r"|(?:every\s+|on\s+)?(?:monday|mon)\s*(?:-|–|to|through|thru|till|until)\s*(?:friday|fri))"
        r"|(?P<r_weekend>(?:every|each)\s+weekend|(?:on\s+)?weekends)"
        rf"|(?P<r_weekly>(?:(?:every|each)\s+|weekly\s+on\s+)(?:{_WD_ANY_ALT})\.?"
        rf"(?:{_LIST_SEP}(?:{_WD_ANY_ALT})\.?)*"
        rf"|(?:on\s+)?(?:{_WD_PLURAL_ALT})(?:{_LIST_SEP}(?:{_WD_PLURAL_ALT}))*)"
        rf"|(?P<r_monthly>(?:(?:every|each)\s+month|monthly)\s+on\s+the\s+{_DAY}{_ORD}?"
        rf"|(?:on\s+)?the\s+{_DAY}{_ORD}?(?:\s+day)?\s+of\s+(?:every|each|the)\s+month"
        rf"|(?:every|each)\s+{_DAY}{_ORD}(?:\s+day)?\s+of\s+the\s+month)"
        r"|(?P<r_other>every\s+other\s+(?:day|week))"
        rf"|(?P<r_every>(?:every|each)\s+(?:half\s+(?:an\s+)?hour|{_TERM}"
        rf"|(?:second|sec|minute|min|hour|hr|day)))"
        r"|(?P<r_ask>(?:every|each)\s+(?:week|month|year)|weekly|monthly|yearly|annually)"
        rf"){_END}", re.I)),
    (_apply_rec, re.compile(rf"(?P<r_every>hourly){_END}", re.I)),
]


_SEP_RE = re.compile(r"[\s,]*")


def _scan(text: str, pos: int) -> tuple[_Spec, int]:
    """Read consecutive time phrases from ``pos``; the longest matching phrase wins each step."""
    spec = _Spec()
    end = pos
    while True:
        start = _SEP_RE.match(text, end).end()
        best: tuple[_Apply, re.Match[str]] | None = None
        for apply, regex in _COMPONENTS:
            m = regex.match(text, start)
            if m and m.end() > start and (best is None or m.end() > best[1].end()):
                best = (apply, m)
        if best is None:
            return spec, end
        apply, m = best
        trial = _Spec(spec.date, spec.clock, spec.part, spec.rel, spec.rec, list(spec.pieces),
                      spec.conflict, dict(spec.slot_text))
        apply(trial, m)
        if trial.conflict and not spec.conflict and not re.search(r"\d", m.group(0)):
            # A second weekday or "weekly" after a complete time is where the task begins
            # ("every Friday at 17:30 weekly report"); a second number ("at 9 at 10") is a
            # real contradiction, left for _resolve to ask about.
            return spec, end
        spec = trial
        spec.pieces.append(m.group(0))
        end = m.end()


_WORD_START = re.compile(r"(?<!\S)\S")
_TRAILING_JUNK = re.compile(r"[\s,;:.!?\-–—]*\Z")


def _scan_suffix(text: str) -> tuple[_Spec, int] | None:
    """The longest tail of ``text`` made only of time phrases ("call mom *tomorrow at 9*")."""
    for m in _WORD_START.finditer(text):
        if m.start() == 0:
            continue
        spec, end = _scan(text, m.start())
        if not spec.empty() and _TRAILING_JUNK.match(text, end):
            return spec, m.start()
    return None


_LEAD_JUNK = re.compile(r"^[\s,;:.\-–—]*(?:(?:to|that|about)\b\s*)?", re.I)
_TAIL_JUNK = re.compile(r"[\s,;:\-–—]+$")


def _clean_what(text: str) -> str:
    return _TAIL_JUNK.sub("", _LEAD_JUNK.sub("", text, count=1)).strip()


def _merge_missing(spec: _Spec, extra: _Spec) -> bool:
    """Take a time of day (and part of day) from a trailing phrase when the front lacked it."""
    if extra.conflict or extra.date or extra.rel or extra.rec or extra.clock is None:
        return False
    if extra.part and spec.part:
        return False
    spec.clock = extra.clock
    if extra.part:
        spec.part = extra.part
    spec.pieces.extend(extra.pieces)
    return True


def _split(text: str) -> tuple[_Spec, str, str] | None:
    """Separate WHEN from WHAT: (spec, what, when text), or None when there is no time phrase."""
    spec, end = _scan(text, 0)
    if not spec.empty():
        what = text[end:]
        if spec.lacks_clock():
            tail = _scan_suffix(" " + what)
            if tail is not None:
                extra, cut = tail
                if _merge_missing(spec, extra):
                    what = (" " + what)[:cut]
        return spec, _clean_what(what), " ".join(spec.pieces)
    tail = _scan_suffix(text)
    if tail is None:
        return None
    spec, cut = tail
    return spec, _clean_what(text[:cut]), " ".join(spec.pieces)


# --------------------------------------------------------------------------------------------
# From words to instants
# --------------------------------------------------------------------------------------------


def _hour_minute(clock: _Clock, part: str | None) -> tuple[int, int, int] | ParseProblem:
    """(hour, minute, days to add) for a clock reading, or why it is not a time of day."""
    h, mi = clock.hour, clock.minute
    if clock.special:
        return h, mi, 0
    if mi > 59:
        return ParseProblem(f"“{clock.text}” isn't a time of day. Try something like 18:30.")
    if clock.meridiem:
        if not 1 <= h <= 12:
            return ParseProblem(f"“{clock.text}” isn't a time of day. Try something like 6:30pm.")
        h = h % 12 + (12 if clock.meridiem == "pm" else 0)
        return h, mi, 0
    if h > 23:
        return ParseProblem(f"“{clock.text}” isn't a time of day. Try something like 18:30.")
    if part in ("afternoon", "evening") and 1 <= h <= 11:
        return h + 12, mi, 0
    if part in ("night", "tonight"):
        if 6 <= h <= 11:
            return h + 12, mi, 0
        if h < 5:  # "tonight at 1" is after midnight
            return h, mi, 1
    return h, mi, 0


def _add_months(day: date, months: int) -> date:
    total = day.year * 12 + day.month - 1 + months
    year, month = divmod(total, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _past(due: datetime, tz: str, today_said: bool) -> ParseProblem:
    when = format_local(due, tz)
    if today_said:
        return ParseProblem(f"That time has already passed — did you mean tomorrow? ({when})")
    return ParseProblem(f"That time has already passed ({when}). When should I remind you?")


def _dst_note(day: date, hour: int, minute: int, due: datetime, zone: ZoneInfo) -> str:
    local = due.astimezone(zone)
    wanted = time(hour, minute)
    if (local.hour, local.minute) != (hour, minute):
        return (f" — {wanted:%H:%M} doesn't exist that day because the clocks go forward, "
                f"so {local:%H:%M}")
    naive = datetime.combine(day, wanted)
    if naive.replace(tzinfo=zone, fold=0).utcoffset() != naive.replace(tzinfo=zone, fold=1).utcoffset():
        return (f" — {wanted:%H:%M} happens twice that night because the clocks go back; "
                "this is the first one")
    return ""


def _explicit_date(value: tuple, today: date,
                   still_ahead: Callable[[date], bool]) -> date | ParseProblem:
    """The local date a date phrase names; phrases without a year roll to the next future one.

    ``still_ahead(day)`` says whether the requested time on ``day`` is still in the future, so
    that "on Friday" said on a Friday morning means today and said on Friday evening next week.
    """
    kind = value[0]
    if kind == "plus":
        return today + timedelta(days=value[1])
    if kind == "weekday":
        _, wd, strictly_next = value
        ahead = (wd - today.weekday()) % 7
        if ahead == 0 and (strictly_next or not still_ahead(today)):
            ahead = 7
        return today + timedelta(days=ahead)
    if kind == "numeric":
        _, a, b, sep, year = value
        if sep == ".":
            day_, month = a, b
        elif a > 12 >= b:
            day_, month = a, b
        elif b > 12 >= a:
            day_, month = b, a
        elif a == b:
            day_, month = a, b
        else:
            return ParseProblem(
                f"Is {a}/{b} the {ordinal(a)} of {MONTH_NAMES[b - 1]} or the {ordinal(b)} of "
                f"{MONTH_NAMES[a - 1]}? Please write the month as a word, e.g. '{a} "
                f"{MONTH_NAMES[b - 1]}'.")
        value = ("ymd", year, month, day_, year is not None)
        kind = "ymd"
    if kind == "ymd":
        _, year, month, day_, year_said = value
        if not 1 <= month <= 12:
            return ParseProblem(f"There is no month {month}.")
        if year_said:
            if not 1900 <= year <= today.year + 60:
                return ParseProblem(f"{year} is too far away for a reminder. Did you mistype the "
                                    "year?")
            try:
                return date(year, month, day_)
            except ValueError:
                return ParseProblem(f"There is no {day_} {MONTH_NAMES[month - 1]} {year}.")
        for y in range(today.year, today.year + 9):  # 29 February needs a leap year
            try:
                candidate = date(y, month, day_)
            except ValueError:
                continue
            if candidate > today or (candidate == today and still_ahead(candidate)):
                return candidate
        return ParseProblem(f"There is no {day_} {MONTH_NAMES[month - 1]}.")
    if kind == "dom":
        day_ = value[1]
        first = today.replace(day=1)
        for k in range(0, 13):
            month_start = _add_months(first, k)
            if day_ > calendar.monthrange(month_start.year, month_start.month)[1]:
                continue
            candidate = month_start.replace(day=day_)
            if candidate > today or (candidate == today and still_ahead(candidate)):
                return candidate
        return ParseProblem(f"There is no {ordinal(day_)} in any month.")  # pragma: no cover
    raise ValueError(kind)  # pragma: no cover


def _resolve(spec: _Spec, what: str, now: datetime, tz: str) -> ReminderRequest | ParseProblem:
    zone = zone_info(tz)
    now_local = now.astimezone(zone)
    today = now_local.date()
    if spec.conflict:
        a, b = spec.conflict
        return ParseProblem(f"I see two different times there, “{a}” and “{b}”. Which one did "
                            "you mean?")
    rec = spec.rec
    if rec is not None and rec.kind == "ask":
        return ParseProblem(rec.message)

    hm: tuple[int, int, int] | None = None
    if spec.clock is not None:
        got = _hour_minute(spec.clock, spec.part)
        if isinstance(got, ParseProblem):
            return got
        hm = got

    # --- repeating every few seconds/minutes/hours: starts one interval from now -------------
    if rec is not None and rec.kind == "interval":
        if spec.date or spec.clock or spec.rel:
            return ParseProblem(f"I can't start “{rec.text}” at a particular time yet — say just "
                                f"“{rec.text}” and it starts from now.")
        seconds = int(round(rec.seconds or 0))
        if seconds > MAX_REPEAT_DAYS * 86400:
            return ParseProblem(f"“{rec.text}” is too long an interval for a reminder.")
        if seconds < MIN_INTERVAL_SECONDS:
            return ParseProblem(f"That's too often for a reminder; the most frequent I can do is "
                                f"every {duration_words(MIN_INTERVAL_SECONDS)}.")
        recurrence = Recurrence("interval", seconds=seconds)
        due = now + timedelta(seconds=seconds)
        return _request(what, due, recurrence, tz, f"{recurrence.describe()}, starting "
                        f"{format_local(due, tz)}")

    # --- calendar repetition ----------------------------------------------------------------
    if rec is not None:
        if spec.rel is not None or (spec.date is not None and rec.kind != "days"):
            return ParseProblem(f"I can't combine “{rec.text}” with “"
                                f"{spec.slot_text.get('rel') or spec.slot_text.get('date')}”. "
                                "Try for example 'every Friday at 17:30 ...'.")
        if hm is None:
            return ParseProblem(f"At what time {rec.text}? For example: '{rec.text} at 8 ...'.", asks_time=True)
        hour, minute, shift = hm
        if shift:
            return ParseProblem("For a repeating reminder please give a time between 00:00 and "
                                "23:59, e.g. 'every day at 01:00'.")
        at = time(hour, minute)
        if rec.kind == "days":
            assert rec.days is not None
            if rec.days > MAX_REPEAT_DAYS:
                return ParseProblem(f"“{rec.text}” is too long an interval for a reminder.")
            recurrence = Recurrence("days", at, days=rec.days)
            if spec.date is not None:
                day = _explicit_date(spec.date, today,
                                     lambda d: local_to_utc(d, at, zone) > now)
                if isinstance(day, ParseProblem):
                    return day
            else:
                day = today if local_to_utc(today, at, zone) > now else today + timedelta(days=1)
            due = local_to_utc(day, at, zone)
            if due <= now:
                return _past(due, tz, False)
        else:
            recurrence = Recurrence(
                rec.kind,  # type: ignore[arg-type]
                at,
                weekdays=rec.weekdays if rec.kind == "weekly" else (),
                day_of_month=rec.day_of_month if rec.kind == "monthly" else None,
            )
            due = recurrence.next_after(now, tz)
        note = _dst_note(due.astimezone(zone).date(), hour, minute, due, zone)
        return _request(what, due, recurrence, tz,
                        f"{recurrence.describe()}, starting {format_local(due, tz)}{note}")

    # --- relative: "in 10 minutes", "in 3 days at 9" -------------------------------------
    if spec.rel is not None:
        rel = spec.rel
        if rel.months > 12 * 50 or rel.days > 366 * 50 or rel.seconds > MAX_AHEAD.total_seconds():
            return ParseProblem(f"“{rel.text}” is more than 50 years away. Did you mistype it?")
        if spec.date is not None:
            return ParseProblem(f"I see two different times there, “{rel.text}” and "
                                f"“{spec.slot_text['date']}”. Which one did you mean?")
        calendar_step = rel.months or rel.days
        if hm is not None:
            if rel.seconds or not calendar_step:
                return ParseProblem(f"I see two different times there, “{rel.text}” and "
                                    f"“{spec.clock.text if spec.clock else ''}”. Which one did "
                                    "you mean?")
            hour, minute, shift = hm
            day = _add_months(today, rel.months) + timedelta(days=int(rel.days) + shift)
            due = local_to_utc(day, time(hour, minute), zone)
            note = _dst_note(day, hour, minute, due, zone)
            return _checked(what, due, now, tz, f"{format_local(due, tz)}{note}", False)
        if spec.part is not None:
            return ParseProblem(f"What time {spec.slot_text.get('part')}? For example "
                                "'at 7 in the evening'.", asks_time=True)
        if calendar_step:
            day = _add_months(today, rel.months) + timedelta(days=int(rel.days))
            wall = now_local.replace(tzinfo=None)
            base = datetime.combine(day, wall.time()).replace(tzinfo=zone, fold=now_local.fold)
            due = base.astimezone(UTC) + timedelta(seconds=rel.seconds)
        else:
            due = now + timedelta(seconds=rel.seconds)
        if due <= now:
            return ParseProblem("That's right now — how long from now should I remind you?")
        return _checked(what, due, now, tz, f"{rel.text} — {format_local(due, tz)}", False)

    # --- a date and/or a time of day -------------------------------------------------------
    if hm is None:
        if spec.date is not None:
            day = _explicit_date(spec.date, today, lambda d: d > today)
            named = spec.slot_text["date"]
            if isinstance(day, ParseProblem):
                return day
            return ParseProblem(f"What time {named} ({human_date(day)})? For example "
                                f"'{named} at 9 ...'.", asks_time=True)
        return ParseProblem(f"What time {spec.slot_text.get('part', '')}? For example "
                            "'at 7 in the evening'.", asks_time=True)
    hour, minute, shift = hm
    at = time(hour, minute)
    if spec.clock is not None and spec.clock.special == "midnight" and spec.date is not None \
            and spec.date != ("plus", 0, "tonight"):
        return ParseProblem(f"Midnight at the start or at the end of "
                            f"{spec.slot_text['date']}? Please say 00:00 or 23:59.")

    def ahead(day: date) -> bool:
        return local_to_utc(day + timedelta(days=shift), at, zone) > now

    if spec.date is None:  # the next such wall-clock time ("at 1 at night" said at 00:30: today)
        day = today
        due = local_to_utc(day, at, zone)
        rolled = ""
        if due <= now:
            day += timedelta(days=1)
            due = local_to_utc(day, at, zone)
            rolled = f" — tomorrow, as {at:%H:%M} has already passed today"
        note = _dst_note(day, hour, minute, due, zone)
        return _checked(what, due, now, tz, f"{format_local(due, tz)}{rolled}{note}", False)

    day = _explicit_date(spec.date, today, ahead)
    if isinstance(day, ParseProblem):
        return day
    if spec.clock is not None and spec.clock.special == "midnight":
        day += timedelta(days=1)  # "tonight at midnight" is the coming 00:00
    day += timedelta(days=shift)
    due = local_to_utc(day, at, zone)
    note = _dst_note(day, hour, minute, due, zone)
    today_said = spec.date in (("plus", 0, "today"), ("plus", 0, "tonight"))
    return _checked(what, due, now, tz, f"{format_local(due, tz)}{note}", today_said)


def _checked(what: str, due: datetime, now: datetime, tz: str, understood: str,
             today_said: bool) -> ReminderRequest | ParseProblem:
    if due <= now:
        return _past(due, tz, today_said)
    if due - now > MAX_AHEAD:
        return ParseProblem(f"That's more than 50 years away ({format_local(due, tz)}). "
                            "Did you mistype the year?")
    return _request(what, due, None, tz, understood)


def _request(what: str, due: datetime, recurrence: Recurrence | None, tz: str,
             understood: str) -> ReminderRequest | ParseProblem:
    if not re.search(r"\w", what):
        return ParseProblem(f"What should I remind you about {_as_clause(understood)}? "
                            "For example: 'tomorrow at 9 call mom'.")
    return ReminderRequest(what=what, due_utc=due, recurrence=recurrence, tz=tz,
                           understood=understood)


def _as_clause(understood: str) -> str:
    """The understood text as it reads inside a question ("... about on Monday ...")."""
    if understood.startswith("every") or understood.startswith("in "):
        return f"({understood})"
    return f"on {understood}"


# --------------------------------------------------------------------------------------------
# dateparser, as a last resort
# --------------------------------------------------------------------------------------------


def _dateparser_split(text: str, now: datetime, tz: str) -> tuple[datetime, str, str] | None:
    """(due UTC, when, what) from the longest leading words dateparser reads as a clock time.

    Used only when our own grammar found nothing (typically another language: "demain à 9h
    appeler maman"), and distrustfully:

    * the words are parsed against two base times 37 minutes apart, and only a reading that is
      the same wall-clock time for both is taken. A reading that moves with the base is either
      a date without a time (dateparser fills in the current time of day) or one of its
      relative readings, which are where it goes wrong ("9h" comes back as nine hours from
      now). English relative times are ours anyway.
    * at least one of the two parses must report that a time of day was given (its period flag
      is unreliable when the base happens to equal the stated time, hence "one of").
    * only the wall-clock fields are used; the conversion to UTC is ours, because dateparser
      attaches the wrong offset on the day the clocks change.
    """
    try:
        from dateparser.date import DateDataParser
    except ImportError:  # pragma: no cover - dateparser is a declared dependency
        return None
    zone = zone_info(tz)
    base = now.astimezone(zone).replace(tzinfo=None, second=0, microsecond=0)
    shift = timedelta(minutes=37) if base.hour < 12 else -timedelta(minutes=37)
    words = list(_WORD_START.finditer(text))
    for k in range(min(6, len(words)), 0, -1):
        end = words[k].start() if k < len(words) else len(text)
        candidate = text[:end].strip()
        if len(candidate) > 60:  # no time phrase is this long; dateparser is slow on long input
            continue
        readings: list[datetime] = []
        said_time = False
        for b in (base, base + shift):
            parser = DateDataParser(settings={
                "TIMEZONE": tz, "RETURN_AS_TIMEZONE_AWARE": True,
                "PREFER_DATES_FROM": "future", "RELATIVE_BASE": b,
                "RETURN_TIME_AS_PERIOD": True,
            })
            try:
                data = parser.get_date_data(candidate)
            except Exception:  # noqa: BLE001 - dateparser raises many kinds on odd input
                break
            if data is None or data.date_obj is None:
                break
            said_time = said_time or data.period == "time"
            readings.append(data.date_obj.replace(tzinfo=None))
        if len(readings) != 2 or not said_time or readings[0] != readings[1]:
            continue
        wall = readings[0]
        due = local_to_utc(wall.date(), wall.time().replace(second=0, microsecond=0), zone)
        return due, candidate, _clean_what(text[end:])
    return None


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


def parse_reminder(text: str, tz: str, now: datetime) -> ReminderRequest | ParseProblem:
    """Read "<when> <what>" (or "<what> <when>") in the person's zone ``tz`` at instant ``now``.

    ``now`` may be aware (any zone) or naive UTC. ``tz`` must be a valid IANA name
    (``ValueError`` otherwise: it comes from settings, not from the person). Everything the
    person could get wrong comes back as a ``ParseProblem`` with a question.
    """
    zone_info(tz)
    now_utc = as_utc(now)
    text = (text or "").strip()
    if not re.search(r"\w", text):
        return ParseProblem(f"What should I remind you about, and when? For example: {EXAMPLES}.")
    if len(text) > MAX_REMINDER_INPUT:
        return ParseProblem(f"That's too long for a reminder ({len(text):,} characters; the limit is "
                            f"{MAX_REMINDER_INPUT:,}). Please say it more briefly.")
    too_far = ParseProblem("That's too far away for a reminder. Did you mistype the date?")
    split = _split(text)
    if split is not None:
        spec, what, when = split
        try:
            got = _resolve(spec, what, now_utc, tz)
        except OverflowError:  # calendar arithmetic beyond year 9999
            return too_far
        if isinstance(got, ParseProblem) and got.asks_time:
            got = ParseProblem(got.message, True, when, what)
        return got
    try:
        fallback = _dateparser_split(text, now_utc, tz)
    except OverflowError:
        return too_far
    if fallback is not None:
        due, _when, what = fallback
        return _checked(what, due, now_utc, tz, format_local(due, tz), False)
    return ParseProblem(f"When should I remind you? I couldn't find a time in that. "
                        f"For example: {EXAMPLES}.")


_BARE_CLOCK = re.compile(r"\d{1,2}(?:[:.h]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?", re.I)


def complete_with_time(question: ParseProblem, answer: str, tz: str, now: datetime) -> ReminderRequest | ParseProblem | None:
    """The reminder a "What time ...?" question asked about, completed with the person's next
    message ("at 10", "10", "10:30", "7pm"). None when the answer holds no time at all (it is
    something else the person said)."""
    answer = answer.strip().rstrip(".!?").strip()
    if not answer:
        return None
    if _BARE_CLOCK.fullmatch(answer):  # a bare number is a time of day while a time is awaited
        answer = f"at {answer}"
    alone = parse_reminder(f"{answer} to {question.what or 'it'}", tz, now)
    if isinstance(alone, ParseProblem) and not alone.asks_time and "couldn't find a time" in alone.message:
        return None
    got = parse_reminder(f"{question.when} {answer} to {question.what}", tz, now)
    if isinstance(got, ReminderRequest):
        return got
    if isinstance(alone, ReminderRequest):
        return alone  # the answer named a day of its own ("friday at 10")
    return got


_REMIND_ME = re.compile(
    r"^\W*(?:(?:hi|hey|hello|ok|okay|oh|and|also|btw|so|yo)\b[\s,!.]*)*"
    r"(?:(?:please|pls|plz|kindly)\s+)?"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+|kindly\s+)?"
    r"|(?:i\s+(?:want|need|would\s+like)|i['’]d\s+like)\s+you\s+to\s+"
    r"|(?:please\s+)?(?:don['’]?t|do\s+not)\s+forget\s+to\s+)?"
    r"(?:please\s+)?remind\s+me\b\s*(?:again\b\s*)?(?P<body>.+?)"
    r"[\s,]*(?:please|pls|plz|thanks|thank\s+you|thx|ty)?[\s.!?]*$",
    re.I | re.S,
)
_NOT_A_REMINDER = re.compile(
    r"(?:of|what|who|whom|whose|how|where|when|why|which|if|whether)\b", re.I)


def parse_remind_me(text: str) -> tuple[str, str] | None:
    """Recognise "remind me ..." requests in ordinary messages: (when, what), or None.

    ``when`` is the time phrase ("" if none was given, so the caller can ask for one) and
    ``what`` the task; pass ``reminder_text(when, what)`` to ``parse_reminder``. It is None for
    everything that merely contains the words: "you remind me of my brother", "do you remind me
    of someone?", "remind me what my wife's name is", "remind me about our trip" (a question for
    memory, since no time is given).
    """
    m = _REMIND_ME.match(text or "")
    if not m:
        return None
    result = _remind_me_parts(m["body"].strip())
    if result is None or not (result[0] or result[1]):
        return None
    return result


def _remind_me_parts(body: str) -> tuple[str, str] | None:
    """(when, what) from the words after "remind me"; None if they don't make a request."""
    if _NOT_A_REMINDER.match(body):
        return None
    to_task = re.match(r"(?:to\b|[:\-–—])\s*", body, re.I)
    if to_task:
        task = body[to_task.end():]
        tail = _scan_suffix(task)
        if tail is None:
            return "", _clean_what(task)
        spec, cut = tail
        return " ".join(spec.pieces), _clean_what(task[:cut])
    about = re.match(r"(?:about|that)\b\s*", body, re.I)
    if about:
        tail = _scan_suffix(body)
        if tail is None:
            return None
        spec, cut = tail
        return " ".join(spec.pieces), _clean_what(body[:cut])
    if _scan(body, 0)[0].empty():  # neither "to ..." nor a time right after "remind me"
        return None
    split = _split(body)
    assert split is not None
    _spec, what, when = split
    return when, what


def reminder_text(when: str, what: str) -> str:
    """Join what ``parse_remind_me`` returned into text for ``parse_reminder``.

    The "to" keeps a task that starts with a number ("7 push-ups") from being read as time.
    """
    when, what = when.strip(), what.strip()
    if when and what:
        return f"{when} to {what}"
    return when or what
