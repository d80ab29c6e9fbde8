"""`python -m bot chat` as a real subprocess: with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL pointing
at the stand-in (a server speaking the Messages API), the chat requests carry the remembered facts
in the system prompt; without a key it still answers from memory."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests.standins.anthropic_api import AnthropicStandIn, anthropic_standin  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[3]


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_", "ANTHROPIC_"))}
    env.update(
        {
            "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
            "DATA_DIR": str(tmp_path / "data"),
            "EMBEDDING_MODEL": "none",
            "CONSOLE_USER": "tester",
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(ROOT),
            "LLM_MAX_RETRIES": "0",
        }
    )
    env.update(extra)
    return env


async def chat(tmp_path: Path, lines: list[str], **extra: str) -> tuple[int, str, str]:
    """Run the terminal chat without blocking the loop the stand-in serves on."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "chat",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=tmp_path,
        env=env_for(tmp_path, **extra),
    )
    out, err = await asyncio.wait_for(proc.communicate("".join(l + "\n" for l in lines).encode()), timeout=100)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_chat_with_a_key_sends_remembered_facts_in_the_system_prompt(tmp_path, anthropic_standin: AnthropicStandIn):
    code, out, err = await chat(
        tmp_path,
        ["remember: I live in Lisbon", "remember: my dog is called Rex", "where do I live, and what is my dog called?"],
        ANTHROPIC_API_KEY="sk-test-not-real",
        ANTHROPIC_BASE_URL=anthropic_standin.url,
    )
    assert code == 0, err
    chats = [r.json for r in anthropic_standin.message_requests if "tools" in r.json and "tool_choice" not in r.json]
    assert len(chats) == 1
    system = chats[0]["system"]
    assert "I live in Lisbon" in system and "my dog is called Rex" in system
    assert chats[0]["messages"][-1] == {"role": "user", "content": "where do I live, and what is my dog called?"}
    assert "(stand-in reply) where do I live, and what is my dog called?" in out
    assert all(r.had_credentials for r in anthropic_standin.message_requests)
    assert "sk-test-not-real" not in out + err
    assert "Traceback" not in out + err


async def test_chat_without_a_key_answers_from_memory(tmp_path):
    code, out, err = await chat(tmp_path, ["remember: I live in Lisbon", "do I live in Lisbon?"])
    assert code == 0, err
    assert "Here is what I remember about that:" in out and "• I live in Lisbon" in out
    assert "No language model is connected" in out
    assert "Traceback" not in out + err


async def test_chat_with_the_model_down_answers_from_memory(tmp_path, anthropic_standin: AnthropicStandIn):
    anthropic_standin.fail_next(529, n=5)
    code, out, err = await chat(
        tmp_path,
        ["remember: I live in Lisbon", "do I live in Lisbon?"],
        ANTHROPIC_API_KEY="sk-test-not-real",
        ANTHROPIC_BASE_URL=anthropic_standin.url,
    )
    assert code == 0, err
    assert "Here is what I remember about that:" in out and "• I live in Lisbon" in out
    assert "Traceback" not in out + err


async def test_terminal_keep_both_then_a_question_about_work(tmp_path):
    """The whole story in the terminal, without a model or vectors: two jobs, "Keep both" (typed
    as its number), then questions that name the topic and neither value; and a line of NUL."""
    code, out, err = await chat(
        tmp_path,
        ["remember: I work at Google", "remember: I'm a nurse now", "1", "what do I do for work?", "\x00",
         "what do I do for a living?"],
    )
    assert code == 0, err
    assert "[1] Keep both" in out
    answers = out.split("Here is what I remember about that:\n")[1:]
    assert len(answers) == 2, out
    for answer in answers:
        lines = [line for line in answer.splitlines() if line.startswith("• ")]
        assert sorted(lines) == ["• I work at Google", "• I'm a nurse now"], out
    assert "I don't have anything saved about that yet." not in out
    assert "I couldn't read that message: it holds only invisible or control characters" in out
    assert "Traceback" not in out + err
