"""The conversation window: this chat's recent messages, as the model sees them, and the log
they come from (MessageLog). Pure helpers first (tested with tables), then the log's I/O."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import select

from bot.core.turn import Turn
from bot.storage.db import Database
from bot.storage.models import MessageLog
from bot.tokens import estimate_tokens

HISTORY_FETCH = 200  # newest messages read for the window before the token budget trims them


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


class ChatLog:
    """The message log of chat turns (never of commands): the window, extraction and episodes
    read it."""

    def __init__(self, db: Database, history_token_budget: int) -> None:
        self.db = db
        self.budget = history_token_budget

    async def window(self, turn: Turn) -> list[tuple[str, str]]:
        """This chat's recent messages (this owner only), not yet closed into an episode."""
        db = self.db
        if self.budget <= 0:
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

        return fit_history(await db.run(work), self.budget)

    async def log(self, turn: Turn, role: str, text: str, platform_message_id: str | None) -> int | None:
        db = self.db

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
