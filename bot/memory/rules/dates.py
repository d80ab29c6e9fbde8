"""Dates a person states about a fact ("since 2024", "from 2019 to 2022").

docs/ARCHITECTURE.md section 4: dates are recorded only when the person states them; the time a memory is
saved is never taken as the time it became true. So this module only reads what the words say,
and says nothing (both bounds None) when they say nothing. It is conservative on purpose: a
missing date costs little, a wrong one is a false memory.

Conventions:

* A period is widened to the whole of what was said: "2024" is 2024-01-01 .. 2024-12-31,
  "March 2025" is 2025-03-01 .. 2025-03-31, "3 March 2025" is that day.
* valid_from is the *start* of the first period, valid_until the *end* of the last: "from 2019
  to 2022" is 2019-01-01 .. 2022-12-31, "until 2023" ends 2023-12-31 (the last day the words can
  cover; "until" does not say the fact stopped on 1 January).
* "in 2019" / "in March 2025" / "on 3 March 2025" / "during 2020" mark when the fact began
  (valid_from = start of the period) and claim no end: "I moved to Paris in 2019" does not say
  the move was undone at the end of 2019. Not after an ending word ("my passport expires in
  March 2029"): there the date is what the fact says, and it gets no dates.
* A year is a number 1900..2100, and it only counts right after a date word (since, in, from,
  until, between ...). "I have 2024 stamps" has no date word; "I keep them in 2024 boxes" has
  one, but a bare year followed by an ordinary lower-case word is read as a count, not a year:
  after a year we accept only the end of the text, punctuation, a capitalised word, or a small
  set of function words (and, with, when, I, we ...).
* Bare "from 2015" is not a start date ("a car from 2015" is the car's age); "from 2015 on",
  "from 2015 onwards" and "from 2015 until now" are.
* Phrases relative to today ("since last year", "since March", "for 3 years") need ``now``;
  without it they give nothing. "for N years" only counts in the present perfect ("I have been
  vegetarian for 3 years"), since "I lived there for 3 years" does not end today.
* Several phrases are combined (one giving the start, another the end). Two phrases that give
  different starts (or ends) most likely date different things ("at Acme since 2020, in Rome
  from 2015 to 2019"), so the text gets no dates at all rather than a mix; likewise when the
  start would be after the end.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from bot.when.vocabulary import MONTH_NUMBERS

__all__ = ["Validity", "extract_validity"]


@dataclass(frozen=True)
class Validity:
    """When a fact was true, as far as the person said; None where they said nothing.

    ``matched`` is the stated phrase(s) as written, so the person can be shown what was read.
    """

    valid_from: date | None = None
    valid_until: date | None = None
    matched: str | None = None


_MONTHS = MONTH_NUMBERS
_MONTH = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b"

_YEAR = r"(?<![\d.,/])(?:19\d\d|20\d\d|2100)(?![\d]|[.,/]\d)"
_DAY = r"(?:3[01]|[12]\d|0?[1-9])"
_ORD = r"(?:st|nd|rd|th)?"
_PERIOD = (
    rf"(?:{_DAY}{_ORD}(?:\s+of)?\s+{_MONTH}\.?,?\s+{_YEAR}"
    rf"|{_MONTH}\.?\s+{_DAY}{_ORD},?\s+{_YEAR}"
    rf"|{_YEAR}-\d{{2}}-\d{{2}}(?!\d)"
    rf"|{_YEAR}-\d{{2}}(?![\d-])"
    rf"|{_MONTH}\.?,?\s+(?:of\s+)?{_YEAR}"
    rf"|{_YEAR})"
)
_RELATIVE = r"(?:last\s+(?:year|month|week)|this\s+year|yesterday)\b"

_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
                 "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
                 "twelve": 12, "fifteen": 15, "twenty": 20}
_COUNT = r"(?:\d{1,3}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"

_RANGE_TO = r"\s*(?:-|–|—|to|until|till|til|through|thru)\s*"
_PHRASES = re.compile(
    r"\b(?:"
    # from 2019 to 2022, between 2019 and 2022, in 2019-2022, from March to June 2021
    rf"(?:from|between|in|during)\s+(?P<r1>{_PERIOD}|{_MONTH})"
    rf"(?:{_RANGE_TO}|\s+and\s+)(?P<r2>{_PERIOD})"
    rf"|(?:since|as\s+of|starting(?:\s+(?:in|from))?|beginning(?:\s+in)?)\s+"
    rf"(?P<since>{_PERIOD}|{_RELATIVE}|{_MONTH})"
    rf"|from\s+(?P<from_on>{_PERIOD})\s+(?:on|onwards?|(?:until|till|to)\s+(?:now|today|"
    r"(?:the\s+)?present))\b"
    rf"|(?:until|till|til|up\s+until)\s+(?P<until>{_PERIOD})"
    rf"|(?:in|during|on)\s+(?P<event>{_PERIOD})"
    rf"|for\s+(?:the\s+(?:past|last)\s+)?(?P<count>{_COUNT})\s+"
    rf"(?P<unit>years?|months?|weeks?|days?)\b"
    r")",
    re.I,
)

# What may follow a bare year for it to read as a year (see the module docstring).
_AFTER_YEAR_WORDS = frozenset(
    "and or but nor so then to until till til through thru with without when where while "
    "because after before at in on for as of from by since onward onwards on ago i we he she "
    "they you it my our his her their your the a an have has had was were is are am been "
    "did do does will would i'm i've we've i'd".split()
)
# An "in <date>" right after words like these says when something ends or falls due, which is
# what the fact is about; it is no start ("My passport expires in March 2029", "the lease ends
# in June", "the loan is due in 2027").
_ENDING_BEFORE = re.compile(
    r"\b(?:expir\w*|due|deadline|ends?|ending|runs?\s+out|renew\w*|valid|lapses?|matures?)"
    r"\W+(?:\w+\W+){0,1}$",
    re.I,
)
_PRESENT_PERFECT = re.compile(r"\b(?:have|has|haven't|hasn't)\b|['’]ve\b|['’]s\s+been\b", re.I)


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _period(text: str, now: date | None) -> tuple[date, date] | None:
    """The first and last day a period phrase covers, or None if it isn't a real date."""
    t = " ".join(text.lower().replace(",", " ").replace(".", " ").split())
    try:
        if m := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", t):
            d = date(int(m[1]), int(m[2]), int(m[3]))
            return d, d
        if m := re.fullmatch(r"(\d{4})-(\d{2})", t):
            y, mo = int(m[1]), int(m[2])
            return date(y, mo, 1), _month_end(y, mo)
        if m := re.fullmatch(r"(\d{4})", t):
            y = int(m[1])
            return date(y, 1, 1), date(y, 12, 31)
        if m := re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?(?: of)? ([a-z]+) (\d{4})", t):
            d = date(int(m[3]), _MONTHS[m[2]], int(m[1]))
            return d, d
        if m := re.fullmatch(r"([a-z]+) (\d{1,2})(?:st|nd|rd|th)? (\d{4})", t):
            d = date(int(m[3]), _MONTHS[m[1]], int(m[2]))
            return d, d
        if m := re.fullmatch(r"([a-z]+)(?: of)? (\d{4})", t):
            y, mo = int(m[2]), _MONTHS[m[1]]
            return date(y, mo, 1), _month_end(y, mo)
    except (ValueError, KeyError):
        return None
    if now is None:
        return None
    if t == "last year":
        return date(now.year - 1, 1, 1), date(now.year - 1, 12, 31)
    if t == "this year":
        return date(now.year, 1, 1), date(now.year, 12, 31)
    if t == "last month":
        first = (now.replace(day=1) - timedelta(days=1)).replace(day=1)
        return first, _month_end(first.year, first.month)
    if t == "last week":
        monday = now - timedelta(days=now.weekday() + 7)
        return monday, monday + timedelta(days=6)
    if t == "yesterday":
        d = now - timedelta(days=1)
        return d, d
    if t in _MONTHS:  # "since March": the latest March that has begun
        mo = _MONTHS[t]
        y = now.year if mo <= now.month else now.year - 1
        return date(y, mo, 1), _month_end(y, mo)
    return None


def _reads_as_year(text: str, end: int) -> bool:
    """Whether what follows a bare year lets it be a year rather than a count."""
    rest = text[end:].lstrip()
    if not rest or not (rest[0].isalpha()):
        return True
    word = re.match(r"[A-Za-z'’]+", rest).group(0)  # type: ignore[union-attr]
    return word[0].isupper() or word.lower().replace("’", "'") in _AFTER_YEAR_WORDS


def _is_bare_year(phrase: str) -> bool:
    return re.fullmatch(r"\d{4}", phrase.strip()) is not None


def _months_back(day: date, months: int) -> date:
    total = day.year * 12 + day.month - 1 - months
    year, month = divmod(total, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def extract_validity(text: str, now: date | None = None) -> Validity:
    """The dates ``text`` states for its fact; Validity() when it states none.

    ``now`` is today's date in the person's zone, needed only for phrases relative to today.
    """
    if not text:
        return Validity()
    starts: list[tuple[date, str]] = []
    ends: list[tuple[date, str]] = []
    for m in _PHRASES.finditer(text):
        phrase = m.group(0)
        if m["r1"] is not None:
            first, last = m["r1"], m["r2"]
            if _is_bare_year(last) and not _reads_as_year(text, m.end()):
                continue
            end_period = _period(last, now)
            if end_period is None:
                continue
            if first.strip().lower() in _MONTHS:  # "from March to June 2021": borrow the year
                start_period = _period(f"{first} {end_period[1].year}", now)
            else:
                start_period = _period(first, now)
            if start_period is None or start_period[0] > end_period[1]:
                continue
            starts.append((start_period[0], phrase))
            ends.append((end_period[1], phrase))
            continue
        for group, bound in (("since", "start"), ("from_on", "start"), ("event", "start"),
                             ("until", "end")):
            value = m[group]
            if value is None:
                continue
            if group == "event" and _ENDING_BEFORE.search(text[: m.start()]):
                break  # "my passport expires in March 2029": the date is the fact, not its start
            if _is_bare_year(value) and not _reads_as_year(text, m.end()):
                break
            if group == "since" and value.strip().lower() == "may" and "May" not in value:
                break  # "since may be" is not a month
            period = _period(value, now)
            if period is not None:
                if bound == "start":
                    starts.append((period[0], phrase))
                else:
                    ends.append((period[1], phrase))
            break
        else:
            if m["count"] is not None and now is not None:
                if not _PRESENT_PERFECT.search(text[: m.start()]):
                    continue
                raw = m["count"].lower()
                n = _NUMBER_WORDS.get(raw) or int(raw)
                unit = m["unit"].lower().rstrip("s")
                if n <= 0 or (unit == "year" and n > 150):
                    continue
                if unit == "year":
                    start = _months_back(now, 12 * n)
                elif unit == "month":
                    start = _months_back(now, n)
                else:
                    start = now - timedelta(days=n * (7 if unit == "week" else 1))
                starts.append((start, phrase))
    if len({d for d, _ in starts}) > 1 or len({d for d, _ in ends}) > 1:
        return Validity()  # dates for different things ("at Acme since 2020, in Rome in 2015")
    valid_from = starts[0][0] if starts else None
    valid_until = ends[0][0] if ends else None
    if valid_from and valid_until and valid_from > valid_until:
        return Validity()
    if valid_from is None and valid_until is None:
        return Validity()
    matched = ", ".join(dict.fromkeys(p for _, p in starts + ends))
    return Validity(valid_from, valid_until, matched)

