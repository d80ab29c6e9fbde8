"""Shared plumbing for the Discord tests: a running stand-in with discord.py pointed at it, and a
real discord.Client started against it.

Kept out of conftest.py on purpose (that file belongs to the lead); tests import from here.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, AsyncIterator

import discord

from bot.config import Settings
from tests.standins.discord_api import DiscordStandIn, redirect_discord


@contextlib.asynccontextmanager
async def standin_server(**options: Any) -> AsyncIterator[DiscordStandIn]:
    """A started stand-in with Route.BASE / DEFAULT_GATEWAY pointed at it (restored after)."""
    server = DiscordStandIn(**options)
    await server.start()
    try:
        with redirect_discord(server):
            yield server
    finally:
        await server.close()


def settings_for(server: DiscordStandIn, **overrides: Any) -> Settings:
    """Settings that read no .env file: a developer's real token must never reach a test."""
    return Settings(_env_file=None, discord_bot_token=server.token, **overrides)  # type: ignore[call-arg]


def default_intents(*, message_content: bool = False) -> discord.Intents:
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_messages = True
    intents.dm_messages = True
    intents.message_content = message_content
    return intents


@contextlib.asynccontextmanager
async def running_client(
    server: DiscordStandIn, client: discord.Client, *, timeout: float = 10.0
) -> AsyncIterator[discord.Client]:
    """Start `client` against the stand-in, wait until it is ready, close it afterwards."""
    task = asyncio.create_task(client.start(server.token))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not client.is_ready():
        if task.done():
            task.result()  # raises the client's start-up error
            raise RuntimeError("discord.py client stopped before it was ready")
        if loop.time() > deadline:
            await client.close()
            raise TimeoutError("discord.py client did not become ready against the stand-in")
        await asyncio.sleep(0.01)
    try:
        yield client
    finally:
        await client.close()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(task, 5)
