"""Tables for the recall scoring rules (bot.memory.recall.scoring)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.config import Settings
from bot.memory.recall import scoring as sc

D = datetime


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ({}, {}),
        ({1: 4.0, 2: 2.0, 3: 0.0}, {1: 1.0, 2: 0.5, 3: 0.0}),
        ({1: -1.0, 2: 0.5}, {1: 0.0, 2: 1.0}),
        ({1: 0.0, 2: 0.0}, {1: 0.0, 2: 0.0}),
        ({1: -3.0}, {1: 0.0}),
    ],
)
def test_normalise_by_max(scores, expected) -> None:
    assert sc.normalise_by_max(scores) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("kw", "vec", "w", "expected"),
    [
        ({1: 10.0, 2: 5.0}, {2: 0.8, 3: 0.4}, 0.7, {1: 0.7, 2: 0.35 + 0.3, 3: 0.15}),
        ({1: 10.0}, {}, 0.7, {1: 1.0}),  # no vectors: keyword alone at full weight
        ({}, {1: 0.5, 2: 0.25}, 0.7, {1: 1.0, 2: 0.5}),  # no keyword hit: vectors alone
        ({}, {}, 0.7, {}),
        ({1: 1.0}, {1: 1.0}, 1.5, {1: 1.0}),  # weight clamped to 0..1
    ],
)
def test_fuse_scores(kw, vec, w, expected) -> None:
    assert sc.fuse_scores(kw, vec, w) == pytest.approx(expected)


def test_rrf_normalised() -> None:
    out = sc.rrf([[1, 2, 3], [1, 3]], k=60)
    assert out[1] == pytest.approx(1.0)
    assert out[3] > out[2]
    assert sc.rrf([], k=60) == {}


T0 = D(2023, 5, 8, 13, 0)


def test_neighbour_pairs_respects_window_and_gap() -> None:
    timeline = [(1, T0), (2, T0), (3, T0), (4, T0 + timedelta(days=3)), (5, None), (6, T0)]
    pairs = sc.neighbour_pairs(timeline, window=2, max_gap=timedelta(hours=1))
    assert sorted(pairs[1]) == [(2, 1), (3, 2)]
    assert sorted(pairs[3]) == [(1, 2), (2, 1)]  # 4 is days later: another conversation
    assert pairs[4] == []
    assert pairs[5] == [] and pairs[6] == []  # no date: no neighbours


@pytest.mark.parametrize(
    ("scores", "share", "expected"),
    [
        ({2: 1.0}, 0.2, {1: 0.2, 2: 1.0, 3: 0.2}),
        ({1: 0.5, 2: 1.0}, 0.2, {1: 0.7, 2: 1.1, 3: 0.2}),
        ({2: 0.0}, 0.2, {2: 0.0}),
        ({2: 1.0}, 0.0, {1: 0.0, 2: 1.0, 3: 0.0}),
    ],
)
def test_neighbour_boost(scores, share, expected) -> None:
    neighbours = {1: [(2, 1)], 2: [(1, 1), (3, 1)], 3: [(2, 1)]}
    assert sc.neighbour_boost(scores, neighbours, share) == pytest.approx(expected)


def test_date_bonus() -> None:
    created = {1: D(2023, 7, 7), 2: D(2023, 7, 20), 3: D(2023, 9, 1), 4: None, 5: D(2023, 7, 5)}
    period = (D(2023, 7, 7), D(2023, 7, 8))
    out = sc.date_bonus({k: 0.5 for k in created}, created, period, bonus=0.4,
                        slack_before=timedelta(days=1), slack_after=timedelta(days=14))
    assert out == pytest.approx({1: 0.9, 2: 0.9, 3: 0.5, 4: 0.5, 5: 0.5})
    assert sc.date_bonus({1: 0.5}, created, None) == {1: 0.5}


def test_relevance_scores_end_to_end() -> None:
    rel = sc.relevance_scores({1: 8.0, 2: 2.0}, {2: 0.9, 3: 0.3},
                              neighbours={3: [(4, 1)], 4: [(3, 1)]},
                              params=sc.FusionParams(keyword_weight=0.7))
    assert max(rel.values()) == pytest.approx(1.0)
    assert rel[1] == pytest.approx(1.0)
    assert 4 in rel and 0 < rel[4] < rel[3]
    assert sc.relevance_scores({}, {}) == {}
    # default weights: the vector side weighs more
    assert max(sc.relevance_scores({1: 8.0, 2: 2.0}, {2: 0.9}).items(), key=lambda kv: kv[1])[0] == 2


def test_relevance_scores_date_period() -> None:
    created = {1: D(2023, 1, 1), 2: D(2023, 7, 9)}
    rel = sc.relevance_scores({1: 2.0, 2: 1.8}, {}, created_at=created,
                              period=(D(2023, 7, 7), D(2023, 7, 8)))
    assert rel[2] == pytest.approx(1.0) and rel[1] < 1.0


@pytest.mark.parametrize(
    ("when", "newest", "half_life", "expected"),
    [
        (D(2024, 1, 31), D(2024, 1, 31), 30, 1.0),
        (D(2024, 1, 1), D(2024, 1, 31), 30, 0.5),
        (D(2023, 12, 2), D(2024, 1, 31), 30, 0.25),
        (D(2024, 2, 5), D(2024, 1, 31), 30, 1.0),  # newer than "newest": clamp
        (None, D(2024, 1, 31), 30, 0.0),
        (D(2024, 1, 1), None, 30, 0.0),
    ],
)
def test_recency_score(when, newest, half_life, expected) -> None:
    assert sc.recency_score(when, newest, half_life) == pytest.approx(expected)


@pytest.mark.parametrize(("uses", "low", "high"), [(0, 0.0, 0.0), (1, 0.05, 0.15),
                                                    (10, 0.6, 0.65), (1000, 0.99, 1.0)])
def test_frequency_saturates(uses, low, high) -> None:
    assert low <= sc.frequency_score(uses) <= high


W = sc.Weights()


@pytest.mark.parametrize(
    ("args", "expected_total"),
    [
        ((1.0, 1.0, 1.0, 1.0, 1.0), 1.0),
        ((0.0, 0.0, 0.0, 0.0, 0.0), 0.0),
        ((1.0, 0.0, 0.0, 0.0, 0.0), 0.5),
        ((0.0, 1.0, 1.0, 1.0, 1.0), 0.4),  # recency counts only with relevance
        ((0.5, 0.5, 1.0, 1.0, 0.0), 0.25 + 0.075 + 0.15 + 0.05),
        ((2.0, -1.0, 1.0, 0.0, 0.0), 0.5 + 0.15),  # clamped to 0..1
    ],
)
def test_score_memory_weights(args, expected_total) -> None:
    parts = sc.score_memory(*args, W)
    assert parts.total == pytest.approx(expected_total)
    assert parts.identity == 0.0


def test_identity_fact_wins_for_identity_question() -> None:
    name = sc.score_memory(0.1, 0.5, 1.0, 0.0, 0.0, W, identity=True)
    other = sc.score_memory(1.0, 1.0, 1.0, 1.0, 1.0, W)
    assert name.total > other.total
    assert sc.rank_ids([(1, other), (2, name)]) == [2, 1]


def test_recent_but_irrelevant_cannot_beat_old_and_relevant() -> None:
    old_relevant = sc.score_memory(1.0, 0.5, 1.0, 0.0, 0.0, W)
    new_weak = sc.score_memory(0.6, 0.5, 1.0, 1.0, 0.0, W)
    assert old_relevant.total > new_weak.total


def test_weights_from_settings() -> None:
    s = Settings(_env_file=None, recall_weight_recency=0.0)
    w = sc.Weights.from_settings(s)
    assert w.recency == 0.0 and w.relevance == 0.5 and w.total == pytest.approx(0.9)
    assert sc.score_memory(1, 1, 1, 1, 1, sc.Weights(0, 0, 0, 0, 0)).total == 0.0


def test_score_parts_as_dict() -> None:
    d = sc.score_memory(0.5, 0.5, 0.5, 0.5, 0.5).as_dict()
    assert set(d) == {"relevance", "importance", "confidence", "recency", "frequency",
                      "identity", "total"}


@given(st.lists(st.floats(min_value=-5, max_value=5, allow_nan=False), min_size=5, max_size=5),
       st.booleans())
def test_total_is_bounded(values, identity) -> None:
    parts = sc.score_memory(*values, W, identity=identity)
    assert 0.0 <= parts.total <= 1.0 + (1.0 if identity else 0.0) + 1e-9


def test_rank_for_recall_uses_all_factors() -> None:
    facts = {
        1: sc.MemoryFacts(1, D(2023, 1, 1), category="fact"),
        2: sc.MemoryFacts(2, D(2024, 1, 1), category="fact"),
        3: sc.MemoryFacts(3, D(2020, 1, 1), category="identity"),
        4: sc.MemoryFacts(4, D(2024, 1, 1), importance=1.0, confidence=1.0, uses=50),
    }
    kw = {1: 5.0, 2: 5.0, 3: 1.0}
    ranked = sc.rank_for_recall(kw, {}, facts, newest=D(2024, 1, 1))
    ids = [m for m, _ in ranked]
    assert ids[:2] == [2, 1]  # same relevance: the newer one first
    assert 4 not in ids  # not a candidate: never brought in by its other factors
    who = sc.rank_for_recall(kw, {}, facts, newest=D(2024, 1, 1), identity_question=True)
    assert who[0][0] == 3 and who[0][1].identity == 1.0
    # ids without facts (deleted meanwhile) are dropped
    assert [m for m, _ in sc.rank_for_recall({9: 1.0}, {}, facts)] == []


@pytest.mark.parametrize(
    ("scores", "successors", "expected"),
    [
        # the current value inherits the matching old one's score
        ({1: 0.8}, {1: 3}, {1: 0.8, 3: 0.8}),
        # a chain is one topic: every member gets its best
        ({1: 0.8, 7: 0.1}, {1: 3, 2: 3}, {1: 0.8, 2: 0.8, 3: 0.8, 7: 0.1}),
        # the current one matching lends its score to its past values (past questions want them)
        ({3: 0.5}, {1: 3}, {1: 0.5, 3: 0.5}),
        # a member's own better score stays
        ({1: 0.4, 3: 0.9}, {1: 3}, {1: 0.9, 3: 0.9}),
        # a topic nobody matched adds nothing
        ({7: 0.2}, {1: 3}, {7: 0.2}),
        ({}, {}, {}),
    ],
)
def test_successor_boost(scores, successors, expected) -> None:
    assert sc.successor_boost(scores, successors) == expected
