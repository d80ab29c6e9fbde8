"""Recall: which memories a chat turn sees.

The read side of memory for the model: candidates from the database's keyword index (and, when
embeddings are on, the vector index), scored, then assembled into labelled blocks under the
budgets (bot.memory.context). Only memories actually injected into a real chat turn have their
uses counted; benchmarks and /why read without writing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import update
from sqlmodel import Session, select

from bot.memory import search
from bot.memory.context import Candidate, assemble_context, recall_token_budget
from bot.memory.models import Memory, utcnow
from bot.memory.questions import is_past_question

LIVE_STATUSES = ("current", "unsure", "historical")


@dataclass
class Recalled:
    text: str
    memory_ids: list[int] = field(default_factory=list)
    parts: dict[int, dict[str, float]] = field(default_factory=dict)
    texts: dict[int, str] = field(default_factory=dict)


def recall_tx(
    s: Session,
    owner_id: int,
    query: str,
    *,
    dialect: str,
    max_memories: int,
    max_tokens: int,
    model_context_tokens: int,
) -> Recalled:
    hits = search.keyword_search(s.connection(), owner_id, query, 50, dialect)
    scores: dict[int, float] = {}
    if hits:
        best = max(score for _, score in hits) or 1.0
        scores = {mid: max(score, 0.0) / best for mid, score in hits}
    rows: dict[int, Memory] = {}
    if scores:
        for m in s.exec(select(Memory).where(Memory.owner_id == owner_id, Memory.id.in_(list(scores)))):  # type: ignore[union-attr]
            rows[m.id] = m  # type: ignore[index]
    # A person with only a few memories: they all fit and all may matter.
    few = s.exec(
        select(Memory)
        .where(Memory.owner_id == owner_id, Memory.deleted_at.is_(None), Memory.archived == False)  # type: ignore[union-attr]  # noqa: E712
        .limit(max_memories + 1)
    ).all()
    if len(few) <= max_memories:
        for m in few:
            rows.setdefault(m.id, m)  # type: ignore[arg-type]
    candidates = []
    parts: dict[int, dict[str, float]] = {}
    for mid, m in rows.items():
        if m.deleted_at is not None or m.archived or m.status not in LIVE_STATUSES or not m.text:
            continue
        relevance = scores.get(mid, 0.0)
        total = 0.5 * relevance + 0.15 * m.importance + 0.15 * m.confidence
        parts[mid] = {"relevance": relevance, "importance": m.importance, "confidence": m.confidence, "total": total}
        candidates.append(
            Candidate(id=mid, text=m.text, status=m.status, score=total, valid_from=m.valid_from, valid_until=m.valid_until)
        )
    ctx = assemble_context(
        candidates,
        past_question=is_past_question(query),
        max_memories=max_memories,
        max_tokens=recall_token_budget(model_context_tokens, max_tokens),
    )
    return Recalled(
        text=ctx.text,
        memory_ids=list(ctx.memory_ids),
        parts={i: parts[i] for i in ctx.memory_ids},
        texts={i: rows[i].text for i in ctx.memory_ids},
    )


def record_use(s: Session, owner_id: int, memory_ids: list[int]) -> None:
    """uses += 1 in one SQL statement: concurrent turns (other processes too) never lose a count,
    and being used is not a change of the memory, so its version stays (an Undo of the person's
    last change still applies after a chat turn quoted the memory)."""
    if not memory_ids:
        return
    s.execute(
        update(Memory)
        .where(Memory.owner_id == owner_id, Memory.id.in_(memory_ids))  # type: ignore[union-attr]
        .values(uses=Memory.uses + 1, last_used_at=utcnow())
        .execution_options(synchronize_session=False)
    )


