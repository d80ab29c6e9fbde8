"""Background extraction: after a chat reply, note up to two durable facts the person stated.

The flow (docs/ARCHITECTURE.md section 4, "Extraction"):
1. It is spawned by the chat turn (core.spawn) and first waits until the turn has finished —
   the reply is handed back before any of this runs, and nothing here can delay it.
2. The cheap pure gate (bot.llm.extract.worth_extracting) skips the model call on turns with
   nothing self-disclosing; without a model nothing is extracted.
3. The model reads the last few messages of this chat and proposes at most two grounded facts.
4. Each fact goes through core.memory.remember (source "chat", confidence 0.7) — so duplicates
   are skipped and conflicts are raised exactly as for a typed "remember:" — under the person's
   lock, so it never interleaves with their own commands.
5. The person is told: "Noted: …" with an Undo button (unless their extraction_notice setting is
   off), and a conflict question with its four buttons is always pushed. Pushes go to the chat
   the message came from, private in a group.

Failures are logged and counted in `ExtractionStats` (read by tests and the cost benchmark),
never shown in the chat. Only the chat-turn path calls this: commands and button presses never
reach it.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

from sqlalchemy import update
from sqlmodel import select

from bot.core.buttons import ButtonSpec
from bot.core.core import Core
from bot.core.replies import describe_save, reply
from bot.core.turn import Turn
from bot.events import Outgoing
from bot.llm.client import LLM, ModelUnavailable
from bot.llm.extract import extract_facts, worth_extracting
from bot.memory import FactError, JudgeFn, RememberResult, StorageError
from bot.storage.models import CONFIDENCE_INFERRED, MessageLog, Source

log = logging.getLogger(__name__)

RECENT_MESSAGES = 6  # how much of the conversation the model reads, ending with the person's message


@dataclass
class ExtractionStats:
    """Counters over the process lifetime."""

    turns: int = 0  # chat turns handed to extraction
    skipped_precheck: int = 0  # nothing self-disclosing: no model call
    skipped_no_model: int = 0
    model_calls: int = 0
    facts: int = 0  # grounded facts the model proposed
    saved: int = 0
    duplicates: int = 0
    conflicts: int = 0
    notices: int = 0  # "Noted" / conflict messages pushed
    failures: int = 0
    failure_reasons: Counter[str] = field(default_factory=Counter)

    def fail(self, reason: str) -> None:
        self.failures += 1
        self.failure_reasons[reason] += 1


class _WatchedLLM:
    """The LLM seen by extract_facts, noting whether its call failed.

    Why: extract_facts answers [] both for "nothing to note" and "the model failed"; the
    counters must tell the two apart without changing that function.
    """

    def __init__(self, llm: LLM) -> None:
        self._llm = llm
        self.failure: str | None = None
        self.calls = 0

    async def create(self, **kwargs: Any) -> Any:
        self.calls += 1
        try:
            return await self._llm.create(**kwargs)
        except ModelUnavailable as exc:
            self.failure = exc.reason
            raise


class Extractor:
    """Runs the background flow; one per core."""

    def __init__(self, core: Core, llm: LLM | None, judge_for: Callable[[int], JudgeFn | None]) -> None:
        self.core = core
        self.llm = llm
        self.judge_for = judge_for
        self.stats = ExtractionStats()

    def spawn(self, turn: Turn, user_text: str, user_log_id: int | None) -> None:
        """Schedule extraction for this turn; it starts only after the turn's reply is out."""
        self.stats.turns += 1
        self.core.spawn(self.run(turn, user_text, user_log_id), name="extraction")

    async def run(self, turn: Turn, user_text: str, user_log_id: int | None) -> None:
        try:
            await self._run(turn, user_text, user_log_id)
        except Exception as exc:  # logged and counted, never shown in the chat
            log.warning("extraction failed for owner %s: %s", turn.owner_id, type(exc).__name__, exc_info=not isinstance(exc, StorageError))
            self.stats.fail("storage" if isinstance(exc, StorageError) else "error")

    async def _run(self, turn: Turn, user_text: str, user_log_id: int | None) -> None:
        core = self.core
        # The chat turn holds this lock until its reply has been handed back: waiting for it
        # (and letting go at once) means nothing below can run before the reply.
        async with core.lock_for(turn.owner_id):
            pass
        if not worth_extracting(user_text):
            self.stats.skipped_precheck += 1
            await self._mark_extracted(turn, user_log_id)
            return
        llm = self.llm
        if llm is None or not llm.available:
            self.stats.skipped_no_model += 1
            return
        recent = await self._recent(turn, user_log_id, user_text)
        watched = _WatchedLLM(llm)
        facts = await extract_facts(watched, turn.owner_id, recent)  # type: ignore[arg-type]
        self.stats.model_calls += watched.calls
        if watched.failure is not None:
            self.stats.fail(f"model:{watched.failure}")
            return  # the message stays unextracted; nothing is retried behind the person's back
        self.stats.facts += len(facts)
        for fact in facts:
            async with core.lock_for(turn.owner_id):  # never interleaved with their commands
                await self._save(turn, fact)
        await self._mark_extracted(turn, user_log_id)

    async def _save(self, turn: Turn, fact: str) -> None:
        core = self.core
        judge: JudgeFn | None = self.judge_for(turn.owner_id)
        try:
            result = await core.memory.remember(
                turn.owner_id,
                fact,
                source=Source.CHAT.value,
                confidence=CONFIDENCE_INFERRED,
                source_ref=turn.message_id,
                judge=judge,
                actor="assistant",
            )
        except FactError:
            self.stats.fail("invalid_fact")
            return
        if result.duplicate_of is not None:
            self.stats.duplicates += 1
            return
        self.stats.saved += 1
        if result.conflict_id is not None:
            self.stats.conflicts += 1
        message = await self._notice(turn, result)
        if message is not None:
            await core.push(turn.chat, message)
            self.stats.notices += 1

    async def _notice(self, turn: Turn, result: RememberResult) -> Outgoing | None:
        """What the person sees about a save: the conflict question (always), the judge's
        retirement (always), or "Noted: …" with Undo (unless their notices are off)."""
        core = self.core
        if result.conflict_id is not None or result.retired:
            return await describe_save(core, turn, result, prefix="Noted")
        prefs = await core.memory.prefs(turn.owner_id)
        if not prefs.extraction_notice:
            return None
        assert result.memory is not None
        plain = await describe_save(core, turn, result, prefix="Noted")  # carries its Undo
        return reply(turn, plain.text + "\n(Noted from our chat. Undo if I got it wrong.)", buttons=plain.buttons)

    async def _recent(self, turn: Turn, user_log_id: int | None, user_text: str) -> list[tuple[str, str]]:
        """The last few (role, text) of this chat, oldest first, ending with the person's message."""
        if user_log_id is None:
            return [("user", user_text)]
        db = self.core.memory.db

        def work() -> list[tuple[str, str]]:
            with db.session() as s:
                rows = s.exec(
                    select(MessageLog)
                    .where(
                        MessageLog.owner_id == turn.owner_id,
                        MessageLog.platform == turn.chat.platform,
                        MessageLog.chat_id == turn.chat.chat_id,
                        MessageLog.id <= user_log_id,  # type: ignore[operator]
                    )
                    .order_by(MessageLog.id.desc())  # type: ignore[union-attr]
                    .limit(RECENT_MESSAGES)
                ).all()
                return [(m.role, m.text) for m in reversed(rows) if m.role in ("user", "assistant")]

        recent = await db.run(work)
        if not recent or recent[-1] != ("user", user_text):
            recent.append(("user", user_text))
        return recent

    async def _mark_extracted(self, turn: Turn, user_log_id: int | None) -> None:
        if user_log_id is None:
            return
        db = self.core.memory.db

        def work() -> None:
            with db.session() as s:
                s.execute(
                    update(MessageLog)
                    .where(MessageLog.owner_id == turn.owner_id, MessageLog.id == user_log_id)
                    .values(extracted=True)
                )

        await db.run(work)
