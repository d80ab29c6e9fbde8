"""How recall ranks memories: pure functions over plain values.

Two stages, both measured on LoCoMo with bench/retrieval_lab.py (see its report):

1. Relevance (0..1) of each candidate for this question, from
   - the keyword score (BM25 / ts_rank), divided by the best keyword score of this query;
   - the vector cosine, clipped at 0 and divided by the best cosine of this query;
   fused as a weighted sum (keyword 0.4, vector 0.6). Score fusion beat reciprocal-rank fusion
   on LoCoMo: RRF throws away how far ahead the best match of each side is. `rrf` is kept for
   comparison. The vector side embeds the question without the owner's common words
   (search.vector_query_text), which is what makes it strong enough to weigh more.
   Then three context boosts: the values of one topic (a current memory and the older ones the
   person settled it replaces: "I moved to Berlin" after "I live in London") share the best
   score among them, since "where do I live?" may share a word with the old fact only; a memory
   saved right next to a strong match (same conversation,
   within two saves) gets a share of that match's score, because the answer to a question often
   sits in the message after the one that shares its words; and when the question names a
   date ("on 3 June 2023", "in August 2023"), memories saved in that period get a bonus.
   Finally divided by the best fused score so the top candidate has relevance 1.
2. The five-factor score: relevance, importance, confidence, recency, frequency, with weights
   from settings (50/15/15/10/10). Identity facts win for identity questions.

Recency is measured from the owner's newest memory, not from the wall clock, and decays with
a half-life: it says "how far back in this person's history", so a person who comes back after
a year off is not treated as having only stale memories. It only reorders candidates that
search already found, and it counts in proportion to relevance (see score_memory).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple, Protocol

__all__ = [
    "FusionParams",
    "MemoryFacts",
    "ScoreParts",
    "Weights",
    "date_bonus",
    "frequency_score",
    "fuse_scores",
    "neighbour_boost",
    "neighbour_pairs",
    "normalise_by_max",
    "recency_score",
    "relevance_scores",
    "rank_for_recall",
    "rank_ids",
    "rrf",
    "score_memory",
    "successor_boost",
]


@dataclass(frozen=True)
class Weights:
    """The five weights; they need not sum to 1 (the total is divided by their sum)."""

    relevance: float = 0.50
    importance: float = 0.15
    confidence: float = 0.15
    recency: float = 0.10
    frequency: float = 0.10

    @classmethod
    def from_settings(cls, settings: Any) -> Weights:
        return cls(
            relevance=settings.recall_weight_relevance,
            importance=settings.recall_weight_importance,
            confidence=settings.recall_weight_confidence,
            recency=settings.recall_weight_recency,
            frequency=settings.recall_weight_frequency,
        )

    @property
    def total(self) -> float:
        return self.relevance + self.importance + self.confidence + self.recency + self.frequency


@dataclass(frozen=True)
class FusionParams:
    """Constants of stage 1, chosen on LoCoMo conversations 0-4 and checked on 5-9."""

    keyword_weight: float = 0.4  # the vector side gets 1 - this (keyword alone without vectors)
    keyword_candidates: int = 50  # how many keyword matches to fetch
    vector_candidates: int = 50  # how many nearest vectors to fetch
    neighbour_share: float = 0.3  # a neighbour gets this share of a match's fused score
    neighbour_window: int = 2  # how many saves away still counts as next to
    neighbour_max_gap: timedelta = timedelta(hours=1)  # saved within this of each other
    date_bonus: float = 0.4  # added when the memory was saved in the period the question names
    date_slack_before: timedelta = timedelta(days=1)
    date_slack_after: timedelta = timedelta(days=14)  # people talk about things after they happen


class ScoreParts(NamedTuple):
    """Each factor (0..1) and the weighted total, so /why can show how a memory ranked.
    (A named tuple: recall builds one per candidate, ~140 a question.)"""

    relevance: float
    importance: float
    confidence: float
    recency: float
    frequency: float
    identity: float  # 1.0 when an identity fact answers an identity question, else 0.0
    total: float

    def as_dict(self) -> dict[str, float]:
        return self._asdict()


def _clamp01(x: float) -> float:
    if x != x:  # NaN
        return 0.0
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


# ------------------------------------------------------------------------------ stage 1
def normalise_by_max(scores: Mapping[int, float]) -> dict[int, float]:
    """Divide by the best score (negatives become 0); all zeros when nothing is positive."""
    best = max((s for s in scores.values() if s == s), default=0.0)
    if best <= 0.0:
        return {k: 0.0 for k in scores}
    return {k: _clamp01(s / best) for k, s in scores.items()}


def fuse_scores(
    keyword: Mapping[int, float], vector: Mapping[int, float], keyword_weight: float = 0.4
) -> dict[int, float]:
    """Weighted sum of the two normalised score sets over the union of their candidates.

    `keyword`: engine scores, higher better (BM25 negated, ts_rank). `vector`: cosines.
    A candidate missing from one side gets 0 there. When one side is empty (no searchable
    words, or no vectors), the other side alone decides, at full weight.
    """
    kw = normalise_by_max(keyword)
    vec = normalise_by_max(vector)
    if not kw and not vec:
        return {}
    if not vec:
        return dict(kw)
    if not kw:
        return dict(vec)
    wk = _clamp01(keyword_weight)
    return {k: wk * kw.get(k, 0.0) + (1.0 - wk) * vec.get(k, 0.0) for k in kw.keys() | vec.keys()}


def rrf(ranked_lists: Sequence[Sequence[int]], weights: Sequence[float] | None = None,
        k: float = 60.0) -> dict[int, float]:
    """Reciprocal-rank fusion, normalised to 0..1 (1 = first in every list).

    Kept for comparison and for sources without comparable scores; `fuse_scores` measured
    better on LoCoMo.
    """
    ws = list(weights) if weights is not None else [1.0] * len(ranked_lists)
    out: dict[int, float] = {}
    for lst, w in zip(ranked_lists, ws):
        for rank, key in enumerate(lst):
            out[key] = out.get(key, 0.0) + w / (k + rank + 1)
    best = sum(w / (k + 1) for w in ws)
    return {key: v / best for key, v in out.items()} if best > 0 else out


def neighbour_pairs(
    timeline: Sequence[tuple[int, datetime | None]],
    window: int = 2,
    max_gap: timedelta = timedelta(hours=1),
) -> dict[int, list[tuple[int, int]]]:
    """For each memory of `timeline`, its neighbours as (memory id, distance in saves).

    `timeline` is the owner's memories in save order (by id) with their created_at; it may be
    a slice, as long as it holds every memory between a candidate and its `window`-th
    neighbour on each side. Two memories are neighbours when at most `window` saves apart and
    saved within `max_gap` of each other (so they come from one conversation); a missing date
    on either side means "not neighbours".
    """
    out: dict[int, list[tuple[int, int]]] = {mid: [] for mid, _ in timeline}
    n = len(timeline)
    for i in range(n):
        mid, when = timeline[i]
        if when is None:
            continue
        for d in range(1, window + 1):
            j = i + d
            if j >= n:
                break
            other, other_when = timeline[j]
            if other_when is None or abs(other_when - when) > max_gap:
                break
            out[mid].append((other, d))
            out[other].append((mid, d))
    return out


def neighbour_boost(
    scores: Mapping[int, float],
    neighbours: Mapping[int, Sequence[tuple[int, int]]],
    share: float = 0.2,
) -> dict[int, float]:
    """Each memory gains `share` x the best fused score among its neighbours.

    A neighbour that was not a candidate becomes one. The boost uses the scores before
    boosting, so it does not chain along a conversation.
    """
    out = dict(scores)
    for mid, score in scores.items():
        if score <= 0.0:
            continue
        for other, _distance in neighbours.get(mid, ()):
            base = scores.get(other, 0.0)
            out[other] = max(out.get(other, 0.0), base + share * score)
    return out


def successor_boost(scores: Mapping[int, float], successors: Mapping[int, int]) -> dict[int, float]:
    """The values of one topic share its best score: a live memory and the older memories it
    replaced (directly or along a chain) all get the best score among them. The present value
    of a topic is as relevant as its past values ("where do I live?" shares a word with the old
    "I live in London" only), and a question about the past wants every past value.

    `successors` maps an older memory to the live memory at the end of its replacement chain
    (London -> Berlin -> Hamburg gives London -> Hamburg and Berlin -> Hamburg). Members that
    were not candidates become ones; historical ones reach a context only for past questions.
    """
    topics: dict[int, list[int]] = {}
    for old, new in successors.items():
        if old != new:
            topics.setdefault(new, [new]).append(old)
    out = dict(scores)
    for members in topics.values():
        best = max(scores.get(m, 0.0) for m in members)
        if best > 0.0:
            for m in members:
                out[m] = max(out.get(m, 0.0), best)
    return out


def date_bonus(
    scores: Mapping[int, float],
    created_at: Mapping[int, datetime | None],
    period: tuple[datetime, datetime] | None,
    bonus: float = 0.4,
    slack_before: timedelta = timedelta(days=1),
    slack_after: timedelta = timedelta(days=14),
) -> dict[int, float]:
    """Add `bonus` to memories saved within [start - slack_before, end + slack_after).

    `period` is the half-open range the question names (questions.question_period); None
    leaves the scores as they are. Memories without a date get nothing.
    """
    if period is None:
        return dict(scores)
    lo, hi = period[0] - slack_before, period[1] + slack_after
    out = {}
    for mid, score in scores.items():
        when = created_at.get(mid)
        if when is not None and lo <= _naive(when) < hi:
            score += bonus
        out[mid] = score
    return out


def _naive(when: datetime) -> datetime:
    # Periods parsed from text are naive; compare wall-clock values.
    return when.replace(tzinfo=None) if when.tzinfo is not None else when


def relevance_scores(
    keyword: Mapping[int, float],
    vector: Mapping[int, float],
    *,
    neighbours: Mapping[int, Sequence[tuple[int, int]]] | None = None,
    created_at: Mapping[int, datetime | None] | None = None,
    period: tuple[datetime, datetime] | None = None,
    params: FusionParams = FusionParams(),
    successors: Mapping[int, int] | None = None,
) -> dict[int, float]:
    """Stage 1 end to end: fuse, pass scores on to successors, boost by neighbours and by the
    named period, scale to 0..1."""
    fused = fuse_scores(keyword, vector, params.keyword_weight)
    if successors:
        fused = successor_boost(fused, successors)
    if neighbours:
        fused = neighbour_boost(fused, neighbours, params.neighbour_share)
    if period is not None and created_at:
        fused = date_bonus(fused, created_at, period, params.date_bonus,
                           params.date_slack_before, params.date_slack_after)
    return normalise_by_max(fused)


# ------------------------------------------------------------------------------ stage 2
def recency_score(when: datetime | None, newest: datetime | None, half_life_days: float) -> float:
    """2 ** -(age / half-life), age counted back from the owner's newest memory.

    1.0 for the newest memory; 0.5 one half-life before it; 0.0 without a date.
    """
    return _recency_from(newest, half_life_days)(when)


def _recency_from(newest: datetime | None, half_life_days: float) -> Callable[[datetime | None], float]:
    """recency_score with the newest memory's time prepared once (same values)."""
    if newest is None or half_life_days <= 0:
        return lambda _when: 0.0
    top = _naive(newest)

    def recency(when: datetime | None) -> float:
        if when is None:
            return 0.0
        age_days = (top - _naive(when)).total_seconds() / 86400.0
        if age_days <= 0:
            return 1.0
        return _clamp01(math.pow(2.0, -age_days / half_life_days))

    return recency


def frequency_score(uses: int, saturation: float = 10.0) -> float:
    """Saturating use count: 0 uses -> 0, `saturation` uses -> ~0.63, many -> 1.

    Saturating so that a memory recalled a hundred times cannot outrank a relevant one.
    """
    if uses <= 0:
        return 0.0
    return _clamp01(1.0 - math.exp(-uses / saturation))


def score_memory(
    relevance: float,
    importance: float,
    confidence: float,
    recency: float,
    frequency: float,
    weights: Weights = Weights(),
    *,
    identity: bool = False,
) -> ScoreParts:
    """The weighted five-factor score, 0..1 (then +1 for an identity fact on an identity question).

    Recency counts in proportion to relevance (weight x recency x relevance): it helps choose
    among memories that answer the question and cannot lift a recent but unrelated one over an
    old one that answers it. On LoCoMo (questions about any of many months of sessions) plain
    recency at 10% cost 0.018 of recall@8; gated, 0.009.

    The identity bonus is a whole point, more than any other combination can add, so identity
    facts come first for "what's my name?" while keeping their own order among themselves.
    """
    return _scorer(weights)(relevance, importance, confidence, recency, frequency, identity)


def _scorer(weights: Weights) -> Callable[[float, float, float, float, float, bool], ScoreParts]:
    """score_memory with the weights prepared once, for scoring many candidates in a row."""
    ws = [max(w, 0.0) for w in (weights.relevance, weights.importance, weights.confidence,
                                 weights.recency, weights.frequency)]
    w0, w1, w2, w3, w4 = ws
    total_w = sum(ws)
    clamp = _clamp01

    def score(relevance: float, importance: float, confidence: float, recency: float, frequency: float,
              identity: bool) -> ScoreParts:
        rel = relevance if 0.0 <= relevance <= 1.0 else clamp(relevance)
        imp = importance if 0.0 <= importance <= 1.0 else clamp(importance)
        conf = confidence if 0.0 <= confidence <= 1.0 else clamp(confidence)
        rec = recency if 0.0 <= recency <= 1.0 else clamp(recency)
        freq = frequency if 0.0 <= frequency <= 1.0 else clamp(frequency)
        weighted = w0 * rel + w1 * imp + w2 * conf + w3 * rec * rel + w4 * freq
        total = weighted / total_w if total_w > 0 else 0.0
        ident = 1.0 if identity else 0.0
        return ScoreParts(rel, imp, conf, rec, freq, identity=ident, total=total + ident)

    return score


def rank_ids(totals: Iterable[tuple[int, ScoreParts]]) -> list[int]:
    """Ids by total score, best first; ties broken by the newer (larger) id."""
    return [mid for mid, _ in sorted(totals, key=lambda kv: (-kv[1].total, -kv[0]))]


# ------------------------------------------------------------------------------ both stages
@dataclass(frozen=True)
class MemoryFacts:
    """What stage 2 needs to know about one candidate memory (read by the caller)."""

    id: int
    created_at: datetime | None
    importance: float = 0.5
    confidence: float = 1.0
    uses: int = 0
    last_used_at: datetime | None = None  # not scored today; kept for /why
    category: str = "fact"


class Scorable(Protocol):
    """What stage 2 reads of a candidate: MemoryFacts, or any row with these attributes."""

    @property
    def created_at(self) -> datetime | None: ...
    @property
    def importance(self) -> float: ...
    @property
    def confidence(self) -> float: ...
    @property
    def uses(self) -> int: ...
    @property
    def category(self) -> str: ...


def rank_for_recall(
    keyword: Mapping[int, float],
    vector: Mapping[int, float],
    facts: Mapping[int, Scorable],
    *,
    neighbours: Mapping[int, Sequence[tuple[int, int]]] | None = None,
    period: tuple[datetime, datetime] | None = None,
    identity_question: bool = False,
    newest: datetime | None = None,
    half_life_days: float = 30.0,
    weights: Weights = Weights(),
    params: FusionParams = FusionParams(),
    successors: Mapping[int, int] | None = None,
) -> list[tuple[int, ScoreParts]]:
    """Both stages for one question: (memory id, parts), best first.

    `keyword`: keyword_search scores; `vector`: cosines of the vector hits AND of the keyword
    hits (VectorIndex.similarities), so both sides score every candidate they can;
    `facts`: every id that may appear (candidates and their neighbours); ids without facts are
    dropped (deleted between the reads). `newest`: created_at of the owner's newest memory.
    `successors`: older memory -> the live memory that replaced it (see successor_boost).
    """
    created = {mid: f.created_at for mid, f in facts.items()}
    rel = relevance_scores(keyword, vector, neighbours=neighbours, created_at=created,
                           period=period, params=params, successors=successors)
    score = _scorer(weights)
    recency = _recency_from(newest, half_life_days)
    out = []
    for mid, r in rel.items():
        f = facts.get(mid)
        if f is None:
            continue
        parts = score(r, f.importance, f.confidence, recency(f.created_at), frequency_score(f.uses),
                      identity_question and f.category == "identity")
        out.append((mid, parts))
    out.sort(key=lambda kv: (-kv[1].total, -kv[0]))
    return out
