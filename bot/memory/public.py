"""Memories as programs see them (the HTTP API and MCP): known by their stable uid, linked by
uid, listed a page at a time.

Why uids: a row number says how many memories the database holds and is different after an
export and import; the uid is what a backup carries, so an id a program kept stays valid, and
it means nothing outside its owner (every lookup here is by owner and uid together).

A question (a pending "does X replace Y?") is known by the uid of its new fact: a save asks at
most one question, so the new fact names it, and again no row number leaves the process.

Read-only session functions; the verbs are MemoryService's.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, select

from bot.memory.index import keyword as search
from bot.memory.store import get_memory
from bot.storage.models import Conflict, Memory

UID_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,32}")  # what a backup's uid may be (transfer.Uid)
MAX_PAGE = 200
MAX_SEARCH_DEPTH = 1000  # a keyword search pages through its best 1,000 matches at most


class ChangedSince(Exception):
    """The memory's version is not the one the caller read: it changed in the meantime (in the
    chat, another program, the curator), so nothing was changed here."""

    def __init__(self, current_version: int) -> None:
        super().__init__(f"it changed since (now at version {current_version})")
        self.current_version = current_version


class BadCursor(ValueError):
    """A cursor that this code did not hand out."""


class Listing(StrEnum):
    CURRENT = "current"
    HISTORICAL = "historical"
    UNSURE = "unsure"
    ARCHIVED = "archived"
    ALL = "all"


@dataclass(frozen=True)
class PublicMemory:
    id: str  # the uid
    text: str
    status: str  # current | historical | unsure
    archived: bool
    category: str
    slot: str | None
    valid_from: date | None
    valid_until: date | None
    replaced_by: str | None  # the uid of the newer version
    created_at: datetime
    updated_at: datetime
    version: int  # send it back with a change to make it conditional
    deleted: bool  # deleted and waiting for the purge (restore brings it back until then)
    source: str = ""  # how it came: typed (command), noted from a conversation (chat, tool), imported ...


@dataclass(frozen=True)
class MemoryPage:
    memories: tuple[PublicMemory, ...]
    next_cursor: str | None


def well_formed(uid: str) -> bool:
    return bool(UID_SHAPE.fullmatch(uid or ""))


def id_for(s: Session, owner_id: int, uid: str, *, include_deleted: bool = False) -> int | None:
    """The row of this owner's memory with this uid; a purged one is gone for everyone."""
    if not well_formed(uid):
        return None
    row = s.exec(
        select(Memory.id, Memory.deleted_at, Memory.purged_at).where(Memory.owner_id == owner_id, Memory.uid == uid)
    ).first()
    if row is None or row[2] is not None or (row[1] is not None and not include_deleted):
        return None
    return int(row[0])


_VIEW_COLUMNS = ("id", "uid", "text", "status", "archived", "category", "slot", "valid_from", "valid_until",
                 "replaced_by", "created_at", "updated_at", "version", "deleted_at", "purged_at", "source")


def views(s: Session, owner_id: int, ids: list[int]) -> list[PublicMemory]:
    """These memories of this owner (purged ones left out), in the order given. One statement of
    plain columns (never the embedding), since every API answer about memories reads here."""
    if not ids:
        return []
    t = Memory.__table__  # type: ignore[attr-defined]
    conn = s.connection()
    found = {
        int(r.id): r
        for r in conn.execute(
            sa.select(*(t.c[name] for name in _VIEW_COLUMNS)).where(t.c.owner_id == owner_id, t.c.id.in_(ids))
        )
    }
    links = {r.replaced_by for r in found.values() if r.replaced_by is not None} - set(found)
    uids = {mid: r.uid for mid, r in found.items()}
    if links:
        uids.update(conn.execute(sa.select(t.c.id, t.c.uid).where(t.c.owner_id == owner_id, t.c.id.in_(links))).all())
    out = []
    for mid in ids:
        r = found.get(mid)
        if r is None or r.purged_at is not None:
            continue
        out.append(
            PublicMemory(
                id=r.uid, text=r.text, status=r.status, archived=bool(r.archived), category=r.category, slot=r.slot,
                valid_from=r.valid_from, valid_until=r.valid_until,
                replaced_by=uids.get(r.replaced_by) if r.replaced_by is not None else None,
                created_at=r.created_at, updated_at=r.updated_at, version=int(r.version),
                deleted=r.deleted_at is not None, source=r.source or "",
            )
        )
    return out


def _where(listing: Listing) -> list[Any]:
    live = [Memory.deleted_at.is_(None)]  # type: ignore[union-attr]
    if listing is Listing.ARCHIVED:
        return live + [Memory.archived == True]  # noqa: E712
    if listing is Listing.ALL:
        return live
    return live + [Memory.archived == False, Memory.status == listing.value]  # noqa: E712


def encode_cursor(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> dict[str, Any]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise BadCursor(cursor) from None
    if not isinstance(data, dict):
        raise BadCursor(cursor)
    return data


def page(
    s: Session, owner_id: int, listing: Listing, query: str, limit: int, cursor: str | None, dialect: str
) -> MemoryPage:
    """One page of a list, newest first; with a query, best keyword match first. The cursor is
    opaque: after the memory with a uid (a list), or an offset into the matches (a search), bound
    to the query it was made for."""
    limit = max(1, min(limit, MAX_PAGE))
    data = decode_cursor(cursor) if cursor else {}
    if query.strip():
        return _search_page(s, owner_id, listing, query, limit, data, dialect)
    if data and not isinstance(data.get("after"), str):
        raise BadCursor(cursor or "")
    stmt = select(Memory.id).where(Memory.owner_id == owner_id, *_where(listing))
    if data:
        after = s.exec(select(Memory.id).where(Memory.owner_id == owner_id, Memory.uid == data["after"])).first()
        if after is None:
            raise BadCursor(cursor or "")
        stmt = stmt.where(Memory.id < after)  # type: ignore[operator]
    ids = [int(i) for i in s.exec(stmt.order_by(Memory.id.desc()).limit(limit + 1))]  # type: ignore[union-attr]
    found = views(s, owner_id, ids[:limit])
    more = len(ids) > limit and found
    return MemoryPage(tuple(found), encode_cursor({"after": found[-1].id}) if more else None)


def _search_page(
    s: Session, owner_id: int, listing: Listing, query: str, limit: int, data: dict[str, Any], dialect: str
) -> MemoryPage:
    offset = 0
    if data:
        offset, bound = data.get("offset"), data.get("q")
        if not isinstance(offset, int) or offset < 0 or bound != query.strip():
            raise BadCursor("")
    depth = min(MAX_SEARCH_DEPTH, offset + limit + 1)
    hits = search.keyword_search(s.connection(), owner_id, query, depth * 2, dialect,
                                 include_archived=listing in (Listing.ARCHIVED, Listing.ALL))
    wanted = [mid for mid, _ in hits]
    rows = views(s, owner_id, wanted)
    keep = [m for m in rows if _matches(m, listing)][:depth]
    chunk = keep[offset:offset + limit]
    more = len(keep) > offset + limit and offset + limit < MAX_SEARCH_DEPTH
    return MemoryPage(tuple(chunk), encode_cursor({"offset": offset + limit, "q": query.strip()}) if more else None)


def _matches(m: PublicMemory, listing: Listing) -> bool:
    if m.deleted:
        return False
    if listing is Listing.ALL:
        return True
    if listing is Listing.ARCHIVED:
        return m.archived
    return not m.archived and m.status == listing.value


def question_of(s: Session, owner_id: int, memory_id: int) -> int | None:
    """The question asked when this memory was saved (pending or not), if any."""
    row = s.exec(
        select(Conflict.id).where(Conflict.owner_id == owner_id, Conflict.new_memory_id == memory_id)
        .order_by(Conflict.id.desc())  # type: ignore[union-attr]
    ).first()
    return int(row) if row is not None else None


def check_version(s: Session, owner_id: int, memory_id: int, expected: int | None) -> None:
    """Raise ChangedSince when the memory is not at the version the caller read. The change that
    follows in the same transaction is version-checked again when it is written, so nobody can
    slip in between."""
    if expected is None:
        return
    m = get_memory(s, owner_id, memory_id, include_deleted=True)  # the object the change will use
    if m is not None and m.version != expected:
        raise ChangedSince(m.version)


__all__ = [
    "BadCursor",
    "ChangedSince",
    "Listing",
    "MemoryPage",
    "PublicMemory",
    "check_version",
    "id_for",
    "page",
    "question_of",
    "views",
    "well_formed",
]
