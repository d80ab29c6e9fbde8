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
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.config import Settings
from bot.core import render
from bot.core.buttons import ButtonSpec
from bot.core.core import Core
from bot.core.turn import Turn
from bot.events import Outgoing
from bot.features.chat.extraction import Extractor
from bot.features.chat.fallback import SLOW_NOTE, MemoryAnswers, fallback_note
from bot.features.chat.tools import Reminders, ToolOutcome, execute
from bot.features.chat.why import WhyStore, why_record
from bot.features.chat.window import ChatLog, build_messages
from bot.features.episodes import Extras, recall_extras
from bot.features.judge import AiJudge
from bot.llm.client import LLM, ModelUnavailable
from bot.llm.prompts import SOUL, build_system, platform_note
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


@dataclass
class _TurnState:
    """Whether the model's turn outlived its reply (the person's lock is no longer held for it)."""

    detached: bool = False


STILL_THINKING = "Still thinking…"

# (core, turn, the platform's language, a reminder the model set) -> a message to follow the answer
# (the time zone offer under a person's first reminder, bot/features/timezones.py), or None
AfterReminder = Callable[[Core, Turn, str, int], Awaitable[Outgoing | None]]


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
        after_reminder: AfterReminder | None = None,
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
        self.after_reminder = after_reminder
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
        system = build_system(SOUL, memory_text, [*blocks, now_block(utcnow(), tz), platform_note(turn.platform)])
        messages = build_messages(history, text)

        state = _TurnState()
        work = asyncio.ensure_future(self._converse(turn, llm, system, messages, tools, state))
        typing = asyncio.get_running_loop().create_task(self._keep_typing(turn))
        holding: str | None = None
        try:
            holding = await self._wait_or_hold(turn, work)
            if not work.done():  # past the deadline: a quick answer now, the model's when it comes
                state.detached = True
                return await self._answer_later(turn, text, work, holding, recalled, extras, user_log_id, metrics,
                                                msg.locale)
            answer = work.result()
        except _Unavailable as exc:
            metrics.chat_calls, metrics.tool_rounds = exc.calls, exc.rounds
            metrics.tool_calls = len(exc.outcomes)
            return self._in_place(await self._from_memory(turn, text, exc.reason, exc.outcomes, metrics), holding)
        except StorageError:
            raise  # the core answers with its one storage message
        except Exception:
            # A bug or a surprise from a library must not cost the person an answer.
            log.exception("chat turn failed; answering from memory")
            return self._in_place(await self._from_memory(turn, text, "error", [], metrics), holding)
        finally:
            typing.cancel()
        metrics.chat_calls, metrics.tool_rounds, metrics.tool_calls = answer.calls, answer.rounds, len(answer.outcomes)
        self.metrics.append(metrics)
        reply = await self._deliverable(turn, text, answer, recalled, extras, user_log_id)
        follow = await self._after_reminders(turn, answer.outcomes, msg.locale)
        return [replace(reply, edit_of=holding) if holding else reply, *follow]

    # --- a slow model ----------------------------------------------------------------------
    async def _wait_or_hold(self, turn: Turn, work: asyncio.Future[Answer]) -> str | None:
        """Wait for the model up to LLM_TIMEOUT_SECONDS; after SLOW_NOTICE_SECONDS a holding
        message shows that an answer is coming (its id: the answer replaces it)."""
        deadline = self.settings.llm_timeout_seconds
        notice_after = self.settings.slow_notice_seconds
        holding: str | None = None
        if 0 < notice_after < deadline:
            await asyncio.wait({work}, timeout=notice_after)
            if not work.done():
                holding = await self.core.push(turn.chat, Outgoing(STILL_THINKING))
            deadline -= notice_after
        if not work.done():
            await asyncio.wait({work}, timeout=deadline)
        return holding

    @staticmethod
    def _in_place(outs: list[Outgoing], holding: str | None) -> list[Outgoing]:
        return [replace(outs[0], edit_of=holding), *outs[1:]] if holding and outs else outs

    async def _answer_later(
        self, turn: Turn, text: str, work: asyncio.Future[Answer], holding: str | None,
        recalled: Recalled | None, extras: Extras | None, user_log_id: int | None, metrics: TurnMetrics,
        locale: str = "",
    ) -> list[Outgoing]:
        """The model missed the deadline: the answer from memory now, saying it is a fallback,
        in place of the holding message; the model's answer replaces it when it comes."""
        if holding is None:  # no holding message to replace: the late answer follows it
            quick = await self._from_memory(turn, text, "slow_follow", [], metrics)
        else:
            quick = await self._from_memory(turn, text, "slow", [], metrics)
        self.core.spawn(
            self._late(turn, text, work, holding, quick[0], recalled, extras, user_log_id, locale), name="late answer"
        )
        return self._in_place(quick, holding)

    async def _late(
        self, turn: Turn, text: str, work: asyncio.Future[Answer], target: str | None, quick: Outgoing,
        recalled: Recalled | None, extras: Extras | None, user_log_id: int | None, locale: str = "",
    ) -> None:
        """The late answer, edited over the quick one (or after it when there is nothing to edit),
        made under the person's lock like a turn."""
        try:
            answer = await work
        except Exception as exc:  # it never came: the quick answer stays, without its promise
            log.info("the late chat answer did not come: %s", type(exc).__name__)
            if target is not None:
                final = quick.text.replace(SLOW_NOTE, fallback_note("timeout"))
                await self.core.push(turn.chat, replace(quick, text=final, edit_of=target))
            return
        async with self.core.lock_for(turn.owner_id):
            reply = await self._deliverable(turn, text, answer, recalled, extras, user_log_id)
            follow = await self._after_reminders(turn, answer.outcomes, locale)
        await self.core.push(turn.chat, replace(reply, edit_of=target))
        for out in follow:
            await self.core.push(turn.chat, out)

    async def _after_reminders(self, turn: Turn, outcomes: Sequence[ToolOutcome], locale: str) -> list[Outgoing]:
        """What follows an answer whose tools set reminders: the same time zone offer a first
        /remind gets (once per person; the hook decides), as its own message so a press on it
        edits the offer, not the model's answer."""
        if self.after_reminder is None:
            return []
        for rid in [o.reminder_id for o in outcomes if o.reminder_id is not None][:1]:
            out = await self.after_reminder(self.core, turn, locale, rid)
            if out is not None:
                return [out]
        return []

    async def _deliverable(
        self, turn: Turn, text: str, answer: Answer, recalled: Recalled | None, extras: Extras | None,
        user_log_id: int | None,
    ) -> Outgoing:
        """The answer as sent, logged and remembered for /why; extraction spawned after it."""
        reply = await self._compose(turn, answer.text or TOOL_LIMIT_TEXT, answer.outcomes)
        await self.chat_log.log(turn, "assistant", reply.text, None)
        mode = "group" if turn.is_group else "model"
        await self.why.store(turn.owner_id, why_record(recalled, extras, mode, utcnow()))
        self.extractor.spawn(turn, text, user_log_id)
        return reply

    # --- the model ---------------------------------------------------------------------------
    async def _converse(
        self, turn: Turn, llm: LLM, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
        state: _TurnState | None = None,
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
                    timeout=max(self.settings.llm_timeout_seconds, self.settings.llm_late_answer_seconds),
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
                if state is not None and state.detached:  # the turn's reply went out: take the lock again
                    async with self.core.lock_for(turn.owner_id):
                        outcome = await execute(self.core, turn, block.name, block.id, block.input, judge=judge_fn, reminders=self.reminders)
                else:
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
        if changes:  # they quote memory text: shown as written, never as the model's Markdown
            text = text.rstrip() + "\n\n" + "\n".join(f"✓ {render.markdown_literal(c)}" for c in changes)
        undo_ids = [o.undo_action_id for o in outcomes if o.undo_action_id][-MAX_UNDO_BUTTONS:]
        extra = [b for o in outcomes for b in o.buttons][-MAX_UNDO_BUTTONS:]  # Cancel for a reminder set
        buttons: tuple = ()
        if undo_ids or extra:
            label = (lambda i: "Undo") if len(undo_ids) == 1 else (lambda i: f"Undo {i}")
            row = [ButtonSpec(label(i), "undo", {"action_id": a}, alone=True) for i, a in enumerate(undo_ids, 1)]
            buttons = await self.core.buttons.issue(turn.owner_id, [row + extra])
        return Outgoing(text=text, buttons=buttons, markdown=True)

    async def _from_memory(
        self, turn: Turn, text: str, reason: str, outcomes: Sequence[ToolOutcome], metrics: TurnMetrics
    ) -> list[Outgoing]:
        """The answer without the model: what memory holds on the message, and a plain note."""
        metrics.fallback = reason
        self.metrics.append(metrics)
        return [await self.answers.answer(self.core, turn, text, reason, [o.change for o in outcomes if o.change])]
