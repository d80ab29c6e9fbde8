"""Cities by any of their names (bot/memory/rules/places.py), and a home told by its city
(slot_vectors.is_home_by_place): tables of sentences written for these tests."""

from __future__ import annotations

import numpy as np
import pytest

from bot.memory.rules import slot_vectors
from bot.memory.rules.places import canonical_place, place_in, plain_place

CANONICAL = [
    ("the big apple", "new york"),
    ("NYC", "new york"),
    ("New York City", "new york"),
    ("the windy city", "chicago"),
    ("Chi-town", "chicago"),
    ("sunny san diego", "san diego"),
    ("Bombay", "mumbai"),
    ("the 6ix", "toronto"),
    ("Munich", "munich"),
    ("brooklyn", None),  # a borough is not its city: Brooklyn to Manhattan is a move
    ("manhattan", None),
    ("florida", None),  # a state is not a city
    # famous cities whose names are also English words or names: GeoNames' table leaves them out
    ("Salvador", "salvador"),
    ("Salvador da Bahia", "salvador"),
    ("Georgetown", "georgetown"),
    ("Kobe", "kobe"),
    ("a small town near the coast", None),
    ("", None),
]
PLACE_IN = [
    ("wicked cold in bahstan today", "boston"),
    ("philly kid through and through", "philadelphia"),
    ("big d born and raised", "dallas"),
    ("rain again in seattle, shocker", "seattle"),
    ("I love reading on the train", None),  # Reading is a city, but not said like one
    ("keep austin weird", None),  # Austin is also a first name: only with ambiguous=True
    ("got my law degree at georgetown", None),  # a university too
    ("la la la", None),
]


@pytest.mark.parametrize(("value", "city"), CANONICAL)
def test_a_city_by_any_of_its_names(value: str, city: str | None) -> None:
    assert canonical_place(value) == city


@pytest.mark.parametrize(("text", "city"), PLACE_IN)
def test_the_city_a_sentence_names(text: str, city: str | None) -> None:
    assert place_in(text) == city


def test_a_city_whose_name_is_also_a_word_counts_only_when_asked() -> None:
    assert place_in("keep austin weird", ambiguous=True) == "austin"


# the world's towns (world_places.json, built by bench/world_places.py from GeoNames): a home in
# a town the hand-written table does not hold, never an English word that is also a town
WORLD = [
    ("Yerevan born and raised", "yerevan"),
    ("rain again in Batumi", "batumi"),
    ("the hills above Musanze", "musanze"),
    ("Thiès, near Dakar", "thies"),  # accents folded; two towns: the first
    ("lisbon, out in amadora", "lisbon"),  # a hand-written city beside a world town: it
    ("the police came at best by date", None),  # Police, Best and Date are towns, and words
    ("on a mission to eat an orange", None),
]


@pytest.mark.parametrize(("text", "city"), WORLD)
def test_a_town_of_the_world_by_its_name(text: str, city: str | None) -> None:
    assert place_in(text) == city


@pytest.mark.parametrize(
    ("name", "zipf", "population", "expected"),
    [
        ("tartu", {"tartu": 2.1}, 91_000, "city"),
        ("akureyri", {"akureyri": 1.7}, 19_000, "minor"),  # a small town: only as a whole value
        ("florence", {"florence": 3.0}, 380_000, "minor"),  # a first name too
        ("police", {"police": 5.3}, 34_000, None),  # a word: never a town
        ("fort william", {"fort": 3.9, "william": 4.4}, 60_000, "minor"),  # every word common
        ("santa cruz de la sierra", {"santa": 3.9, "cruz": 2.6, "de": 4.8, "la": 5.3, "sierra": 3.9},
         1_800_000, "city"),
        ("ab", {"ab": 1.0}, 100_000, None),  # too short to tell from an abbreviation
    ],
)
def test_which_world_towns_are_kept(name: str, zipf: dict[str, float], population: int, expected: str | None) -> None:
    from bench.world_places import classify

    assert classify(name, lambda text: zipf[text], population) == expected


@pytest.mark.parametrize(("value", "city"), [
    ("Rostock", "rostock"),
    ("stuttgart", "stuttgart"),
    ("reading", None),  # a word too: no town said alone
    ("the kettle", None),
])
def test_a_plain_place_is_a_known_town_that_is_no_word(value: str, city: str | None) -> None:
    assert plain_place(value) == city


def test_a_small_town_is_a_whole_value_but_not_found_in_a_sentence() -> None:
    # Vada (India, 17,000 people) is a town, and "vada pav" a dish
    assert canonical_place("Vada") == "vada"
    assert place_in("my bro has a vada pav stall outside the station", ambiguous=True) is None


# a city's other names (GeoNames' alternate names in Latin letters, world_places.json "aliases"):
# one city told two ways is one home (sixteenth pass: "Gothenburg" then "Göteborg" had asked
# "Mark older as past")
@pytest.mark.parametrize(("name", "city"), [
    ("Göteborg", "gothenburg"),
    ("Monachium", "munich"),
    ("Sankt Peterburg", "saint petersburg"),
    ("Lemberg", "lviv"),
    ("Danzig", "gdansk"),
])
def test_a_city_by_its_other_name(name: str, city: str) -> None:
    assert canonical_place(name) == city


def test_another_name_is_a_whole_value_only() -> None:
    # the alternates hold romanisations of every script: never looked for inside a sentence
    assert place_in("we drove through Monachium and Danzig last summer", ambiguous=True) is None


@pytest.mark.parametrize(("old", "new"), [
    ("I live in Gothenburg", "Göteborg is home now"),
    ("I live in Lviv", "Lemberg is home, always has been"),
])
def test_one_city_told_two_ways_is_no_move(old: str, new: str) -> None:
    from bot.memory.rules.conflict import VERDICT_CHANGE, Fact, assess, detect_slot

    found = assess(new, [Fact(1, old, detect_slot(old))])
    assert found.duplicate_of == 1 or all(n.verdict != VERDICT_CHANGE for n in found.nominations), found


def test_which_other_names_are_kept() -> None:
    from bench.world_places import aliases

    index = {("gothenburg",): "gothenburg", ("lund",): "lund", ("malmo",): "malmo"}
    rows = [
        {"name": "Gothenburg", "population": 570_000, "alternatenames": ["Göteborg", "GOT", "Гётеборг", "Hope", "Lund"]},
        {"name": "Malmö", "population": 300_000, "alternatenames": ["Malmoe", "Twinsy"]},
        {"name": "Lund", "population": 90_000, "alternatenames": ["Lunda"]},  # too small for aliases
        {"name": "Elsewhere", "population": 500_000, "alternatenames": ["Twinsy"]},  # not in the index
        {"name": "Malmö", "population": 300_000, "alternatenames": ["Gotham"]},
        {"name": "Gothenburg", "population": 570_000, "alternatenames": ["Gotham"]},  # two cities: dropped
    ]
    zipf = {"hope": 5.0}
    found = aliases(rows, index, lambda text: zipf.get(text, 1.0))
    # a code, another script, a common word, a name already known, a small city's alias and one
    # naming two cities are all left out
    assert found == {"goteborg": "gothenburg", "malmoe": "malmo", "twinsy": "malmo"}


def probs(residence: float, job: float = 0.0) -> np.ndarray:
    """Class probabilities with residence and job as given, the rest on "other"."""
    out = np.zeros(len(slot_vectors.CLASSES))
    out[slot_vectors.CLASSES.index("residence")] = residence
    out[slot_vectors.CLASSES.index("job")] = job
    out[slot_vectors.CLASSES.index(slot_vectors.OTHER)] = 1.0 - residence - job
    return out


HOMES = [
    ("Phoenix heat doesn't bother me, it's a dry heat", (0.6, 0.0), True),
    ("Phoenix heat doesn't bother me, it's a dry heat", (0.3, 0.0), False),  # not sure enough
    ("Phoenix heat doesn't bother me", (0.55, 0.4), True),
    ("the commute into boston wears me out", (0.5, 0.45), True),
    ("the commute wears me out", (0.7, 0.0), False),  # no city named
    ("my sister lives in boston", (0.7, 0.0), False),  # someone else's home
    ("we visited boston for a week", (0.7, 0.0), False),  # a trip
    ("I lived in Tokyo for three years in my twenties", (0.7, 0.0), False),  # the past
    ("someday I'll live in paris", (0.7, 0.0), False),  # a wish
    ("boston is my favourite city", (0.7, 0.0), False),
]


@pytest.mark.parametrize(("text", "sure", "home"), HOMES)
def test_a_home_told_by_its_city(text: str, sure: tuple[float, float], home: bool) -> None:
    assert slot_vectors.is_home_by_place(probs(*sure), slot_vectors.CLASSES, text) is home
