"""A TCP proxy in front of PostgreSQL that can cut a connection at the worst moment: just after
forwarding a COMMIT (the server commits, the client never hears so), or just before.

It reads the client's side of the wire protocol (startup packets without a type byte, then
typed messages: a type byte and a length) so it knows when a simple Query carrying COMMIT goes
by; the server's side is copied through untouched. Runs on the test's event loop (the bot's
database work runs on executor threads, so the loop is free to serve it).
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

SSL_REQUEST = 80877103
GSSENC_REQUEST = 80877104


@dataclass
class PgProxy:
    upstream_host: str
    upstream_port: int
    port: int = 0
    # "after": forward the next COMMIT of a transaction that wrote, then cut; "before": cut
    # instead of forwarding it; None: pass everything
    cut_at_commit: str | None = None
    refuse_new: bool = False  # new connections are closed at once (the server "unreachable")
    cuts: int = 0
    commits_seen: int = 0
    _server: asyncio.AbstractServer | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refuse_new:
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        except OSError:
            writer.close()
            return
        down = asyncio.create_task(self._copy(up_reader, writer))
        self._tasks.add(down)
        down.add_done_callback(self._tasks.discard)
        try:
            await self._client_side(reader, up_writer, down)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            for w in (up_writer, writer):
                with contextlib.suppress(Exception):
                    w.close()
            down.cancel()

    async def _copy(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(Exception):
            writer.close()

    async def _client_side(
        self, reader: asyncio.StreamReader, up: asyncio.StreamWriter, down: asyncio.Task[None]
    ) -> None:
        startup = True
        wrote = False  # an INSERT, UPDATE or DELETE went by since the last COMMIT
        while True:
            if startup:
                head = await reader.readexactly(8)
                length, code = struct.unpack("!ii", head)
                rest = await reader.readexactly(length - 8)
                up.write(head + rest)
                await up.drain()
                if code not in (SSL_REQUEST, GSSENC_REQUEST):
                    startup = False  # the StartupMessage itself; typed messages follow
                continue
            kind = await reader.readexactly(1)
            size = await reader.readexactly(4)
            body = await reader.readexactly(struct.unpack("!i", size)[0] - 4)
            sql = body.upper()
            is_commit = kind == b"Q" and body.rstrip(b"\x00").strip().upper() == b"COMMIT"
            if kind in (b"Q", b"P") and any(w in sql for w in (b"INSERT ", b"UPDATE ", b"DELETE ")):
                wrote = True
            if is_commit:
                self.commits_seen += 1
                is_commit, wrote = wrote, False  # only a transaction that wrote is cut
            if is_commit and self.cut_at_commit == "before":
                self.cut_at_commit, self.cuts = None, self.cuts + 1
                return  # the server never sees it: it rolls back when the socket closes
            cut_after = is_commit and self.cut_at_commit == "after"
            if cut_after:
                down.cancel()  # from here on the client hears nothing from the server
                with contextlib.suppress(asyncio.CancelledError):
                    await down
            up.write(kind + size + body)
            await up.drain()
            if cut_after:
                self.cut_at_commit, self.cuts = None, self.cuts + 1
                await asyncio.sleep(0.2)  # the server has it and commits; the client never hears
                return


@contextlib.asynccontextmanager
async def pg_proxy(host: str, port: int) -> AsyncIterator[PgProxy]:
    proxy = PgProxy(host, port)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.stop()
