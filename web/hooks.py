"""Chat platforms' webhooks on the web server (Telegram's), so that one deployment needs one port
behind one TLS proxy.

The web side knows no platform: an adapter offers a handler `(headers, body) -> HTTP status`
(it checks its own secret), and the runner (bot/runner.py) mounts it at the path of its URL.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

Webhook = Callable[[Mapping[str, str], bytes], Awaitable[int]]

RESERVED = ("/api", "/mcp", "/docs", "/openapi.json", "/redoc")


def path_problem(path: str) -> str | None:
    """Why a webhook cannot live at this path, or None."""
    if not path.startswith("/"):
        return "its path must start with /"
    if any(path == r or path.startswith(r + "/") for r in RESERVED):
        return f"its path {path} belongs to the web server's own pages ({', '.join(RESERVED)}); use another, e.g. /telegram/<secret words>"
    return None


def add_webhook(app: Starlette, path: str, handler: Webhook) -> None:
    """Serve POSTs at `path` with `handler`; the body limit of the app applies."""
    problem = path_problem(path)
    if problem is not None:
        raise ValueError(problem)

    async def endpoint(request: Request) -> Response:
        status = await handler(request.headers, await request.body())
        return Response(status_code=status)

    app.router.routes.insert(0, Route(path, endpoint, methods=["POST"], include_in_schema=False))
