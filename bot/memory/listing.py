"""Reading memories for people: lists by state, the history chain of one fact, search.

Read-only; the service turns these into numbered lists and the core into text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import or_
from sqlmodel import Session, select

from bot.memory.index import keyword as search
from bot.storage.models import EventKind, Memory, MemoryEvent, Status
from bot.memory.store import MemoryView, get_memory, mref, resolve_refs


class Which(StrEnum):
    ALL = "all"
    CURRENT = "current"
    HISTORICAL = "historical"
    REVIEW = "review"
    ARCHIVED = "archived"


_STATUS_ORDER = {Status.CURRENT.value: 0, Status.UNSURE.value: 1, Status.HISTORICAL.value: 2}


def list_memories(s: Session, owner_id: int, which: Which) -> list[MemoryView]:
    stmt = select(Memory).where(Memory.owner_id == owner_id, Memory.deleted_at.is_(None))  # type: ignore[union-attr]
    if which is Which.ARCHIVED:
        stmt = stmt.where(Memory.archived == True)  # noqa: E712
    elif which is Which.ALL:
        pass  # all means all: archived ones too, listed last under their own heading
    else:
        stmt = stmt.where(Memory.archived == False)  # noqa: E712
        if which is Which.CURRENT:
            stmt = stmt.where(Memory.status == Status.CURRENT.value)
        elif which is Which.HISTORICAL:
            stmt = stmt.where(Memory.status == Status.HISTORICAL.value)
        elif which is Which.REVIEW:
            stmt = stmt.where(Memory.status == Status.UNSURE.value)
    rows = list(s.exec(stmt))
    rows.sort(key=lambda m: (m.archived, _STATUS_ORDER.get(m.status, 3), m.created_at, m.id or 0))
    return [MemoryView.of(m) for m in rows]


@dataclass(frozen=True)
class HistoryEntry:
    at: datetime
    memory_id: int
    kind: str
    actor: str
    text_before: str | None
    text_after: str | None
    status_before: str | None
    status_after: str | None
    note: str


@dataclass(frozen=True)
class History:
    chain: tuple[MemoryView, ...]  # oldest version first
    entries: tuple[HistoryEntry, ...]


def slotted_ids(s: Session, owner_id: int) -> list[int]:
    """The memories of single-value topics (where one lives, one's job ...), past and present,
    not archived or deleted, oldest first: what a timeline is drawn from. Ids only, one indexed
    read, so a person with thousands of memories does not load them all for a few topics."""
    rows = s.exec(
        select(Memory.id).where(
            Memory.owner_id == owner_id, Memory.slot.is_not(None), Memory.deleted_at.is_(None),  # type: ignore[union-attr]
            Memory.archived == False,  # noqa: E712
        ).order_by(Memory.created_at, Memory.id)  # type: ignore[arg-type]
    )
    return [int(r) for r in rows]


def history(s: Session, owner_id: int, memory_id: int) -> History | None:
    start = get_memory(s, owner_id, memory_id, include_deleted=True)
    if start is None or start.purged_at is not None:
        return None
    chain: dict[int, Memory] = {start.id: start}  # type: ignore[dict-item]
    frontier = [start]
    while frontier:  # walk the replaced_by links both ways, bounded by the owner's rows
        m = frontier.pop()
        linked: list[Memory] = []
        if m.replaced_by is not None:
            nxt = get_memory(s, owner_id, m.replaced_by, include_deleted=True)
            if nxt is not None:
                linked.append(nxt)
        linked.extend(
            s.exec(select(Memory).where(Memory.owner_id == owner_id, Memory.replaced_by == m.id))
        )
        for other in linked:
            if other.id not in chain and other.purged_at is None and len(chain) < 200:
                chain[other.id] = other  # type: ignore[index]
                frontier.append(other)
    ids = list(chain)
    events = s.exec(
        select(MemoryEvent)
        .where(MemoryEvent.owner_id == owner_id, MemoryEvent.memory_id.in_(ids))  # type: ignore[union-attr]
        .order_by(MemoryEvent.created_at, MemoryEvent.id)  # type: ignore[arg-type]
    )
    entries = []
    for ev in events:
        before = json.loads(ev.before_json) if ev.before_json else {}
        after = json.loads(ev.after_json) if ev.after_json else {}
        entries.append(
            HistoryEntry(
                at=ev.created_at,
                memory_id=ev.memory_id or 0,
                kind=ev.kind,
                actor=ev.actor,
                text_before=before.get("text"),
                text_after=after.get("text"),
                status_before=before.get("status"),
                status_after=after.get("status"),
                note=resolve_refs(s, owner_id, ev.note),
            )
        )
    entries.extend(_replaced_by_these(s, owner_id, ids))
    entries.sort(key=lambda e: e.at)
    versions = sorted(chain.values(), key=lambda m: (m.created_at, m.id or 0))
    return History(tuple(MemoryView.of(m) for m in versions), tuple(entries))


# the events by which an answer retired an older fact name the fact that replaced it
_RETIRING = {EventKind.DELETED.value: "replaced", EventKind.MARKED_PAST.value: "made past",
             EventKind.UPDATED.value: "replaced"}


def _replaced_by_these(s: Session, owner_id: int, ids: list[int]) -> list[HistoryEntry]:
    """What the facts in this history replaced, when that older fact is not in the chain (it
    was deleted by "Replace older"): "replaced “I live in London”", and once its text is
    purged, "replaced a fact that was later deleted"."""
    if not ids:
        return []
    refs = [MemoryEvent.note.like(f"%{mref(i)}%") for i in ids]  # type: ignore[attr-defined]
    rows = s.exec(
        select(MemoryEvent).where(
            MemoryEvent.owner_id == owner_id,
            MemoryEvent.kind.in_(list(_RETIRING)),  # type: ignore[attr-defined]
            MemoryEvent.memory_id.not_in(ids),  # type: ignore[union-attr]
            or_(*refs),
        )
    )
    out = []
    for ev in rows:
        if not ev.note.startswith("replaced by "):
            continue
        out.append(HistoryEntry(
            at=ev.created_at, memory_id=ev.memory_id or 0, kind="replaced_older", actor=ev.actor,
            text_before=None, text_after=None, status_before=None, status_after=None,
            note=f"{_RETIRING[ev.kind]} {resolve_refs(s, owner_id, mref(ev.memory_id))}",
        ))
    return out


def keyword_find(s: Session, owner_id: int, query: str, dialect: str, limit: int = 20) -> list[MemoryView]:
    """Owner-scoped keyword search over live memories (any status), best first."""
    out: list[MemoryView] = []
    for mid, _score in search.keyword_search(s.connection(), owner_id, query, limit * 3, dialect):
        m = get_memory(s, owner_id, mid)
        if m is not None and not m.archived:
            out.append(MemoryView.of(m))
        if len(out) >= limit:
            break
    return out
