"""A stand-in for the Anthropic Messages API, served over HTTP on 127.0.0.1.

Why a server and not mocks: the anthropic SDK 2.x runs on httpx2 (respx cannot see it), and the
behaviour we depend on (retries, retry-after, timeouts, SSE parsing, error classes) lives inside
the SDK. Pointing the real SDK at a real socket tests all of it.

Usage::

    async with AnthropicStandIn() as server:
        client = AsyncAnthropic(base_url=server.url, api_key="test", max_retries=0)
        server.enqueue(text_message("hello"))
        await client.messages.create(...)
        server.requests[-1].body  # the JSON the SDK sent (the key is never recorded)

How an answer is chosen, first match wins: a pending fault (`fail_next`), the next scripted reply
(`enqueue`), the responder function (`set_responder`), then a default (a text reply; `{}` as the
input of a forced tool, `"{}"` for JSON-schema output — the "empty object" failure a real model or
proxy can produce). Requests the real API would reject (no key, missing fields, a forced tool not in
`tools`, tool_use without tool_result) get a 400/401 without consuming any of these.
A message body without `model`/`usage`/`id` is completed from the request, with usage estimated at
about 4 characters a token (deliberately not bot.tokens, so tests can tell the two apart).
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import math
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

Json = dict[str, Any]

_SECRET_HEADERS = frozenset({"x-api-key", "authorization"})

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}


# --------------------------------------------------------------------------------------------
# Builders


def _message_id() -> str:
    return f"msg_standin_{uuid.uuid4().hex[:20]}"


def tool_use_id() -> str:
    """An id in the API's format, so tool_result round trips look real."""
    return f"toolu_standin_{uuid.uuid4().hex[:20]}"


def message(
    content: list[Json],
    *,
    stop_reason: str = "end_turn",
    usage: Json | None = None,
    model: str | None = None,
) -> Json:
    """A Messages API response body; missing model/usage are filled in from the request."""
    body: Json = {
        "id": _message_id(),
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
    }
    if usage is not None:
        body["usage"] = usage
    if model is not None:
        body["model"] = model
    return body


def text_message(text: str, *, stop_reason: str = "end_turn", usage: Json | None = None) -> Json:
    """A plain text answer."""
    return message([{"type": "text", "text": text}], stop_reason=stop_reason, usage=usage)


def tool_use_message(
    name: str,
    input: Any,
    *,
    id: str | None = None,
    text: str | None = None,
    stop_reason: str = "tool_use",
    usage: Json | None = None,
) -> Json:
    """An answer calling tool `name` with `input` (anything: tests may send invalid input)."""
    content: list[Json] = []
    if text:
        content.append({"type": "text", "text": text})
    content.append({"type": "tool_use", "id": id or tool_use_id(), "name": name, "input": input})
    return message(content, stop_reason=stop_reason, usage=usage)


def multi_tool_use_message(calls: list[tuple[str, Any]], *, text: str | None = None) -> Json:
    """Several tool calls in one answer (the API allows parallel tool use)."""
    content: list[Json] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": tool_use_id(), "name": n, "input": i} for n, i in calls]
    return message(content, stop_reason="tool_use")


def json_message(obj: Any, *, usage: Json | None = None) -> Json:
    """A JSON-schema structured answer (output_config.format): the JSON arrives as text."""
    return text_message(json.dumps(obj), usage=usage)


def error_body(status: int, message: str | None = None) -> Json:
    kind = _ERROR_TYPES.get(status, "api_error")
    return {
        "type": "error",
        "error": {"type": kind, "message": message or f"stand-in {kind}"},
        "request_id": f"req_standin_{uuid.uuid4().hex[:12]}",
    }


@dataclass
class Reply:
    """One scripted HTTP answer, for anything a plain message body cannot express.

    A dict `body` is sent as JSON (as SSE events when the request asked to stream and the body is
    a message); bytes are sent verbatim (malformed or empty bodies).
    """

    status: int = 200
    body: Json | bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    delay: float = 0.0
    chunk_delay: float = 0.0  # between SSE events when streaming


def error_reply(status: int, *, retry_after: float | None = None, message: str | None = None) -> Reply:
    headers = {"retry-after": _number(retry_after)} if retry_after is not None else {}
    return Reply(status=status, body=error_body(status, message), headers=headers)


def malformed_json() -> Reply:
    """A 200 whose JSON body is cut off half way."""
    return Reply(body=b'{"id": "msg_broken", "type": "message", "content": [{"type": "te')


def empty_body() -> Reply:
    """A 200 with an empty JSON body."""
    return Reply(body=b"")


def empty_object() -> Reply:
    """A 200 whose body is `{}` — JSON, but not a message."""
    return Reply(body={})


def schema_violating_input(schema: Json) -> Json:
    """An object that breaks `schema`: every property gets a value of the wrong JSON type.

    Why generated: tests of validation should not depend on a hand-picked bad value that happens
    to be coercible (pydantic accepts "0.9" for a float in lax mode; it never accepts a list).
    """
    out: Json = {}
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        out[name] = {"nope": True} if kind in ("string", "array", None) else ["not", "a", str(kind)]
    return out


def violate_forced_tool(request: Json) -> Json:
    """A responder: call the forced tool with input that violates its input_schema."""
    name = (request.get("tool_choice") or {}).get("name")
    tool = next((t for t in request.get("tools") or [] if t.get("name") == name), None)
    if tool is None:
        return text_message("I would rather answer in prose.")
    return tool_use_message(name, schema_violating_input(tool.get("input_schema") or {}))


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# --------------------------------------------------------------------------------------------
# Requests


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names; x-api-key and authorization are never kept
    body: Any  # parsed JSON, or None when the body was not JSON
    had_credentials: bool

    @property
    def json(self) -> Json:
        """The body as a dict (fails loudly in a test if the SDK sent something else)."""
        assert isinstance(self.body, dict), f"request body is not a JSON object: {self.body!r}"
        return self.body

    @property
    def retry_count(self) -> int:
        return int(self.headers.get("x-stainless-retry-count", "0") or 0)


Responder = Callable[[Json], "Json | Reply | Awaitable[Json | Reply]"]


def estimate_tokens(value: Any) -> int:
    """About 4 characters a token over the JSON text; what the stand-in reports as usage."""
    if value is None:
        return 0
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return max(1, math.ceil(len(text) / 4))


def _input_tokens(request: Json) -> int:
    return max(
        1,
        estimate_tokens(request.get("system"))
        + estimate_tokens(request.get("messages"))
        + estimate_tokens(request.get("tools")),
    )


def _output_tokens(content: list[Json]) -> int:
    total = 0
    for block in content:
        if block.get("type") == "text":
            total += estimate_tokens(block.get("text", ""))
        else:
            total += estimate_tokens(block.get("input")) + 5
    return max(1, total)


def validate_request(request: Any) -> str | None:
    """What the real API would reject with a 400, as its message; None if acceptable.

    Not the whole API contract: the mistakes our own code could plausibly make.
    """
    if not isinstance(request, dict):
        return "request body must be a JSON object"
    if not isinstance(request.get("model"), str) or not request["model"]:
        return "model: Field required"
    max_tokens = request.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        return "max_tokens: must be a positive integer"
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    system = request.get("system")
    if system is not None and not isinstance(system, (str, list)):
        return "system: must be a string or a list of text blocks"
    tools = request.get("tools")
    names: set[str] = set()
    if tools is not None:
        if not isinstance(tools, list):
            return "tools: must be a list"
        for i, tool in enumerate(tools):
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                return f"tools.{i}.name: Field required"
            schema = tool.get("input_schema")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                return f"tools.{i}.input_schema: must be a JSON schema of type object"
            names.add(tool["name"])
    choice = request.get("tool_choice")
    if choice is not None:
        if not tools:
            return "tool_choice may only be specified while providing tools"
        if choice.get("type") == "tool" and choice.get("name") not in names:
            return f"tool_choice: tool {choice.get('name')!r} not found in tools"
    pending: set[str] = set()
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: must be 'user' or 'assistant'"
        content = msg.get("content")
        if isinstance(content, str):
            blocks: list[Any] = []
        elif isinstance(content, list):
            blocks = content
        else:
            return f"messages.{i}.content: must be a string or a list of blocks"
        if any(not isinstance(b, dict) or "type" not in b for b in blocks):
            return f"messages.{i}.content: every block needs a type"
        results = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
        if pending and not pending <= results:
            return (
                f"messages.{i}: tool_use ids were found without tool_result blocks immediately "
                f"after: {', '.join(sorted(pending - results))}"
            )
        if results and not results <= pending:
            return f"messages.{i}: unexpected tool_use_id found in tool_result blocks"
        pending = (
            {b.get("id") for b in blocks if b.get("type") == "tool_use"}
            if msg["role"] == "assistant"
            else set()
        )
    if pending:
        return "the last message has tool_use blocks without tool_result blocks"
    return None


def _last_user_text(request: Json) -> str:
    for msg in reversed(request.get("messages") or []):
        if msg.get("role") != "user":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            return content
        texts = [b.get("text", "") for b in content if b.get("type") == "text"]
        return " ".join(texts) or "(tool results)"
    return ""


def default_answer(request: Json) -> Json:
    """What the stand-in says when the test scripted nothing."""
    choice = request.get("tool_choice") or {}
    if choice.get("type") == "tool":
        return tool_use_message(choice["name"], {})
    fmt = (request.get("output_config") or {}).get("format") or {}
    if fmt.get("type") == "json_schema":
        return text_message("{}")
    return text_message(f"(stand-in reply) {_last_user_text(request)[:200]}")


# --------------------------------------------------------------------------------------------
# The server


class AnthropicStandIn:
    """The server; see the module docstring. All state is per instance."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.rejections: list[str] = []  # 400/401 messages, to explain a surprising failure
        self._queue: deque[Json | Reply] = deque()
        self._faults: deque[Reply] = deque()
        self._delays: deque[float] = deque()
        self._responder: Responder | None = None
        self._runner: web.AppRunner | None = None
        self._closing = asyncio.Event()
        self._ids = itertools.count(1)
        self.port = 0

    # ---- life cycle
    async def start(self) -> AnthropicStandIn:
        app = web.Application(client_max_size=32 * 1024 * 1024)
        app.router.add_post("/v1/messages", self._messages)
        app.router.add_post("/v1/messages/count_tokens", self._count_tokens)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server  # aiohttp exposes the bound port only here
        assert server is not None and server.sockets
        self.port = server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        self._closing.set()  # releases handlers sleeping in a delay
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> AnthropicStandIn:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ---- scripting
    def enqueue(self, *replies: Json | Reply) -> None:
        """Answer the next requests, in order, with these message bodies or Replies."""
        self._queue.extend(replies)

    def set_responder(self, fn: Responder | None) -> None:
        """Answer from `fn(request_json)` once the queue is empty (may be async)."""
        self._responder = fn

    def fail_next(
        self, status: int, n: int = 1, *, retry_after: float | None = None, message: str | None = None
    ) -> None:
        """The next `n` requests fail with `status` (429 sends retry-after, 1 s unless given)."""
        if status == 429 and retry_after is None:
            retry_after = 1
        for _ in range(n):
            self._faults.append(error_reply(status, retry_after=retry_after, message=message))

    def delay_next(self, seconds: float, n: int = 1) -> None:
        """The next `n` requests wait `seconds` before any answer (fault or not)."""
        self._delays.extend([seconds] * n)

    @property
    def message_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == "/v1/messages"]

    # ---- handlers
    async def _record(self, request: web.Request) -> RecordedRequest:
        raw = await request.read()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in request.headers.items() if k.lower() not in _SECRET_HEADERS}
        had_key = bool(request.headers.get("x-api-key") or request.headers.get("authorization"))
        recorded = RecordedRequest(request.method, request.path, headers, body, had_key)
        self.requests.append(recorded)
        return recorded

    async def _sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        try:
            await asyncio.wait_for(self._closing.wait(), timeout=seconds)
        except TimeoutError:
            pass

    def _reject(self, status: int, text: str) -> web.Response:
        self.rejections.append(text)
        return web.json_response(error_body(status, text), status=status)

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        recorded = await self._record(request)
        if self._delays:
            await self._sleep(self._delays.popleft())
        if not recorded.had_credentials:
            return self._reject(401, "x-api-key header is required")
        problem = validate_request(recorded.body)
        if problem:
            return self._reject(400, problem)
        body = recorded.json
        reply = await self._choose(body)
        if not isinstance(reply, Reply):
            reply = Reply(body=reply)
        await self._sleep(reply.delay)
        headers = {"request-id": f"req_standin_{next(self._ids)}", **reply.headers}
        if isinstance(reply.body, bytes) or reply.body is None:
            return web.Response(
                status=reply.status, body=reply.body or b"", headers=headers, content_type=reply.content_type
            )
        payload = reply.body
        if payload.get("type") == "message":
            payload = self._complete(payload, body)
            if body.get("stream") is True and reply.status == 200:
                return await self._stream(request, payload, headers, reply.chunk_delay)
        return web.json_response(payload, status=reply.status, headers=headers)

    async def _choose(self, body: Json) -> Json | Reply:
        if self._faults:
            return self._faults.popleft()
        if self._queue:
            return self._queue.popleft()
        if self._responder is not None:
            result = self._responder(body)
            if inspect.isawaitable(result):
                result = await result
            return result  # type: ignore[return-value]
        return default_answer(body)

    def _complete(self, payload: Json, request: Json) -> Json:
        out = json.loads(json.dumps(payload))  # never mutate what the test scripted
        out.setdefault("id", _message_id())
        out.setdefault("role", "assistant")
        out.setdefault("stop_sequence", None)
        if not out.get("model"):
            out["model"] = request.get("model")
        if "usage" not in out:
            out["usage"] = {
                "input_tokens": _input_tokens(request),
                "output_tokens": _output_tokens(out.get("content") or []),
            }
        return out

    async def _stream(
        self, request: web.Request, payload: Json, headers: dict[str, str], chunk_delay: float
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            status=200, headers={**headers, "Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        for event in sse_events(payload):
            data = json.dumps(event)
            await response.write(f"event: {event['type']}\ndata: {data}\n\n".encode())
            await self._sleep(chunk_delay)
        await response.write_eof()
        return response

    async def _count_tokens(self, request: web.Request) -> web.Response:
        recorded = await self._record(request)
        if not recorded.had_credentials:
            return self._reject(401, "x-api-key header is required")
        body = recorded.body if isinstance(recorded.body, dict) else {}
        if not body.get("messages"):
            return self._reject(400, "messages: at least one message is required")
        return web.json_response({"input_tokens": _input_tokens(body)})


def _chunks(text: str, size: int = 12) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def sse_events(message_body: Json) -> list[Json]:
    """The Messages streaming events that rebuild `message_body`, in the API's order."""
    usage = message_body.get("usage") or {}
    start = {**message_body, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {"input_tokens": usage.get("input_tokens", 0), "output_tokens": 1}
    events: list[Json] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for index, block in enumerate(message_body.get("content") or []):
        if block.get("type") == "tool_use":
            head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": part}
                for part in _chunks(json.dumps(block.get("input")))
            ]
        else:
            head = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": part} for part in _chunks(block.get("text", ""))]
        events.append({"type": "content_block_start", "index": index, "content_block": head})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {
                "stop_reason": message_body.get("stop_reason"),
                "stop_sequence": message_body.get("stop_sequence"),
            },
            "usage": {"output_tokens": usage.get("output_tokens", 0)},
        }
    )
    events.append({"type": "message_stop"})
    return events
