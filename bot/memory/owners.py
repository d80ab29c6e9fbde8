"""People: identities, owners, per-person preferences and the numbers of the last list.

Why owners and identities are separate: one person may talk to the bot on Telegram and on
Discord and link the two, sharing one memory; every other table is keyed by owner.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from bot.storage.models import Identity, Owner


@dataclass(frozen=True)
class OwnerPrefs:
    """What a person can switch with /settings (defaults come from the global Settings)."""

    conflict_review: bool = True
    ai_judge: bool = False
    extraction_notice: bool = True
    recheck: bool = False
    timezone: str | None = None

    def to_json(self) -> str:
        data = asdict(self)
        data.pop("timezone")
        return json.dumps(data)


PREF_NAMES = tuple(f.name for f in fields(OwnerPrefs) if f.name != "timezone")


def find_owner(s: Session, platform: str, user_id: str) -> int | None:
    row = s.exec(select(Identity).where(Identity.platform == platform, Identity.user_id == user_id)).first()
    return row.owner_id if row else None


def ensure_owner(s: Session, platform: str, user_id: str, display_name: str = "") -> int:
    """The owner of this identity, created on first contact."""
    owner_id = find_owner(s, platform, user_id)
    if owner_id is not None:
        return owner_id
    owner = Owner()
    s.add(owner)
    s.flush()
    assert owner.id is not None
    s.add(Identity(platform=platform, user_id=user_id, owner_id=owner.id, display_name=display_name[:200]))
    try:
        s.flush()
    except IntegrityError:  # another process created it first: use theirs
        s.rollback()
        existing = find_owner(s, platform, user_id)
        assert existing is not None
        return existing
    return owner.id


def get_owner(s: Session, owner_id: int) -> Owner:
    owner = s.get(Owner, owner_id)
    if owner is None:
        raise LookupError(f"no owner {owner_id}")
    return owner


def read_prefs(s: Session, owner_id: int, defaults: OwnerPrefs) -> OwnerPrefs:
    """The person's preferences over the defaults. Two columns, not the Owner object: every save
    reads them, and loading the whole row (the last list, /why) as an object costs far more."""
    table = Owner.__table__  # type: ignore[attr-defined]
    row = s.connection().execute(
        sa.select(table.c.settings_json, table.c.timezone).where(table.c.id == owner_id)
    ).first()
    if row is None:
        raise LookupError(f"no owner {owner_id}")
    try:
        stored: dict[str, Any] = json.loads(row[0] or "{}")
    except ValueError:
        stored = {}
    known = {k: bool(v) for k, v in stored.items() if k in PREF_NAMES} if isinstance(stored, dict) else {}
    return replace(defaults, timezone=row[1], **known)


def write_pref(s: Session, owner_id: int, name: str, value: bool) -> None:
    if name not in PREF_NAMES:
        raise KeyError(name)
    owner = get_owner(s, owner_id)
    try:
        stored = json.loads(owner.settings_json or "{}")
    except ValueError:
        stored = {}
    stored[name] = bool(value)
    owner.settings_json = json.dumps(stored)
    s.add(owner)


def set_timezone(s: Session, owner_id: int, tz: str) -> None:
    owner = get_owner(s, owner_id)
    owner.timezone = tz
    s.add(owner)


def set_last_list(s: Session, owner_id: int, ids: list[int]) -> None:
    owner = get_owner(s, owner_id)
    owner.last_list_json = json.dumps(ids)
    s.add(owner)


def last_list(s: Session, owner_id: int) -> list[int]:
    owner = get_owner(s, owner_id)
    try:
        ids = json.loads(owner.last_list_json or "[]")
    except ValueError:
        return []
    return [int(i) for i in ids if isinstance(i, int)]
