"""Undo: put back exactly what one action changed, and only if nothing changed since.

/undo walks back the person's own actions of every kind in order, newest first: saves, edits,
answers to questions, deletions, tidy-ups they asked for, reminders set or cancelled, settings.
Memories are put back from their event snapshots; reminders, settings and the questions an
answer closed from the action's ActionChange rows.

Why the version check: undoing an action after a later change to the same memory would silently
throw the later change away — the kind of quiet loss this memory exists to prevent. An action
that can no longer be undone (changed since by something /undo does not walk back, or its text
already purged) is named, set aside (never tried again) and the next /undo goes on with the one
before it; the reply says which one that is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, select

from bot.memory import owners
from bot.storage.models import Action, ActionChange, Conflict, EventKind, Memory, MemoryEvent, Reminder, utcnow
from bot.memory.writing.purge import purge_row
from bot.memory.store import apply_snapshot, log_event, new_action, quoted, ref_ids, resolve_refs, snapshot, touch

SCHEDULED, CANCELLED = "scheduled", "cancelled"


@dataclass(frozen=True)
class Undone:
    ok: bool
    message: str
    action_kind: str = ""
    conflict_id: int | None = None  # a conflict question that is pending again
    # reminders this undo scheduled again (their timers must be set) or stopped
    reminders_scheduled: tuple[int, ...] = ()
    reminders_stopped: tuple[int, ...] = ()
    set_aside: bool = False  # the action could not be undone and will not be tried again
    extra: dict[str, Any] = field(default_factory=dict)


def _latest(s: Session, owner_id: int) -> Action | None:
    return s.exec(
        select(Action)
        .where(Action.owner_id == owner_id, Action.undoable == True, Action.undone_at.is_(None))  # type: ignore[union-attr]  # noqa: E712
        # the person's own changes: background tidying is undone with its own button or
        # /restore, never instead of what the person just did
        .where(Action.actor != "curator")
        .order_by(Action.created_at.desc(), Action.id.desc())  # type: ignore[attr-defined]
    ).first()


def describe(s: Session, owner_id: int, action: Action) -> str:
    """An action in words, naming memories as the action left them ("the correction of “I
    like white tea”", even if it was corrected again since)."""
    left = {}
    for memory_id, after in s.exec(select(MemoryEvent.memory_id, MemoryEvent.after_json).where(MemoryEvent.action_id == action.id)):
        text = _load(after).get("text")
        if memory_id is not None and text:
            left[memory_id] = text
    return resolve_refs(s, owner_id, action.summary, as_of=left)


def next_to_undo(s: Session, owner_id: int) -> str | None:
    """What a plain /undo would undo now, in words (None: nothing)."""
    action = _latest(s, owner_id)
    return describe(s, owner_id, action) if action is not None else None


def _then(s: Session, owner_id: int) -> str:
    following = next_to_undo(s, owner_id)
    return f" The next /undo goes back to {following}." if following else " There is nothing before it to undo."


_CHANGED_WORDS = {
    EventKind.EDITED.value: "was corrected",
    EventKind.UPDATED.value: "was replaced by a newer version",
    EventKind.MARKED_PAST.value: "was marked as past",
    EventKind.MARKED_UNSURE.value: "was put in question",
    EventKind.RESTORED.value: "was restored",
    EventKind.MERGED.value: "was merged with a duplicate by a tidy-up",
    EventKind.ARCHIVED.value: "was archived",
    EventKind.AUTO_ARCHIVED.value: "was archived by a tidy-up",
    EventKind.DELETED.value: "was deleted",
    EventKind.IMPORTED.value: "was updated from a backup",
    EventKind.UNDONE.value: "was changed back by another undo",
}


def _changed_since(s: Session, m: Memory, ev: MemoryEvent, reworded: bool) -> str:
    """How a memory changed after the event an undo would reverse, in words (`reworded`: the
    action's summary named it with the words it had then, which it no longer has)."""
    later = s.exec(
        select(MemoryEvent)
        .where(MemoryEvent.memory_id == m.id, MemoryEvent.id > (ev.id or 0))  # type: ignore[union-attr,operator]
        .order_by(MemoryEvent.id.desc())  # type: ignore[union-attr]
    ).first()
    words = _CHANGED_WORDS.get(later.kind, "has changed") if later is not None else "has changed"
    if not reworded:
        return f"{quoted(m.text)} {words} since"
    return f"it {words} since" + ("" if m.deleted_at is not None else f" and now reads {quoted(m.text)}")


def _as_left(s: Session, m: Memory, ev: MemoryEvent, after: dict[str, Any]) -> bool:
    """Whether the memory is as the event left it though its version moved on, because every
    change since was itself undone ("Replace older", then its Undo, then /undo of the save that
    asked). A change since that still stands (an edit, a tidy-up's merge) keeps the undo refused."""
    now = snapshot(m)
    if any(now.get(k) != v for k, v in after.items() if k != "version" and k in now):
        return False
    for kind, action_id in s.exec(
        select(MemoryEvent.kind, MemoryEvent.action_id).where(
            MemoryEvent.memory_id == m.id, MemoryEvent.id > (ev.id or 0)  # type: ignore[operator]
        )
    ):
        if kind == EventKind.UNDONE.value:
            continue
        later = s.get(Action, action_id) if action_id is not None else None
        if later is None or later.undone_at is None:
            return False
    return True


def undo(s: Session, owner_id: int, action_id: str | None = None) -> Undone:
    if action_id is None:
        action = _latest(s, owner_id)
        if action is None:
            return Undone(False, "There is nothing to undo.")
    else:
        action = s.get(Action, action_id)
        if action is None or action.owner_id != owner_id:
            return Undone(False, "That change no longer exists.")
        if action.undone_at is not None:
            return Undone(False, "That change was already undone.")
        if not action.undoable:
            return Undone(False, "That change cannot be undone any more.")
    events = list(
        s.exec(select(MemoryEvent).where(MemoryEvent.action_id == action.id).order_by(MemoryEvent.id.desc()))  # type: ignore[union-attr]
    )
    what = describe(s, owner_id, action)  # named before anything changes (or is purged)
    named = set(ref_ids(action.summary))

    def set_aside(reason: str) -> Undone:
        action.undoable = False
        s.add(action)
        s.flush()
        return Undone(False, f"I can't undo {what}: {reason}. I've set it aside.{_then(s, owner_id)}",
                      action.kind, set_aside=True)

    rows: list[tuple[MemoryEvent, Memory]] = []
    for ev in events:
        m = s.get(Memory, ev.memory_id) if ev.memory_id is not None else None
        if m is None or m.owner_id != owner_id:
            continue
        if m.purged_at is not None:
            action.undoable = False
            s.add(action)
            s.flush()
            return Undone(False, f"Too late to undo {what}: its text is already erased for good. I've set it "
                          f"aside.{_then(s, owner_id)}", action.kind, set_aside=True)
        after = json.loads(ev.after_json) if ev.after_json else None
        if after is not None and after.get("version") != m.version and not _as_left(s, m, ev, after):
            reworded = m.id in named and after.get("text") not in (None, m.text)
            return set_aside(_changed_since(s, m, ev, reworded))
        rows.append((ev, m))

    others = list(s.exec(select(ActionChange).where(ActionChange.action_id == action.id).order_by(ActionChange.id.desc())))  # type: ignore[union-attr]
    for ch in others:
        problem = _other_problem(s, owner_id, ch)
        if problem is not None:
            return set_aside(problem)

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

    scheduled: list[int] = []
    stopped: list[int] = []
    for ch in others:
        _revert_other(s, owner_id, ch, scheduled, stopped)

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
    return Undone(True, f"Undone {what}.", action.kind, reopened, tuple(scheduled), tuple(stopped))


# --- changes outside the memory table ------------------------------------------------------------


def _load(raw: str | None) -> dict[str, Any]:
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _other_problem(s: Session, owner_id: int, ch: ActionChange) -> str | None:
    """Why this change cannot be put back (it moved on since), or None."""
    after = _load(ch.after_json)
    if ch.target == "reminder":
        r = s.get(Reminder, int(ch.ref)) if ch.ref.isdigit() else None
        if r is None or r.owner_id != owner_id:
            return "that reminder no longer exists"
        if r.state != after.get("state"):
            return f"the reminder {quoted(r.text)} has {'been delivered' if r.state == 'delivered' else 'changed'} since"
    elif ch.target in ("setting", "timezone"):
        prefs = owners.stored_prefs(s, owner_id)
        current = owners.get_owner(s, owner_id).timezone if ch.target == "timezone" else prefs.get(ch.ref)
        if current != after.get("value"):
            return f"the {'time zone' if ch.target == 'timezone' else owners.PREF_WORDS.get(ch.ref, ch.ref) + ' setting'} has changed since"
    return None  # a question this action closed: put back if it is still as left (below)


def _revert_other(s: Session, owner_id: int, ch: ActionChange, scheduled: list[int], stopped: list[int]) -> None:
    before, after = _load(ch.before_json), _load(ch.after_json)
    if ch.target == "reminder":
        r = s.get(Reminder, int(ch.ref))
        assert r is not None
        r.state = before.get("state") or CANCELLED  # no state before: the action set it
        r.version += 1
        s.add(r)
        (scheduled if r.state == SCHEDULED else stopped).append(int(ch.ref))
    elif ch.target == "setting":
        owners.put_pref(s, owner_id, ch.ref, before.get("value"))
    elif ch.target == "timezone":
        owners.get_owner(s, owner_id).timezone = before.get("value")
    elif ch.target == "conflict":
        d = s.get(Conflict, int(ch.ref)) if ch.ref.isdigit() else None
        if d is None or d.owner_id != owner_id:
            return
        now_ids = [int(i) for i in json.loads(d.old_ids_json)]
        if d.status != after.get("status") or now_ids != after.get("old_ids"):
            return  # it moved on since (answered, changed): leave it as it is
        d.status = before.get("status", d.status)
        d.old_ids_json = json.dumps(before.get("old_ids", now_ids))
        if d.status == "pending":
            d.settled_at = None
        s.add(d)
