"""Saving facts: the transactional half of Remember, and new versions of a fact.

Remember is one transaction (`remember`: preferences, related memories, rules, write) unless the
person's optional AI judge is to decide: it is a network call and never runs inside a database
transaction, so then `remember` returns what the rules found (AskJudge), the service asks the
judge, and `apply_remember` writes the outcome in a second transaction.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, select

from bot.memory.rules import conflict as rules
from bot.memory.rules.text import content_words
from bot.plaintext import strip_controls
from bot.memory.index import keyword as search
from bot.memory.rules.classify import classify
from bot.memory.rules.dates import extract_validity
from bot.storage.models import Conflict, EventKind, Memory, MemoryEvent, Status, utcnow
from bot.memory.owners import OwnerPrefs, read_prefs
from bot.memory.store import (
    MemoryView,
    get_memory,
    log_event,
    mref,
    new_action,
    snapshot,
    stating_other_topic,
    touch,
)

MAX_FACT_CHARS = 2000
CANDIDATE_LIMIT = 20
SLOT_CANDIDATES = 10
VECTOR_CANDIDATES = 3
LIVE = (Status.CURRENT.value, Status.UNSURE.value)

Decision = Literal["retire", "ask", "save"]


class FactError(ValueError):
    """The text cannot be saved as a fact; the message says why, for the person."""


def clean_fact(text: str, *, words: bool = True) -> str:
    """Normalise a fact as typed: whitespace folded, control characters (C0, DEL, C1, bidi
    overrides; see bot.plaintext) removed, length capped. With `words`, a fact needs a letter or
    a digit of some script: "remember: 🙂🙂🙂" says nothing one could recall or search for later
    (bulk loads of a conversation keep such turns, words=False)."""
    cleaned = " ".join(strip_controls(text).split())
    if not cleaned:
        raise FactError("There is nothing to remember — write the fact after the colon.")
    if words and not any(unicodedata.category(ch)[0] in "LN" for ch in cleaned):
        raise FactError("There are no words in that to remember — write the fact in words "
                        "(emoji and punctuation alone are not saved).")
    if len(cleaned) > MAX_FACT_CHARS:
        raise FactError(
            f"That is too long to remember as one fact ({len(cleaned)} characters; "
            f"the limit is {MAX_FACT_CHARS}). Please split it into shorter facts."
        )
    return cleaned


@dataclass(frozen=True)
class CandidateRow:
    """What the rules need of one related memory: read as plain columns, not as an ORM object
    (a save reads up to ~80 of them and keeps at most 23; ORM loads were a large share of a save)."""

    id: int
    text: str
    slot: str | None
    status: str


@dataclass(frozen=True)
class Gathered:
    """What the rules found before anything is written."""

    candidates: tuple[CandidateRow, ...]
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


@dataclass(frozen=True)
class NewFact:
    """How a new fact is written, whoever decides about the old ones."""

    source: str
    confidence: float
    source_ref: str | None
    created_at: datetime | None
    embedding: bytes | None
    actor: str
    importance: float | None = None


@dataclass(frozen=True)
class AskJudge:
    """The rules ran and the person's AI judge should decide before anything is written (it is a
    network call, so it never runs inside a transaction)."""

    gathered: Gathered
    olds: list[tuple[int, str]]  # what the judge is shown: nominated, then vector neighbours
    decisions: dict[int, Decision]  # what the rules decided, kept if the judge does not answer
    reasons: dict[int, str]
    verdicts: dict[int, str] = field(default_factory=dict)  # the rules' verdicts, likewise


_CANDIDATE_COLUMNS = tuple(
    Memory.__table__.c[name]  # type: ignore[attr-defined]
    for name in ("id", "text", "slot", "status")
)


def candidate_rows(
    s: Session, owner_id: int, text: str, slot: str | None, dialect: str, vector_ids: list[int],
    stated: frozenset[str] = frozenset(),
) -> list[CandidateRow]:
    """Current or unsure memories that may be about the same thing: shared meaningful words, the
    same single-value slot, and the vector neighbours the caller found."""
    conn = s.connection()
    ids: list[int] = []
    # every topic the fact states, not only the one it is stored under: "my husband died seven
    # years ago, since then I run the shop alone" is stored as a job, and must find the divorce
    slots = sorted({slot, *stated}) if slot else []
    if slots:
        # the same single-value slot first, newest first: whatever else matches, these are the
        # facts a new residence, car or job may replace
        stmt = (
            select(Memory.id)
            .where(
                Memory.owner_id == owner_id,
                Memory.slot.in_(slots),  # type: ignore[union-attr]
                Memory.status.in_(LIVE),  # type: ignore[attr-defined]
                Memory.archived == False,  # noqa: E712
                Memory.deleted_at.is_(None),  # type: ignore[union-attr]
            )
            .order_by(Memory.id.desc())  # type: ignore[union-attr]
            .limit(SLOT_CANDIDATES * len(slots))
        )
        ids.extend(s.exec(stmt))
        # a fact stored under another topic that states this one too: "I'm 34 and I live in
        # Leeds" is stored as a home, yet a new age must find it (its rules split it again)
        ids.extend(stating_other_topic(s, owner_id, frozenset(slots), LIVE))
    words = rules.keywords(text)
    if words:
        # the fact's own words first, then the words of its kind ("beagle" gives some 40 breeds),
        # all of them searched
        own = content_words(text)
        ordered = sorted(words, key=lambda w: (w not in own, w))
        hits = search.keyword_search(conn, owner_id, " ".join(ordered), CANDIDATE_LIMIT * 3, dialect,
                                     max_terms=len(ordered) + 1)
        ids.extend(mid for mid, _ in hits)
    # one statement for every row the loop below may read (neither deleted nor archived)
    wanted = list(dict.fromkeys([*ids, *vector_ids]))
    found = {
        int(r[0]): CandidateRow(int(r[0]), r[1], r[2], r[3])
        for r in search.memory_rows(conn, owner_id, wanted, _CANDIDATE_COLUMNS)
        if r[3] in LIVE and r[1]
    }
    seen: set[int] = set()
    rows: list[CandidateRow] = []

    def take(mid: int) -> bool:
        if mid in seen:
            return False
        seen.add(mid)
        row = found.get(mid)
        if row is None:
            return False
        rows.append(row)
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
    vector_slot: str | None = None,
    same: dict[int, float] | None = None,
    likely_slot: str | None = None,
    likely_old: dict[int, str] | None = None,
) -> Gathered:
    """The related memories and the rules' verdict on them. `vector_slot` is the topic the new
    fact's vector names (bot/memory/rules/slot_vectors.py), used when its words state none: it is
    stored as the memory's slot and lets the rules compare it with that topic's facts. `same`:
    how sure the vectors are that a neighbour says the same thing (pair_vectors.py);
    `likely_slot`, a topic they find likely but not sure when they name none: that topic's facts
    are gathered and compared, but it is not stored as the new fact's slot; `likely_old`, the
    same for the neighbours and for the newest facts the vectors find likely of the new fact's
    topic (gathered too), which count as of that topic only against a new fact of it."""
    slot = rules.detect_slot(text) or vector_slot
    if not dedupe and not review:
        return Gathered((), rules.Assessment(None, ()), slot)
    likely = likely_slot if slot is None else None
    cosines = cosines or {}
    # facts the vectors find likely of the new fact's topic, though stored with none
    of_topic = [mid for mid, topic in (likely_old or {}).items() if slot and topic == slot]
    # every topic the fact states, not only the one it is stored under (see candidate_rows)
    stated = rules.stated_topics(text) if slot else frozenset()
    rows = candidate_rows(s, owner_id, text, slot or likely, dialect, [*cosines, *of_topic], stated)
    facts = [rules.Fact(id=m.id, text=m.text, slot=m.slot, status=m.status) for m in rows]
    relevant = [f for f in facts if f.id in cosines or (slot and (f.slot == slot or f.slot in stated))
                or (likely and f.slot == likely) or f.id in of_topic or rules.is_candidate(text, f)]
    assessment = rules.assess(text, relevant, {k: v for k, v in cosines.items()}, new_slot=slot, same=same,
                              likely=likely, likely_old=likely_old)
    if not dedupe:
        assessment = rules.Assessment(None, assessment.nominations)
    if not review:
        assessment = rules.Assessment(assessment.duplicate_of, ())
    return Gathered(tuple(rows), assessment, slot)


def rule_decisions(gathered: Gathered) -> tuple[dict[int, Decision], dict[int, str], dict[int, str]]:
    """What the rules decided: every nominated memory is asked about, never retired; with the
    reason and the verdict (change / same / unclear) that sets the recommended answer."""
    decisions: dict[int, Decision] = {}
    reasons: dict[int, str] = {}
    verdicts: dict[int, str] = {}
    for nom in gathered.assessment.nominations:
        decisions[nom.old_id] = "ask"
        reasons[nom.old_id] = f"rule: {nom.rule}"
        verdicts[nom.old_id] = nom.verdict
    return decisions, reasons, verdicts


JUDGE_NEIGHBOURS = 3
"""Vector neighbours (cosine >= 0.60) the judge sees beside the nominated memories: how a fact
in words the rules do not read (another language, an unusual phrasing) still reaches it."""

# the judge's relation -> the verdict that sets the recommended answer
JUDGE_VERDICTS = {"replaces": rules.VERDICT_CHANGE, "conflicts": rules.VERDICT_CHANGE, "more_detailed": rules.VERDICT_SAME}


def judge_verdict(reason: str) -> str:
    """The verdict in a judge's reason ("replaces (p=0.95)": its relation comes first)."""
    return JUDGE_VERDICTS.get(reason.split(" ", 1)[0], rules.VERDICT_UNCLEAR)


def judge_candidates(
    gathered: Gathered, decisions: dict[int, Decision], cosines: dict[int, float]
) -> list[tuple[int, str]]:
    """What the AI judge is shown: the nominated memories, then up to three vector neighbours
    the rules left alone, best first."""
    by_id = {c.id: c for c in gathered.candidates}
    extra = [i for i in cosines if i not in decisions and i in by_id][:JUDGE_NEIGHBOURS]
    return [(i, by_id[i].text) for i in list(decisions) + extra if i in by_id]


def remember(
    s: Session,
    owner_id: int,
    text: str,
    dialect: str,
    cosines: dict[int, float],
    new: NewFact,
    *,
    defaults: OwnerPrefs,
    review: bool | None,
    dedupe: bool,
    judge_available: bool,
    vector_slot: str | None = None,
    same: dict[int, float] | None = None,
    likely_slot: str | None = None,
    likely_old: dict[int, str] | None = None,
) -> RememberResult | AskJudge:
    """Remember in one transaction: the person's preferences, the related memories and the
    rules, then the write; or, when the person's AI judge is to decide, the rules' findings
    without any write (AskJudge). A near duplicate writes nothing and names the memory that
    already holds the fact."""
    prefs = read_prefs(s, owner_id, defaults)
    if review is None:
        review = prefs.conflict_review
    gathered = gather(s, owner_id, text, dialect, cosines, dedupe=dedupe, review=review, vector_slot=vector_slot,
                      same=same, likely_slot=likely_slot, likely_old=likely_old)
    if gathered.assessment.duplicate_of is not None:
        dup = get_memory(s, owner_id, gathered.assessment.duplicate_of)
        if dup is not None:
            return RememberResult(duplicate_of=MemoryView.of(dup))
    decisions, reasons, verdicts = rule_decisions(gathered)
    if review and prefs.ai_judge and judge_available:
        olds = judge_candidates(gathered, decisions, cosines)
        if olds:
            return AskJudge(gathered, olds, decisions, reasons, verdicts)
    return apply_remember(
        s, owner_id, text, slot=gathered.slot, decisions=decisions, reasons=reasons, new=new, verdicts=verdicts
    )


def apply_remember(
    s: Session,
    owner_id: int,
    text: str,
    *,
    slot: str | None,
    decisions: dict[int, Decision],
    reasons: dict[int, str],
    new: NewFact,
    verdicts: dict[int, str] | None = None,
) -> RememberResult:
    """Write a new fact and what the rules or the judge decided about the old ones, in one
    transaction. `verdicts` (change / same / unclear per old id) are stored with the question:
    they decide which answer it recommends, now and whenever it is shown again."""
    verdicts = verdicts or {}
    kind = classify(text)
    validity = extract_validity(text, utcnow().date())
    now = utcnow()
    actor = new.actor
    memory = Memory(
        owner_id=owner_id,
        text=text,
        category=kind.category,
        slot=slot,
        status=Status.CURRENT.value,
        valid_from=validity.valid_from,
        valid_until=validity.valid_until,
        source=new.source,
        source_ref=new.source_ref,
        confidence=new.confidence,
        importance=kind.importance if new.importance is None else new.importance,
        created_at=new.created_at or now,
        updated_at=now,
        embedding=new.embedding,
    )
    s.add(memory)
    s.flush()
    action = new_action(s, owner_id, "remember", f"saving {mref(memory.id)}", actor=actor)
    log_event(s, action, memory, EventKind.CREATED, None, actor=actor)
    result = RememberResult(memory=MemoryView.of(memory), action_id=action.id, reasons=dict(reasons))
    if not decisions:
        return result

    # the old memories as plain rows in one read; each change one version-checked UPDATE and
    # one event, written with Core: a save that asks about twenty old memories no longer builds
    # forty ORM objects
    table = Memory.__table__  # type: ignore[attr-defined]
    conn = s.connection()
    found = {
        int(r["id"]): dict(r)
        for r in conn.execute(
            sa.select(*_OLD_COLUMNS).where(
                table.c.owner_id == owner_id, table.c.id.in_(list(decisions)), table.c.deleted_at.is_(None)
            )
        ).mappings()
    }
    changed: list[tuple[dict[str, Any], dict[str, Any], str, str]] = []  # (row after, before, kind, note)
    asked: list[dict[str, Any]] = []
    for old_id, decision in decisions.items():
        row = found.get(old_id)
        if row is None or row["status"] not in LIVE:
            continue
        if decision == "retire":
            before = snapshot(_Attrs(row))
            row.update(status=Status.HISTORICAL.value, replaced_by=memory.id)
            changed.append((row, before, EventKind.UPDATED, reasons.get(old_id, "")))
        elif decision == "ask":
            asked.append(row)

    conflict: Conflict | None = None
    if asked:
        conflict = Conflict(
            owner_id=owner_id,
            new_memory_id=memory.id,  # type: ignore[arg-type]
            old_ids_json=json.dumps([m["id"] for m in asked]),
            reason_json=json.dumps(
                {
                    str(m["id"]): {
                        "reason": reasons.get(m["id"], ""),
                        "status_before": m["status"],
                        "verdict": verdicts.get(m["id"], rules.VERDICT_UNCLEAR),
                    }
                    for m in asked
                }
            ),
        )
        s.add(conflict)
        s.flush()
        action.conflict_id = conflict.id
        s.add(action)
    for row in asked:
        if verdicts.get(row["id"]) == rules.VERDICT_SAME:
            # the question recommends Keep both: nothing says the older fact is outdated, so it
            # stays as it was while the question waits (an answer would call it "possibly
            # outdated" beside a question saying both can be true)
            continue
        before = snapshot(_Attrs(row))
        row.update(status=Status.UNSURE.value)
        changed.append((row, before, EventKind.MARKED_UNSURE, "possibly replaced; asked"))
    if changed:
        s.flush()  # the new memory's own event first, so the history reads in order
        _write_changes(conn, owner_id, action.id, actor, changed)
    result.retired = [MemoryView.of(_Attrs(row)) for row, _, kind, _ in changed if kind == EventKind.UPDATED]
    result.asked = [MemoryView.of(_Attrs(row)) for row in asked]
    if conflict is not None:
        result.conflict_id = conflict.id
    return result


_OLD_COLUMNS = tuple(c for c in Memory.__table__.c if c.name != "embedding")  # type: ignore[attr-defined]


class _Attrs:
    """A row dict read as attributes (what snapshot and MemoryView.of read)."""

    __slots__ = ("_row",)

    def __init__(self, row: dict[str, Any]) -> None:
        self._row = row

    def __getattr__(self, name: str) -> Any:
        try:
            return self._row[name]
        except KeyError:
            raise AttributeError(name) from None


def _write_changes(
    conn: sa.Connection, owner_id: int, action_id: str, actor: str,
    changed: list[tuple[dict[str, Any], dict[str, Any], str, str]],
) -> None:
    """The status changes of old memories, each moving the version on only if nobody else did
    (optimistic locking, as the ORM does it), and their events."""
    table = Memory.__table__  # type: ignore[attr-defined]
    now = utcnow()
    stmt = (
        table.update()
        .where(table.c.id == sa.bindparam("b_id"), table.c.owner_id == owner_id,
               table.c.version == sa.bindparam("b_version"))
        .values(status=sa.bindparam("b_status"), replaced_by=sa.bindparam("b_replaced_by"),
                updated_at=now, version=table.c.version + 1)
    )
    params = [{"b_id": row["id"], "b_version": row["version"], "b_status": row["status"],
               "b_replaced_by": row["replaced_by"]} for row, _, _, _ in changed]
    done = conn.execute(stmt, params).rowcount
    if done != len(params):
        raise StaleDataError(f"{len(params) - done} of {len(params)} memories changed at the same time elsewhere")
    events = []
    for row, before, kind, note in changed:
        row.update(version=row["version"] + 1, updated_at=now)
        events.append({
            "owner_id": owner_id, "memory_id": row["id"], "action_id": action_id, "kind": kind, "actor": actor,
            "before_json": json.dumps(before), "after_json": json.dumps(snapshot(_Attrs(row))),
            "note": note[:500], "created_at": now,
        })
    conn.execute(MemoryEvent.__table__.insert(), events)  # type: ignore[attr-defined]


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
    action = new_action(s, owner_id, "update", f"the update of {mref(old.id)} to {mref(new.id)}")
    log_event(s, action, new, EventKind.CREATED, None, note=f"new version of {mref(old.id)}")
    before = snapshot(old)
    old.status = Status.HISTORICAL.value
    old.replaced_by = new.id
    touch(old)
    s.add(old)
    log_event(s, action, old, EventKind.UPDATED, before, note=f"replaced by {mref(new.id)}")
    return MemoryView.of(new), MemoryView.of(old)
