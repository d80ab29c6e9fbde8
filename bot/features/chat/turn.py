"""The chat turn with the model.

What a turn does, in order (under the person's lock, so their messages stay in order):
1. The per-person rate limit (model-using messages only; memory commands never get here).
2. The prompt. `system` = the soul, then the recalled memory context (core.memory.recall, quoted
   as data), then episodes and procedures (bot.features.episodes, quoted as data, in what is left of the
   same recall budget), then a few lines written by our code (the time, a group-chat note). The
   conversation window of this chat from the MessageLog (within settings.history_token_budget)
   goes into `messages`, never into `system`; the person's message is the last user message,
   exactly as typed. In a group chat no memory, episode or procedure enters the prompt and no
   tool is offered: the group would see what they reveal.
3. The model, with the manage_memory and reminders tools (bot.features.chat.tools), in a loop bounded by
   settings.max_tool_rounds; the last round forbids tools so that the turn always ends with text.
   A typing signal runs while the model works.
4. The reply; both messages are logged; what the answer used (memory ids, score parts, texts) is
   kept in Owner.last_why_json for /why.
5. Background extraction (bot.features.chat.extraction) is spawned; it waits until this turn has finished.

Degrading: without a key, or when the model is down, slow, rate limited, overloaded or over the
person's daily budget, the answer comes from memory alone (bot.features.chat.fallback) with a plain
note; no stack trace reaches a person. Changes a tool already made stay made and are listed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.config import Settings
from bot.core.buttons import ButtonSpec
from bot.core.core import Core
from bot.core.turn import Turn
from bot.events import Outgoing
from bot.features.chat.extraction import Extractor
from bot.features.chat.fallback import MemoryAnswers
from bot.features.chat.tools import Reminders, ToolOutcome, execute
from bot.features.chat.why import WhyStore, why_record
from bot.features.chat.window import ChatLog, build_messages
from bot.features.episodes import Extras, recall_extras
from bot.features.judge import AiJudge
from bot.llm.client import LLM, ModelUnavailable
from bot.llm.prompts import SOUL, build_system
from bot.llm.tools import TOOLS
from bot.memory import Recalled, StorageError
from bot.memory.recall.context import recall_token_budget
from bot.storage.models import utcnow
from bot.tokens import estimate_tokens

log = logging.getLogger(__name__)

TYPING_EVERY_SECONDS = 4.0  # Telegram's typing status lasts about 5 s
MAX_UNDO_BUTTONS = 3
METRICS_KEPT = 1000

GROUP_NOTE = (
    "This is a group chat: other people read your answer. You have no access to this person's "
    "memories here and must not reveal anything personal about them. For anything about their "
    "memories or reminders, suggest they write to you privately."
)
TOOL_LIMIT_TEXT = "I couldn't finish that within the steps I'm allowed for one message."

# ---------------------------------------------------------------------------------------------
# Pure helpers (tested with tables)


class RateLimiter:
    """At most `per_minute` model-using messages per person in any 60 seconds; 0 turns it off.

    `hit` is the whole rule: it records the message when allowed and otherwise says how long to
    wait. The clock is passed in, so tests need no sleeping.
    """

    def __init__(self, per_minute: int, window: float = 60.0) -> None:
        self.per_minute = per_minute
        self.window = window
        self._times: dict[int, deque[float]] = defaultdict(deque)

    def hit(self, key: int, now: float) -> float | None:
        """None if allowed (and counted); else the seconds until the next message is allowed."""
        if self.per_minute <= 0:
            return None
        times = self._times[key]
        while times and now - times[0] >= self.window:
            times.popleft()
        if len(times) >= self.per_minute:
            return max(0.0, self.window - (now - times[0]))
        times.append(now)
        return None


def rate_limited_text(per_minute: int, wait_seconds: float) -> str:
    seconds = max(1, int(wait_seconds + 0.999))
    return (
        f"You're writing faster than I can answer with the model (the limit is {per_minute} messages "
        f"a minute). Please wait about {seconds} s and ask again. Memory commands (remember:, "
        "/memories, /search, /forget …) work any time."
    )


def assistant_blocks(content: Sequence[Any]) -> list[dict[str, Any]]:
    """The model's answer as blocks to send back with the tool results (text and tool_use only)."""
    blocks: list[dict[str, Any]] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text" and getattr(block, "text", ""):
            blocks.append({"type": "text", "text": block.text})
        elif kind == "tool_use":
            blocks.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
    return blocks


def answer_text(content: Sequence[Any]) -> str:
    return "\n\n".join(b.text.strip() for b in content if getattr(b, "type", None) == "text" and b.text.strip())


def now_block(now: datetime, tz: str) -> str:
    """The time, in the person's zone: the model needs it for "tomorrow" and "in two hours"."""
    try:
        local = now.astimezone(ZoneInfo(tz))
    except Exception:
        local, tz = now, "UTC"
    return f"Now it is {local.strftime('%A %Y-%m-%d %H:%M')} in the person's time zone ({tz})."


# ---------------------------------------------------------------------------------------------
# The turn


@dataclass
class TurnMetrics:
    """One chat turn, for tests and the cost benchmark."""

    owner_id: int
    memory_tokens: int = 0  # recalled memories + episodes + procedures, by bot.tokens
    memory_ids: list[int] = field(default_factory=list)
    history_messages: int = 0
    chat_calls: int = 0
    tool_rounds: int = 0
    tool_calls: int = 0
    fallback: str | None = None  # why the answer came from memory alone


@dataclass
class Answer:
    text: str
    outcomes: list[ToolOutcome] = field(default_factory=list)
    calls: int = 0
    rounds: int = 0


class _Unavailable(Exception):
    """The model failed after some tools ran: carries what was done."""

    def __init__(self, reason: str, outcomes: list[ToolOutcome], calls: int, rounds: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.outcomes = outcomes
        self.calls = calls
        self.rounds = rounds


class Conversation:
    """The chat turn with the model: prompt, tool loop, reply, extraction; counters for tests."""

    def __init__(
        self,
        core: Core,
        llm: LLM,
        *,
        chat_log: ChatLog,
        why: WhyStore,
        answers: MemoryAnswers,
        judge_for: AiJudge,
        reminders: Reminders | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.core = core
        self.llm = llm
        self.settings: Settings = core.settings
        self.chat_log = chat_log
        self.why = why
        self.answers = answers
        self.judge_for = judge_for
        self.reminders = reminders
        self.limiter = RateLimiter(self.settings.rate_limit_per_minute)
        self.clock = clock
        self.extractor = Extractor(core, llm, judge_for)
        self.metrics: deque[TurnMetrics] = deque(maxlen=METRICS_KEPT)

    @property
    def judge_fallbacks(self) -> int:
        return self.judge_for.fallbacks

    async def chat_turn(self, core: Core, turn: Turn, intent: Any, msg: Any) -> list[Outgoing]:
        """One plain message (not a command) and its answer."""
        text: str = msg.text  # as typed
        llm = self.llm
        metrics = TurnMetrics(owner_id=turn.owner_id)
        if llm.available:
            wait = self.limiter.hit(turn.owner_id, self.clock())
            if wait is not None:
                metrics.fallback = "person_rate_limit"
                self.metrics.append(metrics)
                return [Outgoing(rate_limited_text(self.settings.rate_limit_per_minute, wait))]
        history = await self.chat_log.window(turn)
        metrics.history_messages = len(history)
        user_log_id = await self.chat_log.log(turn, "user", text, turn.message_id)
        if not llm.available:
            return await self._from_memory(turn, text, "no_key", [], metrics)

        recalled: Recalled | None = None
        extras: Extras | None = None
        if turn.is_group:
            memory_text, blocks, tools = "", [GROUP_NOTE], None
        else:
            recalled = await core.memory.recall(turn.owner_id, text)
            budget = recall_token_budget(self.settings.model_context_tokens, self.settings.recall_max_tokens)
            memory_tokens = estimate_tokens(recalled.text)
            extras = await recall_extras(core, turn.owner_id, text, budget - memory_tokens)
            memory_text, blocks, tools = recalled.text, list(extras.blocks), TOOLS
            metrics.memory_tokens = memory_tokens + extras.tokens
            metrics.memory_ids = list(recalled.memory_ids)
        tz = await core.memory.timezone_of(turn.owner_id)
        system = build_system(SOUL, memory_text, [*blocks, now_block(utcnow(), tz)])
        messages = build_messages(history, text)

        typing = asyncio.get_running_loop().create_task(self._keep_typing(turn))
        try:
            answer = await self._converse(turn, llm, system, messages, tools)
        except _Unavailable as exc:
            metrics.chat_calls, metrics.tool_rounds = exc.calls, exc.rounds
            metrics.tool_calls = len(exc.outcomes)
            return await self._from_memory(turn, text, exc.reason, exc.outcomes, metrics)
        except StorageError:
            raise  # the core answers with its one storage message
        except Exception:
            # A bug or a surprise from a library must not cost the person an answer.
            log.exception("chat turn failed; answering from memory")
            return await self._from_memory(turn, text, "error", [], metrics)
        finally:
            typing.cancel()
        metrics.chat_calls, metrics.tool_rounds, metrics.tool_calls = answer.calls, answer.rounds, len(answer.outcomes)

        reply = await self._compose(turn, answer.text or TOOL_LIMIT_TEXT, answer.outcomes)
        await self.chat_log.log(turn, "assistant", reply.text, None)
        mode = "group" if turn.is_group else "model"
        await self.why.store(turn.owner_id, why_record(recalled, extras, mode, utcnow()))
        self.metrics.append(metrics)
        self.extractor.spawn(turn, text, user_log_id)
        return [reply]

    # --- the model ---------------------------------------------------------------------------
    async def _converse(
        self, turn: Turn, llm: LLM, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> Answer:
        """The bounded tool loop. The last allowed round forbids tools (tool_choice none)."""
        outcomes: list[ToolOutcome] = []
        calls = 0
        rounds = 0
        max_rounds = self.settings.max_tool_rounds
        while True:
            last = rounds >= max_rounds
            try:
                response = await llm.create(
                    owner_id=turn.owner_id,
                    job="chat",
                    system=system,
                    messages=messages,
                    tools=tools,
                    tool_choice={"type": "none"} if (tools and last) else None,
                    max_tokens=self.settings.chat_max_tokens,
                )
            except ModelUnavailable as exc:
                raise _Unavailable(exc.reason, outcomes, calls, rounds) from None
            calls += 1
            uses = [b for b in response.content if getattr(b, "type", None) == "tool_use"]
            if not uses or not tools or last:
                return Answer(answer_text(response.content), outcomes, calls, rounds)
            rounds += 1
            messages.append({"role": "assistant", "content": assistant_blocks(response.content)})
            results = []
            judge_fn = self.judge_for(turn.owner_id)
            for block in uses:
                outcome = await execute(self.core, turn, block.name, block.id, block.input, judge=judge_fn, reminders=self.reminders)
                outcomes.append(outcome)
                results.append(outcome.result)
            messages.append({"role": "user", "content": results})

    async def _keep_typing(self, turn: Turn) -> None:
        while True:
            await self.core.outbox.typing(turn.chat)
            await asyncio.sleep(TYPING_EVERY_SECONDS)

    # --- replies -----------------------------------------------------------------------------
    async def _compose(self, turn: Turn, text: str, outcomes: Sequence[ToolOutcome]) -> Outgoing:
        """The answer, then what the tools changed (never silent), with Undo buttons."""
        changes = [o.change for o in outcomes if o.change]
        if changes:
            text = text.rstrip() + "\n\n" + "\n".join(f"✓ {c}" for c in changes)
        undo_ids = [o.undo_action_id for o in outcomes if o.undo_action_id][-MAX_UNDO_BUTTONS:]
        buttons: tuple = ()
        if undo_ids:
            label = (lambda i: "Undo") if len(undo_ids) == 1 else (lambda i: f"Undo {i}")
            rows = [[ButtonSpec(label(i), "undo", {"action_id": a}, alone=True) for i, a in enumerate(undo_ids, 1)]]
            buttons = await self.core.buttons.issue(turn.owner_id, rows)
        return Outgoing(text=text, buttons=buttons)

    async def _from_memory(
        self, turn: Turn, text: str, reason: str, outcomes: Sequence[ToolOutcome], metrics: TurnMetrics
    ) -> list[Outgoing]:
        """The answer without the model: what memory holds on the message, and a plain note."""
        metrics.fallback = reason
        self.metrics.append(metrics)
        return [await self.answers.answer(self.core, turn, text, reason, [o.change for o in outcomes if o.change])]
