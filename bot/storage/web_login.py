"""The memory page's login codes and browser sessions in the database.

Why in the database and not in the web process: a link made by the chat process (/web) or by
`python -m bot login-link` must work in a web server started later or elsewhere, and a session
must end everywhere when the person says /forget_me or logs out.

Why only hashes: a code or a session secret opens someone's memory. Like API tokens
(bot/storage/access.py) they carry enough random bits that a plain SHA-256 is enough, and a
database copy holds nothing usable.

Why a code is used up by a conditional update: two tabs (or a scanner and a person) posting the
same code at once must not both get a session; the row that changed is the one winner.

Session-level functions (run through Database.tx); the async face is bot/core/web_login.py.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Session, select

from bot.storage.models import Identity, WebLoginCode, WebSession, utcnow

CODE_BYTES = 24  # 192 random bits: nothing to guess
SESSION_BYTES = 32


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class CodeRefused(StrEnum):
    """Why a posted login code starts no session."""

    UNKNOWN = "unknown"  # never made (or mistyped, or cut short)
    USED = "used"
    EXPIRED = "expired"


@dataclass(frozen=True)
class SessionView:
    """Whose memory a browser's session opens, read at this request."""

    session_id: int
    owner_id: int
    platform: str
    user_id: str
    expires_at: datetime


def _identity(s: Session, platform: str, user_id: str) -> Identity:
    ident = s.exec(select(Identity).where(Identity.platform == platform, Identity.user_id == user_id)).first()
    if ident is None or ident.id is None:
        raise LookupError(f"no identity {platform}:{user_id}")
    return ident


def create_code(s: Session, platform: str, user_id: str, ttl: timedelta, per_window: int,
                window: timedelta, now: datetime | None = None) -> str | None:
    """A new code for this identity, or None when it already made `per_window` codes within
    `window` (the rate limit: a stolen chat cannot mint links in a loop)."""
    now = now or utcnow()
    ident = _identity(s, platform, user_id)
    recent = s.exec(
        select(sa.func.count()).select_from(WebLoginCode).where(
            WebLoginCode.identity_id == ident.id, WebLoginCode.created_at > now - window  # type: ignore[arg-type]
        )
    ).one()
    if recent >= per_window:
        return None
    code = secrets.token_urlsafe(CODE_BYTES)
    assert ident.id is not None
    s.add(WebLoginCode(code_hash=digest(code), identity_id=ident.id, created_at=now, expires_at=now + ttl))
    s.flush()
    return code


def redeem(s: Session, code: str, session_ttl: timedelta, now: datetime | None = None) -> tuple[str, SessionView] | CodeRefused:
    """Use the code up (once) and start a session: its secret (for the cookie) and its view."""
    now = now or utcnow()
    if not code or len(code) > 100:
        return CodeRefused.UNKNOWN
    t = WebLoginCode.__table__  # type: ignore[attr-defined]
    key = digest(code)
    won = s.connection().execute(
        t.update().where(t.c.code_hash == key, t.c.used_at.is_(None), t.c.expires_at > now).values(used_at=now)
    ).rowcount
    row = s.get(WebLoginCode, key)
    if row is None:
        return CodeRefused.UNKNOWN
    if won != 1:
        return CodeRefused.USED if row.used_at is not None and row.used_at != now else CodeRefused.EXPIRED
    ident = s.get(Identity, row.identity_id)
    if ident is None or ident.id is None:
        return CodeRefused.UNKNOWN
    secret = secrets.token_urlsafe(SESSION_BYTES)
    session = WebSession(identity_id=ident.id, secret_hash=digest(secret), created_at=now, expires_at=now + session_ttl)
    s.add(session)
    s.flush()
    assert session.id is not None
    return secret, SessionView(session.id, ident.owner_id, ident.platform, ident.user_id, session.expires_at)


def start_session(s: Session, platform: str, user_id: str, session_ttl: timedelta,
                  now: datetime | None = None) -> tuple[str, SessionView]:
    """A session for an identity proven another way (Telegram's signed Mini App data)."""
    now = now or utcnow()
    ident = _identity(s, platform, user_id)
    assert ident.id is not None
    secret = secrets.token_urlsafe(SESSION_BYTES)
    row = WebSession(identity_id=ident.id, secret_hash=digest(secret), created_at=now, expires_at=now + session_ttl)
    s.add(row)
    s.flush()
    assert row.id is not None
    return secret, SessionView(row.id, ident.owner_id, ident.platform, ident.user_id, row.expires_at)


_s = WebSession.__table__  # type: ignore[attr-defined]
_i = Identity.__table__  # type: ignore[attr-defined]
_SESSION = (
    sa.select(_s.c.id, _s.c.expires_at, _s.c.ended_at, _i.c.owner_id, _i.c.platform, _i.c.user_id)
    .select_from(_s.join(_i, _i.c.id == _s.c.identity_id))
    .where(_s.c.secret_hash == sa.bindparam("digest"))
)


def session(s: Session, secret: str, now: datetime | None = None) -> SessionView | None:
    """The live session this cookie secret names, or None (unknown, ended or expired)."""
    if not secret or len(secret) > 100:
        return None
    row = s.connection().execute(_SESSION, {"digest": digest(secret)}).first()
    now = now or utcnow()
    if row is None or row.ended_at is not None or row.expires_at <= now:
        return None
    return SessionView(int(row.id), int(row.owner_id), row.platform, row.user_id, row.expires_at)


def end(s: Session, secret: str, now: datetime | None = None) -> bool:
    """Log out: this session ends at once, in every process."""
    return bool(
        s.connection().execute(
            _s.update().where(_s.c.secret_hash == digest(secret), _s.c.ended_at.is_(None)).values(ended_at=now or utcnow())
        ).rowcount
    )


def end_owner(s: Session, owner_id: int, now: datetime | None = None) -> int:
    """End every session and use up every code of the owner's identities (after /forget_me)."""
    now = now or utcnow()
    ids = list(s.exec(select(Identity.id).where(Identity.owner_id == owner_id)).all())
    if not ids:
        return 0
    c = WebLoginCode.__table__  # type: ignore[attr-defined]
    s.connection().execute(c.update().where(c.c.identity_id.in_(ids), c.c.used_at.is_(None)).values(used_at=now))
    return s.connection().execute(
        _s.update().where(_s.c.identity_id.in_(ids), _s.c.ended_at.is_(None)).values(ended_at=now)
    ).rowcount
