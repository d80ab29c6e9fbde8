"""The Anthropic stand-in, exercised through the real SDK (AsyncAnthropic over HTTP).

Why test the stand-in: every LLM test trusts it. If it answered in a shape the real API never
uses, or failed to trigger the SDK's retry logic, the tests built on it would prove nothing.
"""

from __future__ import annotations

import json
import time

import aiohttp
import anthropic
import pytest
from pydantic import BaseModel

from tests.standins.anthropic_api import (
    AnthropicStandIn,
    anthropic_standin,  # noqa: F401  (fixture)
    empty_object,
    json_message,
    malformed_json,
    sse_events,
    text_message,
    tool_use_message,
    validate_request,
    violate_forced_tool,
)

pytestmark = pytest.mark.timeout(20)

USER = [{"role": "user", "content": "hello"}]
TOOL = {"name": "lookup", "description": "Look up", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}


def sdk(server: AnthropicStandIn, **kw: object) -> anthropic.AsyncAnthropic:
    kw.setdefault("max_retries", 0)
    return anthropic.AsyncAnthropic(base_url=server.url, api_key="secret-test-key", **kw)  # type: ignore[arg-type]


async def test_text_reply_and_recorded_request(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.enqueue(text_message("Hi there"))
    client = sdk(anthropic_standin)
    msg = await client.messages.create(model="m-1", max_tokens=50, system="be kind", messages=USER)
    assert msg.content[0].type == "text" and msg.content[0].text == "Hi there"
    assert msg.model == "m-1" and msg.stop_reason == "end_turn"
    assert msg.usage.input_tokens > 0 and msg.usage.output_tokens > 0
    [req] = anthropic_standin.requests
    assert req.path == "/v1/messages" and req.json["system"] == "be kind"
    assert req.had_credentials
    assert "x-api-key" not in req.headers and "secret-test-key" not in json.dumps(req.headers)
    assert "anthropic-version" in req.headers


async def test_usage_grows_with_the_request(anthropic_standin: AnthropicStandIn) -> None:
    client = sdk(anthropic_standin)
    small = await client.messages.create(model="m", max_tokens=10, messages=USER)
    big = await client.messages.create(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "word " * 400}]
    )
    assert big.usage.input_tokens > small.usage.input_tokens + 300


async def test_tool_use_round_trip_and_pairing_rule(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.enqueue(tool_use_message("lookup", {"q": "paris"}, id="toolu_1"), text_message("done"))
    client = sdk(anthropic_standin)
    first = await client.messages.create(model="m", max_tokens=50, messages=USER, tools=[TOOL])
    block = first.content[0]
    assert block.type == "tool_use" and block.input == {"q": "paris"} and first.stop_reason == "tool_use"
    history = [*USER, {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}]
    answer = await client.messages.create(
        model="m", max_tokens=50, tools=[TOOL],
        messages=[*history, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": block.id, "content": "ok"}]}],
    )
    assert answer.content[0].text == "done"
    # The real API refuses a tool_use left without its tool_result; so does the stand-in.
    with pytest.raises(anthropic.BadRequestError):
        await client.messages.create(model="m", max_tokens=50, tools=[TOOL], messages=[*history, {"role": "user", "content": "hm"}])


@pytest.mark.parametrize(
    "body, problem",
    [
        ({"model": "m", "max_tokens": 5, "messages": []}, "messages"),
        ({"model": "m", "messages": USER}, "max_tokens"),
        ({"max_tokens": 5, "messages": USER}, "model"),
        ({"model": "m", "max_tokens": 5, "messages": USER, "tool_choice": {"type": "tool", "name": "x"}}, "tool_choice"),
        ({"model": "m", "max_tokens": 5, "messages": USER, "tools": [TOOL], "tool_choice": {"type": "tool", "name": "x"}}, "not found"),
        ({"model": "m", "max_tokens": 5, "messages": [{"role": "system", "content": "x"}]}, "role"),
    ],
)
def test_request_validation_table(body: dict, problem: str) -> None:
    found = validate_request(body)
    assert found is not None and problem in found
    assert validate_request({"model": "m", "max_tokens": 5, "messages": USER, "tools": [TOOL]}) is None


async def test_streaming_text_through_sdk_stream_api(anthropic_standin: AnthropicStandIn) -> None:
    text = "The quick brown fox jumps over the lazy dog, twice over."
    anthropic_standin.enqueue(text_message(text, usage={"input_tokens": 17, "output_tokens": 13}))
    client = sdk(anthropic_standin)
    pieces = []
    async with client.messages.stream(model="m", max_tokens=100, messages=USER) as stream:
        async for piece in stream.text_stream:
            pieces.append(piece)
        final = await stream.get_final_message()
    assert len(pieces) > 1 and "".join(pieces) == text
    assert final.content[0].text == text and final.stop_reason == "end_turn"
    assert (final.usage.input_tokens, final.usage.output_tokens) == (17, 13)
    assert anthropic_standin.requests[0].json["stream"] is True


async def test_streaming_tool_use_input_is_reassembled(anthropic_standin: AnthropicStandIn) -> None:
    data = {"q": "a fairly long query string", "n": [1, 2, 3], "nested": {"ok": True}}
    anthropic_standin.enqueue(tool_use_message("lookup", data, text="Let me look."))
    client = sdk(anthropic_standin)
    async with client.messages.stream(model="m", max_tokens=100, messages=USER, tools=[TOOL]) as stream:
        final = await stream.get_final_message()
    assert [b.type for b in final.content] == ["text", "tool_use"]
    assert final.content[1].input == data and final.stop_reason == "tool_use"


async def test_raw_stream_event_order(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.enqueue(text_message("hello world"))
    client = sdk(anthropic_standin)
    stream = await client.messages.create(model="m", max_tokens=10, messages=USER, stream=True)
    kinds = [event.type async for event in stream]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert kinds.index("content_block_start") < kinds.index("content_block_delta") < kinds.index("content_block_stop")


def test_sse_events_carry_final_usage() -> None:
    events = sse_events({"id": "m", "type": "message", "role": "assistant", "model": "x", "content": [],
                         "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 9}})
    assert events[0]["message"]["usage"]["input_tokens"] == 3
    assert events[-2]["usage"]["output_tokens"] == 9


async def test_json_schema_output(anthropic_standin: AnthropicStandIn) -> None:
    class City(BaseModel):
        name: str
        population: int

    anthropic_standin.enqueue(json_message({"name": "Lyon", "population": 520000}))
    client = sdk(anthropic_standin)
    parsed = await client.messages.parse(model="m", max_tokens=50, messages=USER, output_format=City)
    assert parsed.parsed_output == City(name="Lyon", population=520000)
    fmt = anthropic_standin.requests[0].json["output_config"]["format"]
    assert fmt["type"] == "json_schema" and "population" in json.dumps(fmt["schema"])


async def test_default_answers_when_nothing_is_scripted(anthropic_standin: AnthropicStandIn) -> None:
    client = sdk(anthropic_standin)
    plain = await client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "ping"}])
    assert "ping" in plain.content[0].text
    forced = await client.messages.create(
        model="m", max_tokens=10, messages=USER, tools=[TOOL], tool_choice={"type": "tool", "name": "lookup"}
    )
    assert forced.content[0].type == "tool_use" and forced.content[0].input == {}


async def test_async_responder_and_schema_violation(anthropic_standin: AnthropicStandIn) -> None:
    async def responder(request: dict) -> dict:
        return violate_forced_tool(request)

    anthropic_standin.set_responder(responder)
    client = sdk(anthropic_standin)
    msg = await client.messages.create(
        model="m", max_tokens=10, messages=USER, tools=[TOOL], tool_choice={"type": "tool", "name": "lookup"}
    )
    assert msg.content[0].type == "tool_use" and not isinstance(msg.content[0].input["q"], str)


async def test_429_retry_after_is_honoured_then_success(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.fail_next(429, 1, retry_after=0.3)
    anthropic_standin.enqueue(text_message("finally"))
    client = sdk(anthropic_standin, max_retries=2)
    started = time.monotonic()
    msg = await client.messages.create(model="m", max_tokens=10, messages=USER)
    assert time.monotonic() - started >= 0.3
    assert msg.content[0].text == "finally"
    assert [r.retry_count for r in anthropic_standin.requests] == [0, 1]


@pytest.mark.parametrize(
    "status, error",
    [(429, anthropic.RateLimitError), (529, anthropic.OverloadedError), (500, anthropic.InternalServerError)],
)
async def test_faults_become_sdk_errors(anthropic_standin: AnthropicStandIn, status: int, error: type) -> None:
    anthropic_standin.fail_next(status, 1, retry_after=0.01)
    with pytest.raises(error) as caught:
        await sdk(anthropic_standin).messages.create(model="m", max_tokens=10, messages=USER)
    assert caught.value.status_code == status


async def test_delay_makes_the_sdk_time_out(anthropic_standin: AnthropicStandIn) -> None:
    anthropic_standin.delay_next(3)
    started = time.monotonic()
    with pytest.raises(anthropic.APITimeoutError):
        await sdk(anthropic_standin, timeout=0.3).messages.create(model="m", max_tokens=10, messages=USER)
    assert time.monotonic() - started < 2


async def test_malformed_and_empty_bodies(anthropic_standin: AnthropicStandIn) -> None:
    client = sdk(anthropic_standin)
    anthropic_standin.enqueue(malformed_json())
    with pytest.raises(json.JSONDecodeError):  # the SDK lets the decoder's error through
        await client.messages.create(model="m", max_tokens=10, messages=USER)
    anthropic_standin.enqueue(empty_object())
    odd = await client.messages.create(model="m", max_tokens=10, messages=USER)
    assert odd.content is None and odd.usage is None  # the SDK does not validate: callers must


async def test_count_tokens_and_missing_key(anthropic_standin: AnthropicStandIn) -> None:
    counted = await sdk(anthropic_standin).messages.count_tokens(model="m", messages=USER)
    assert counted.input_tokens > 0
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{anthropic_standin.url}/v1/messages", json={"model": "m"}) as resp:
            assert resp.status == 401
            assert (await resp.json())["error"]["type"] == "authentication_error"
