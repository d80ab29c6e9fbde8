"""Session-level building blocks shared by the memory verbs: owner-scoped reads, snapshots,
actions and the event log.

Why snapshots: every change is logged with the memory's state before and after, so history can
be shown and Undo can put back exactly what was there, and only if nothing changed since.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlmodel import Session, select

from bot.memory.rules.conflict import states_slot
from bot.storage.models import Action, Memory, MemoryEvent, Reminder, utcnow

SNAPSHOT_FIELDS = (
    "text",
    "category",
    "slot",
    "status",
    "replaced_by",
    "valid_from",
    "valid_until",
    "archived",
    "deleted_at",
    "confidence",
    "importance",
    "version",
)


@dataclass(frozen=True)
class MemoryView:
    """A detached, read-only copy of a memory, safe to pass around after the session closed."""

    id: int
    uid: str
    owner_id: int
    text: str
    category: str
    slot: str | None
    status: str
    replaced_by: int | None
    valid_from: date | None
    valid_until: date | None
    source: str
    confidence: float
    importance: float
    uses: int
    last_used_at: datetime | None
    created_at: datetime
    updated_at: datetime
    archived: bool
    deleted: bool

    @classmethod
    def of(cls, m: Memory) -> "MemoryView":
        assert m.id is not None
        return cls(
            id=m.id,
            uid=m.uid,
            owner_id=m.owner_id,
            text=m.text,
            category=m.category,
            slot=m.slot,
            status=m.status,
            replaced_by=m.replaced_by,
            valid_from=m.valid_from,
            valid_until=m.valid_until,
            source=m.source,
            confidence=m.confidence,
            importance=m.importance,
            uses=m.uses,
            last_used_at=m.last_used_at,
            created_at=m.created_at,
            updated_at=m.updated_at,
            archived=m.archived,
            deleted=m.deleted_at is not None,
        )


def _jsonable(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value


def snapshot(m: Memory) -> dict[str, Any]:
    return {name: _jsonable(getattr(m, name)) for name in SNAPSHOT_FIELDS}


def apply_snapshot(m: Memory, snap: dict[str, Any]) -> None:
    """Put a memory back to a logged state (all fields but the version, which moves on)."""
    for name in SNAPSHOT_FIELDS:
        if name == "version" or name not in snap:
            continue
        value = snap[name]
        if name in ("valid_from", "valid_until") and isinstance(value, str):
            value = date.fromisoformat(value)
        elif name == "deleted_at" and isinstance(value, str):
            value = datetime.fromisoformat(value)
        setattr(m, name, value)


def touch(m: Memory) -> None:
    """Mark a memory as changed now. Its version moves on when the change is flushed (the
    mapper's version_id_col), once per flush, checked against the version that was read."""
    m.updated_at = utcnow()


def get_memory(s: Session, owner_id: int, memory_id: int, *, include_deleted: bool = False) -> Memory | None:
    """The memory with this id if, and only if, it belongs to this owner."""
    m = s.get(Memory, memory_id)
    if m is None or m.owner_id != owner_id:
        return None
    if m.deleted_at is not None and not include_deleted:
        return None
    return m


def new_action(
    s: Session,
    owner_id: int,
    kind: str,
    summary: str = "",
    *,
    actor: str = "person",
    undoable: bool = True,
) -> Action:
    action = Action(owner_id=owner_id, kind=kind, summary=summary[:500], actor=actor, undoable=undoable)
    s.add(action)
    s.flush()
    return action


def log_event(
    s: Session,
    action: Action | None,
    m: Memory,
    kind: str,
    before: dict[str, Any] | None,
    *,
    actor: str = "person",
    note: str = "",
) -> MemoryEvent:
    """Append an event; call after the change so the `after` snapshot is the new state."""
    s.flush()
    ev = MemoryEvent(
        owner_id=m.owner_id,
        memory_id=m.id,
        action_id=action.id if action else None,
        kind=kind,
        actor=actor,
        before_json=json.dumps(before) if before is not None else None,
        after_json=json.dumps(snapshot(m)),
        note=note[:500],
    )
    s.add(ev)
    return ev


def live_memories(s: Session, owner_id: int) -> list[Memory]:
    """Every memory of the owner that is not deleted (any status, archived included)."""
    stmt = (
        select(Memory)
        .where(Memory.owner_id == owner_id, Memory.deleted_at.is_(None))  # type: ignore[union-attr]
        .order_by(Memory.id)  # type: ignore[arg-type]
    )
    return list(s.exec(stmt))


COMPOUND_CANDIDATES = 30  # the newest facts of other topics read again for the asked ones


def stating_other_topic(s: Session, owner_id: int, slots: frozenset[str], statuses: tuple[str, ...]) -> list[int]:
    """The newest facts saved under another topic that state one of `slots` too, newest first.
    Why: "I'm 34 and I live in Leeds" is saved as a home, yet a new age must find it when it is
    saved (bot/memory/writing/saving.candidate_rows) and "how old am I?" must reach it
    (bot/memory/recall/pipeline.topic_hits); one read, so the two never disagree."""
    if not slots:
        return []
    rows = s.exec(
        select(Memory.id, Memory.text)
        .where(
            Memory.owner_id == owner_id,
            Memory.deleted_at.is_(None),  # type: ignore[union-attr]
            Memory.archived == False,  # noqa: E712
            Memory.status.in_(statuses),  # type: ignore[attr-defined]
            Memory.slot.is_not(None),  # type: ignore[union-attr]
            Memory.slot.not_in(sorted(slots)),  # type: ignore[union-attr]
        )
        .order_by(Memory.id.desc())  # type: ignore[union-attr]
        .limit(COMPOUND_CANDIDATES)
    ).all()
    return [int(mid) for mid, text in rows if any(states_slot(text, slot) for slot in slots)]


# --- references instead of text ---------------------------------------------------------------
# Action summaries and event notes name memories and reminders as {m12} / {r3}, rendered with
# their text only when shown. Why: a deleted memory's text must leave the database at the purge,
# and a summary that had copied it ("saving “My diagnosis is ...”") would keep it for ever.
# Older databases have notes written as "#12"; they are read the same way.

PURGED_WORDS = "a fact that was later deleted"
_REF = re.compile(r"\{([mr])(\d{1,12})\}|(?<![\w#&])#(\d{1,12})\b")


def mref(memory_id: int | None) -> str:
    return f"{{m{memory_id}}}"


def rref(reminder_id: int | None) -> str:
    return f"{{r{reminder_id}}}"


def quoted(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"“{text}”"


def resolve_refs(s: Session, owner_id: int, text: str, *, limit: int = 80, as_of: dict[int, str] | None = None) -> str:
    """`text` with every reference replaced by the quoted text of what it names (this owner's
    only), or by "a fact that was later deleted" once its text was purged. `as_of` gives the
    words a memory had at the time of an action (from its event), so that "the correction of
    ..." names the correction, not what the memory says now."""

    def one(m: re.Match[str]) -> str:
        kind, number = (m.group(1), m.group(2)) if m.group(1) else ("m", m.group(3))
        if kind == "r":
            r = s.get(Reminder, int(number))
            return quoted(r.text, limit) if r is not None and r.owner_id == owner_id else "a reminder"
        mem = s.get(Memory, int(number))
        if mem is None or mem.owner_id != owner_id or mem.purged_at is not None or not mem.text:
            return PURGED_WORDS
        return quoted((as_of or {}).get(mem.id) or mem.text, limit)  # type: ignore[arg-type]

    return _REF.sub(one, text) if text else text


def ref_ids(text: str) -> list[int]:
    """The memory ids a summary or note refers to."""
    return [int(m.group(2) or m.group(3)) for m in _REF.finditer(text or "") if m.group(1) != "r"]


def words_seen(*texts: str) -> str:
    """A short digest of the words a button was shown with, so that a press can re-check them
    without the button's stored payload holding a copy of the text (which the purge would miss)."""
    return hashlib.sha256("\x1f".join(texts).encode("utf-8")).hexdigest()[:16]
