"""Purging deleted memories: after the undo window the text leaves the memory, its events and
its embedding; a tombstone (id, uid, time) stays so that an import cannot bring it back.
"""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import text as sql
from sqlmodel import Session, select

from bot.storage.models import EventKind, Memory, MemoryEvent, Owner, utcnow

TOMBSTONE_TEXT = ""


def purge_row(s: Session, m: Memory) -> None:
    """Remove every copy of a deleted memory's text from the database."""
    m.text = TOMBSTONE_TEXT
    m.embedding = None
    m.slot = None
    m.valid_from = None
    m.valid_until = None
    m.replaced_by = None
    m.purged_at = utcnow()
    if m.deleted_at is None:
        m.deleted_at = m.purged_at
    s.add(m)
    for ev in s.exec(select(MemoryEvent).where(MemoryEvent.memory_id == m.id)):
        ev.before_json = _scrub(ev.before_json)
        ev.after_json = _scrub(ev.after_json)
        ev.note = "" if ev.kind != EventKind.DELETED else ev.note
        s.add(ev)
    _scrub_why(s, m)
    # links from other memories to this one would point at nothing meaningful
    for other in s.exec(select(Memory).where(Memory.replaced_by == m.id)):
        other.replaced_by = None
        s.add(other)
    s.flush()


def _scrub_why(s: Session, m: Memory) -> None:
    """/why keeps the texts the last answer used; a purged memory's text leaves there too."""
    owner = s.get(Owner, m.owner_id)
    if owner is None or not owner.last_why_json:
        return
    try:
        record = json.loads(owner.last_why_json)
    except ValueError:
        return
    changed = False
    for item in record.get("memories", []) if isinstance(record, dict) else []:
        if isinstance(item, dict) and item.get("id") == m.id and item.get("text"):
            item["text"] = TOMBSTONE_TEXT
            changed = True
    if changed:
        owner.last_why_json = json.dumps(record, ensure_ascii=False)
        s.add(owner)


def _scrub(raw: str | None) -> str | None:
    if not raw:
        return raw
    data = json.loads(raw)
    if "text" in data:
        data["text"] = TOMBSTONE_TEXT
    return json.dumps(data)


def purge_due(s: Session, undo_window: timedelta) -> int:
    """Purge every memory deleted longer ago than the undo window; returns how many."""
    cutoff = utcnow() - undo_window
    rows = list(
        s.exec(
            select(Memory).where(
                Memory.deleted_at.is_not(None),  # type: ignore[union-attr]
                Memory.deleted_at <= cutoff,  # type: ignore[operator]
                Memory.purged_at.is_(None),  # type: ignore[union-attr]
            )
        )
    )
    for m in rows:
        purge_row(s, m)
    if rows and s.get_bind().dialect.name == "sqlite":
        # drop the purged words from the full-text index segments too
        s.execute(sql("INSERT INTO memory_fts(memory_fts) VALUES('optimize')"))
    return len(rows)
