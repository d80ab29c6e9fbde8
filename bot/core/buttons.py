"""Issuing and claiming buttons, for the core and the features: the async face of the token
table (bot/storage/buttons.py).

Why here and not in memory: a button is a UI concern (what a person can press, on which
message); memory neither knows nor cares how its questions are shown.
"""

from __future__ import annotations

import asyncio
import random

from bot.events import Button
from bot.storage.buttons import ButtonSpec, Claim, ClaimStatus, claim, issue
from bot.storage.db import ConcurrentUpdate, Database

Rows = tuple[tuple[Button, ...], ...]

__all__ = ["Buttons", "ButtonSpec", "Claim", "ClaimStatus", "Rows"]


class Buttons:
    """Tokens for buttons, bound to their owner, in the database (so they survive restarts)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def issue(self, owner_id: int, rows: list[list[ButtonSpec]]) -> Rows:
        issued = await self.db.tx(issue, owner_id, rows)
        return tuple(tuple(Button(b.label, b.token, b.detail, b.style) for b in row) for row in issued)

    async def claim(self, token: str, owner_id: int | None) -> Claim:
        # two presses at the same moment on PostgreSQL: the deadlock victim is rolled back whole
        # and run again, and then finds the buttons used
        for attempt in range(1, 4):
            try:
                return await self.db.tx(claim, token, owner_id)
            except ConcurrentUpdate:
                if attempt == 3:
                    raise
                await asyncio.sleep(random.uniform(0.002, 0.02) * attempt)
        raise AssertionError("unreachable")
