"""Per-person API tokens, for the chat (/token), the command line and the web side: the async
face of the token table (bot/storage/access.py).

Why here, beside the buttons: a token says who may open which memory from outside the chat,
an access question like the allowlist; memory neither knows nor cares how it is reached. The
web side asks `verify` on every request, so a token revoked anywhere (the chat, the command
line, another process) stops working at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.config import Settings
from bot.core.turn import storable_text
from bot.storage import access as rows
from bot.storage.access import MAX_NAME, Refused, TokenView, Verified
from bot.storage.db import Database

__all__ = ["AccessTokens", "Issued", "Refused", "TokenView", "Verified", "MAX_NAME", "clean_name"]


@dataclass(frozen=True)
class Issued:
    token: TokenView
    secret: str  # shown once, never stored


def clean_name(name: str | None) -> str:
    """A token's name as typed: one line, at most MAX_NAME characters."""
    text = " ".join(storable_text(name or "").split())
    return text[:MAX_NAME]


class AccessTokens:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings

    async def create(self, platform: str, user_id: str, name: str | None = None) -> Issued:
        """A new token for an identity that exists (the caller created the person first)."""
        view, secret = await self.db.tx(rows.create, platform, user_id, clean_name(name))
        return Issued(view, secret)

    async def active(self, owner_id: int) -> list[TokenView]:
        return await self.db.tx(rows.active, owner_id)

    async def revoke_number(self, owner_id: int, number: int) -> TokenView | None:
        """Revoke the token shown as `number` in the person's list of active tokens."""
        tokens = await self.active(owner_id)
        if not 1 <= number <= len(tokens):
            return None
        return await self.db.tx(rows.revoke, owner_id, tokens[number - 1].id)

    async def revoke_all(self, owner_id: int) -> int:
        return await self.db.tx(rows.revoke_owner, owner_id)

    async def verify(self, secret: str) -> Verified | Refused:
        """Whose memory this secret opens now. A person taken off ALLOWED_USERS loses their
        tokens' access too, as they lose the chat."""
        got = await self.db.tx(rows.verify, secret)
        if isinstance(got, Verified) and not self._allowed(got.platform, got.user_id):
            return Refused.NOT_ALLOWED
        return got

    def _allowed(self, platform: str, user_id: str) -> bool:
        allowed = self.settings.allowed_identities
        return not allowed or (platform, user_id) in allowed or (platform, "*") in allowed
