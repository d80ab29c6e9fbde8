"""Who is asking: a bearer token in, the person (and nothing else) out; and how often they may.

The token is the only source of the owner. No endpoint or tool takes an owner or user id, so a
program cannot ask for someone else's memory by changing a number in a URL (the design behind
OpenMemory's security reports, mem0 #4236 and #6080). Every request is checked (bot/core/access.py
remembers a verified token for at most a second): a token revoked in the chat or by /forget_me
stops working at once, one revoked by another process within that second, with a message saying
so.

The rate limit is per token and in process: a token bucket of API_RATE_LIMIT_PER_MINUTE
requests, refilled continuously, so a burst is fine and a loop is slowed with 429 and
Retry-After. Several processes each keep their own buckets.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.core.access import AccessTokens, Refused, Verified
from bot.memory import Source
from web.door import Caller

HOW_TO_GET_ONE = (
    "Make one with /token new in a private chat with the assistant, or `python -m bot token create "
    "--owner PLATFORM:USER_ID`, and send it as the header 'Authorization: Bearer <token>'."
)
MESSAGES = {
    Refused.MISSING: "This needs an API token. " + HOW_TO_GET_ONE,
    Refused.UNKNOWN: "That API token is not valid (unknown, mistyped or cut short). " + HOW_TO_GET_ONE,
    Refused.REVOKED: "That API token was revoked, so it opens nothing any more. " + HOW_TO_GET_ONE,
    Refused.NOT_ALLOWED: "That API token belongs to someone who may not use this assistant (ALLOWED_USERS).",
}


@dataclass(frozen=True)
class Denied:
    status: int  # 401 or 429
    message: str
    headers: dict[str, str]


class RateLimiter:
    """A token bucket per key: `per_minute` requests, refilled at per_minute/60 a second."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._buckets: dict[object, tuple[float, float]] = {}  # key -> (tokens, at)

    def take(self, key: object) -> float:
        """0.0 when the request may go ahead (and it is counted), else the seconds to wait."""
        if self.per_minute <= 0:
            return 0.0
        now = self.clock()
        rate = self.per_minute / 60.0
        tokens, at = self._buckets.get(key, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - at) * rate)
        if tokens >= 1.0:
            self._buckets[key] = (tokens - 1.0, now)
            return 0.0
        self._buckets[key] = (tokens, now)
        return (1.0 - tokens) / rate


def bearer(header: str | None) -> str:
    """The token of an 'Authorization: Bearer <token>' header, or '' (scheme case-insensitive)."""
    if not header:
        return ""
    scheme, _, value = header.strip().partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


class Gate:
    def __init__(self, access: AccessTokens, limiter: RateLimiter) -> None:
        self.access = access
        self.limiter = limiter

    async def check(self, authorization: str | None, *, source: str = Source.API.value) -> Caller | Denied:
        got = await self.access.verify(bearer(authorization))
        if not isinstance(got, Verified):
            return Denied(
                401, MESSAGES[got],
                {"WWW-Authenticate": f'Bearer error="invalid_token", error_description="{got.value}"'},
            )
        wait = self.limiter.take(got.token_id)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            return Denied(
                429, f"Too many requests with this token; try again in {seconds} s "
                     f"(the limit is {self.limiter.per_minute} a minute).",
                {"Retry-After": str(seconds)},
            )
        return Caller(owner_id=got.owner_id, platform=got.platform, user_id=got.user_id, source=source)
