"""Running the platform adapters (Telegram, Discord, or both) until a stop signal.

Each adapter is started inside the one event loop; a failure to start one is reported in one
clear line and stops the process with a non-zero exit rather than running half-configured.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import Any

from bot.config import Settings

log = logging.getLogger(__name__)


async def run_platforms(settings: Settings, *, stop: asyncio.Event | None = None) -> int:
    from bot.app import build_app

    app = build_app(settings)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # not the main thread (tests) or not POSIX
            pass
    adapters: list[Any] = []
    try:
        if settings.telegram_bot_token:
            from adapters.telegram import TelegramAdapter

            adapters.append(TelegramAdapter(app.core, settings))
        if settings.discord_bot_token:
            from adapters.discord import DiscordAdapter

            adapters.append(DiscordAdapter(app.core, settings))
        for adapter in adapters:
            try:
                await adapter.start()
            except Exception as exc:
                name = type(adapter).__name__.replace("Adapter", "")
                print(f"error: {name} could not start: {exc}", file=sys.stderr)
                return 1
            log.info("%s started", type(adapter).__name__)
        log.info("%s", await app.startup_line(everyone=True))
        await app.start_background(freeze_heap=True)
        await stop.wait()
        return 0
    finally:
        for adapter in reversed(adapters):
            try:
                await adapter.stop()
            except Exception:
                log.exception("stopping %s failed", type(adapter).__name__)
        await app.close()
