"""Chat tool schemas and the validation of what the model sends to them."""

from __future__ import annotations

import pytest

from bot.llm.client import LLM
from bot.llm.tools import (
    TOOLS,
    ManageMemoryInput,
    RemindersInput,
    ToolInputError,
    error_result,
    parse_tool_input,
)
from tests.standins.anthropic_api import (
    AnthropicStandIn,
    anthropic_standin,  # noqa: F401  (fixture)
    standin_settings,
    text_message,
    tool_use_message,
    validate_request,
)

pytestmark = pytest.mark.timeout(20)


def test_tools_are_in_messages_api_format() -> None:
    assert [t["name"] for t in TOOLS] == ["manage_memory", "reminders"]
    request = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}], "tools": TOOLS}
    assert validate_request(request) is None
    memory = TOOLS[0]["input_schema"]
    assert memory["properties"]["action"]["enum"] == ["add", "list", "search", "edit", "update", "mark_past", "delete"]
    assert memory["required"] == ["action"] and memory["additionalProperties"] is False
    assert TOOLS[1]["input_schema"]["properties"]["action"]["enum"] == ["set", "list", "cancel"]
    assert all(t["description"] for t in TOOLS)


@pytest.mark.parametrize(
    "name, raw, expected",
    [
        ("manage_memory", {"action": "add", "text": "  I live in Paris "}, ManageMemoryInput(action="add", text="I live in Paris")),
        ("manage_memory", {"action": "list"}, ManageMemoryInput(action="list")),
        ("manage_memory", {"action": "search", "query": "car"}, ManageMemoryInput(action="search", query="car")),
        ("manage_memory", {"action": "edit", "memory_id": 3, "text": "I live in Lyon"}, ManageMemoryInput(action="edit", memory_id=3, text="I live in Lyon")),
        ("manage_memory", {"action": "update", "memory_id": "3", "text": "I drive a Tesla"}, ManageMemoryInput(action="update", memory_id=3, text="I drive a Tesla")),
        ("manage_memory", {"action": "mark_past", "memory_id": 9}, ManageMemoryInput(action="mark_past", memory_id=9)),
        ("manage_memory", {"action": "delete", "memory_id": 9}, ManageMemoryInput(action="delete", memory_id=9)),
        ("reminders", {"action": "set", "text": "call mom", "when": "tomorrow at 9"}, RemindersInput(action="set", text="call mom", when="tomorrow at 9")),
        ("reminders", {"action": "list"}, RemindersInput(action="list")),
        ("reminders", {"action": "cancel", "reminder_id": 2}, RemindersInput(action="cancel", reminder_id=2)),
    ],
)
def test_valid_inputs(name: str, raw: dict, expected: object) -> None:
    assert parse_tool_input(name, raw) == expected


@pytest.mark.parametrize(
    "name, raw, words",
    [
        ("manage_memory", {"action": "add"}, ["add", "text"]),
        ("manage_memory", {"action": "add", "text": "   "}, ["add", "text"]),
        ("manage_memory", {"action": "edit", "text": "x"}, ["edit", "memory_id"]),
        ("manage_memory", {"action": "update", "memory_id": 2}, ["update", "text"]),
        ("manage_memory", {"action": "delete"}, ["memory_id"]),
        ("manage_memory", {"action": "search"}, ["query"]),
        ("manage_memory", {"action": "delete", "memory_id": "#4"}, ["memory_id", "integer"]),
        ("manage_memory", {"action": "delete", "memory_id": 0}, ["memory_id"]),
        ("manage_memory", {"action": "forget_all"}, ["action"]),
        ("manage_memory", {"action": "add", "text": "x", "owner_id": 5}, ["owner_id", "not permitted"]),
        ("manage_memory", {"action": "add", "text": "x" * 1001}, ["text"]),
        ("manage_memory", ["add", "x"], ["JSON object"]),
        ("reminders", {"action": "set", "text": "call mom"}, ["set", "when"]),
        ("reminders", {"action": "cancel"}, ["reminder_id"]),
        ("send_email", {"to": "x"}, ["Unknown tool", "manage_memory"]),
    ],
)
def test_invalid_inputs_explain_themselves(name: str, raw: object, words: list[str]) -> None:
    with pytest.raises(ToolInputError) as caught:
        parse_tool_input(name, raw)
    for word in words:
        assert word in str(caught.value)


async def test_an_invalid_call_round_trips_as_an_error_result(anthropic_standin: AnthropicStandIn) -> None:
    """The model's bad call goes back as is_error; the API accepts the follow-up and the model can retry."""
    anthropic_standin.enqueue(
        tool_use_message("manage_memory", {"action": "edit", "text": "I live in Lyon"}, id="toolu_a"),
        text_message("Which memory should I change?"),
    )
    llm = LLM(standin_settings(anthropic_standin))
    history: list[dict] = [{"role": "user", "content": "Change where I live to Lyon"}]
    first = await llm.create(owner_id=1, job="chat", system="s", messages=history, tools=TOOLS, max_tokens=200)
    call = next(b for b in first.content if b.type == "tool_use")
    with pytest.raises(ToolInputError) as caught:
        parse_tool_input(call.name, call.input)
    history += [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": [error_result(call.id, str(caught.value))]},
    ]
    second = await llm.create(owner_id=1, job="chat", system="s", messages=history, tools=TOOLS, max_tokens=200)
    assert second.content[0].text == "Which memory should I change?"
    sent = anthropic_standin.requests[1].json["messages"][-1]["content"][0]
    assert sent == {"type": "tool_result", "tool_use_id": "toolu_a", "content": str(caught.value), "is_error": True}
    assert anthropic_standin.rejections == []
