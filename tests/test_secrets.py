"""Secrets never appear in logs or replies (docs/ARCHITECTURE.md section 6).

The secrets: TELEGRAM_BOT_TOKEN, DISCORD_BOT_TOKEN, ANTHROPIC_API_KEY and a password in
DATABASE_URL, each set to a recognisable random value. The bot then does the things that tend to
print what they hold: the real Telegram and Discord adapters and the chat turn with the model
(against the stand-ins), conflict buttons, export, a model that fails and whose error message
echoes the key back (as a misbehaving proxy would), and command-line failures. Every log record
(root at DEBUG, in process, with tracebacks) and every reply is searched for every secret; so is
the stderr of a `python -m bot chat` subprocess run with LOG_LEVEL=DEBUG.
"""

from __future__ import annotations

import json
import logging
import secrets
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from adapters.discord import DiscordAdapter
from adapters.telegram import TelegramAdapter
from bot.app import build_app
from tests.conftest import make_settings
from tests.support.discord_helpers import standin_server
from tests.standins.anthropic_api import AnthropicStandIn, text_message
from tests.standins.telegram_api import TelegramStandIn
from tests.support.processes import bot_database, bot_env  # noqa: F401  (fixture)

pytestmark = pytest.mark.filterwarnings("ignore:.*attribute `retry_after`:DeprecationWarning")

ALICE = 1001


def make_secrets() -> dict[str, str]:
    tag = secrets.token_hex(6)
    return {
        "telegram": f"7000001:TgSecret{tag}AAAA",
        "discord": f"DcSecret{tag}.XyZ.abc",
        "anthropic": f"sk-ant-api03-AkSecret{tag}",
        "database": f"PgSecret{tag}",
    }


def with_password(url: str, password: str) -> str:
    """The same database with a password in the URL (the servers here trust local connections,
    so the password is carried everywhere and checked nowhere: exactly what we want to watch)."""
    if not url.startswith("postgresql"):
        return url
    return make_url(url).set(password=password).render_as_string(hide_password=False)


def leaks(text: str, values: dict[str, str]) -> list[str]:
    found = []
    for name, value in values.items():
        core = value.split(":", 1)[-1]  # the Telegram token's secret half alone is a leak too
        if value in text or core in text:
            found.append(name)
    return found


@pytest.fixture
async def anthropic() -> AsyncIterator[AnthropicStandIn]:
    async with AnthropicStandIn() as server:
        yield server


async def test_in_process_logs_and_replies_hold_no_secret(
    caplog: pytest.LogCaptureFixture, db_backend: tuple[str, str | None], anthropic: AnthropicStandIn, tmp_path: Path
) -> None:
    values = make_secrets()
    url, schema = db_backend
    if schema:
        from tests.support.processes import pg_schema_url

        url = pg_schema_url(schema)
    caplog.set_level(logging.DEBUG)
    replies: list[str] = []
    tg = TelegramStandIn(token=values["telegram"])
    await tg.start()
    tg.add_user(ALICE, "Alice")
    try:
        async with standin_server(token=values["discord"]) as dc:
            dave = dc.add_user("dave", global_name="Dave")
            settings = make_settings(
                database_url=with_password(url, values["database"]),
                telegram_bot_token=values["telegram"],
                telegram_api_base_url=tg.base_url,
                discord_bot_token=values["discord"],
                anthropic_api_key=values["anthropic"],
                anthropic_base_url=anthropic.url,
                llm_max_retries=0,
                log_level="DEBUG",
            )
            app = build_app(settings, embedder=None)
            telegram = TelegramAdapter(app.core, settings)
            discord_adapter = DiscordAdapter(app.core, settings)
            discord_adapter.guild_ready_timeout = 0.05
            await telegram.start()
            await discord_adapter.start()
            await app.start_background()
            try:
                async def say(text: str, expect: int = 1) -> None:
                    before = len(tg.sent(ALICE))
                    tg.inject_text(ALICE, ALICE, text)
                    await tg.wait_for_sent(ALICE, before + expect, timeout=30)

                await say("remember: I live in London")
                await say("remember: I moved to Paris")
                question = tg.sent(ALICE)[-1]
                qid = tg.press_button(ALICE, ALICE, question.message_id, label="Mark older as past (recommended)")
                await tg.wait_for_answer(qid)
                await say("/memories")
                anthropic.enqueue(text_message("You live in Paris now."))
                await say("where do I live?")
                anthropic.fail_next(401, message=f"invalid x-api-key: {values['anthropic']}")
                await say("and where did I live before?")
                anthropic.fail_next(500, n=3, message=f"upstream rejected key={values['anthropic']} token={values['telegram']}")
                await say("tell me more")
                await say("/export")
                await say("/settings")
                await app.core.drain(timeout=10)

                dm = dc.dm_channel(dave).id
                await dc.send_dm(dave, "remember: I keep bees")
                await dc.wait_for_bot_message(dm, count=1, ephemeral=False)
                await dc.send_dm(dave, "/memories")
                await dc.wait_for_bot_message(dm, count=2, ephemeral=False)
                replies += [m.content or "" for m in dc.bot_messages(dm, ephemeral=False)]
            finally:
                await discord_adapter.stop()
                await telegram.stop()
                await app.close()
    finally:
        await tg.stop()
    for m in tg.sent(ALICE):
        replies += [m.text or "", m.caption or "", *(h or "" for h in m.history)]
        if m.document is not None:
            replies.append(m.document.data.decode("utf-8", "replace"))
    assert any("Paris" in r for r in replies), "the flows ran"
    assert len(anthropic.message_requests) >= 3, "the model was called, failures included"

    logged = caplog.text + "\n".join(
        str(r.__dict__) for r in caplog.records  # arguments and extras too, not just the message
    )
    assert len(caplog.records) > 20, "logging at DEBUG was on"
    assert leaks(logged, values) == [], f"secrets in the logs: {leaks(logged, values)}"
    assert leaks("\n".join(replies), values) == [], "secrets in a reply"
    if not schema:  # nor in the database file
        data = Path(url.split(":///", 1)[1]).read_bytes()
        assert leaks(data.decode("latin-1"), values) == []


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_terminal_chat_at_debug_prints_no_secret(tmp_path: Path, bot_database: Any) -> None:
    """The terminal chat with every secret set, LOG_LEVEL=DEBUG, and a model that cannot be
    reached (so the failure path logs)."""
    bot_url, _, _ = bot_database
    values = make_secrets()
    env = bot_env(
        tmp_path,
        with_password(bot_url, values["database"]),
        TELEGRAM_BOT_TOKEN=values["telegram"],
        DISCORD_BOT_TOKEN=values["discord"],
        ANTHROPIC_API_KEY=values["anthropic"],
        ANTHROPIC_BASE_URL=f"http://127.0.0.1:{closed_port()}",
        LLM_MAX_RETRIES="0",
        LOG_LEVEL="DEBUG",
    )
    lines = ["remember: I live in London", "remember: I moved to Paris", "2", "where do I live?", "/export",
             "/settings", "/nope", "/import missing.json"]
    out = subprocess.run(
        [sys.executable, "-m", "bot", "chat"], input="".join(f"{ln}\n" for ln in lines), capture_output=True,
        text=True, cwd=tmp_path, env=env, timeout=180,
    )
    assert out.returncode == 0, out.stderr
    assert "Saved" in out.stdout
    assert leaks(out.stdout + out.stderr, values) == [], out.stderr[-3000:]
    written = [p for p in (tmp_path / "data").rglob("*") if p.is_file() and not p.name.startswith("bot.db")]
    assert any(p.name == "chat.log" for p in written) and any(p.name.startswith("memories-") for p in written)
    for path in written:  # the terminal chat's log (DEBUG here) and the export
        assert leaks(path.read_text(), values) == [], path


@pytest.mark.parametrize(
    "args,password_in_url",
    [
        (["export", "--owner", "console:ghost"], True),  # "nothing is held about ... in <database>"
        (["export", "--owner", "nobody"], True),
        (["import", "missing.json"], True),
        (["chat"], True),  # the database cannot be reached
    ],
)
def test_command_line_failures_print_no_secret(tmp_path: Path, bot_database: Any, args: list[str], password_in_url: bool) -> None:
    bot_url, _, _ = bot_database
    values = make_secrets()
    url = bot_url
    if args == ["chat"]:
        url = f"postgresql+psycopg://postgres@127.0.0.1:{closed_port()}/test"
    env = bot_env(
        tmp_path,
        with_password(url, values["database"]) if password_in_url else url,
        TELEGRAM_BOT_TOKEN=values["telegram"],
        DISCORD_BOT_TOKEN=values["discord"],
        ANTHROPIC_API_KEY=values["anthropic"],
        LOG_LEVEL="DEBUG",
    )
    out = subprocess.run([sys.executable, "-m", "bot", *args], input="", capture_output=True, text=True,
                         cwd=tmp_path, env=env, timeout=120)
    if args[-1] == "console:ghost":  # not a failure: an empty backup, with a note naming the database
        assert out.returncode == 0 and json.loads(out.stdout)["memories"] == [], out.stderr
        assert "Nothing is held about console:ghost in " in out.stderr
    else:
        assert out.returncode != 0
        assert out.stderr.strip().splitlines()[-1].startswith("error: "), out.stderr  # debug lines may come first
    assert leaks(out.stdout + out.stderr, values) == [], out.stderr
