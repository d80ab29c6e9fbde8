"""`python -m bot run` as a real subprocess, the way an operator starts it, talking to the
Telegram stand-in that runs in this test process (TELEGRAM_API_BASE_URL points at it).

The stand-in is served by this test's event loop, so the child is started and awaited with
asyncio's subprocess API, never with a blocking subprocess.run.
"""

from __future__ import annotations

import re

import asyncio
import os
import signal
import sqlite3
import sys
from contextlib import closing
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core import render
from bot.core.menu import COMMAND_MENU
from tests.standins.telegram_api import TelegramStandIn
from tests.support.telegram_helpers import ALICE, tg  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
STOP_TIMEOUT = 20.0  # seconds; a clean stop takes well under one


def env_for(tmp_path: Path, token: str, base_url: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TELEGRAM_", "DISCORD_", "ANTHROPIC_", "DATABASE_", "LOG_"))
    }
    env.update(
        {
            "TELEGRAM_BOT_TOKEN": token,
            "TELEGRAM_API_BASE_URL": base_url,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
            "DATA_DIR": str(tmp_path / "data"),
            "EMBEDDING_MODEL": "none",
            # the most talkative setting (today `run` still logs only warnings; see bot/__main__)
            "LOG_LEVEL": "DEBUG",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


class Child:
    """The running `python -m bot run` process and its output."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.stdout = b""
        self.stderr = b""

    async def finish(self, timeout: float = STOP_TIMEOUT) -> int:
        out, err = await asyncio.wait_for(self.proc.communicate(), timeout)
        self.stdout += out
        self.stderr += err
        assert self.proc.returncode is not None
        return self.proc.returncode

    @property
    def output(self) -> str:
        return (self.stdout + self.stderr).decode("utf-8", errors="replace")


@pytest.fixture
async def start_child(tmp_path: Path) -> AsyncIterator:
    children: list[Child] = []

    async def _start(token: str, base_url: str) -> Child:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "run",
            cwd=tmp_path,  # no .env from the developer's checkout
            env=env_for(tmp_path, token, base_url),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        child = Child(proc)
        children.append(child)
        return child

    yield _start
    for child in children:  # a test that failed half-way must not leave the bot running
        if child.proc.returncode is None:
            child.proc.kill()
            await child.proc.wait()


def assert_no_token(text: str, token: str) -> None:
    secret = token.split(":", 1)[1]
    assert secret not in text
    assert token not in text


async def test_run_answers_on_telegram_and_stops_on_sigterm(
    tg: TelegramStandIn, start_child, tmp_path: Path  # noqa: F811
) -> None:
    child = await start_child(tg.token, tg.base_url)
    # started: it has published its menu and is long-polling
    try:
        await tg.wait_for_calls("getUpdates", 1, timeout=60, ok_only=False)
    except AssertionError:
        if child.proc.returncode is not None:
            await child.finish()
            pytest.fail(f"the bot exited with {child.proc.returncode}: {child.output}")
        raise
    assert tg.default_commands == [{"command": n, "description": d} for n, d in COMMAND_MENU]

    tg.inject_text(ALICE, ALICE, "remember: I live in London")
    [saved] = await tg.wait_for_sent(ALICE, 1, timeout=30)
    assert saved.text == "Saved: “I live in London”"
    tg.inject_text(ALICE, ALICE, "/memories")
    listing = (await tg.wait_for_sent(ALICE, 2, timeout=30))[1]
    assert listing.text == "Your memories (1):\n— Current —\n1. I live in London"
    tg.inject_text(ALICE, ALICE, "/help")
    assert (await tg.wait_for_sent(ALICE, 3, timeout=30))[2].text == render.HELP

    child.proc.send_signal(signal.SIGTERM)
    loop = asyncio.get_running_loop()
    asked = loop.time()
    code = await child.finish()
    assert code == 0, child.output
    assert loop.time() - asked < 10  # not held up by the open long poll
    # it stopped cleanly: nothing went wrong on the way (a quiet run prints nothing at all)
    assert "Traceback" not in child.output and "error" not in child.output.lower()
    assert_no_token(child.output, tg.token)

    # what was acknowledged is on disk
    with closing(sqlite3.connect(tmp_path / "bot.db")) as db:
        assert db.execute("SELECT text, status FROM memory").fetchall() == [
            ("I live in London", "current")
        ]
        assert db.execute("SELECT platform, user_id FROM identity").fetchall() == [
            ("telegram", str(ALICE))
        ]
    # no log file or database ever got the token either
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert tg.token.split(":", 1)[1].encode() not in path.read_bytes(), path


async def test_run_with_a_rejected_token_exits_with_one_clear_line(
    tg: TelegramStandIn, start_child  # noqa: F811
) -> None:
    wrong = "7000000001:AAWrongTokenThatTheServerRejects_9q8"
    assert wrong != tg.token
    child = await start_child(wrong, tg.base_url)
    code = await child.finish(timeout=60)
    assert code != 0
    assert tg.calls == []  # the stand-in records only calls made with its own token
    assert child.stdout == b""
    lines = [ln for ln in child.stderr.decode().splitlines() if ln.strip()]
    # LOG_LEVEL=DEBUG (set so the token check also covers debug logging) adds log records;
    # what the operator reads is one error line
    log_line = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (DEBUG|INFO|WARNING) ")
    lines = [ln for ln in lines if not log_line.match(ln)]
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: Telegram could not start: ")
    assert "TELEGRAM_BOT_TOKEN" in lines[0] and "rejected it (Unauthorized)" in lines[0]
    assert_no_token(child.output, wrong)
