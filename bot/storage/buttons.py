"""Button tokens in the database: a short random token per button, what it means, bound to its owner.

Why: Telegram's callback_data is at most 64 bytes and Discord custom_ids must survive restarts,
so a button carries only a token; and because the meaning lives in the database, a forged,
foreign, replayed or stale press can be recognised and refused without changing anything.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import or_, update
from sqlmodel import Session, select

from bot.storage.models import ButtonToken, new_uid, utcnow

TOKEN_BYTES = 9  # 12 url-safe characters; 72 random bits
# how issue() marks a button that stays usable (paging): '"_single": false' in its payload JSON
_MULTI_USE = '%"_single": false%'
_PRESSED = "_pressed"  # in a used button's payload JSON: this was the button pressed
MAX_TOKEN_LENGTH = 32
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,%d}" % MAX_TOKEN_LENGTH)  # secrets.token_urlsafe's alphabet


class ClaimStatus(StrEnum):
    OK = "ok"
    UNKNOWN = "unknown"
    NOT_YOURS = "not_yours"
    USED = "used"
    EXPIRED = "expired"


@dataclass(frozen=True)
class ButtonSpec:
    """A button to issue: its label, what pressing it does, and whether one press uses it up."""

    label: str
    action: str
    payload: dict[str, Any] = field(default_factory=dict)
    single_use: bool = True
    ttl: timedelta | None = None
    # a button that stands alone on its message (one Undo per change): pressing it uses up
    # only itself, not its neighbours
    alone: bool = False
    # what it acts on, in words, for where the label alone is not enough (see events.Button)
    detail: str = ""
    style: str = ""  # "primary" (recommended) | "danger" (destructive) | "" (see events.Button)


@dataclass(frozen=True)
class IssuedButton:
    label: str
    token: str
    detail: str = ""
    style: str = ""


@dataclass(frozen=True)
class Claim:
    status: ClaimStatus
    action: str = ""
    payload: dict[str, Any] = field(default_factory=dict)
    group_id: str = ""
    # for a used button: whether this very button was the one pressed (else another button of
    # its message was), so a refusal can say what happened to the button that was pressed
    pressed_here: bool = False


def issue(s: Session, owner_id: int, rows: list[list[ButtonSpec]]) -> list[list[IssuedButton]]:
    """Store a token for every button of one message (one group, so one press can retire its
    siblings)."""
    group = new_uid()
    now = utcnow()
    out: list[list[IssuedButton]] = []
    for row in rows:
        issued_row = []
        for spec in row:
            token = secrets.token_urlsafe(TOKEN_BYTES)
            payload = dict(spec.payload)
            payload["_single"] = spec.single_use
            s.add(
                ButtonToken(
                    token=token,
                    owner_id=owner_id,
                    action=spec.action,
                    payload_json=json.dumps(payload),
                    group_id=new_uid() if spec.alone else group,
                    created_at=now,
                    expires_at=now + spec.ttl if spec.ttl else None,
                )
            )
            issued_row.append(IssuedButton(spec.label, token, spec.detail, spec.style))
        out.append(issued_row)
    s.flush()
    return out


def claim(s: Session, token: str, owner_id: int | None) -> Claim:
    """Check a pressed token for this owner and, for single-use buttons, use it up together with
    the other buttons of the same message. Refusals change nothing."""
    if not _TOKEN_SHAPE.fullmatch(token or ""):  # not one of ours; never reaches the database
        return Claim(ClaimStatus.UNKNOWN)  # (PostgreSQL refuses NUL in a string with an error)
    row = s.get(ButtonToken, token)
    if row is None:
        return Claim(ClaimStatus.UNKNOWN)
    if owner_id is None or row.owner_id != owner_id:
        return Claim(ClaimStatus.NOT_YOURS)
    payload = json.loads(row.payload_json or "{}")
    single = bool(payload.pop("_single", True))
    pressed = bool(payload.pop(_PRESSED, False))
    if row.used_at is not None:
        return Claim(ClaimStatus.USED, row.action, payload, row.group_id, pressed_here=pressed)
    now = utcnow()
    if row.expires_at is not None and row.expires_at < now:
        return Claim(ClaimStatus.EXPIRED, row.action, payload, row.group_id)
    if single:
        # One conditional UPDATE uses up every single-use button of the message at once and
        # decides who pressed first: of two presses at the same moment (two processes, a double
        # tap, two different answers to one question) exactly one gets OK, the other is told it
        # was done. The loser matches no row: it waited for the winner's row locks (PostgreSQL)
        # or write lock (SQLite) and then found them used.
        action, group = row.action, row.group_id
        used = s.execute(
            update(ButtonToken)
            .where(
                ButtonToken.group_id == group,  # type: ignore[arg-type]
                ButtonToken.used_at.is_(None),  # type: ignore[union-attr]
                or_(ButtonToken.token == token, ButtonToken.payload_json.not_like(_MULTI_USE)),  # type: ignore[arg-type,union-attr]
            )
            .values(used_at=now)
            .execution_options(synchronize_session=False)
        ).rowcount
        s.expire(row)
        if used == 0:  # all-or-nothing per message, so 0 means another press used ours too
            pressed = bool(json.loads(row.payload_json or "{}").get(_PRESSED))  # re-read: expired above
            return Claim(ClaimStatus.USED, action, payload, group, pressed_here=pressed)
        # which button of the message was the one pressed, for the words of a later refusal
        s.execute(update(ButtonToken).where(ButtonToken.token == token)  # type: ignore[arg-type]
                  .values(payload_json=json.dumps({**payload, "_single": True, _PRESSED: True}))
                  .execution_options(synchronize_session=False))
        return Claim(ClaimStatus.OK, action, payload, group)
    return Claim(ClaimStatus.OK, row.action, payload, row.group_id)


def retire_group(s: Session, group_id: str) -> None:
    """Use up every single-use button of one message."""
    now = utcnow()
    for sibling in s.exec(select(ButtonToken).where(ButtonToken.group_id == group_id)):
        if sibling.used_at is None and json.loads(sibling.payload_json or "{}").get("_single", True):
            sibling.used_at = now
            s.add(sibling)


def delete_owner_tokens(s: Session, owner_id: int) -> None:
    for row in s.exec(select(ButtonToken).where(ButtonToken.owner_id == owner_id)):
        s.delete(row)
