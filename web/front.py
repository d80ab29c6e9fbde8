"""What every HTTP request meets before any route: the token gate and the body limit.

Why in front of the framework rather than as a route dependency: a request without a valid token
must be refused (401) before anything of it is read, whatever its body holds (FastAPI parses a
JSON body before dependencies run), and the same gate must serve the REST API and the MCP
endpoint, which is the SDK's own ASGI app and knows no FastAPI dependencies.

For /mcp the gate also hands the SDK the token's principal in the standard place
(`scope["user"]`, an AuthenticatedUser): the SDK binds each MCP session to the principal that
opened it, so a session id cannot be used with another person's token.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthCredentials
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.memory import Source, StorageError
from web.errors import STORAGE_DOWN, error_body
from web.gate import Denied, Gate
from web.mcp import SCOPE_KEY

DEFAULT_LIMIT = 64 * 1024  # a fact is at most 2,000 characters; no other body needs more
MCP_PATH = "/mcp"


def too_large(limit: int) -> str:
    return f"The body is larger than this endpoint takes ({limit:,} bytes); nothing was read or changed."


class Front:
    def __init__(self, app: ASGIApp, gate: Gate, limit_for: Callable[[str], int]) -> None:
        self.app = app
        self.gate = gate
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        is_mcp = path == MCP_PATH or path.startswith(MCP_PATH + "/")
        if is_mcp or (path.startswith("/api") and path not in ("/api/health", "/api/health/")):
            headers = Headers(scope=scope)
            try:
                got = await self.gate.check(
                    headers.get("authorization"), source=Source.MCP.value if is_mcp else Source.API.value
                )
            except StorageError:  # no token can be checked: refused, never let through
                await _respond(send, 503, "storage_unavailable", STORAGE_DOWN, {"Retry-After": "5"})
                return
            if isinstance(got, Denied):
                await _respond(send, got.status, "unauthorized" if got.status == 401 else "rate_limited",
                               got.message, got.headers)
                return
            scope.setdefault("state", {})["caller"] = got
            if is_mcp:
                scope[SCOPE_KEY] = got
                principal = AccessToken(token="", client_id=f"{got.platform}:{got.user_id}", scopes=[],
                                        subject=str(got.owner_id))
                scope["user"] = AuthenticatedUser(principal)
                scope["auth"] = AuthCredentials([])
        limit = self.limit_for(path)
        declared = Headers(scope=scope).get("content-length")
        if declared is not None:
            try:
                too_big = int(declared) > limit
            except ValueError:
                await _respond(send, 400, "bad_request", "The Content-Length header is not a number.", {})
                return
            if too_big:
                await _respond(send, 413, "too_large", too_large(limit), {})
                return
        await self.app(scope, _counted(receive, limit), send)


def _counted(receive: Receive, limit: int) -> Receive:
    """A body sent without a length (chunked) is counted as it arrives; past the limit the read
    fails with 413, which the framework passes through to the error handler."""
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise HTTPException(413, too_large(limit))
        return message

    return wrapped


async def _respond(send: Send, status: int, code: str, message: str, headers: dict[str, str]) -> None:
    body = json.dumps(error_body(code, message)).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
