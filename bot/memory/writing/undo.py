"""Undo: put back exactly what one action changed, and only if nothing changed since.

Why the version check: undoing an action after a later change to the same memory would silently
throw the later change away — the kind of quiet loss this memory exists to prevent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlmodel import Session, select

from bot.storage.models import Action, Conflict, EventKind, Memory, MemoryEvent, utcnow
from bot.memory.writing.purge import purge_row
from bot.memory.store import apply_snapshot, log_event, new_action, snapshot, touch


@dataclass(frozen=True)
class Undone:
    ok: bool
    message: str
    action_kind: str = ""
    conflict_id: int | None = None  # a conflict question that is pending again


def undo(s: Session, owner_id: int, action_id: str | None = None) -> Undone:
    if action_id is None:
        action = s.exec(
            select(Action)
            .where(Action.owner_id == owner_id, Action.undoable == True, Action.undone_at.is_(None))  # type: ignore[union-attr]  # noqa: E712
            # the person's own last change: background tidying is undone with its own button or
            # /restore, never instead of what the person just did
            .where(Action.actor != "curator")
            .order_by(Action.created_at.desc(), Action.id.desc())  # type: ignore[attr-defined]
        ).first()
        if action is None:
            return Undone(False, "There is nothing to undo.")
    else:
        action = s.get(Action, action_id)
        if action is None or action.owner_id != owner_id:
            return Undone(False, "That change no longer exists.")
        if action.undone_at is not None:
            return Undone(False, "That change was already undone.")
        if not action.undoable:
            return Undone(False, "That change cannot be undone.")

    events = list(
        s.exec(select(MemoryEvent).where(MemoryEvent.action_id == action.id).order_by(MemoryEvent.id.desc()))  # type: ignore[union-attr]
    )
    rows: list[tuple[MemoryEvent, Memory]] = []
    for ev in events:
        m = s.get(Memory, ev.memory_id) if ev.memory_id is not None else None
        if m is None or m.owner_id != owner_id:
            continue
        if m.purged_at is not None:
            return Undone(False, "Too late to undo that: the deleted text is already gone for good.")
        after = json.loads(ev.after_json) if ev.after_json else None
        if after is not None and after.get("version") != m.version:
            return Undone(False, f"I can't undo that safely: memory #{m.id} has changed since.")
        rows.append((ev, m))

    undo_action = new_action(s, owner_id, "undo", f"undid: {action.summary}", undoable=False)
    for ev, m in rows:
        before = snapshot(m)
        previous = json.loads(ev.before_json) if ev.before_json else None
        if previous is None:  # the action created this memory: undoing removes it at once
            m.deleted_at = utcnow()
            touch(m)
            s.add(m)
            log_event(s, undo_action, m, EventKind.UNDONE, before, note="creation undone")
            purge_row(s, m)
        else:
            apply_snapshot(m, previous)
            touch(m)
            s.add(m)
            log_event(s, undo_action, m, EventKind.UNDONE, before, note=f"undid {ev.kind}")

    reopened: int | None = None
    if action.conflict_id is not None:
        c = s.get(Conflict, action.conflict_id)
        if c is not None and c.owner_id == owner_id:
            if action.conflict_status_before:  # the action settled it: ask again
                c.status = action.conflict_status_before
                c.resolution = None
                c.settled_at = None
                reopened = c.id
            else:  # the action created it together with the new fact: the question goes too
                c.status = "void"
                c.settled_at = utcnow()
            s.add(c)
    action.undone_at = utcnow()
    s.add(action)
    return Undone(True, f"Undone {action.summary}.", action.kind, reopened)
