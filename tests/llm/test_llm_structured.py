"""Structured calls: a forced tool, validated; every doubtful answer is None."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from bot.llm.client import LLM
from bot.llm.structured import call_structured, tool_input_schema
from tests.standins.anthropic_api import (
    AnthropicStandIn,
    anthropic_standin,  # noqa: F401  (fixture)
    json_message,
    standin_settings,
    text_message,
    tool_use_message,
    violate_forced_tool,
)

pytestmark = pytest.mark.timeout(20)


class Pet(BaseModel):
    kind: str
    age: int = Field(ge=0)


class Household(BaseModel):
    title: str  # a property called "title" must survive schema cleaning
    people: int
    pets: list[Pet]


GOOD = {"title": "Home", "people": 3, "pets": [{"kind": "cat", "age": 4}]}


async def call(server: AnthropicStandIn, **kw: object) -> Household | None:
    llm = LLM(standin_settings(server))
    return await call_structured(
        llm, owner_id=1, job="extract", system="Describe the household.",
        messages=[{"role": "user", "content": "We are three, with a cat of four."}],
        name="save_household", description="Save it.", schema=Household, timeout=5, **kw,  # type: ignore[arg-type]
    )


def test_tool_schema_is_flat_and_keeps_a_title_property() -> None:
    schema = tool_input_schema(Household)
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text
    assert set(schema["properties"]) == {"title", "people", "pets"}
    assert schema["required"] == ["title", "people", "pets"]
    assert schema["properties"]["pets"]["items"]["properties"]["age"] == {"minimum": 0, "type": "integer"}
    assert "title" not in schema and "title" not in schema["properties"]["people"]


async def test_valid_tool_input_is_returned_as_the_model(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.enqueue(tool_use_message("save_household", GOOD))
    result = await call(anthropic_standin)
    assert result == Household.model_validate(GOOD)
    body = anthropic_standin.requests[0].json
    assert body["tool_choice"] == {"type": "tool", "name": "save_household"}
    assert body["tools"][0]["input_schema"] == tool_input_schema(Household)


@pytest.mark.parametrize(
    "reply",
    [
        tool_use_message("save_household", {"title": "Home", "people": 3}),  # partial: no pets
        tool_use_message("save_household", {**GOOD, "people": "three"}),  # wrong type
        tool_use_message("save_household", {**GOOD, "pets": [{"kind": "cat", "age": -1}]}),  # out of range
        tool_use_message("save_household", {}),  # empty object
        tool_use_message("save_household", "not an object"),
        tool_use_message("other_tool", GOOD),  # some other tool
        text_message(json.dumps(GOOD)),  # free text, even valid JSON, is never parsed
        json_message(GOOD),
        tool_use_message("save_household", GOOD, stop_reason="max_tokens"),  # cut off: not trusted
    ],
    ids=["partial", "wrong-type", "out-of-range", "empty", "non-object", "other-tool", "free-text",
         "json-text", "max-tokens"],
)
async def test_doubtful_answers_are_none(anthropic_standin: AnthropicStandIn, reply: dict) -> None:
    anthropic_standin.enqueue(reply)
    assert await call(anthropic_standin) is None


async def test_schema_violating_input_is_none(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.set_responder(violate_forced_tool)
    assert await call(anthropic_standin) is None


async def test_model_unavailable_is_none(anthropic_standin: AnthropicStandIn, caplog: pytest.LogCaptureFixture) -> None:
    anthropic_standin.fail_next(529, 1)
    caplog.set_level("INFO", logger="bot.llm.structured")
    assert await call(anthropic_standin) is None
    assert "overloaded" in caplog.text


async def test_a_text_preamble_before_the_tool_call_is_fine(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.enqueue(tool_use_message("save_household", GOOD, text="Here you go."))
    assert await call(anthropic_standin) == Household.model_validate(GOOD)
