"""`python -m bot bench latency [--memories 1000,10000,100000] [--json]`: how long recall and
remember take as one person's memory grows, against a BM25 index of the same texts.

For each size N, on a fresh temporary SQLite file (the product's pragmas, synchronous=FULL):
- realistic synthetic memories (first-person facts from templates with varied names, places,
  numbers and vocabulary; 6 to 40 words) for one person, among `--others` other people with
  `--others-memories` each (100 x 100 by default), bulk-loaded in batches through
  MemoryService.remember_many (embeddings computed by the model, batch by batch), interleaved so
  the person's memories are spread through the table as in a shared database;
- a few hundred realistic questions, each timed three ways (in rounds of 50 questions, each
  way in a pass of its own, so all three see the same background load):
  recall_*        MemoryService.recall(..., query_vector=precomputed, record_use=False): the whole
                  context assembly (keyword stage, vector search, timeline, ranking, blocks) with
                  the question's vector computed beforehand by MemoryService.query_vector;
  recall_embed_*  the same call without a vector, so the question is embedded inside it;
  bm25_*          bm25s over the person's same texts (tokenise + top 20), the baseline;
- remember_*: MemoryService.remember of new facts with conflict review on (duplicate check,
  related memories, rules, the write and its fsync), the embedding of the new fact included;
  and once more with PRAGMA synchronous=NORMAL on the same file (remember_sync_normal_*), only
  to show what FULL's durability costs; the product never runs that way;
- build_per_s: memories per second of the bulk load, embeddings included.

The first recall of a person loads their vectors into memory (first_recall_ms); it is not part
of the percentiles. Vectors of the bulk load can be cached on disk under /tmp by text hash
(--vector-cache, on by default) so that re-runs skip the model for the load: the first run works
from nothing. When a load took vectors from the cache, build_per_s is computed from the measured
database time plus the model's own rate measured in the same run (embed_per_s) and
build_per_s_estimated says so. Timings on a shared 2-core machine are noisy: compare the ratios
to the bm25s baseline of the same run. Exit status 0 whether or not targets are met; with --json
stdout carries only one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

from bench.datasets import cache_dir
from bot.config import Settings

DEFAULT_SIZES = "1000,10000,100000"
DEFAULT_CACHE = str(cache_dir("bench-latency-vectors"))
LOAD_BATCH = 1000
PASS = 50  # questions per timing pass
TOP = 20
TARGETS_AT_10000 = {"recall_p95_ms": 10.0, "recall_embed_p95_ms": 30.0, "remember_p95_ms": 15.0}

# ------------------------------------------------------------------------------ vocabulary
FIRST_NAMES = """
Anna Ben Carla Dmitri Elena Farid Grace Hiro Ines Jonas Kemi Luca Maya Noah Olga Pablo Quinn Rosa
Sami Tara Umar Vera Wes Ximena Yusuf Zoe Aiden Bianca Chen Dalia Emil Fatima Gus Hana Ivan Jade
Kofi Lena Marco Nadia Oscar Priya Rafael Sofia Theo Uma Viktor Wanda Yara Zane Amara Bruno Chloe
Diego Esme Felix Gemma Hugo Isla Jamal Kira Liam Mila Nico Omar Petra Ravi Selma Tomas Ursula
Valeria Will Xavier Yasmin Zeke Alma Bastian Cora Dev Edith Finn Greta Hamza Ida Jules Kai Lotte
Mateo Nell Otto Pia Remy Saoirse Tobias Una Vik Wren Yuki
""".split()
SURNAMES = """
Novak Okafor Lindqvist Moreau Tanaka Schmidt Rossi Kowalski Haddad Silva Murphy Jensen Petrov
Dubois Nakamura Costa Fischer Larsen Nguyen Patel Romero Weber Ivanova Bianchi Svensson O'Brien
Castillo Yilmaz Becker Mendes Kaur Horvat Varga Hughes Ahmed Ortega Kim Popescu Andersen Ferreira
""".split()
CITIES = """
Lisbon Porto Madrid Valencia Lyon Marseille Berlin Hamburg Munich Vienna Prague Krakow Warsaw
Budapest Zagreb Ljubljana Milan Turin Naples Bologna Zurich Geneva Brussels Ghent Amsterdam
Utrecht Rotterdam Copenhagen Aarhus Oslo Bergen Stockholm Gothenburg Helsinki Tallinn Riga
Vilnius Dublin Cork Edinburgh Glasgow Manchester Leeds Bristol Cardiff Belfast York Brighton
Seville Granada Bilbao Toulouse Nantes Cologne Leipzig Dresden Salzburg Graz Florence Verona
Athens Thessaloniki Istanbul Izmir Sofia Bucharest Belgrade Split Montreal Toronto Vancouver
Boston Chicago Denver Seattle Portland Austin Nairobi Lagos Accra Cairo Tunis Casablanca Tokyo
Osaka Kyoto Seoul Busan Taipei Hanoi Bangkok Singapore Melbourne Sydney Auckland Wellington
""".split()
JOBS = """
nurse architect accountant plumber teacher paramedic translator pharmacist carpenter electrician
librarian journalist photographer chef baker dentist physiotherapist economist geologist
pilot lawyer barista florist mechanic veterinarian engineer designer researcher surveyor
midwife optician tailor welder gardener courier programmer analyst consultant curator
""".split()
HOBBIES = """
pottery climbing rowing salsa chess knitting surfing birdwatching woodworking calligraphy
archery fencing sailing bouldering beekeeping baking gardening painting photography cycling
running swimming yoga pilates kayaking skiing snowboarding juggling origami embroidery
tennis badminton squash volleyball choir ukulele piano violin cello drumming astronomy
""".split()
LANGUAGES = """
Portuguese Spanish Italian German Japanese Korean Mandarin Arabic Turkish Greek Polish
Swedish Dutch Finnish Hungarian Czech Russian Hindi Swahili Icelandic
""".split()
FOODS = """
peanuts shellfish gluten lactose sesame kiwi strawberries eggs soy mustard celery walnuts
""".split()
DISHES = """
lasagne ramen paella risotto dumplings tacos curry moussaka pho shakshuka pierogi goulash
bibimbap falafel sushi gnocchi biryani tagine ceviche empanadas
""".split()
CUISINES = "Thai Ethiopian Lebanese Georgian Peruvian Vietnamese Sicilian Korean Basque Mexican".split()
PETS = ["cat", "dog", "rabbit", "parrot", "tortoise", "hamster", "ferret", "goldfish", "gecko", "guinea pig"]
PET_NAMES = "Miso Biscuit Pepper Luna Olive Mango Noodle Pixel Ziggy Clementine Waffles Juniper Turnip Basil".split()
CARS = ["VW Golf", "Toyota Corolla", "Honda Civic", "Tesla Model 3", "Renault Clio", "VW Polo",
        "Skoda Octavia", "Ford Focus", "Toyota Yaris", "Nissan Leaf", "Hyundai Ioniq", "Fiat Panda",
        "Ford Fiesta", "Opel Astra", "Mazda 3", "Volvo V60"]
COLOURS = "red blue green grey black white silver yellow orange navy teal burgundy".split()
RELATIONS = "sister brother cousin aunt uncle niece nephew grandmother grandfather mother father".split()
FRIENDS = "friend colleague neighbour flatmate manager mentor teammate classmate".split()
MONTHS = "January February March April May June July August September October November December".split()
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
SEASONS = "spring summer autumn winter".split()
ITEMS = ["laptop", "bicycle", "sofa", "camera", "guitar", "kettle", "espresso machine", "tent", "backpack",
         "winter coat", "desk chair", "rowing machine", "telescope", "sewing machine", "record player",
         "e-reader", "standing desk", "drill", "lawn mower", "rice cooker"]
SHOPS = ["a flea market", "a second-hand shop", "the big mall downtown", "an online store",
         "a tiny shop near the station", "the hardware store", "an auction"]
COMPANIES = """
Brightline Northwind Copperleaf Bluefin Redwood Lumen Harbor Quartz Meridian Fieldstone Kestrel
Tidewater Ironbark Silverpine Oakridge Sundial Driftwood Stonebridge Moonrise Cobalt
""".split()
PLACES = ["the lake", "the old harbour", "the botanical garden", "the castle", "the market square",
          "the riverside park", "the museum", "the cathedral", "the train station"]
BOOKS = """
Middlemarch Beloved Dune Rebecca Persuasion Stoner Solaris Pachinko Piranesi Ulysses Emma Kindred
Frankenstein Lolita Hyperion Circe Possession Atonement Neuromancer Gilead
""".split()
MOUNTAINS = ["Snowdon", "Ben Nevis", "the Zugspitze", "Mont Ventoux", "Triglav", "Mount Olympus", "Etna",
             "Kilimanjaro", "Mount Fuji", "Scafell Pike"]
ADJUNCTS = [
    "", "", "", "",
    " and I really enjoyed it",
    " because it was on sale",
    " which took longer than I expected",
    " and I want to do it again next year",
    " even though the weather was terrible",
    " with a couple of friends from university",
    ", which my partner thought was hilarious",
    " and it cost about {n} euros in the end",
    " after thinking about it for {n} weeks",
    " and I still have the photos on my phone",
    ", though honestly I was a bit nervous about it",
    " and {name} said it was the best one in {city}",
]


def _month_day(rng: random.Random) -> str:
    return f"{rng.randint(1, 28)} {rng.choice(MONTHS)}"


def _fill(template: str, rng: random.Random) -> str:
    values = {
        "name": rng.choice(FIRST_NAMES), "name2": rng.choice(FIRST_NAMES), "surname": rng.choice(SURNAMES),
        "city": rng.choice(CITIES), "city2": rng.choice(CITIES), "job": rng.choice(JOBS),
        "hobby": rng.choice(HOBBIES), "language": rng.choice(LANGUAGES), "food": rng.choice(FOODS),
        "dish": rng.choice(DISHES), "cuisine": rng.choice(CUISINES), "pet": rng.choice(PETS),
        "petname": rng.choice(PET_NAMES), "car": rng.choice(CARS), "colour": rng.choice(COLOURS),
        "relation": rng.choice(RELATIONS), "friend": rng.choice(FRIENDS), "month": rng.choice(MONTHS),
        "weekday": rng.choice(WEEKDAYS), "season": rng.choice(SEASONS), "item": rng.choice(ITEMS),
        "shop": rng.choice(SHOPS).strip(), "company": rng.choice(COMPANIES), "place": rng.choice(PLACES).strip(),
        "book": rng.choice(BOOKS), "mountain": rng.choice(MOUNTAINS), "n": rng.choice([2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 25, 40]),
        "year": rng.randint(2009, 2025), "price": rng.choice([35, 60, 89, 120, 240, 450, 799, 1200, 2300]),
        "time": f"{rng.randint(7, 20)}:{rng.choice(['00', '15', '30', '45'])}", "date": _month_day(rng),
        "age": rng.randint(3, 90), "hours": rng.randint(2, 11),
    }
    return template.format(**values)


FACT_TEMPLATES = [
    "My {relation} {name} lives in {city} and works as a {job}",
    "I started learning {language} in {month} {year}{adj}",
    "My {relation} {name}'s birthday is on {date}",
    "I've been doing {hobby} on {weekday}s since {year}",
    "We adopted a {pet} called {petname} {n} years ago",
    "I'm allergic to {food}, so I always check the labels",
    "My favourite dish is {dish}, especially the way {name} makes it",
    "I paid {price} euros for the {item} at {shop}{adj}",
    "I read {book} on the train to {city}{adj}",
    "Last {season} I hiked {mountain} with {name} and it took {hours} hours",
    "My dentist appointment with Dr. {surname} is at {time} on {weekday}",
    "I drive a {colour} {car} that I bought in {year}",
    "I work at {company} as a {job}; my manager is {name} {surname}",
    "My flat in {city} has {n} rooms and a small balcony facing {place}",
    "{name} from work recommended the {cuisine} restaurant near {place}",
    "I moved to {city} in {year} after living in {city2} for {n} years",
    "My {friend} {name} is getting married in {month} in {city}",
    "I take the {time} bus to work every {weekday}",
    "I ran a half marathon in {city} in {month} {year} in just under {hours} hours",
    "Our {pet} {petname} needs medication twice a day until {date}",
    "I promised {name} I'd help them move house on {weekday}",
    "I usually cook {dish} for the family on {weekday} evenings",
    "My {relation} is {age} years old and still goes {hobby} every week",
    "I lent my {item} to my {friend} {name} in {month} and haven't got it back",
    "The best {cuisine} food I ever had was in {city} in {year}",
    "I studied to be a {job} in {city} but switched careers after {n} years",
    "I want to visit {city} next {season} to see {name}",
    "Our wedding anniversary is on {date}; we got married in {city} in {year}",
    "I keep my spare keys with {name}, my neighbour at number {n}",
    "I've been saving {price} euros a month for a trip to {city}",
    "I gave up coffee in {month} {year} and switched to green tea",
    "My {relation} {name} is a {job} in {city} and has {n} kids",
    "I sing in a choir that rehearses on {weekday}s at {time} near {place}",
    "I broke my wrist doing {hobby} in {year}{adj}",
    "My son's football practice is on {weekday} at {time} in {city}",
    "I joined a {hobby} club in {city} in {month}{adj}",
    "The wifi password at my parents' place is written on the fridge, next to {name}'s photo",
    "I prefer window seats when I fly to {city}",
    "I'm reading {book} for my book club, which meets on the first {weekday} of the month",
    "I fixed the {item} myself using a video {name} sent me",
]

QUESTION_TEMPLATES = [
    "Where does my {relation} live?",
    "What does {name} do for a living?",
    "When is {name}'s birthday?",
    "When did I start learning {language}?",
    "What's the name of our {pet}?",
    "What am I allergic to?",
    "How much did I pay for the {item}?",
    "Which restaurant did {name} recommend?",
    "What car do I drive?",
    "When is my dentist appointment?",
    "Who is my manager at {company}?",
    "What did I do last {season} with {name}?",
    "When did I move to {city}?",
    "Who is getting married in {month}?",
    "What time is my bus on {weekday}?",
    "What should I cook on {weekday}?",
    "who has my {item}?",
    "any ideas for the weekend?",
    "what's my name?",
    "How long have I been doing {hobby}?",
    "did I ever go to {city}?",
    "What was that book I read on the train?",
    "remind me what I said about {hobby}",
    "Where did I live before {city}?",
    "What did I say on {date} {year}?",
    "Can you suggest a gift for my {relation} {name}?",
    "what's the plan for our anniversary?",
    "Who keeps my spare keys?",
    "How much am I saving each month?",
    "when does the {hobby} club meet?",
]


PREFIXES = [
    "Just so you know, ", "For the record, ", "Note to self: ", "Since last week, ", "As of {month}, ",
    "Honestly, ", "Oh and ", "Funny thing: ", "Don't forget that ", "Remember that ", "FYI ",
    "After talking to {name}, ", "Back in {year}, ", "This {season}, ",
]


def make_fact(rng: random.Random) -> str:
    template = rng.choice(FACT_TEMPLATES)
    adj = rng.choice(ADJUNCTS)
    text = _fill(template.replace("{adj}", adj), rng)
    if "{adj}" not in template and rng.random() < 0.4:
        text += _fill(rng.choice(ADJUNCTS), rng)
    if rng.random() < 0.35:
        prefix = _fill(rng.choice(PREFIXES), rng)
        text = prefix + (text[0].lower() + text[1:] if text.startswith(("My ", "Our ", "The ", "We ")) else text)
    return text + "."


def make_facts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [make_fact(rng) for _ in range(n)]


def make_questions(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [_fill(rng.choice(QUESTION_TEMPLATES), rng) for _ in range(n)]


def spread_dates(n: int, seed: int, days: int = 3 * 365) -> list[datetime]:
    """n save times over the last `days` days, in increasing order (saves come in order)."""
    rng = random.Random(seed)
    end = datetime(2025, 6, 1, tzinfo=timezone.utc)
    offsets = sorted(rng.uniform(0, days * 86400) for _ in range(n))
    return [end - timedelta(seconds=days * 86400 - o) for o in offsets]


# ------------------------------------------------------------------------------ vector cache
class CachingEmbedder:
    """Wraps an embedder for the bulk load: vectors by text hash, kept on disk between runs;
    only texts never seen are sent to the model. Counts what the model did, and how long it
    took, so the load rate can be stated honestly."""

    def __init__(self, inner: Any, cache_dir: str | None) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "embedder")
        self.path = Path(cache_dir) / f"{self.name}-{inner.dim}.npz" if cache_dir else None
        self.vectors: dict[str, np.ndarray] = {}
        self.dirty = False
        self.model_s = 0.0
        self.model_texts = 0
        self.cached_texts = 0
        if self.path is not None and self.path.exists():
            try:
                data = np.load(self.path)
                self.vectors = dict(zip((str(k) for k in data["keys"]), data["vecs"]))
            except Exception:  # noqa: BLE001 - a broken cache is just empty
                self.vectors = {}

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    @property
    def ready(self) -> bool:
        return bool(self.inner.ready)

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    async def embed(self, texts: list[str]) -> np.ndarray:
        keys = [self.key(t) for t in texts]
        missing = [i for i, k in enumerate(keys) if k not in self.vectors]
        if missing:
            started = time.perf_counter()
            fresh = await self.inner.embed([texts[i] for i in missing])
            self.model_s += time.perf_counter() - started
            self.model_texts += len(missing)
            for i, vec in zip(missing, np.asarray(fresh, dtype=np.float32)):
                self.vectors[keys[i]] = vec
            self.dirty = self.path is not None
        self.cached_texts += len(texts) - len(missing)
        return np.stack([self.vectors[k] for k in keys]) if texts else np.zeros((0, self.dim), np.float32)

    def reset_counts(self) -> None:
        self.model_s, self.model_texts, self.cached_texts = 0.0, 0, 0

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self.vectors.keys()))
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=keys, vecs=np.stack([self.vectors[k] for k in keys]))
        os.replace(tmp, self.path)
        self.dirty = False


# ------------------------------------------------------------------------------ measuring
def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def _ms(values: Sequence[float], q: float) -> float:
    return round(percentile(values, q) * 1000.0, 3)


def _set_synchronous(db: Any, mode: str) -> Callable[[], None]:
    """Open the pool's connections anew with PRAGMA synchronous=`mode` (after the product's own
    pragmas); returns the function that puts FULL back. Only for showing what FULL costs."""
    from sqlalchemy import event

    def pragma(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA synchronous={mode}")
        cur.close()

    event.listen(db.engine, "connect", pragma)
    db.engine.dispose()

    def undo() -> None:
        event.remove(db.engine, "connect", pragma)
        db.engine.dispose()

    return undo


async def measure_size(
    n: int,
    settings: Settings,
    embedder: Any | None,
    database_url: str,
    *,
    others: int = 100,
    others_memories: int = 100,
    queries: int = 300,
    remembers: int = 100,
    seed: int = 1,
    embed_per_s: float | None = None,
    sync_compare: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """One size: load, then time recall / recall with embedding / remember / bm25s."""
    from bench.retrieval import Bm25Baseline, bm25_tokens
    from bot.storage.db import Database
    from bot.memory.index.semantic import SemanticIndex
    from bot.memory.service import MemoryService

    say = progress or (lambda _msg: None)
    cache = embedder if isinstance(embedder, CachingEmbedder) else None
    model = cache.inner if cache is not None else embedder
    db = Database(database_url)
    memory = MemoryService(db, settings, SemanticIndex(db, embedder))
    out: dict[str, Any] = {"memories": n}
    try:
        # ---- the bulk load: the person's batches interleaved with the other people's
        person = await memory.owner_for("bench", "latency-person")
        assert person is not None
        texts = make_facts(n, seed)
        dates = spread_dates(n, seed)
        other_ids = [await memory.owner_for("bench", f"latency-other-{i}") for i in range(others)]
        other_texts = [make_facts(others_memories, seed * 1000 + i + 1) for i in range(others)]
        other_dates = [spread_dates(others_memories, seed * 1000 + i + 1) for i in range(others)]
        batches = [(person, list(zip(texts[i:i + LOAD_BATCH], dates[i:i + LOAD_BATCH])))
                   for i in range(0, n, LOAD_BATCH)]
        other_batches = [(oid, list(zip(t, d))) for oid, t, d in zip(other_ids, other_texts, other_dates)]
        plan: list[tuple[int, list[tuple[str, datetime]]]] = []
        step = max(1, len(other_batches) // max(1, len(batches)))
        for i, batch in enumerate(batches):
            plan.append(batch)
            plan.extend(other_batches[i * step:(i + 1) * step])
        plan.extend(other_batches[len(batches) * step:])
        loaded = sum(len(items) for _, items in plan)
        if cache is not None:
            cache.reset_counts()
        say(f"{n}: loading {loaded} memories ({n} for the person, {others} x {others_memories} others)")
        started = time.perf_counter()
        done = 0
        for oid, items in plan:
            await memory.remember_many(oid, items)  # type: ignore[arg-type]
            done += len(items)
            if done % 20000 < len(items):
                say(f"{n}: loaded {done}/{loaded} ({time.perf_counter() - started:.0f}s)")
        load_s = time.perf_counter() - started
        out["loaded"] = loaded
        out["load_s"] = round(load_s, 2)
        if cache is not None and cache.cached_texts:
            # the cache's own time (a hash and a dict read per text) counts as database time
            db_s = max(load_s - cache.model_s, 1e-9)
            rate = embed_per_s or (cache.model_texts / cache.model_s if cache.model_s else None)
            out["build_per_s"] = round(loaded / (db_s + loaded / rate), 1) if rate else round(loaded / db_s, 1)
            out["build_per_s_estimated"] = True
            out["build_vectors_from_cache"] = cache.cached_texts
            out["build_db_per_s"] = round(loaded / db_s, 1)
        else:
            out["build_per_s"] = round(loaded / load_s, 1)
            out["build_per_s_estimated"] = False
            if cache is not None and cache.model_s:
                out["build_db_per_s"] = round(loaded / max(load_s - cache.model_s, 1e-9), 1)
        if cache is not None:
            cache.save()
            memory.semantic.embedder = model  # everything timed from here on uses the model itself

        # ---- questions: vectors beforehand, then warm up (loads the person's vector matrix)
        qs = make_questions(queries, seed + 7)
        started = time.perf_counter()
        first = await memory.recall(person, qs[0], record_use=False)
        out["first_recall_ms"] = round((time.perf_counter() - started) * 1000, 1)
        out["mode"] = first.mode
        qvecs = [await memory.query_vector(person, q) for q in qs]
        for q, v in zip(qs[:10], qvecs[:10]):
            await memory.recall(person, q, query_vector=v, record_use=False)
            await memory.recall(person, q, record_use=False)
        baseline = Bm25Baseline(texts)
        for q in qs[:10]:
            baseline.search_tokens(bm25_tokens([q])[0], TOP)

        say(f"{n}: timing {queries} questions")
        t_recall: list[float] = []
        t_embed: list[float] = []
        t_bm25: list[float] = []
        hits = 0
        # in rounds of PASS questions, each kind timed in a pass of its own: the three kinds
        # see the same background load, and none is timed right after another kind's work
        # (the model's threads are still winding down after an embedding)
        pairs = list(zip(qs, qvecs))
        for start in range(0, len(pairs), PASS):
            chunk = pairs[start:start + PASS]
            for q, v in chunk:
                started = time.perf_counter()
                got = await memory.recall(person, q, query_vector=v, record_use=False)
                t_recall.append(time.perf_counter() - started)
                hits += bool(got.memory_ids)
            for q, _ in chunk:
                started = time.perf_counter()
                await memory.recall(person, q, record_use=False)
                t_embed.append(time.perf_counter() - started)
            for q, _ in chunk:
                started = time.perf_counter()
                baseline.search_tokens(bm25_tokens([q])[0], TOP)
                t_bm25.append(time.perf_counter() - started)

        # ---- remember with the conflict check, fsync on every commit (synchronous=FULL)
        say(f"{n}: timing {remembers} saves")
        new_facts = make_facts(2 * remembers, seed + 99)
        for fact in new_facts[:3]:  # warm-up
            await memory.remember(person, "Warm-up: " + fact, review=True)
        t_remember: list[float] = []
        outcomes = {"saved": 0, "asked": 0, "duplicate": 0}
        for fact in new_facts[:remembers]:
            started = time.perf_counter()
            res = await memory.remember(person, fact, review=True)
            t_remember.append(time.perf_counter() - started)
            outcomes["duplicate" if res.duplicate_of is not None else "asked" if res.asked else "saved"] += 1
        t_remember_normal: list[float] = []
        if sync_compare and db.dialect == "sqlite":
            undo = _set_synchronous(db, "NORMAL")
            try:
                for fact in new_facts[remembers:]:
                    started = time.perf_counter()
                    await memory.remember(person, fact, review=True)
                    t_remember_normal.append(time.perf_counter() - started)
            finally:
                undo()

        out.update({
            "queries": len(qs),
            "recall_p50_ms": _ms(t_recall, 50), "recall_p95_ms": _ms(t_recall, 95),
            "recall_embed_p50_ms": _ms(t_embed, 50), "recall_embed_p95_ms": _ms(t_embed, 95),
            "remember_p50_ms": _ms(t_remember, 50), "remember_p95_ms": _ms(t_remember, 95),
            "bm25_p50_ms": _ms(t_bm25, 50), "bm25_p95_ms": _ms(t_bm25, 95),
            "recall_answered_share": round(hits / max(1, len(qs)), 3),
            "remember_outcomes": outcomes,
        })
        if t_remember_normal:
            out["remember_sync_normal_p50_ms"] = _ms(t_remember_normal, 50)
            out["remember_sync_normal_p95_ms"] = _ms(t_remember_normal, 95)
        bm = out["bm25_p95_ms"]
        out["recall_vs_bm25_p95"] = round(out["recall_p95_ms"] / bm, 2) if bm else None
        out["recall_embed_vs_bm25_p95"] = round(out["recall_embed_p95_ms"] / bm, 2) if bm else None
    finally:
        db.dispose()
    return out


def embed_rate(model: Any, texts: list[str], runs: int = 1) -> float | None:
    """Texts per second the model embeds in batches, measured now (None without a model)."""
    if model is None or not getattr(model, "ready", False):
        return None
    encode = getattr(model, "encode_sync", None)
    if encode is None:
        return None
    encode(texts[:32])  # warm-up
    started = time.perf_counter()
    for _ in range(runs):
        encode(texts)
    return round(len(texts) * runs / (time.perf_counter() - started), 1)


async def run_benchmark(
    sizes: Sequence[int],
    settings: Settings,
    embedder: Any | None,
    *,
    workdir: str,
    cache_dir: str | None = None,
    others: int = 100,
    others_memories: int = 100,
    queries: int = 300,
    remembers: int = 100,
    seed: int = 1,
    sync_compare: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every size on its own fresh database under `workdir`; the result object --json prints."""
    say = progress or (lambda _msg: None)
    rate = None
    if embedder is not None and getattr(embedder, "ready", False):
        rate = await asyncio.to_thread(embed_rate, embedder, make_facts(512, seed + 31337))
        if rate is not None:
            say(f"the model embeds {rate:.0f} memories/s in batches")
    wrapped = CachingEmbedder(embedder, cache_dir) if embedder is not None and getattr(embedder, "ready", False) else None
    sizes_out: dict[str, Any] = {}
    for n in sizes:
        started = time.perf_counter()
        url = f"sqlite:///{Path(workdir) / f'latency-{n}.db'}"
        res = await measure_size(
            n, settings, wrapped if wrapped is not None else embedder, url, others=others,
            others_memories=others_memories, queries=queries, remembers=remembers, seed=seed,
            embed_per_s=rate, sync_compare=sync_compare, progress=progress,
        )
        if rate is not None:
            res["embed_per_s"] = rate
        res["run_s"] = round(time.perf_counter() - started, 1)
        for path in Path(workdir).glob(f"latency-{n}.db*"):
            path.unlink(missing_ok=True)
        sizes_out[str(n)] = res
        say(f"{n}: done in {res['run_s']:.0f}s: recall p95 {res['recall_p95_ms']:.1f} ms, with embedding "
            f"{res['recall_embed_p95_ms']:.1f} ms, remember p95 {res['remember_p95_ms']:.1f} ms, "
            f"bm25 p95 {res['bm25_p95_ms']:.2f} ms")
    result: dict[str, Any] = {"sizes": sizes_out}
    result["growth"] = growth(sizes_out)
    return result


def growth(sizes: dict[str, Any]) -> dict[str, Any]:
    """p95 ratios between consecutive sizes, next to the ratio of the sizes (linear = equal)."""
    keys = sorted(sizes, key=int)
    out = {}
    for a, b in zip(keys, keys[1:]):
        ra, rb = sizes[a], sizes[b]
        entry = {"size_ratio": round(int(b) / int(a), 2)}
        for metric in ("recall_p95_ms", "recall_embed_p95_ms", "remember_p95_ms", "bm25_p95_ms"):
            if ra.get(metric):
                entry[metric] = round(rb[metric] / ra[metric], 2)
        out[f"{a}->{b}"] = entry
    return out


def format_table(result: dict[str, Any]) -> str:
    sizes = result["sizes"]
    keys = sorted(sizes, key=int)
    rows = [
        ("recall p50 ms", "recall_p50_ms"), ("recall p95 ms", "recall_p95_ms"),
        ("recall+embed p50 ms", "recall_embed_p50_ms"), ("recall+embed p95 ms", "recall_embed_p95_ms"),
        ("remember p50 ms", "remember_p50_ms"), ("remember p95 ms", "remember_p95_ms"),
        ("  sync=NORMAL p95 ms", "remember_sync_normal_p95_ms"),
        ("bm25s p50 ms", "bm25_p50_ms"), ("bm25s p95 ms", "bm25_p95_ms"),
        ("recall/bm25s p95", "recall_vs_bm25_p95"), ("recall+embed/bm25s p95", "recall_embed_vs_bm25_p95"),
        ("bulk load /s", "build_per_s"), ("first recall ms", "first_recall_ms"), ("run s", "run_s"),
    ]
    lines = [f"{'memories of the person':24s}" + "".join(f"{k:>12s}" for k in keys)]
    for label, key in rows:
        cells = []
        for k in keys:
            v = sizes[k].get(key)
            cells.append(f"{'-':>12s}" if v is None else f"{v:12.2f}")
        lines.append(f"{label:24s}" + "".join(cells))
    if any(sizes[k].get("build_per_s_estimated") for k in keys):
        lines.append("(bulk load rate: database time measured, model time at the rate measured in this run)")
    lines.append(f"mode: {sizes[keys[0]].get('mode', '?') if keys else '?'}")
    for span, g in result.get("growth", {}).items():
        lines.append(f"growth {span} (x{g['size_ratio']:g} memories): " + ", ".join(
            f"{m.replace('_ms', '')} x{v:g}" for m, v in g.items() if m != "size_ratio"))
    if "10000" in sizes:
        s = sizes["10000"]
        verdicts = [f"{k.replace('_ms', '')} {s[k]:.1f} ms <= {t:g}: {'met' if s[k] <= t else 'NOT met'}"
                    for k, t in TARGETS_AT_10000.items()]
        lines.append("targets at 10,000: " + "; ".join(verdicts))
    return "\n".join(lines)


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(s.replace("_", "")) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--memories takes numbers separated by commas, not {text!r}") from None
    if not sizes or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError("--memories needs at least one positive size")
    return sizes


def main(settings: Settings, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=parse_sizes, default=parse_sizes(DEFAULT_SIZES),
                        help=f"sizes of the person's memory, comma-separated (default {DEFAULT_SIZES})")
    parser.add_argument("--others", type=int, default=100, help="other people in the database (default 100)")
    parser.add_argument("--others-memories", type=int, default=100, help="memories of each other person (default 100)")
    parser.add_argument("--queries", type=int, default=300, help="questions timed per size (default 300)")
    parser.add_argument("--remembers", type=int, default=100, help="saves timed per size (default 100)")
    parser.add_argument("--embedding", default=None,
                        help="default (MiniLM), none (keyword only), or a model folder (default: EMBEDDING_MODEL)")
    parser.add_argument("--vector-cache", default=DEFAULT_CACHE,
                        help=f"folder for the bulk load's vectors by text hash (default {DEFAULT_CACHE}); 'none' for no cache")
    parser.add_argument("--no-sync-compare", action="store_true",
                        help="skip the extra saves with synchronous=NORMAL that show what FULL costs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print only one JSON object")
    args = parser.parse_args(argv)
    if args.queries < 1 or args.remembers < 1 or args.others < 0 or args.others_memories < 1:
        parser.error("--queries and --remembers must be at least 1, --others at least 0")
    logging.getLogger("bm25s").setLevel(logging.WARNING)

    def progress(msg: str) -> None:
        print(f"[latency] {msg}", file=sys.stderr, flush=True)

    from bench.retrieval import load_embedder

    total_started = time.perf_counter()
    overrides: dict[str, Any] = {}
    if args.embedding is not None:
        overrides["embedding_model"] = args.embedding
    with tempfile.TemporaryDirectory(prefix="bench-latency-") as tmp:
        bench_settings = settings.model_copy(update=overrides | {"database_url": f"sqlite:///{Path(tmp) / 'unused.db'}"})
        embedder = load_embedder(bench_settings)
        if embedder is not None and not embedder.ready:
            progress(f"embedding model unavailable ({getattr(embedder, 'error', '?')}); keyword mode")
        cache_dir = None if str(args.vector_cache).lower() in ("", "none", "off") else args.vector_cache
        try:
            result = asyncio.run(run_benchmark(
                args.memories, bench_settings, embedder, workdir=tmp, cache_dir=cache_dir, others=args.others,
                others_memories=args.others_memories, queries=args.queries, remembers=args.remembers,
                seed=args.seed, sync_compare=not args.no_sync_compare, progress=progress,
            ))
        finally:
            close = getattr(embedder, "close", None)
            if close is not None:
                close()
    progress(f"total {time.perf_counter() - total_started:.0f}s")
    print(json.dumps(result) if args.json else format_table(result))
    return 0
