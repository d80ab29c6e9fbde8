"""Recall: which memories a chat turn sees.

The read side of memory for the model, in the steps the retrieval research settled on
(bench/retrieval_lab.py, class Recipe, measured on LoCoMo):

1. keyword hits from the database's own full-text index (FTS5 / PostgreSQL), owner-scoped,
   and how common each query word is among the owner's memories;
2. when the embedding model is ready: the question without the owner's most common words is
   embedded, and the owner's vector matrix gives its nearest memories plus the cosine of every
   keyword hit (so both sides score every candidate);
3. the neighbours of every candidate in the owner's timeline (a memory saved next to a match,
   within the hour, shares a little of its score: a conversation's answer often sits one turn
   away from the words that match);
4. fusion and the five-factor score (scoring.rank_for_recall): relevance 50%, importance 15%,
   confidence 15%, recency 10% (from the owner's newest memory, gated by relevance),
   frequency 10%; identity facts win identity questions; memories saved around a date named in
   the question get a bonus;
5. assembly into labelled blocks under the budgets (context.assemble_context); historical
   memories only when the question is about the past.

Without a model, step 2 is skipped and keyword relevance serves alone; recall never fails for
want of vectors. Only memories actually injected into a real chat turn get uses += 1;
benchmarks and /why read without writing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, update
from sqlmodel import Session, select

from bot.memory import scoring, search
from bot.memory.context import Candidate, assemble_context, recall_token_budget
from bot.memory.models import Memory, utcnow
from bot.memory.questions import is_identity_question, is_past_question, question_period

KEYWORD_CANDIDATES = 50
VECTOR_CANDIDATES = 50
RANKED_CANDIDATES = 40  # what assembly chooses from (the benchmark scores the top 20)
LIVE_STATUSES = ("current", "unsure", "historical")


@dataclass
class Recalled:
    text: str
    memory_ids: list[int] = field(default_factory=list)
    parts: dict[int, dict[str, float]] = field(default_factory=dict)
    texts: dict[int, str] = field(default_factory=dict)
    ranked: list[int] = field(default_factory=list)  # best first, before budgets and blocks
    mode: str = "keyword"  # keyword | hybrid


@dataclass(frozen=True)
class KeywordStage:
    keyword: dict[int, float]
    counts: dict[str, int]
    total: int
    few: tuple[int, ...] = ()  # all of a person's memories, when they are only a few


def keyword_stage(s: Session, owner_id: int, query: str, dialect: str, few_limit: int = 0) -> KeywordStage:
    """Step 1, in one transaction: keyword hits and the owner's word counts. A person with at
    most `few_limit` memories gets all of them as candidates: they all fit the budget, and a
    question that shares no word with them ("any ideas for the weekend?") may still need them."""
    conn = s.connection()
    counts, total = search.term_counts(conn, owner_id, search.query_terms(query), dialect)
    hits = search.keyword_search(conn, owner_id, query, KEYWORD_CANDIDATES, dialect)
    few: tuple[int, ...] = ()
    if few_limit and total <= few_limit * 2:
        live = s.exec(
            select(Memory.id)
            .where(
                Memory.owner_id == owner_id,
                Memory.deleted_at.is_(None),  # type: ignore[union-attr]
                Memory.archived == False,  # noqa: E712
                Memory.status.in_(("current", "unsure")),  # type: ignore[attr-defined]
            )
            .limit(few_limit + 1)
        ).all()
        if len(live) <= few_limit:
            few = tuple(int(i) for i in live)
    return KeywordStage(dict(hits), counts, total, few)


@dataclass(frozen=True)
class Row:
    id: int
    text: str
    status: str
    category: str
    valid_from: object
    valid_until: object
    created_at: datetime | None
    importance: float
    confidence: float
    uses: int


@dataclass(frozen=True)
class DetailStage:
    neighbours: dict[int, list[tuple[int, int]]]
    rows: dict[int, Row]
    newest: datetime | None


def detail_stage(s: Session, owner_id: int, candidate_ids: list[int], dialect: str) -> DetailStage:
    """Steps 3 and the facts of step 4, in one transaction: the timeline around the candidates,
    and what scoring and assembly need to know about every memory in it."""
    conn = s.connection()
    params = scoring.FusionParams()
    timeline = search.timeline_around(conn, owner_id, candidate_ids, params.neighbour_window) if candidate_ids else []
    neighbours = scoring.neighbour_pairs(timeline, params.neighbour_window, params.neighbour_max_gap) if timeline else {}
    ids = sorted({mid for mid, _ in timeline} | set(candidate_ids))
    rows: dict[int, Row] = {}
    if ids:
        stmt = select(
            Memory.id, Memory.text, Memory.status, Memory.category, Memory.valid_from, Memory.valid_until,
            Memory.created_at, Memory.importance, Memory.confidence, Memory.uses, Memory.archived, Memory.deleted_at,
        ).where(Memory.owner_id == owner_id, Memory.id.in_(ids))  # type: ignore[union-attr]
        for r in s.exec(stmt):
            mid, text, status, category, vf, vu, created, importance, confidence, uses, archived, deleted = r
            if archived or deleted is not None or status not in LIVE_STATUSES or not text:
                continue  # cannot be recalled
            rows[int(mid)] = Row(int(mid), text, status, category, vf, vu, created, importance, confidence, uses)
    newest = s.exec(
        select(func.max(Memory.created_at)).where(Memory.owner_id == owner_id, Memory.deleted_at.is_(None))  # type: ignore[union-attr]
    ).first()
    return DetailStage(neighbours, rows, newest)


def rank(
    query: str,
    keyword: dict[int, float],
    vector: dict[int, float],
    detail: DetailStage,
    weights: scoring.Weights,
    half_life_days: float,
    few: tuple[int, ...] = (),
) -> list[tuple[int, scoring.ScoreParts]]:
    """Step 4 (pure): every recallable candidate with its score parts, best first."""
    facts = {
        mid: scoring.MemoryFacts(
            mid, r.created_at, importance=r.importance, confidence=r.confidence, uses=r.uses, category=r.category
        )
        for mid, r in detail.rows.items()
    }
    ranked = scoring.rank_for_recall(
        keyword,
        vector,
        facts,
        neighbours=detail.neighbours,
        period=question_period(query),
        identity_question=is_identity_question(query),
        newest=detail.newest,
        half_life_days=half_life_days,
        weights=weights,
    )
    # the rest of a person's few memories, after every match, ranked by what they are
    seen = {mid for mid, _ in ranked}
    identity_q = is_identity_question(query)
    rest = [
        (
            mid,
            scoring.score_memory(
                0.0, f.importance, f.confidence, scoring.recency_score(f.created_at, detail.newest, half_life_days),
                scoring.frequency_score(f.uses), weights, identity=identity_q and f.category == "identity",
            ),
        )
        for mid, f in facts.items()
        if mid in few and mid not in seen
    ]
    rest.sort(key=lambda kv: (-kv[1].total, -kv[0]))
    return ranked + rest


def assemble(
    query: str,
    ranked: list[tuple[int, scoring.ScoreParts]],
    detail: DetailStage,
    *,
    max_memories: int,
    max_tokens: int,
    model_context_tokens: int,
    mode: str,
) -> Recalled:
    """Step 5 (pure): the labelled blocks within the budgets."""
    top = ranked[:RANKED_CANDIDATES]
    candidates = [
        Candidate(
            id=mid,
            text=detail.rows[mid].text,
            status=detail.rows[mid].status,
            score=parts.total,
            valid_from=detail.rows[mid].valid_from,  # type: ignore[arg-type]
            valid_until=detail.rows[mid].valid_until,  # type: ignore[arg-type]
        )
        for mid, parts in top
    ]
    ctx = assemble_context(
        candidates,
        past_question=is_past_question(query),
        max_memories=max_memories,
        max_tokens=recall_token_budget(model_context_tokens, max_tokens),
    )
    parts = dict(top)
    return Recalled(
        text=ctx.text,
        memory_ids=list(ctx.memory_ids),
        parts={i: parts[i].as_dict() for i in ctx.memory_ids},
        texts={i: detail.rows[i].text for i in ctx.memory_ids},
        ranked=[mid for mid, _ in ranked],
        mode=mode,
    )


def record_use(s: Session, owner_id: int, memory_ids: list[int]) -> None:
    """uses += 1 for what a real chat turn injected. A plain UPDATE: being recalled is not a
    change the person made, so it does not move the row's version."""
    if not memory_ids:
        return
    s.execute(
        update(Memory)
        .where(Memory.owner_id == owner_id, Memory.id.in_(memory_ids))  # type: ignore[union-attr, arg-type]
        .values(uses=Memory.uses + 1, last_used_at=utcnow())
        .execution_options(synchronize_session=False)
    )
