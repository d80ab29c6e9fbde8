"""Settings: every one documented in .env.example, bad values stop start-up naming the setting."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.config import ConfigError, Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_listed_with_a_comment_in_env_example():
    text = (ROOT / ".env.example").read_text()
    names = set(re.findall(r"^([A-Z][A-Z0-9_]*)=", text, re.M))
    assert names == {n.upper() for n in Settings.model_fields}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^[A-Z][A-Z0-9_]*=", line):
            j = i - 1
            while j >= 0 and lines[j].strip() and not lines[j].startswith("#"):
                j -= 1  # settings grouped under one comment share it
            assert j >= 0 and lines[j].startswith("#"), f"{line} has no comment above it"


@pytest.mark.parametrize(
    "name,value",
    [
        ("default_timezone", "Nowhere/Special"),
        ("web_port", "99999"),
        ("web_public_url", "memory.example.com"),
        ("database_url", "mysql://x"),
        ("llm_timeout_seconds", "-1"),
        ("log_level", "loud"),
        ("rate_limit_per_minute", "many"),
    ],
)
def test_invalid_value_names_the_setting(name, value):
    with pytest.raises(ConfigError, match=f"Invalid setting {name.upper()}"):
        load_settings(_env_file=None, **{name: value})


def test_tokens_are_opaque():
    s = load_settings(_env_file=None, telegram_bot_token="not:a real token!", anthropic_api_key="x")
    assert s.telegram_bot_token == "not:a real token!"


def test_allowed_users_parsing():
    s = load_settings(_env_file=None, allowed_users="telegram:123, discord:456 ,bad")
    assert s.allowed_identities == {("telegram", "123"), ("discord", "456")}
