"""/token new [name], /token list, /token revoke N: a person's keys for programs (the HTTP API
and MCP), made and managed in a private chat.

Why only in a private chat: the token is shown once, as text; in a group others would read it.
Why shown once: only a hash is stored (bot/storage/access.py), so nobody, the bot included, can
show it again; a lost token is revoked and replaced.
"""

from __future__ import annotations

from datetime import datetime

from bot.config import Settings
from bot.core import commands as c
from bot.core.access import AccessTokens, TokenView
from bot.core.core import Core
from bot.core.render import quote
from bot.core.replies import reply
from bot.core.turn import Turn
from bot.events import Incoming, Outgoing
from bot.when.zones import format_local

PRIVATE_ONLY = (
    "API tokens are made and managed only in a private chat with me: a token shown here could be "
    "read by everyone in this chat. Send /token to me privately."
)


def where(settings: Settings) -> str:
    base = settings.web_public_url or "http://<this server>"
    return f"the HTTP API ({base}/api) and the MCP server ({base}/mcp)"


class TokenCommands:
    def __init__(self, access: AccessTokens, settings: Settings) -> None:
        self.access = access
        self.settings = settings

    async def on_token(self, core: Core, turn: Turn, intent: c.TokenCmd, msg: Incoming) -> list[Outgoing]:
        if turn.is_group:
            return [reply(turn, PRIVATE_ONLY)]
        if intent.verb == "new":
            return [await self._new(core, turn, intent.name)]
        if intent.verb == "revoke":
            assert intent.number is not None
            revoked = await self.access.revoke_number(turn.owner_id, intent.number)
            if revoked is None:
                return [reply(turn, f"There is no token number {intent.number}. /token list shows the numbers.")]
            return [reply(turn, f"Revoked token {intent.number} ({self._name(revoked)}). Programs using it get "
                                "“401: revoked” from now on.")]
        return [await self._list(core, turn)]

    async def _new(self, core: Core, turn: Turn, name: str) -> Outgoing:
        issued = await self.access.create(turn.platform, turn.user_id, name)
        return reply(
            turn,
            f"Your new API token {self._name(issued.token)}, shown only this once (I keep only a fingerprint "
            f"of it):\n\n{issued.secret}\n\n"
            f"Programs send it as the header “Authorization: Bearer <token>” to {where(self.settings)}. "
            "It reads and changes your memories like you do here, so keep it like a password. "
            "/token list shows your tokens, /token revoke <number> stops one.",
        )

    async def _list(self, core: Core, turn: Turn) -> Outgoing:
        tokens = await self.access.active(turn.owner_id)
        if not tokens:
            return reply(turn, f"You have no API tokens. /token new [name] makes one for {where(self.settings)}.")
        tz = await core.memory.timezone_of(turn.owner_id)
        lines = [f"Your API tokens ({len(tokens)}):"]
        for n, t in enumerate(tokens, 1):
            used = _when(t.last_used_at, tz) if t.last_used_at else "never used"
            lines.append(f"{n}. {self._name(t)} — made {_when(t.created_at, tz)}, last used {used}")
        lines.append("/token revoke <number> stops one; /token new [name] makes another.")
        return reply(turn, "\n".join(lines))

    @staticmethod
    def _name(t: TokenView) -> str:
        return quote(t.name, 60) if t.name else "(no name)"


def _when(at: datetime, tz: str) -> str:
    return format_local(at, tz)
