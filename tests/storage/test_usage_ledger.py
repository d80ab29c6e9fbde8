"""The database-backed budget ledger, on SQLite and PostgreSQL, and the LLM client charging it
with what the stand-in API reports (through the real SDK)."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest

from bot.llm.client import LLM, ModelUnavailable
from bot.storage.models import ModelUsage
from bot.storage.usage import DatabaseLedger
from tests.standins.anthropic_api import (  # noqa: F401  (fixture)
    AnthropicStandIn,
    anthropic_standin,
    standin_settings,
    text_message,
)

pytestmark = pytest.mark.timeout(60)


async def new_owner(memory, user: str) -> int:
    owner_id = await memory.owner_for("console", user)
    assert owner_id is not None
    return owner_id


async def test_records_add_up_per_owner_day_and_job(memory, database):
    day = {"today": date(2026, 3, 1)}
    ledger = DatabaseLedger(database, today=lambda: day["today"])
    a, b = await new_owner(memory, "a"), await new_owner(memory, "b")
    assert await ledger.spent_today(a) == 0
    await ledger.record(a, "chat", 100, 20)
    await ledger.record(a, "chat", 50, 5)
    await ledger.record(a, "extract", 30, 3)
    await ledger.record(b, "chat", 7, 1)
    assert await ledger.spent_today(a) == 208
    assert await ledger.spent_today(b) == 8
    assert await ledger.usage_by_job(a) == {"chat": (150, 25, 2), "extract": (30, 3, 1)}
    day["today"] = date(2026, 3, 2)  # a new UTC day starts from nothing
    assert await ledger.spent_today(a) == 0
    assert await ledger.usage_by_job(a, date(2026, 3, 1)) == {"chat": (150, 25, 2), "extract": (30, 3, 1)}


async def test_concurrent_records_are_not_lost(memory, database):
    ledger = DatabaseLedger(database)
    a = await new_owner(memory, "a")
    await asyncio.gather(*(ledger.record(a, "chat", 10, 1) for _ in range(40)))
    assert await ledger.spent_today(a) == 440
    assert (await ledger.usage_by_job(a))["chat"] == (400, 40, 40)


async def test_the_client_charges_the_reported_usage_and_enforces_the_budget(
    memory, database, anthropic_standin: AnthropicStandIn
):
    ledger = DatabaseLedger(database)
    a = await new_owner(memory, "a")
    llm = LLM(standin_settings(anthropic_standin, daily_token_budget=3000), ledger)
    anthropic_standin.enqueue(text_message("Hi.", usage={"input_tokens": 1500, "output_tokens": 300}))
    params = dict(job="chat", system="s", messages=[{"role": "user", "content": "hello"}], max_tokens=100)
    await llm.create(owner_id=a, **params)
    assert await ledger.spent_today(a) == 1800  # what the API said, not a local estimate
    # A second ledger over the same database (another process, or after a restart) sees the spend.
    assert await DatabaseLedger(database).spent_today(a) == 1800
    anthropic_standin.enqueue(text_message("Hi.", usage={"input_tokens": 1100, "output_tokens": 50}))
    await llm.create(owner_id=a, **params)
    with pytest.raises(ModelUnavailable) as caught:
        await llm.create(owner_id=a, **params)
    assert caught.value.reason == "budget"
    assert len(anthropic_standin.message_requests) == 2
    await llm.aclose()


async def test_forget_me_keeps_todays_spend_so_the_budget_cannot_be_reset(
    memory, database, anthropic_standin: AnthropicStandIn
):
    """Finding 5: /forget_me deleted the ledger, so deleting your data reset the daily budget."""
    ledger = DatabaseLedger(database)
    a = await new_owner(memory, "a")
    await memory.remember(a, "I live in Oslo")
    with database.session() as s:  # an older day's row, which may go with the person's data
        s.add(ModelUsage(owner_id=a, day="2020-01-01", job="chat", input_tokens=5, output_tokens=5, calls=1))
    llm = LLM(standin_settings(anthropic_standin, daily_token_budget=2000), ledger)
    params = dict(job="chat", system="s", messages=[{"role": "user", "content": "hello"}], max_tokens=100)
    anthropic_standin.enqueue(text_message("Hi.", usage={"input_tokens": 1800, "output_tokens": 100}))
    await llm.create(owner_id=a, **params)
    assert await ledger.spent_today(a) == 1900

    assert await memory.forget_everything(a) == 1
    assert await memory.list(a) == []
    assert await ledger.spent_today(a) == 1900  # the spend survived, holding no text
    assert await ledger.usage_by_job(a, date(2020, 1, 1)) == {}  # older days went with the data
    with pytest.raises(ModelUnavailable) as caught:
        await llm.create(owner_id=a, **params)
    assert caught.value.reason == "budget"
    assert len(anthropic_standin.message_requests) == 1
    await llm.aclose()
