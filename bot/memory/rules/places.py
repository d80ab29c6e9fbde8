"""Cities and the names people call them in chat: "the big apple" and "NYC" are New York.

Why: a home is said by its city's nickname as often as by its name ("the windy city", "beantown",
"the 6ix"), and a sentence about local life names the city without saying one lives there
("Phoenix heat doesn't bother me"). Without this table the bot asked "did you move?" between
"I live in NYC" and "the big apple is home", and could not tell which value a home told that way
has. The table (places.json beside this file: about 620 cities and 640 of their nicknames,
abbreviations, older names and demonyms, written from general knowledge) holds names for a whole
city only, never a borough or a district: moving from Brooklyn to Manhattan is a move. Beside it,
world_places.json (built by `python -m bench.world_places` from GeoNames) names the world's towns of
15,000 people or more, so a home in Yerevan, Pokhara or Musanze is read too; a town of fewer than
50,000 people or with a name also used in English is minor: a whole value ("Akureyri is home"),
never found inside a sentence ("vada pav" is a dish, Vada a town), and so are a city's other names
from GeoNames ("Göteborg is home" is Gothenburg); and a text naming a
hand-written city and a world town ("lisbon, amadora") is about the hand-written one. Pure: text
in, a city or None out.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from bot.memory.rules.text import normalise, tokens

__all__ = ["PLACES_FILE", "WORLD_PLACES_FILE", "canonical_place", "place_in", "places_in"]

PLACES_FILE = Path(__file__).with_name("places.json")
WORLD_PLACES_FILE = Path(__file__).with_name("world_places.json")
# words before a city that do not change which city it is ("sunny san diego", "the city of boston")
_BEFORE = frozenset({"the", "city", "of", "sunny", "beautiful", "lovely", "rainy", "good", "old", "downtown"})


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


class _Tables(NamedTuple):
    index: dict[tuple[str, ...], str]  # name tokens -> city
    ambiguous: frozenset[tuple[str, ...]]  # a name that is also a common word or first name
    minor: frozenset[tuple[str, ...]]  # a world town only taken as a whole value
    hand: frozenset[str]  # the cities of places.json, by their canonical name
    firsts: dict[str, int]  # a name's first word -> the most words a name starting with it has


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    """Both files read once. The world's minor towns are in the index (canonical_place) but
    places_in never finds them inside a sentence."""
    data, world = _load(PLACES_FILE), _load(WORLD_PLACES_FILE)
    index: dict[tuple[str, ...], str] = {}
    for city in data.get("cities", ()):
        index[tuple(tokens(normalise(city)))] = city
    for alias, city in data.get("aliases", {}).items():
        index.setdefault(tuple(tokens(normalise(alias))), city)
    for city in (*world.get("cities", ()), *world.get("minor", ())):
        index.setdefault(tuple(city.split()), city)
    # a city's other names ("goteborg", "monachium"): whole values only, like a minor town
    aliases = [(tuple(name.split()), city) for name, city in world.get("aliases", {}).items()]
    for key, city in aliases:
        index.setdefault(key, city)
    firsts: dict[str, int] = {}
    for key in index:
        if key:
            firsts[key[0]] = max(firsts.get(key[0], 0), len(key))
    return _Tables(
        index=index,
        ambiguous=frozenset(tuple(tokens(normalise(city))) for city in data.get("ambiguous", ())),
        minor=frozenset(tuple(city.split()) for city in world.get("minor", ())) | frozenset(key for key, _ in aliases),
        hand=frozenset(data.get("cities", ())) | frozenset(data.get("aliases", {}).values()),
        firsts=firsts,
    )


def canonical_place(value: str) -> str | None:
    """The city a whole value names ("the big apple", "NYC", "new york city" -> "new york"), or
    None when the value is not (only) a known city's name."""
    index = _tables().index
    toks = tokens(normalise(value))
    while toks:
        found = index.get(tuple(toks))
        if found is not None:
            return found
        if toks[0] not in _BEFORE:
            return None
        toks = toks[1:]
    return None


def plain_place(value: str) -> str | None:
    """`canonical_place`, but None for a name that is also a common word or a first name
    ("reading", "charlotte"): for a town said with no word of a home around it."""
    if tuple(tokens(normalise(value))) in _tables().ambiguous:
        return None
    return canonical_place(value)


def place_in(text: str, *, ambiguous: bool = False) -> str | None:
    """The first known city a text names, by its longest name at each position. Cities whose
    name is also a common word or a first name ("reading", "charlotte") count only with
    `ambiguous`."""
    found = places_in(text, ambiguous=ambiguous)
    return found[0] if found else None


def places_in(text: str, *, ambiguous: bool = False) -> list[str]:
    """Every known city a text names, in order ("left tulsa for denver": tulsa, denver). A
    world town beside a hand-written city is taken for a district of it and left out ("lisbon,
    out in amadora": lisbon)."""
    tables = _tables()
    index, unclear, minor, firsts = tables.index, tables.ambiguous, tables.minor, tables.firsts
    toks = tokens(normalise(text))
    out: list[str] = []
    start = 0
    while start < len(toks):
        longest = firsts.get(toks[start], 0)  # most words start no name: nothing to look up
        for size in range(min(longest, len(toks) - start), 0, -1):
            key = tuple(toks[start:start + size])
            city = index.get(key)
            if city is not None and (ambiguous or key not in unclear) and key not in minor:
                out.append(city)
                start += size - 1
                break
        start += 1
    if len(out) > 1 and any(city in tables.hand for city in out):
        out = [city for city in out if city in tables.hand]
    return out
