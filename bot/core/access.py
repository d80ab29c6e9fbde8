"""Per-person API tokens, for the chat (/token), the command line and the web side: the async
face of the token table (bot/storage/access.py).

Why here, beside the buttons: a token says who may open which memory from outside the chat,
an access question like the allowlist; memory neither knows nor cares how it is reached. The
web side asks `verify` on every request.

Why a one-second memory of verified tokens: a check is a trip to the database thread, and a
program sends requests in bursts; under load each such trip waits for a CPU, and it was most of
what HTTP added to a recall. A token revoked through this process (/token revoke, /forget_me, the
command line's in-process verbs) is forgotten at once; one revoked by another process sharing the
database (`python -m bot token revoke` beside a running server) stops working within
VERIFY_MEMORY_SECONDS. A token that was refused is never remembered: every failure is checked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.config import Settings
from bot.core.turn import storable_text
from bot.storage import access as rows
from bot.storage.access import MAX_NAME, Refused, TokenView, Verified
from bot.storage.db import Database

VERIFY_MEMORY_SECONDS = 1.0

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
    def __init__(self, db: Database, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self._verified: dict[str, tuple[Verified, float]] = {}  # secret digest -> (who, checked at)

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
        self.forget(owner_id)
        return await self.db.tx(rows.revoke, owner_id, tokens[number - 1].id)

    async def revoke_id(self, owner_id: int, token_id: int) -> TokenView | None:
        """Revoke one of the owner's active tokens by its id (the memory page lists them by id)."""
        self.forget(owner_id)
        return await self.db.tx(rows.revoke, owner_id, token_id)

    async def revoke_all(self, owner_id: int) -> int:
        self.forget(owner_id)
        return await self.db.tx(rows.revoke_owner, owner_id)

    def forget(self, owner_id: int | None = None) -> None:
        """Check this owner's tokens (everyone's, without an owner) against the database again
        at their next use: after a revocation, /forget_me, /link or /unlink."""
        if owner_id is None:
            self._verified.clear()
            return
        for key, (who, _) in list(self._verified.items()):
            if who.owner_id == owner_id:
                self._verified.pop(key, None)

    async def verify(self, secret: str) -> Verified | Refused:
        """Whose memory this secret opens now. A person taken off ALLOWED_USERS loses their
        tokens' access too, as they lose the chat."""
        key = rows.digest(secret) if secret else ""
        known = self._verified.get(key)
        now = self.clock()
        if known is not None and now - known[1] < VERIFY_MEMORY_SECONDS:
            return known[0]
        got = await self.db.tx(rows.verify, secret)
        if isinstance(got, Verified) and not self._allowed(got.platform, got.user_id):
            return Refused.NOT_ALLOWED
        if isinstance(got, Verified):
            if len(self._verified) > 10_000:  # many tokens at once: start afresh rather than grow
                self._verified.clear()
            self._verified[key] = (got, now)
        else:
            self._verified.pop(key, None)
        return got

    def _allowed(self, platform: str, user_id: str) -> bool:
        allowed = self.settings.allowed_identities
        return not allowed or (platform, user_id) in allowed or (platform, "*") in allowed
