"""API tokens in the database: a person's keys for programs (the HTTP API and MCP).

Why only a hash: a token is a password for someone's memory. The secret is shown once, when it
is made; what is stored is its SHA-256 (the secret has 256 random bits, so a plain digest is
enough: there is nothing to guess and no need for a slow hash). A database copy, a backup or a
log line therefore never holds a usable key.

Why bound to an identity (platform, user id) and not an owner: /link moves an identity to the
shared owner, so a linked person's tokens see the shared memory at once, and /unlink takes them
home again. The owner is read at every use, never copied into the token.

Session-level functions (run through Database.tx); the async face is bot/core/access.py.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Session, select

from bot.storage.models import ApiToken, Identity, utcnow

PREFIX = "mem_"
SECRET_BYTES = 32  # 256 random bits
_SHAPE = re.compile(r"mem_[A-Za-z0-9_-]{43}")  # what new_secret() makes; anything else is unknown
MAX_NAME = 60
# how often "last used" is written: a read-only request should not cost a write (and an fsync)
# every time, so the time is kept to the minute
TOUCH_EVERY = timedelta(seconds=60)


def new_secret() -> str:
    return PREFIX + secrets.token_urlsafe(SECRET_BYTES)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenView:
    """One token as its owner sees it (never the secret)."""

    id: int
    name: str
    platform: str
    user_id: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class Refused(StrEnum):
    """Why a presented token gives no access."""

    MISSING = "missing"
    UNKNOWN = "unknown"
    REVOKED = "revoked"
    NOT_ALLOWED = "not_allowed"  # the person is not on ALLOWED_USERS (any more)


@dataclass(frozen=True)
class Verified:
    """Whose memory a presented token opens, read at this use."""

    token_id: int
    owner_id: int
    platform: str
    user_id: str


def _view(t: ApiToken, ident: Identity) -> TokenView:
    assert t.id is not None
    return TokenView(t.id, t.name, ident.platform, ident.user_id, t.created_at, t.last_used_at, t.revoked_at)


def create(s: Session, platform: str, user_id: str, name: str) -> tuple[TokenView, str]:
    """A new token for this identity (which must exist); returns it and the secret, once."""
    ident = s.exec(select(Identity).where(Identity.platform == platform, Identity.user_id == user_id)).first()
    if ident is None or ident.id is None:
        raise LookupError(f"no identity {platform}:{user_id}")
    secret = new_secret()
    row = ApiToken(identity_id=ident.id, token_hash=digest(secret), name=name[:MAX_NAME])
    s.add(row)
    s.flush()
    return _view(row, ident), secret


def active(s: Session, owner_id: int) -> list[TokenView]:
    """The tokens that open this owner's memory now (every identity of the owner), oldest first:
    the order of /token list, whose numbers /token revoke takes."""
    rows = s.exec(
        select(ApiToken, Identity)
        .join(Identity, Identity.id == ApiToken.identity_id)  # type: ignore[arg-type]
        .where(Identity.owner_id == owner_id, ApiToken.revoked_at.is_(None))  # type: ignore[union-attr]
        .order_by(ApiToken.created_at, ApiToken.id)  # type: ignore[arg-type]
    )
    return [_view(t, i) for t, i in rows]


def revoke(s: Session, owner_id: int, token_id: int) -> TokenView | None:
    """Revoke one of this owner's active tokens; None when it is not theirs or not active."""
    row = s.get(ApiToken, token_id)
    if row is None or row.revoked_at is not None:
        return None
    ident = s.get(Identity, row.identity_id)
    if ident is None or ident.owner_id != owner_id:
        return None
    row.revoked_at = utcnow()
    s.add(row)
    s.flush()
    return _view(row, ident)


def revoke_owner(s: Session, owner_id: int) -> int:
    """Revoke every token of the owner's identities (after /forget_me), names blanked too: the
    rows stay only so that a program still using one is told it was revoked."""
    ids = s.exec(select(Identity.id).where(Identity.owner_id == owner_id)).all()
    if not ids:
        return 0
    table = ApiToken.__table__  # type: ignore[attr-defined]
    return s.execute(
        table.update()
        .where(table.c.identity_id.in_(list(ids)), table.c.revoked_at.is_(None))
        .values(revoked_at=utcnow(), name="")
    ).rowcount


_t = ApiToken.__table__  # type: ignore[attr-defined]
_i = Identity.__table__  # type: ignore[attr-defined]
# built once: every API and MCP request runs it
_VERIFY = (
    sa.select(_t.c.id, _t.c.revoked_at, _t.c.last_used_at, _i.c.owner_id, _i.c.platform, _i.c.user_id)
    .select_from(_t.join(_i, _i.c.id == _t.c.identity_id))
    .where(_t.c.token_hash == sa.bindparam("digest"))
)


def verify(s: Session, secret: str, now: datetime | None = None) -> Verified | Refused:
    """Who this secret speaks for, or why not. One indexed read; "last used" is written at most
    once a minute."""
    if not secret:
        return Refused.MISSING
    if not _SHAPE.fullmatch(secret):  # not one of ours: never reaches the database
        return Refused.UNKNOWN
    row = s.connection().execute(_VERIFY, {"digest": digest(secret)}).first()
    if row is None:
        return Refused.UNKNOWN
    if row.revoked_at is not None:
        return Refused.REVOKED
    now = now or utcnow()
    if row.last_used_at is None or row.last_used_at < now - TOUCH_EVERY:
        t = ApiToken.__table__  # type: ignore[attr-defined]
        s.connection().execute(t.update().where(t.c.id == row.id).values(last_used_at=now))
    return Verified(int(row.id), int(row.owner_id), row.platform, row.user_id)
