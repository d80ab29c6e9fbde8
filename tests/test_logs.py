"""Logs hold no memory text at any level (finding 10 of issue 17).

With LOG_LEVEL=DEBUG the anthropic SDK logged whole requests (the memory context in the prompt)
and discord.py logged the bodies it sent and the gateway events it received (what people
typed). The real Discord adapter and the real anthropic SDK run here against their stand-ins,
with logging set up the way `python -m bot` does it at DEBUG; every record, its arguments
included, is searched for the memory's text.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from adapters.discord import DiscordAdapter
from bot.__main__ import LIBRARY_LOGGERS, WARNING_LOGGERS, quiet_libraries
from bot.app import build_app
from tests.conftest import make_settings
from tests.standins.anthropic_api import AnthropicStandIn, text_message
from tests.support.discord_helpers import standin_server


@pytest.fixture
def fresh_library_loggers() -> Iterator[None]:
    """The library loggers as a fresh process has them; restored afterwards."""
    names = LIBRARY_LOGGERS + WARNING_LOGGERS + ("discord.http", "anthropic._base_client")
    saved = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.NOTSET)
    yield
    for n, level in saved.items():
        logging.getLogger(n).setLevel(level)


@pytest.fixture
async def anthropic() -> AsyncIterator[AnthropicStandIn]:
    async with AnthropicStandIn() as server:
        yield server


async def test_debug_logs_hold_no_memory_text(
    caplog: pytest.LogCaptureFixture, fresh_library_loggers: None, anthropic: AnthropicStandIn, tmp_path: Path
) -> None:
    marker = f"beehive{secrets.token_hex(4)}"
    caplog.set_level(logging.DEBUG)  # the root at DEBUG, as LOG_LEVEL=DEBUG sets it
    quiet_libraries(logging.DEBUG)  # what bot.__main__ does after that
    async with standin_server() as dc:
        dave = dc.add_user("dave", global_name="Dave")
        settings = make_settings(
            database_url=f"sqlite:///{tmp_path / 'bot.db'}", discord_bot_token=dc.token,
            anthropic_api_key="sk-ant-test", anthropic_base_url=anthropic.url, llm_max_retries=0,
            log_level="DEBUG",
        )
        app = build_app(settings, embedder=None)
        adapter = DiscordAdapter(app.core, settings)
        adapter.guild_ready_timeout = 0.05
        await adapter.start()
        try:
            dm = dc.dm_channel(dave).id
            await dc.send_dm(dave, f"remember: I keep my {marker} behind the shed")
            await dc.wait_for_bot_message(dm, count=1, ephemeral=False)
            anthropic.enqueue(text_message(f"Behind the shed, next to the {marker}."))
            await dc.send_dm(dave, "where is the hive?")
            await dc.wait_for_bot_message(dm, count=2, ephemeral=False)
            await app.core.drain(timeout=10)
        finally:
            await adapter.stop()
            await app.close()
    sent = [m.content or "" for m in dc.bot_messages(dm, ephemeral=False)]
    assert any(marker in s for s in sent), "the flows ran and the text went over the wire"
    assert any(marker in str(r) for r in anthropic.message_requests), "the model saw the memory"
    assert len(caplog.records) > 10, "logging at DEBUG was on"
    logged = caplog.text + "\n".join(str(r.__dict__) for r in caplog.records)
    leaking = sorted({r.name for r in caplog.records if marker in str(r.__dict__) or marker in r.getMessage()})
    assert marker not in logged, f"memory text in the logs of {leaking}"
