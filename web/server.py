"""The HTTP server: uvicorn inside the bot's running event loop, beside the chat adapters and the
timers, started and stopped with the rest of the process.

Decisions worth knowing:
- The socket is bound here, before uvicorn starts, so "the port is taken" is one clear line at
  start-up (uvicorn itself would call sys.exit from inside its task), and port 0 (any free
  port, for tests and benchmarks) reports the port it got.
- uvicorn's own signal handling is switched off: the process has one owner of SIGINT/SIGTERM
  (bot/runner.py, or the terminal chat), which stops the server through `stop()`.
- uvicorn's logging setup and access log are off: the bot configures logging once, and an
  access log would write what people search for (query strings) into the logs.
- Stopping lets requests in flight finish for a few seconds; open MCP streams are then closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Iterator

import uvicorn
from starlette.types import ASGIApp

log = logging.getLogger(__name__)

GRACEFUL_STOP_SECONDS = 3


class ServerError(Exception):
    """The server could not start; the message is one line."""


class _Embedded(uvicorn.Server):
    """uvicorn without its signal handlers (the process owns them)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class WebServer:
    def __init__(self, app: ASGIApp, host: str, port: int) -> None:
        self.app = app
        self.host = host
        self.port = port
        self._server: _Embedded | None = None
        self._task: asyncio.Task[None] | None = None
        self._socket: socket.socket | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else "[::1]" if self.host == "::" else self.host
        return f"http://{host}:{self.port}"

    def _bind(self) -> socket.socket:
        try:
            infos = socket.getaddrinfo(self.host or None, self.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        except socket.gaierror as exc:
            raise ServerError(f"cannot listen on {self.host}:{self.port}: {exc.strerror}") from None
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(128)
        except OSError as exc:
            sock.close()
            raise ServerError(f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}") from None
        sock.setblocking(False)
        return sock

    async def start(self) -> None:
        """Listen, and return once the server accepts requests (lifespan started)."""
        if self._task is not None:
            raise RuntimeError("the web server is already running")
        sock = self._socket = self._bind()
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app, log_config=None, access_log=False, lifespan="on", server_header=False,
            timeout_graceful_shutdown=GRACEFUL_STOP_SECONDS, loop="none", ws="none",
        )
        server = self._server = _Embedded(config)
        self._task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]), name="web-server")
        while not server.started:
            if self._task.done():
                await self._stopped_early()
            await asyncio.sleep(0.02)
        log.info("web server listening on %s (API under /api, MCP at /mcp)", self.url)

    async def _stopped_early(self) -> None:
        task = self._task
        self._task = None
        self._close_socket()
        assert task is not None
        try:
            task.result()
        except (SystemExit, Exception) as exc:
            raise ServerError(f"the web server could not start: {exc.__class__.__name__}: {exc}") from None
        raise ServerError("the web server stopped while starting")

    async def stop(self) -> None:
        """Stop accepting, finish what is in flight (bounded), close. Safe to call twice."""
        server, task = self._server, self._task
        self._task = None
        if server is None or task is None:
            self._close_socket()
            return
        server.should_exit = True
        try:
            await asyncio.wait_for(task, timeout=GRACEFUL_STOP_SECONDS + 7)
        except asyncio.TimeoutError:
            server.force_exit = True
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        except (Exception, SystemExit):
            log.exception("the web server stopped with an error")
        self._close_socket()
        log.info("web server stopped")

    def _close_socket(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.close()
            self._socket = None
