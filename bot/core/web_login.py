"""Logging in to the memory page: one-time links made in the chat (/web) or on the command line,
and the browser sessions they start. The async face of bot/storage/web_login.py, beside the API
tokens (bot/core/access.py) because it answers the same question: who may open which memory from
outside the chat.

Why a link and not a password: the person is already known to the chat; a link sent in their
private chat proves it. Why single use and ten minutes: a link lands in chat histories, and
link previews and scanners fetch it (the page behind it only shows a Continue button that posts
the code, so a fetch uses nothing up).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.config import Settings
from bot.storage import web_login as rows
from bot.storage.db import Database
from bot.storage.models import utcnow
from bot.storage.web_login import CodeRefused, SessionView

__all__ = ["CODE_MINUTES", "CodeRefused", "Link", "SessionView", "WebLogins", "page_base", "page_configured"]

CODE_MINUTES = 10
CODES_PER_WINDOW = 5  # links one identity may make ...
CODE_WINDOW = timedelta(minutes=10)  # ... within this time


def page_configured(settings: Settings) -> bool:
    """A web server that serves the page is configured: a public address, or a port."""
    return bool(settings.web_public_url) or settings.web_port is not None


def page_base(settings: Settings) -> str:
    """The address a person's browser opens: WEB_PUBLIC_URL, else this machine's WEB_PORT."""
    if settings.web_public_url:
        return settings.web_public_url
    host = settings.web_host if settings.web_host not in ("0.0.0.0", "::", "") else "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{settings.web_port or 8080}"


@dataclass(frozen=True)
class Link:
    url: str
    minutes: int


class WebLogins:
    def __init__(self, db: Database, settings: Settings, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock

    async def link(self, platform: str, user_id: str) -> Link | None:
        """A one-time login link for an identity that exists, or None over the rate limit."""
        code = await self.db.tx(
            rows.create_code, platform, user_id, timedelta(minutes=CODE_MINUTES), CODES_PER_WINDOW, CODE_WINDOW,
            self.clock(),
        )
        if code is None:
            return None
        return Link(f"{page_base(self.settings)}/login/{code}", CODE_MINUTES)

    async def redeem(self, code: str) -> tuple[str, SessionView] | CodeRefused:
        return await self.db.tx(rows.redeem, code, timedelta(days=self.settings.web_session_days), self.clock())

    async def start(self, platform: str, user_id: str) -> tuple[str, SessionView] | None:
        """A session for an identity that exists and may use the assistant (after Telegram's
        Mini App data was checked); None when ALLOWED_USERS leaves it out."""
        if not self.allowed(platform, user_id):
            return None
        return await self.db.tx(rows.start_session, platform, user_id, timedelta(days=self.settings.web_session_days),
                                self.clock())

    async def session(self, secret: str) -> SessionView | None:
        if not secret:
            return None
        found = await self.db.tx(rows.session, secret, self.clock())
        if found is not None and not self.allowed(found.platform, found.user_id):
            return None
        return found

    async def end(self, secret: str) -> bool:
        return await self.db.tx(rows.end, secret, self.clock())

    async def end_owner(self, owner_id: int) -> int:
        return await self.db.tx(rows.end_owner, owner_id, self.clock())

    def allowed(self, platform: str, user_id: str) -> bool:
        allowed = self.settings.allowed_identities
        return not allowed or (platform, user_id) in allowed or (platform, "*") in allowed
