"""Saving facts: the transactional half of Remember, and new versions of a fact.

Remember is split in two so that the optional AI judge (a network call) never runs inside a
database transaction: `gather` reads the candidates and the rule assessment, the service may ask
the judge, and `apply` writes the outcome in one transaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from sqlmodel import Session, select

from bot.memory import conflict as rules
from bot.memory import search
from bot.memory.classify import classify
from bot.memory.dates import extract_validity
from bot.memory.models import Conflict, EventKind, Memory, Status, utcnow
from bot.memory.store import MemoryView, get_memory, log_event, new_action, snapshot, touch

MAX_FACT_CHARS = 2000
CANDIDATE_LIMIT = 20
SLOT_CANDIDATES = 10
VECTOR_CANDIDATES = 3
LIVE = (Status.CURRENT.value, Status.UNSURE.value)

Decision = Literal["retire", "ask", "save"]


class FactError(ValueError):
    """The text cannot be saved as a fact; the message says why, for the person."""


def clean_fact(text: str) -> str:
    """Normalise a fact as typed: whitespace folded, control characters removed, length capped."""
    cleaned = "".join(ch for ch in text if ch == "\n" or ch == "\t" or ord(ch) >= 32)
    cleaned = " ".join(cleaned.split())
    if not cleaned:
        raise FactError("There is nothing to remember — write the fact after the colon.")
    if len(cleaned) > MAX_FACT_CHARS:
        raise FactError(
            f"That is too long to remember as one fact ({len(cleaned)} characters; "
            f"the limit is {MAX_FACT_CHARS}). Please split it into shorter facts."
        )
    return cleaned


@dataclass(frozen=True)
class Gathered:
    """What the rules found before anything is written."""

    candidates: tuple[MemoryView, ...]
    assessment: rules.Assessment
    slot: str | None


@dataclass
class RememberResult:
    memory: MemoryView | None = None
    duplicate_of: MemoryView | None = None
    conflict_id: int | None = None
    asked: list[MemoryView] = field(default_factory=list)
    retired: list[MemoryView] = field(default_factory=list)
    action_id: str | None = None
    reasons: dict[int, str] = field(default_factory=dict)


def candidate_rows(
    s: Session, owner_id: int, text: str, slot: str | None, dialect: str, vector_ids: list[int]
) -> list[Memory]:
    """Current or unsure memories that may be about the same thing: shared meaningful words, the
    same single-value slot, and the vector neighbours the caller found."""
    ids: list[int] = []
    if slot:
        # the same single-value slot first, newest first: whatever else matches, these are the
        # facts a new residence, car or job may replace
        stmt = (
            select(Memory.id)
            .where(
                Memory.owner_id == owner_id,
                Memory.slot == slot,
                Memory.status.in_(LIVE),  # type: ignore[attr-defined]
                Memory.archived == False,  # noqa: E712
                Memory.deleted_at.is_(None),  # type: ignore[union-attr]
            )
            .order_by(Memory.id.desc())  # type: ignore[union-attr]
            .limit(SLOT_CANDIDATES)
        )
        ids.extend(s.exec(stmt))
    words = rules.keywords(text)
    if words:
        hits = search.keyword_search(s.connection(), owner_id, " ".join(sorted(words)), CANDIDATE_LIMIT * 3, dialect)
        ids.extend(mid for mid, _ in hits)
    # one SELECT for the rows the loop below most likely reads (it stops after CANDIDATE_LIMIT
    # usable ones): held here, they stay in the session's (weak) identity map, so get_memory
    # finds them without a query each (20 single-row loads were ~5 ms of a save at 10,000
    # memories)
    wanted = list(dict.fromkeys([*ids[: 2 * CANDIDATE_LIMIT], *vector_ids[: 2 * VECTOR_CANDIDATES]]))
    prefetched = (
        s.exec(select(Memory).where(Memory.owner_id == owner_id, Memory.id.in_(wanted))).all()  # type: ignore[union-attr]
        if wanted else []
    )
    seen: set[int] = set()
    rows: list[Memory] = []

    def take(mid: int) -> bool:
        if mid in seen:
            return False
        seen.add(mid)
        m = get_memory(s, owner_id, mid)
        if m is None or m.archived or m.status not in LIVE or not m.text:
            return False
        rows.append(m)
        return True

    for mid in ids:
        take(mid)
        if len(rows) >= CANDIDATE_LIMIT:
            break
    extra = 0
    for mid in vector_ids:  # best first; up to 3 more that are still current or unsure
        if extra >= VECTOR_CANDIDATES:
            break
        extra += int(take(mid))
    del prefetched
    return rows


def gather(
    s: Session,
    owner_id: int,
    text: str,
    dialect: str,
    cosines: dict[int, float] | None = None,
    *,
    dedupe: bool = True,
    review: bool = True,
) -> Gathered:
    slot = rules.detect_slot(text)
    if not dedupe and not review:
        return Gathered((), rules.Assessment(None, ()), slot)
    cosines = cosines or {}
    rows = candidate_rows(s, owner_id, text, slot, dialect, list(cosines))
    facts = [rules.Fact(id=m.id, text=m.text, slot=m.slot, status=m.status) for m in rows if m.id is not None]
    relevant = [f for f in facts if f.id in cosines or rules.is_candidate(text, f)]
    assessment = rules.assess(text, relevant, {k: v for k, v in cosines.items()})
    if not dedupe:
        assessment = rules.Assessment(None, assessment.nominations)
    if not review:
        assessment = rules.Assessment(assessment.duplicate_of, ())
    return Gathered(tuple(MemoryView.of(m) for m in rows), assessment, slot)


def apply_remember(
    s: Session,
    owner_id: int,
    text: str,
    *,
    slot: str | None,
    decisions: dict[int, Decision],
    reasons: dict[int, str],
    source: str,
    confidence: float,
    source_ref: str | None,
    created_at: datetime | None,
    embedding: bytes | None,
    actor: str,
    importance: float | None = None,
) -> RememberResult:
    """Write a new fact and what the rules or the judge decided about the old ones, in one
    transaction."""
    kind = classify(text)
    validity = extract_validity(text, utcnow().date())
    now = utcnow()
    memory = Memory(
        owner_id=owner_id,
        text=text,
        category=kind.category,
        slot=slot,
        status=Status.CURRENT.value,
        valid_from=validity.valid_from,
        valid_until=validity.valid_until,
        source=source,
        source_ref=source_ref,
        confidence=confidence,
        importance=kind.importance if importance is None else importance,
        created_at=created_at or now,
        updated_at=now,
        embedding=embedding,
    )
    s.add(memory)
    s.flush()
    action = new_action(s, owner_id, "remember", f"saving “{text[:80]}”", actor=actor)
    log_event(s, action, memory, EventKind.CREATED, None, actor=actor)
    result = RememberResult(memory=MemoryView.of(memory), action_id=action.id, reasons=dict(reasons))

    asked: list[Memory] = []
    for old_id, decision in decisions.items():
        old = get_memory(s, owner_id, old_id)
        if old is None or old.status not in LIVE:
            continue
        if decision == "retire":
            before = snapshot(old)
            old.status = Status.HISTORICAL.value
            old.replaced_by = memory.id
            touch(old)
            s.add(old)
            log_event(s, action, old, EventKind.UPDATED, before, actor=actor, note=reasons.get(old_id, ""))
            result.retired.append(MemoryView.of(old))
        elif decision == "ask":
            asked.append(old)

    if asked:
        conflict = Conflict(
            owner_id=owner_id,
            new_memory_id=memory.id,  # type: ignore[arg-type]
            old_ids_json=json.dumps([m.id for m in asked]),
            reason_json=json.dumps(
                {str(m.id): {"reason": reasons.get(m.id or 0, ""), "status_before": m.status} for m in asked}
            ),
        )
        s.add(conflict)
        s.flush()
        action.conflict_id = conflict.id
        s.add(action)
        for old in asked:
            before = snapshot(old)
            old.status = Status.UNSURE.value
            touch(old)
            s.add(old)
            log_event(s, action, old, EventKind.MARKED_UNSURE, before, actor=actor, note="possibly replaced; asked")
            result.asked.append(MemoryView.of(old))
        result.conflict_id = conflict.id
    return result


def apply_update(
    s: Session, owner_id: int, memory_id: int, new_text: str, *, source: str, embedding: bytes | None
) -> tuple[MemoryView, MemoryView] | None:
    """A new version of a fact: the new memory is current, the old one historical and linked to
    it (old.replaced_by -> new; the history view follows the link both ways)."""
    old = get_memory(s, owner_id, memory_id)
    if old is None:
        return None
    validity = extract_validity(new_text, utcnow().date())
    kind = classify(new_text)
    new = Memory(
        owner_id=owner_id,
        text=new_text,
        category=old.category if old.category != "fact" else kind.category,
        slot=rules.detect_slot(new_text) or old.slot,
        status=Status.CURRENT.value,
        valid_from=validity.valid_from,
        valid_until=validity.valid_until,
        source=source,
        confidence=1.0,
        importance=max(old.importance, kind.importance),
        embedding=embedding,
    )
    s.add(new)
    s.flush()
    action = new_action(s, owner_id, "update", f"the update of “{old.text[:60]}” to “{new_text[:60]}”")
    log_event(s, action, new, EventKind.CREATED, None, note=f"new version of #{old.id}")
    before = snapshot(old)
    old.status = Status.HISTORICAL.value
    old.replaced_by = new.id
    touch(old)
    s.add(old)
    log_event(s, action, old, EventKind.UPDATED, before, note=f"replaced by #{new.id}")
    return MemoryView.of(new), MemoryView.of(old)
