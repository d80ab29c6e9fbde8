"""The conversation core: one entry for messages, one for button presses, one outbox for pushes.

Adapters call `handle_message` / `handle_press` and render what comes back; the core never
knows which platform library is on the other side. Here live the cross-cutting rules: group
messages not addressed to the bot are dropped before anything is stored; the allowlist; one
person's messages are handled in order (a lock per owner) while different people run
concurrently; storage failures refuse the operation and say so; no stack trace reaches a person.

The core imports no feature: what handles each intent, /command and button action is in its
Router, filled by the composition root (bot/app.py).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Hashable
from dataclasses import dataclass, field
from typing import Any

from bot.config import Settings
from bot.core import commands
from bot.core.buttons import Buttons, ClaimStatus
from bot.core.followups import FollowUps
from bot.core.router import Router
from bot.core.turn import DEFAULT_PAGING, PAGING, Paging, Turn, storable, storable_text
from bot.events import ButtonPress, ChatRef, Incoming, Outbox, Outgoing
from bot.memory import MemoryService, StorageError
from bot.plaintext import is_blank, is_unreadable

log = logging.getLogger(__name__)

REFUSALS = {
    ClaimStatus.UNKNOWN: "This button is not valid (any more).",
    ClaimStatus.NOT_YOURS: "This button isn't yours — only the person it was meant for can use it.",
    ClaimStatus.USED: "You already pressed this button; it was done then, and nothing more happened now.",
    ClaimStatus.EXPIRED: "This button has expired; nothing happened.",
}
# a used button that was not the one pressed: another answer of its message was chosen
USED_BY_ANOTHER = "Another button of this message was already chosen; this one did nothing."

SOMETHING_WRONG = "Something went wrong on my side while handling that. Please try again."
# a message with characters in it but nothing readable (plaintext.is_unreadable)
UNREADABLE = ("I couldn't read that message: it holds only invisible or control characters, so I did "
              "nothing with it. Write it again in words, or type /help to see what I can do.")


__all__ = ["Core", "Turn", "Paging", "PAGING", "DEFAULT_PAGING", "REFUSALS", "SOMETHING_WRONG", "UNREADABLE", "storable", "storable_text"]


@dataclass
class Core:
    settings: Settings
    memory: MemoryService
    buttons: Buttons = None  # type: ignore[assignment]  # None: tokens in the memory's database
    router: Router = field(default_factory=Router)
    outbox: Outbox = field(default_factory=Outbox)
    followups: FollowUps = field(default_factory=FollowUps)  # questions answered by the next message
    # weak: a lock lives while someone holds or waits for it, so the map does not grow with
    # every person ever seen
    _locks: weakref.WeakValueDictionary[Hashable, asyncio.Lock] = field(default_factory=weakref.WeakValueDictionary)
    _refused: set[tuple[str, str]] = field(default_factory=set)
    _background: set[asyncio.Task[Any]] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.buttons is None:
            self.buttons = Buttons(self.memory.db)

    # --- entries -----------------------------------------------------------------------------
    async def handle_message(self, message: Incoming) -> list[Outgoing]:
        if message.is_group and not message.addressed_to_bot:
            return []  # never stored, logged or extracted
        if not message.attachments and is_blank(message.text):
            return []  # nothing was typed: no answer, nothing stored
        unreadable = not message.attachments and is_unreadable(message.text)
        message = storable(message)
        if not self._allowed(message.platform, message.user_id):
            return self._refuse_once(message.platform, message.user_id)
        if unreadable:  # answered before the person is even looked up: nothing is stored
            return [Outgoing(UNREADABLE)]
        try:
            # The identity's lock is taken before the first await, so one person's messages keep
            # the order they arrived in even while their owner is being looked up.
            async with self.lock_for(("identity", message.platform, message.user_id)):
                return await self._message(message)
        except StorageError as exc:  # unavailable, or changed at the same moment elsewhere
            return [Outgoing(exc.person_message)]
        except Exception:
            log.exception("failed to handle a message")
            return [Outgoing(SOMETHING_WRONG)]

    async def _message(self, message: Incoming) -> list[Outgoing]:
        owner_id = await self.memory.owner_for(message.platform, message.user_id, message.display_name)
        assert owner_id is not None
        turn = Turn(
            owner_id=owner_id,
            platform=message.platform,
            chat=message.chat,
            is_group=message.is_group,
            user_id=message.user_id,
            display_name=message.display_name,
            message_id=message.message_id,
        )
        async with self.lock_for(owner_id):
            before: list[Outgoing] = []
            awaited = self.followups.take(owner_id, message.chat)
            if awaited is not None and not message.text.lstrip().startswith("/"):
                before, handled = await awaited.handler(self, turn, message)
                if handled:
                    return before
            return before + await self._dispatch(turn, message)

    async def _dispatch(self, turn: Turn, message: Incoming) -> list[Outgoing]:
        intent = commands.FileOnly() if message.attachments and not message.text.strip() else commands.parse(message.text)
        handler = self.router.for_intent(intent)
        if handler is None:
            if isinstance(intent, commands.Simple):
                return [Outgoing(f"/{intent.verb} is not available in this setup.", private=turn.is_group)]
            return [Outgoing("I didn't understand that. Type /help to see what I can do.")]
        return list(await handler(self, turn, intent, message))

    async def handle_press(self, press: ButtonPress) -> list[Outgoing]:
        if not self._allowed(press.platform, press.user_id):
            return [Outgoing(notice=REFUSALS[ClaimStatus.NOT_YOURS])]
        try:
            owner_id = await self.memory.owner_for(press.platform, press.user_id, create=False)
            if owner_id is None:
                known = await self.buttons.claim(press.token, None)
                return [Outgoing(notice=REFUSALS[known.status if known.status is ClaimStatus.UNKNOWN else ClaimStatus.NOT_YOURS])]
            async with self.lock_for(owner_id):
                claim = await self.buttons.claim(press.token, owner_id)
                handler = self.router.for_press(claim.action)
                if claim.status is ClaimStatus.EXPIRED:
                    handler = self.router.for_expired(claim.action)
                    if handler is None:
                        return [Outgoing(notice=REFUSALS[claim.status])]
                elif claim.status is ClaimStatus.USED and not claim.pressed_here:
                    return [Outgoing(notice=USED_BY_ANOTHER)]
                elif claim.status is not ClaimStatus.OK:
                    return [Outgoing(notice=REFUSALS[claim.status])]
                if handler is None:
                    log.warning("no handler for button action %r", claim.action)
                    return [Outgoing(notice=REFUSALS[ClaimStatus.UNKNOWN])]
                turn = Turn(
                    owner_id=owner_id,
                    platform=press.platform,
                    chat=press.chat,
                    is_group=press.is_group,
                    user_id=press.user_id,
                    display_name=press.display_name,
                    message_id=press.message_id,
                )
                return await handler(self, turn, claim, press)
        except StorageError as exc:
            return [Outgoing(notice=exc.notice, text=exc.person_message)]
        except Exception:
            log.exception("failed to handle a button press")
            return [Outgoing(notice=SOMETHING_WRONG)]

    # --- pushes and background work ------------------------------------------------------------
    async def push(self, chat: ChatRef, message: Outgoing) -> str | None:
        """Send a message that is not a reply; False delivery is logged, never raised at callers
        that cannot do anything about it."""
        try:
            return await self.outbox.send(chat, message)
        except Exception:
            log.exception("push to %s failed", chat.platform)
            return None

    def spawn(self, coro: Awaitable[Any], name: str = "background") -> asyncio.Task[Any]:
        """Run work after a reply without letting a failure escape or the task be collected."""

        async def guarded() -> None:
            try:
                await coro
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("background task %s failed", name)

        task = asyncio.get_running_loop().create_task(guarded(), name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def drain(self, timeout: float = 30.0) -> None:
        """Wait for background work in flight (used at shutdown)."""
        pending = [t for t in self._background if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)

    def lock_for(self, key: Hashable) -> asyncio.Lock:
        """The lock of one owner (an int) or one identity; FIFO, so order is kept."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    # --- access ------------------------------------------------------------------------------
    def _allowed(self, platform: str, user_id: str) -> bool:
        allowed = self.settings.allowed_identities
        return not allowed or (platform, user_id) in allowed or (platform, "*") in allowed

    def _refuse_once(self, platform: str, user_id: str) -> list[Outgoing]:
        key = (platform, user_id)
        if key in self._refused:
            return []
        self._refused.add(key)
        log.info("refused a person who is not on the allowlist (%s)", platform)
        return [Outgoing("Sorry — this assistant is private and only answers the people it was set up for.")]
