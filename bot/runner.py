"""Running the process until a stop signal: the platform adapters (Telegram, Discord, or both)
and, when asked, the web server beside them; or the web server alone (`python -m bot web`).

Each part is started inside the one event loop; a failure to start one is reported in one clear
line and stops the process with a non-zero exit rather than running half-configured. Stopping
goes the other way: adapters first (no new messages), then the web server (requests in flight
finish), then the timers and storage.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import TYPE_CHECKING, Any

from bot.config import DEFAULT_WEB_PORT, Settings

if TYPE_CHECKING:
    from bot.app import App
    from web.app import WebApp
    from web.server import WebServer

log = logging.getLogger(__name__)


def _stop_on_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # not the main thread (tests) or not POSIX
            pass


def web_for(app: "App") -> tuple["WebApp", "WebServer"]:
    """The web application on this process's parts, and its server on WEB_HOST:WEB_PORT."""
    from web.app import build_web_app
    from web.server import WebServer

    settings = app.settings
    webapp = build_web_app(settings, app.memory, app.access, app.reminders, logins=app.web_logins, judge_for=app.judge)
    port = settings.web_port if settings.web_port is not None else DEFAULT_WEB_PORT
    return webapp, WebServer(webapp.asgi, settings.web_host, port)


def wants_web(settings: Settings) -> bool:
    """`run` starts the web server when WEB_PORT is set, or Telegram's webhook needs it."""
    return settings.web_port is not None or bool(settings.telegram_webhook_url.strip())


async def run_platforms(settings: Settings, *, stop: asyncio.Event | None = None) -> int:
    from bot.app import build_app
    from web.server import ServerError

    app = build_app(settings)
    stop = stop or asyncio.Event()
    _stop_on_signals(stop)
    adapters: list[Any] = []
    server: WebServer | None = None
    try:
        if settings.telegram_bot_token:
            from adapters.telegram import TelegramAdapter

            adapters.append(TelegramAdapter(app.core, settings))
        if settings.discord_bot_token:
            from adapters.discord import DiscordAdapter

            adapters.append(DiscordAdapter(app.core, settings))
        if wants_web(settings):
            webapp, server = web_for(app)
            for adapter in adapters:
                path = getattr(adapter, "webhook_path", None)
                if path is not None:
                    try:
                        webapp.add_webhook(path, adapter.on_webhook)
                    except ValueError as exc:
                        print(f"error: Invalid setting TELEGRAM_WEBHOOK_URL: {exc}", file=sys.stderr)
                        return 1
            try:
                await server.start()  # before the adapters: Telegram's first webhook call must find it
            except ServerError as exc:
                server = None
                print(f"error: {exc}", file=sys.stderr)
                return 1
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
        if server is not None:
            await server.stop()
        await app.close()


async def run_web(settings: Settings, *, stop: asyncio.Event | None = None) -> int:
    """`python -m bot web`: the web server with the memory's upkeep (purge, tidy), no chat
    adapter and no reminder delivery (reminders set here are delivered by the chat process)."""
    from bot.app import build_app
    from web.server import ServerError

    app = build_app(settings, role="web")
    stop = stop or asyncio.Event()
    _stop_on_signals(stop)
    _, server = web_for(app)
    try:
        try:
            await server.start()
        except ServerError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        await app.start_background()
        await stop.wait()
        return 0
    finally:
        await server.stop()
        await app.close()
