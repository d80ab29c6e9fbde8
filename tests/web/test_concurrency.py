"""The two doors of one memory at once: the chat and the API (and MCP) in the same process, on
SQLite and PostgreSQL. A fact added through the API is in the chat's next recall; a question asked
through one door is answered through the other; row versions hold across both."""

from __future__ import annotations

import asyncio

import httpx

from bot.runner import web_for
from tests.standins.anthropic_api import anthropic_standin  # noqa: F401  (fixture)
from tests.support.chat_kit import make_kit, close_kit, memory_context, requests_of
from tests.support.processes import event_chains_are_linear
from tests.support.web_kit import WebKit, kit  # noqa: F401

PAST = "Mark older as past (recommended)"


async def test_a_fact_added_through_the_api_is_in_the_chats_next_recall(db_backend, anthropic_standin) -> None:  # noqa: F811
    chat = await make_kit(db_backend, anthropic_standin, web_port=0)
    _, server = web_for(chat.app)
    await server.start()
    try:
        owner = await chat.app.memory.owner_for("console", "u1")
        assert owner is not None
        issued = await chat.app.access.create("console", "u1", "script")
        async with httpx.AsyncClient(base_url=server.url, headers={"Authorization": f"Bearer {issued.secret}"}) as api:
            # while the person is chatting, a program adds a fact
            talk, added = await asyncio.gather(
                chat.say("I had a long day at work"),
                api.post("/api/memories", json={"text": "My sister is called Anna"}),
            )
            assert added.status_code == 201 and talk
            await chat.settle()
            await chat.say("what is my sister called?")
        context = memory_context(requests_of(anthropic_standin, "chat")[-1]["system"])
        assert "My sister is called Anna" in context
    finally:
        await server.stop()
        await close_kit(chat)


async def test_a_question_asked_through_the_api_is_answered_in_the_chat(kit: WebKit) -> None:  # noqa: F811
    alice = await kit.person("6001")
    api = kit.http(alice)
    await api.post("/api/memories", json={"text": "I live in London"})
    asked = (await api.post("/api/memories", json={"text": "I moved to Paris"})).json()
    assert asked["outcome"] == "asked"

    outs = await kit.say(alice, "/memories review")
    waiting = outs[-1]
    assert "Waiting for your answer (1)" in waiting.text
    (question,) = await kit.press(alice, waiting, "Ask about 1")
    assert "Paris" in question.text and "London" in question.text
    (settled,) = await kit.press(alice, question, PAST)
    assert settled.notice == "Done."

    assert (await api.get("/api/questions")).json() == {"questions": []}
    london = (await api.get(f"/api/memories/{asked['question']['old'][0]['id']}")).json()
    assert london["status"] == "historical" and london["replaced_by"] == asked["memory"]["id"]
    late = await api.post(f"/api/questions/{asked['question']['id']}/answer", json={"choice": "discard_newer"})
    assert late.status_code == 409 and "already settled" in late.json()["error"]["message"]


async def test_a_question_asked_in_the_chat_is_answered_through_the_api(kit: WebKit) -> None:  # noqa: F811
    bob = await kit.person("6002")
    api = kit.http(bob)
    await kit.say(bob, "remember: I drive a Honda Civic")
    (question,) = await kit.say(bob, "remember: I drive a Tesla Model 3 now")
    assert any(b.label == PAST for b in question.all_buttons)

    (q,) = (await api.get("/api/questions")).json()["questions"]
    assert q["new"]["text"] == "I drive a Tesla Model 3 now"
    r = await api.post(f"/api/questions/{q['id']}/answer", json={"choice": "keep_both"})
    assert r.status_code == 200
    before = kit.state(bob)

    # the chat's buttons for the same question now say so in the message itself, and change nothing
    (late,) = await kit.press(bob, question, PAST)
    assert late.text.startswith("That question was already settled (Keep both).") and not late.all_buttons
    assert kit.state(bob) == before
    statuses = {m["text"]: m["status"] for m in (await api.get("/api/memories", params={"status": "all"})).json()["memories"]}
    assert statuses == {"I drive a Honda Civic": "current", "I drive a Tesla Model 3 now": "current"}

    # and /undo in the chat takes the API's answer back: one history, one undo
    (undone,) = (await kit.say(bob, "/undo"))[:1]
    assert undone.text.startswith("Undone")
    assert [x["id"] for x in (await api.get("/api/questions")).json()["questions"]] == [q["id"]]


async def test_row_versions_hold_across_both_doors(kit: WebKit) -> None:  # noqa: F811
    carol = await kit.person("6003")
    api = kit.http(carol)
    m = (await api.post("/api/memories", json={"text": "My car is a blue Golf"})).json()["memory"]

    # the program read version v; the person then corrects it in the chat
    await kit.say(carol, "/memories")
    (edited,) = await kit.say(carol, "/edit 1 My car is a red Golf")
    assert edited.text.startswith("Corrected")
    r = await api.patch(f"/api/memories/{m['id']}", json={"text": "My car is a green Golf", "version": m["version"]})
    assert r.status_code == 409
    assert (await api.get(f"/api/memories/{m['id']}")).json()["text"] == "My car is a red Golf"

    # both doors at the same moment, many times: each change is whole, none is lost silently
    for i in range(12):
        current = (await api.get(f"/api/memories/{m['id']}")).json()
        await kit.say(carol, "/memories")
        via_api, via_chat = await asyncio.gather(
            api.patch(f"/api/memories/{m['id']}", json={"text": f"My car is Golf number {i} (api)",
                                                         "version": current["version"]}),
            kit.say(carol, f"/edit 1 My car is Golf number {i} (chat)"),
        )
        assert via_api.status_code in (200, 409), via_api.text
        chat_text = via_chat[0].text
        assert chat_text.startswith("Corrected") or "changed at the same moment" in chat_text, chat_text
        final = (await api.get(f"/api/memories/{m['id']}")).json()["text"]
        winners = ([f"My car is Golf number {i} (api)"] if via_api.status_code == 200 else []) + (
            [f"My car is Golf number {i} (chat)"] if chat_text.startswith("Corrected") else [])
        assert final in winners, (final, winners)
    event_chains_are_linear(kit.app.db, carol.owner_id)
