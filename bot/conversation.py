"""The chat turn with the model, wired into the core: `install(app)`.

What a turn does, in order (under the person's lock, so their messages stay in order):
1. The per-person rate limit (model-using messages only; memory commands never get here).
2. The prompt. `system` = the soul, then the recalled memory context (core.memory.recall, quoted
   as data), then episodes and procedures (bot.episodes, quoted as data, in what is left of the
   same recall budget), then a few lines written by our code (the time, a group-chat note). The
   conversation window of this chat from the MessageLog (within settings.history_token_budget)
   goes into `messages`, never into `system`; the person's message is the last user message,
   exactly as typed. In a group chat no memory, episode or procedure enters the prompt and no
   tool is offered: the group would see what they reveal.
3. The model, with the manage_memory and reminders tools (bot.tool_exec), in a loop bounded by
   settings.max_tool_rounds; the last round forbids tools so that the turn always ends with text.
   A typing signal runs while the model works.
4. The reply; both messages are logged; what the answer used (memory ids, score parts, texts) is
   kept in Owner.last_why_json for /why.
5. Background extraction (bot.extraction) is spawned; it waits until this turn has finished.

Degrading: without a key, or when the model is down, slow, rate limited, overloaded or over the
person's daily budget, the answer comes from memory alone (bot.chat.memory_answer) with a plain
note; no stack trace reaches a person. Changes a tool already made stay made and are listed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from sqlmodel import select

from bot import chat as chat_mod
from bot import render
from bot.events import Outgoing
from bot.extraction import Extractor
from bot.episodes import Extras, recall_extras, register_periodic
from bot.llm.client import LLM, ModelUnavailable
from bot.llm.judge import decide, judge
from bot.llm.prompts import SOUL, build_system
from bot.llm.tools import TOOLS
from bot.memory.buttons import ButtonSpec
from bot.memory.context import recall_token_budget
from bot.memory.db import StorageError
from bot.memory.models import MessageLog, Owner, utcnow
from bot.memory.recall import Recalled
from bot.memory.saving import Decision
from bot.memory.service import JudgeFn
from bot.memory.usage import DatabaseLedger
from bot.tokens import estimate_tokens
from bot.tool_exec import ToolOutcome, execute

if TYPE_CHECKING:
    from bot.app import App
    from bot.core import Core, Turn

log = logging.getLogger(__name__)

HISTORY_FETCH = 200  # newest messages read for the window before the token budget trims them
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


def fallback_note(reason: str) -> str:
    """The plain note added to an answer from memory alone, by why the model was not used."""
    if reason == "budget":
        return (
            "(Today's model budget is used up, so I can only answer from what I remember. "
            "Memory commands like remember: and /memories still work.)"
        )
    if reason == "timeout":
        return "(The language model is too slow right now, so I can only answer from what I remember.)"
    return chat_mod.NO_MODEL


def message_cost(text: str) -> int:
    """Local token estimate of one window message (text plus the role framing)."""
    return estimate_tokens(text) + 4


def fit_history(newest_first: Sequence[tuple[str, str]], budget: int) -> list[tuple[str, str]]:
    """The most recent (role, text) messages that fit `budget` tokens, oldest first.

    Stops at the first message that does not fit (no gaps: a window with holes misleads more
    than a shorter one). Empty texts and unknown roles are left out; so are assistant messages
    at the start, because a conversation sent to the model begins with the person.
    """
    kept: list[tuple[str, str]] = []
    used = 0
    for role, text in newest_first:
        if role not in ("user", "assistant") or not text.strip():
            continue
        cost = message_cost(text)
        if used + cost > budget:
            break
        used += cost
        kept.append((role, text))
    kept.reverse()
    while kept and kept[0][0] == "assistant":
        kept.pop(0)
    return kept


def build_messages(history: Sequence[tuple[str, str]], user_text: str) -> list[dict[str, Any]]:
    """The `messages` of a chat request: the window, then the person's message as typed."""
    out: list[dict[str, Any]] = [{"role": role, "content": text} for role, text in history]
    out.append({"role": "user", "content": user_text})
    return out


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


def why_record(recalled: Recalled | None, extras: Extras | None, mode: str, at: datetime) -> dict[str, Any]:
    """What /why will show about an answer: memory ids, their score parts and texts."""
    memories = []
    if recalled is not None:
        for mid in recalled.memory_ids:
            memories.append(
                {
                    "id": mid,
                    "text": recalled.texts.get(mid, ""),
                    "parts": {k: round(float(v), 4) for k, v in recalled.parts.get(mid, {}).items()},
                }
            )
    return {
        "at": at.isoformat(),
        "mode": mode,
        "memories": memories,
        "episodes": list(extras.episode_ids) if extras else [],
        "procedures": list(extras.procedure_ids) if extras else [],
    }


PART_ORDER = ("relevance", "importance", "confidence", "recency", "frequency", "identity", "total")


def render_parts(parts: dict[str, float]) -> str:
    keys = [k for k in PART_ORDER if k in parts] + sorted(k for k in parts if k not in PART_ORDER)
    return ", ".join(f"{k} {parts[k]:.2f}" for k in keys)


MODE_NOTES = {
    "group": "My last answer was in a group chat, where I never use your memories.",
    "memory_only": "The model was not available, so I answered from memory alone (keyword search).",
    "rate_limited": "",
}


def render_why(record: dict[str, Any], alive: dict[int, str | None]) -> str:
    """The /why text. `alive` maps each memory id to its current text, or None if deleted since."""
    mode = str(record.get("mode", "model"))
    memories = record.get("memories") or []
    lines: list[str] = []
    if MODE_NOTES.get(mode):
        lines.append(MODE_NOTES[mode])
    if not memories:
        if mode != "group":
            lines.append("My last answer didn't use any of your memories.")
    else:
        lines.append("My last answer used these memories:")
        for item in memories:
            mid = int(item.get("id", 0))
            text = alive.get(mid)
            if text is None:
                lines.append(f"• #{mid} — deleted since")
                continue
            parts = item.get("parts") or {}
            score = f" — {render_parts(parts)}" if parts else ""
            lines.append(f"• {render.quote(text, 200)} (#{mid}){score}")
    extra = []
    if record.get("episodes"):
        extra.append(f"{len(record['episodes'])} summary(ies) of earlier conversations")
    if record.get("procedures"):
        extra.append(f"{len(record['procedures'])} procedure(s) you taught me")
    if extra:
        lines.append("Also used: " + " and ".join(extra) + ".")
    return "\n".join(lines)


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
    """The chat part: services for the core, the extraction flow, counters."""

    def __init__(self, core: "Core", app: "App | None" = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.core = core
        self.app = app
        self.settings = core.settings
        self.limiter = RateLimiter(self.settings.rate_limit_per_minute)
        self.clock = clock
        self.extractor = Extractor(core, self.judge_for)
        self.metrics: deque[TurnMetrics] = deque(maxlen=METRICS_KEPT)
        self.judge_fallbacks = 0
        self._periodic = False

    # --- parts life cycle ------------------------------------------------------------------
    async def start(self) -> None:
        if not self._periodic and self.app is not None:
            self._periodic = register_periodic(self.app)

    async def stop(self) -> None:
        llm = self.core.llm
        if isinstance(llm, LLM):
            await llm.aclose()

    # --- services ----------------------------------------------------------------------------
    def judge_for(self, owner_id: int) -> JudgeFn | None:
        """The AI judge for this owner's saves, or None without a model. The memory service asks
        it only when the owner's ai_judge setting is on, and falls back to the rules on None."""
        llm = self.core.llm
        if llm is None or not llm.available:
            return None
        timeout = self.settings.judge_timeout_seconds

        async def judge_fn(new_fact: str, olds: list[tuple[int, str]]) -> dict[int, tuple[Decision, str]] | None:
            try:
                # judge() bounds the API call; this also bounds the budget check before it.
                async with asyncio.timeout(timeout + 1.0):
                    verdicts = await judge(llm, owner_id, new_fact, olds, timeout)
            except (TimeoutError, ValueError) as exc:
                log.info("judge fell back to the rules: %s", type(exc).__name__)
                verdicts = None
            if verdicts is None:
                self.judge_fallbacks += 1
                return None
            actions = decide(verdicts)
            return {v.old_id: (actions[v.old_id], f"{v.relation} (p={v.probability:.2f})") for v in verdicts}

        return judge_fn

    async def chat_turn(self, core: "Core", turn: "Turn", intent: Any, msg: Any) -> list[Outgoing]:
        """core.services["chat_turn"]: one plain message (not a command) and its answer."""
        text: str = msg.text  # as typed
        llm: LLM | None = core.llm
        metrics = TurnMetrics(owner_id=turn.owner_id)
        if llm is not None and llm.available:
            wait = self.limiter.hit(turn.owner_id, self.clock())
            if wait is not None:
                metrics.fallback = "person_rate_limit"
                self.metrics.append(metrics)
                return [Outgoing(rate_limited_text(self.settings.rate_limit_per_minute, wait))]
        history = await self._window(turn)
        metrics.history_messages = len(history)
        user_log_id = await self._log(turn, "user", text, turn.message_id)
        if llm is None or not llm.available:
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
        await self._log(turn, "assistant", reply.text, None)
        mode = "group" if turn.is_group else "model"
        await self._store_why(turn.owner_id, why_record(recalled, extras, mode, utcnow()))
        self.metrics.append(metrics)
        self.extractor.spawn(turn, text, user_log_id)
        return [reply]

    async def why(self, core: "Core", turn: "Turn", intent: Any, msg: Any) -> list[Outgoing]:
        """core.services["simple:why"]: which memories the last answer used, with score parts."""
        from bot.handlers import reply

        record = await self._load_why(turn.owner_id)
        if record is None:
            return [reply(turn, "I haven't answered anything with the help of your memories yet.")]
        alive: dict[int, str | None] = {}
        for item in record.get("memories") or []:
            mid = int(item.get("id", 0))
            current = await core.memory.get(turn.owner_id, mid)
            alive[mid] = current.text if current is not None else None
        return [reply(turn, render_why(record, alive))]

    # --- the model ---------------------------------------------------------------------------
    async def _converse(
        self, turn: "Turn", llm: LLM, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
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
                outcome = await execute(self.core, turn, block.name, block.id, block.input, judge=judge_fn)
                outcomes.append(outcome)
                results.append(outcome.result)
            messages.append({"role": "user", "content": results})

    async def _keep_typing(self, turn: "Turn") -> None:
        while True:
            await self.core.outbox.typing(turn.chat)
            await asyncio.sleep(TYPING_EVERY_SECONDS)

    # --- replies -----------------------------------------------------------------------------
    async def _compose(self, turn: "Turn", text: str, outcomes: Sequence[ToolOutcome]) -> Outgoing:
        """The answer, then what the tools changed (never silent), with Undo buttons."""
        changes = [o.change for o in outcomes if o.change]
        if changes:
            text = text.rstrip() + "\n\n" + "\n".join(f"✓ {c}" for c in changes)
        undo_ids = [o.undo_action_id for o in outcomes if o.undo_action_id][-MAX_UNDO_BUTTONS:]
        buttons: tuple = ()
        if undo_ids:
            label = (lambda i: "Undo") if len(undo_ids) == 1 else (lambda i: f"Undo {i}")
            rows = [[ButtonSpec(label(i), "undo", {"action_id": a}, alone=True) for i, a in enumerate(undo_ids, 1)]]
            buttons = await self.core.memory.issue_buttons(turn.owner_id, rows)
        return Outgoing(text=text, buttons=buttons)

    async def _from_memory(
        self, turn: "Turn", text: str, reason: str, outcomes: Sequence[ToolOutcome], metrics: TurnMetrics
    ) -> list[Outgoing]:
        """The answer without the model: what memory holds on the message, and a plain note."""
        metrics.fallback = reason
        self.metrics.append(metrics)
        out = await chat_mod.memory_answer(self.core, turn, text, fallback_note(reason))
        done = [o.change for o in outcomes if o.change]
        if done:
            out = Outgoing(
                text=out.text + "\n\nDone before the model stopped:\n" + "\n".join(f"✓ {c}" for c in done),
                private=out.private,
            )
        await self._log(turn, "assistant", out.text, None)
        used: list[dict[str, Any]] = []
        if not turn.is_group:
            found = await self.core.memory.search(turn.owner_id, text, limit=5)
            used = [{"id": m.id, "text": m.text, "parts": {}} for m in found]
        record = {"at": utcnow().isoformat(), "mode": "group" if turn.is_group else "memory_only",
                  "memories": used, "episodes": [], "procedures": []}
        await self._store_why(turn.owner_id, record)
        return [out]

    # --- storage -----------------------------------------------------------------------------
    async def _window(self, turn: "Turn") -> list[tuple[str, str]]:
        """This chat's recent messages (this owner only), not yet closed into an episode."""
        db = self.core.memory.db
        budget = self.settings.history_token_budget
        if budget <= 0:
            return []

        def work() -> list[tuple[str, str]]:
            with db.session() as s:
                rows = s.exec(
                    select(MessageLog.role, MessageLog.text)
                    .where(
                        MessageLog.owner_id == turn.owner_id,
                        MessageLog.platform == turn.chat.platform,
                        MessageLog.chat_id == turn.chat.chat_id,
                        MessageLog.episode_id.is_(None),  # type: ignore[union-attr]
                    )
                    .order_by(MessageLog.id.desc())  # type: ignore[union-attr]
                    .limit(HISTORY_FETCH)
                ).all()
                return [(str(r), str(t)) for r, t in rows]

        return fit_history(await db.run(work), budget)

    async def _log(self, turn: "Turn", role: str, text: str, platform_message_id: str | None) -> int | None:
        db = self.core.memory.db

        def work() -> int | None:
            with db.session() as s:
                row = MessageLog(
                    owner_id=turn.owner_id,
                    platform=turn.chat.platform,
                    chat_id=turn.chat.chat_id,
                    role=role,
                    text=text,
                    platform_message_id=platform_message_id,
                )
                s.add(row)
                s.flush()
                return row.id

        return await db.run(work)

    async def _store_why(self, owner_id: int, record: dict[str, Any]) -> None:
        db = self.core.memory.db
        data = json.dumps(record, ensure_ascii=False)

        def work() -> None:
            with db.session() as s:
                owner = s.get(Owner, owner_id)
                if owner is not None:
                    owner.last_why_json = data
                    s.add(owner)

        try:
            await db.run(work)
        except StorageError:
            log.warning("could not store /why for owner %s", owner_id)

    async def _load_why(self, owner_id: int) -> dict[str, Any] | None:
        db = self.core.memory.db

        def work() -> str:
            with db.session() as s:
                owner = s.get(Owner, owner_id)
                return owner.last_why_json if owner is not None else ""

        raw = await db.run(work)
        try:
            record = json.loads(raw or "null")
        except ValueError:
            return None
        return record if isinstance(record, dict) else None


def install(app: "App", *, with_model: bool = True, llm: LLM | None = None) -> Conversation:
    """Wire the chat part into `app`: the model client (with the database ledger) when a key is
    set, the core services chat_turn / judge_for / simple:why, background extraction, and the
    periodic closing of quiet conversations when a scheduler part exists.

    app.core.llm is the LLM, or None without a key (or with with_model=False).
    """
    core = app.core
    if llm is None and with_model and app.settings.anthropic_api_key:
        llm = LLM(app.settings, DatabaseLedger(app.db))
    core.llm = llm
    conversation = Conversation(core, app)
    core.services["chat_turn"] = conversation.chat_turn
    core.services["judge_for"] = conversation.judge_for
    core.services["simple:why"] = conversation.why
    core.services["conversation"] = conversation
    app.parts["conversation"] = conversation
    conversation._periodic = register_periodic(app)
    return conversation
