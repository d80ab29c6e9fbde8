"""The web server as the process runs it: `python -m bot web` alone (upkeep jobs, no chat, no
reminder delivery), `python -m bot run` with Telegram's webhook and the API on one port, clear
one-line failures (a port in use, a retired setting), graceful stops. Real processes, real
sockets; the Telegram stand-in runs in this test's event loop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from bot.app import build_app
from bot.config import ConfigError, load_settings
from tests.conftest import make_settings
from tests.standins.telegram_api import TelegramStandIn
from tests.support.processes import bot_env
from tests.support.telegram_helpers import ALICE, tg  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")]

LISTENING = re.compile(rb"web server listening on (http://127\.0\.0\.1:(\d+))")
SECRET = re.compile(r"\b(mem_[A-Za-z0-9_-]{43})\b")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Child:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.err = b""

    async def wait_for(self, pattern: re.Pattern[bytes], timeout: float = 60) -> re.Match[bytes]:
        assert self.proc.stderr is not None
        async with asyncio.timeout(timeout):
            while True:
                found = pattern.search(self.err)
                if found:
                    return found
                line = await self.proc.stderr.readline()
                if not line:
                    raise AssertionError(f"ended without {pattern.pattern!r}: {self.err.decode()[-3000:]}")
                self.err += line

    async def stop(self, timeout: float = 20) -> int:
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.stderr is not None
        rest = await asyncio.wait_for(self.proc.stderr.read(), timeout)
        self.err += rest
        return await asyncio.wait_for(self.proc.wait(), timeout)


@pytest.fixture
async def spawn(tmp_path: Path) -> AsyncIterator:
    children: list[Child] = []

    async def _spawn(*args: str, **env: str) -> Child:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", *args, cwd=tmp_path, env=bot_env(tmp_path, f"sqlite:///{tmp_path / 'bot.db'}", **env),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        child = Child(proc)
        children.append(child)
        return child

    yield _spawn
    for child in children:
        if child.proc.returncode is None:
            child.proc.kill()
            await child.proc.wait()


async def cli(tmp_path: Path, *args: str) -> str:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, cwd=tmp_path, env=bot_env(tmp_path, f"sqlite:///{tmp_path / 'bot.db'}"),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()
    return out.decode()


async def test_bot_web_serves_alone_and_stops_on_sigterm(spawn, tmp_path: Path) -> None:
    child = await spawn("web", WEB_PORT="0", LOG_LEVEL="INFO")
    url = (await child.wait_for(LISTENING)).group(1).decode()
    secret = (await cli(tmp_path, "token", "create", "--owner", "telegram:8001")).strip().splitlines()[-1]
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {secret}"}) as api:
        assert (await api.get("/api/health")).json() == {"ok": True}
        assert (await api.post("/api/memories", json={"text": "I grow tomatoes"})).status_code == 201
        assert (await api.post("/api/reminders", json={"when": "in 1 minute", "text": "water them"})).status_code == 201
        assert [m["text"] for m in (await api.get("/api/memories")).json()["memories"]] == ["I grow tomatoes"]
        docs = await api.get("/openapi.json")
        assert docs.status_code == 200 and "/api/recall" in docs.json()["paths"]
    assert await child.stop() == 0
    log = child.err.decode()
    assert "web server stopped" in log and "Traceback" not in log
    assert secret not in log and "I grow tomatoes" not in log and "water them" not in log


def test_the_web_role_runs_upkeep_but_no_delivery_and_no_chat_jobs() -> None:
    web = build_app(make_settings(), embedder=None, with_model=False, role="web")
    chat = build_app(make_settings(), embedder=None, with_model=False)
    try:
        assert web.timers.interval_jobs == {"purge", "curator", "curator_by_count"}
        assert {"purge", "curator", "reminder_sweep", "recheck"} <= chat.timers.interval_jobs
    finally:
        web.db.dispose()
        chat.db.dispose()


async def test_a_port_in_use_is_one_clear_line(spawn) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        child = await spawn("web", WEB_PORT=str(port))
        assert await asyncio.wait_for(child.proc.wait(), 60) == 1
        assert child.proc.stderr is not None
        lines = (await child.proc.stderr.read()).decode().strip().splitlines()
    assert lines[-1].startswith(f"error: cannot listen on 127.0.0.1:{port}: "), lines


@pytest.mark.parametrize("where", ["environment", ".env file"])
@pytest.mark.parametrize("name, replacement", [("TELEGRAM_WEBHOOK_PORT", "WEB_PORT"), ("TELEGRAM_WEBHOOK_LISTEN", "WEB_HOST")])
async def test_a_retired_setting_stops_start_up_naming_its_replacement(spawn, tmp_path: Path, where: str, name: str,
                                                                       replacement: str) -> None:
    extra = {name: "8443"} if where == "environment" else {}
    if where == ".env file":
        (tmp_path / ".env").write_text(f"{name}=0.0.0.0\n")
    child = await spawn("run", **extra)
    assert await asyncio.wait_for(child.proc.wait(), 60) == 2
    assert child.proc.stderr is not None
    err = (await child.proc.stderr.read()).decode().strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: Setting {name} no longer applies"), err
    assert f"set {replacement} instead" in err[0]


def test_retired_settings_in_code_too() -> None:
    with pytest.raises(ConfigError, match="TELEGRAM_WEBHOOK_PORT no longer applies.*WEB_PORT"):
        load_settings(_env_file=None, telegram_webhook_port=8443)


async def test_run_serves_telegrams_webhook_and_the_api_on_one_port(tg: TelegramStandIn, spawn, tmp_path: Path) -> None:  # noqa: F811
    port = free_port()
    hook = f"http://127.0.0.1:{port}/telegram/hook-7f3a"
    child = await spawn(
        "run", TELEGRAM_BOT_TOKEN=tg.token, TELEGRAM_API_BASE_URL=tg.base_url, TELEGRAM_WEBHOOK_URL=hook,
        TELEGRAM_WEBHOOK_SECRET="s3cret-Hook", WEB_PORT=str(port), LOG_LEVEL="INFO",
    )
    await child.wait_for(LISTENING)
    await child.wait_for(re.compile(rb"Telegram adapter running as @\w+ \(webhook\)"))
    tg.inject_text(ALICE, ALICE, "remember: I live in Porto")
    sent = await tg.wait_for_sent(ALICE, 1, timeout=30)
    assert sent[0].text.startswith("Saved"), sent[0].text
    assert tg.calls_to("getUpdates") == []  # webhook, not polling

    tg.inject_text(ALICE, ALICE, "/token new script")
    sent = await tg.wait_for_sent(ALICE, 2, timeout=30)
    secret = SECRET.search(sent[1].text).group(1)  # type: ignore[union-attr]
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {secret}"}) as api:
        assert [m["text"] for m in (await api.get("/api/memories")).json()["memories"]] == ["I live in Porto"]
        forged = await api.post("/telegram/hook-7f3a", json={"update_id": 9, "message": {"text": "x"}})
        assert forged.status_code == 403
    assert await child.stop() == 0
    log = child.err.decode()
    assert secret not in log and tg.token.split(":", 1)[1] not in log and "Traceback" not in log


async def test_run_with_web_port_and_no_platform_is_the_terminal_chat_and_the_server(tmp_path: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=tmp_path,
        env=bot_env(tmp_path, f"sqlite:///{tmp_path / 'bot.db'}", WEB_PORT="0"),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        # the terminal chat keeps the screen (warnings only), so the port is read from the socket table
        port = None
        for _ in range(300):
            await asyncio.sleep(0.1)
            port = _listening_port(proc.pid)
            if port:
                break
        assert port, "no listening socket"
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            assert (await http.get("/api/health")).status_code == 200
        assert proc.stdin is not None
        proc.stdin.write(b"remember: I like figs\n")
        proc.stdin.close()  # end of input: the chat finishes and the process stops, server included
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0, err.decode()
        assert "Saved" in out.decode()
        assert _listening_port(proc.pid) is None
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


def _listening_port(pid: int) -> int | None:
    """The TCP port a process listens on, from /proc (Linux)."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        parts = line.split()
        if parts[3] == "0A" and parts[9] in inodes:  # LISTEN
            return int(parts[1].split(":")[1], 16)
    return None


async def test_the_server_stops_promptly_with_clients_connected(settings, database) -> None:
    """Open MCP sessions and keep-alive API connections do not hold the process up at stop."""
    import time

    from tests.support.web_kit import start_kit, stop_kit

    kit = await start_kit(settings, database)
    try:
        alice = await kit.person("8101")
        api = kit.http(alice)
        assert (await api.get("/api/memories")).status_code == 200  # a keep-alive connection stays open
        opened = asyncio.Event()

        async def hold() -> None:
            async with kit.mcp(alice) as client:
                await client.list_tools()
                opened.set()
                await asyncio.sleep(60)

        holder = asyncio.create_task(hold())
        await asyncio.wait_for(opened.wait(), 30)
        started = time.monotonic()
        await kit.server.stop()
        assert time.monotonic() - started < 8
        with pytest.raises(httpx.TransportError):
            await api.get("/api/memories")
        holder.cancel()
        with contextlib.suppress(BaseException):
            await holder
    finally:
        await stop_kit(kit)
