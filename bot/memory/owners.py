"""People: identities, owners, per-person preferences and the numbers of the last list.

Why owners and identities are separate: one person may talk to the bot on Telegram and on
Discord and link the two, sharing one memory; every other table is keyed by owner.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from bot.memory.store import new_action
from bot.storage.models import ActionChange, Identity, Owner, utcnow


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
# how a setting is named in /undo's words ("turning review off")
PREF_WORDS = {"conflict_review": "review", "ai_judge": "the AI judge", "extraction_notice": "notices", "recheck": "re-checks"}


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


def identities(s: Session, owner_id: int) -> list[tuple[str, str, str]]:
    """The accounts (platform, user id, display name) that open this owner's memory: one, or
    several after /link; oldest first."""
    rows = s.exec(select(Identity).where(Identity.owner_id == owner_id).order_by(Identity.id))  # type: ignore[arg-type]
    return [(i.platform, i.user_id, i.display_name) for i in rows]


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


# in settings_json beside the preferences: when the person last changed a setting or their
# time zone, so that importing an older backup does not overwrite a newer choice
CHANGED_AT = "_changed_at"


def stored_prefs(s: Session, owner_id: int) -> dict[str, Any]:
    """The settings the person set themselves (no defaults), plus CHANGED_AT if known."""
    try:
        stored = json.loads(get_owner(s, owner_id).settings_json or "{}")
    except ValueError:
        return {}
    return stored if isinstance(stored, dict) else {}


def put_pref(s: Session, owner_id: int, name: str, value: bool | None) -> None:
    """Set one preference (None: back to the default) and stamp the change."""
    owner = get_owner(s, owner_id)
    stored = stored_prefs(s, owner_id)
    if value is None:
        stored.pop(name, None)
    else:
        stored[name] = bool(value)
    stored[CHANGED_AT] = utcnow().isoformat()
    owner.settings_json = json.dumps(stored)
    s.add(owner)


def write_pref(s: Session, owner_id: int, name: str, value: bool) -> str | None:
    """Change one preference as the person's own action (so /undo walks it back); returns the
    action's id, or None when the value was already so."""
    if name not in PREF_NAMES:
        raise KeyError(name)
    before = stored_prefs(s, owner_id).get(name)
    if before == bool(value):
        return None
    put_pref(s, owner_id, name, value)
    action = new_action(s, owner_id, "setting", f"turning {PREF_WORDS.get(name, name)} {'on' if value else 'off'}")
    s.add(ActionChange(owner_id=owner_id, action_id=action.id, target="setting", ref=name,
                       before_json=json.dumps({"value": before}), after_json=json.dumps({"value": bool(value)})))
    return action.id


def settings_changed_at(s: Session, owner_id: int) -> datetime | None:
    raw = stored_prefs(s, owner_id).get(CHANGED_AT)
    try:
        return datetime.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        return None


def restore_settings(s: Session, owner_id: int, prefs: dict[str, bool], tz: str | None, changed_at: datetime) -> None:
    """Settings from a backup (import): the known preferences and the time zone, stamped with
    the backup's time (so an even older backup does not overwrite them later)."""
    owner = get_owner(s, owner_id)
    stored = {k: v for k, v in stored_prefs(s, owner_id).items() if k not in PREF_NAMES}
    stored.update({k: bool(v) for k, v in prefs.items() if k in PREF_NAMES})
    stored[CHANGED_AT] = changed_at.isoformat()
    owner.settings_json = json.dumps(stored)
    if tz:
        owner.timezone = tz
    s.add(owner)


def set_timezone(s: Session, owner_id: int, tz: str) -> str | None:
    """Change the time zone as the person's own action; returns the action's id (None: no
    change)."""
    owner = get_owner(s, owner_id)
    before = owner.timezone
    if before == tz:
        return None
    owner.timezone = tz
    stored = stored_prefs(s, owner_id)
    stored[CHANGED_AT] = utcnow().isoformat()
    owner.settings_json = json.dumps(stored)
    s.add(owner)
    action = new_action(s, owner_id, "timezone", f"setting your time zone to {tz}")
    s.add(ActionChange(owner_id=owner_id, action_id=action.id, target="timezone", ref="timezone",
                       before_json=json.dumps({"value": before}), after_json=json.dumps({"value": tz})))
    return action.id


# in settings_json: the time zone was offered once (on the first reminder without one), so the
# offer is not repeated under every reminder; not a setting, so it neither stamps CHANGED_AT nor
# travels in backups
ZONE_OFFERED = "_zone_offered"


def offer_zone_once(s: Session, owner_id: int) -> bool:
    """True the first time it is asked for a person with no time zone (and notes that it was);
    False when they have a zone or were already offered one."""
    owner = get_owner(s, owner_id)
    stored = stored_prefs(s, owner_id)
    if owner.timezone or stored.get(ZONE_OFFERED):
        return False
    stored[ZONE_OFFERED] = True
    owner.settings_json = json.dumps(stored)
    s.add(owner)
    return True


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
