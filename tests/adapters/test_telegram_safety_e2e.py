"""Issue 17, shown end to end on the wire: the real TelegramAdapter (python-telegram-bot, long
polling) and the real core against the Telegram stand-in. A tidy-up of one person's many
memories must not freeze the bot for the others; an imported backup must not make the bot post
to other people; a reminder set in a group is delivered privately.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy import insert

from bench.latency import make_facts, spread_dates
from bot.storage.models import Memory
from tests.adapters.test_telegram_e2e import Running, bot, database_url  # noqa: F401  (fixtures)
from tests.support.telegram_helpers import ALICE, BOB, CAROL, GROUP, tg  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")


class Heartbeat:
    """A task that wakes every 5 ms and records the longest gap: how long the loop froze."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> "Heartbeat":
        self._task = asyncio.create_task(self._beat())
        await asyncio.sleep(0.02)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()

    async def _beat(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last - 0.005)
            last = now


def load_memories(bot: Running, owner: int, n: int) -> int:
    """`n` realistic memories for one person written straight into the table (as an import
    would), every 20th restated, so that the tidy-up has real work; returns the restatements."""
    texts = make_facts(n, 17)
    dates = spread_dates(n, 17)
    rows = []
    for i, (text, when) in enumerate(zip(texts, dates)):
        rows.append(dict(owner_id=owner, uid=f"m{i}", text=text, created_at=when, updated_at=when))
        if i % 20 == 0:
            later = when + timedelta(hours=1)
            rows.append(dict(owner_id=owner, uid=f"r{i}", text=text.rstrip(".") + "!", created_at=later,
                             updated_at=later))
    with bot.app.db.session() as s:
        s.execute(insert(Memory), rows)
    return len(rows) - n


async def test_a_tidy_up_of_thousands_of_memories_never_freezes_the_bot_for_others(bot: Running) -> None:
    """Finding 2: the curator ran its all-pairs decisions on the event loop (6 s at 1,000
    memories, 24.5 s at 2,000); another person's /help waited 16.5 s and polling, replies and
    reminders stopped meanwhile."""
    await bot.say(ALICE, ALICE, "/start")
    alice = await bot.owner(ALICE)
    assert alice is not None
    restated = load_memories(bot, alice, 3000)
    await bot.say(CAROL, CAROL, "/start")  # Carol is known already: her /help below is the probe

    async with Heartbeat() as beat:
        started = time.perf_counter()
        tidy = asyncio.create_task(bot.app.curator.tidy_busy_owners())
        await asyncio.sleep(0.05)
        before = len(bot.tg.sent(CAROL))
        asked = time.perf_counter()
        bot.tg.inject_text(CAROL, CAROL, "/help")
        await bot.tg.wait_for_sent(CAROL, before + 1, timeout=30)
        answered = time.perf_counter() - asked
        reports = await asyncio.wait_for(tidy, 120)
        took = time.perf_counter() - started
    [report] = reports
    assert report.owner_id == alice and len(report.merged) >= restated  # the real work was done
    assert "/help" in bot.tg.sent(CAROL)[-1].body or "remember" in bot.tg.sent(CAROL)[-1].body
    assert answered < 2.0, f"Carol's /help waited {answered:.1f} s during the tidy-up ({took:.1f} s)"
    assert beat.longest < 0.5, f"the event loop froze for {beat.longest * 1000:.0f} ms"
