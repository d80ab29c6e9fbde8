"""The optional AI conflict judge, as the save paths see it: `judge_for(owner_id)` gives the
judge function for one person's saves, or None without a model.

Why a feature of its own: typed saves, the model's tool calls and background extraction all
save through the judge, and none of them should need the chat turn to reach it.
"""

from __future__ import annotations

import asyncio
import logging

from bot.config import Settings
from bot.llm.client import LLM
from bot.llm.judge import decide, judge
from bot.memory import Decision, JudgeFn

log = logging.getLogger(__name__)


class AiJudge:
    """Builds per-person judge functions on the model; counts how often it fell back."""

    def __init__(self, llm: LLM | None, settings: Settings) -> None:
        self.llm = llm
        self.settings = settings
        self.fallbacks = 0

    def __call__(self, owner_id: int) -> JudgeFn | None:
        """The AI judge for this owner's saves, or None without a model. The memory service asks
        it only when the owner's ai_judge setting is on, and falls back to the rules on None."""
        llm = self.llm
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
                self.fallbacks += 1
                return None
            actions = decide(verdicts)
            return {v.old_id: (actions[v.old_id], f"{v.relation} (p={v.probability:.2f})") for v in verdicts}

        return judge_fn
