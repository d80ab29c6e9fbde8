"""Shared pieces for the chat-turn tests (no tests here): an app wired like production against
the Anthropic stand-in (real SDK), a capturing Sender, and a scriptable "brain" that answers each
kind of model request (chat, extract, judge, summary) the way a plausible model would.

Why a responder rather than a queue: extraction runs in the background, so chat and extraction
requests interleave; routing by what the request is keeps each test's script readable.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest_asyncio

from bot.app import App, build_app
from bot.core.core import Core
from bot.events import ButtonPress, ChatRef, Incoming, Outgoing
from bot.features.chat.turn import Conversation
from bot.storage.db import Database
from tests.standins.anthropic_api import (  # noqa: F401  (fixture re-exported)
    AnthropicStandIn,
    RecordedRequest,
    anthropic_standin,
    standin_settings,
    text_message,
    tool_use_message,
)

Json = dict[str, Any]
PLATFORM = "console"


def msg(text: str, user: str = "u1", *, chat: str | None = None, group: bool = False, message_id: str = "m1") -> Incoming:
    return Incoming(
        platform=PLATFORM,
        chat_id=chat or user,
        user_id=user,
        text=text,
        display_name=user,
        is_group=group,
        addressed_to_bot=True,
        message_id=message_id,
    )


def press(token: str, user: str = "u1", message_id: str = "q1", chat: str | None = None) -> ButtonPress:
    return ButtonPress(platform=PLATFORM, chat_id=chat or user, user_id=user, token=token, message_id=message_id)


def only(outs: list[Outgoing]) -> Outgoing:
    assert len(outs) == 1, outs
    return outs[0]


def button(out: Outgoing, label_start: str) -> str:
    for b in out.all_buttons:
        if b.label.startswith(label_start):
            return b.token
    raise AssertionError(f"no button {label_start!r} in {[b.label for b in out.all_buttons]}")


@dataclass
class Capture:
    """A Sender for the outbox: records pushes and typing signals, in order with `events`."""

    pushes: list[tuple[ChatRef, Outgoing]] = field(default_factory=list)
    typing_count: int = 0
    events: list[str] = field(default_factory=list)

    async def send(self, chat: ChatRef, message: Outgoing) -> str | None:
        self.pushes.append((chat, message))
        self.events.append("push")
        return f"push-{len(self.pushes)}"

    async def typing(self, chat: ChatRef) -> None:
        self.typing_count += 1


def kind_of(body: Json) -> str:
    """Which job a request is for, from the model name standin_settings gives each job."""
    model = str(body.get("model", ""))
    return {
        "standin-chat": "chat",
        "standin-extract": "extract",
        "standin-judge": "judge",
        "standin-summary": "summary",
    }.get(model, "other")


def requests_of(server: AnthropicStandIn, kind: str) -> list[Json]:
    return [r.json for r in server.message_requests if isinstance(r.body, dict) and kind_of(r.json) == kind]


def last_user_text(body: Json) -> str:
    for m in reversed(body["messages"]):
        if m["role"] == "user" and isinstance(m["content"], str):
            return m["content"]
    return ""


def tool_results(body: Json) -> list[Json]:
    """The tool_result blocks of the last user message of a request."""
    last = body["messages"][-1]
    if last["role"] != "user" or isinstance(last["content"], str):
        return []
    return [b for b in last["content"] if b.get("type") == "tool_result"]


ChatScript = Callable[[Json], Json]


@dataclass
class Brain:
    """Answers each request like a plausible model; tests script what matters to them.

    - chat: the next scripted function from `chat_script` (given the request body), else a
      short text answer.
    - extract: `facts(conversation_text)` -> list of facts (default: none).
    - judge: `verdicts(body)` -> the tool input (default: every old fact "conflicts", p 0.6).
    - summary: a summary quoting the first user message; procedures: `procedure` or not found.
    """

    chat_script: deque[ChatScript] = field(default_factory=deque)
    facts: Callable[[str], list[str]] = lambda _text: []
    verdicts: Callable[[Json], Json] | None = None
    procedure: Json | None = None

    def __call__(self, body: Json) -> Json:
        kind = kind_of(body)
        forced = (body.get("tool_choice") or {}).get("name")
        if kind == "extract" and forced == "save_facts":
            content = body["messages"][-1]["content"]
            return tool_use_message("save_facts", {"facts": self.facts(content)})
        if kind == "judge" and forced == "record_verdicts":
            if self.verdicts is not None:
                return tool_use_message("record_verdicts", self.verdicts(body))
            ids = [int(x) for x in _ids_in(body["messages"][-1]["content"])]
            return tool_use_message(
                "record_verdicts",
                {"verdicts": [{"old_id": i, "relation": "conflicts", "probability": 0.6} for i in ids]},
            )
        if kind == "summary" and forced == "save_episode":
            content = body["messages"][-1]["content"]
            first = _first_user_message(content)
            return tool_use_message(
                "save_episode",
                {"title": "Earlier chat", "summary": f"The person talked about: {first}", "decisions": [], "changes": []},
            )
        if kind == "summary" and forced == "save_procedure":
            return tool_use_message("save_procedure", self.procedure or {"found": False})
        if self.chat_script:
            return self.chat_script.popleft()(body)
        return text_message("Happy to help with that.")


def _ids_in(content: str) -> list[str]:
    import re

    return re.findall(r'<fact id="(\d+)">', content)


def _first_user_message(content: str) -> str:
    import re

    m = re.search(r'<message role="user">\n(.*?)\n</message>', content, re.S)
    return m.group(1) if m else ""


def memory_context(system: str) -> str:
    """The text inside the one memory_context block of a system prompt ("" if none)."""
    start, end = system.find("<memory_context>"), system.find("</memory_context>")
    if start < 0:
        return ""
    assert end > start and system.count("</memory_context>") == 1
    return system[start:end]


def json_content(block: Json) -> Json:
    return json.loads(block["content"])


@dataclass
class ChatKit:
    app: App
    server: AnthropicStandIn
    brain: Brain
    sender: Capture

    @property
    def core(self) -> Core:
        return self.app.core

    @property
    def conversation(self) -> Conversation:
        assert self.app.conversation is not None
        return self.app.conversation

    async def say(self, text: str, user: str = "u1", **kw: Any) -> list[Outgoing]:
        outs = await self.core.handle_message(msg(text, user, **kw))
        self.sender.events.append("returned")
        return outs

    async def settle(self) -> None:
        """Wait for background work (extraction) to finish."""
        await self.core.drain(timeout=20)

    def chats(self) -> list[Json]:
        return requests_of(self.server, "chat")


async def make_kit(db_backend: tuple[str, str | None], server: AnthropicStandIn, **overrides: Any) -> ChatKit:
    url, schema = db_backend
    settings = standin_settings(server, database_url=url, embedding_model="none", **overrides)
    app = build_app(settings, db=Database(url, pg_schema=schema), embedder=None)
    brain = Brain()
    server.set_responder(brain)
    sender = Capture()
    app.core.outbox.register(PLATFORM, sender)
    return ChatKit(app, server, brain, sender)


async def close_kit(kit: ChatKit) -> None:
    await kit.app.close()


@pytest_asyncio.fixture
async def kit(db_backend, anthropic_standin) -> AsyncIterator[ChatKit]:
    k = await make_kit(db_backend, anthropic_standin)
    try:
        yield k
    finally:
        await close_kit(k)
