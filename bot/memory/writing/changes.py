"""Changing one memory: edit in place, mark as past, restore, delete; and deleting a person.

Every change is one action with its events, so it shows in /history and /undo can revert it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import func, update
from sqlalchemy import text as sql_text
from sqlmodel import Session, delete, select

from bot.memory.rules import conflict as rules
from bot.storage import access, buttons, web_login
from bot.storage.usage import utc_today
from bot.memory.rules.dates import extract_validity
from bot.storage.models import (
    Action,
    ActionChange,
    Conflict,
    Episode,
    EventKind,
    Identity,
    LinkCode,
    Memory,
    MemoryEvent,
    MessageLog,
    ModelUsage,
    Owner,
    Procedure,
    Reminder,
    Status,
    utcnow,
)
from bot.memory.store import MemoryView, get_memory, log_event, mref, new_action, snapshot, touch


@dataclass(frozen=True)
class Changed:
    memory: MemoryView
    action_id: str
    note: str = ""


def edit(s: Session, owner_id: int, memory_id: int, text: str, embedding: bytes | None) -> Changed | None:
    """Correct a memory in place (a typo, a wrong word): no new version, but the event log keeps
    the old wording until the memory is deleted."""
    m = get_memory(s, owner_id, memory_id)
    if m is None:
        return None
    before = snapshot(m)
    m.text = text
    m.slot = rules.detect_slot(text)
    validity = extract_validity(text, utcnow().date())
    m.valid_from, m.valid_until = validity.valid_from, validity.valid_until
    m.embedding = embedding
    touch(m)
    s.add(m)
    action = new_action(s, owner_id, "edit", f"the correction of {mref(m.id)}")
    log_event(s, action, m, EventKind.EDITED, before)
    return Changed(MemoryView.of(m), action.id)


def mark_past(s: Session, owner_id: int, memory_id: int) -> Changed | None:
    m = get_memory(s, owner_id, memory_id)
    if m is None:
        return None
    if m.status == Status.HISTORICAL.value:
        return Changed(MemoryView.of(m), "", note="already past")
    before = snapshot(m)
    m.status = Status.HISTORICAL.value
    touch(m)
    s.add(m)
    action = new_action(s, owner_id, "mark_past", f"marking {mref(m.id)} as past")
    log_event(s, action, m, EventKind.MARKED_PAST, before)
    void_conflicts_naming(s, owner_id, m.id)
    return Changed(MemoryView.of(m), action.id)


def restore(s: Session, owner_id: int, memory_id: int) -> Changed | None:
    """Make a past, unsure, archived or just-deleted memory current again."""
    m = get_memory(s, owner_id, memory_id, include_deleted=True)
    if m is None or m.purged_at is not None:
        return None
    if m.status == Status.CURRENT.value and not m.archived and m.deleted_at is None:
        return Changed(MemoryView.of(m), "", note="already current")
    before = snapshot(m)
    m.status = Status.CURRENT.value
    m.archived = False
    m.deleted_at = None
    m.replaced_by = None
    touch(m)
    s.add(m)
    action = new_action(s, owner_id, "restore", f"restoring {mref(m.id)}")
    log_event(s, action, m, EventKind.RESTORED, before)
    return Changed(MemoryView.of(m), action.id)


def delete_memory(s: Session, owner_id: int, memory_id: int, *, actor: str = "person") -> Changed | None:
    """Hide at once; the text is purged after the undo window (see purge.py)."""
    m = get_memory(s, owner_id, memory_id)
    if m is None:
        return None
    before = snapshot(m)
    m.deleted_at = utcnow()
    touch(m)
    s.add(m)
    action = new_action(s, owner_id, "delete", f"deleting {mref(m.id)}", actor=actor)
    log_event(s, action, m, EventKind.DELETED, before, actor=actor)
    void_conflicts_naming(s, owner_id, m.id)
    return Changed(MemoryView.of(m), action.id)


def void_conflicts_naming(s: Session, owner_id: int, memory_id: int | None) -> None:
    """A pending question about a memory that is gone or settled by hand no longer makes sense:
    it is voided, and the other memories it held as unsure go back to current."""
    pending = s.exec(select(Conflict).where(Conflict.owner_id == owner_id, Conflict.status == "pending")).all()
    for c in pending:
        old_ids = json.loads(c.old_ids_json)
        if c.new_memory_id != memory_id and memory_id not in old_ids:
            continue
        # Conditional, like settling it: an answer given at the same moment in another process
        # wins or loses as a whole, never half-overwritten by this void.
        voided = s.execute(
            update(Conflict)
            .where(Conflict.id == c.id, Conflict.status == "pending")  # type: ignore[arg-type]
            .values(status="void", settled_at=utcnow())
            .execution_options(synchronize_session=False)
        ).rowcount
        s.expire(c)
        if voided != 1:
            continue
        for oid in old_ids:
            if oid == memory_id:
                continue
            old = get_memory(s, owner_id, oid)
            if old is not None and old.status == Status.UNSURE.value and not still_questioned(s, owner_id, oid, c.id):
                before = snapshot(old)
                old.status = Status.CURRENT.value
                touch(old)
                s.add(old)
                log_event(s, None, old, EventKind.RESTORED, before, actor="assistant", note="question voided")


def still_questioned(s: Session, owner_id: int, memory_id: int, except_conflict: int | None) -> bool:
    """Is this memory named as the old side of another pending conflict?"""
    for c in s.exec(select(Conflict).where(Conflict.owner_id == owner_id, Conflict.status == "pending")):
        if c.id != except_conflict and memory_id in json.loads(c.old_ids_json):
            return True
    return False


def _owners_of(s: Session, owner_id: int) -> list[int]:
    """The owner and the dormant owners of identities linked into it (their memories are the
    person's too: left alone, /unlink would bring them back after "delete everything")."""
    found = [owner_id]
    for ident in s.exec(select(Identity).where(Identity.owner_id == owner_id, Identity.home_owner_id.is_not(None))):  # type: ignore[union-attr]
        if ident.home_owner_id not in found:
            found.append(ident.home_owner_id)  # type: ignore[arg-type]
    return found


def forget_scope(s: Session, owner_id: int) -> tuple[int, int]:
    """What "delete everything" would delete, as shown to the person: (the number of memories
    they have, i.e. not deleted, linked accounts included; the newest memory's id). The
    confirmation carries it, and a press that finds it changed asks again."""
    ids = list(s.exec(select(Memory.id).where(Memory.owner_id.in_(_owners_of(s, owner_id)), Memory.deleted_at.is_(None))))  # type: ignore[union-attr,attr-defined]
    newest = s.exec(select(func.max(Memory.id)).where(Memory.owner_id.in_(_owners_of(s, owner_id)))).one()  # type: ignore[union-attr,attr-defined]
    return len(ids), int(newest or 0)


def forget_everything(s: Session, owner_id: int) -> int:
    """Delete everything held about a person, at once and for good (after their confirmation).
    Returns the number of memories removed, counted as the confirmation counted them."""
    count, _ = forget_scope(s, owner_id)
    for owner in _owners_of(s, owner_id):
        _erase(s, owner)
    if s.get_bind().dialect.name == "sqlite":
        # the words leave the full-text index's segments too, not only its visible rows
        s.execute(sql_text("INSERT INTO memory_fts(memory_fts) VALUES('optimize')"))
    return count


def _erase(s: Session, owner_id: int) -> None:
    s.exec(delete(MemoryEvent).where(MemoryEvent.owner_id == owner_id))  # type: ignore[call-overload]
    s.exec(delete(ActionChange).where(ActionChange.owner_id == owner_id))  # type: ignore[call-overload]
    s.exec(delete(Action).where(Action.owner_id == owner_id))  # type: ignore[call-overload]
    s.exec(delete(Conflict).where(Conflict.owner_id == owner_id))  # type: ignore[call-overload]
    buttons.delete_owner_tokens(s, owner_id)
    access.revoke_owner(s, owner_id)  # programs lose access with everything else
    web_login.end_owner(s, owner_id)  # and so do the memory page's browsers and unused links
    s.exec(delete(MessageLog).where(MessageLog.owner_id == owner_id))  # type: ignore[call-overload]
    s.exec(delete(Episode).where(Episode.owner_id == owner_id))  # type: ignore[call-overload]
    s.exec(delete(Procedure).where(Procedure.owner_id == owner_id))  # type: ignore[call-overload]
    s.exec(delete(Reminder).where(Reminder.owner_id == owner_id))  # type: ignore[call-overload]
    # Today's model spend stays (numbers only, no text): deleting your data must not hand out a
    # fresh daily budget. Earlier days go.
    s.exec(delete(ModelUsage).where(ModelUsage.owner_id == owner_id, ModelUsage.day < utc_today().isoformat()))  # type: ignore[call-overload]
    s.exec(delete(LinkCode).where(LinkCode.owner_id == owner_id))  # type: ignore[call-overload]
    # break replaced_by links first so rows can go in any order
    for m in s.exec(select(Memory).where(Memory.owner_id == owner_id, Memory.replaced_by.is_not(None))):  # type: ignore[union-attr]
        m.replaced_by = None
        s.add(m)
    s.flush()
    s.exec(delete(Memory).where(Memory.owner_id == owner_id))  # type: ignore[call-overload]
    owner = s.get(Owner, owner_id)
    if owner is not None:
        owner.settings_json = "{}"
        owner.last_list_json = "[]"
        owner.last_why_json = "[]"
        owner.timezone = None
        owner.curator_fingerprint = None
        s.add(owner)
    # identities stay, so the person is still recognised, but nothing else remains
