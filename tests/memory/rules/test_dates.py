"""Dates stated in facts: recorded only when the person says them (docs/ARCHITECTURE.md section 4)."""

from __future__ import annotations

from datetime import date

import pytest

from bot.memory.rules.dates import Validity, extract_validity

NOW = date(2026, 3, 28)

# text, expected valid_from, expected valid_until, expected matched phrase
STATED = [
    ("I live in Paris since 2024", date(2024, 1, 1), None, "since 2024"),
    ("Since March 2025 I work at Acme", date(2025, 3, 1), None, "Since March 2025"),
    ("since Sept 2020 I cycle to work", date(2020, 9, 1), None, "since Sept 2020"),
    ("I moved to Berlin in March 2025", date(2025, 3, 1), None, "in March 2025"),
    ("I was born in 1990", date(1990, 1, 1), None, "in 1990"),
    ("I was born in Leeds in 1990", date(1990, 1, 1), None, "in 1990"),
    ("In 2019 Anna and I got married", date(2019, 1, 1), None, "In 2019"),
    ("in 2019, I moved to Rome", date(2019, 1, 1), None, "in 2019"),
    ("I got my licence on 3 March 2025", date(2025, 3, 3), None, "on 3 March 2025"),
    ("vegan since 3rd of March 2025", date(2025, 3, 3), None, "since 3rd of March 2025"),
    ("vegan since March 3, 2025", date(2025, 3, 3), None, "since March 3, 2025"),
    ("vegan since 2025-03-03", date(2025, 3, 3), None, "since 2025-03-03"),
    ("vegan since 2025-03", date(2025, 3, 1), None, "since 2025-03"),
    ("as of 2024 I'm vegan", date(2024, 1, 1), None, "as of 2024"),
    ("starting in 2024 I jog every day", date(2024, 1, 1), None, "starting in 2024"),
    ("from 2015 on I drove a Volvo", date(2015, 1, 1), None, "from 2015 on"),
    ("from 2019 until now I lived here", date(2019, 1, 1), None, "from 2019 until now"),
    # ranges: start of the first period, end of the last
    ("I worked there from 2019 to 2022", date(2019, 1, 1), date(2022, 12, 31), "from 2019 to 2022"),
    ("between 2019 and 2022 I lived in Rome", date(2019, 1, 1), date(2022, 12, 31),
     "between 2019 and 2022"),
    ("in 2019-2022 I lived in Rome", date(2019, 1, 1), date(2022, 12, 31), "in 2019-2022"),
    ("from March to June 2021 I was in Rome", date(2021, 3, 1), date(2021, 6, 30),
     "from March to June 2021"),
    ("from February 2020 until May 2021 I had a dog", date(2020, 2, 1), date(2021, 5, 31),
     "from February 2020 until May 2021"),
    ("from Feb 2024 to Feb 2024", date(2024, 2, 1), date(2024, 2, 29), "from Feb 2024 to Feb 2024"),
    # until: the last day the words can cover
    ("I lived in London until 2023", None, date(2023, 12, 31), "until 2023"),
    ("till June 2021 I had a cat", None, date(2021, 6, 30), "till June 2021"),
    ("I drove a Golf until 15 August 2022", None, date(2022, 8, 15), "until 15 August 2022"),
    # combined phrases
    ("Since 2019 and until 2023 I was at Acme", date(2019, 1, 1), date(2023, 12, 31),
     "Since 2019, until 2023"),
    ("I have lived in Paris since 2024 with my wife", date(2024, 1, 1), None, "since 2024"),
    ("I work at Acme. Since 2021.", date(2021, 1, 1), None, "Since 2021"),
]


@pytest.mark.parametrize(("text", "start", "end", "matched"), STATED)
def test_stated_dates_are_read(text: str, start: date | None, end: date | None,
                               matched: str) -> None:
    assert extract_validity(text, NOW) == Validity(start, end, matched)


@pytest.mark.parametrize(("text", "start", "end", "matched"), STATED)
def test_absolute_dates_do_not_need_today(text: str, start: date | None, end: date | None,
                                          matched: str) -> None:
    # None of STATED is relative to today, so the answer is the same without `now`.
    assert extract_validity(text) == Validity(start, end, matched)


RELATIVE = [
    ("I've been vegetarian since last year", date(2025, 1, 1), None),
    ("vegetarian since this year", date(2026, 1, 1), None),
    ("I run since last month", date(2026, 2, 1), None),
    ("on a diet since yesterday", date(2026, 3, 27), None),
    ("since last week I wake at 6", date(2026, 3, 16), None),
    ("since May I run", date(2025, 5, 1), None),  # May 2026 has not come yet
    ("since March I run", date(2026, 3, 1), None),
    ("I have been vegetarian for 3 years", date(2023, 3, 28), None),
    ("I have lived here for two years", date(2024, 3, 28), None),
    ("She's been my boss for 6 months", date(2025, 9, 28), None),
    ("I've had the car for the past 2 weeks", date(2026, 3, 14), None),
    ("we have been married for 10 days", date(2026, 3, 18), None),
]


@pytest.mark.parametrize(("text", "start", "end"), RELATIVE)
def test_relative_dates_use_today(text: str, start: date, end: date | None) -> None:
    got = extract_validity(text, NOW)
    assert (got.valid_from, got.valid_until) == (start, end)
    assert got.matched is not None and got.matched.lower() in text.lower()


@pytest.mark.parametrize(("text", "start", "end"), RELATIVE)
def test_relative_dates_without_today_say_nothing(text: str, start: date,
                                                  end: date | None) -> None:
    assert extract_validity(text) == Validity()


def test_for_n_years_counts_back_from_a_leap_day() -> None:
    got = extract_validity("I have been vegan for 1 year", date(2024, 2, 29))
    assert got.valid_from == date(2023, 2, 28)


NOTHING_STATED = [
    "",
    # issue 20: an expiry or a due date is what the fact says, not when it began
    "My passport expires in March 2029",
    "my lease ends in June 2027",
    "The loan is due in 2027",
    "My visa runs out in 2026",
    "I live in Paris",
    "I have 2024 stamps",  # no date word before the number
    "I keep them in 2024 boxes",  # a count after "in", not a year
    "room 1999",
    "call me at 2024",
    "my PIN is 2019",
    "since 1850 we farm here",  # outside 1900..2100
    "since 2150 nothing",  # outside 1900..2100
    "since 20245",
    "in 2019.5 hours",
    "paid 2,019 in fees",
    "I drive a car from 2015",  # a car's age is not when the fact began
    "I lived in Paris for 3 years",  # not present perfect: did not necessarily end today
    "I plan to stay for 3 years",
    "since may be wrong",  # the verb, not the month
    "in March I'll move",  # no year and not "since"
    "since I was a kid I love dogs",
    "until further notice",
    "from 2022 to 2019 something odd",  # start after end: nothing rather than nonsense
    "since 30 February 2024",  # not a date
    # different dates most likely belong to different things
    "I have been at Acme since 2020, and I lived in Berlin from 2015 to 2019",
    "since 2019 and since 2020",
]


@pytest.mark.parametrize("text", NOTHING_STATED)
def test_no_date_is_invented(text: str) -> None:
    assert extract_validity(text, NOW) == Validity()


def test_save_time_is_never_used() -> None:
    # Whatever "now" is, a fact without a stated date gets no dates.
    for now in (date(2000, 1, 1), NOW, date(2099, 12, 31)):
        assert extract_validity("My favourite colour is green", now) == Validity()
