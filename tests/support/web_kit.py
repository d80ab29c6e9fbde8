"""The web side for tests: an assistant built like production (bot.app.build_app) with its web
server listening on a free port of 127.0.0.1, people with tokens, real HTTP and MCP clients, and
the chat door of the same process (core.handle_message / handle_press).

Fixtures are imported by the test modules that use them, e.g.
`from tests.support.web_kit import kit  # noqa: F401`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from bot.app import App, build_app
from bot.events import ButtonPress, Incoming, Outgoing
from bot.runner import web_for
from web.app import WebApp
from web.server import WebServer


@dataclass
class Person:
    platform: str
    user_id: str
    owner_id: int
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass
class WebKit:
    app: App
    web: WebApp
    server: WebServer
    clients: list[httpx.AsyncClient] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.server.url

    async def person(self, user_id: str, platform: str = "telegram", name: str = "test") -> Person:
        owner_id = await self.app.memory.owner_for(platform, user_id, user_id)
        assert owner_id is not None
        issued = await self.app.access.create(platform, user_id, name)
        return Person(platform, user_id, owner_id, issued.secret)

    def http(self, person: Person | None = None, **headers: str) -> httpx.AsyncClient:
        """A client for the API, with the person's token unless headers say otherwise."""
        base = dict(person.auth) if person is not None else {}
        base.update(headers)
        client = httpx.AsyncClient(base_url=self.url, headers=base, timeout=30)
        self.clients.append(client)
        return client

    @contextlib.asynccontextmanager
    async def mcp(self, person: Person | None, token: str | None = None) -> AsyncIterator[Client]:
        """The SDK's own client over streamable HTTP, with the person's bearer token."""
        secret = token if token is not None else person.token if person is not None else None
        headers = {"Authorization": f"Bearer {secret}"} if secret else {}
        async with create_mcp_http_client(headers=headers) as http:
            async with Client(streamable_http_client(f"{self.url}/mcp", http_client=http)) as client:
                yield client

    async def say(self, person: Person, text: str, *, group: bool = False) -> list[Outgoing]:
        """A message from this person in their private chat (or a group, addressed to the bot)."""
        chat = "-100" if group else person.user_id
        return await self.app.core.handle_message(
            Incoming(platform=person.platform, chat_id=chat, user_id=person.user_id, text=text,
                     display_name=person.user_id, is_group=group, message_id="m")
        )

    async def press(self, person: Person, out: Outgoing, label_start: str) -> list[Outgoing]:
        token = next(b.token for b in out.all_buttons if b.label.startswith(label_start))
        return await self.app.core.handle_press(
            ButtonPress(platform=person.platform, chat_id=person.user_id, user_id=person.user_id, token=token,
                        message_id="q")
        )

    def state(self, person: Person) -> dict[str, Any]:
        """Everything stored for the person that a request could change, read straight from the
        database: memories (with their versions), events, actions, questions, reminders, tokens."""
        from sqlalchemy import text as sql

        o = {"o": person.owner_id}
        with self.app.db.engine.connect() as conn:
            def rows(q: str) -> list[tuple[Any, ...]]:
                return [tuple(str(v) for v in r) for r in conn.execute(sql(q), o).all()]

            return {
                "memories": rows("SELECT uid, text, status, archived, version, deleted_at, replaced_by "
                                 "FROM memory WHERE owner_id = :o ORDER BY id"),
                "events": rows("SELECT count(*) FROM memory_event WHERE owner_id = :o"),
                "actions": rows("SELECT id, undone_at FROM action WHERE owner_id = :o ORDER BY id"),
                "questions": rows("SELECT id, status, resolution FROM conflict WHERE owner_id = :o ORDER BY id"),
                "reminders": rows("SELECT uid, text, state, due_at FROM reminder WHERE owner_id = :o ORDER BY id"),
                "tokens": rows("SELECT t.id, t.revoked_at FROM api_token t JOIN identity i ON i.id = t.identity_id "
                               "WHERE i.owner_id = :o ORDER BY t.id"),
            }


async def start_kit(settings: Any, database: Any, **overrides: Any) -> WebKit:
    settings = settings.model_copy(update={"web_port": 0, "api_rate_limit_per_minute": 0} | overrides)
    app = build_app(settings, db=database, embedder=None, with_model=False)
    web, server = web_for(app)
    await server.start()
    return WebKit(app, web, server)


async def stop_kit(kit: WebKit) -> None:
    for client in kit.clients:
        await client.aclose()
    await kit.server.stop()
    await kit.app.core.drain(timeout=5)
    await kit.app.timers.stop()


@pytest.fixture
async def kit(settings: Any, database: Any) -> AsyncIterator[WebKit]:
    """The assistant and its web server on SQLite and on PostgreSQL (the database fixture)."""
    started = await start_kit(settings, database)
    try:
        yield started
    finally:
        await stop_kit(started)
