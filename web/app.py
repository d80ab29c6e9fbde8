"""The web application: the REST API, the MCP endpoint and any webhooks, behind one front (the
token gate and the body limits), as one ASGI app for the server in web/server.py.

Built from parts the composition root already made (the memory service, the access tokens, the
reminder service, the AI judge), so the web side runs the same objects as the chat in the same
process: a fact added here is in the same memory, behind the same caches, as the chat's.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from fastapi import FastAPI
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from bot.config import Settings
from bot.core.access import AccessTokens
from bot.core.web_login import WebLogins
from bot.features.reminders import ReminderService
from bot.memory import JudgeFn, MemoryService
from web import errors
from web.api import router
from web.door import Door
from web.front import DEFAULT_LIMIT, MCP_PATH, Front
from web.gate import Gate, RateLimiter
from web.hooks import Webhook, add_webhook
from web.mcp import build_mcp, http_caller
from web.page import STATIC
from web.page import router as page_router

log = logging.getLogger(__name__)

MCP_BODY_LIMIT = 1024 * 1024
WEBHOOK_LIMIT = 1024 * 1024
LOGIN_TRIES_PER_MINUTE = 20  # login posts per client address: a code cannot be guessed, nor tried in a loop
LOOPBACK = ("127.0.0.1", "localhost", "::1")
ANY_ADDRESS = ("0.0.0.0", "::", "")


@dataclass
class WebApp:
    asgi: ASGIApp  # what the server runs: the front, then the FastAPI app
    api: FastAPI
    mcp: MCPServer
    door: Door
    webhook_paths: set[str]

    def add_webhook(self, path: str, handler: Webhook) -> None:
        add_webhook(self.api, path, handler)
        self.webhook_paths.add(path)


def mcp_security(settings: Settings) -> TransportSecuritySettings:
    """The MCP transport's DNS-rebinding check: requests must name this server (loopback, the
    address it listens on, or WEB_PUBLIC_URL's host) in Host, and come from no foreign Origin."""
    hosts = ["127.0.0.1", "localhost", "[::1]"]
    origins = ["http://127.0.0.1", "http://localhost", "http://[::1]"]
    host = settings.web_host.strip()
    if host not in LOOPBACK + ANY_ADDRESS:
        hosts.append(f"[{host}]" if ":" in host else host)
    public = urlsplit(settings.web_public_url) if settings.web_public_url else None
    if public is not None and public.hostname:
        hosts.append(f"[{public.hostname}]" if ":" in public.hostname else public.hostname)
        origins.append(f"{public.scheme}://{public.netloc}")
    if host in ANY_ADDRESS and public is None:
        log.warning(
            "WEB_HOST=%s without WEB_PUBLIC_URL: MCP over HTTP answers only requests addressed to localhost; "
            "set WEB_PUBLIC_URL to the address clients use", host or "(all)",
        )
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts + [f"{h}:*" for h in hosts],
        allowed_origins=origins + [f"{o}:*" for o in origins],
    )


def build_web_app(
    settings: Settings,
    memory: MemoryService,
    access: AccessTokens,
    reminders: ReminderService,
    *,
    logins: WebLogins | None = None,
    judge_for: Callable[[int], JudgeFn | None] | None = None,
) -> WebApp:
    door = Door(memory, reminders, undo_window=timedelta(seconds=settings.undo_window_seconds), judge_for=judge_for)
    mcp = build_mcp(door, http_caller)
    mcp_asgi = mcp.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=settings.web_host,
        transport_security=mcp_security(settings),
        max_request_body_size=MCP_BODY_LIMIT,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with mcp.session_manager.run():  # the MCP sessions live as long as the server
            yield

    api = FastAPI(
        title="Memory assistant",
        summary="A person's long-term memory for programs: the same rules, history and undo as the chat.",
        version="1",
        lifespan=lifespan,
    )
    api.state.door = door
    api.state.settings = settings
    api.state.logins = logins
    api.state.access = access
    api.state.login_limiter = RateLimiter(LOGIN_TRIES_PER_MINUTE)
    errors.install(api)
    api.include_router(router)
    if logins is not None:  # the memory page (web/page.py), for people in a browser
        api.include_router(page_router)
        api.router.routes.append(Mount("/static", app=StaticFiles(directory=STATIC), name="static"))
    api.router.routes.append(Route(MCP_PATH, endpoint=mcp_asgi, include_in_schema=False))
    web = WebApp(asgi=api, api=api, mcp=mcp, door=door, webhook_paths=set())

    def limit_for(path: str) -> int:
        if path in ("/api/import", "/import"):
            return settings.web_max_import_bytes
        if path == MCP_PATH:
            return MCP_BODY_LIMIT
        if path in web.webhook_paths:
            return WEBHOOK_LIMIT
        return DEFAULT_LIMIT

    web.asgi = Front(api, Gate(access, RateLimiter(settings.api_rate_limit_per_minute)), limit_for)
    return web
