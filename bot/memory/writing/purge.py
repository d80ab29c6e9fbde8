"""Purging deleted memories: after the undo window the text leaves the memory, its events and
its embedding; a tombstone (id, uid, time) stays so that an import cannot bring it back.

Nothing else holds the text: action summaries and event notes name memories by reference
(bot/memory/store.py); the conversation log and episode summaries that quoted the fact are
scrubbed here (the chat window and later summaries would otherwise still "know" it); on SQLite
the full-text index is optimised (its segments drop the words), secure_delete zeroes freed
pages, and the service truncates the write-ahead log after the commit.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

from sqlalchemy import func
from sqlalchemy import text as sql
from sqlmodel import Session, select

from bot.memory.rules.text import content_words
from bot.memory.store import mref
from bot.storage.models import Action, ButtonToken, Episode, EventKind, Memory, MemoryEvent, MessageLog, Owner, utcnow

TOMBSTONE_TEXT = ""
FORGOTTEN = "[forgotten]"
FORGOTTEN_REPLY = "[a reply about something you asked me to forget]"
FORGOTTEN_SUMMARY = "[a summary that mentioned something you asked me to forget]"


def purge_row(s: Session, m: Memory) -> None:
    """Remove every copy of a deleted memory's text from the database."""
    original = m.text
    _scrub_conversation(s, m.owner_id, original)
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
    action_ids = set()
    for ev in s.exec(select(MemoryEvent).where(MemoryEvent.memory_id == m.id)):
        ev.before_json = _scrub(ev.before_json)
        ev.after_json = _scrub(ev.after_json)
        ev.note = "" if ev.kind != EventKind.DELETED else ev.note
        s.add(ev)
        if ev.action_id:
            action_ids.add(ev.action_id)
    _scrub_old_summaries(s, m.id, original, action_ids)
    _scrub_why(s, m)
    # links from other memories to this one would point at nothing meaningful
    for other in s.exec(select(Memory).where(Memory.replaced_by == m.id)):
        other.replaced_by = None
        s.add(other)
    s.flush()


def _quotes(text: str, fact: str, words: frozenset[str]) -> bool:
    """Does `text` say the fact: its whole wording, or (for facts of two or more content words)
    every one of its content words?"""
    if " ".join(fact.split()).lower() in " ".join(text.split()).lower():
        return True
    return len(words) >= 2 and words <= content_words(text)


def _scrub_conversation(s: Session, owner_id: int, fact: str) -> None:
    """The conversation log and episode summaries that said the fact: the person's own line
    loses the fact's wording, the assistant's reply and a summary that said it are replaced
    whole (they may say it in other words too)."""
    if not fact.strip():
        return
    words = content_words(fact)
    # one word every matching row contains literally, for the database to narrow the rows by
    literal = [w for w in words if w in fact.lower()] or re.findall(r"\w+", fact.lower()) or [fact.lower()]
    rare = max(literal, key=len)
    like = "%" + rare.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    flat = " ".join(fact.split())
    for row in s.exec(
        select(MessageLog).where(MessageLog.owner_id == owner_id, func.lower(MessageLog.text).like(like, escape="\\"))
    ):
        if not _quotes(row.text, fact, words):
            continue
        if row.role == "assistant":
            row.text = FORGOTTEN_REPLY
        else:
            row.text = re.sub(re.escape(flat).replace(r"\ ", r"\s+"), FORGOTTEN, row.text, flags=re.I)
            if _quotes(row.text, fact, words) and len(words) >= 2:
                row.text = FORGOTTEN
        s.add(row)
    # a button that carries the words (a list page titled with a search for them) goes too
    for token in s.exec(
        select(ButtonToken).where(ButtonToken.owner_id == owner_id, func.lower(ButtonToken.payload_json).like(like, escape="\\"))
    ):
        s.delete(token)
    for ep in s.exec(
        select(Episode).where(Episode.owner_id == owner_id, func.lower(Episode.summary).like(like, escape="\\"))
    ):
        if _quotes(ep.summary + " " + ep.title, fact, words):
            ep.summary = FORGOTTEN_SUMMARY
            ep.title = ""
            ep.embedding = None
            s.add(ep)


def _scrub_old_summaries(s: Session, memory_id: int | None, text: str, action_ids: set[str]) -> None:
    """Summaries written before they named memories by reference quoted the text ("saving “…”",
    its first 60 or 80 characters): the quote becomes the reference."""
    if not text:
        return
    quotes = {f"“{text[:n]}”" for n in (60, 80)}
    for action_id in action_ids:
        action = s.get(Action, action_id)
        if action is None or not any(q in action.summary for q in quotes):
            continue
        for q in sorted(quotes, key=len, reverse=True):
            action.summary = action.summary.replace(q, mref(memory_id))
        s.add(action)


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
