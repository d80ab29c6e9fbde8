"""Episode summaries and procedure detection: validated, or None."""

from __future__ import annotations

import pytest

from bot.llm.client import LLM
from bot.llm.summarise import MAX_TITLE_CHARS, EpisodeSummary, ProcedureDraft, detect_procedure, summarise_episode
from tests.standins.anthropic_api import (
    AnthropicStandIn,
    anthropic_standin,  # noqa: F401  (fixture)
    standin_settings,
    text_message,
    tool_use_message,
)

pytestmark = pytest.mark.timeout(20)

TALK = [
    ("user", "Let's plan the move to Porto. I decided to rent first."),
    ("assistant", "Good idea. Which area?"),
    ("user", "Near Bonfim, and I'll sell the car."),
]


def llm(server: AnthropicStandIn) -> LLM:
    return LLM(standin_settings(server))


async def test_episode_summary(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.enqueue(tool_use_message("save_episode", {
        "title": "Planning the move to Porto",
        "summary": "Discussed moving to Porto; decided to rent near Bonfim first and to sell the car.",
        "decisions": ["rent first", "sell the car"],
        "changes": ["moving to Porto"],
    }))
    found = await summarise_episode(llm(anthropic_standin), 1, TALK)
    assert isinstance(found, EpisodeSummary)
    assert found.title == "Planning the move to Porto" and found.decisions == ["rent first", "sell the car"]
    body = anthropic_standin.requests[0].json
    assert body["model"] == "standin-summary"
    assert body["messages"][0]["content"].count("<message role=") == 3


async def test_a_long_title_is_trimmed_not_fatal(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.enqueue(tool_use_message("save_episode", {"title": "word " * 50, "summary": "Talked."}))
    found = await summarise_episode(llm(anthropic_standin), 1, TALK)
    assert found is not None and len(found.title) <= MAX_TITLE_CHARS and found.title.endswith("…")


@pytest.mark.parametrize(
    "reply",
    [
        tool_use_message("save_episode", {"title": "Move"}),  # no summary
        tool_use_message("save_episode", {"title": "", "summary": "x"}),
        tool_use_message("save_episode", {"title": "Move", "summary": "   "}),
        text_message("We talked about Porto."),
    ],
    ids=["partial", "empty-title", "blank-summary", "prose"],
)
async def test_bad_summaries_are_none(anthropic_standin: AnthropicStandIn, reply: dict) -> None:
    anthropic_standin.enqueue(reply)
    assert await summarise_episode(llm(anthropic_standin), 1, TALK) is None


async def test_nothing_said_needs_no_summary(anthropic_standin: AnthropicStandIn) -> None:
    assert await summarise_episode(llm(anthropic_standin), 1, [("assistant", "Hello?")]) is None
    assert anthropic_standin.requests == []


REPORTS = [
    ("user", "Weekly report: first the numbers, then risks, then next steps."),
    ("assistant", "Done."),
    ("user", "Again for this week: numbers first, then risks, then next steps, as always."),
]


async def test_procedure_found(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.enqueue(tool_use_message("save_procedure", {
        "found": True, "trigger": "when I ask for the weekly report",
        "steps": ["numbers", "  risks ", "next steps", " "],
    }))
    found = await detect_procedure(llm(anthropic_standin), 1, REPORTS)
    assert found == ProcedureDraft(trigger="when I ask for the weekly report", steps=["numbers", "risks", "next steps"])


@pytest.mark.parametrize(
    "reply",
    [
        tool_use_message("save_procedure", {"found": False}),
        tool_use_message("save_procedure", {"found": True, "trigger": "weekly report", "steps": []}),
        tool_use_message("save_procedure", {"found": True, "trigger": " ", "steps": ["a"]}),
        tool_use_message("save_procedure", {"found": "maybe"}),
        text_message("Yes: numbers, risks, next steps."),
    ],
    ids=["not-found", "no-steps", "no-trigger", "bad-type", "prose"],
)
async def test_no_procedure(anthropic_standin: AnthropicStandIn, reply: dict) -> None:
    anthropic_standin.enqueue(reply)
    assert await detect_procedure(llm(anthropic_standin), 1, REPORTS) is None


async def test_one_instruction_is_not_a_procedure(anthropic_standin: AnthropicStandIn) -> None:
    assert await detect_procedure(llm(anthropic_standin), 1, REPORTS[:2]) is None
    assert anthropic_standin.requests == []
