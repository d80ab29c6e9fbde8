"""The one door to the Anthropic Messages API.

Why one door: every model call in the bot (chat, extraction, judge, summaries, tidying) must obey
the same rules — no key means no call, a person's daily budget is checked before the call and
charged with what the API reports after it, a deadline covers the SDK's retries too, and every
failure becomes one exception type (`ModelUnavailable`) that callers can degrade on. Callers never
see SDK exceptions, so "the model is slow or down" can never break a memory command or a reminder.

This module knows nothing of the database, the core or the adapters: the ledger that stores the
spend is injected (an in-memory one is provided; the database-backed one lives with the memory
code).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args


from bot.config import Settings
from bot.tokens import estimate_tokens

if TYPE_CHECKING:  # the SDK takes about a second to import: only when a model is configured
    import anthropic
    from anthropic.types import Message

log = logging.getLogger(__name__)

Job = Literal["chat", "extract", "judge", "summary", "tidy"]
Reason = Literal["no_key", "budget", "timeout", "rate_limited", "overloaded", "error", "invalid"]

_REASON_LABELS: dict[str, str] = {
    "no_key": "no API key is configured",
    "budget": "today's budget is used up",
    "timeout": "timeout",
    "rate_limited": "rate limited",
    "overloaded": "overloaded",
    "error": "error",
    "invalid": "invalid response",
}


class ModelUnavailable(Exception):
    """The model could not answer; `reason` says why, in one of a few fixed words.

    Why fixed words: callers branch on them (a budget refusal is worth telling the person about,
    a timeout in a background job is not), and the benchmark counts them.
    """

    def __init__(self, reason: Reason, detail: str = "") -> None:
        if reason not in _REASON_LABELS:
            raise ValueError(f"unknown reason {reason!r}")
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason: Reason = reason
        self.detail = detail

    @property
    def person_message(self) -> str:
        """A short sentence that can be shown to the person as is (never the SDK's text)."""
        return f"The model is not available right now ({_REASON_LABELS[self.reason]})."


class Ledger(Protocol):
    """Where the per-person daily spend lives (tokens as reported by the API)."""

    async def spent_today(self, owner_id: int) -> int: ...

    async def record(self, owner_id: int, job: str, input_tokens: int, output_tokens: int) -> None: ...


def _utc_today() -> date:
    return datetime.now(timezone.utc).date()


class InMemoryLedger:
    """A ledger for tests, the console and benchmarks; lost on restart.

    "Today" is the UTC date (injectable clock), the same day boundary for everyone, so a budget
    cannot be doubled by changing one's time zone.
    """

    def __init__(self, today: Callable[[], date] = _utc_today) -> None:
        self._today = today
        self._spent: dict[tuple[int, date], int] = defaultdict(int)
        self.entries: list[tuple[date, int, str, int, int]] = []

    async def spent_today(self, owner_id: int) -> int:
        return self._spent[(owner_id, self._today())]

    async def record(self, owner_id: int, job: str, input_tokens: int, output_tokens: int) -> None:
        day = self._today()
        self._spent[(owner_id, day)] += input_tokens + output_tokens
        self.entries.append((day, owner_id, job, input_tokens, output_tokens))


@dataclass
class JobStats:
    """Counters for one job; read by the cost benchmark."""

    calls: int = 0  # requests handed to the SDK (retries inside the SDK are not counted)
    ok: int = 0
    failed: int = 0
    refused: int = 0  # stopped before any request: no key or budget
    input_tokens: int = 0
    output_tokens: int = 0


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    if hasattr(block, "model_dump"):
        block = block.model_dump(exclude_none=True)
    if isinstance(block, Mapping):
        text = block.get("text")
        if isinstance(text, str) and block.get("type") == "text":
            return text
    return json.dumps(block, ensure_ascii=False, default=str)


def estimate_request_tokens(
    system: str, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None, max_tokens: int
) -> int:
    """A pessimistic local size of a request: everything sent plus everything it may return.

    Why max_tokens is added in full: the budget check must hold before the answer is known.
    """
    total = estimate_tokens(system)
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            total += estimate_tokens(content) + 4
        else:
            total += sum(estimate_tokens(_block_text(b)) for b in content or []) + 4
    if tools:
        total += estimate_tokens(json.dumps(list(tools), ensure_ascii=False, default=str))
    return total + max_tokens


def reason_for(exc: BaseException) -> Reason:
    """Map an SDK (or transport) exception to our reason word."""
    import anthropic

    if isinstance(exc, (TimeoutError, anthropic.APITimeoutError)):
        return "timeout"
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        if status == 429:
            return "rate_limited"
        if status == 529:
            return "overloaded"
        if status in (408, 504):  # the server (or a gateway) gave up waiting
            return "timeout"
        if status in (400, 413, 422):
            return "invalid"
        return "error"
    if isinstance(exc, (anthropic.APIResponseValidationError, json.JSONDecodeError)):
        return "invalid"
    return "error"


def _usage_numbers(message: Message) -> tuple[int, int]:
    usage = message.usage
    cached = (usage.cache_creation_input_tokens or 0) + (usage.cache_read_input_tokens or 0)
    return int(usage.input_tokens or 0) + cached, int(usage.output_tokens or 0)


def _looks_like_message(result: object) -> bool:
    """The SDK does not validate bodies: `{}` arrives as a Message full of None."""
    from anthropic.types import Message

    if not isinstance(result, Message):
        return False
    usage = getattr(result, "usage", None)
    return (
        isinstance(getattr(result, "content", None), list)
        and usage is not None
        and isinstance(getattr(usage, "input_tokens", None), int)
        and isinstance(getattr(usage, "output_tokens", None), int)
    )


class LLM:
    """The bot's model client. Create one per process; share it."""

    def __init__(
        self,
        settings: Settings,
        ledger: Ledger | None = None,
        *,
        client: anthropic.AsyncAnthropic | None = None,
    ) -> None:
        self._settings = settings
        self.ledger: Ledger = ledger if ledger is not None else InMemoryLedger()
        self.stats: dict[str, JobStats] = defaultdict(JobStats)
        self._reserved: dict[int, int] = defaultdict(int)
        self._budget_locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._client = client
        if self._client is None and settings.anthropic_api_key:
            import anthropic

            self._client = anthropic.AsyncAnthropic(
                api_key=settings.anthropic_api_key,
                # None lets the SDK apply ANTHROPIC_BASE_URL, then its own default.
                base_url=settings.anthropic_base_url or None,
                max_retries=settings.llm_max_retries,
                timeout=settings.llm_timeout_seconds,
            )
        self._models: dict[str, str] = {
            "chat": settings.chat_model,
            "extract": settings.extraction_model,
            "judge": settings.judge_model,
            "summary": settings.summary_model,
            "tidy": settings.summary_model,  # no setting of its own: a small, cheap model suits it
        }

    def __repr__(self) -> str:  # never the key
        return f"LLM(available={self.available})"

    @property
    def available(self) -> bool:
        return self._client is not None

    def model_for(self, job: str) -> str:
        if job not in get_args(Job):
            raise ValueError(f"unknown model job {job!r}; one of {', '.join(get_args(Job))}")
        return self._models[job]

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()

    def _release(self, owner_id: int | None, tokens: int) -> None:
        if owner_id is None:
            return
        self._reserved[owner_id] -= tokens
        if not self._reserved[owner_id]:
            del self._reserved[owner_id]

    async def _reserve(self, owner_id: int | None, estimate: int) -> None:
        """Refuse a call that could take the person over today's budget, else hold its estimate.

        Calls already in flight count with their estimate, so concurrent messages from one
        person cannot each slip under the limit. A ledger that cannot be read refuses the call
        (fail closed): an unknown spend is not an unlimited one.
        """
        budget = self._settings.daily_token_budget
        if owner_id is None:
            return
        async with self._budget_locks[owner_id]:
            if budget > 0:
                try:
                    spent = await self.ledger.spent_today(owner_id)
                except Exception as exc:  # the ledger is someone else's storage
                    log.error("budget ledger unreadable for owner %s: %s", owner_id, type(exc).__name__)
                    raise ModelUnavailable("error", "budget ledger unreadable") from None
                if spent + self._reserved.get(owner_id, 0) + estimate > budget:
                    raise ModelUnavailable("budget", f"spent {spent}, need about {estimate}, budget {budget}")
            self._reserved[owner_id] += estimate

    async def create(
        self,
        *,
        owner_id: int | None,
        job: str,
        system: str,
        messages: list[dict],
        tools: list[dict] | None = None,
        tool_choice: dict | None = None,
        max_tokens: int,
        timeout: float | None = None,
    ) -> Message:
        """One Messages API call under the house rules; raises ModelUnavailable on any failure.

        `owner_id` None is for work on nobody's behalf (no budget, no ledger entry).
        `timeout` (default: the LLM_TIMEOUT_SECONDS setting) bounds the whole API call, the SDK's
        retries and their back-off included (the SDK honours retry-after without a cap, so only
        an outer deadline keeps a 429 from stalling a reply). The budget check before it is a
        local read and is not counted.
        """
        model = self.model_for(job)
        stats = self.stats[job]
        if self._client is None:
            stats.refused += 1
            raise ModelUnavailable("no_key")
        estimate = estimate_request_tokens(system, messages, tools, max_tokens)
        deadline = timeout if timeout is not None else self._settings.llm_timeout_seconds
        try:
            await self._reserve(owner_id, estimate)
        except ModelUnavailable as exc:
            stats.refused += 1
            log.info("model call refused: job=%s owner=%s reason=%s", job, owner_id, exc.reason)
            raise
        params: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": messages}
        if system:
            params["system"] = system
        if tools:
            params["tools"] = tools
        if tool_choice:
            params["tool_choice"] = tool_choice
        stats.calls += 1
        import anthropic  # already loaded: the client exists

        try:
            async with asyncio.timeout(deadline):
                result = await self._client.messages.create(**params, timeout=deadline)
        except (anthropic.AnthropicError, TimeoutError, json.JSONDecodeError) as exc:
            stats.failed += 1
            reason = reason_for(exc)
            status = getattr(exc, "status_code", "-")
            log.warning(
                "model call failed: job=%s owner=%s reason=%s (%s, status %s)",
                job, owner_id, reason, type(exc).__name__, status,
            )
            raise ModelUnavailable(reason, type(exc).__name__) from None
        finally:
            self._release(owner_id, estimate)
        if not _looks_like_message(result):
            stats.failed += 1
            log.warning("model call failed: job=%s owner=%s reason=invalid (not a message)", job, owner_id)
            raise ModelUnavailable("invalid", "the response is not a message")
        input_tokens, output_tokens = _usage_numbers(result)
        stats.ok += 1
        stats.input_tokens += input_tokens
        stats.output_tokens += output_tokens
        if owner_id is not None:
            try:
                await self.ledger.record(owner_id, job, input_tokens, output_tokens)
            except Exception as exc:  # the answer is paid for already; losing it helps nobody
                log.error("could not record model usage for owner %s: %s", owner_id, type(exc).__name__)
        return result
