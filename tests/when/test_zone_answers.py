"""What people type when asked for their time zone, and the zones offered for a language."""

from __future__ import annotations

import pytest

from bot.when.zones import city_of, likely_zones, zone_from_answer, zone_from_offset


@pytest.mark.parametrize(
    ("typed", "zone"),
    [
        ("UTC+2", "Etc/GMT-2"),
        ("gmt-5", "Etc/GMT+5"),
        ("+02:00", "Etc/GMT-2"),
        ("UTC −3", "Etc/GMT+3"),
        ("UTC+0", "UTC"),
        ("UTC+14", "Etc/GMT-14"),
        ("UTC+05:30", None),  # no whole-hour zone: the person is asked for their city
        ("UTC+15", None),
        ("UTC-13", None),
        ("2", None),
        ("at 10", None),
    ],
)
def test_offsets(typed: str, zone: str | None) -> None:
    assert zone_from_offset(typed) == zone


@pytest.mark.parametrize(
    ("typed", "zone"),
    [
        ("Rome", "Europe/Rome"),
        ("I'm in New York", "America/New_York"),
        ("i live in são paulo.", "America/Sao_Paulo"),
        ("in Berlin!", "Europe/Berlin"),
        ("my time zone is Europe/Paris", "Europe/Paris"),
        ("UTC+2", "Etc/GMT-2"),
        ("CET", "CET"),
        ("remember: I like tea", None),
        ("what's the weather", None),
        ("yes", None),
        ("", None),
    ],
)
def test_answers(typed: str, zone: str | None) -> None:
    assert zone_from_answer(typed) == zone


@pytest.mark.parametrize(
    ("locale", "first"),
    [("it", ("Europe/Rome",)), ("en-US", ("America/New_York", "America/Chicago")), ("en_GB", ("Europe/London",)),
     ("pt-BR", ("America/Sao_Paulo",)), ("de-AT", ("Europe/Berlin",)), ("", ("Europe/London", "America/New_York")),
     ("xx", ("Europe/London",))],
)
def test_likely_zones(locale: str, first: tuple[str, ...]) -> None:
    got = likely_zones(locale)
    assert got[: len(first)] == first and len(got) <= 4


@pytest.mark.parametrize(("tz", "words"), [("America/New_York", "New York"), ("Etc/GMT-2", "UTC+2"),
                                           ("Etc/GMT+5", "UTC-5"), ("UTC", "UTC"), ("America/Argentina/Buenos_Aires", "Buenos Aires")])
def test_city_of(tz: str, words: str) -> None:
    assert city_of(tz) == words
