"""The memory page's browser session: the cookie in, the person (and a CSRF token) out.

Why a cookie bound to a server-side session rather than a signed cookie: logging out and
/forget_me must end it at once, everywhere, which only a row in the database can promise.

Why the CSRF token is derived from the session secret (an HMAC of it) rather than stored: it is
then per session, changes when the session does, needs no extra column, and a page of another
site that cannot read the cookie cannot compute it. SameSite=Lax already keeps the cookie off
cross-site POSTs; the token is the second lock, required on every form.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from bot.config import Settings
from bot.core.web_login import SessionView
from bot.memory import Source
from web.door import Caller

COOKIE = "memory_session"


@dataclass(frozen=True)
class Visitor:
    """A logged-in browser: whose memory, and the token its forms must carry."""

    caller: Caller
    csrf: str
    secret: str
    session: SessionView


def csrf_for(secret: str) -> str:
    return hmac.new(secret.encode(), b"memory-page-csrf", hashlib.sha256).hexdigest()[:40]


def csrf_ok(visitor: Visitor, given: str | None) -> bool:
    return bool(given) and hmac.compare_digest(visitor.csrf.encode(), str(given).encode())


def visitor_of(secret: str, found: SessionView) -> Visitor:
    caller = Caller(owner_id=found.owner_id, platform=found.platform, user_id=found.user_id, source=Source.WEB.value)
    return Visitor(caller, csrf_for(secret), secret, found)


def set_cookie(response: Response, settings: Settings, secret: str, max_age: int) -> None:
    response.set_cookie(
        COOKIE, secret, max_age=max_age, path="/", httponly=True, samesite="lax",
        secure=settings.web_public_url.startswith("https://"),
    )


def clear_cookie(response: Response, settings: Settings) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                           secure=settings.web_public_url.startswith("https://"))


def cookie_secret(request: Request) -> str:
    return request.cookies.get(COOKIE, "")
