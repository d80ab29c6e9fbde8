"""Restored facts that contradict current ones become questions, as a save's would.

An import writes rows in bulk (bot/memory/writing/transfer.py), so without this a backup's "I
live in Berlin" would stand beside a current "I live in London", both current, with no question:
two silent values of one topic. Here every fact of a single-value topic that the import made
current is read by the same conflict rules as a save (`rules.assess`), against the person's live
facts of that topic that did not come from this import; each nomination becomes a pending Conflict, exactly as `apply_remember` writes
one, and the older of the two facts (by when it was first said) is the one marked possibly
outdated, so that restoring an old backup after a move asks about the old city, not the new.
Nothing is retired: /memories review lists the questions (the import's summary says how many).

Runs inside the import's final transaction, so the questions exist exactly when the import does;
its events belong to the import's action.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from bot.memory.rules import conflict as rules
from bot.memory.writing.saving import LIVE, _Attrs, _OLD_COLUMNS, _write_changes
from bot.memory.store import snapshot
from bot.storage.models import Conflict, EventKind, Memory, Status

CHUNK = 500  # ids per IN (...) list


def _aware(value: datetime | None) -> datetime:
    if value is None:
        return datetime.min.replace(tzinfo=timezone.utc)
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def topic_slots(texts: dict[str, tuple[str, str | None]]) -> dict[str, str]:
    """uid -> the single-value topic of each (text, stored slot) that names one. Pure and slow
    (regexes over every text): run on a worker thread before the import's transactions."""
    out = {}
    for uid, (text, stored) in texts.items():
        slot = rules.detect_slot(text) or stored
        if slot:
            out[uid] = slot
    return out


def ask_about_contradictions(s: Session, owner_id: int, slots: dict[int, str], action_id: str,
                             before: set[int]) -> int:
    """Questions for the imported facts (id -> their topic, from `topic_slots`) that contradict
    a live fact from before the import (`before`: the ids the import's plan read as live);
    returns how many questions were asked.

    Runs in the import's final transaction, so it reads little: nothing at all for a person who
    had no facts of those topics, else the few columns the rules need of the facts on both sides
    of a shared topic, and whole rows only for the facts it marks."""
    if not slots or not before:
        return 0
    table = Memory.__table__  # type: ignore[attr-defined]
    conn = s.connection()
    lean = [table.c[n] for n in ("id", "text", "slot", "status", "created_at", "archived")]

    def read(where: Any, columns: Any = lean) -> list[dict[str, Any]]:
        got = conn.execute(sa.select(*columns).where(
            table.c.owner_id == owner_id, table.c.deleted_at.is_(None), where)).mappings()
        return [dict(r) for r in got]

    by_slot: dict[str, list[dict[str, Any]]] = {}
    olds_where = sa.and_(table.c.slot.in_(sorted(set(slots.values()))),
                         table.c.id.between(min(before), max(before)))
    for old in read(olds_where):
        if old["id"] in before and old["id"] not in slots and old["status"] in LIVE and not old["archived"]:
            by_slot.setdefault(old["slot"], []).append(old)
    if not by_slot:
        return 0
    fact_ids = sorted(i for i, slot in slots.items() if slot in by_slot)
    facts: list[tuple[dict[str, Any], str]] = []
    for i in range(0, len(fact_ids), CHUNK):
        for row in read(table.c.id.in_(fact_ids[i:i + CHUNK])):
            if row["status"] == Status.CURRENT.value:
                facts.append((row, slots[row["id"]]))
    # newer fact id -> [(older id, reason, verdict)]: one question per newer fact
    questions: dict[int, list[tuple[int, str, str]]] = {}
    marked: set[int] = set()
    for fact, slot in facts:
        olds = {o["id"]: o for o in by_slot[slot]}
        relevant = [rules.Fact(id=o["id"], text=o["text"], slot=o["slot"], status=o["status"]) for o in olds.values()]
        for nom in rules.assess(fact["text"], relevant, {}, new_slot=slot).nominations:
            old = olds.get(nom.old_id)
            if old is None:
                continue
            newer, older = (fact, old) if _aware(fact["created_at"]) >= _aware(old["created_at"]) else (old, fact)
            if older["id"] in marked:
                continue
            marked.add(older["id"])
            questions.setdefault(newer["id"], []).append((older["id"], f"rule: {nom.rule} (import)", nom.verdict))
    if not questions:
        return 0
    full = {r["id"]: r for r in read(table.c.id.in_(sorted(marked)), _OLD_COLUMNS)}
    changed: list[tuple[dict[str, Any], dict[str, Any], str, str]] = []
    asked_count = 0
    for new_id, asked_ids in questions.items():
        asked = [(full[i], reason, verdict) for i, reason, verdict in asked_ids if i in full]
        if not asked:
            continue
        asked_count += 1
        s.add(Conflict(
            owner_id=owner_id,
            new_memory_id=new_id,
            old_ids_json=json.dumps([old["id"] for old, _, _ in asked]),
            reason_json=json.dumps({
                str(old["id"]): {"reason": reason, "status_before": old["status"], "verdict": verdict}
                for old, reason, verdict in asked
            }),
        ))
        for old, _, _ in asked:
            was = snapshot(_Attrs(old))
            old.update(status=Status.UNSURE.value)
            changed.append((old, was, EventKind.MARKED_UNSURE, "possibly replaced; asked after an import"))
    if changed:
        s.flush()
        _write_changes(conn, owner_id, action_id, "person", changed)
    return asked_count

