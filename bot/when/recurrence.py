"""How a reminder repeats: the Recurrence value, its stored form and its arithmetic."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal

from bot.when.vocabulary import WEEKDAY_CODES, WEEKDAY_NAMES
from bot.when.zones import and_list, as_utc, duration_words, local_to_utc, ordinal, zone_info

#: Longest repeat interval: beyond this a repetition is not a reminder any more.
MAX_REPEAT_DAYS = 3660


RecurrenceKind = Literal["daily", "weekdays", "weekly", "monthly", "interval", "days"]


@dataclass(frozen=True)
class Recurrence:
    """How a reminder repeats, in the person's local wall-clock time.

    Kinds and their database form (``to_str``):

    ========== ============================== ================================================
    kind       example ``to_str()``           meaning
    ========== ============================== ================================================
    daily      ``daily@08:00``                every day at 08:00 local
    weekdays   ``weekdays@09:00``             Monday to Friday at 09:00 local
    weekly     ``weekly:MO,TH@07:00``         on the listed weekdays at 07:00 local
    monthly    ``monthly:31@09:00``           on that day of each month (the last day of
                                              shorter months) at 09:00 local
    interval   ``every:7200s``                every 7200 s of elapsed time
    days       ``every:14d@09:00``            every 14 days at 09:00 local
    ========== ============================== ================================================

    The two interval kinds carry no phase of their own: ``next_after`` counts from the time it
    is given, so the scheduler passes the previous due time.
    """

    kind: RecurrenceKind
    at: time | None = None
    weekdays: tuple[int, ...] = ()
    day_of_month: int | None = None
    seconds: int | None = None
    days: int | None = None

    def __post_init__(self) -> None:
        # Validate here so that a malformed database value can never produce a schedule.
        needs_time = self.kind != "interval"
        if needs_time:
            if self.at is None:
                raise ValueError(f"a {self.kind} recurrence needs a time of day")
            if self.at.tzinfo is not None or self.at.second or self.at.microsecond:
                raise ValueError("recurrence times are naive local hours and minutes")
        elif self.at is not None:
            raise ValueError("an interval recurrence has no time of day")
        if self.kind == "weekly":
            days = tuple(sorted(set(self.weekdays)))
            if not days or any(d < 0 or d > 6 for d in days):
                raise ValueError("weekly recurrence needs weekdays 0 (Monday) .. 6 (Sunday)")
            object.__setattr__(self, "weekdays", days)
        elif self.weekdays:
            raise ValueError("only a weekly recurrence lists weekdays")
        if self.kind == "monthly":
            if self.day_of_month is None or not 1 <= self.day_of_month <= 31:
                raise ValueError("monthly recurrence needs a day of month 1..31")
        elif self.day_of_month is not None:
            raise ValueError("only a monthly recurrence has a day of month")
        if self.kind == "interval":
            if self.seconds is None or not 1 <= self.seconds <= MAX_REPEAT_DAYS * 86400:
                raise ValueError("interval recurrence needs 1 s .. 10 years")
        elif self.seconds is not None:
            raise ValueError("only an interval recurrence has seconds")
        if self.kind == "days":
            if self.days is None or not 1 <= self.days <= MAX_REPEAT_DAYS:
                raise ValueError("a days recurrence needs 1 .. 3660 days")
        elif self.days is not None:
            raise ValueError("only a days recurrence has a number of days")

    # -- storage ---------------------------------------------------------------------------

    def to_str(self) -> str:
        """The compact form stored in the database; ``from_str`` reads it back exactly."""
        at = f"@{self.at:%H:%M}" if self.at is not None else ""
        if self.kind == "daily":
            return f"daily{at}"
        if self.kind == "weekdays":
            return f"weekdays{at}"
        if self.kind == "weekly":
            return "weekly:" + ",".join(WEEKDAY_CODES[d] for d in self.weekdays) + at
        if self.kind == "monthly":
            return f"monthly:{self.day_of_month}{at}"
        if self.kind == "interval":
            return f"every:{self.seconds}s"
        return f"every:{self.days}d{at}"

    @classmethod
    def from_str(cls, text: str) -> Recurrence:
        """Read a stored recurrence; raises ``ValueError`` rather than guessing at bad data."""
        m = _REC_STR.fullmatch(text.strip())
        if not m:
            raise ValueError(f"not a recurrence: {text!r}")
        at = None
        if m["hh"] is not None:
            hh, mm = int(m["hh"]), int(m["mm"])
            if hh > 23 or mm > 59:
                raise ValueError(f"not a time of day in {text!r}")
            at = time(hh, mm)
        if m["daily"]:
            return cls("daily", at)
        if m["weekdays"]:
            return cls("weekdays", at)
        if m["weekly"] is not None:
            codes = m["weekly"].split(",")
            if len(set(codes)) != len(codes):
                raise ValueError(f"repeated weekday in {text!r}")
            return cls("weekly", at, weekdays=tuple(WEEKDAY_CODES.index(c) for c in codes))
        if m["monthly"] is not None:
            return cls("monthly", at, day_of_month=int(m["monthly"]))
        if m["secs"] is not None:
            if at is not None:
                raise ValueError(f"an interval in seconds has no time of day: {text!r}")
            return cls("interval", seconds=int(m["secs"]))
        return cls("days", at, days=int(m["ndays"]))

    # -- arithmetic ------------------------------------------------------------------------

    def next_after(self, after_utc: datetime, tz: str) -> datetime:
        """The first occurrence strictly after ``after_utc``, as aware UTC.

        Calendar kinds are computed on local dates, then converted, so "every day at 08:00"
        stays at 08:00 local whatever the UTC offset does. For ``interval`` and ``days`` pass
        the previous due time: the result is one interval after it.
        """
        zone = zone_info(tz)
        after = as_utc(after_utc)
        if self.kind == "interval":
            assert self.seconds is not None
            return after + timedelta(seconds=self.seconds)
        assert self.at is not None
        if self.kind == "days":
            assert self.days is not None
            start = after.astimezone(zone).date() + timedelta(days=self.days)
            for offset in range(self.days + 1):
                # Normally the first candidate; the loop only matters if the previous due time
                # sat late in a local day and a DST shift pulled the candidate back before it.
                candidate = local_to_utc(start + timedelta(days=offset), self.at, zone)
                if candidate > after:
                    return candidate
            raise AssertionError("unreachable: a later day is always after")  # pragma: no cover
        day = after.astimezone(zone).date() - timedelta(days=1)
        for _ in range(400):  # a monthly rule matches at least once in any 31 days
            if self._falls_on(day):
                candidate = local_to_utc(day, self.at, zone)
                if candidate > after:
                    return candidate
            day += timedelta(days=1)
        raise AssertionError("unreachable: every rule matches within a year")  # pragma: no cover

    def _falls_on(self, day: date) -> bool:
        if self.kind == "daily":
            return True
        if self.kind == "weekdays":
            return day.weekday() < 5
        if self.kind == "weekly":
            return day.weekday() in self.weekdays
        if self.kind == "monthly":
            assert self.day_of_month is not None
            last = calendar.monthrange(day.year, day.month)[1]
            return day.day == min(self.day_of_month, last)
        raise ValueError(self.kind)  # pragma: no cover

    # -- words -----------------------------------------------------------------------------

    def describe(self) -> str:
        """How the repetition reads to a person, e.g. "every Friday at 17:30"."""
        at = f" at {self.at:%H:%M}" if self.at is not None else ""
        if self.kind == "daily":
            return f"every day{at}"
        if self.kind == "weekdays":
            return f"every weekday (Monday to Friday){at}"
        if self.kind == "weekly":
            if self.weekdays == (5, 6):
                return f"every weekend day (Saturday and Sunday){at}"
            return f"every {and_list([WEEKDAY_NAMES[d] for d in self.weekdays])}{at}"
        if self.kind == "monthly":
            assert self.day_of_month is not None
            tail = " (the last day in shorter months)" if self.day_of_month > 28 else ""
            return f"every month on the {ordinal(self.day_of_month)}{at}{tail}"
        if self.kind == "interval":
            assert self.seconds is not None
            return f"every {duration_words(self.seconds)}"
        assert self.days is not None
        if self.days % 7 == 0:
            weeks = self.days // 7
            return f"every {'week' if weeks == 1 else f'{weeks} weeks'}{at}"
        return f"every {'day' if self.days == 1 else f'{self.days} days'}{at}"


_REC_STR = re.compile(
    r"(?:(?P<daily>daily)|(?P<weekdays>weekdays)"
    r"|weekly:(?P<weekly>(?:MO|TU|WE|TH|FR|SA|SU)(?:,(?:MO|TU|WE|TH|FR|SA|SU))*)"
    r"|monthly:(?P<monthly>[1-9]|[12]\d|3[01])"
    r"|every:(?:(?P<secs>[1-9]\d*)s|(?P<ndays>[1-9]\d*)d))"
    r"(?:@(?P<hh>\d{2}):(?P<mm>\d{2}))?"
)
