"""Moves written in other languages (issue 15, item 3 of "What was seen"): the offline rules read
English only, so a fact in German or Chinese reaches the person's AI judge through its vector
neighbours (MiniLM, cosine >= 0.60), and the judge's verdict sets the question and its
recommended answer. Run against the Anthropic stand-in with the real packaged MiniLM."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from bot.app import build_app
from bot.memory.embeddings.encoder import build_embedder
from bot.storage.db import Database
from tests.conftest import make_settings
from tests.memory.embeddings.test_embeddings import _require_minilm
from tests.support.chat_kit import (  # noqa: F401  (anthropic_standin is a fixture)
    PLATFORM,
    Brain,
    Capture,
    ChatKit,
    anthropic_standin,
    close_kit,
    only,
    requests_of,
    standin_settings,
)


@pytest.fixture(scope="module")
def minilm() -> Iterator[object]:
    _require_minilm()
    emb = build_embedder(make_settings(embedding_model="default"))
    assert emb is not None and emb.wait_ready(120), getattr(emb, "error", None)
    yield emb
    emb.close()


class Shared:
    """The module's model for one app: the app closes what it was given when it closes, and the
    next test still needs the model."""

    def __init__(self, inner: object) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)

    def close(self) -> None:
        return None


async def kit_with_vectors(db_backend, server, embedder) -> ChatKit:
    url, schema = db_backend
    embedder = Shared(embedder)
    settings = standin_settings(server, database_url=url, embedding_model="default")
    app = build_app(settings, db=Database(url, pg_schema=schema), embedder=embedder)
    brain = Brain()
    server.set_responder(brain)
    sender = Capture()
    app.core.outbox.register(PLATFORM, sender)
    return ChatKit(app, server, brain, sender)


def replaces(body: dict) -> dict:
    ids = [int(x) for x in re.findall(r'<fact id="(\d+)">', body["messages"][-1]["content"])]
    return {"verdicts": [{"old_id": i, "relation": "replaces", "probability": 0.7} for i in ids]}


MOVES = [
    ("Ich wohne in München", "Ich wohne jetzt in Berlin"),
    ("我住在柏林", "我现在住在上海"),
]


@pytest.mark.parametrize(("old", "new"), MOVES)
async def test_a_move_in_another_language_reaches_the_judge_and_is_asked(
    db_backend, anthropic_standin, minilm, old: str, new: str
) -> None:
    kit = await kit_with_vectors(db_backend, anthropic_standin, minilm)
    try:
        kit.brain.verdicts = replaces
        only(await kit.say(f"remember: {old}"))
        only(await kit.say("/settings judge on"))
        question = only(await kit.say(f"remember: {new}"))
        (judged,) = requests_of(anthropic_standin, "judge")
        assert old in judged["messages"][-1]["content"]  # the neighbour reached the judge
        assert old in question.text and new in question.text
        labels = [b.label for b in question.all_buttons]
        assert labels == ["Keep both", "Mark older as past (recommended)", "Replace older (deletes it)", "Discard newer"]
    finally:
        await close_kit(kit)


async def test_without_the_judge_the_rules_alone_leave_other_languages_alone(db_backend, anthropic_standin, minilm) -> None:
    """What works offline: the English rules do not read German, so without the judge both
    facts stay current (the README says so)."""
    kit = await kit_with_vectors(db_backend, anthropic_standin, minilm)
    try:
        only(await kit.say("remember: Ich wohne in München"))
        out = only(await kit.say("remember: Ich wohne jetzt in Berlin"))
        assert [b.label for b in out.all_buttons] == ["Undo"] and requests_of(anthropic_standin, "judge") == []
    finally:
        await close_kit(kit)
