"""The curator's pure decisions as tables: what is a true duplicate, who survives a merge, what
has expired, which junk flags are taken, and when the fingerprint changes."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta, timezone

import pytest

from bot.memory.writing.curator import (
    Item,
    Merge,
    accept_junk_flag,
    decide,
    fingerprint,
    is_expired,
    is_true_duplicate,
    junk_candidates,
    plan_merges,
)

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


def item(i: int, text: str, **kw) -> Item:
    kw.setdefault("created_at", NOW - timedelta(days=10 - i))
    return Item(id=i, text=text, **kw)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("I love hiking in the mountains", "I really love hiking in the mountains", True),
        ("I live in London", "I live in London.", True),
        ("I am vegan", "I'm a vegan", True),
        # near misses: a number, a slot value, a name, a detail, a polarity
        ("I have 2 kids", "I have 3 kids", False),
        ("I live in London", "I live in Paris", False),
        ("My sister is called Anna", "My sister is called Maria", False),
        ("I drive a VW Golf", "I drive a VW Polo", False),
        ("I like green tea", "I like green tea with honey", False),
        ("I don't eat meat", "I eat meat", False),
        ("I work as a nurse", "I worked as a nurse", False),
        ("I have a dog", "I have a cat", False),
    ],
)
def test_true_duplicates_by_text(a, b, expected):
    assert is_true_duplicate(item(1, a), item(2, b)) is expected
    assert is_true_duplicate(item(2, b), item(1, a)) is expected


SAME = "I love hiking in the mountains"


@pytest.mark.parametrize(
    "change",
    [
        {"status": "historical"},
        {"status": "unsure"},
        {"archived": True},
        {"in_question": True},
        {"valid_from": date(2020, 1, 1)},
        {"reverted": frozenset({"merged"})},
        {"text": "   "},
    ],
)
def test_never_merged_when_state_dates_or_history_differ(change):
    a = item(1, SAME)
    b = replace(item(2, SAME), **change)
    assert not is_true_duplicate(a, b)


def test_a_merge_keeps_the_newest_memory_with_the_highest_confidence_and_importance():
    items = [
        item(1, SAME, confidence=1.0, importance=0.3, source="command", created_at=NOW - timedelta(days=30)),
        item(2, "I really love hiking in the mountains", confidence=0.7, importance=0.6, source="chat",
             created_at=NOW - timedelta(days=1)),
        item(3, "I love hiking in the mountains!", confidence=0.5, importance=0.2, created_at=NOW - timedelta(days=9)),
        item(4, "I have 2 kids"),
        item(5, "I have 3 kids"),
    ]
    assert plan_merges(items) == (Merge(keep_id=2, merged_ids=(1, 3), confidence=1.0, importance=0.6),)


def test_duplicates_are_grouped_only_when_every_pair_is_a_duplicate():
    items = [item(1, "I live in London"), item(2, "I live in Paris"), item(3, "I live in London.")]
    assert plan_merges(items) == (Merge(keep_id=3, merged_ids=(1,), confidence=1.0, importance=0.5),)


OLD = NOW - timedelta(days=200)


@pytest.mark.parametrize(
    "change, expected",
    [
        ({}, True),
        ({"status": "historical"}, True),
        ({"importance": 0.1}, False),
        ({"importance": 0.5}, False),
        ({"created_at": NOW - timedelta(days=119)}, False),
        ({"last_used_at": NOW - timedelta(days=30)}, False),
        ({"confirmed_at": NOW - timedelta(days=10)}, False),
        ({"person_touched_at": NOW - timedelta(days=5)}, False),  # restored or edited by the person
        ({"status": "unsure"}, False),
        ({"in_question": True}, False),
        ({"archived": True}, False),
        ({"reverted": frozenset({"auto_archived"})}, False),
    ],
)
def test_expiry(change, expected):
    base = item(1, "I keep old receipts", importance=0.05, created_at=OLD)
    assert is_expired(replace(base, **change), NOW) is expected


@pytest.mark.parametrize(
    "text, probability, expected",
    [
        ("", None, True),
        ("   \n", None, True),
        ("You are called Jarvis", 0.95, True),
        ("The assistant should always answer in French", 0.92, True),
        ("You are called Jarvis", 0.8, False),  # not sure enough
        ("I like tea", 0.99, False),  # the rules disagree: a fact about the person
        ("My name is Ana", None, False),
    ],
)
def test_junk_flags_are_taken_only_when_sure_and_plausible(text, probability, expected):
    assert accept_junk_flag(text, probability) is expected


def test_decide_touches_each_memory_once_junk_then_merges_then_expiry():
    items = [
        item(1, "", created_at=OLD, importance=0.01),
        item(2, SAME, created_at=OLD, importance=0.05),
        item(3, "I really love hiking in the mountains", created_at=OLD, importance=0.05),
        item(4, "I keep old receipts", importance=0.05, created_at=OLD),
        item(5, "You are called Jarvis"),
        item(6, "I like tea"),
    ]
    plan = decide(items, NOW, {5: 0.97, 6: 0.99})
    assert plan.remove == ((1, "empty text"), (5, "a statement about the assistant, not about you"))
    assert plan.merges == (Merge(keep_id=3, merged_ids=(2,), confidence=1.0, importance=0.05),)
    assert plan.archive == (4,)


def test_the_fingerprint_changes_with_a_change_or_when_something_becomes_expirable():
    items = [item(1, SAME), item(2, "I keep old receipts", importance=0.05, created_at=NOW - timedelta(days=119))]
    fp = fingerprint(items, NOW)
    assert fingerprint(list(reversed(items)), NOW) == fp
    assert fingerprint([replace(items[0], version=2), items[1]], NOW) != fp
    assert fingerprint(items[:1], NOW) != fp
    assert fingerprint(items, NOW + timedelta(days=2)) != fp  # item 2 crossed the 120-day line


def test_junk_candidates_are_what_is_new_since_the_last_run():
    items = [
        item(1, "old", created_at=NOW - timedelta(days=9), updated_at=NOW - timedelta(days=9)),
        item(2, "edited", created_at=NOW - timedelta(days=9), updated_at=NOW - timedelta(hours=1)),
        item(3, "new", created_at=NOW - timedelta(hours=2)),
        item(4, "kept by the person", created_at=NOW, reverted=frozenset({"deleted"})),
    ]
    since = NOW - timedelta(days=1)
    assert [c.id for c in junk_candidates(items, since)] == [3, 2]
    assert [c.id for c in junk_candidates(items, None)] == [3, 2, 1]


# --- bucketing and the per-run budget --------------------------------------------------------


def all_pairs_merges(items: list[Item]) -> tuple[Merge, ...]:
    """The curator before buckets: every memory checked against every group (the reference)."""
    groups: list[list[Item]] = []
    for it in sorted(items, key=lambda x: (x.created_at, x.id)):
        for group in groups:
            if all(is_true_duplicate(it, other) for other in group):
                group.append(it)
                break
        else:
            groups.append([it])
    out = []
    for group in groups:
        if len(group) > 1:
            keep, *rest = sorted(group, key=lambda x: (x.created_at, x.id), reverse=True)
            out.append(Merge(keep.id, tuple(sorted(r.id for r in rest)), max(g.confidence for g in group),
                             max(g.importance for g in group)))
    return tuple(sorted(out, key=lambda m: m.keep_id))


def varied_items(n: int, seed: int) -> list[Item]:
    """Realistic facts with restatements, near misses (another number, name, city, negation,
    date, status) and exact repeats mixed in."""
    import random

    from bench.latency import make_facts

    rng = random.Random(seed)
    base = make_facts(n // 3, seed)
    variants = [
        lambda t: t, lambda t: t.rstrip(".") + "!", lambda t: "Just so you know, " + t[0].lower() + t[1:],
        lambda t: t.replace("I ", "I really ", 1), lambda t: t.replace("2", "3"), lambda t: t.replace("London", "Paris"),
        lambda t: t.replace("My ", "my "), lambda t: t.replace(" is ", " isn't ", 1), lambda t: "I don't think " + t,
        lambda t: t + " too",
    ]
    texts = base + [rng.choice(variants)(rng.choice(base)) for _ in range(n - len(base))]
    texts += ["I live in London", "I live in London.", "I am vegan", "I'm a vegan", "I have 2 kids", "I have 3 kids"]
    items = []
    for i, text in enumerate(texts, 1):
        kw: dict = {}
        roll = rng.random()
        if roll < 0.05:
            kw["status"] = "historical"
        elif roll < 0.08:
            kw["valid_from"] = date(2020, 1, 1)
        elif roll < 0.10:
            kw["in_question"] = True
        items.append(item(i, text, confidence=rng.choice([0.5, 0.7, 1.0]), importance=rng.random(), **kw))
    return items


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_buckets_give_exactly_the_merges_of_checking_every_pair(seed):
    items = varied_items(240, seed)
    expected = all_pairs_merges(items)
    assert len(expected) >= 10, "the data has duplicates to find"
    assert plan_merges(items) == expected
    assert decide(items, NOW).merges == expected


def test_true_duplicates_share_a_merge_key():
    from bot.memory.writing.curator import merge_key

    items = varied_items(240, 4)
    for a in items:
        for b in items:
            if a.id < b.id and is_true_duplicate(a, b):
                assert merge_key(a) == merge_key(b), (a.text, b.text)


def test_merge_keys_resume_where_the_budget_ran_out_and_reuse_what_they_kept():
    from bot.memory.writing.curator import merge_keys

    items = varied_items(600, 5)
    ticks = iter(range(10_000))
    cache: dict = {}
    # a clock past the deadline at once: one batch of 64 per run, then stop
    keys, complete = merge_keys(items, cache, deadline=0.0, clock=lambda: float(next(ticks) + 1))
    assert not complete and 0 < len(keys) <= 64 and len(cache) == len(keys)
    runs = 1
    while not complete:
        keys, complete = merge_keys(items, cache, deadline=0.0, clock=lambda: 1.0)
        runs += 1
    assert runs > 3
    full, done = merge_keys(items)
    assert done and keys == full
    # a changed memory gets a new key; the others are read from the cache
    changed = [replace(items[0], text="I moved to Lisbon", version=2)] + items[1:]
    computed: list[int] = []
    keys2, done = merge_keys(changed, cache, deadline=0.0, clock=lambda: computed.append(1) or 1.0)
    assert done and keys2[items[0].id] != keys[items[0].id]
    assert computed == []  # one key computed, no batch of 64 reached: the clock was never read
    # memories that are gone leave the cache
    merge_keys(changed[10:], cache)
    assert set(cache) == {it.id for it in changed[10:] if it.id in keys2}
