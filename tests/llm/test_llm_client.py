"""The LLM client against the stand-in, through the real SDK: budgets, deadlines, error mapping."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import date

import pytest

from bot.llm.client import LLM, InMemoryLedger, ModelUnavailable, estimate_request_tokens
from tests.standins.anthropic_api import (
    AnthropicStandIn,
    anthropic_standin,  # noqa: F401  (fixture)
    empty_body,
    empty_object,
    malformed_json,
    standin_settings,
    text_message,
)

pytestmark = pytest.mark.timeout(20)

USER = [{"role": "user", "content": "What should I cook tonight?"}]


async def ask(llm: LLM, owner_id: int | None = 1, job: str = "chat", **kw: object):
    params = {"owner_id": owner_id, "job": job, "system": "You help.", "messages": USER, "max_tokens": 100}
    params.update(kw)
    return await llm.create(**params)  # type: ignore[arg-type]


async def test_no_key_means_unavailable_and_no_request(anthropic_standin: AnthropicStandIn) -> None:
    llm = LLM(standin_settings(anthropic_standin, anthropic_api_key=""))
    assert not llm.available
    with pytest.raises(ModelUnavailable) as caught:
        await ask(llm)
    assert caught.value.reason == "no_key"
    assert "not available" in caught.value.person_message
    assert anthropic_standin.requests == []
    assert llm.stats["chat"].refused == 1


async def test_usage_reported_by_the_api_is_recorded(anthropic_standin: AnthropicStandIn) -> None:
    ledger = InMemoryLedger()
    llm = LLM(standin_settings(anthropic_standin), ledger)
    anthropic_standin.enqueue(text_message("Pasta.", usage={"input_tokens": 1234, "output_tokens": 56}))
    message = await ask(llm, owner_id=7)
    assert message.content[0].text == "Pasta."
    assert await ledger.spent_today(7) == 1290  # the API's numbers, not the local estimate
    assert await ledger.spent_today(8) == 0
    assert ledger.entries[0][1:] == (7, "chat", 1234, 56)
    stats = llm.stats["chat"]
    assert (stats.calls, stats.ok, stats.input_tokens, stats.output_tokens) == (1, 1, 1234, 56)


async def test_work_on_nobodys_behalf_is_counted_but_not_charged(anthropic_standin: AnthropicStandIn) -> None:
    ledger = InMemoryLedger()
    llm = LLM(standin_settings(anthropic_standin, daily_token_budget=10), ledger)
    await ask(llm, owner_id=None, job="tidy")
    assert ledger.entries == [] and llm.stats["tidy"].ok == 1


async def test_budget_refuses_before_calling(anthropic_standin: AnthropicStandIn) -> None:
    ledger = InMemoryLedger()
    llm = LLM(standin_settings(anthropic_standin, daily_token_budget=2000), ledger)
    estimate = estimate_request_tokens("You help.", USER, None, 100)
    await ledger.record(1, "chat", 2000 - estimate, 0)  # exactly enough left
    await ask(llm)  # allowed: spent + estimate == budget
    with pytest.raises(ModelUnavailable) as caught:
        await ask(llm)
    assert caught.value.reason == "budget"
    assert len(anthropic_standin.requests) == 1  # the refused call never left the process
    assert llm.stats["chat"].refused == 1
    # Another person has their own budget.
    await ask(llm, owner_id=2)


async def test_a_single_call_larger_than_the_budget_is_refused(anthropic_standin: AnthropicStandIn) -> None:
    llm = LLM(standin_settings(anthropic_standin, daily_token_budget=500))
    with pytest.raises(ModelUnavailable, match="budget"):
        await ask(llm, max_tokens=600)
    assert anthropic_standin.requests == []


async def test_zero_budget_means_unlimited(anthropic_standin: AnthropicStandIn) -> None:
    ledger = InMemoryLedger()
    await ledger.record(1, "chat", 10**9, 0)
    llm = LLM(standin_settings(anthropic_standin, daily_token_budget=0), ledger)
    await ask(llm)


async def test_budget_resets_the_next_day(anthropic_standin: AnthropicStandIn) -> None:
    today = [date(2025, 3, 1)]
    ledger = InMemoryLedger(today=lambda: today[0])
    llm = LLM(standin_settings(anthropic_standin, daily_token_budget=1000), ledger)
    await ledger.record(1, "chat", 1000, 0)
    with pytest.raises(ModelUnavailable):
        await ask(llm)
    today[0] = date(2025, 3, 2)
    await ask(llm)


async def test_concurrent_calls_cannot_both_slip_under_the_budget(anthropic_standin: AnthropicStandIn) -> None:
    estimate = estimate_request_tokens("You help.", USER, None, 100)
    llm = LLM(standin_settings(anthropic_standin, daily_token_budget=estimate + estimate // 2))
    anthropic_standin.delay_next(0.2, 2)
    results = await asyncio.gather(ask(llm), ask(llm), return_exceptions=True)
    refused = [r for r in results if isinstance(r, ModelUnavailable)]
    assert len(refused) == 1 and refused[0].reason == "budget"
    assert len(anthropic_standin.requests) == 1


async def test_unreadable_ledger_fails_closed(anthropic_standin: AnthropicStandIn) -> None:
    class Broken(InMemoryLedger):
        async def spent_today(self, owner_id: int) -> int:
            raise OSError("database is locked")

    llm = LLM(standin_settings(anthropic_standin, daily_token_budget=1000), Broken())
    with pytest.raises(ModelUnavailable) as caught:
        await ask(llm)
    assert caught.value.reason == "error" and anthropic_standin.requests == []


@pytest.mark.parametrize(
    "job, setting",
    [("chat", "chat_model"), ("extract", "extraction_model"), ("judge", "judge_model"),
     ("summary", "summary_model"), ("tidy", "summary_model")],
)
async def test_model_is_chosen_by_job(anthropic_standin: AnthropicStandIn, job: str, setting: str) -> None:
    settings = standin_settings(
        anthropic_standin, chat_model="m-chat", extraction_model="m-extract", judge_model="m-judge", summary_model="m-summary"
    )
    await ask(LLM(settings), job=job)
    assert anthropic_standin.requests[0].json["model"] == getattr(settings, setting)


async def test_unknown_job_is_a_programming_error(anthropic_standin: AnthropicStandIn) -> None:
    with pytest.raises(ValueError):
        await ask(LLM(standin_settings(anthropic_standin)), job="poetry")


async def test_deadline_covers_the_sdk_retries(anthropic_standin: AnthropicStandIn) -> None:
    """Each attempt is slow and fails with 500; unbounded, three attempts take ~2.5 s."""
    llm = LLM(standin_settings(anthropic_standin, llm_max_retries=2))
    anthropic_standin.delay_next(0.3, 3)
    anthropic_standin.fail_next(500, 3)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable) as caught:
        await ask(llm, timeout=1.0)
    elapsed = time.monotonic() - started
    assert caught.value.reason == "timeout"
    assert 0.9 <= elapsed < 1.5
    assert len(anthropic_standin.requests) >= 2  # a retry did start inside the deadline
    assert llm.stats["chat"].failed == 1


async def test_deadline_beats_a_long_retry_after(anthropic_standin: AnthropicStandIn) -> None:
    llm = LLM(standin_settings(anthropic_standin, llm_max_retries=2))
    anthropic_standin.fail_next(429, 1, retry_after=30)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match="timeout"):
        await ask(llm, timeout=0.5)
    assert time.monotonic() - started < 1.0


async def test_default_deadline_comes_from_settings(anthropic_standin: AnthropicStandIn) -> None:
    llm = LLM(standin_settings(anthropic_standin, llm_timeout_seconds=0.3))
    anthropic_standin.delay_next(5)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match="timeout"):
        await ask(llm)
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize(
    "status, reason",
    [(429, "rate_limited"), (529, "overloaded"), (500, "error"), (503, "error"), (504, "timeout"), (401, "error")],
)
async def test_errors_after_retries_are_mapped(anthropic_standin: AnthropicStandIn, status: int, reason: str) -> None:
    llm = LLM(standin_settings(anthropic_standin, llm_max_retries=2))
    anthropic_standin.fail_next(status, 3, retry_after=0.01)
    with pytest.raises(ModelUnavailable) as caught:
        await ask(llm)
    assert caught.value.reason == reason
    retried = status != 401  # the SDK does not retry an authentication error
    assert len(anthropic_standin.requests) == (3 if retried else 1)
    assert reason.replace("_", " ") in caught.value.person_message


async def test_a_retry_that_succeeds_is_charged_once(anthropic_standin: AnthropicStandIn) -> None:
    ledger = InMemoryLedger()
    llm = LLM(standin_settings(anthropic_standin, llm_max_retries=2), ledger)
    anthropic_standin.fail_next(529, 1, retry_after=0.01)
    anthropic_standin.enqueue(text_message("ok", usage={"input_tokens": 10, "output_tokens": 2}))
    await ask(llm)
    assert await ledger.spent_today(1) == 12 and len(anthropic_standin.requests) == 2


async def test_a_rejected_request_is_invalid(anthropic_standin: AnthropicStandIn) -> None:
    llm = LLM(standin_settings(anthropic_standin))
    with pytest.raises(ModelUnavailable, match="invalid"):  # tool_choice names no given tool
        await ask(llm, tools=[{"name": "a", "input_schema": {"type": "object"}}], tool_choice={"type": "tool", "name": "b"})


@pytest.mark.parametrize("reply", [malformed_json(), empty_body(), empty_object()], ids=["malformed", "empty", "{}"])
async def test_unreadable_responses_are_invalid(anthropic_standin: AnthropicStandIn, reply: object) -> None:
    ledger = InMemoryLedger()
    llm = LLM(standin_settings(anthropic_standin), ledger)
    anthropic_standin.enqueue(reply)  # type: ignore[arg-type]
    with pytest.raises(ModelUnavailable) as caught:
        await ask(llm)
    assert caught.value.reason == "invalid" and ledger.entries == []


async def test_tools_and_choice_are_sent(anthropic_standin: AnthropicStandIn) -> None:
    tool = {"name": "t", "description": "d", "input_schema": {"type": "object", "properties": {}}}
    await ask(LLM(standin_settings(anthropic_standin)), tools=[tool], tool_choice={"type": "auto"})
    body = anthropic_standin.requests[0].json
    assert body["tools"] == [tool] and body["tool_choice"] == {"type": "auto"} and body["max_tokens"] == 100


async def test_sdk_base_url_variable_works_when_setting_is_empty(
    anthropic_standin: AnthropicStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_standin.url)
    llm = LLM(standin_settings(anthropic_standin, anthropic_base_url=""))
    await ask(llm)
    assert len(anthropic_standin.requests) == 1


async def test_the_key_is_never_logged(anthropic_standin: AnthropicStandIn, caplog: pytest.LogCaptureFixture) -> None:
    secret = "sk-ant-very-secret-value"
    caplog.set_level(logging.DEBUG)
    llm = LLM(standin_settings(anthropic_standin, anthropic_api_key=secret, llm_max_retries=1))
    anthropic_standin.fail_next(500, 2, retry_after=0.01)
    with pytest.raises(ModelUnavailable) as caught:
        await ask(llm)
    await ask(llm)
    logged = caplog.text + repr(llm) + str(caught.value) + caught.value.person_message
    assert "model call failed" in caplog.text
    assert secret not in logged
    assert all(secret not in str(r.headers) for r in anthropic_standin.requests)
