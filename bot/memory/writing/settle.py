"""Conflict questions: reading them, settling them with one of the four answers.

The four answers (docs/ARCHITECTURE.md "Asking"): Keep both; Mark older as past (the old fact
becomes historical, linked to the new one); Replace older (old deleted); Discard newer (new
deleted). Each is one action, so Undo puts the question back exactly as it was.

Which answer is recommended follows the verdict stored with the question (per old fact, in
reason_json, when it was asked): a different value recommends Mark older as past, the same value
said again with more detail Keep both, anything unclear nothing. A question asked before
verdicts were stored keeps the recommendation it was shown with (Mark older as past).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum

from sqlalchemy import func, update
from sqlmodel import Session, select

from bot.memory.rules.conflict import VERDICT_CHANGE, VERDICT_SAME
from bot.memory.writing.changes import still_questioned
from bot.storage.models import Action, ActionChange, Conflict, EventKind, Status, utcnow
from bot.memory.store import MemoryView, get_memory, log_event, mref, new_action, snapshot, touch, words_seen


class Choice(StrEnum):
    KEEP = "keep"
    PAST = "past"
    REPLACE = "replace"
    DISCARD = "discard"


CHOICE_LABELS: dict[Choice, str] = {
    Choice.KEEP: "Keep both",
    Choice.PAST: "Mark older as past",
    Choice.REPLACE: "Replace older (deletes it)",
    Choice.DISCARD: "Discard newer",
}
RECOMMENDED = " (recommended)"

# a verdict stored per old fact -> the answer it recommends
_BY_VERDICT = {VERDICT_CHANGE: Choice.PAST, VERDICT_SAME: Choice.KEEP}


def choice_label(choice: Choice, recommended: Choice | None) -> str:
    """A button's label; the recommended answer says so in its own label, in the same place."""
    return CHOICE_LABELS[choice] + (RECOMMENDED if choice is recommended else "")


def recommended_choice(reasons: dict[str, object]) -> Choice | None:
    """The answer a stored question recommends: the one its old facts' verdicts agree on, None
    when they disagree or one is unclear. Questions stored before verdicts were kept recommend
    Mark older as past, as they did when they were shown."""
    entries = [v for v in reasons.values() if isinstance(v, dict)]
    if not entries or not any("verdict" in v for v in entries):
        return Choice.PAST
    choices = {_BY_VERDICT.get(str(v.get("verdict"))) for v in entries}
    return choices.pop() if len(choices) == 1 else None


@dataclass(frozen=True)
class ConflictView:
    id: int
    status: str
    resolution: str | None
    new: MemoryView | None
    olds: tuple[MemoryView, ...]
    reasons: dict[int, str] = field(default_factory=dict)
    recommended: Choice | None = Choice.PAST


@dataclass(frozen=True)
class Settled:
    view: ConflictView
    action_id: str
    choice: Choice


def _view(s: Session, c: Conflict) -> ConflictView:
    assert c.id is not None
    new = get_memory(s, c.owner_id, c.new_memory_id, include_deleted=True)
    olds = []
    for oid in json.loads(c.old_ids_json):
        m = get_memory(s, c.owner_id, oid, include_deleted=True)
        if m is not None:
            olds.append(MemoryView.of(m))
    reasons_raw = json.loads(c.reason_json or "{}")
    reasons = {int(k): str(v.get("reason", "")) for k, v in reasons_raw.items() if isinstance(v, dict)}
    return ConflictView(
        id=c.id,
        status=c.status,
        resolution=c.resolution,
        new=MemoryView.of(new) if new is not None else None,
        olds=tuple(olds),
        reasons=reasons,
        recommended=recommended_choice(reasons_raw) if isinstance(reasons_raw, dict) else Choice.PAST,
    )


def get_conflict(s: Session, owner_id: int, conflict_id: int) -> ConflictView | None:
    c = s.get(Conflict, conflict_id)
    if c is None or c.owner_id != owner_id:
        return None
    return _view(s, c)


def pending(s: Session, owner_id: int) -> list[ConflictView]:
    rows = s.exec(
        select(Conflict).where(Conflict.owner_id == owner_id, Conflict.status == "pending").order_by(Conflict.id)  # type: ignore[arg-type]
    )
    return [_view(s, c) for c in rows]


def pending_count(s: Session, owner_id: int | None) -> int:
    stmt = select(func.count()).select_from(Conflict).where(Conflict.status == "pending")
    if owner_id is not None:
        stmt = stmt.where(Conflict.owner_id == owner_id)
    return int(s.exec(stmt).one())


def record_shown(s: Session, owner_id: int, conflict_id: int, platform: str, chat_id: str, message_id: str | None) -> None:
    c = s.get(Conflict, conflict_id)
    if c is None or c.owner_id != owner_id:
        return
    c.shown_platform, c.shown_chat_id, c.shown_message_id = platform, chat_id, message_id
    s.add(c)


def shown_at(s: Session, owner_id: int, conflict_id: int) -> tuple[str, str, str] | None:
    """(platform, chat id, message id) of the message that last showed this question, when known."""
    c = s.get(Conflict, conflict_id)
    if c is None or c.owner_id != owner_id or not (c.shown_platform and c.shown_chat_id and c.shown_message_id):
        return None
    return c.shown_platform, c.shown_chat_id, c.shown_message_id


def _already(c: Conflict) -> str:
    if c.status == "void":
        return "That question no longer applies (one of its facts was changed or deleted)."
    done = CHOICE_LABELS.get(Choice(c.resolution), c.resolution) if c.resolution in Choice._value2member_map_ else c.status
    return f"That question was already settled ({done})."


def fingerprint(view: ConflictView) -> str:
    """What the person was shown of a question (the texts on both sides): a button pressed on
    Telegram or Discord re-checks it, so an answer never applies to facts that changed since."""
    parts = [view.new.text if view.new is not None else ""] + [o.text for o in view.olds]
    return words_seen(*parts)


def resolve(s: Session, owner_id: int, conflict_id: int, choice: Choice) -> Settled | str:
    """Apply an answer in one transaction; returns why not (a sentence) when it cannot apply.

    The other questions follow: a fact this answer made past or deleted leaves every other
    pending question (a question left with no older fact is closed), and a discarded new fact
    closes the questions it raised; each such change is recorded with the answer's action, so
    Undo puts those questions back too."""
    c = s.get(Conflict, conflict_id)
    if c is None or c.owner_id != owner_id:
        return "That question no longer exists."
    if c.status != "pending":
        return _already(c)
    new = get_memory(s, owner_id, c.new_memory_id)
    if new is None:
        s.refresh(c)  # "Discard newer" given elsewhere a moment ago deletes it: say that instead
        if c.status != "pending":
            return _already(c)
        return "The new fact of that question is gone, so there is nothing to settle."
    # Claim the question before changing anything: one conditional UPDATE, so that of two
    # answers given at the same moment (two processes, two devices) exactly one applies. It takes
    # the row lock (PostgreSQL) or the write lock (SQLite) first; the loser waits, then matches
    # no row and is told the question was already settled.
    now = utcnow()
    claimed = s.execute(
        update(Conflict)
        .where(Conflict.id == c.id, Conflict.owner_id == owner_id, Conflict.status == "pending")  # type: ignore[arg-type]
        .values(status="settled", resolution=choice.value, settled_at=now)
        .execution_options(synchronize_session=False)
    ).rowcount
    if claimed != 1:
        s.refresh(c)
        return _already(c)
    label = CHOICE_LABELS[choice]
    action = new_action(s, owner_id, f"resolve_{choice.value}", f"your answer “{label}” about {mref(new.id)}")
    action.conflict_id = c.id
    action.conflict_status_before = "pending"
    s.add(action)
    retired: list[int] = []
    for oid in json.loads(c.old_ids_json):
        old = get_memory(s, owner_id, oid)
        if old is None:
            continue
        before = snapshot(old)
        if choice is Choice.PAST:
            old.status = Status.HISTORICAL.value
            old.replaced_by = new.id
            kind, note = EventKind.MARKED_PAST, f"replaced by {mref(new.id)}"
            retired.append(oid)
        elif choice is Choice.REPLACE:
            old.deleted_at = now
            kind, note = EventKind.DELETED, f"replaced by {mref(new.id)}"
            retired.append(oid)
        else:  # keep both / discard newer: the old fact is current again unless another question holds it
            if old.status == Status.UNSURE.value and not still_questioned(s, owner_id, oid, c.id):
                old.status = Status.CURRENT.value
            kind, note = EventKind.RESTORED, "kept" if choice is Choice.KEEP else "newer discarded"
        touch(old)
        s.add(old)
        log_event(s, action, old, kind, before, note=note)
    if choice is Choice.DISCARD:
        before = snapshot(new)
        new.deleted_at = now
        touch(new)
        s.add(new)
        log_event(s, action, new, EventKind.DELETED, before, note="discarded as newer")
    c.status = "settled"
    c.resolution = choice.value
    c.settled_at = now
    s.add(c)
    s.flush()
    gone = set(retired) | ({new.id} if choice is Choice.DISCARD else set())
    if gone:
        _follow(s, owner_id, c.id, gone, action)  # type: ignore[arg-type]
    s.flush()
    return Settled(_view(s, c), action.id, choice)


def _follow(s: Session, owner_id: int, settled_id: int, gone: set[int], action: Action) -> None:
    """Other pending questions about facts that are no longer current: a question whose new
    fact is gone is closed; a fact that is past or deleted leaves the questions that asked
    whether something replaces it, and a question left with nothing to ask about is closed.
    Every change is recorded with `action` (an ActionChange) so that Undo restores it."""
    others = s.exec(
        select(Conflict).where(Conflict.owner_id == owner_id, Conflict.status == "pending", Conflict.id != settled_id)  # type: ignore[arg-type]
    ).all()
    for d in others:
        old_ids = [int(i) for i in json.loads(d.old_ids_json)]
        if d.new_memory_id in gone:
            keep = old_ids
            status = "void"
        else:
            keep = [i for i in old_ids if i not in gone]
            if keep == old_ids:
                continue
            status = "pending" if keep else "void"
        before = {"status": d.status, "old_ids": old_ids}
        d.old_ids_json = json.dumps(keep if status == "pending" else old_ids)
        d.status = status
        if status == "void":
            d.settled_at = utcnow()
        s.add(d)
        s.add(ActionChange(owner_id=owner_id, action_id=action.id, target="conflict", ref=str(d.id),
                           before_json=json.dumps(before),
                           after_json=json.dumps({"status": d.status, "old_ids": json.loads(d.old_ids_json)})))
        if status == "void":  # its remaining older facts are no longer in question
            for oid in keep:
                old = get_memory(s, owner_id, oid)
                if old is not None and old.status == Status.UNSURE.value and not still_questioned(s, owner_id, oid, d.id):
                    before_m = snapshot(old)
                    old.status = Status.CURRENT.value
                    touch(old)
                    s.add(old)
                    log_event(s, action, old, EventKind.RESTORED, before_m, note="question closed")
