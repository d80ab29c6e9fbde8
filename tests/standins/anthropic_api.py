"""The Anthropic stand-in for tests: the server itself is product code (bot/testing/, because the
benchmarks use it too); this module adds the pytest fixture and re-exports the rest."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio

from bot.testing.anthropic_api import *  # noqa: F401,F403
from bot.testing.anthropic_api import AnthropicStandIn




@pytest_asyncio.fixture
async def anthropic_standin() -> AsyncIterator[AnthropicStandIn]:
    """A started stand-in, stopped after the test. Import it into a test module to use it."""
    async with AnthropicStandIn() as server:
        yield server


def standin_settings(server: AnthropicStandIn, **overrides: Any) -> Any:
    """Settings pointing the bot at `server`, ignoring any .env file; overrides win."""
    from bot.config import Settings

    values: dict[str, Any] = {
        "anthropic_api_key": "test-key",
        "anthropic_base_url": server.url,
        "llm_max_retries": 0,
        "daily_token_budget": 0,
        # Neutral names: the SDK warns about some real ones (deprecations), which is noise here.
        "chat_model": "standin-chat",
        "extraction_model": "standin-extract",
        "judge_model": "standin-judge",
        "summary_model": "standin-summary",
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)
