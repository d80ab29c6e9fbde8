"""Shared pieces for the Telegram tests: the stand-in fixture, a scripted core, people.

Fixtures are imported by the test modules that use them (tests/conftest.py belongs to the
lead), e.g. `from tests.support.telegram_helpers import tg  # noqa: F401`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from bot.events import ButtonPress, Incoming, Outbox, Outgoing
from tests.standins.telegram_api import TelegramStandIn

ALICE = 1001  # has started the bot
BOB = 1002  # never opened a private chat with the bot
CAROL = 1003  # has started the bot
GROUP = -1001234567890
BOT_USERNAME = "memory_test_bot"


@pytest.fixture
async def tg() -> AsyncIterator[TelegramStandIn]:
    """A running stand-in with three people and one group."""
    server = TelegramStandIn(bot_username=BOT_USERNAME)
    await server.start()
    server.add_user(ALICE, "Alice", last_name="Liddell", username="alice")
    server.add_user(BOB, "Bob", started=False)
    server.add_user(CAROL, "Carol", username="carol_c")
    server.add_group(GROUP, "Book club")
    try:
        yield server
    finally:
        await server.stop()


MessageScript = Callable[[Incoming], Awaitable[list[Outgoing]] | list[Outgoing]]
PressScript = Callable[[ButtonPress], Awaitable[list[Outgoing]] | list[Outgoing]]


class ScriptedCore:
    """A stand-in for bot.core.core: records what the adapter hands over and answers from a script.

    Default answers: a message gets `echo: <text>`; a press edits the pressed message to
    `pressed <token>`. Tests replace `on_message` / `on_press` for other answers."""

    def __init__(self) -> None:
        self.outbox = Outbox()
        self.messages: list[Incoming] = []
        self.presses: list[ButtonPress] = []
        self.on_message: MessageScript = lambda m: [Outgoing(text=f"echo: {m.text}")]
        self.on_press: PressScript = lambda p: [
            Outgoing(text=f"pressed {p.token}", edit_of=p.message_id)
        ]

    async def handle_message(self, message: Incoming) -> list[Outgoing]:
        self.messages.append(message)
        result = self.on_message(message)
        if isinstance(result, Awaitable):
            result = await result
        return list(result)

    async def handle_press(self, press: ButtonPress) -> list[Outgoing]:
        self.presses.append(press)
        result = self.on_press(press)
        if isinstance(result, Awaitable):
            result = await result
        return list(result)
