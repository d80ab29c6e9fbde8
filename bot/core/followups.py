"""Questions whose answer is the person's next message ("What time tomorrow?" -> "at 10").

A feature that asks such a question registers a handler for the person's next message in that
chat; the core hands that message to it before reading it as a command or chat. One message
answers it (or moves on): a /command, another chat or the time running out drops it. Kept in
memory only: a restart forgets an unanswered question, which the person can simply ask again.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.events import ChatRef, Incoming, Outgoing

# (outgoing messages, handled): handled=False lets the core read the message as it normally
# would, after the outgoing messages (a note that the message was not taken as the answer)
FollowUpResult = tuple[list[Outgoing], bool]
# (core, turn, message) -> FollowUpResult
FollowUpHandler = Callable[[Any, Any, Incoming], Awaitable[FollowUpResult]]

DEFAULT_TTL_SECONDS = 15 * 60


@dataclass(frozen=True)
class FollowUp:
    chat: ChatRef
    handler: FollowUpHandler
    expires_at: float


class FollowUps:
    """At most one awaited answer per person; a new question replaces an older one."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._waiting: dict[int, FollowUp] = {}

    def expect(self, owner_id: int, chat: ChatRef, handler: FollowUpHandler, ttl: float = DEFAULT_TTL_SECONDS) -> None:
        self._waiting[owner_id] = FollowUp(ChatRef(chat.platform, chat.chat_id), handler, self.clock() + ttl)

    def take(self, owner_id: int, chat: ChatRef) -> FollowUp | None:
        """The awaited answer's handler if this message (in this chat, in time) is it; the
        question is dropped either way once the person wrote again in that chat."""
        waiting = self._waiting.get(owner_id)
        if waiting is None:
            return None
        if (waiting.chat.platform, waiting.chat.chat_id) != (chat.platform, chat.chat_id):
            return None  # a message elsewhere neither answers nor drops it
        del self._waiting[owner_id]
        return waiting if self.clock() < waiting.expires_at else None

    def waiting(self, owner_id: int) -> bool:
        got = self._waiting.get(owner_id)
        return got is not None and self.clock() < got.expires_at

    def drop(self, owner_id: int) -> None:
        self._waiting.pop(owner_id, None)
